"""Shape and indexing primitives: ops that move, select or combine elements without
computing new values (reshape, transpose, slice, squeeze, pad, cat, flip, take, gather,
scatter_add).

Conventions shared by every primitive here: dims are non-negative and already checked
against the input's rank (torch-level ops canonicalise negative dims with
:func:`canonical_dim`); shapes are tuples of ints with no ``-1``; the output keeps the
input's dtype and device. Torch-level ops give users torch's own error messages before
reaching these, so the errors here speak of the primitive.

The helpers :func:`canonical_dim`, :func:`canonical_dims` and :func:`result` are shared by
the shape, indexing, reduction and creation primitives.

Traits: ``reshape``, ``transpose``, ``slice`` and ``squeeze`` are ``"view"``; ``pad``, ``cat``
and ``flip`` are ``"shape"``. ``take``, ``gather`` and ``scatter_add`` are ``"indexing"``: the
positions they read or add into are the values of an index tensor.
"""

from __future__ import annotations

from ..ir.printing import describe

import math

import torch

from ..ir import TensorProxy, tensor_proxy
from ..ir.traits import INDEXING, SHAPE, VIEW
from .registry import prim

__all__ = ["canonical_dim", "canonical_dims", "result"]


def canonical_dim(ndim: int, dim: int, *, wrap_scalar: bool = True) -> int:
    """``dim`` as a non-negative index into ``ndim`` dims, with torch's error when out of
    range. Like torch, a 0-d tensor accepts dims 0 and -1 (when ``wrap_scalar``)."""
    if isinstance(dim, bool) or not isinstance(dim, int):
        raise TypeError(f"A dimension must be an int, got {dim!r} ({type(dim).__name__}).")
    n = max(ndim, 1) if wrap_scalar else ndim
    if not -n <= dim < n:
        if n == 0:
            raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
        raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {dim})")
    return dim % n


def canonical_dims(ndim: int, dims, *, what: str = "dim") -> tuple[int, ...]:
    """A sequence of dims made non-negative (``canonical_dim``), in the given order; raises
    if one appears twice, like torch."""
    out = tuple(canonical_dim(ndim, d) for d in dims)
    if len(set(out)) != len(out):
        raise RuntimeError(f"{what} {tuple(dims)} names a dimension more than once.")
    return out


def result(shape, dtype: torch.dtype, device, *inputs) -> TensorProxy:
    """A fresh output proxy; it requires grad when grad mode is on, some tensor input requires
    grad and ``dtype`` can carry gradients (floating point or complex), as in eager."""
    rg = (dtype.is_floating_point or dtype.is_complex) and torch.is_grad_enabled() and any(
        isinstance(t, TensorProxy) and t.requires_grad for t in inputs)
    return tensor_proxy(tuple(shape), dtype, device, rg)


def _check_tensor(name: str, a) -> None:
    if not isinstance(a, TensorProxy):
        raise TypeError(f"prims.{name}: expected a tensor, got {describe(a)}.")


def _check_dims(name: str, a: TensorProxy, dims, *, unique: bool = True) -> tuple[int, ...]:
    dims = tuple(dims)
    if any(isinstance(d, bool) or not isinstance(d, int) or not 0 <= d < a.ndim for d in dims):
        raise ValueError(f"prims.{name}: dims {dims} must be ints in [0, {a.ndim}) for {a.name} of shape "
                         f"{list(a.shape)} (canonicalise negative dims before calling a primitive).")
    if unique and len(set(dims)) != len(dims):
        raise ValueError(f"prims.{name}: dims {dims} repeat a dimension.")
    return dims


def broadcast_shapes(*shapes, name: str = "broadcast") -> tuple[int, ...]:
    """The shape ``shapes`` broadcast to (symbolic sizes: each "equal" or "is 1" is a guarded predicate) (aligned at the right; sizes must match or be 1)."""
    out = [1] * max(map(len, shapes), default=0)
    for s in shapes:
        for i, d in enumerate(s, len(out) - len(s)):
            if d != 1:
                if out[i] not in (1, d):
                    raise RuntimeError(f"{name}: the shapes {', '.join(repr(list(x)) for x in shapes)} cannot be "
                                     f"broadcast together: sizes {out[i]} and {d} meet in dimension {i} of the result "
                                     f"(sizes must match or be 1).")
                out[i] = d
    return tuple(out)


