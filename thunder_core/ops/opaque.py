"""Torch operations with no symbol of their own become *opaque* symbols on first use.

``opaque_entry(torch_fn)`` creates (once) a symbol ``opaque.<name>`` whose meta runs the
function under FakeTensorMode and whose torch implementation is the function itself, so an
"unsupported op" still traces and runs. The call keeps the user's argument form (the
calling convention is not enforced for opaque symbols; they are tagged ``"opaque"``). When
the output depends on tensor *contents* (``.item()``, ``.tolist()``, ``nonzero``...), the
error says so and what to do.
"""

from __future__ import annotations

import re

import torch
from torch.utils._python_dispatch import TorchDispatchMode

from ..ir import Symbol, TracingError
from ..ir import proxies as _proxies
from ..ir.printing import NAMESPACES, PrintingError, print_value
from ..ir.proxies import NumberProxy, TensorProxy, flat_proxies
from . import registry

NAMESPACES.setdefault("opaque", "thunder_core.ops.opaque_ns")
_ENTRIES: dict = {}
_PUBLIC = {"torch._C._nn": "torch.nn.functional", "torch._C._special": "torch.special", "torch._C._linalg": "torch.linalg",
           "torch._C._fft": "torch.fft", "torch._C._VariableFunctions": "torch", "torch._C": "torch"}


def _name(fn) -> str:
    if isinstance(fn, (torch._ops.OpOverload, torch._ops.OpOverloadPacket)):  # torch.ops.mylib.foo.default
        over = getattr(fn, "_overloadname", None)
        q = f"{fn._qualified_op_name if hasattr(fn, '_qualified_op_name') else fn.name()}"
        return re.sub(r"\W", "_", f"{q}{'' if over in (None, 'default') else '_' + over}")
    owner = getattr(fn, "__objclass__", None)
    if owner is not None:
        q = f"Tensor_{fn.__name__}"
    else:
        mod = getattr(fn, "__module__", None) or "torch"
        mod = _PUBLIC.get(mod, mod)
        q = f"{mod}.{getattr(fn, '__name__', 'op')}"
    return re.sub(r"\W", "_", q).strip("_")


