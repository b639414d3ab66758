"""The trace a capture builds (capture.py): the hooks through which the trace's ops ask the
frontend what it knows while tracing: the user's line (``current_source``), a small input
tensor's values (``known_value``), an attribute of the real tensor an input stands for
(``outside_attr``: ``.grad``), whether a tensor's truth test is an ``assert``
(``assertion``) or a cheap predicate of inputs (``input_truth``), a symbolic number's value (``specialize``) and the proxies of outside values
(``resolve_inputs``)."""

from __future__ import annotations

import functools
import linecache
import os

import torch

from .frontend import events as ev
from .frontend.ops.control import assertion_at
from .frontend.provenance import ATTR, Provenance
from .guards.record import PREDICATE, TRUTH, VALUES
from .guards.truth import truth_check
from .ir import NumberProxy, Trace
from .ops.ltorch_checks import assert_tensor
from .user_errors import plugin_dirs

_TORCH_DIR = os.path.dirname(torch.__file__)
_MAX_VALUES = 1024  # largest input tensor whose contents may be read (and checked on every call)


@functools.lru_cache(maxsize=1)
def _library_dirs() -> tuple[str, ...]:
    return (_TORCH_DIR, *plugin_dirs())


#: a comparison operator -> the symbols its test may be of (a reflected one included: `0 < t`)
_COMPARISONS = {"==": ("ltorch.eq",), "!=": ("ltorch.ne",), "<": ("ltorch.lt", "ltorch.gt"),
                "<=": ("ltorch.le", "ltorch.ge"), ">": ("ltorch.gt", "ltorch.lt"), ">=": ("ltorch.ge", "ltorch.le")}


class CaptureTrace(Trace):
    """A trace whose ``current_source`` is the user's line the interpreter is executing."""

    interp = None

    @property
    def current_source(self):
        """The innermost user frame's line: frames of torch's own Python code (nn.Linear's
        forward, F.layer_norm...) and of installed plugins (the functions a lookaside
        interprets in place of a library's) are skipped so comments point at the user's model."""
        I = self.interp
        if I is None or not I.frames:
            return None
        library = _library_dirs()
        for f in reversed(I.frames):
            filename = f.info.code.co_filename
            if not filename.startswith(library):
                break
        inst = f.insts[f.ip - 1]
        filename, line, _ = inst.site
        return (filename, line, linecache.getline(filename, line).strip())

    @current_source.setter
    def current_source(self, value):  # set by Trace.__init__ / at_source: the interpreter decides
        pass

    def known_value(self, p):
        """The contents of input tensor ``p`` if it is small (a tensor of indices), guarded."""
        I = self.interp
        hit = I.recorder.input_of.get(id(p)) if I is not None else None
        if hit is None or hit[0].numel() > _MAX_VALUES or hit[0].is_floating_point() or hit[0].is_complex():
            return None
        value, prov = hit
        v = value.tolist()
        I.recorder.guard(prov, VALUES, v)
        return v

    def outside_attr(self, p, attr):
        """``p.<attr>`` read from the real tensor ``p`` stands for (an input, or what an input is
        now after an in-place write to it), entered at the input's path ``.<attr>`` like any
        outside read: the prologue fetches it again on every call (a tensor becomes an input of
        the trace, anything else is guarded). ``(False, None)`` for a tensor computed here."""
        I = self.interp
        rec = I.recorder if I is not None else None
        if rec is None:
            return False, None
        hit = rec.input_of.get(id(p))
        if hit is None and self.written:  # `y = x.add_(1)`: y is x
            w = self.written
            hit = next(((v, prov) for v, q, prov in rec.proxies.values()
                        if w.get(id(q)) is p and id(q) in rec.input_of), None)
        if hit is None:
            return False, None
        value, prov = hit
        v = getattr(value, attr)
        return True, I.enter(v, Provenance(ATTR, prov, attr), ev.READ_ATTR, I._current_inst(), attr, value)

    def assertion(self, p):
        """When tensor ``p``'s truth test only decides whether the program's ``assert`` fails:
        a check of it, recorded to run on every call, and the truth the program goes on with."""
        I = self.interp
        found = assertion_at(I.frames[-1]) if I is not None and I.frames else None
        if found is None:
            return None
        holds, args, inst = found
        if inst.opname == "COMPARE_OP":
            # (3.13) the test of the comparison's own result, not of one C code made inside
            # it (`[a] != [b]` tests `a == b`)
            last = self.bound_symbols[-1] if self.bound_symbols else None
            if last is None or last.flat_outs != (p,) or last.sym.id not in _COMPARISONS.get(inst.argval, ()):
                return None
        assert_tensor(p, holds, args, f"{inst.site[0]}:{inst.site[1]}")
        return holds

    def input_truth(self, p):
        """The truth of tensor ``p`` where it is a cheap predicate of input tensors, guarded
        (TRUTH: the prologue computes it again on every call); None elsewhere."""
        I = self.interp
        if I is None:
            return None
        inputs = dict(I.recorder.input_of)
        inputs.update((id(q), (q.hint, prov)) for prov, q in I.recorder.cap.inputs if type(q) is NumberProxy)
        found = truth_check(self, p, inputs)
        if found is None:
            return None
        I.recorder.guard(None, TRUTH, found, key=(id(p), TRUTH))
        return found.value

    recorder = None

    def specialize(self, p, kind, value):
        """A symbolic number's value is needed (``bool``, ``int``...): guard it (PREDICATE)."""
        self.recorder.guard(None, PREDICATE, (p, kind, value), key=(id(p), kind))

    def resolve_inputs(self, args, kwargs):
        I = self.interp
        if I is None:
            return args, kwargs
        return I.recorder.resolve(I, args, kwargs)
