"""Torch-level max pooling with indices and its inverses: the ATen functions ``F`` calls for
``max_pool*_with_indices``, ``adaptive_max_pool3d`` and ``fractional_max_pool2d/3d`` (after
``F`` has resolved defaults and drawn the fractional pools' random samples with
``torch.rand``, which is traced as a random op), ``max_unpool2d/3d`` (which ``F.max_unpool1d``
also calls), and ATen's ``max_pool2d_with_indices_backward``.

The pools run as library kernels (no decomposition: a windowed argmax has no primitive);
their gradient is PyTorch's. ``max_unpool`` and ``max_pool2d_with_indices_backward`` put
values at the flat positions (per sample and channel) the indices hold: ``ltorch.scatter``
(unpooling writes each value once) and ``prims.scatter_add`` (the gradient of a max pool adds
up where windows share a maximum) into zeros, so their gradients are gathers.

Traits: the pools are ``"reduction"`` (windowed maxima); the unpooling scatters have none
(positions held in an index tensor).
"""

from __future__ import annotations

import math

import torch

from ..ir.traits import REDUCTION
from . import prims
from .ltorch_fill import filled
from .ltorch_shape import reshaped
from .registry import T, torch_op

_nn = torch._C._nn


@torch_op(torch.max_pool1d_with_indices, tags=(REDUCTION,))
def max_pool1d_with_indices(input, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
    """1-D max pooling, and the flat position of each maximum in its plane."""


@torch_op(_nn.max_pool2d_with_indices, tags=(REDUCTION,))
def max_pool2d_with_indices(input, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
    """2-D max pooling, and the flat position of each maximum in its plane."""


@torch_op(_nn.max_pool3d_with_indices, tags=(REDUCTION,))
def max_pool3d_with_indices(input, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
    """3-D max pooling, and the flat position of each maximum in its volume."""


@torch_op(_nn.adaptive_max_pool3d, tags=(REDUCTION,))
def adaptive_max_pool3d(input, output_size):
    """3-D max pooling to ``output_size``, and the positions of the maxima."""


@torch_op(_nn.fractional_max_pool2d, inputs=("input", "random_samples"), tags=(REDUCTION,))
def fractional_max_pool2d(input, kernel_size, output_size, random_samples):
    """2-D max pooling over pseudo-random windows placed by ``random_samples``, and the positions."""


@torch_op(_nn.fractional_max_pool3d, inputs=("input", "random_samples"), tags=(REDUCTION,))
def fractional_max_pool3d(input, kernel_size, output_size, random_samples):
    """3-D max pooling over pseudo-random windows placed by ``random_samples``, and the positions."""


# ---------------------------------------------------------------- values back at their positions

def _planes(x, spatial):
    """``x`` as (..., positions): its last ``spatial`` dims flattened."""
    lead = x.shape[:x.ndim - spatial]
    return reshaped(x, lead + (math.prod(x.shape[x.ndim - spatial:]),)), lead


def _unpooled(input, indices, output_size):
    spatial = len(output_size)
    if input.ndim not in (spatial + 1, spatial + 2):
        raise RuntimeError(f"max_unpooling: Expected {spatial + 1}D or {spatial + 2}D tensor, but got "
                           f"{list(input.shape)}")
    if indices.dtype != torch.int64:
        raise RuntimeError(f"elements in indices should be type int64 but got: {indices.dtype}")
    if tuple(indices.shape) != tuple(input.shape):
        raise RuntimeError(f"Expected shape of indices to be same as that of the input tensor ({list(input.shape)}) "
                           f"but got indices tensor with shape: {list(indices.shape)}")
    values, lead = _planes(input, spatial)
    where, _ = _planes(indices, spatial)
    zeros = prims.full(0, shape=lead + (math.prod(output_size),), dtype=input.dtype, device=input.device)
    return reshaped(T.scatter(zeros, values.ndim - 1, where, values), lead + tuple(output_size))


@torch_op(_nn.max_unpool2d, inputs=("input", "indices"))
def max_unpool2d(input, indices, output_size):
    """Zeros of spatial size ``output_size`` with each value of ``input`` at the flat position
    (in its plane) given by ``indices``."""
    return _unpooled(input, indices, tuple(output_size))


@torch_op(_nn.max_unpool3d, inputs=("input", "indices"))
def max_unpool3d(input, indices, output_size, stride, padding):
    """Zeros of volume ``output_size`` with each value of ``input`` at the flat position (in its
    volume) given by ``indices`` (``stride`` and ``padding`` only checked by eager)."""
    return _unpooled(input, indices, tuple(output_size))


@torch_op(torch.ops.aten.max_pool2d_with_indices_backward.default, inputs=("grad_output", "input", "indices"))
def max_pool2d_with_indices_backward(grad_output, input, kernel_size, stride, padding, dilation, ceil_mode, indices):
    """The input gradient of a 2-D max pool: each output gradient added at its maximum's position."""
    grads, lead = _planes(grad_output, 2)
    where, _ = _planes(indices, 2)
    zeros, _ = _planes(filled(input, 0), 2)  # (eager: the result requires grad with input, a zero gradient)
    return reshaped(prims.scatter_add(zeros, where, grads, dim=grads.ndim - 1), input.shape)