def opaque_entry(fn):
    """The entry recording calls of torch callable ``fn`` as an opaque symbol."""
    entry = _ENTRIES.get(fn)
    if entry is not None:
        return entry
    from . import opaque_ns

    name = _name(fn)
    while hasattr(opaque_ns, name):
        name += "_"
    seeded = []  # set when the op draws from the random generator (seen while computing its meta)
    writes = []  # the operators that wrote into the call's tensor arguments in the last meta run

    def run_detecting(p, k):
        writes.clear()
        with _Watch(_fake_storages((p, k))) as m:
            try:
                out = fn(*p, **k)
            finally:  # the writes seen before an operator without a fake implementation raised too
                writes.extend(m.writes)
        if m.seen and not seeded:
            seeded.append(True)
        return out

    meta = registry.fake_meta(run_detecting, named=True)

    precomputed = []  # the output computed by `entry` for the call being recorded now

    def checked_meta(*args, **kwargs):
        if precomputed:
            return precomputed.pop()
        return registry.plain(named_meta(*args, **kwargs))

    def named_meta(*args, **kwargs):
        try:
            return meta(*args, **kwargs)
        except Exception as e:  # noqa: BLE001 - FakeTensor raises several kinds for data-dependent ops
            kind = type(e).__name__
            # (torch reading a fake tensor's data, e.g. tensor_split's tensor of indices: "its data is
            # not allocated yet", is the same situation)
            msg = str(e).lower()
            if writes and "Unsupported" in kind:
                # an operator writing into the call's traced tensors that has no fake
                # implementation (torch 2.10's c10d::allreduce_): refused as an effect, as above
                raise TracingError(_effect_refused(fn, writes, None)) from None
            if "DataDependent" in kind or "DynamicOutputShape" in kind or "data-dependent" in msg or \
                    "data is not allocated" in msg or "tolist() is not supported for tensor subclasses" in msg:
                raise TracingError(
                    f"{_where()}{_display(fn)} returns something that depends on tensor values, which are not known while "
                    f"tracing. Keep the computation in tensors (e.g. torch.where instead of `if t.item()`), or "
                    f"call it outside the jitted function.") from None
            raise

    # torch's convention: a trailing underscore writes into the first argument (autograd must know)
    fn_name = getattr(fn, "__name__", "")
    inplace = {"inplace"} if fn_name.endswith("_") and not fn_name.endswith("__") else set()
    fresh = {"fresh-output"} if _schema_says_fresh(fn) else set()
    sym = Symbol(name, checked_meta, f"opaque.{name}", tags=frozenset({"opaque", *inplace, *fresh}), python_name=name,
                 module="opaque")
    registry.TORCH_IMPLS[sym.id] = fn

    def entry(*args, **kwargs):
        nonlocal sym
        named = named_meta(*args, **kwargs)  # torch.cummax's torch.return_types.cummax, ...
        effect = False
        if not any(type(p) is TensorProxy for p in flat_proxies(named)):
            if not flat_proxies((args, kwargs)):
                return fn(*args, **kwargs)  # no tensors in or out: run it now, natively
            if not writes and _is_metadata(named):
                # a metadata query on traced tensors (a dtype, a size, a stride): a constant, or
                # the number proxies of symbolic sizes (the fake run's SymInts, translated back)
                return named
            # A call made for its effect on traced tensors (it writes into one, or returns None:
            # an assertion, a collective) is recorded to run on every call, in program order;
            # one returning an object made from fake tensors (a Work, a storage), or whose
            # arguments a trace cannot hold (a process group), is refused. Never dropped: run
            # on fake tensors once while tracing, it would never run on later calls.
            if named is not None or not _printable((args, kwargs)):
                raise TracingError(_effect_refused(fn, writes, named))
            effect = True
        new_tags = ({"random"} if seeded else set()) | ({"effect"} if writes or effect else set()) | \
            ({"inplace"} if writes and not flat_proxies(named) else set())
        if new_tags - sym.tags:
            # it draws random numbers (an aten op tagged nondeterministic_seeded ran): a random
            # op, which autograd must never re-run in the backward; it writes into a tensor
            # argument or returns nothing: an effect, never dropped by dead-code elimination
            sym = Symbol(name, checked_meta, sym.id, tags=sym.tags | new_tags, python_name=name, module="opaque")
            entry.symbol = sym
            setattr(opaque_ns, name, sym)
        precomputed.append(registry.plain(named))
        return registry.named_like(named, sym(*args, **kwargs))

    entry.symbol = sym
    setattr(opaque_ns, name, sym)
    _ENTRIES[fn] = entry
    return entry


def _schema_says_fresh(fn) -> bool:
    """Does the schema of torch operator ``fn`` (an overload, or every overload of a packet)
    promise outputs sharing no memory with its arguments, into none of which it writes? Its
    alias annotations say: ``f(Tensor x) -> Tensor``, not ``-> Tensor(a)`` nor ``Tensor(a!) x``
    (a ``torch.library.custom_op``'s always: torch checks that its outputs alias no input).
    Without one, an opaque call may return a view of an argument, so writing into its result
    might write into that argument: autograd could not make such a write functional."""
    if isinstance(fn, torch._ops.OpOverloadPacket):
        overloads = [getattr(fn, o) for o in fn.overloads()]
    elif isinstance(fn, torch._ops.OpOverload):
        overloads = [fn]
    else:
        return False
    return bool(overloads) and all(a.alias_info is None for o in overloads
                                   for a in (*o._schema.arguments, *o._schema.returns))


