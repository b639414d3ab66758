"""How torch-level ops are defined: one decorator, three tables.

``@torch_op(torch.sum, torch.Tensor.sum, method="sum", inputs=("input",))`` on a
*signature function* defines the symbol ``ltorch.sum`` (id ``"torch.sum"``):

* the function's **signature mirrors torch's** (parameter names, order, defaults,
  keyword-only markers, ``*args``). It binds a user's call exactly as torch would, and turns
  it into a symbol call in our convention: parameters named in ``inputs`` (tensors, numbers
  and sequences of tensors: what flows through the computation) are positional, every other
  parameter is static metadata passed by keyword (only when different from its default);
* the function's **body is the decomposition** in terms of other symbols (prims or other
  torch-level symbols), called with the bound arguments by name; a body that is only a
  docstring and/or ``...`` means "no decomposition";
* ``meta`` defaults to running the torch function itself under ``FakeTensorMode`` on fake
  tensors with the proxies' metadata, which is exact for shapes, dtypes (type promotion),
  devices and ``requires_grad`` of any op; give ``meta=`` to override;
* ``returns=`` names the ``torch.return_types`` named tuple torch gives back (``torch.cummax``
  returns ``torch.return_types.cummax``): the entry wraps the symbol's tuple in it;
* what the op *is* is declared in ``tags``: its **traits** (``"elementwise"``,
  ``"reduction"``, ``"view"``, ``"shape"``, ``"transcendental"``, ``"random"``, ``"inplace"``,
  ``"creation"``, ``"matmul"``, ``"normalization"``; defined in ``thunder_core.ir.traits``),
  which passes and executors query with ``has_trait`` (never the file an op is defined in),
  plus the non-trait tags of ``thunder_core.ir.traits.NON_TRAIT_TAGS``;
* aliasing is declared the same way: ``"view"`` (torch returns a new view of the first
  tensor input: ``permute``, ``reshape``), ``"may-return-input"`` (torch returns the input
  object itself when there is nothing to do: ``contiguous``, ``to``, ``positive``), or neither
  (torch returns a fresh tensor). A decomposition is held to its op's trait (see
  :func:`own_outputs`): an input it returns unchanged becomes a new view (``"view"``) or a
  copy (fresh ops), and so does a view of an input that a fresh op's decomposition returns.

Tables filled here (each keyed by what its consumer looks up):

``TORCH_CALLS``: torch callable (``torch.sum``, ``torch.Tensor.sum``, ``F.gelu``, ...) ->
    the *torch-convention entry* (a function taking torch's arguments and calling the
    symbol); the jit turns these into interpreter lookasides.
``TENSOR_METHODS`` (in ``thunder_core.ir.proxies``): method name -> the same entry, so
    ``proxy.sum(1)`` and ``proxy + 1`` record symbols.
``TORCH_IMPLS``: symbol id -> a callable running the original torch function from a symbol
    call (our convention back to torch's); the torch executor uses it.

Symbols are also attributes of ``thunder_core.ops.ltorch`` (by python name), which is how a
printed trace refers to them (``ltorch.sum(t0, dim=1)``).
"""

from __future__ import annotations

import dis
import inspect
import types as _types
from typing import Callable

import torch

from ..ir import TENSOR_METHODS, Symbol, TensorProxy, TracingError, tensor_proxy
from ..ir.printing import PRINTERS, print_value
from ..ir.proxies import NumberProxy, flat_proxies
from ..ir.trace import AUTOCAST_DEVICES, any_autocast, current_trace
from ..ir.traits import NON_TRAIT_TAGS, TRAITS
from .symbolic_meta import has_symbolic, symbolic_fake_run

__all__ = ["torch_op", "prim", "T", "F", "TORCH_CALLS", "TORCH_IMPLS", "SYMBOLS", "PRIMS", "OpDef", "fake_meta",
           "torch_call_of", "whole_op", "signature_function", "S", "INPLACE_VARIANTS"]

TORCH_CALLS: dict[object, Callable] = {}
TORCH_IMPLS: dict[str, Callable] = {}
SYMBOLS: dict[str, Symbol] = {}       # id -> symbol (every torch-level symbol)
PRIMS: dict[str, Symbol] = {}         # id -> primitive
OPDEFS: dict[str, "OpDef"] = {}       # id -> its definition (signature, inputs, torch function)
#: id of an out-of-place op -> id of its in-place variant taking the same arguments and writing
#: the result into the first (``ltorch.add`` -> ``ltorch.add_``): execution/reuse.py
INPLACE_VARIANTS: dict[str, str] = {}



#: Python types torch's argument parser takes for a ``dtype`` (``torch.zeros(n, dtype=int)``, as
#: HF's masking utilities write): the dtypes it makes of them
PYTHON_DTYPES = {int: torch.int64, float: torch.float64, bool: torch.bool, complex: torch.complex128}

