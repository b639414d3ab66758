"""A user's ``torch.autograd.Function`` (and a ``torch.library.custom_op`` with a registered
autograd formula), traced: its forward and its backward both become sub-traces of one
``higher_order.autograd_function`` call (ops/higher_order.py), so executors claim and fuse
inside them and the traced backward is the call's VJP (recorded inline in the backward trace).

The ``ctx`` both receive is a :class:`TracedCtx`: ``save_for_backward``/``saved_tensors``,
non-tensor attributes (constants of the trace, like any value the forward computed from its
guarded inputs), ``needs_input_grad`` (known while tracing: requires_grad is guarded),
``mark_non_differentiable``, ``set_materialize_grads``; a backward wrapped in
``@once_differentiable`` is traced through the wrapper (it runs without grad, as in eager).

When the backward (or the forward) cannot be traced (a tensor's value read in Python, a
``ctx.mark_dirty`` in-place forward, an error), the call is one opaque op instead (PyTorch runs
the forward, and its own backward), and ``tc.explain`` says why. Deviation: with
``set_materialize_grads(False)`` the traced backward receives zeros, not None, for outputs no
gradient reaches (the same gradients; an input reached only through such outputs gets zeros).
"""

from __future__ import annotations

import torch
import torch.utils._pytree as pytree

from ..ir import Proxy, TensorProxy, tensor_proxy
from ..ops import higher_order as ho
from ..transforms.autograd import dce
from ..transforms.higher_order import like, record_subtrace, writes_input


class Untraceable(Exception):
    """The Function cannot be traced; the message says why (shown by tc.explain)."""


class TracedCtx:
    """What ``forward``/``setup_context`` and ``backward`` get as ``ctx`` while traced (the
    methods and attributes of ``torch.autograd.function.FunctionCtx`` that custom Functions use)."""

    def __init__(self, needs_input_grad):
        self.needs_input_grad = needs_input_grad
        self.to_save = ()
        self.non_differentiable = ()
        self.materialize_grads = True

    def save_for_backward(self, *tensors):
        self.to_save = tensors

    def save_for_forward(self, *tensors):
        pass  # forward-mode AD is not traced

    @property
    def saved_tensors(self):
        return self.to_save

    saved_variables = saved_tensors

    def mark_non_differentiable(self, *outputs):
        self.non_differentiable = outputs

    def mark_dirty(self, *tensors):
        raise Untraceable("its forward modifies an input in place (ctx.mark_dirty)")

    def set_materialize_grads(self, value: bool):
        self.materialize_grads = bool(value)


def trace_function(I, name, forward, backward, args, *, setup_context=None, once_differentiable=False):
    """Record a custom-gradient call into the current trace and return its outputs.
    ``forward(ctx, *args)`` (or ``forward(*args)`` then ``setup_context(ctx, args, output)``)
    and ``backward(ctx, *grads)`` are the user's functions, interpreted by ``I``. Raises
    :class:`Untraceable`; the interpreter's log and the guards are as before the attempt then."""
    rec = I.recorder
    events, guards, seen = len(I.events), len(rec.cap.guards), set(rec.seen_guards)
    try:
        return _trace(I, name, forward, backward, args, setup_context, once_differentiable)
    except Exception as e:
        del I.events[events:]
        del rec.cap.guards[guards:]
        rec.seen_guards &= seen
        if isinstance(e, Untraceable):
            raise
        raise Untraceable(f"tracing it raised {type(e).__name__}: {e}") from e