class _Watch(TorchDispatchMode):
    """Notes whether any aten op that ran under it draws from a random generator (``seen``),
    and which ops wrote into the storage of one of the call's own tensor arguments
    (``writes``): by the schema's write annotations (``add_``, ``out=``) or, for operators
    whose schema does not annotate them (``c10d::allreduce_``), by torch's naming convention
    (a trailing underscore writes into its tensor arguments)."""

    seen = False

    def __init__(self, storages):
        super().__init__()
        self.storages, self.writes = storages, []

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        if torch.Tag.nondeterministic_seeded in func.tags:
            self.seen = True
        if self.storages:
            schema = func._schema
            by_name = schema.name.endswith("_") and not schema.name.endswith("__")
            for i, a in enumerate(schema.arguments):
                if not (by_name or a.alias_info is not None and a.alias_info.is_write):
                    continue
                v = args[i] if i < len(args) else (kwargs or {}).get(a.name)
                if v is not None and _fake_storages(v) & self.storages:
                    self.writes.append(schema.name)
                    break
        return func(*args, **(kwargs or {}))


def _fake_storages(x) -> set:
    """Storages of the tensors in ``x`` (nested tuples, lists and dict values)."""
    import torch.utils._pytree as pytree
    from torch.multiprocessing.reductions import StorageWeakRef

    return {StorageWeakRef(t.untyped_storage()) for t in pytree.tree_leaves(x) if isinstance(t, torch.Tensor)}


_PLAIN = (bool, int, float, str, torch.dtype, torch.device, torch.layout, torch.memory_format, torch.Size)


def _is_metadata(x) -> bool:
    """A plain value a query about tensors returns (a number, a dtype, a shape...), not None
    (a call made for its effect) nor an object (a handle, a storage)."""
    if type(x) in (tuple, list):
        return all(_is_metadata(y) for y in x)
    return isinstance(x, _PLAIN) or type(x) is NumberProxy


def _printable(x) -> bool:
    """Can ``x`` (a call's arguments) be written in a trace's source?"""
    try:
        print_value(x)
    except PrintingError:
        return False
    return True


def _effect_refused(fn, writes, result) -> str:
    what = " and ".join(
        ([f"writes into its tensor arguments ({', '.join(sorted(set(writes)))})"] if writes else []) +
        [f"returns a {type(result).__qualname__} object made from fake tensors" if result is not None else
         "returns None"])
    why = ("a trace cannot hold that object" if result is not None else
           "its arguments include objects a trace cannot hold")
    return (f"{_where()}{_display(fn)} is called with tensors computed while tracing and {what}: it is a call made "
            f"for its effect, and {why}, so it cannot be recorded to run on every call (run once on fake tensors "
            f"while tracing, it would never run again: silently wrong results). Call it outside the jitted function, "
            f"or install the plugin that records it as a symbol (torch.distributed's collectives: "
            f"pip install thunder-distributed).")


def _where() -> str:
    from ..ir import current_trace

    t = current_trace()
    src = getattr(t, "current_source", None) if t is not None else None
    return f"{src[0]}:{src[1]} ({src[2]}): " if src else ""


def _display(fn) -> str:
    owner = getattr(fn, "__objclass__", None)
    if isinstance(fn, (torch._ops.OpOverload, torch._ops.OpOverloadPacket)):
        return f"torch.ops.{str(fn).replace('::', '.')}"
    return f"torch.Tensor.{fn.__name__}" if owner is not None else f"{getattr(fn, '__module__', '')}.{fn.__name__}"


def _missing_method(attr: str):
    fn = getattr(torch.Tensor, attr, None)
    if fn is None or not callable(fn) or isinstance(fn, type):
        return None
    return opaque_entry(fn)


_proxies.MISSING_METHOD = _missing_method


def _item(p):
    """``t.item()`` (and ``int(t)``, ``float(t)``): the value of a one-element integer input
    tensor, which the frontend reads and guards (one compile per value, like a constant);
    otherwise the value is data (computed, or floating) and the call says so."""
    from ..ir import current_trace

    trace = current_trace()
    hook = getattr(trace, "known_value", None)
    v = hook(p) if hook is not None and p.numel() == 1 else None
    if v is None and p.dtype is torch.bool and p.numel() == 1:
        # a cheap predicate of inputs (HF LED: `global_mask.flatten().any().item()`), decided
        # and guarded as its truth is (guards/truth.py)
        hook = getattr(trace, "input_truth", None)
        v = hook(p) if hook is not None else None
    if v is None:
        return opaque_entry(torch.Tensor.item)(p)  # raises: depends on tensor values
    while type(v) is list:
        v = v[0]
    return v


