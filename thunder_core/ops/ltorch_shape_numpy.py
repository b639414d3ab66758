"""Torch-level shape ops named after NumPy's: ``atleast_1d/2d/3d``, ``ravel``, ``fliplr``,
``flipud``, ``rot90``, ``hsplit``/``vsplit``/``dsplit``, ``column_stack`` and ``dstack``.

Each is a few calls of the shape ops of ``ltorch_shape`` (reshape, flip, transpose,
tensor_split, cat), written as eager composes them (``rot90`` by ``k = 1`` is ``flip`` of the
second dim then a transpose, as in ATen), so results, views and copies match eager's.

Traits: ``atleast_*`` are ``"view"`` (a tensor with enough dims is returned itself:
``"may-return-input"``), ``ravel`` is ``"view"`` and ``"shape"`` like ``reshape``, the splits are
``"view"``; ``fliplr``/``flipud``/``rot90`` and the stacks are ``"shape"``.
"""

from __future__ import annotations

import torch

from ..ir.traits import SHAPE, VIEW
from .ltorch_nn import torch_alias
from .ltorch_shape import reshaped
from .prims_shape import canonical_dim
from .registry import T, torch_op

# ---------------------------------------------------------------- at least n dims


#: the shape a tensor of fewer than n dims is viewed as, by (n, its ndim)
_ATLEAST = {(1, 0): lambda s: (1,), (2, 0): lambda s: (1, 1), (2, 1): lambda s: (1, *s),
            (3, 0): lambda s: (1, 1, 1), (3, 1): lambda s: (1, *s, 1), (3, 2): lambda s: (*s, 1)}


def _atleast(input, n):
    return input if input.ndim >= n else reshaped(input, _ATLEAST[n, input.ndim](input.shape))


@torch_op(name="atleast_1d", impl=lambda a, k: torch.atleast_1d(a[0]), tags=(VIEW, "may-return-input"))
def atleast_1d(input):
    """``input`` itself with 1 or more dims, else viewed as shape (1,)."""
    return _atleast(input, 1)


@torch_op(name="atleast_2d", impl=lambda a, k: torch.atleast_2d(a[0]), tags=(VIEW, "may-return-input"))
def atleast_2d(input):
    """``input`` itself with 2 or more dims, else viewed as (1, 1) or (1, n)."""
    return _atleast(input, 2)


@torch_op(name="atleast_3d", impl=lambda a, k: torch.atleast_3d(a[0]), tags=(VIEW, "may-return-input"))
def atleast_3d(input):
    """``input`` itself with 3 or more dims, else viewed as (1, 1, 1), (1, n, 1) or (m, n, 1)."""
    return _atleast(input, 3)


def _atleast_front(op):
    """torch.atleast_Nd(x) gives a tensor; with several tensors, or a list or tuple, a tuple."""
    def front(*tensors):
        if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
            return tuple(op(t) for t in tensors[0])
        if len(tensors) == 1:
            return op(tensors[0])
        return tuple(op(t) for t in tensors)
    return front


torch_alias(torch.atleast_1d, of=atleast_1d)(_atleast_front(atleast_1d))
torch_alias(torch.atleast_2d, of=atleast_2d)(_atleast_front(atleast_2d))
torch_alias(torch.atleast_3d, of=atleast_3d)(_atleast_front(atleast_3d))


@torch_op(torch.ravel, torch.Tensor.ravel, method="ravel", tags=(VIEW, SHAPE))
def ravel(input):
    """The elements in row-major order, as a 1-D tensor (a view when the layout allows)."""
    return reshaped(input, (input.numel(),))


# ---------------------------------------------------------------- flips and rotations

@torch_op(torch.fliplr, torch.Tensor.fliplr, method="fliplr", tags=(SHAPE,))
def fliplr(input):
    if input.ndim < 2:
        raise RuntimeError("Input must be >= 2-d.")
    return T.flip(input, (1,))


