"""Torch implementations of the shape and indexing primitives."""

import builtins

import torch

from .prims import impl


@impl("prims.reshape")
def reshape(a, *, shape):
    return torch.reshape(a, shape)


@impl("prims.transpose")
def transpose(a, *, permutation):
    return torch.permute(a, permutation)


@impl("prims.slice")
def slice_(a, *, start_indices, end_indices, strides=None):
    strides = strides or (1,) * a.ndim
    return a[tuple(builtins.slice(lo, hi, st) for lo, hi, st in zip(start_indices, end_indices, strides))]


@impl("prims.squeeze")
def squeeze(a, *, dims):
    return torch.squeeze(a, tuple(dims))  # a new view even with no dims, never `a` itself


@impl("prims.pad")
def pad(a, padding_value, *, padding_config):
    # Grow by the non-negative padding, place `a` at a stride of interior + 1, then crop
    # whatever negative padding asks to remove.
    grown, place, crop = [], [], []
    for (lo, hi, interior), n in zip(padding_config, a.shape):
        size = max(lo, 0) + max(hi, 0) + n + max(n - 1, 0) * interior
        grown.append(size)
        place.append(builtins.slice(max(lo, 0), max(lo, 0) + max(n - 1, 0) * (interior + 1) + (n > 0), interior + 1))
        crop.append(builtins.slice(-min(lo, 0), size + min(hi, 0)))
    out = torch.full(grown, padding_value, dtype=a.dtype, device=a.device)
    out[tuple(place)] = a
    return out[tuple(crop)]


@impl("prims.cat")
def cat(tensors, *, dim):
    return torch.cat(tensors, dim)


@impl("prims.flip")
def flip(a, *, dims):
    return torch.flip(a, dims)


@impl("prims.take")
def take(a, index, *, dim):
    return torch.index_select(a, dim, index)


@impl("prims.gather")
def gather(a, index, *, dim):
    return torch.gather(a, dim, index)


@impl("prims.scatter_add")
def scatter_add(a, index, src, *, dim):
    return torch.scatter_add(a, dim, index, src)


@impl("prims.scatter_reduce")
def scatter_reduce(a, index, src, *, dim, reduce):
    return torch.scatter_reduce(a, dim, index, src, reduce, include_self=True)
