"""Symbols (the ops a trace can record) and bound symbols (one recorded call).

A :class:`Symbol` is a record: its name, how it prints, and its rules. ``meta`` computes
output proxies from input proxies (shapes, dtypes, devices); ``decomposition``, when
present, expresses the op in terms of other symbols. Calling a symbol while a trace is
being built (``with tracing(trace):``) runs the rule and appends a :class:`BoundSymbol` to
the trace:

* a symbol with a ``decomposition`` runs it in a sub-scope of the trace; the bound
  symbols it records become the new bound symbol's ``subsymbols`` and its return value the
  outputs (``meta`` is then optional and only checked by the verifier). If the
  decomposition records nothing and returns only its inputs, the call is a no-op and
  nothing is recorded. A decomposition that returns ``NotImplemented`` (before recording
  anything) declines this call (a dtype or argument form it does not cover, such as complex
  inputs): ``meta`` then gives the outputs and the bound symbol has no subsymbols, so
  executors run the op whole (as they run a symbol without a decomposition);
* otherwise ``meta`` returns fresh output proxies (a proxy, a possibly nested tuple/list of
  proxies, or None).

Other per-symbol rules (implementations, VJPs, costs) live in tables keyed by symbol id in
the packages that own them, never on the symbol.

Calling convention (every symbol, every executor, checked by ``verify``):
**tensors and numbers are positional; static metadata is passed by keyword.** Static
metadata is what does not flow through the computation: dims, shapes given as constants,
dtypes, devices, layouts, memory formats, strings and flags. So ``ltorch.sum(t0, dim=1,
keepdim=True)``, ``ltorch.to(t0, dtype=torch.float16)``, ``prims.add(t0, f0)``. A proxy
never appears in keyword arguments, and a dtype/device/layout/memory format/string never
appears in positional arguments.

A bound symbol is frozen; passes rewrite it with :meth:`BoundSymbol.replace` (which returns
the same object when nothing changed, so "did this pass change anything" is an ``is``
check) and keep per-pass facts in side tables keyed by the bound symbol (it hashes by
identity).
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from types import MappingProxyType
from typing import Any, Callable

import torch

from .printing import annotation, print_value
from .proxies import Proxy, TensorProxy, flat_proxies, is_valid_name, substitute
from .replay import call_key, replay, replayable
from .size import plain, plain_kwargs
from .trace import current_equalities, current_guard_sink, current_trace

__all__ = ["Symbol", "BoundSymbol", "TracingError", "without_unused_numbers"]


class TracingError(RuntimeError):
    """A symbol was called where it cannot be recorded, or its rule returned something a
    trace cannot hold."""


@dataclass(frozen=True, eq=False)
class Symbol:
    """An op a trace can record.

    :param name: the op's short name (``"add"``).
    :param meta: ``meta(*args, **kwargs)`` -> output proxies, created with
        ``thunder_core.ir.tensor_proxy``/``number_proxy`` (named by the current trace). May
        be None when ``decomposition`` is given.
    :param id: unique identifier, the key of every rule table (``"prims.add"``,
        ``"torch.nn.functional.gelu"``).
    :param decomposition: the op written with other symbols, or None.
    :param is_prim: a primitive: has ``meta`` and no decomposition; executors must implement it.
    :param tags: static properties passes may query: the op's *traits* (``"elementwise"``,
        ``"view"``, ``"random"``...; see ``thunder_core.ir.traits``, asked with ``has_trait``)
        and other facts such as ``"may-return-input"``.
    :param python_name: the name the call prints as (default ``name``).
    :param module: module alias (an identifier) the call prints under: ``"prims"`` prints ``prims.add(...)``;
        see ``thunder_core.ir.printing.NAMESPACES``. None prints the bare ``python_name``.

    ``writes_first`` (derived): the symbol is tagged ``"inplace"`` and writes into its first
    argument: its id ends with ``_`` (``ltorch.add_``) or it is an opaque mutating call. A call
    of one made by the program returns that argument itself, as eager does.

    Example::

        add = Symbol("add", meta=add_meta, id="prims.add", is_prim=True, module="prims")
        with tracing(trace):
            t2 = add(t0, t1)          # records `t2 = prims.add(t0, t1)`
    """

    name: str
    meta: Callable | None
    id: str
    decomposition: Callable | None = None
    is_prim: bool = False
    tags: frozenset[str] = frozenset()
    python_name: str | None = None
    module: str | None = None

    def __post_init__(self):
        if self.python_name is None:
            object.__setattr__(self, "python_name", self.name)
        object.__setattr__(self, "tags", frozenset(self.tags))
        # an in-place op that writes into its first argument (Tensor.add_, an opaque mutating
        # method); other ops tagged in-place write elsewhere (batch_norm: running statistics)
        object.__setattr__(self, "writes_first", "inplace" in self.tags and (
            self.id.endswith("_") or "opaque" in self.tags))
        if not is_valid_name(self.python_name):
            raise ValueError(f"Symbol {self.id!r}: python_name {self.python_name!r} is not a valid Python identifier.")
        if self.module is not None and not is_valid_name(self.module):
            raise ValueError(f"Symbol {self.id!r}: module alias {self.module!r} is not a Python identifier (register "
                             "the importable module path in thunder_core.ir.printing.NAMESPACES instead).")
        if self.meta is None and self.decomposition is None:
            raise ValueError(f"Symbol {self.id!r} has neither a meta function nor a decomposition, so calling it "
                             "could not compute its outputs. Give it at least one.")
        if self.is_prim and (self.decomposition is not None or self.meta is None):
            raise ValueError(f"Symbol {self.id!r} is marked is_prim: a primitive has a meta function and no "
                             "decomposition.")

    @property
    def printed_name(self) -> str:
        """How calls print: ``module.python_name`` or ``python_name``."""
        return self.python_name if self.module is None else f"{self.module}.{self.python_name}"

    def __repr__(self) -> str:
        return f"<Symbol {self.id}>"

    def __call__(self, *args, **kwargs):
        trace = current_trace()
        if trace is None:
            raise TracingError(
                f"Symbol {self.id} was called outside of a trace. Symbols record themselves into the trace being "
                f"built and compute nothing: call it inside `with thunder_core.ir.tracing(trace):`, or run the "
                f"trace through Trace.python_callable(impls) to execute implementations.")
        args = plain(args)  # (a shape is a Size to the program, a plain tuple in the trace: ir/size.py)
        if kwargs:
            kwargs = plain_kwargs(kwargs)
        if trace.resolve_inputs is not None:
            args, kwargs = trace.resolve_inputs(args, kwargs)
        if trace.written:  # a tensor an earlier write changed (requires grad, shape): read that write's result
            args, kwargs = substitute(args, trace.written), substitute(kwargs, trace.written)
        eqs = current_equalities()
        if eqs:  # sizes guards made equal: the call takes one symbol for them
            args, kwargs = eqs.canonical_value(args), eqs.canonical_value(kwargs)
        if trace.cast_inputs is not None and not trace.autocast_off:
            cast = trace.cast_inputs(self, args, kwargs)
            if cast is not None:  # an autocast op: its inputs cast, its body run without autocast
                trace.autocast_off = True
                try:
                    return self(*cast[0], **cast[1])
                finally:
                    trace.autocast_off = False
        key = None
        if self.decomposition is None:
            out, subsymbols = self.meta(*args, **kwargs), ()
            if not torch.is_grad_enabled():
                out = without_grad(out, trace)
        else:
            cache = trace.decompositions
            if cache is not None:  # a call of a structure recorded before is copied (ir/replay.py)
                key = call_key(self, args, kwargs, current_guard_sink())
                template = cache.get(key) if key is not None else None
                if template is not None:
                    return replay(template, args, kwargs, trace, eqs)
            with trace.scope() as recorded:
                out = self.decomposition(*args, **kwargs)
            if out is NotImplemented:  # declined for this call: the op is recorded whole
                out, subsymbols = self.meta(*args, **kwargs), ()
                if not torch.is_grad_enabled():
                    out = without_grad(out, trace)
            else:
                subsymbols = without_unused_numbers(recorded, out)
        outs = _check_output(self, out)
        input_ids = {id(p) for p in flat_proxies((args, kwargs))}
        reused = [p for p in outs if id(p) in input_ids]
        if self.decomposition is not None and len(reused) == len(outs) and \
                all(s.sym.id.startswith("prims.py_") for s in subsymbols):
            # a no-op here (e.g. `to` the dtype it already has): nothing to record (number ops a
            # symbolic value's checks recorded are guards now, not computations)
            return out
        if reused:
            raise TracingError(
                f"Symbol {self.id} returned its input {reused[0].name} as an output. A bound symbol defines each of "
                f"its outputs, so an input cannot be one (it would be defined twice). Make the "
                f"{'decomposition' if self.decomposition else 'meta function'} return a new proxy.")
        bsym = BoundSymbol(self, args, kwargs, out, subsymbols, source=trace.current_source)
        if eqs is not None:  # a later merge of a size it takes rewrites it
            eqs.track(bsym, bsym.flat_args)
        trace.record(bsym)
        if key is not None and subsymbols and replayable(bsym):
            trace.decompositions[key] = bsym
        if self.writes_first and args and type(args[0]) is TensorProxy and type(out) is TensorProxy:
            target = args[0]
            if out.dtype != target.dtype or out.device != target.device or len(out.shape) != len(target.shape) \
                    or any(a is not b and not (type(a) is int and a == b) for a, b in zip(out.shape, target.shape)):
                # (symbolic sizes by identity: `==` would guard them)
                _written(trace, target, out)  # x.unsqueeze_(0): later calls read x's new shape
                return out
            if out.requires_grad and not target.requires_grad:
                _written(trace, target, out)
            if not trace._scopes:
                # eager returns the tensor it wrote into (`x.add_(1) is x`): the program gets that
                # proxy, which names the written tensor from here on (the passes treat the call's
                # output and its target as one tensor); a decomposition (a scope) gets the output,
                # as it may return it (a symbol's outputs are new proxies)
                return target
        return out


def _written(trace, target, result) -> None:
    """``result``, the in-place write into ``target``, requires grad where ``target`` did not,
    or has another shape: later calls read ``result`` for ``target`` and every earlier name of
    it (Trace.written)."""
    w = trace.written
    if w is None:
        w = trace.written = {}
    for k, v in w.items():
        if v is target:
            w[k] = result
    w[id(target)] = result


def without_unused_numbers(bsyms, output) -> tuple:
    """``bsyms`` without the number primitives (``prims.py_*``) whose results nothing after
    them uses nor ``output`` holds: a branch's predicate or a shape check in a meta
    (``b0 = py_eq(x_0, t_0)``) is a guard of the prologue, which computes it itself, not a
    computation of the trace."""
    if not any(b.sym.id.startswith("prims.py_") for b in bsyms):
        return tuple(bsyms)
    live = {id(p) for p in flat_proxies(output)}
    kept = []
    for b in reversed(bsyms):
        if b.sym.id.startswith("prims.py_") and not any(id(o) in live for o in b.flat_outs):
            continue
        kept.append(b)
        live.update(id(p) for p in b.flat_args)
    return tuple(reversed(kept))


def without_grad(out, trace=None):
    """``out`` with every tensor proxy's requires_grad False (what ops produce under
    ``torch.no_grad()``, whatever their meta function computed from the inputs). A tensor
    that would require grad in grad mode (``torch.ones(3, requires_grad=True)``) makes
    ``trace``'s capture depend on grad mode (its recorder's ``grad_mode_matters``)."""
    if isinstance(out, TensorProxy):
        if not out.requires_grad:
            return out
        rec = getattr(trace, "recorder", None)
        if rec is not None:
            rec.grad_mode_matters = True
        return out.replace(requires_grad=False)
    if type(out) in (tuple, list):
        return type(out)(without_grad(x, trace) for x in out)
    return out


def _check_output(sym: Symbol, out) -> list[Proxy]:
    """The output's proxies; raises if it is not a proxy / nested tuple or list of proxies / None."""
    if out is None:
        return []
    leaves: list[Proxy] = []

    def walk(x):
        if isinstance(x, Proxy):
            leaves.append(x)
        elif type(x) in (tuple, list):
            for y in x:
                walk(y)
        else:
            raise TracingError(
                f"Symbol {sym.id} returned {x!r:.60} (a {type(x).__qualname__}) from its "
                f"{'decomposition' if sym.decomposition else 'meta function'}. Outputs must be proxies, tuples/lists "
                f"of proxies, or None, because each output is assigned to a variable in the printed trace.")

    walk(out)
    return leaves


