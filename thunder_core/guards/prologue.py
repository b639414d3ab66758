"""The prologue: generated Python that checks everything a trace depends on and fetches its
inputs from the call's arguments, globals and closure cells.

``build_prologue(cap, args, kwargs)`` returns a :class:`Prologue` whose ``fn(args, kwargs)``
returns the tuple of computation inputs, or ``MISS`` when a check fails (any exception while
fetching also means a miss; the caller catches it). Checks are plain ``if`` statements, never
``assert``, so ``python -O`` changes nothing. ``source`` is the printed prologue
(``tc.last_prologue_traces``).

Paths come from provenance: ``args[0]``, ``kwargs['x']``, a globals dict or closure cell bound
as a constant of the prologue, attribute and item steps. Attribute steps that ``nn.Module``
resolves through ``_parameters``/``_buffers``/``_modules`` are emitted as dict lookups (the
same object, without ``Module.__getattr__``'s cost).
"""

from __future__ import annotations

import math
import sys
from dataclasses import dataclass, field

import torch

from . import fresh
from .predicates import describe, inputs_of, render
from .record import (BOUND, DRAWN, EQUALS, IDENTITY, LENGTH, NO_HOOKS, PREDICATE, SAME_AS, TENSOR, TRUTH, TYPE,
                     VALUES, Capture)
from ..frontend.native import MODULE_TABLES
from ..frontend.provenance import ARG, ATTR, BUILTIN, CALL, CELL, FRESH, GLOBAL, ITEM, ITER, KWARG, MODULE, Provenance
from ..ir.codegen import compile_function
from ..ir.proxies import NumberProxy
from ..ir.trace import AUTOCAST_DEVICES

MISS = object()


class NotRefetchable(Exception):
    """A value's provenance has no path the prologue can follow (e.g. an opaque call's result)."""


@dataclass
class Prologue:
    """A generated prologue: ``fn(args, kwargs)`` returns the computation's inputs or MISS.
    ``fn`` is compiled when first used: a compile's first call, and its cache hits, run through
    the hit method (:func:`hit_method`), which holds the same lines, so a cached entry's
    prologue may never run (compiling it cost ~6 ms of a 12-layer GPT's ~85 ms first call)."""

    source: str
    guards_unchecked: list  # guards whose path cannot be re-fetched: the entry is not cached (api.py)
    body: tuple = ()        # the generated lines before the final return (for hit_method)
    outputs: tuple = ()     # the locals holding the computation's inputs
    consts: dict = None     # the generated code's constants
    typed: frozenset = frozenset()  # positions of args whose exact type the checks already test
    #: what its compiled code is named after; None: never compiled (a static prologue, whose
    #: lines go into the hit method)
    label: str | None = None
    _fn: object = field(default=None, repr=False)  # the compiled ``fn``, once used

    @property
    def fn(self):
        f = self._fn
        if f is None and self.label is not None:
            f = self._fn = compile_function(self.source, "prologue", self.label, self.consts)
        return f


#: global state a trace depends on, read by these functions (bound as constants of the code)
_STATE = {"grad_enabled": torch.is_grad_enabled, "default_dtype": torch.get_default_dtype,
          "inference_mode": torch.is_inference_mode_enabled}
#: state guards a TensorGuards check implies (capture.py records them on every trace):
#: inference mode and autocast change the thread's dispatch keys, which it compares
_IMPLIED_BY_TENSOR_CHECK = frozenset(Provenance("state", None, k) for k in (
    "inference_mode", *(f"autocast_enabled({d})" for d in AUTOCAST_DEVICES)))
#: types whose equal values are the same object: `v is K` checks type and value at once
_SINGLETONS = (bool, type(None), torch.dtype)