def same_shape(a, b) -> bool:
    """``tuple(a) == tuple(b)``, ranks first: Python compares tuples item by item before their
    lengths, so ``(3,) == (n, 3)`` would guard ``n == 3`` of a symbolic size for an outcome
    that cannot matter (and compile again for a batch of 3)."""
    return len(a) == len(b) and tuple(a) == tuple(b)


def _check_shape(name: str, shape) -> tuple[int, ...]:
    shape = tuple(shape)
    if any(isinstance(s, bool) or not isinstance(s, int) or s < 0 for s in shape):
        raise ValueError(f"prims.{name}: shape {shape} must be non-negative ints (resolve -1 before calling a "
                         "primitive).")
    return shape


def _check_index(name: str, index) -> None:
    _check_tensor(name, index)
    if index.dtype not in (torch.int64, torch.int32):
        raise TypeError(f"prims.{name}: index {index.name} must be int64 or int32, not {index.dtype}.")


@prim(tags=(VIEW,))
def reshape(a, *, shape):
    """``a`` with its elements in row-major order laid out as ``shape`` (same number of elements)."""
    _check_tensor("reshape", a)
    shape = _check_shape("reshape", shape)
    if math.prod(shape) != a.numel():
        raise ValueError(f"prims.reshape: shape {list(shape)} has {math.prod(shape)} elements but {a.name} of "
                         f"shape {list(a.shape)} has {a.numel()}.")
    return result(shape, a.dtype, a.device, a)


@prim(tags=(VIEW,))
def transpose(a, *, permutation):
    """``a`` with its dims reordered: output dim ``i`` is input dim ``permutation[i]``."""
    _check_tensor("transpose", a)
    perm = _check_dims("transpose", a, permutation)
    if len(perm) != a.ndim:
        raise ValueError(f"prims.transpose: permutation {perm} must name each of the {a.ndim} dims of {a.name} once.")
    return result([a.shape[d] for d in perm], a.dtype, a.device, a)