def _same(a, b) -> bool:
    """Structural equality that never calls a proxy's ``__eq__`` (which would record an op)."""
    if a is b:
        return True
    if type(a) is not type(b) or isinstance(a, Proxy):
        return False
    if isinstance(a, (tuple, list)):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if isinstance(a, (dict, MappingProxyType)):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    try:
        return bool(a == b)
    except Exception:  # noqa: BLE001 - incomparable values are simply different
        return False


class _computed_once:
    """``functools.cached_property`` without its lock (Python 3.11 takes an RLock on each first
    access, and a compile makes bound symbols by the thousand): the value goes into the
    instance's ``__dict__``, which later reads find first (``__dict__.pop`` forgets it)."""

    def __init__(self, fn):
        self.fn, self.name, self.__doc__ = fn, fn.__name__, fn.__doc__

    def __get__(self, obj, owner=None):
        if obj is None:
            return self
        value = obj.__dict__[self.name] = self.fn(obj)
        return value


_NORMALIZE = {
    "args": tuple,
    "kwargs": lambda kw: kw if isinstance(kw, MappingProxyType) else MappingProxyType(dict(kw or {})),
    "subsymbols": tuple,
    "tags": frozenset,
    "source": lambda s: None if s is None else tuple(s),
}


def _normalize(field_name: str, value):
    f = _NORMALIZE.get(field_name)
    return value if f is None else f(value)


