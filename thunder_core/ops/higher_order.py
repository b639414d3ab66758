"""Higher-order symbols: ops that take functions, held as sub-traces.

A higher-order bound symbol holds its functions as closed :class:`~thunder_core.ir.Trace`
values among its keyword arguments (static metadata; ``ir.trace.subtraces(bsym)`` lists
them). Each sub-trace's inputs are given by the call's positional arguments, in order, and it
returns a tuple. The printed trace defines each sub-trace as a function above the trace's own
and passes it by name::

    def cond_true0(x, w):
      t3 = ltorch.mul(x, w)
      return (t3,)
    ...
    (t5,) = higher_order.cond(b2, (x, w), true_fn=cond_true0, false_fn=cond_false0)

The symbols (calling convention: tensors positional, functions and static values by keyword):

``higher_order.cond(pred, operands, *, true_fn, false_fn)``
    ``true_fn(*operands)`` if the boolean tensor ``pred`` holds, else ``false_fn(*operands)``;
    both return tensors with the same metadata.
``higher_order.while_loop(carries, additional, *, cond_fn, body_fn)``
    ``while cond_fn(*c, *additional)[0]: c = body_fn(*c, *additional)``, from ``c = carries``;
    ``body_fn`` returns carries with their metadata.
``higher_order.scan(init, xs, additional, *, combine_fn, dim, reverse, saves_carries=False)``
    for each slice ``x`` of the ``xs`` along ``dim`` (last to first with ``reverse``):
    ``(*c, *y) = combine_fn(*c, *x, *additional)``; returns ``(*c, *ys)``, the ``y``\\ s stacked
    along ``dim`` in the order of ``xs`` (where eager stacks them, see :func:`stack_dim`).
    With ``saves_carries`` (the training forward) it returns ``((*c, *ys), carries)``, the
    carries each step started from, stacked along the first dimension.
``higher_order.autograd_function(inputs, *, forward, backward, saved, n_outputs, n_declared, name, ...)``
    a user's ``torch.autograd.Function``: ``forward(*inputs)`` returns its outputs (the first
    ``n_outputs``) and the forward values its backward reads; ``backward(*cotangents, *saved
    values)`` returns one gradient (or None) per declared input (the first ``n_declared``
    inputs; the others are tensors the forward read from elsewhere). ``saved`` says where each
    saved value is: input ``i`` (``i >= 0``) or output ``~i``. Its VJP rule records ``backward``
    inline (transforms/vjp_higher_order.py).
``higher_order.while_loop_vjp(carries, additional, cotangents, *, cond_fn, body_fn, body_vjp, wrt)``
    the gradients of a ``while_loop`` (see transforms/vjp_higher_order.py): the loop runs
    again, keeping each step's carries, then ``body_vjp`` runs backwards over the steps.

:data:`IMPLS` runs each one in Python, calling the sub-traces' compiled functions (an
executor running whole traces, the torch one, takes them through
``thunder_core.extend.higher_order_impls``). What transforms and executors do with them:
docs/higher-order-ops.md.
"""

from __future__ import annotations

import contextlib
import functools

import torch

from ..ir import Symbol, TensorProxy, Trace, TracingError, tensor_proxy
from ..ir.printing import NAMESPACES
from ..ir.proxies import flat_proxies

NAMESPACES.setdefault("higher_order", "thunder_core.ops.higher_order")

__all__ = ["cond", "while_loop", "scan", "while_loop_vjp", "autograd_function", "IMPLS", "HIGHER_ORDER", "stack_dim"]

#: the tag every higher-order symbol carries (not an op trait: executors that fuse leave them alone)
HIGHER_ORDER = "higher-order"


def _tensors(xs) -> list:
    return [p for p in flat_proxies(xs) if isinstance(p, TensorProxy)]


def _differentiable(t) -> bool:
    return t.dtype.is_floating_point or t.dtype.is_complex


def _like(p: TensorProxy, requires_grad: bool, shape=None) -> TensorProxy:
    rg = requires_grad and _differentiable(p) and torch.is_grad_enabled()
    return tensor_proxy(p.shape if shape is None else shape, p.dtype, p.device, rg)


