"""Torch-level gathers and scatters at positions held in index tensors: ``index_add``,
``index_copy``, ``index_fill``, ``index_reduce``, ``scatter_reduce``, ``take``, ``put``,
``masked_scatter``, ``index_put``, ATen's ``_unsafe_masked_index`` and
``_unsafe_masked_index_put_accumulate``, and ``nonzero_static``.

Decompositions: an ``index_*`` op along ``dim`` is its ``scatter*`` form with the 1-D index
broadcast along ``dim`` to the source's shape. Sums scatter with ``prims.scatter_add``;
products, maxima and minima with ``prims.scatter_reduce`` (which always includes the
target's own element: ``include_self=False`` first fills the positions written with the
reduction's identity); means divide a sum by the count of elements combined (rounding
down for integers, as eager). Overwrites (``index_copy``, ``put``) are ``ltorch.scatter``;
``take`` and ``masked_scatter`` gather with ``prims.take`` (``masked_scatter`` numbers the
selected positions with a ``cumsum`` of the mask). ``index_put`` (several index tensors,
boolean masks, ``None``) runs as one kernel with its own VJP rule. ``nonzero_static``'s
result has a fixed shape: each nonzero element's flat position is scattered into the slot
its running count gives, then unravelled into coordinates.

Their in-place forms (``x.index_add_(...)``, ``scatter_``, ``scatter_add_``, ``index_put_``...) are
symbols tagged ``"inplace"`` without a decomposition, like ``add_``: the executor writes into the
real tensor in program order, and autograd makes them functional as the op without ``_``.

Traits: the gathers and the scatters into a copy (``index_add``, ``index_copy``,
``index_fill``, ``take``, ``put``, ``index_put`` and the two unsafe ATen ops) are
``"indexing"``; their in-place forms add ``"inplace"``. ``index_reduce``, ``scatter_reduce``
(reductions at index positions), ``masked_scatter`` (positions counted from a mask) and
``nonzero_static`` have no trait: consumers treat them as library kernels
(``tests/ops/test_traits.py``'s NO_TRAIT lists them).
"""

from __future__ import annotations

import math
import warnings

import torch

from ..ir import TensorProxy, tensor_proxy
from ..ir.traits import INDEXING
from . import prims
from .ltorch_shape import expanded, reshaped
from .prims_shape import broadcast_shapes, canonical_dim
from .registry import OPDEFS, T, torch_op

# ---------------------------------------------------------------- helpers


def _as_vector(a):
    """A 0-d tensor as one element along dim 0 (torch's index ops accept 0-d tensors)."""
    return reshaped(a, (1,)) if a.ndim == 0 else a


def _index_vector(op, index):
    if index.ndim > 1:
        raise IndexError(f"{op}(): Index is supposed to be a vector")
    if index.dtype not in (torch.int64, torch.int32):
        raise IndexError(f"{op}(): Expected dtype int32/int64 for index")
    return reshaped(index, (index.numel(),))


def along(index, shape, d):
    """The 1-D ``index`` broadcast along dim ``d`` of ``shape`` (``index_*`` ops as ``scatter*``)."""
    return prims.broadcast_in_dim(index, shape=tuple(shape), broadcast_dimensions=(d,))


def _index_args(op, input, dim, index, source):
    """(dim, input, index, source) of an ``index_*`` op, 0-d tensors made 1-D, checked."""
    d = canonical_dim(input.ndim, dim)
    a, src, idx = _as_vector(input), _as_vector(source), _index_vector(op, index)
    if src.dtype != a.dtype:
        raise RuntimeError(f"{op}_(): self ({a.dtype}) and source ({src.dtype}) must have the same scalar type")
    if src.ndim != a.ndim or src.shape[d] != idx.shape[0] or \
            any(s != t for k, (s, t) in enumerate(zip(src.shape, a.shape)) if k != d):
        raise IndexError(f"{op}_(): source of shape {list(source.shape)} does not fit self of shape "
                         f"{list(input.shape)} with {idx.shape[0]} indices along dim {d}")
    return d, a, along(idx, src.shape, d), src


def _back(out, input):
    return reshaped(out, ()) if input.ndim == 0 else out


def _positions(index, n):
    """``index`` with negative positions counted from the end (``n`` elements)."""
    return T.where(index < 0, index + n, index)


# ---------------------------------------------------------------- index_* along a dim

@torch_op(torch.index_add, torch.Tensor.index_add, inputs=("input", "index", "source", "alpha"), method="index_add",
          tags=(INDEXING,))