class _Check(str):
    """A generated line that misses when ``cond`` holds: the line itself returns MISS (the
    prologue's way out); the hit method (:func:`hit_method`) renders it with its own."""

    def __new__(cls, cond, why):
        self = super().__new__(cls, _check_line(cond, "return MISS", why))
        self.cond, self.why = cond, why
        return self

    def render(self, miss: str) -> str:
        return _check_line(self.cond, miss, self.why)


def _check_line(cond, miss, why):
    return f"if {cond}: {miss}  # {why}"


class _Builder:
    def __init__(self, args, kwargs):
        self.args, self.kwargs = args, kwargs
        self.lines: list[str] = []
        self.consts: dict[str, object] = {"MISS": MISS, "Tensor": torch.Tensor, "torch": torch}
        self.const_names: dict[int, str] = {}
        self.exprs: dict = {}      # provenance -> local variable holding it
        self.values: dict = {}     # provenance -> the value now (to resolve module attributes)
        self.checked: set = set()  # conditions emitted
        self.typed: set = set()    # vars whose exact type a check tests (TensorGuards)
        self.computed: dict = {}   # source of a number's subexpression -> the local holding it
        self.n = 0

    def const(self, value, prefix="K") -> str:
        name = self.const_names.get(id(value))
        if name is None:
            name = f"{prefix}{len(self.const_names)}"
            self.const_names[id(value)] = name
            self.consts[name] = value
        return name

    def literal(self, v) -> str:
        """Source for the scalar ``v``: its repr where that reads back as ``v`` (None, ints,
        strings, finite floats), else a constant of the generated function (inf, nan, a dtype)."""
        t = type(v)
        if v is None or t in (int, bool, str, bytes) or t in (float, complex) and v == v and abs(v) != math.inf:
            return repr(v)
        return self.const(v, "V")

    def fetch(self, prov) -> str:
        """A local variable holding the value at ``prov`` (emitting the fetch once)."""
        var = self.exprs.get(prov)
        if var is not None:
            return var
        k = prov.kind
        if k == ARG:
            expr, value = f"args[{prov.key}]", self.args[prov.key]
        elif k == KWARG:
            expr, value = f"kwargs[{prov.key!r}]", self.kwargs[prov.key]
        elif k in (GLOBAL, BUILTIN):
            expr, value = f"{self.const(prov.ref, 'G')}[{prov.key!r}]", prov.ref[prov.key]
        elif k == CELL:
            expr, value = f"{self.const(prov.ref, 'C')}.cell_contents", prov.ref.cell_contents
        elif k == MODULE:
            expr, value = f"{self.const(sys.modules, 'MODULES')}[{prov.key!r}]", sys.modules[prov.key]
        elif k == ATTR:
            parent = self.fetch(prov.parent)
            pv = self.values[prov.parent]
            expr, value = self._attr(parent, pv, prov.key)
        elif k == ITEM:
            parent = self.fetch(prov.parent)
            key = prov.key
            kexpr = repr(key) if isinstance(key, (int, str, bool, type(None))) else self.const(key)
            expr, value = f"{parent}[{kexpr}]", self.values[prov.parent][key]
        elif k == CALL and prov.ref is len:
            parent = self.fetch(prov.parent)
            expr, value = f"len({parent})", len(self.values[prov.parent])
        elif k == CALL and type(prov.key) is tuple:  # a query of a builtin container: d.get("k")
            parent = self.fetch(prov.parent)
            name, args = prov.key
            expr = f"{self.const(prov.ref, 'Q')}({parent}{''.join(', ' + self.literal(a) for a in args)})"
            value = prov.ref(self.values[prov.parent], *args)
        elif k == ITER:
            expr, value = f"{self.listed(prov.parent)}[{prov.key}]", list(self.values[prov.parent])[prov.key]
        elif k == FRESH:  # a fresh value: drawn in place by the prologue (_emit_draw); the epilogue's comes from it
            expr, value = self.drawn(prov)
        elif k == "state" and prov.ref is not None:  # a fact of the process a plugin read (lookaside_tools.read_state)
            expr, value = f"{self.const(prov.ref, 'S')}()", prov.ref()
        elif k == "state":
            fn = _STATE[prov.key]
            expr, value = f"{self.const(fn, 'S')}()", fn()
        else:
            raise NotRefetchable(repr(prov))
        var = f"v{self.n}"
        self.n += 1
        self.lines.append(f"{var} = {expr}  # {prov!r}")
        self.exprs[prov] = var
        self.values[prov] = value
        return var

    def listed(self, prov) -> str:
        """A local holding ``list(<value at prov>)``, made once (items of an iterated
        container are fetched from it by index)."""
        key = ("list", prov)
        var = self.exprs.get(key)
        if var is None:
            parent = self.fetch(prov)
            var = f"l{self.n}"
            self.n += 1
            self.lines.append(f"{var} = list({parent})")
            self.exprs[key] = var
        return var

    def drawn(self, prov):
        """(expression, value while tracing) of the fresh value at ``prov`` where it was not
        drawn by this function itself (the epilogue gets it from the prologue)."""
        raise NotRefetchable(repr(prov))

    def value(self, x, outside) -> str:
        """An expression computing ``x`` again on this call: a symbolic number from the inputs it
        is computed from, an outside object (``outside``: id -> (object, provenance)) fetched
        along its path, a container item by item, anything else a constant."""
        t = type(x)
        if t is NumberProxy:
            return self.number(x)
        if t in (int, float, bool, str, bytes, complex, type(None)):
            return self.literal(x)
        e = outside.get(id(x))
        if e is not None and e[0] is x:
            try:
                return self.fetch(e[1])
            except NotRefetchable:
                pass
        if t is tuple:
            return "(" + "".join(self.value(y, outside) + ", " for y in x) + ")"
        if t is list:
            return "[" + ", ".join(self.value(y, outside) for y in x) + "]"
        if t is dict:
            return "{" + ", ".join(f"{self.value(k, outside)}: {self.value(v, outside)}" for k, v in x.items()) + "}"
        return self.const(x, "K")

    @staticmethod
    def _attr(parent, pv, name):
        if isinstance(pv, torch.nn.Module) and name not in pv.__dict__ and not hasattr(type(pv), name):
            for table in MODULE_TABLES:
                d = pv.__dict__.get(table)
                if d is not None and name in d:
                    return f"{parent}.{table}[{name!r}]", d[name]
        return f"{parent}.{name}", getattr(pv, name)

    def number(self, x) -> str:
        """Source computing the symbolic number ``x`` again from the inputs it is computed from.
        Each subexpression is computed once, into a local, where the first check needs it: the
        guards of a model's reshapes repeat the same products of sizes many levels deep, and
        written out whole they took ~16 µs of a small HF model's ~50 µs of checks."""
        return render(x, lambda q: self.fetch(self.number_inputs[id(q)]), lambda fn: self.const(fn, "F"),
                      self.literal, self._computed_once)

    def _computed_once(self, code: str) -> str:
        var = self.computed.get(code)
        if var is None:
            var = self.computed[code] = f"n{len(self.computed)}"
            self.lines.append(f"{var} = {code}")
        return var

    def check(self, cond: str, why: str):
        if cond in self.checked:  # the same predicate reached twice (two proxies, one expression)
            return
        self.checked.add(cond)
        self.lines.append(_Check(cond, why))