def _check_sub(name: str, sub, n_inputs: int):
    if not isinstance(sub, Trace):
        raise TracingError(f"higher-order symbol argument {name}= must be a Trace (a sub-trace), not "
                           f"{type(sub).__qualname__}.")
    if len(sub.args) != n_inputs or sub.kwargs:
        raise TracingError(f"{name}={sub.name} takes {len(sub.args)} inputs, but the call passes {n_inputs}.")
    if type(sub.output) is not tuple:
        raise TracingError(f"{name}={sub.name} must return a tuple (of tensors), not {type(sub.output).__name__}.")


def _cond_meta(pred, operands, *, true_fn, false_fn):
    _check_sub("true_fn", true_fn, len(operands))
    _check_sub("false_fn", false_fn, len(operands))
    any_rg = any(p.requires_grad for p in _tensors(operands))
    return tuple(_like(t, any_rg and (t.requires_grad or f.requires_grad))
                 for t, f in zip(true_fn.output, false_fn.output))


def _while_meta(carries, additional, *, cond_fn, body_fn):
    n = len(carries) + len(additional)
    _check_sub("cond_fn", cond_fn, n)
    _check_sub("body_fn", body_fn, n)
    any_rg = any(p.requires_grad for p in _tensors((carries, additional)))
    return tuple(_like(c, c.requires_grad or (any_rg and o.requires_grad)) for c, o in zip(carries, body_fn.output))


def stack_dim(p, dim: int) -> int:
    """Where scan stacks the per-step values of ``p``: eager's rule, which depends on the
    version of torch: at ``dim`` when the stacked tensor has that dimension, else first (torch
    2.13), or always first (torch 2.10)."""
    return dim if dim <= p.ndim and _scan_stacks_at_dim() else 0


@functools.cache
def _scan_stacks_at_dim() -> bool:
    # asked of torch's own reference scan, on meta tensors (no compile, nothing computed)
    try:
        from torch._higher_order_ops.scan import _fake_scan

        _, ys = _fake_scan(lambda c, x: (c, x.clone()), init=torch.empty(1, device="meta"),
                           xs=torch.empty(2, 5, device="meta"), dim=1)
        return tuple(ys.shape) == (2, 5)
    except Exception:  # noqa: BLE001 - a torch without it: the current rule
        return True


def _stacked(p, n, dim, requires_grad):
    shape = list(p.shape)
    shape.insert(dim, n)
    return _like(p, requires_grad, tuple(shape))


def _scan_meta(init, xs, additional, *, combine_fn, dim=0, reverse=False, saves_carries=False):
    _check_sub("combine_fn", combine_fn, len(init) + len(xs) + len(additional))
    any_rg = any(p.requires_grad for p in _tensors((init, xs, additional)))
    n = xs[0].shape[dim]
    carries = tuple(_like(c, c.requires_grad or (any_rg and o.requires_grad))
                    for c, o in zip(init, combine_fn.output))
    ys = tuple(_stacked(y, n, stack_dim(y, dim), any_rg and y.requires_grad) for y in combine_fn.output[len(init):])
    if saves_carries:  # training: also the carries each step started from, stacked first (for the backward)
        return (*carries, *ys), tuple(_stacked(c, n, 0, False) for c in init)
    return (*carries, *ys)


def _while_vjp_meta(carries, additional, cotangents, *, cond_fn, body_fn, body_vjp, wrt):
    inputs = (*carries, *additional)
    return tuple(_like(inputs[i], False) for i in wrt)


def _function_meta(inputs, *, forward, backward, saved, n_outputs, n_declared, name, non_differentiable=(),
                   once_differentiable=False):
    _check_sub("forward", forward, len(inputs))
    any_rg = any(p.requires_grad for p in _tensors(inputs[:n_declared]))
    return tuple(_like(o, any_rg and j < n_outputs and j not in non_differentiable)
                 for j, o in enumerate(forward.output))


_TAGS = frozenset({HIGHER_ORDER})
cond = Symbol("cond", _cond_meta, "higher_order.cond", module="higher_order", tags=_TAGS)
while_loop = Symbol("while_loop", _while_meta, "higher_order.while_loop", module="higher_order", tags=_TAGS)
scan = Symbol("scan", _scan_meta, "higher_order.scan", module="higher_order", tags=_TAGS)
autograd_function = Symbol("autograd_function", _function_meta, "higher_order.autograd_function",
                           module="higher_order", tags=_TAGS)
while_loop_vjp = Symbol("while_loop_vjp", _while_vjp_meta, "higher_order.while_loop_vjp", module="higher_order",
                        tags=_TAGS)