def index_add(input, dim, index, source, *, alpha=1):
    """A copy of ``input`` with ``alpha * source[i]`` added at position ``index[i]`` along ``dim``."""
    d, a, idx, src = _index_args("index_add", input, dim, index, source)
    if not (isinstance(alpha, (int, float)) and alpha == 1):
        src = T.mul(src, alpha).to(a.dtype)
    return _back(prims.scatter_add(a, idx, src, dim=d), input)


@torch_op(torch.index_copy, torch.Tensor.index_copy, inputs=("input", "index", "source"), method="index_copy",
          tags=(INDEXING,))
def index_copy(input, dim, index, source):
    """A copy of ``input`` with ``source[i]`` written at position ``index[i]`` along ``dim``."""
    d, a, idx, src = _index_args("index_copy", input, dim, index, source)
    return _back(T.scatter(a, d, idx, src), input)


@torch_op(torch.index_fill, torch.Tensor.index_fill, inputs=("input", "index", "value"), method="index_fill",
          tags=(INDEXING,))
def index_fill(input, dim, index, value):
    """A copy of ``input`` with ``value`` (a number or a 0-d tensor) at the positions ``index``
    along ``dim``."""
    d = canonical_dim(input.ndim, dim)
    a = _as_vector(input)
    n = a.shape[d]
    idx = _positions(_index_vector("index_fill", index), n)
    if isinstance(value, TensorProxy) and value.ndim:
        raise RuntimeError(f"index_fill_ only supports a 0-dimensional value tensor, but got tensor with "
                           f"{value.ndim} dimension(s).")
    mask = T.scatter(prims.full(False, shape=(n,), dtype=torch.bool, device=a.device), 0, idx, True)
    return _back(T.masked_fill(a, along(mask, a.shape, d), value), input)


_REDUCTIONS = ("sum", "prod", "mean", "amax", "amin")


def _identity(reduce, dtype):
    """The element a reduction leaves unchanged (what ``include_self=False`` starts from)."""
    if reduce == "prod":
        return True if dtype == torch.bool else 1
    low = reduce == "amax"
    if dtype == torch.bool:
        return not low
    if dtype.is_floating_point:
        return -math.inf if low else math.inf
    info = torch.iinfo(dtype)
    return info.min if low else info.max


def scattered_reduction(a, d, index, src, reduce, include_self):
    """``torch.scatter_reduce(a, d, index, src, reduce, include_self=include_self)`` in prims."""
    if reduce not in _REDUCTIONS:
        raise RuntimeError(f"reduce argument must be either sum, prod, mean, amax or amin, got {reduce}")
    if src.dtype != a.dtype:
        raise RuntimeError(f"scatter(): Expected self.dtype to be equal to src.dtype")
    written = None
    if not include_self:
        written = T.scatter(prims.full(False, shape=a.shape, dtype=torch.bool, device=a.device), d, index, True)
    if reduce in ("sum", "mean"):
        base = a if written is None else T.masked_fill(a, written, 0)
        total = prims.scatter_add(base, index, src, dim=d)
        if reduce == "sum":
            return total
        ones = prims.full(1, shape=src.shape, dtype=a.dtype, device=a.device)
        count = prims.scatter_add(prims.full(1 if include_self else 0, shape=a.shape, dtype=a.dtype, device=a.device),
                                  index, ones, dim=d)
        count = T.masked_fill(count, count == 0, 1)
        if a.dtype.is_floating_point or a.dtype.is_complex:
            return total / count
        return T.div(total, count, rounding_mode="floor")
    base = a if written is None else T.masked_fill(a, written, _identity(reduce, a.dtype))
    return prims.scatter_reduce(base, index, src, dim=d, reduce=reduce)


@torch_op(torch.index_reduce, torch.Tensor.index_reduce, inputs=("input", "index", "source"), method="index_reduce")
def index_reduce(input, dim, index, source, reduce, *, include_self=True):
    """A copy of ``input`` with each ``source[i]`` combined into position ``index[i]`` along
    ``dim`` by ``reduce`` (``"prod"``, ``"mean"``, ``"amax"``, ``"amin"``)."""
    warnings.warn("index_reduce() is in beta and the API may change at any time.", UserWarning, stacklevel=3)
    if reduce not in ("prod", "mean", "amax", "amin"):
        raise RuntimeError(f"index_reduce(): Expected reduce to be one of prod, mean, amax or amin but got {reduce}.")
    d, a, idx, src = _index_args("index_reduce", input, dim, index, source)
    return _back(scattered_reduction(a, d, idx, src, reduce, include_self), input)