def build_prologue(cap: Capture, args, kwargs, *, check=True, static=False, used=None) -> Prologue | None:
    """Generate the prologue for ``cap``, resolving paths on this call's ``args``/``kwargs``.
    ``check=False`` fetches inputs without checking them (cache="same input"); fresh values
    are drawn and checked all the same. When the epilogue uses fresh objects
    (``cap.epilogue_draws``), the prologue returns them, in a tuple, after the inputs.

    ``static=True``: a stricter prologue for the cache hit's fast path (:func:`hit_method`),
    for calls whose tensors have exactly the sizes and strides of *this* call (the one traced):
    one TensorGuards call checks them all, the symbolic sizes become constants, and the
    predicates on sizes alone are left out (they held on these sizes when traced). A call with
    other sizes misses it and takes the general prologue. None where it would be the general
    one (no tensor has symbolic sizes) or TensorGuards is unavailable. Its ``fn`` is None: it
    is only material for :func:`hit_method`."""
    b = _Builder(args, kwargs)
    unchecked, tensors, drawn = [], [], []
    b.number_inputs = {id(p): prov for prov, p in cap.inputs}
    fresh_inputs = {id(p) for prov, p in cap.inputs if prov.root.kind == FRESH}
    sizes_now = _seed_sizes(b, cap) if static else None
    if static and not sizes_now:
        return None
    implied = []  # state guards a TensorGuards check implies (below)
    truths = []  # TRUTH guards: computed from tensors once their checks passed (below)
    if cap.draws or check:
        for g in cap.guards:
            if g.prov in _IMPLIED_BY_TENSOR_CHECK and _TensorGuards is not None:
                implied.append(g)
                continue
            if _after_draws(g, fresh_inputs):
                drawn.append(g)
                continue
            if not check:
                continue
            if static and g.kind == PREDICATE and all(
                    b.number_inputs.get(id(q)) in sizes_now for q in inputs_of(g.value[0])):
                continue
            if g.kind == TRUTH:
                truths.append(g)
                continue
            if g.kind == PREDICATE:
                try:
                    _emit_predicate(b, *g.value)
                except NotRefetchable:
                    unchecked.append(g)
                continue
            try:
                var = b.fetch(g.prov)
            except NotRefetchable:
                unchecked.append(g)
                continue
            if g.kind == TENSOR and _TensorGuards is not None:
                tensors.append((var, g))  # checked together below, in C++
            else:
                _emit_check(b, var, g)
        if tensors and not _batch_tensor_check(b, tensors, static):
            if static:
                return None
            for var, g in tensors:
                _emit_check(b, var, g)
            tensors = ()
        for g in implied if check and not tensors else ():
            # TensorGuards compares each tensor's dispatch keys as modified by the thread's
            # dispatch state, which inference mode (excluding the autograd keys) and autocast
            # (including its keys) change: a call in the other mode fails that check, so the
            # read is needed only without it
            _emit_check(b, b.fetch(g.prov), g)
        for g in truths:
            try:
                _emit_truth(b, g.value)
            except NotRefetchable:
                unchecked.append(g)
    if cap.draws:
        # Fresh values, after every other check (a prologue that misses before drawing has
        # drawn nothing): drawn in program order, each followed by the checks on what the
        # program decided from it, so a miss draws no further (cache="same input" too: the
        # values are new on every call). The draw log keeps what a missing prologue drew.
        b.lines.append(f"draws = {b.const(cap.draw_log, 'LOG')}.draws")
        for g in drawn:
            try:
                if g.kind == DRAWN:
                    _emit_draw(b, g.value, cap.outside)
                elif g.kind == PREDICATE:
                    _emit_predicate(b, *g.value)
                else:
                    _emit_check(b, b.fetch(g.prov), g)
            except NotRefetchable:
                unchecked.append(g)
        b.lines.append("draws.clear()  # this call's draws are taken")
    # (``used``: the positions of the inputs the computation takes; the others are not passed)
    outs = [b.fetch(prov) for i, (prov, _) in enumerate(cap.inputs) if used is None or i in used]
    lines = tuple(b.lines)
    if cap.epilogue_draws:  # fresh objects the epilogue uses (cache.EntryWithDraws passes them on)
        outs.append("(" + "".join(b.exprs[prov] + ", " for prov in cap.epilogue_draws) + ")")
    b.lines.append(f"return ({''.join(o + ', ' for o in outs)})")
    body = "\n".join("    " + line for line in b.lines)
    source = f"def prologue(args, kwargs):\n{body}\n"
    typed = frozenset(i for i, a in enumerate(args) if b.exprs.get(_arg_prov(i)) in b.typed)
    # (a static prologue's lines go into the hit method; compiled on its own it would never
    # run: ~5 ms of a 12-layer GPT's first call)
    return Prologue(source, unchecked, lines, tuple(outs), b.consts, typed,
                    None if static else f"prologue {cap.fn_name}")