def _trace(I, name, forward, backward, args, setup_context, once_differentiable):
    grad_on = torch.is_grad_enabled()
    needs = tuple(isinstance(a, TensorProxy) and a.requires_grad and grad_on for a in args)
    ctx = TracedCtx(needs)
    positions = [i for i, a in enumerate(args) if isinstance(a, TensorProxy)]
    tensors = [args[i] for i in positions]
    spec = []

    def run_forward(*ps):
        a = list(args)
        for i, p in zip(positions, ps):
            a[i] = p
        if setup_context is None:
            out = I.call(forward, (ctx, *a), {})
        else:
            out = I.call(forward, tuple(a), {})
            I.call(setup_context, (ctx, tuple(a), out), {})
        leaves, s = pytree.tree_flatten(out)
        spec[:] = [s, [isinstance(x, TensorProxy) for x in leaves], leaves]
        return tuple(x for x in leaves if isinstance(x, TensorProxy))

    if not any(needs):  # nothing to differentiate: the forward, inline (it runs without grad, as in eager)
        with torch.no_grad():
            flat = iter(run_forward(*tensors))
        return pytree.tree_unflatten([next(flat) if t else x for t, x in zip(spec[1], spec[2])], spec[0])
    # the sub-trace's inputs: one per tensor argument (a tensor passed twice: the second is a new,
    # unused input, the forward reads the first twice), then what the forward read from elsewhere
    first = {}
    for p in tensors:
        first.setdefault(id(p), p)
    params = [p if first.pop(id(p), None) is not None else like(p) for p in tensors]
    with torch.no_grad():
        fsub, ffree = record_subtrace(lambda *ps: run_forward(*tensors), params, "function_forward", prune=False)
    if any(isinstance(x, Proxy) and not isinstance(x, TensorProxy) for x in spec[2]):
        raise Untraceable("its forward returns a symbolic number")
    if writes_input(fsub) is not None:
        raise Untraceable(f"its forward modifies an input in place or global state ({writes_input(fsub).sym.name})")
    outs = list(fsub.output)
    inputs_of_sub = {id(p): i for i, p in reversed(list(enumerate(fsub.args)))}
    for k, o in enumerate(outs):
        if id(o) in inputs_of_sub or any(o is q for q in outs[:k]):
            raise Untraceable("its forward returns one of its inputs (or one tensor twice) unchanged")
    non_diff = tuple(k for k, o in enumerate(outs) if any(o is q for q in ctx.non_differentiable))
    # the backward: one cotangent per output (zeros where none arrives), traced without grad
    cts = [tensor_proxy(o.shape, o.dtype, o.device) for o in outs]

    def run_backward(*gs):
        res = I.call(backward, (ctx, *gs), {})
        res = res if isinstance(res, tuple) else (res,)
        if len(res) < len(args) or any(g is not None for g in res[len(args):]):
            raise Untraceable(f"its backward returns {len(res)} gradients for {len(args)} inputs")
        for i, g in enumerate(res[:len(args)]):
            if g is not None and not isinstance(args[i], TensorProxy):
                raise Untraceable(f"its backward returns a gradient for input {i}, which is not a tensor")
            if g is not None and not isinstance(g, TensorProxy):
                raise Untraceable(f"its backward returns {type(g).__name__} for input {i}, not a tensor or None")
        return tuple(res[i] for i in positions)

    with torch.no_grad():
        bsub, bfree = record_subtrace(run_backward, cts, "function_backward")
    # forward values the backward reads: inputs of the forward, or outputs it must return
    saved = []
    for p in bfree:
        if id(p) in inputs_of_sub:
            saved.append(inputs_of_sub[id(p)])
            continue
        k = next((k for k, o in enumerate(outs) if o is p), None)
        if k is None:
            if not any(o is p for b in fsub.bound_symbols for o in b.flat_outs):
                raise Untraceable(f"its backward reads {p.name}, which its forward did not make")
            outs.append(p)
            k = len(outs) - 1
        saved.append(~k)
    fsub.output = tuple(outs)
    fsub.bound_symbols = dce(fsub.bound_symbols, outs)
    result = ho.autograd_function((*tensors, *ffree), forward=fsub, backward=bsub, saved=tuple(saved),
                                  n_outputs=len(cts), n_declared=len(tensors), name=name, non_differentiable=non_diff,
                                  once_differentiable=once_differentiable)
    it = iter(result)
    s, is_tensor, leaves = spec
    return pytree.tree_unflatten([next(it) if t else x for t, x in zip(is_tensor, leaves)], s)


# ---------------------------------------------------------------- torch.library custom ops

def _custom_op(op):
    """(the OpOverload to record, its CustomOpDef or None) for a custom op, a packet or an overload."""
    from torch._library.custom_ops import OPDEFS, CustomOpDef

    if isinstance(op, CustomOpDef):
        return op._opoverload, op
    if isinstance(op, torch._ops.OpOverloadPacket):
        overload = op.default if op.overloads() == ["default"] else op
        return overload, OPDEFS.get(op._qualified_op_name)
    return op, OPDEFS.get(op.name()) if op._overloadname == "default" else None


def custom_op_call(I, args, kwargs):
    """A call of a ``torch.library`` op (``torch.ops.ns.name``, an overload, a ``custom_op``):
    one symbol whose meta is the op's fake kernel (ops/opaque.py); with a Python autograd
    formula (``register_autograd``) its ``setup_context`` and ``backward`` are traced like an
    autograd.Function's, else the backward asks PyTorch's autograd (the op's registered formula)."""
    from ..ops.opaque import opaque_entry

    args, kwargs = I.recorder.resolve(I, args, kwargs)
    op, rest = args[0], args[1:]
    overload, opdef = _custom_op(op)
    entry = opaque_entry(overload)
    backward = getattr(opdef, "_backward_fn", None)
    if backward is None or kwargs or not torch.is_grad_enabled() or \
            not any(isinstance(a, TensorProxy) and a.requires_grad for a in rest):
        return entry(*rest, **kwargs)
    try:
        return trace_function(I, opdef._qualname, entry, backward, tuple(rest),
                              setup_context=opdef._setup_context_fn or (lambda ctx, inputs, output: None))
    except Untraceable as why:
        I.recorder.cap.notes.append(f"{opdef._qualname}: its registered backward runs through PyTorch's autograd "
                                    f"(the op is run again in the backward) because {why}")
        return entry(*rest)


def custom_op_lookasides() -> dict:
    from torch._library.custom_ops import CustomOpDef

    return {CustomOpDef.__call__: custom_op_call, torch._ops.OpOverload.__call__: custom_op_call,
            torch._ops.OpOverloadPacket.__call__: custom_op_call}