_proxies.TENSOR_METHODS["item"] = _item

# Metadata a tensor reports about itself (is_nested, is_sparse, is_quantized, is_leaf...):
# what a fake tensor with the proxy's metadata answers, when it is a plain value.
_METADATA_TYPES = (bool, int, float, str, type(None), torch.dtype, torch.device, torch.layout, torch.memory_format,
                   torch.Size)


def _missing_property(p, attr: str):
    if attr == "grad":
        # an input's .grad is the real tensor's, fetched through the input's path on every call
        # (a fake tensor's is always None); a tensor computed here has none, as in eager
        from ..ir import current_trace

        hook = getattr(current_trace(), "outside_attr", None)
        found, v = hook(p, attr) if hook is not None else (False, None)
        if found:
            return v
    if attr == "data":  # the same tensor without autograd: a view (writes through it reach p), as eager's
        return p.detach()
    if attr == "is_leaf":  # known without grad, and for parameters; else it depends on how the caller made it
        if not p.requires_grad or p.__class__ is torch.nn.Parameter:
            return True
        raise AttributeError(f"torch.Tensor.is_leaf of {p.name}, a tensor that requires grad, is not known while "
                             f"tracing. Check it outside the jitted function.")
    d = getattr(torch.Tensor, attr, None)
    if d is not None and not callable(d) and hasattr(type(d), "__get__"):
        # (autograd must not see a non-CPU fake tensor: see registry.fake_args)
        plain = p if p.device.type == "cpu" or not p.requires_grad else p.replace(requires_grad=False)
        v = getattr(registry._to_fake(plain, registry._mode()), attr)
        if isinstance(v, _METADATA_TYPES):
            return v
        raise AttributeError(f"torch.Tensor.{attr} of a tensor computed while tracing ({p.name}) is not supported: it "
                             f"is not a plain value ({type(v).__name__}). Read it outside the jitted function.")
    raise AttributeError(f"'Tensor' object has no attribute {attr!r}" if d is None else
                         f"torch.Tensor.{attr} of a tensor computed while tracing ({p.name}) is not supported yet.")


_proxies.MISSING_PROPERTY = _missing_property


def _set_data(p, value) -> None:
    """``x.data = y``. In eager ``x``, the same object, takes ``y``'s values, shape, dtype,
    device and storage (writes through either reach both), without ``y``'s autograd history,
    and keeps its own autograd state. Recorded as an in-place shape change is (Trace.written):
    later reads of ``x`` take ``y.detach()``, a view of ``y``. That is eager's for a tensor the
    function made that does not require grad; a tensor from outside (eager changes the
    caller's tensor) or one that requires grad (eager keeps its grad_fn or its place as a leaf
    under the new value) is refused, except ``x.data = x``, a no-op that ``nn.Module.to``
    makes for a parameter already of that dtype and device."""
    from ..ir import current_trace
    from ..ir.symbol import _written

    trace = current_trace()
    w = trace.written or {}
    cur = w.get(id(p), p)  # what x is now (an earlier in-place write may have changed it)
    if type(value) is TensorProxy and w.get(id(value), value) is cur:
        return
    if type(value) is not TensorProxy:
        raise TypeError(f"Variable data has to be a tensor, but got {type(value).__name__}")
    why = None
    if _from_outside(trace, cur, w):
        why = ("the tensor comes from outside the function (an argument, a parameter or a buffer), and eager "
               "would change the caller's tensor. Set it outside the jitted function (e.g. call module.to(dtype) "
               "before calling it), or write the values in (`with torch.no_grad(): x.copy_(y)`)")
    elif cur.requires_grad:
        why = ("the tensor requires grad: eager keeps its autograd history (its grad_fn, or its place as a leaf) "
               "under the new value, which a trace cannot record. Make a new tensor instead "
               "(`x = y.detach().requires_grad_()`), or write the values in (`with torch.no_grad(): x.copy_(y)`)")
    elif trace._scopes:
        why = "it is set inside a higher-order op's body (checkpoint, cond, a loop body). Set it outside that body"
    if why is not None:
        raise NotImplementedError(f"Setting a tensor's `.data` is not supported here while tracing: {why}.")
    _written(trace, cur, value.detach())  # (the call reads y as it is now: ir/symbol.py)