def _arg_prov(i):
    return Provenance(ARG, None, i)


def hit_method(prologue: Prologue, args, kwargs, computation, epilogue, name: str, *, bound, hits):
    """The generated method for a cache hit on this entry, ``hit(jitted, *args, **kwargs)``,
    the same as the jitted function's ``__call__`` (api.JittedFunction._ran installs it): the
    dispatch key's test (as many positional arguments of the same types, the same keyword
    names), the prologue's checks, and the call of the computation (and epilogue), in one
    Python frame between the caller and the computation. A hit is counted in ``hits`` (a
    one-item list) before the computation runs, so one whose computation raises is still a
    hit; the computation's exceptions propagate. A failed check (or any exception while
    checking: a path that no longer exists) returns ``jitted._call(args, kwargs)``, the slow
    path. ``bound``: the object of a jitted bound method, the first of the prologue's ``args``
    but not of the caller's."""
    consts = {**prologue.consts, "COMPUTATION": computation, "EPILOGUE": epilogue, "BOUND": bound,
              "HITS": hits}
    first = bound is not None  # the prologue's args[0] is the bound object
    key = [f"len(args) != {len(args)}", f"tuple(kwargs) != {tuple(kwargs)!r}" if kwargs else "kwargs"]
    for i, a in enumerate(args):
        if i not in prologue.typed and not (first and i == 0):
            t = f"AT{i}"
            consts[t] = type(a)
            key.append(f"type(args[{i}]) is not {t}")
    call = f"COMPUTATION({', '.join(prologue.outputs)})"
    if epilogue is not None:
        call = f"EPILOGUE(args, kwargs, {call})"
    # A failed check leaves by `break`, so _call runs outside the checks' try: what it raises
    # (the program's own exceptions, while compiling) must neither be caught there (and taken
    # for a failed check) nor carry a check's exception as its context.
    checks = "\n".join("            " + (ln.render("break") if type(ln) is _Check else ln)
                       for ln in (_Check(" or ".join(key), "the dispatch key"), *prologue.body))
    params, args_ = ("*given", "    args = (BOUND, *given)\n") if first else ("*args", "")
    source = (f"def hit(self, {params}, **kwargs):\n{args_}    while True:\n        try:\n{checks}\n"
              f"        except Exception:  # a path that no longer exists\n            break\n"
              f"        HITS[0] += 1\n        return {call}\n    return self._call({params[1:]}, kwargs)\n")
    return compile_function(source, "hit", f"cache hit {name}", consts)


