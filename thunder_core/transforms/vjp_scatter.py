"""VJP rules of scatters and gathers at data-dependent positions, and of sliding windows
(imported by ``vjp_ltorch.py``; see ``vjp.py`` for the rule contract).

``prims.scatter_reduce`` follows eager's ``scatter_reduce`` backward: a maximum or minimum
shares its gradient evenly among the elements equal to it; a product's gradient is the
product of the others (computed without dividing by zero where one element is zero).
``ltorch.scatter`` and ``ltorch.index_put`` pass the gradient to the positions not written
and gather it for the written values. ``ltorch.tensor_unfold`` (``Tensor.unfold``) keeps its
forward whole (eager's view) and sums each window's gradient back with ``index_add``.
"""

from __future__ import annotations

import torch

from ..ir import TensorProxy
from ..ops import prims
from ..ops.ltorch_strided import check_unfold, window_index
from ..ops.prims_shape import canonical_dim
from ..ops.registry import T
from .vjp import sum_to, torch_vjp_rule, vjp


def _used(src, index):
    """The part of ``src`` a scatter reads: its leading ``index.shape`` block."""
    if tuple(src.shape) == tuple(index.shape):
        return src
    return prims.slice(src, start_indices=(0,) * src.ndim, end_indices=tuple(index.shape))


def _fit(g, shape):
    """``g`` (shaped like a scatter's index) padded with zeros to the source's ``shape``."""
    if tuple(g.shape) == tuple(shape):
        return g
    return prims.pad(g, 0, padding_config=tuple((0, s - i, 0) for s, i in zip(shape, g.shape)))


@vjp("prims.scatter_reduce")
def _(b, g):
    a, index, src = b.args
    d, reduce, out = b.kwargs["dim"], b.kwargs["reduce"], b.output
    used = _used(src, index)
    if reduce in ("amax", "amin"):
        value = prims.gather(out, index, dim=d)
        a_is, src_is = a == out, used == value
        ties = prims.scatter_add(a_is.to(g.dtype), index, src_is.to(g.dtype), dim=d)
        share = g / ties
        return T.where(a_is, share, 0.0), None, _fit(T.where(src_is, prims.gather(share, index, dim=d), 0.0),
                                                     src.shape)
    # prod: the product of the other elements, found again where an element is zero
    a_zero = a == 0
    ga = g * prims.scatter_reduce(T.where(a_zero, 1, a), index, used, dim=d, reduce="prod") / T.where(a_zero, 1, a)
    src_zero = used == 0
    zeros = prims.full(0, shape=tuple(a.shape), dtype=a.dtype, device=a.device)
    zeros_in_slot = prims.gather(prims.scatter_add(zeros, index, src_zero.to(a.dtype), dim=d), index, dim=d)
    single_zero = T.logical_and(src_zero, zeros_in_slot == 1)
    without = prims.scatter_reduce(a, index, T.where(single_zero, 1, used), dim=d, reduce="prod")
    gsrc = T.where(single_zero, prims.gather(g * without, index, dim=d),
                   prims.gather(g * out, index, dim=d) / T.where(src_zero, 1, used))
    return ga, None, _fit(gsrc, src.shape)


@vjp("ltorch.scatter")
def _(b, g):
    if b.kwargs.get("reduce") is not None:
        return torch_vjp_rule(b, g)
    x, index, src = b.args
    d = canonical_dim(x.ndim, b.kwargs["dim"])
    gx = T.scatter(g, d, index, 0)
    gsrc = _fit(T.gather(g, d, index), src.shape) if isinstance(src, TensorProxy) else None
    return gx, None, gsrc


@vjp("ltorch.index_put")
def _(b, g):
    x, indices, values = b.args
    if any(i is not None and i.dtype in (torch.bool, torch.uint8) for i in indices):
        return torch_vjp_rule(b, g)  # a mask selects a data-dependent number of elements
    accumulate = b.kwargs.get("accumulate", False)
    zero = prims.full(0, shape=(), dtype=g.dtype, device=g.device)
    gx = g if accumulate else T.index_put(g, indices, zero)
    gv = sum_to(g[tuple(slice(None) if i is None else i for i in indices)], values.shape)
    return gx, [None] * len(indices), gv


@vjp("ltorch.tensor_unfold")
def _(b, g):
    x, k = b.args[0], b.kwargs
    d, n = check_unfold(x, k["dimension"], k["size"], k["step"])
    if x.ndim == 0:
        return (T.sum(g).reshape(()),)
    index, count = window_index(n, k["size"], k["step"], g.device)
    windows = T.movedim(g, -1, d + 1).reshape(*x.shape[:d], count * k["size"], *x.shape[d + 1:])
    return (T.index_add(T.zeros(x.shape, dtype=g.dtype, device=g.device), d, index, windows),)