@prim(tags=(VIEW,))
def slice_(a, *, start_indices, end_indices, strides=None):
    """Elements ``start_indices[d] <= i < end_indices[d]`` with step ``strides[d]`` along each dim d."""
    _check_tensor("slice", a)
    strides = (1,) * a.ndim if strides is None else tuple(strides)
    if not len(start_indices) == len(end_indices) == len(strides) == a.ndim:
        raise ValueError(f"prims.slice: start_indices, end_indices and strides need one entry per dim of {a.name} "
                         f"({a.ndim}), got {start_indices}, {end_indices}, {strides}.")
    shape = []
    for d, (lo, hi, st, n) in enumerate(zip(start_indices, end_indices, strides, a.shape)):
        if not (0 <= lo <= hi <= n and st >= 1):
            raise ValueError(f"prims.slice: dim {d} of {a.name} (size {n}) needs 0 <= start <= end <= size and "
                             f"stride >= 1, got start {lo}, end {hi}, stride {st}.")
        shape.append((hi - lo + st - 1) // st)
    return result(shape, a.dtype, a.device, a)


@prim(tags=(VIEW,))
def squeeze(a, *, dims):
    """``a`` without the listed dims, each of which must have size 1."""
    _check_tensor("squeeze", a)
    dims = _check_dims("squeeze", a, dims)
    bad = [d for d in dims if a.shape[d] != 1]
    if bad:
        raise ValueError(f"prims.squeeze: dims {bad} of {a.name} (shape {list(a.shape)}) do not have size 1.")
    return result([s for d, s in enumerate(a.shape) if d not in dims], a.dtype, a.device, a)


@prim(tags=(SHAPE,))
def pad(a, padding_value, *, padding_config):
    """``a`` padded with ``padding_value``: ``padding_config[d] = (lo, hi, interior)`` adds
    ``lo``/``hi`` elements before/after dim d (negative values crop) and ``interior``
    elements between neighbours, as in XLA's Pad."""
    _check_tensor("pad", a)
    if len(padding_config) != a.ndim:
        raise ValueError(f"prims.pad: padding_config needs one (lo, hi, interior) per dim of {a.name} ({a.ndim}), "
                         f"got {padding_config}.")
    shape = []
    for d, ((lo, hi, interior), n) in enumerate(zip(padding_config, a.shape)):
        size = lo + hi + n + (max(n - 1, 0) * interior if interior else 0)  # (no guard on n for none)
        if interior < 0 or size < 0:
            raise ValueError(f"prims.pad: dim {d} of {a.name} (size {n}) with (lo, hi, interior) = "
                             f"{(lo, hi, interior)} needs interior >= 0 and a non-negative result size.")
        shape.append(size)
    return result(shape, a.dtype, a.device, a)


@prim(tags=(SHAPE,))
def cat(tensors, *, dim):
    """The tensors (same dtype, device, rank; equal sizes except along ``dim``) joined along ``dim``."""
    tensors = list(tensors)
    if not tensors:
        raise ValueError("prims.cat: needs at least one tensor.")
    for t in tensors:
        _check_tensor("cat", t)
    first = tensors[0]
    _check_dims("cat", first, (dim,))
    for t in tensors[1:]:
        same = t.ndim == first.ndim and all(s == u for d, (s, u) in enumerate(zip(t.shape, first.shape)) if d != dim)
        if not same or t.dtype != first.dtype or t.device != first.device:
            raise ValueError(f"prims.cat: {t.name} ({list(t.shape)} {t.dtype} {t.device}) does not match "
                             f"{first.name} ({list(first.shape)} {first.dtype} {first.device}) outside dim {dim}.")
    shape = list(first.shape)
    shape[dim] = sum(t.shape[dim] for t in tensors)
    return result(shape, first.dtype, first.device, *tensors)


@prim(tags=(SHAPE,))
def flip(a, *, dims):
    """``a`` with the order of elements reversed along each of ``dims``."""
    _check_tensor("flip", a)
    _check_dims("flip", a, dims)
    return result(a.shape, a.dtype, a.device, a)


@prim(tags=(INDEXING,))
def take(a, index, *, dim):
    """``index_select``: the slices of ``a`` at positions ``index`` (1-D, int) along ``dim``."""
    _check_tensor("take", a)
    _check_index("take", index)
    _check_dims("take", a, (dim,))
    if index.ndim != 1:
        raise ValueError(f"prims.take: index {index.name} must be 1-D, got shape {list(index.shape)}.")
    shape = list(a.shape)
    shape[dim] = index.shape[0]
    return result(shape, a.dtype, a.device, a)


@prim(tags=(INDEXING,))
def gather(a, index, *, dim):
    """``out[i][j] = a[index[i][j]][j]`` for ``dim=0`` (and so on): ``torch.gather``."""
    _check_tensor("gather", a)
    _check_index("gather", index)
    _check_dims("gather", a, (dim,))
    if index.ndim != a.ndim or any(i > s for d, (i, s) in enumerate(zip(index.shape, a.shape)) if d != dim):
        raise ValueError(f"prims.gather: index {index.name} (shape {list(index.shape)}) must have the rank of "
                         f"{a.name} (shape {list(a.shape)}) and no larger size outside dim {dim}.")
    return result(index.shape, a.dtype, a.device, a)


@prim(tags=(INDEXING,))
def scatter_add(a, index, src, *, dim):
    """A copy of ``a`` with ``src[i][j]`` added at ``[index[i][j]][j]`` for ``dim=0`` (and so on)."""
    for t in (a, src):
        _check_tensor("scatter_add", t)
    _check_index("scatter_add", index)
    _check_dims("scatter_add", a, (dim,))
    _check_scatter_src("scatter_add", a, index, src, dim)
    return result(a.shape, a.dtype, a.device, a, src)


def _check_scatter_src(name, a, index, src, dim):
    """A scatter's ``src`` matches ``a``'s dtype and device, and ``index`` has their rank and
    fits in both (in ``a`` outside ``dim``)."""
    if src.dtype != a.dtype or src.device != a.device:
        raise ValueError(f"prims.{name}: src {src.name} ({src.dtype}, {src.device}) must match {a.name} "
                         f"({a.dtype}, {a.device}).")
    ok = index.ndim == a.ndim == src.ndim and all(
        i <= s and (d == dim or i <= t) for d, (i, s, t) in enumerate(zip(index.shape, src.shape, a.shape)))
    if not ok:
        raise ValueError(f"prims.{name}: index {index.name} (shape {list(index.shape)}) must have the rank of "
                         f"{a.name} and {src.name} and fit in both.")
