"""Torch-level copies of views: ``torch.view_copy``, ``permute_copy``, ``diagonal_copy`` and the
other ``<view>_copy`` functions, and the ``unsafe_`` splits.

A ``<view>_copy(x, ...)`` is ``<view>(x, ...).clone()``: the same values in a fresh tensor
that no later write to ``x`` changes (torch defines them for backends without views). Each
decomposes exactly so: the view op of the op language, then ``clone``, so executors claim
the view (free) and the copy, and autograd differentiates the view.

``unsafe_split``/``unsafe_chunk``/``unsafe_split_with_sizes`` are ``split``/``chunk``
without autograd's view tracking: the same views, decomposed the same way.

Traits: every ``_copy`` op is ``"shape"`` (it copies elements to positions fixed by static
arguments); the unsafe splits are ``"view"``.
"""

from __future__ import annotations

import torch

from ..ir.traits import SHAPE, VIEW
from .registry import T, torch_op


def _copied(x):
    return tuple(T.clone(t) for t in x) if isinstance(x, tuple) else T.clone(x)


@torch_op(torch.alias_copy, tags=(SHAPE,))
def alias_copy(input):
    return T.clone(input)


@torch_op(torch.view_copy, tags=(SHAPE,))
def view_copy(input, size):
    """``x.view(size).clone()`` (``size`` may be a dtype: ``x.view(dtype).clone()``)."""
    return T.clone(input.view(size))


@torch_op(torch.permute_copy, tags=(SHAPE,))
def permute_copy(input, dims):
    return T.clone(input.permute(dims))


@torch_op(torch.expand_copy, tags=(SHAPE,))
def expand_copy(input, size, *, implicit=False):
    return T.clone(input.expand(size))


@torch_op(torch.squeeze_copy, tags=(SHAPE,), impl=lambda a, k: torch.squeeze_copy(*a, **k) if a[1] is not None
          else torch.squeeze_copy(a[0], **k))
def squeeze_copy(input, dim=None):
    return T.clone(T.squeeze(input) if dim is None else T.squeeze(input, dim))


@torch_op(torch.unsqueeze_copy, tags=(SHAPE,))
def unsqueeze_copy(input, dim):
    return T.clone(T.unsqueeze(input, dim))


@torch_op(torch.t_copy, tags=(SHAPE,))
def t_copy(input):
    return T.clone(T.t(input))


@torch_op(torch.transpose_copy, tags=(SHAPE,))
def transpose_copy(input, dim0, dim1):
    return T.clone(T.transpose(input, dim0, dim1))


@torch_op(torch.diagonal_copy, tags=(SHAPE,))
def diagonal_copy(input, offset=0, dim1=0, dim2=1):
    return T.clone(T.diagonal(input, offset, dim1, dim2))


@torch_op(torch.narrow_copy, torch.Tensor.narrow_copy, method="narrow_copy", tags=(SHAPE,))
def narrow_copy(input, dim, start, length):
    return T.clone(T.narrow(input, dim, start, length))


@torch_op(torch.select_copy, tags=(SHAPE,))
def select_copy(input, dim, index):
    return T.clone(T.select(input, dim, index))


@torch_op(torch.slice_copy, tags=(SHAPE,))
def slice_copy(input, dim=0, start=None, end=None, step=1):
    return T.clone(input[(slice(None),) * (dim % max(input.ndim, 1)) + (slice(start, end, step),)])


@torch_op(torch.unfold_copy, tags=(SHAPE,))
def unfold_copy(input, dimension, size, step):
    return T.clone(input.unfold(dimension, size, step))


@torch_op(torch.as_strided_copy, tags=(SHAPE,))
def as_strided_copy(input, size, stride, storage_offset=None):
    return T.clone(T.as_strided(input, size, stride, storage_offset))


@torch_op(torch.unbind_copy, tags=(SHAPE,))
def unbind_copy(input, dim=0):
    return _copied(T.unbind(input, dim))


@torch_op(torch.split_copy, tags=(SHAPE,))
def split_copy(input, split_size, dim=0):
    return _copied(T.split(input, split_size, dim))


@torch_op(torch.split_with_sizes_copy, tags=(SHAPE,))
def split_with_sizes_copy(input, split_sizes, dim=0):
    return _copied(T.split_with_sizes(input, split_sizes, dim))


# ---------------------------------------------------------------- splits without view tracking

@torch_op(torch.unsafe_split, torch.Tensor.unsafe_split, method="unsafe_split", tags=(VIEW,))
def unsafe_split(input, split_size, dim=0):
    return T.split(input, split_size, dim)


@torch_op(torch.unsafe_split_with_sizes, torch.Tensor.unsafe_split_with_sizes, method="unsafe_split_with_sizes",
          tags=(VIEW,))
def unsafe_split_with_sizes(input, split_sizes, dim=0):
    return T.split_with_sizes(input, split_sizes, dim)


@torch_op(torch.unsafe_chunk, torch.Tensor.unsafe_chunk, method="unsafe_chunk", tags=(VIEW,))
def unsafe_chunk(input, chunks, dim=0):
    return T.chunk(input, chunks, dim)