# ---------------------------------------------------------------- running them (Python control flow)

def _run_cond(pred, operands, *, true_fn, false_fn):
    return (true_fn if pred else false_fn)(*operands)


def _run_while(carries, additional, *, cond_fn, body_fn):
    c = tuple(carries)
    ran = False
    while cond_fn(*c, *additional)[0]:
        c = body_fn(*c, *additional)
        ran = True
    # (no step ran: eager gives new tensors, never the carried inputs themselves)
    return c if ran else tuple(t.clone() for t in c)


def _scan_steps(init, xs, additional, combine_fn, dim, reverse):
    """The carries before each step, in the order the steps ran, and the final outputs."""
    n = xs[0].shape[dim]
    c, steps = tuple(init), []
    for i in (range(n - 1, -1, -1) if reverse else range(n)):
        out = combine_fn(*c, *(x.select(dim, i) for x in xs), *additional)
        steps.append((c, out[len(init):]))
        c = out[:len(init)]
    return c, steps


def _run_scan(init, xs, additional, *, combine_fn, dim=0, reverse=False, saves_carries=False):
    c, steps = _scan_steps(init, xs, additional, combine_fn, dim, reverse)
    if reverse:
        steps.reverse()
    ny = len(steps[0][1]) if steps else 0
    out = (*c, *(torch.stack(ys, stack_dim(ys[0], dim)) for ys in ([s[1][k] for s in steps] for k in range(ny))))
    if saves_carries:
        return out, tuple(torch.stack([s[0][k] for s in steps]) for k in range(len(init)))
    return out


def _run_while_vjp(carries, additional, cotangents, *, cond_fn, body_fn, body_vjp, wrt):
    # The loop runs again keeping each step's carries (the number of steps is only known by
    # running it), then the body's VJP runs from the last step to the first.
    c, history = tuple(carries), []
    while cond_fn(*c, *additional)[0]:
        history.append(c)
        c = body_fn(*c, *additional)
    nc = len(carries)
    grads = {i: g for i, g in zip((i for i in wrt if i < nc), cotangents)}
    acc = {i: None for i in wrt if i >= nc}
    for c in reversed(history):
        step = body_vjp(*c, *additional, *(grads[i] for i in wrt if i < nc))
        new = dict(zip(wrt, step))
        for i in acc:
            acc[i] = new[i] if acc[i] is None else acc[i] + new[i]
        grads = {i: new[i] for i in wrt if i < nc}
    inputs = (*carries, *additional)
    return tuple(grads[i] if i < nc else (acc[i] if acc[i] is not None else torch.zeros_like(inputs[i]))
                 for i in wrt)


class _TracedFunction(torch.autograd.Function):
    """A traced ``autograd.Function`` where PyTorch's autograd differentiates the executed ops
    (a compile not split into forward and backward traces, double backward): its traced
    backward, as eager runs the user's."""

    @staticmethod
    def forward(ctx, k, *inputs):
        outs = k["forward"](*inputs)
        ctx.k, ctx.n_free = k, len(inputs) - k["n_declared"]
        ctx.save_for_backward(*(inputs[i] if i >= 0 else outs[~i] for i in k["saved"]))
        n = k["n_outputs"]
        ctx.mark_non_differentiable(*(o for j, o in enumerate(outs) if j >= n or j in k["non_differentiable"]))
        return tuple(outs)

    @staticmethod
    def backward(ctx, *grads):
        k = ctx.k
        with torch.no_grad() if k["once_differentiable"] else contextlib.nullcontext():
            grads = k["backward"](*grads[:k["n_outputs"]], *ctx.saved_tensors)
        return (None, *grads, *(None for _ in range(ctx.n_free)))


def _run_function(inputs, **k):
    if torch.is_grad_enabled() and any(t.requires_grad for t in inputs[:k["n_declared"]]):
        return _TracedFunction.apply({"non_differentiable": (), "once_differentiable": False, **k}, *inputs)
    return k["forward"](*inputs)


#: symbol id -> its implementation in Python (sub-traces arrive as compiled functions)
IMPLS = {"higher_order.cond": _run_cond, "higher_order.while_loop": _run_while, "higher_order.scan": _run_scan,
         "higher_order.while_loop_vjp": _run_while_vjp, "higher_order.autograd_function": _run_function}
