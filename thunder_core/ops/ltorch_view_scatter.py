"""Torch-level scatters into views: ``slice_scatter``, ``select_scatter``, ``diagonal_scatter``
(a copy of ``input`` whose slice, selected index or diagonal holds ``src``) and
``as_strided_scatter``.

The first three decompose without index tensors: ``src`` is padded (``prims.pad``, zeros
between and around its elements) to ``input``'s shape, a mask built from ``iota``
comparisons (or the same padding of a tensor of True) marks the positions it fills, and
``where`` picks ``src`` there and ``input`` elsewhere; gradients follow from ``where``, ``pad``
and ``slice``. ``as_strided_scatter`` writes through strides of the real tensor's memory,
which traces do not model: it has no decomposition (its gradient is PyTorch's).

Traits: ``slice_scatter``, ``select_scatter`` and ``diagonal_scatter`` are ``"shape"`` (values
placed at positions fixed by static arguments); ``as_strided_scatter`` has none (positions
depend on the memory layout).
"""

from __future__ import annotations

import torch

from ..ir.traits import SHAPE
from . import prims
from .ltorch_indexing import _slice_bounds
from .ltorch_pad import diagonal_matrices
from .prims_shape import canonical_dim
from .registry import T, torch_op


def _check_src(op, input, src, shape):
    if tuple(src.shape) != tuple(shape):
        raise RuntimeError(f"expected src to have a size equal to the slice of self. src size = {list(src.shape)}, "
                           f"slice size = {list(shape)}")
    if src.dtype != input.dtype:
        raise RuntimeError(f"{op}: expected src ({src.dtype}) to have the dtype of self ({input.dtype})")


@torch_op(torch.slice_scatter, torch.Tensor.slice_scatter, inputs=("input", "src"), method="slice_scatter",
          tags=(SHAPE,))
def slice_scatter(input, src, dim=0, start=None, end=None, step=1):
    """A copy of ``input`` with ``src`` in place of ``input[..., start:end:step]`` along ``dim``."""
    if step <= 0:
        raise RuntimeError("slice step must be positive")
    if input.ndim == 0:
        raise IndexError("slice() cannot be applied to a 0-dim tensor.")
    d = canonical_dim(input.ndim, dim)
    n = input.shape[d]
    lo, hi = _slice_bounds(start, end, n)
    hi = max(lo, hi)
    m = (hi - lo + step - 1) // step
    _check_src("slice_scatter", input, src, input.shape[:d] + (m,) + input.shape[d + 1:])
    if m == 0:
        return T.clone(input)
    used = (m - 1) * step + 1
    config = tuple((lo, n - lo - used, step - 1) if k == d else (0, 0, 0) for k in range(input.ndim))
    placed = prims.pad(src, 0, padding_config=config)
    pos = prims.iota(n, start=0, step=1, dtype=torch.int64, device=input.device)
    hit = T.logical_and(T.logical_and(pos >= lo, pos < hi), T.remainder(pos - lo, step) == 0)
    mask = prims.broadcast_in_dim(hit, shape=input.shape, broadcast_dimensions=(d,))
    return T.where(mask, placed, input)


@torch_op(torch.select_scatter, torch.Tensor.select_scatter, inputs=("input", "src"), method="select_scatter",
          tags=(SHAPE,))
def select_scatter(input, src, dim, index):
    """A copy of ``input`` with ``src`` in place of ``input.select(dim, index)``."""
    if input.ndim == 0:
        raise IndexError("select() cannot be applied to a 0-dim tensor.")
    d = canonical_dim(input.ndim, dim)
    n = input.shape[d]
    if not -n <= index < n:
        raise IndexError(f"select(): index {index} out of range for tensor of size {list(input.shape)} at "
                         f"dimension {d}")
    index %= n
    _check_src("select_scatter", input, src, input.shape[:d] + input.shape[d + 1:])
    return slice_scatter(input, T.unsqueeze(src, d), d, index, index + 1)


@torch_op(torch.diagonal_scatter, torch.Tensor.diagonal_scatter, inputs=("input", "src"), method="diagonal_scatter",
          tags=(SHAPE,))
def diagonal_scatter(input, src, offset=0, dim1=0, dim2=1):
    """A copy of ``input`` with ``src`` in place of ``input.diagonal(offset, dim1, dim2)``."""
    if input.ndim < 2:
        raise RuntimeError(f"diagonal dimensions requires ndim larger than 1, got {input.ndim}")
    d1, d2 = canonical_dim(input.ndim, dim1), canonical_dim(input.ndim, dim2)
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    rows, cols = input.shape[d1], input.shape[d2]
    r0, c0 = max(-offset, 0), max(offset, 0)
    k = max(min(rows - r0, cols - c0), 0)
    lead = tuple(s for i, s in enumerate(input.shape) if i not in (d1, d2))
    _check_src("diagonal_scatter", input, src, lead + (k,))
    if k == 0:
        return T.clone(input)

    def placed(v):  # v (..., k) on the diagonal of (..., rows, cols) planes, moved to dims d1, d2
        square = diagonal_matrices(v, 0)
        config = ((0, 0, 0),) * len(lead) + ((r0, rows - r0 - k, 0), (c0, cols - c0 - k, 0))
        return T.movedim(prims.pad(square, 0, padding_config=config), (-2, -1), (d1, d2))

    mask = placed(prims.full(True, shape=lead + (k,), dtype=torch.bool, device=input.device))
    return T.where(mask, placed(src), input)


@torch_op(torch.as_strided_scatter, torch.Tensor.as_strided_scatter, inputs=("input", "src"),
          method="as_strided_scatter")
def as_strided_scatter(input, src, size, stride, storage_offset=None):
    """A copy of ``input`` with ``src`` written through ``as_strided(size, stride, storage_offset)``
    (no decomposition: the positions depend on the real tensor's memory layout)."""
