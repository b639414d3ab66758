"""Torch-level ops that place a tensor's values among padding: ``constant_pad_nd``, the
diagonal builders ``diag``, ``diag_embed``, ``diagflat``, ``block_diag``, and ATen's
``_chunk_cat``.

All decompose into ``prims.pad`` (zeros, or the pad value, around or between the values),
reshapes and ``cat``. A vector ``v`` of ``m`` values goes onto a diagonal without any index
tensor: as a column ``(m, 1)`` padded with ``m`` zeros per row it is ``(m, m + 1)``, whose
first ``m * m`` elements in row-major order are the ``m x m`` matrix with ``v`` on its
diagonal (element ``i`` lands at ``i * (m + 1)``); padding rows and columns then moves it to
diagonal ``offset``.

Traits: every op here is ``"shape"`` (values copied to positions fixed by static arguments).
"""

from __future__ import annotations

import math

import torch

from ..ir.traits import SHAPE
from . import prims
from .ltorch_shape import reshaped, sliced
from .prims_shape import canonical_dim
from .registry import T, torch_op


@torch_op(torch.constant_pad_nd, inputs=("input", "value"), tags=(SHAPE,))
def constant_pad_nd(input, pad, value=0):
    """``input`` with ``pad[2i]``/``pad[2i+1]`` elements of ``value`` before/after its ``i``-th
    last dim (negative amounts crop)."""
    pad = list(pad)
    if len(pad) % 2:
        raise RuntimeError(f"Length of pad must be even but instead it equals {len(pad)}")
    if len(pad) > 2 * input.ndim:
        raise RuntimeError(f"Length of pad should be no more than twice the number of dimensions of the input. Pad "
                           f"length is {len(pad)}while the input has {input.ndim}dimensions.")
    config = [(0, 0, 0)] * input.ndim
    for i in range(len(pad) // 2):
        d = input.ndim - 1 - i
        lo, hi = pad[2 * i], pad[2 * i + 1]
        if input.shape[d] + lo + hi < 0:
            raise RuntimeError(f"The input size {input.shape[d]}, plus negative padding {lo} and {hi} resulted in a "
                               f"negative output size, which is invalid. Check dimension {d} of your input.")
        config[d] = (lo, hi, 0)
    return prims.pad(input, value, padding_config=tuple(config))


def _padded(a, config_last2):
    """``prims.pad`` of the last two dims of ``a`` by ((lo, hi), (lo, hi)) zeros."""
    config = ((0, 0, 0),) * (a.ndim - 2) + tuple((lo, hi, 0) for lo, hi in config_last2)
    return a if all(c == (0, 0, 0) for c in config) else prims.pad(a, 0, padding_config=config)


def diagonal_matrices(v, offset):
    """``v`` of shape (..., m) as (..., m + |offset|, m + |offset|) matrices holding it on
    diagonal ``offset`` (columns ``offset`` to the right of rows when positive) and zeros."""
    *lead, m = v.shape
    lead = tuple(lead)
    wide = _padded(reshaped(v, lead + (m, 1)), ((0, 0), (0, m)))
    square = reshaped(sliced(reshaped(wide, lead + (m * (m + 1),)), len(lead), 0, m * m), lead + (m, m))
    k = abs(offset)
    return _padded(square, ((0, k), (k, 0)) if offset >= 0 else ((k, 0), (0, k)))


@torch_op(torch.diag, torch.Tensor.diag, method="diag", tags=(SHAPE,))
def diag(input, diagonal=0):
    """A 1-D tensor as the diagonal ``diagonal`` of a square matrix; of a matrix, a copy of
    that diagonal."""
    if input.ndim == 1:
        return diagonal_matrices(input, diagonal)
    if input.ndim == 2:
        return T.clone(T.diagonal(input, diagonal))
    raise RuntimeError(f"diag(): Supports 1D or 2D tensors. Got {input.ndim}D")


@torch_op(torch.diag_embed, torch.Tensor.diag_embed, method="diag_embed", tags=(SHAPE,))
def diag_embed(input, offset=0, dim1=-2, dim2=-1):
    """Each vector along the last dim placed on diagonal ``offset`` of the planes of new dims
    ``dim1`` (rows) and ``dim2`` (columns) of the result."""
    d1, d2 = canonical_dim(input.ndim + 1, dim1), canonical_dim(input.ndim + 1, dim2)
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    v = reshaped(input, (1,)) if input.ndim == 0 else input
    return T.movedim(diagonal_matrices(v, offset), (-2, -1), (d1, d2))


@torch_op(torch.diagflat, torch.Tensor.diagflat, method="diagflat", tags=(SHAPE,))
def diagflat(input, offset=0):
    """The flattened input on diagonal ``offset`` of a square matrix."""
    return diagonal_matrices(reshaped(input, (input.numel(),)), offset)


@torch_op(torch.block_diag, inputs=("tensors",), tags=(SHAPE,))
def block_diag(*tensors):
    """The tensors (0-d: 1 x 1, 1-d: one row) as the diagonal blocks of a matrix of zeros, in
    their promoted dtype."""
    blocks = []
    for i, t in enumerate(tensors):
        if t.ndim > 2:
            raise RuntimeError(f"torch.block_diag: Input tensors must have 2 or fewer dimensions. Input {i} has "
                               f"{t.ndim} dimensions")
        blocks.append(reshaped(t, (1, 1) if t.ndim == 0 else (1, t.shape[0]) if t.ndim == 1 else t.shape))
    if not blocks:
        return T.empty(1, 0)
    dtype = blocks[0].dtype
    for b in blocks[1:]:
        dtype = torch.promote_types(dtype, b.dtype)
    width = sum(b.shape[1] for b in blocks)
    rows, start = [], 0
    for b in blocks:
        b = b if b.dtype == dtype else prims.convert_element_type(b, dtype=dtype)
        rows.append(_padded(b, ((0, 0), (start, width - start - b.shape[1]))))
        start += b.shape[1]
    return prims.cat(rows, dim=0) if len(rows) > 1 else T.clone(rows[0])


@torch_op(torch._chunk_cat, inputs=("tensors",), tags=(SHAPE,))
def _chunk_cat(tensors, dim, num_chunks):
    """Each tensor split into ``num_chunks`` chunks along ``dim`` (zero-padded to a multiple
    of it), each chunk flattened past ``dim``, and chunk ``i`` of every tensor joined: shape
    (*leading, num_chunks, total)."""
    tensors = list(tensors)
    if num_chunks < 1:
        raise RuntimeError("_chunk_cat expects positive num_chunks")
    if not tensors:
        raise RuntimeError("_chunk_cat expects a non-empty input tensor list")
    first = tensors[0]
    for t in tensors:
        if t.numel() == 0:
            raise RuntimeError("_chunk_cat expects non-empty tensor")
        if t.dtype != first.dtype or t.device != first.device:
            raise RuntimeError("_chunk_cat expects all input tensors with the same dtype and device")
    if all(t.ndim == first.ndim for t in tensors):
        dim = canonical_dim(first.ndim, dim)
    elif dim < 0 or any(dim >= t.ndim for t in tensors):
        raise RuntimeError("_chunk_cat expects non-negative dim < ndim when input tensors have different ndims")
    if any(t.shape[:dim] != first.shape[:dim] for t in tensors):
        raise RuntimeError("_chunk_cat expects same sizes of 0,...,dim-1 dimensions for all tensors")
    pieces = []
    for t in tensors:
        n = t.shape[dim]
        full = -(-n // num_chunks) * num_chunks
        if full != n:
            t = prims.pad(t, 0, padding_config=tuple((0, full - n, 0) if d == dim else (0, 0, 0)
                                                     for d in range(t.ndim)))
        rest = t.numel() // (math.prod(t.shape[:dim]) * num_chunks)
        pieces.append(reshaped(t, t.shape[:dim] + (num_chunks, rest)))
    return prims.cat(pieces, dim=dim + 1)