@torch_op(torch.scatter_reduce, torch.Tensor.scatter_reduce, inputs=("input", "index", "src"), method="scatter_reduce")
def scatter_reduce(input, dim, index, src, reduce, *, include_self=True):
    """A copy of ``input`` with each ``src[i][j]`` (``dim=0``) combined into position
    ``[index[i][j]][j]`` by ``reduce`` (``"sum"``, ``"prod"``, ``"mean"``, ``"amax"``, ``"amin"``)."""
    d = canonical_dim(input.ndim, dim)
    if input.ndim == 0:
        flat = [_as_vector(t) for t in (input, index, src)]
        return reshaped(scattered_reduction(flat[0], 0, flat[1], flat[2], reduce, include_self), ())
    return scattered_reduction(input, d, index, src, reduce, include_self)


# ---------------------------------------------------------------- flat positions

def _flat(a):
    return reshaped(a, (a.numel(),))


@torch_op(torch.take, torch.Tensor.take, inputs=("input", "index"), method="take",
          tags=(INDEXING,))
def take(input, index):
    """The elements of the flattened ``input`` at ``index`` (negative: from the end), shaped like ``index``."""
    if index.dtype != torch.int64:
        raise RuntimeError(f"take(): Expected a long tensor for index, but got {index.dtype}")
    idx = _positions(_flat(index), input.numel())
    return reshaped(prims.take(_flat(input), idx, dim=0), index.shape)


@torch_op(torch.put, torch.Tensor.put, method="put", inputs=("input", "index", "source"), tags=(INDEXING,))
def put(input, index, source, accumulate=False):
    """A copy of ``input`` with ``source``'s elements written (``accumulate``: added) at the
    positions ``index`` of its flattened form."""
    if index.dtype != torch.int64:
        raise RuntimeError(f"put_(): Expected a long tensor for index, but got {index.dtype}")
    if source.dtype != input.dtype:
        raise RuntimeError(f"put_(): self and source expected to have the same dtype, but got self.dtype = "
                           f"{input.dtype} and source.dtype = {source.dtype}")
    if index.numel() != source.numel():
        raise RuntimeError(f"put_(): Expected source and index to have the same number of elements, but got "
                           f"source.numel() = {source.numel()}, index.numel() = {index.numel()}")
    flat, idx, src = _flat(input), _positions(_flat(index), input.numel()), _flat(source)
    out = prims.scatter_add(flat, idx, src, dim=0) if accumulate else T.scatter(flat, 0, idx, src)
    return reshaped(out, input.shape)


@torch_op(torch.masked_scatter, torch.Tensor.masked_scatter, inputs=("input", "mask", "source"),
          method="masked_scatter")
def masked_scatter(input, mask, source):
    """``input`` (broadcast with ``mask``) with the positions where ``mask`` is True taking the
    elements of ``source`` in order."""
    if mask.dtype != torch.bool:
        raise RuntimeError(f"masked_scatter_ only supports boolean masks, but got mask with dtype {mask.dtype}")
    if source.dtype != input.dtype:
        raise RuntimeError(f"masked_scatter_: expected self and source to have same dtypes but got {input.dtype} and "
                           f"{source.dtype}")
    shape = broadcast_shapes(input.shape, mask.shape, name="masked_scatter")
    a, m = expanded(input, shape), expanded(mask, shape)
    if source.numel() == 0:  # nothing to take: only a mask without True positions is valid
        return T.clone(a)
    flat_m = _flat(m)
    picked = T.where(flat_m, T.cumsum(flat_m, 0) - 1, 0)
    return T.where(m, reshaped(prims.take(_flat(source), picked, dim=0), shape), a)


# ---------------------------------------------------------------- several index tensors

@torch_op(torch.index_put, torch.Tensor.index_put, inputs=("input", "indices", "values"), method="index_put",
          tags=(INDEXING,))
def index_put(input, indices, values, accumulate=False):
    """A copy of ``input`` with ``values`` written (``accumulate``: added) at ``input[indices]``
    (index tensors, boolean masks or None per dim); no decomposition."""


def _clamped(input, indices):
    """``indices`` clamped into each dim's range (``None`` kept), as ATen's unsafe ops read them."""
    return [None if i is None else T.clamp(i, 0, input.shape[k] - 1) for k, i in enumerate(indices)]


def _index_tuple(indices):
    return tuple(slice(None) if i is None else i for i in indices)


@torch_op(torch._unsafe_masked_index, inputs=("input", "mask", "indices", "fill"),
          tags=(INDEXING,))