class OpDef:
    """Everything known about one torch-level op besides its Symbol."""

    __slots__ = ("symbol", "torch_fn", "signature", "inputs", "varargs", "positional", "keyword_only",
                 "input_defaults", "required_inputs", "strip_defaults", "module")

    def __init__(self, symbol, torch_fn, signature, inputs, module=None):
        self.symbol, self.torch_fn, self.signature, self.inputs = symbol, torch_fn, signature, inputs
        self.module = module  # the module that defined it: thunder_core.ops.*, or a plugin's
        params = list(signature.parameters.values())
        self.varargs = next((p.name for p in params if p.kind is p.VAR_POSITIONAL), None)
        self.positional = [p.name for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
        self.keyword_only = [p.name for p in params if p.kind is p.KEYWORD_ONLY]
        self.input_defaults = [signature.parameters[i].default for i in inputs]
        empty = inspect.Parameter.empty
        self.required_inputs = max((k + 1 for k, d in enumerate(self.input_defaults) if d is empty), default=0)
        self.strip_defaults = True  # False for symbols whose own meta expects every input

    def to_symbol_call(self, args, kwargs):
        """torch's arguments -> (positional inputs, static keywords) of the symbol call."""
        if self.varargs is not None and self.varargs in kwargs:
            # torch also takes `*dims`/`*size` by keyword: `x.flip(dims=(0,))`, `x.permute(dims=...)`
            kwargs = dict(kwargs)
            va = kwargs.pop(self.varargs)
            args = (*args, *(va if isinstance(va, (tuple, list, torch.Size)) else (va,)))
        if kwargs and not NUMPY_NAMES.keys().isdisjoint(kwargs):
            kwargs = numpy_names(kwargs, self.signature.parameters)
        try:
            bound = self.signature.bind(*args, **kwargs)
        except TypeError as e:  # (inspect's message names no function)
            raise TypeError(f"{self.symbol.id.replace('ltorch.', 'torch.')}(): {e}") from None
        if self.varargs is not None:
            va = bound.arguments.get(self.varargs, ())
            # `x.view(2, 3)` and `x.view((2, 3))` mean the same: normalise to one tuple
            if len(va) == 1 and isinstance(va[0], (tuple, list, torch.Size)):
                va = tuple(va[0])
            if self.varargs in _SIZE_VARARGS and any(type(v) is TensorProxy for v in va):  # torch.zeros(n), n a 0-d tensor
                va = tuple(_size_of(v) if type(v) is TensorProxy else v for v in va)
            bound.arguments[self.varargs] = tuple(va)
        pos, kw = [], {}
        for name, p in self.signature.parameters.items():
            if name in self.inputs:
                pos.append(bound.arguments.get(name, p.default))
            elif name in bound.arguments:
                v = bound.arguments[name]
                if name == "dtype" and type(v) is type:  # torch takes int, float, bool, complex for dtypes
                    v = PYTHON_DTYPES.get(v, v)
                if p.kind is p.VAR_KEYWORD:
                    kw.update(v)
                elif p.default is inspect.Parameter.empty or not _same(v, p.default):
                    kw[name] = v
        # Inputs left at their defaults at the end are dropped: `ltorch.add(t0, t1)`, not
        # `ltorch.add(t0, t1, 1)` (shorter traces, and implementations skip the argument).
        while self.strip_defaults and len(pos) > self.required_inputs and \
                _same(pos[-1], self.input_defaults[len(pos) - 1]):
            pos.pop()
        return pos, kw

    def to_torch_call(self, pos, kw):
        """A symbol call's (positional inputs, static keywords) -> torch's (args, kwargs)."""
        if len(pos) > len(self.inputs):  # (zip would drop them: ltorch.sum(x, 1) summing everything)
            raise TypeError(f"{self.symbol.id} takes its inputs ({', '.join(self.inputs) or 'none'}) "
                            f"positionally and its other arguments by keyword, but got {len(pos)} positional "
                            f"arguments. Pass the others by name ({self.symbol.id}(x, dim=1)), or call the torch "
                            f"function, which takes torch's own signature.")
        values = dict(zip(self.inputs, pos))
        values.update(kw)
        args, kwargs = [], {}
        for name in self.positional:
            if name in values:
                args.append(values[name])
            elif self.signature.parameters[name].default is inspect.Parameter.empty:
                raise TypeError(f"{self.symbol.id}: missing argument {name!r}")
            else:
                args.append(self.signature.parameters[name].default)
        if self.varargs is not None:
            args.extend(values.get(self.varargs, ()))
        for name in self.keyword_only:
            if name in values:
                kwargs[name] = values[name]
        for name, v in values.items():
            if name not in self.signature.parameters:
                kwargs[name] = v
        return args, kwargs


def _direct_impl(opdef, fn):
    """A generated function calling ``fn`` straight from a symbol call, without re-binding
    arguments on every call (this runs once per op per call of a compiled function): inputs
    positionally while they lead torch's signature (trailing ones left at their defaults are
    absent from symbol calls), later inputs by keyword when given, static keywords as given,
    a static ``*args`` parameter spread. None when the signature needs the generic path."""
    P = inspect.Parameter
    params = list(opdef.signature.parameters.values())
    if any(p.kind is P.VAR_POSITIONAL and p.name in opdef.inputs for p in params):
        return None
    has_varargs = any(p.kind is P.VAR_POSITIONAL for p in params)
    head, lines, defs, positional_prefix = [], [], [], True
    for p in params:
        if p.kind in (P.VAR_POSITIONAL, P.VAR_KEYWORD):
            continue
        if p.name not in opdef.inputs:
            if p.kind is P.POSITIONAL_ONLY or has_varargs:
                return None  # a static parameter that cannot be passed by keyword / before *args
            positional_prefix = False
            continue
        required = p.default is P.empty
        defs.append(p.name if required else f"{p.name}=_M")
        if positional_prefix and p.kind in (P.POSITIONAL_ONLY, P.POSITIONAL_OR_KEYWORD):
            head.append((p.name, required))
        elif p.kind is P.POSITIONAL_ONLY:
            return None
        else:
            positional_prefix = False
            lines.append(f"    kw[{p.name!r}] = {p.name}" if required
                         else f"    if {p.name} is not _M: kw[{p.name!r}] = {p.name}")
    # A positional static parameter left at its default (dropped from the symbol call) is
    # passed again when a later one is given: torch.sum(x, keepdim=True) has no overload, but
    # torch.sum(x, dim=None, keepdim=True) does (OpDef.to_torch_call fills them in the same way).
    statics = [p for p in params if p.name not in opdef.inputs and p.kind is P.POSITIONAL_OR_KEYWORD]
    consts = {"fn": fn, "_M": _MISSING}
    for i, p in enumerate(statics[:-1]):
        if p.default is not P.empty:
            later = tuple(q.name for q in statics[i + 1:])
            consts[f"_D_{p.name}"] = p.default
            lines.append(f"    if kw and {p.name!r} not in kw and any(k in kw for k in {later!r}): "
                         f"kw[{p.name!r}] = _D_{p.name}")
    varargs = next((p.name for p in params if p.kind is P.VAR_POSITIONAL), None)
    tail = ([f"*kw.pop({varargs!r}, ())"] if varargs else []) + ["**kw"]
    calls = []  # the longest given prefix of the positional inputs
    for k in range(len(head), -1, -1):
        names = [n for n, _ in head[:k]]
        call = f"fn({', '.join(names + tail)})"
        if k and not head[k - 1][1]:
            calls.append(f"    if {head[k - 1][0]} is not _M: return {call}")
        else:
            calls.append(f"    return {call}")
            break
    src = f"def impl({', '.join(defs + ['**kw'])}):\n" + "".join(x + "\n" for x in lines + calls)
    exec(compile(src, f"<thunder_core torch impl {opdef.signature}>", "exec"), consts)
    impl = consts["impl"]
    fills = [(p.name, tuple(q.name for q in statics[i + 1:])) for i, p in enumerate(statics[:-1])
             if p.default is not P.empty]

    def plain(b):  # impl would call fn(*b.args, **b.kwargs) itself
        return (len(b.args) <= len(head) and varargs not in b.kwargs
                and not any(n not in b.kwargs and any(k in b.kwargs for k in later) for n, later in fills))

    impl.specialize = lambda bsyms: fn if all(map(plain, bsyms)) else None
    return impl


_MISSING = object()


def _direct_args_impl(opdef, impl):
    """Like _direct_impl for ops with an ``impl(args, kwargs)`` in torch's convention: a
    generated function builds torch's positional argument list (defaults filled in, as
    OpDef.to_torch_call does) without binding a signature on every call."""
    P = inspect.Parameter
    params = opdef.signature.parameters
    consts = {"impl": impl, "_M": _MISSING}
    defs, lines, items = [], [], []
    for name in opdef.inputs:
        p = params[name]
        if p.kind is P.VAR_POSITIONAL:
            return None
        if p.default is P.empty:
            defs.append(name)
        else:
            consts[f"_D_{name}"] = p.default
            defs.append(f"{name}=_D_{name}" if p.kind is not P.KEYWORD_ONLY else f"{name}=_M")
    for name in opdef.positional:
        if name in opdef.inputs:
            items.append(name)
        elif params[name].default is P.empty:
            items.append(f"kw.pop({name!r})")
        else:
            consts[f"_D_{name}"] = params[name].default
            items.append(f"kw.pop({name!r}, _D_{name})")
    for name in opdef.inputs:
        if params[name].kind is P.KEYWORD_ONLY:
            lines.append(f"    if {name} is not _M: kw[{name!r}] = {name}")
    va = f"\n    args.extend(kw.pop({opdef.varargs!r}, ()))" if opdef.varargs else ""
    src = (f"def impl_({', '.join(defs + ['**kw'])}):\n" + "".join(line + "\n" for line in lines)
           + f"    args = [{', '.join(items)}]{va}\n    return impl(args, kw)\n")
    exec(compile(src, f"<thunder_core torch impl {opdef.signature}>", "exec"), consts)
    impl_ = consts["impl_"]
    direct = getattr(impl, "tensor_first", None)
    if direct is not None:
        n = len(opdef.positional)
        same = tuple(opdef.positional) == tuple(opdef.inputs[:n]) and not opdef.varargs

        def plain(b):  # impl would call direct(*b.args) itself
            return same and len(b.args) == n and not b.kwargs and isinstance(b.args[0], TensorProxy)

        impl_.specialize = lambda bsyms: direct if all(map(plain, bsyms)) else None
    return impl_


def _same(a, b) -> bool:
    try:
        return type(a) is type(b) and bool(a == b)
    except Exception:  # noqa: BLE001 - e.g. comparing proxies
        return False


#: instructions of any function's prologue (and padding), not of its body
_PROLOGUE_OPS = frozenset({"RESUME", "NOP", "CACHE", "COPY_FREE_VARS", "MAKE_CELL", "EXTENDED_ARG"})
#: what an empty body (a docstring, ``...``, ``pass``) compiles to: Python 3.11, then 3.12+
_EMPTY_BODIES = ([("LOAD_CONST", None), ("RETURN_VALUE", None)], [("RETURN_CONST", None)])


def _has_body(fn) -> bool:
    """False when the function body is only a docstring and/or ``...``/``pass`` (or returns
    None and nothing else: no decomposition either). Read from the bytecode: parsing the
    source of ~720 signature functions took 0.3-0.4 s of every process's first compile."""
    code = getattr(fn, "__code__", None)
    if code is None or len(code.co_code) > 32:  # (an empty body is a few instructions)
        return True
    ops = [(i.opname, i.argval) for i in dis.get_instructions(code) if i.opname not in _PROLOGUE_OPS]
    return ops not in _EMPTY_BODIES


# ---------------------------------------------------------------- fake-tensor meta

_fake_mode = None


def _mode():
    global _fake_mode
    if _fake_mode is None:
        from torch._subclasses.fake_tensor import FakeTensorMode

        _fake_mode = FakeTensorMode(allow_non_fake_inputs=True)
    return _fake_mode


def _concrete_number(p, size: bool):
    # A fake-tensor meta needs the number. While capturing, a symbolic one specialises
    # (guarded: the result's shape may depend on it); after capture (the verifier, autograd)
    # the trace's metadata is already decided, and this call's value stands in for it.
    if p.symbolic and getattr(current_trace(), "specialize", None) is None:
        return p.hint
    return p.specialize()


def _to_fake(x, mode, swap=None, number=_concrete_number):
    """Fake tensors for the proxies in ``x``. ``swap``: a non-CPU device whose tensors are made
    on ``"meta"`` instead (see :func:`fake_args`). ``number(proxy, is_size)``: what a
    NumberProxy (a number, or a tensor's symbolic size) becomes."""
    if isinstance(x, TensorProxy):
        shape = tuple(number(s, True) if type(s) is NumberProxy else s for s in x.shape)
        with mode:
            t = torch.empty(shape, dtype=x.dtype, device="meta" if swap is not None and x.device == swap else x.device)
            if x.requires_grad:
                # a non-leaf, as traced values are: in-place ops on a leaf that requires grad
                # are errors (x[0] = 0 on an intermediate is not)
                t = t.requires_grad_(True).clone()
        return t
    if isinstance(x, NumberProxy):
        return number(x, False)
    if isinstance(x, (list, tuple)):
        return type(x)(_to_fake(y, mode, swap, number) for y in x)
    if isinstance(x, dict):
        return {k: _to_fake(v, mode, swap, number) for k, v in x.items()}
    if swap is not None and isinstance(x, (torch.device, str)) and _is_device(x, swap):
        return torch.device("meta")
    return x


def _is_device(x, device) -> bool:
    try:
        d = torch.device(x)
    except (RuntimeError, TypeError):
        return False
    return d.type == device.type and (d.index is None or d.index == (device.index or 0))


def fake_args(pos, kw, mode, number=_concrete_number):
    """(fake positional, fake keywords, swap) for a symbol call. A CUDA fake tensor that
    requires grad aborts the process on a CPU-only build of torch as soon as autograd records
    it (``tc.plan`` for a GPU traces such tensors here), so when an input on a non-CPU device
    requires grad, that device's tensors (and device arguments naming it) are faked on
    ``"meta"``, where autograd works, and :func:`from_fake` puts results back (``swap``)."""
    swap = next((p.device for p in flat_proxies((pos, kw))
                 if isinstance(p, TensorProxy) and p.requires_grad and p.device.type not in ("cpu", "meta")), None)
    return _to_fake(list(pos), mode, swap, number), _to_fake(kw, mode, swap, number), swap


def from_fake(x, named=False, swap=None, size=None):
    """Proxies for the fake results ``x``. ``size``: maps a SymInt (a size of a symbolic fake
    tensor, or an int result) back to the trace's numbers; None: sizes are ints."""
    if isinstance(x, torch.Tensor):
        device = swap if swap is not None and x.device.type == "meta" else x.device
        return tensor_proxy(x.shape if size is None else tuple(map(size, x.shape)), x.dtype, device, x.requires_grad)
    if size is not None and isinstance(x, torch.SymInt):
        return size(x)
    if isinstance(x, (list, tuple)):
        out = tuple(from_fake(y, named, swap, size) for y in x)
        return type(x)(out) if named and is_return_type(x) else out
    return x


def is_return_type(x) -> bool:
    """True for a ``torch.return_types`` named tuple (``torch.max(x, 0)``'s result)."""
    return isinstance(x, tuple) and type(x).__module__ == "torch.return_types"


def plain(x):
    """``x`` with every ``torch.return_types`` named tuple made a plain tuple (what a bound
    symbol's output holds)."""
    if isinstance(x, (list, tuple)) and type(x) not in (tuple, list):
        return tuple(plain(y) for y in x)
    return x


def named_like(template, x):
    """``x`` (plain tuples) with the named tuples of ``template`` (same structure) restored."""
    if isinstance(template, tuple) and isinstance(x, tuple):
        out = tuple(named_like(t, y) for t, y in zip(template, x))
        return type(template)(out) if is_return_type(template) else out
    return x


def _guards_recorded() -> bool:
    from ..ir.trace import current_guard_sink, use_hints

    return getattr(current_trace(), "specialize", None) is not None or current_guard_sink() not in (None, use_hints)


def without_autocast(fn, *args):
    """``fn(*args)`` with ``torch.autocast`` off for every device type. A trace holds
    autocast's casts explicitly (transforms/autocast.py): what runs it, and the fake runs
    computing its metadata, must not cast again."""
    if not any_autocast():
        return fn(*args)
    on = [d for d in AUTOCAST_DEVICES if torch.is_autocast_enabled(d)]
    for d in on:
        torch.set_autocast_enabled(d, False)
    try:
        return fn(*args)
    finally:
        for d in on:
            torch.set_autocast_enabled(d, True)


def fake_meta(call: Callable, named: bool = False) -> Callable:
    """A meta function computing outputs by running ``call`` (torch-convention args) under
    FakeTensorMode; ``call`` receives the symbol call's (positional, keywords). ``named``
    keeps torch's named tuples (a bound symbol's output holds plain tuples). Autocast is off
    there (:func:`without_autocast`)."""
    def meta(*pos, **kw):
        if any_autocast():
            return without_autocast(run, pos, kw)
        return run(pos, kw)

    def run(pos, kw):
        if has_symbolic((pos, kw)) and _guards_recorded():
            try:  # symbolic sizes through torch's ShapeEnv; what it cannot express: concrete, guarded
                return symbolic_fake_run(call, pos, kw, named)
            except Exception:  # noqa: BLE001 - Untranslatable, or an op torch cannot run on SymInts:
                pass  # the concrete path below runs it again (and raises the user's error, if any)
        mode = _mode()
        fpos, fkw, swap = fake_args(pos, kw, mode)
        with mode:
            out = call(fpos, fkw)
        return from_fake(out, named, swap)
    return meta


# Named tuples holding proxies print as the constructor call that rebuilds them (a trace may
# return one: `torch.cummax(x, 0)`).
for _rt in vars(torch.return_types).values():
    if isinstance(_rt, type) and issubclass(_rt, tuple) and _rt.__module__ == "torch.return_types":
        PRINTERS.setdefault(_rt, lambda x, _n=_rt.__name__: f"torch.return_types.{_n}({print_value(tuple(x))})")


# ---------------------------------------------------------------- aliasing of decompositions

ALIAS_TAGS = frozenset({"view", "may-return-input"})


def own_outputs(sym, inputs, out):
    """Hold a decomposition's outputs to ``sym``'s aliasing trait (see the module docstring).
    Eager torch never returns the input object from ``permute(0, 1)`` or ``roll(x, 0)``, and
    never a view of it from ``repeat``: writing into the result must not change the input
    (or must, for a view) exactly as in eager."""
    if sym.tags & {"may-return-input", "inplace"}:  # eager returns the input (an in-place op: always)
        return out
    ins = {id(p) for p in flat_proxies(inputs) if isinstance(p, TensorProxy)}
    if not ins:
        return out
    from ..ir import current_trace

    view = "view" in sym.tags
    trace = current_trace()
    scope = trace._scopes[-1] if trace is not None and trace._scopes else ()
    producers = {id(o): b for b in scope for o in b.flat_outs}

    def aliases_input(p):
        while id(p) not in ins:
            b = producers.get(id(p))
            if b is None or not b.sym.tags & ALIAS_TAGS:
                return False
            p = next((a for a in b.flat_args if isinstance(a, TensorProxy)), None)
            if p is None:
                return False
        return True

    def fix(p):
        if not isinstance(p, TensorProxy):
            return p
        if id(p) in ins:
            from . import prims, ltorch

            return prims.reshape(p, shape=p.shape) if view else ltorch.clone(p)
        if not view and aliases_input(p):
            from . import ltorch

            return ltorch.clone(p)
        return p

    def walk(x):
        if isinstance(x, TensorProxy):
            return fix(x)
        if type(x) in (tuple, list):
            return type(x)(walk(y) for y in x)
        return x

    return walk(out)


# ---------------------------------------------------------------- tags

def _tags(tags, where: str) -> frozenset:
    """``tags`` checked against the vocabulary: an op's traits are what passes and executors
    see, so a misspelt one would silently make the op opaque to them."""
    tags = frozenset(tags)
    unknown = tags - TRAITS - NON_TRAIT_TAGS
    if unknown:
        raise ValueError(f"{where}: unknown tag(s) {sorted(unknown)}. Op traits are {', '.join(sorted(TRAITS))}; "
                         f"other tags are {', '.join(sorted(NON_TRAIT_TAGS))} (see thunder_core.ir.traits).")
    return tags


# ---------------------------------------------------------------- primitives

def prim(name: str | None = None, *, tags=()):
    """Define a primitive from its meta function: ``@prim()`` on ``def add(a, b): <meta>``
    creates ``prims.add`` (id ``"prims.add"``). Primitives follow the calling convention
    (tensors and numbers positional, static metadata by keyword), have no decomposition,
    and every executor that claims them implements them (the torch executor's table is
    ``thunder_executor_torch.prims.IMPLS``).

    ``tags`` declares the prim's traits (``@prim(tags=("elementwise",))``; the vocabulary and
    what each promises: ``thunder_core.ir.traits``) and non-trait tags; an unknown tag is an
    error. Remat, the cost model and fusing executors decide from the traits alone."""
    def define(meta):
        from . import prims

        pyname = name or meta.__name__.rstrip("_")
        sid = f"prims.{pyname}"
        if sid in PRIMS:
            raise ValueError(f"prim: {sid!r} is defined twice ({meta.__module__}.{meta.__qualname__}).")
        sym = Symbol(pyname, meta, sid, is_prim=True, tags=_tags(tags, f"prim {sid}"), python_name=pyname,
                     module="prims")
        PRIMS[sid] = sym
        setattr(prims, pyname, sym)
        return sym
    return define


# ---------------------------------------------------------------- the decorator

def torch_op(*torch_fns, inputs=("input",), method: str | tuple | None = None, meta: Callable | None = None,
             name: str | None = None, tags=(), impl: Callable | None = None, returns: type | None = None,
             values=()):
    """Define a torch-level symbol from a signature function; see the module docstring.

    :param torch_fns: the torch callables this op stands for (functions, ``torch.Tensor``
        methods, ``torch.nn.functional`` functions). The first is the one the torch executor
        calls unless ``impl`` is given.
    :param inputs: names of parameters that are positional inputs of the symbol (tensors,
        numbers, sequences of tensors); all other parameters are static keywords.
    :param method: ``torch.Tensor`` method name(s) to register in ``TENSOR_METHODS`` (e.g.
        ``"sum"``; also used for operators such as ``"add"`` and in-place ``"add_"``).
    :param meta: a meta function over the symbol call; default: ``fake_meta`` of the torch call.
    :param name: python name in ``ltorch`` (default: the signature function's name).
    :param tags: the op's **traits**, what it is: ``"elementwise"``, ``"transcendental"``,
        ``"reduction"``, ``"normalization"``, ``"view"``, ``"shape"``, ``"random"``, ``"inplace"``,
        ``"creation"``, ``"matmul"`` (each defined in ``thunder_core.ir.traits``), plus non-trait
        tags such as ``"may-return-input"``. Declare every trait that truly describes the op:
        passes and executors decide from them alone (``tags=("elementwise",)`` makes an op
        recomputable by remat and fusible by inductor, wherever it is defined, plugins
        included); an op without traits is treated as an opaque library kernel. An unknown
        tag is an error.
    :param impl: ``impl(args, kwargs)`` in torch's convention, replacing the call of
        ``torch_fns[0]`` (for ops whose torch function cannot take every argument form, e.g.
        reflected operators with a number first).
    :param returns: the ``torch.return_types`` type torch returns when the op gives a tuple
        (``torch.return_types.cummax``); user code gets the symbol's tuple wrapped in it.
    :param values: parameters whose *values* torch reads when they are tensors (``tensor_split``'s
        tensor of indices, ``narrow``'s tensor ``start``): such a tensor is replaced by its
        contents (a list, or a number for a 0-d tensor) through :func:`known_value`, which the
        jit guards on every call, or refused when the contents are not known.
    """
    def define(sig_fn):
        from . import ltorch

        pyname = name or sig_fn.__name__
        first = torch_fns[0] if torch_fns else None
        sid = f"ltorch.{pyname}"
        if sid in SYMBOLS:
            raise ValueError(f"torch_op: {sid!r} is defined twice ({sig_fn.__module__}.{sig_fn.__qualname__}).")
        signature = inspect.signature(sig_fn)
        unknown = [i for i in inputs if i not in signature.parameters]
        if unknown:
            raise ValueError(f"torch_op {pyname}: inputs {unknown} are not parameters of {signature}.")
        opdef = OpDef(None, first, signature, tuple(i for i in signature.parameters if i in inputs), sig_fn.__module__)
        opdef.strip_defaults = meta is None
        call = impl or first

        torch_impl = _direct_impl(opdef, first) if impl is None else _direct_args_impl(opdef, impl)
        if torch_impl is None:
            def torch_impl(*pos, **kw):  # noqa: F811 - the generic path for unusual signatures
                a, k = opdef.to_torch_call(pos, kw)
                return call(a, k) if impl is not None else call(*a, **k)

        def decompose(*pos, **kw):
            a, k = opdef.to_torch_call(pos, kw)
            return own_outputs(sym, (pos, kw), sig_fn(*a, **k))

        decomposition = decompose if _has_body(sig_fn) else None
        sym = Symbol(pyname, meta or fake_meta(lambda p, k: torch_impl(*p, **k)), sid,
                     decomposition=decomposition, tags=_tags(tags, f"torch_op {sid}"), python_name=pyname,
                     module="ltorch")
        opdef.symbol = sym

        if returns is None and not values:
            def entry(*args, **kwargs):
                pos, kw = opdef.to_symbol_call(args, kwargs)
                return sym(*pos, **kw)
        else:
            def entry(*args, **kwargs):
                if values:
                    args, kwargs = _with_known_values(opdef, values, args, kwargs)
                pos, kw = opdef.to_symbol_call(args, kwargs)
                out = sym(*pos, **kw)
                return returns(out) if returns is not None and type(out) is tuple else out

        entry.__name__ = entry.__qualname__ = pyname
        entry.symbol = sym
        SYMBOLS[sid], OPDEFS[sid], TORCH_IMPLS[sid] = sym, opdef, torch_impl
        for fn in torch_fns:
            TORCH_CALLS[fn] = entry
        for m in ((method,) if isinstance(method, str) else (method or ())):
            TENSOR_METHODS[m] = entry
        setattr(ltorch, pyname, sym)
        return entry

    return define


def _with_known_values(opdef, names, args, kwargs):
    bound = opdef.signature.bind(*args, **kwargs)
    for n in names:
        v = bound.arguments.get(n)
        if isinstance(v, TensorProxy):
            bound.arguments[n] = known_value(v, f"{opdef.symbol.id.replace('ltorch.', 'torch.')}'s {n}")
    return bound.args, bound.kwargs


#: NumPy's argument names that torch's argument parser takes for its own in every native
#: function (python_arg_parser.cpp): ``x.sum(axis=0, keepdims=True)`` (as HF Funnel writes),
#: ``torch.abs(x=t)``, ``torch.add(x1=a, x2=b)``
NUMPY_NAMES = {"axis": "dim", "keepdims": "keepdim", "x": "input", "a": "input", "x1": "input", "x2": "other"}


def numpy_names(kwargs: dict, params) -> dict:
    """``kwargs`` with NumPy's names renamed to torch's where the function (``params``: its
    parameter names) has torch's name and not NumPy's (a copy; ``kwargs`` is not changed)."""
    renamed = dict(kwargs)
    for numpy, name in NUMPY_NAMES.items():
        if numpy in renamed and numpy not in params and name in params and name not in renamed:
            renamed[name] = renamed.pop(numpy)
    return renamed


_SIZE_VARARGS = frozenset({"size", "sizes", "shape", "dims"})  # (not meshgrid's `*tensors`)


def _size_of(p: TensorProxy):
    """A 0-d integer tensor given as a size or dim (torch takes it through ``__index__``):
    its value, when the frontend knows it (an input, guarded), else a TracingError."""
    if p.ndim != 0 or p.dtype.is_floating_point or p.dtype.is_complex:
        return p
    return known_value(p, "a size given as a tensor")


def known_value(p: TensorProxy, what: str):
    """The contents of tensor ``p`` (``tolist()``) for an op whose output metadata depends on
    them: the frontend building the trace knows them when ``p`` is an input, and guards them
    (``Trace.known_value``); otherwise a TracingError says why it cannot be traced."""
    from ..ir import current_trace

    t = current_trace()
    hook = getattr(t, "known_value", None)
    v = hook(p) if hook is not None else None
    if v is None:
        src = getattr(t, "current_source", None)
        where = f"{src[0]}:{src[1]} ({src[2]}): " if src else ""
        raise TracingError(
            f"{where}{what} is a tensor ({p.name}) whose values decide the shapes of the result, and its values are not "
            f"known while tracing (it is computed inside the function, or large). Pass its values as a Python "
            f"list or number, or pass the tensor as an argument of the jitted function (small integer tensors "
            f"given as arguments are read, and checked on every call).")
    return v


def _no_decomposition(*args, **kwargs):
    """Runs whole: the torch function is the op's definition (no decomposition)."""


def signature_function(name: str, params: str, doc: str):
    """A signature function for :func:`torch_op` with the parameters ``params`` (the text of
    torch's parameter list, ``"A, *, upper=False"``) and no body, so no decomposition: for
    tables of ops that run whole (library kernels, special functions no primitive computes)."""
    scope: dict = {}
    exec(f"def {name}({params}): pass", {"torch": torch, "inf": float("inf")}, scope)  # noqa: S102 - constant tables
    fn = _types.FunctionType(_no_decomposition.__code__, globals(), name)
    fn.__signature__ = inspect.signature(scope[name])
    fn.__doc__ = doc
    return fn


def whole_op(name: str, params: str, *torch_fns, inputs=("input",), doc: str = "", **options):
    """Define the torch-level op ``name`` without a decomposition from the text of torch's
    parameter list (see :func:`signature_function`)::

        whole_op("linalg_det", "A", torch.linalg.det, inputs=("A",), tags=())

    is ``@torch_op(torch.linalg.det, inputs=("A",), name="linalg_det", tags=())`` on ``def
    linalg_det(A): ...``. ``options`` are :func:`torch_op`'s; ``returns`` defaults to the
    ``torch.return_types`` named tuple of the first torch function's name, if torch has one,
    and then the implementation gives the symbol's plain tuple."""
    fn = signature_function(name, params, doc or f"``{name}``: run whole (torch's kernel defines it; no decomposition).")
    returns = options.pop("returns", getattr(torch.return_types, getattr(torch_fns[0], "__name__", ""), None))
    if returns is not None and "impl" not in options:
        first = torch_fns[0]
        options["impl"] = lambda args, kwargs: tuple(first(*args, **kwargs))
    return torch_op(*torch_fns, inputs=inputs, name=name, returns=returns, **options)(fn)


def torch_call_of(fn):
    """The torch-convention entry recording ``fn``'s symbol, or None."""
    try:
        return TORCH_CALLS.get(fn)
    except TypeError:
        return None


class _Namespace:
    """``T.sum(x, 1)`` records ``torch.sum(x, 1)``: torch-style calls for decompositions,
    resolved through TORCH_CALLS (so they take torch's own arguments)."""

    def __init__(self, module, label):
        self._module, self._label = module, label

    def __getattr__(self, name):
        fn = getattr(self._module, name)
        entry = torch_call_of(fn)
        if entry is None:  # no symbol (yet): record it as an opaque op rather than fail
            from .opaque import opaque_entry

            entry = opaque_entry(fn)
        return entry


#: torch-style access to symbols for writing decompositions: ``T.exp(x)``, ``F.gelu(x)``,
#: ``S.i1(x)`` (``torch.special``).
T = _Namespace(torch, "torch")
F = _Namespace(torch.nn.functional, "torch.nn.functional")
S = _Namespace(torch.special, "torch.special")