@torch_op(torch.flipud, torch.Tensor.flipud, method="flipud", tags=(SHAPE,))
def flipud(input):
    if input.ndim < 1:
        raise RuntimeError("Input must be >= 1-d.")
    return T.flip(input, (0,))


@torch_op(torch.rot90, torch.Tensor.rot90, method="rot90", tags=(SHAPE,))
def rot90(input, k=1, dims=(0, 1)):
    """``input`` rotated by ``k`` quarter turns in the plane of ``dims``, from the first
    towards the second."""
    dims = tuple(dims)
    if len(dims) != 2:
        raise RuntimeError(f"expected total rotation dims == 2, but got dims = {len(dims)}")
    if input.ndim < 2:
        raise RuntimeError(f"expected total dims >= 2, but got total dims = {input.ndim}")
    d0, d1 = canonical_dim(input.ndim, dims[0]), canonical_dim(input.ndim, dims[1])
    if d0 == d1:
        raise RuntimeError(f"expected rotation dims to be different, but got dim0 = {d0} and dim1 = {d1}")
    k %= 4
    if k == 1:
        return T.transpose(T.flip(input, (d1,)), d0, d1)
    if k == 2:
        return T.flip(input, (d0, d1))
    if k == 3:
        return T.transpose(T.flip(input, (d0,)), d0, d1)
    return T.clone(input)


# ---------------------------------------------------------------- splitting along a fixed dim

def _positional(fn):
    """torch names the second parameter per overload (``sections`` or ``indices``): pass it by position."""
    return lambda args, kwargs: fn(*args, **kwargs)


def _split_along(op, input, indices_or_sections, dim, min_ndim):
    if input.ndim < min_ndim:
        raise RuntimeError(f"torch.{op} requires a tensor with at least {min_ndim} dimension, but got a tensor with "
                           f"{input.ndim} dimensions!")
    if isinstance(indices_or_sections, int):
        n = input.shape[dim]
        if indices_or_sections == 0 or n % indices_or_sections:
            raise RuntimeError(f"torch.{op} attempted to split along dimension {dim}, but the size of the dimension "
                               f"{n} is not divisible by the split_size {indices_or_sections}!")
    return T.tensor_split(input, indices_or_sections, dim)


@torch_op(torch.hsplit, torch.Tensor.hsplit, method="hsplit", tags=(VIEW,), impl=_positional(torch.hsplit))
def hsplit(input, indices_or_sections):
    """``tensor_split`` along dim 1 (dim 0 of a 1-D tensor); an int must divide that dim."""
    if input.ndim < 1:
        raise RuntimeError("torch.hsplit requires a tensor with at least 1 dimension, but got a tensor with 0 "
                           "dimensions!")
    return _split_along("hsplit", input, indices_or_sections, 0 if input.ndim == 1 else 1, 1)


@torch_op(torch.vsplit, torch.Tensor.vsplit, method="vsplit", tags=(VIEW,), impl=_positional(torch.vsplit))
def vsplit(input, indices_or_sections):
    return _split_along("vsplit", input, indices_or_sections, 0, 2)


@torch_op(torch.dsplit, torch.Tensor.dsplit, method="dsplit", tags=(VIEW,), impl=_positional(torch.dsplit))
def dsplit(input, indices_or_sections):
    return _split_along("dsplit", input, indices_or_sections, 2, 3)


# ---------------------------------------------------------------- stacking

@torch_op(torch.column_stack, inputs=("tensors",), tags=(SHAPE,))
def column_stack(tensors):
    """0-d and 1-d tensors as columns, joined with the others along dim 1."""
    if not tensors:
        raise RuntimeError("column_stack expects a non-empty TensorList")
    return T.hstack([reshaped(t, (t.numel(), 1)) if t.ndim <= 1 else t for t in tensors])


@torch_op(torch.dstack, inputs=("tensors",), tags=(SHAPE,))
def dstack(tensors):
    """The tensors, each with at least 3 dims (``atleast_3d``), joined along dim 2."""
    if not tensors:
        raise RuntimeError("dstack expects a non-empty TensorList")
    return T.cat([atleast_3d(t) for t in tensors], 2)