@dataclass(frozen=True, eq=False, repr=False)
class BoundSymbol:
    """One recorded call of a symbol: ``output = sym(*args, **kwargs)``.

    :param sym: the :class:`Symbol` called.
    :param args: positional arguments (proxies, numbers, nested tuples/lists of them).
    :param kwargs: keyword arguments (static metadata); stored read-only.
    :param output: a proxy, a (nested) tuple/list of proxies, or None.
    :param subsymbols: the bound symbols of ``sym``'s decomposition, computing ``output``
        from values visible before this call.
    :param source: ``(filename, lineno, source_line)`` of the user's line that produced the call.
    :param header: a comment printed above the call.
    :param tags: facts passes attach (e.g. ``"recomputed"``); other per-pass data goes in
        side tables keyed by the bound symbol, which hashes by identity.
    """

    sym: Symbol
    args: tuple
    kwargs: MappingProxyType = field(default_factory=lambda: MappingProxyType({}))
    output: Any = None
    subsymbols: tuple[BoundSymbol, ...] = ()
    source: tuple[str, int, str] | None = None
    header: str | None = None
    tags: frozenset[str] = frozenset()

    def __post_init__(self):
        for k in _NORMALIZE:
            object.__setattr__(self, k, _normalize(k, getattr(self, k)))

    def replace(self, **changes) -> BoundSymbol:
        """A copy with ``changes`` applied, or this very object if every change equals the
        current value (proxies compared by identity)."""
        d = self.__dict__
        changed = {}
        for k, v in changes.items():
            if k not in _FIELDS:
                raise TypeError(f"BoundSymbol has no field {k!r}; its fields are {', '.join(sorted(_FIELDS))}")
            v = _normalize(k, v)
            if not _same(d[k], v):
                changed[k] = v
        if not changed:
            return self
        # (hot: passes rebuild calls by the thousand) a copy of the fields, with what was
        # computed from the unchanged ones kept: flat_args from args and kwargs, flat_outs from output
        new = object.__new__(type(self))
        nd = new.__dict__
        nd.update(d)
        nd.update(changed)
        if "args" in changed or "kwargs" in changed:
            nd.pop("flat_args", None)
        if "output" in changed:
            nd.pop("flat_outs", None)
        return new

    @_computed_once
    def flat_args(self) -> tuple[Proxy, ...]:
        """Proxies in ``args`` and ``kwargs``, recursively, in order (with repeats)."""
        return tuple(flat_proxies((self.args, self.kwargs)))

    @_computed_once
    def flat_outs(self) -> tuple[Proxy, ...]:
        """Proxies in ``output``, recursively, in order."""
        return tuple(flat_proxies(self.output))

    def python(self) -> str:
        """This call as one line of Python, with an annotation comment for its outputs:
        ``t2 = prims.add(t0, t1)  # t2: "cpu f32[2, 3]"``."""
        parts = [print_value(a) for a in self.args]
        parts += [f"{k}={print_value(v)}" for k, v in self.kwargs.items()]
        call = f"{self.sym.printed_name}({', '.join(parts)})"
        if self.output is None:
            return call
        line = f"{print_value(self.output)} = {call}"
        notes = ", ".join(f"{p.name}: {annotation(p)}" for p in self.flat_outs)
        return f"{line}  # {notes}" if notes else line

    def __repr__(self) -> str:
        try:
            return self.python()
        except Exception:  # noqa: BLE001 - repr must not fail on a malformed bound symbol
            return f"<BoundSymbol {self.sym.id} (unprintable)>"


_FIELDS = frozenset(f.name for f in fields(BoundSymbol))  # (what BoundSymbol.replace accepts)