try:  # torch's own C++ tensor checks (used by torch.compile): one call checks many tensors
    from torch._C._dynamo.guards import TensorGuards as _TensorGuards
except Exception:  # noqa: BLE001 - an internal API: fall back to Python checks without it
    _TensorGuards = None


def _seed_sizes(b: _Builder, cap: Capture) -> set:
    """For a static prologue: the symbolic sizes of guarded tensors, as constants (this call's
    sizes) instead of fetches; returns their paths (empty if there are none, or
    TensorGuards, which checks them, is unavailable)."""
    seeded = set()
    if _TensorGuards is None:
        return seeded
    for g in cap.guards:
        if g.kind != TENSOR or None not in g.value[0]:
            continue
        try:
            b.fetch(g.prov)  # (its check fetches it anyway: fetched once)
        except NotRefetchable:  # the general prologue says so
            return set()
        shape = b.values[g.prov].shape
        for d, n in enumerate(g.value[0]):
            if n is None:
                prov = Provenance(ITEM, Provenance(ATTR, g.prov, "shape"), d)
                b.exprs[prov], b.values[prov] = repr(shape[d]), shape[d]
                seeded.add(prov)
    return seeded


def _batch_tensor_check(b: _Builder, tensors, static=False) -> bool:
    """Check all tensors with one TensorGuards call (type, dtype, device, requires_grad,
    dispatch keys, number of dims, sizes and strides). A tensor with symbolic sizes (``None``
    in its guarded shape) has those sizes and all its strides unchecked there (its trace is
    for any of them); that each symbolic size is 2 or more is checked after, in Python, on the
    sizes the prologue fetches anyway for the computation. ``static``: every size and stride
    is checked exactly (:func:`build_prologue`). False if it cannot be built or rejects these
    very tensors (then the caller emits Python checks)."""
    values = [b.values[b_prov] for b_prov in (g.prov for _, g in tensors)]
    exact = [static or None not in g.value[0] for _, g in tensors]
    sizes = [list(v.size()) if e else list(g.value[0]) for v, (_, g), e in zip(values, tensors, exact)]
    strides = [list(v.stride()) if e else [None] * v.dim() for v, e in zip(values, exact)]
    try:
        tg = _TensorGuards(*values, dynamic_dims_sizes=sizes, dynamic_dims_strides=strides)
        if not tg.check(*values):
            return False
    except Exception:  # noqa: BLE001
        return False
    names = ", ".join(var for var, _ in tensors)
    b.typed.update(var for var, _ in tensors)
    what = "; ".join(f"{var}: {g.describe()}" for var, g in tensors[:4]) + ("; ..." if len(tensors) > 4 else "")
    b.check(f"not {b.const(tg, 'TG')}.check({names})", f"tensors (and strides): {what}"
            + (" (this call's sizes and strides exactly)" if static else ""))
    for _, g in () if static else tensors:
        dims = [b.fetch(Provenance(ITEM, Provenance(ATTR, g.prov, "shape"), d))
                for d, n in enumerate(g.value[0]) if n is None]
        if dims:  # the same paths as the computation's size inputs (capture.py): fetched once
            b.check(" or ".join(f"{v} < 2" for v in dims), f"symbolic sizes of {g.prov!r} are 2 or more")
    return True


