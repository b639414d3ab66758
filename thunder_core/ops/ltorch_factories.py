"""Torch-level factories beyond ``ltorch_creation``: ``Tensor.new_zeros/new_ones/new_full/
new_empty`` (a tensor's dtype and device as defaults), ``scalar_tensor``, ``logspace``, the
layout-giving empties (``empty_strided``, ``empty_permuted``, ``Tensor.new_empty_strided``) and
``tril_indices``/``triu_indices``.

``new_*``, ``scalar_tensor`` and ``logspace`` decompose into the creation primitives (and
``logspace`` into ``linspace`` and ``pow``, computed in float64 like ``linspace`` and converted
once; integer dtypes first truncate the ends, as eager). The empties with explicit strides
or a physical layout have no decomposition: traces do not model strides, so the torch
implementation makes them with eager's layout. ``tril_indices``/``triu_indices`` hold
coordinates that depend only on their static arguments; they have no decomposition (no
primitive enumerates the positions of a triangle).

Traits: every op here is ``"creation"``.
"""

from __future__ import annotations

import torch

from ..ir import TensorProxy
from ..ir.traits import CREATION
from . import prims
from .ltorch_creation import _converted, _device, _finish, _float_dtype, _full
from .registry import T, torch_op


def _new(input, size, value, dtype, device, requires_grad):
    return _full(size, value, dtype or input.dtype, device or input.device, requires_grad)


def _method_sized(name):
    """``Tensor.new_*(size)`` with the sizes as one tuple (``x.new_zeros(())`` is 0-d)."""
    method = getattr(torch.Tensor, name)
    return lambda args, kwargs: method(args[0], tuple(args[1:]), **kwargs)


@torch_op(torch.Tensor.new_zeros, method="new_zeros", impl=_method_sized("new_zeros"), tags=(CREATION,))
def new_zeros(input, *size, dtype=None, layout=None, device=None, pin_memory=False, requires_grad=False):
    """Zeros of ``size`` with ``input``'s dtype and device unless given."""
    return _new(input, size, 0, dtype, device, requires_grad)


@torch_op(torch.Tensor.new_ones, method="new_ones", impl=_method_sized("new_ones"), tags=(CREATION,))
def new_ones(input, *size, dtype=None, layout=None, device=None, pin_memory=False, requires_grad=False):
    return _new(input, size, 1, dtype, device, requires_grad)


@torch_op(torch.Tensor.new_empty, method="new_empty", impl=_method_sized("new_empty"), tags=(CREATION,))
def new_empty(input, *size, dtype=None, layout=None, device=None, pin_memory=False, requires_grad=False):
    """A tensor of ``size`` whose values are unspecified."""
    out = prims.empty(shape=tuple(size), dtype=dtype or input.dtype, device=device or input.device)
    return _finish(out, requires_grad)


@torch_op(torch.Tensor.new_full, method="new_full", inputs=("input", "fill_value"), tags=(CREATION,))
def new_full(input, size, fill_value, *, dtype=None, layout=None, device=None, pin_memory=False,
             requires_grad=False):
    return _new(input, size, fill_value, dtype, device, requires_grad)


@torch_op(torch.scalar_tensor, inputs=("s",), tags=(CREATION,))
def scalar_tensor(s, *, dtype=None, layout=None, device=None, pin_memory=None, requires_grad=False):
    """A 0-d tensor holding ``s`` (in the default float dtype unless ``dtype`` is given)."""
    return _full((), s, _float_dtype(dtype), device, requires_grad)


@torch_op(torch.logspace, inputs=("start", "end"), tags=(CREATION,))
def logspace(start, end, steps, base=10.0, *, dtype=None, layout=None, device=None, requires_grad=False,
             pin_memory=False):
    """``base ** linspace(start, end, steps)``; ``start``/``end`` may be 0-d tensors (their values
    are read, without gradient)."""
    dtype = _float_dtype(dtype)
    if dtype.is_complex or any(isinstance(x, complex) for x in (start, end, base)):
        raise NotImplementedError("complex torch.logspace is not supported by thunder_core yet")
    if not dtype.is_floating_point:  # eager converts the ends to the integer type first
        start, end = (T.trunc(T.detach(x)) if isinstance(x, TensorProxy) and x.is_floating_point()
                      else x if isinstance(x, TensorProxy) else int(x) for x in (start, end))
    exponents = T.linspace(start, end, steps, dtype=torch.float64, device=_device(device))
    return _finish(_converted(T.pow(float(base), exponents), dtype), requires_grad)


# ---------------------------------------------------------------- layouts and triangles (no decomposition)

@torch_op(torch.empty_strided, inputs=(), tags=(CREATION,))
def empty_strided(size, stride, *, dtype=None, layout=None, device=None, requires_grad=False, pin_memory=False):
    """A tensor of ``size`` with the given strides whose values are unspecified."""


@torch_op(torch.empty_permuted, inputs=(), tags=(CREATION,))
def empty_permuted(size, physical_layout, *, dtype=None, layout=None, device=None, requires_grad=False,
                   pin_memory=False):
    """A tensor of ``size`` laid out in memory in the dim order ``physical_layout``, values unspecified."""


@torch_op(torch.Tensor.new_empty_strided, method="new_empty_strided", tags=(CREATION,))
def new_empty_strided(input, size, stride, *, dtype=None, layout=None, device=None, pin_memory=False,
                      requires_grad=False):
    """``empty_strided`` with ``input``'s dtype and device unless given."""


@torch_op(torch.tril_indices, inputs=(), tags=(CREATION,))
def tril_indices(row, col, offset=0, *, dtype=torch.long, layout=None, device=None, pin_memory=False):
    """The (2, N) coordinates of the lower triangle (diagonal ``offset``) of a ``row`` x ``col`` matrix."""


@torch_op(torch.triu_indices, inputs=(), tags=(CREATION,))
def triu_indices(row, col, offset=0, *, dtype=torch.long, layout=None, device=None, pin_memory=False):
    """The (2, N) coordinates of the upper triangle (diagonal ``offset``) of a ``row`` x ``col`` matrix."""
