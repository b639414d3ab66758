"""Torch-level views given by sizes, strides and offsets: ``as_strided``, ``Tensor.unfold``
(sliding windows) and ATen's ``slice`` (``torch.ops.aten.slice.Tensor``).

``slice`` decomposes into basic indexing (``prims.slice``, a view). ``Tensor.unfold``'s
windows overlap, which no view primitive expresses: its decomposition gathers them
(``prims.take`` along the dim at positions ``i * step + j``, then a reshape moving the window
to a last dim), and its VJP rule (``transforms/vjp_strided.py``) keeps the op whole in
training traces, so the forward stays eager's view. ``as_strided`` reads the input's *memory*
with the given strides, which depends on the layout of the real tensor (traces do not model
strides): it has no decomposition and runs as torch's own view (its gradient is PyTorch's).

Traits: all three are ``"view"``.
"""

from __future__ import annotations

import torch

from ..ir.traits import VIEW
from . import prims
from .ltorch_shape import reshaped
from .prims_shape import canonical_dim
from .registry import T, torch_op


@torch_op(torch.as_strided, torch.Tensor.as_strided, method="as_strided", tags=(VIEW,))
def as_strided(input, size, stride, storage_offset=None):
    """A view of ``input``'s memory with the given sizes, strides and offset (no decomposition:
    the result depends on the real tensor's layout)."""


def window_index(n, size, step, device):
    """The positions ``i * step + j`` read by ``unfold(size, step)`` along a dim of ``n``
    elements, flattened window by window (int64), and the number of windows."""
    count = (n - size) // step + 1
    starts = prims.reshape(prims.iota(count, start=0, step=step, dtype=torch.int64, device=device), shape=(count, 1))
    offsets = prims.iota(size, start=0, step=1, dtype=torch.int64, device=device)
    return reshaped(starts + offsets, (count * size,)), count


def check_unfold(input, dimension, size, step):
    """The canonical dim and its length for ``input.unfold(dimension, size, step)`` (torch's errors)."""
    d = canonical_dim(input.ndim, dimension)
    n = input.shape[d] if input.ndim else 1
    if size > n:
        raise RuntimeError(f"maximum size for tensor at dimension {d} is {n} but size is {size}")
    if size < 0:
        raise RuntimeError(f"size is {size} but must be >= 0")
    if step <= 0:
        raise RuntimeError(f"step is {step} but must be > 0")
    return d, n


@torch_op(torch.Tensor.unfold, method="unfold", name="tensor_unfold", tags=(VIEW,))
def tensor_unfold(input, dimension, size, step):
    """Windows of ``size`` elements every ``step`` along ``dimension``: that dim becomes the
    number of windows, and a new last dim holds each window."""
    d, n = check_unfold(input, dimension, size, step)
    a = reshaped(input, (1,)) if input.ndim == 0 else input
    index, count = window_index(n, size, step, input.device)
    taken = prims.take(a, index, dim=d)
    out = reshaped(taken, a.shape[:d] + (count, size) + a.shape[d + 1:])
    return reshaped(out, (size,)) if input.ndim == 0 else T.movedim(out, d + 1, -1)


@torch_op(torch.ops.aten.slice.Tensor, name="slice", tags=(VIEW,))
def slice_(input, dim=0, start=None, end=None, step=1):
    """ATen's ``slice``: ``input[..., start:end:step]`` along ``dim`` (bounds clamped as in Python)."""
    if input.ndim == 0:
        raise IndexError("slice() cannot be applied to a 0-dim tensor.")
    d = canonical_dim(input.ndim, dim)
    return input[(slice(None),) * d + (slice(start, end, step),)]