def _after_draws(g, fresh_inputs) -> bool:
    """True for a guard the prologue checks after drawing fresh values: a draw itself, or a
    check of what the program read from or decided on a fresh value."""
    if g.kind == DRAWN:
        return True
    if g.kind == PREDICATE:
        return any(id(q) in fresh_inputs for q in inputs_of(g.value[0]))
    if g.prov is not None and g.prov.root.kind == FRESH:
        return True
    return g.kind == SAME_AS and g.value.root.kind == FRESH


def _emit_draw(b: _Builder, d, outside):
    """The call's next fresh value, ``d.fn(*d.args, **d.kwargs)`` (guards/fresh.py), and the
    check that it gave a value again, or raised the same exception type."""
    args = "".join(b.value(a, outside) + ", " for a in d.args)
    kwargs = b.value(d.kwargs, outside) if d.kwargs else "None"
    var = f"v{b.n}"
    b.n += 1
    where = f"{d.prov!r} at {d.site[0]}:{d.site[1]}"
    b.lines.append(f"{var} = {b.const(fresh.draw, 'DRAW')}(draws, {d.prov.key}, {b.const(d.fn, 'F')}, ({args}), "
                   f"{kwargs})  # {where}")
    raised = b.const(fresh.Raised, "RAISED")
    if d.raised is None:
        b.check(f"type({var}) is {raised}", f"{d.name}(...) gives a value")
    else:
        b.check(f"type({var}) is not {raised} or type({var}.exc) is not {b.const(d.raised, 'T')}",
                f"{d.name}(...) raises {d.raised.__name__}")
    b.exprs[d.prov] = var
    b.values[d.prov] = d.value