def _from_outside(trace, cur, w) -> bool:
    """Is ``cur`` (a tensor as it is now) an input of ``trace``, or what reads of an outside
    tensor give (a capture's recorder: lookaside_tools.substitute), under in-place writes?"""
    rec = getattr(trace, "recorder", None)
    outside = [*trace.args, *(hit[1] for hit in rec.proxies.values())] if rec is not None else trace.args
    return any(w.get(id(a), a) is cur for a in outside if type(a) is TensorProxy)


_proxies.TENSOR_SETTERS["data"] = _set_data


def _set_grad(p, value) -> None:
    """``x.grad = g`` is refused: for a tensor from outside eager changes the caller's tensor,
    which the compiled function would not do on later calls; the values of an existing grad
    can be changed in place (``x.grad.zero_()``, ``x.grad.mul_(c)``), which is recorded."""
    raise NotImplementedError(
        f"{_where()}setting `.grad` of {p.name} inside a jitted function is not supported: a compiled function "
        f"does not replace a tensor's .grad. Set it outside the jitted function (e.g. "
        f"`module.zero_grad(set_to_none=True)` or `optimizer.zero_grad()` before or after calling it), or change "
        f"the values of an existing grad in place (`p.grad.zero_()`, `p.grad.mul_(c)`).")


_proxies.TENSOR_SETTERS["grad"] = _set_grad


# ---------------------------------------------------------------- autograd hooks on traced tensors

def _unsupported_hook(method):
    def refuse(self, *args, **kwargs):
        raise NotImplementedError(
            f"Tensor.{method}() on {self.name}, a tensor computed inside a jitted function, is not supported: its "
            f"backward runs as a compiled trace, where the hook would never be called (a silently different "
            f"gradient). Register the hook on an input or on an output of the jitted function instead, or run this "
            f"function without tc.jit.")
    refuse.__name__ = method
    return refuse


for _method in ("register_hook", "register_post_accumulate_grad_hook", "retain_grad"):
    _proxies.TENSOR_METHODS[_method] = _unsupported_hook(_method)


# ---------------------------------------------------------------- autograd's engine inside a trace

def _refuse_backward(name):
    def refuse(*args, **kwargs):
        raise NotImplementedError(
            f"{_where()}{name} inside a jitted function is not supported: the trace records operations on tensors, "
            f"and PyTorch's autograd engine cannot run on them while tracing. Return the "
            f"loss from the jitted function and call {name} on it outside; the jitted function's backward is "
            f"compiled for you.")
    refuse.__name__ = name.rsplit(".", 1)[-1]
    return refuse


# (torch.autograd.functional reaches these through interpreted Python; a traced tensor's
# .backward() was a silent no-op: x.grad stayed None)
registry.TORCH_CALLS[torch.autograd.grad] = _refuse_backward("torch.autograd.grad")
registry.TORCH_CALLS[torch.autograd.backward] = _refuse_backward("torch.autograd.backward")
_proxies.TENSOR_METHODS["backward"] = _refuse_backward("Tensor.backward")


# ---------------------------------------------------------------- global RNG state

def _refuse_global_state(fn, name):
    def refuse(*args, **kwargs):
        raise TracingError(
            f"{_where()}{name} inside a jitted function would run once, while tracing, and not on later calls (a "
            f"compiled function does not replay changes to torch's global random state), so random ops would draw "
            f"different numbers than eager. Call {name} before calling the jitted function.")
    refuse.__name__ = getattr(fn, "__name__", "refuse")
    return refuse


# They are Python functions the interpreter would otherwise step into, down to a native
# Generator method that runs at trace time only: registered as torch calls, they refuse.
# (torch.manual_seed, set_rng_state and get_rng_state are recorded instead: ltorch_rng.py.)
for _fn, _shown in ((torch.seed, "torch.seed"), (torch.random.seed, "torch.seed")):
    registry.TORCH_CALLS[_fn] = _refuse_global_state(_fn, _shown)
del _fn, _shown