def _unsafe_masked_index(input, mask, indices, fill):
    """``input[indices]`` (indices clamped in range) where ``mask``, else ``fill``."""
    if input.numel() == 0:
        from .ltorch_indexing import _getitem_meta

        shape = _getitem_meta(input, _index_tuple(indices)).shape
        return prims.full(fill, shape=shape, dtype=input.dtype, device=input.device)
    return T.masked_fill(input[_index_tuple(_clamped(input, indices))], T.logical_not(mask), fill)


@torch_op(torch._unsafe_masked_index_put_accumulate, inputs=("input", "mask", "indices", "values"),
          tags=(INDEXING,))
def _unsafe_masked_index_put_accumulate(input, mask, indices, values):
    """``input`` with ``values`` added at ``input[indices]`` (clamped in range) where ``mask``."""
    return index_put(input, _clamped(input, indices), T.masked_fill(values, T.logical_not(mask), 0), True)


# ---------------------------------------------------------------- nonzero with a fixed size

@torch_op(torch.nonzero_static, torch.Tensor.nonzero_static, method="nonzero_static")
def nonzero_static(input, *, size, fill_value=-1):
    """The coordinates of the first ``size`` nonzero elements (row-major order), one row each,
    rows past the last nonzero element filled with ``fill_value``: shape (size, input.ndim)."""
    if size < 0:
        raise RuntimeError(f"nonzero_static: 'size' must be an non-negative integer, but got size: {size}")
    n = input.numel()
    if n == 0:
        return prims.full(fill_value, shape=(size, input.ndim), dtype=torch.int64, device=input.device)
    nonzero = _flat(input != 0)
    slot = T.cumsum(nonzero, 0) - 1
    kept = T.logical_and(nonzero, slot < size)
    target = T.where(kept, slot, size)  # the rest go to one extra slot, dropped below
    where = prims.iota(n, start=0, step=1, dtype=torch.int64, device=input.device)
    empty = prims.full(-1, shape=(size + 1,), dtype=torch.int64, device=input.device)
    linear = reshaped(T.scatter(empty, 0, target, where)[:size], (size, 1))
    if input.ndim == 0:
        return prims.full(0, shape=(size, 0), dtype=torch.int64, device=input.device)
    strides = [math.prod(input.shape[k + 1:]) for k in range(input.ndim)]
    coords = T.cat([T.remainder(T.div(linear, s, rounding_mode="floor"), d) for s, d in zip(strides, input.shape)], 1)
    return T.where(linear < 0, fill_value, coords)


# ---------------------------------------------------------------- in-place forms

def _inplace_meta(sid):
    """Meta of an in-place scatter: torch checks the call on fake tensors (without grad: fake
    inputs are leaves, and torch refuses in-place ops on leaves that require grad), and the
    result is the target's metadata."""
    from ..ir import Trace, tracing
    from ..ir.proxies import flat_proxies
    from .registry import TORCH_IMPLS, fake_meta

    def plain(x):
        if isinstance(x, TensorProxy):
            return x.replace(requires_grad=False)
        return type(x)(plain(y) for y in x) if type(x) in (list, tuple) else x

    def meta(*args, **kwargs):
        target = args[0]
        with tracing(Trace("inplace_check")):
            fake_meta(lambda p, k: TORCH_IMPLS[sid](*p, **k))(*plain(args), **kwargs)
        grad = target.requires_grad or (torch.is_grad_enabled() and target.dtype.is_floating_point and any(
            isinstance(p, TensorProxy) and p.requires_grad for p in flat_proxies(args)))
        return tensor_proxy(target.shape, target.dtype, target.device, grad)
    return meta


def _define_inplace(name):
    """``Tensor.<name>_``: the op ``ltorch.<name>`` writing into its first argument (no
    decomposition: run in place by the executor, in program order; autograd makes it functional
    as ``ltorch.<name>``)."""
    base = OPDEFS[f"ltorch.{name}"]
    fns = [f for f in (getattr(torch.Tensor, name + "_", None), getattr(torch, name + "_", None)) if f is not None]

    def inplace(*args, **kwargs):
        """Runs as one op, in place, in program order."""
    inplace.__signature__ = base.signature
    # its op's traits plus "inplace" (view excluded: none of these is one)
    torch_op(*fns, inputs=base.inputs, method=name + "_", name=name + "_", tags=("inplace", *base.symbol.tags),
             meta=_inplace_meta(f"ltorch.{name}_"), impl=lambda a, k: fns[0](*a, **k))(inplace)


for _name in ("index_add", "index_copy", "index_fill", "index_reduce", "scatter_reduce", "masked_scatter", "put",
              "index_put", "scatter", "scatter_add"):
    _define_inplace(_name)
del _name