def _emit_predicate(b: _Builder, p, kind: str, value):
    """A guard on a symbolic number: the predicate's outcome, or the number's value, computed
    again from this call's inputs (see guards/predicates.py)."""
    expr = b.number(p)
    why = describe(p, kind, value)
    if kind == "truth":
        b.check(f"not {expr}" if value else expr, why)
    else:
        b.check(f"{expr} != {b.literal(value)}", why)


def _emit_truth(b: _Builder, t):
    """A tensor predicate of inputs the program branched on (guards/truth.py): computed again
    from this call's tensors, after their checks (the sub-trace was traced for their metadata)."""
    args = ", ".join(b.fetch(prov) for prov in t.provs)
    b.check(f"{'not ' if t.value else ''}{b.const(t.fn, 'TRUTH')}({args})", t.describe())


def _emit_check(b: _Builder, var: str, g):
    k, v = g.kind, g.value
    if k in (EQUALS, TYPE, LENGTH, IDENTITY):
        # Checked against the value the path has *now*, before the call: the function may
        # itself change what it read (a counter it increments), and the epilogue replays
        # that change after the computation.
        now = b.values[g.prov]
        v = type(now) if k == TYPE else len(now) if k == LENGTH else now
        g = type(g)(g.prov, k, v)
    if k == TENSOR:
        shape, dtype, device, rg = v
        d, dev = b.const(dtype, "D"), b.const(device, "DEV")
        if None in shape:  # symbolic dims (None): any size of 2 or more
            sizes = f"{var}.dim() != {len(shape)} or " + " or ".join(
                f"{var}.shape[{i}] < 2" if n is None else f"{var}.shape[{i}] != {n}" for i, n in enumerate(shape))
        else:
            sizes = f"{var}.shape != {b.const(tuple(shape), 'S')}"
        b.check(f"not isinstance({var}, Tensor) or {sizes} or {var}.dtype is not {d} or "
                f"{var}.device != {dev} or {var}.requires_grad is not {rg}", g.describe())
    elif k == EQUALS:
        t = b.const(type(v), "T")
        if type(v) in _SINGLETONS:
            b.check(f"{var} is not {b.literal(v)}", g.describe())
        elif isinstance(v, float) and v != v:  # NaN equals nothing: check it is NaN again
            b.check(f"type({var}) is not {t} or {var} == {var}", g.describe())
        else:
            b.check(f"type({var}) is not {t} or {var} != {b.literal(v)}", g.describe())
    elif k == IDENTITY:
        b.check(f"{var} is not {b.const(v, 'O')}", g.describe())
    elif k == TYPE:
        b.check(f"type({var}) is not {b.const(v, 'T')}", g.describe())
    elif k == LENGTH:
        b.check(f"len({var}) != {v}", g.describe())
    elif k == SAME_AS:
        other = b.fetch(v)
        b.check(f"{var} is not {other}", f"same tensor as {v!r}")
    elif k == VALUES:  # the contents an op's result shapes were traced for (tensor_split's indices)
        b.check(f"{var}.tolist() != {b.const(v, 'V')}", g.describe())
    elif k == BOUND:
        pass  # fetching it is the check: a deleted global or emptied cell raises, which is a miss
    elif k == NO_HOOKS:
        if not b.exprs.get(("global hooks",)):
            from torch.nn.modules import module as mod

            m = b.const(mod, "M")
            b.exprs[("global hooks",)] = m
            b.check(f"{m}._global_forward_hooks or {m}._global_forward_pre_hooks or {m}._global_backward_hooks or "
                    f"{m}._global_backward_pre_hooks", "global module hooks added")
        b.check(f"{var}._forward_hooks or {var}._forward_pre_hooks or {var}._backward_hooks or "
                f"{var}._backward_pre_hooks", "module hooks added")
    else:
        raise ValueError(f"unknown guard kind {k!r}")
