"""Dtype and device conversions: ``Tensor.to`` in all its forms, ``float()``/``long()``/...
and ``type_as``.

Every form becomes one op, ``ltorch.to(t, dtype=..., device=..., non_blocking=..., copy=...)``,
which decomposes into ``prims.device_put`` and ``prims.convert_element_type``. Like torch,
converting to what a tensor already is returns the tensor itself (nothing is recorded) unless
``copy=True``. A ``memory_format`` other than ``torch.preserve_format`` adds
``ltorch.to_memory_format``, which torch runs (strides are not modelled in traces; the
values are the same in any layout, and torch returns the tensor itself when its layout
already is the one asked for).

Traits: ``to`` is ``"elementwise"`` (a dtype conversion or device copy of each element),
``to_memory_format`` is ``"shape"`` (the same values copied to another layout).
"""

from __future__ import annotations

import torch

from ..ir import TensorProxy
from ..ir.traits import ELEMENTWISE, SHAPE
from . import prims
from .ltorch_elementwise import ENTRIES, op, register_front
from .registry import PYTHON_DTYPES, torch_op

__all__ = ["CALLABLES"]

#: Every torch callable registered by this module.
CALLABLES: list = []


def _same_device(device: torch.device, current: torch.device) -> bool:
    return device == current or (device.index is None and device.type == current.type)


@op("to", fns=(), methods=(), inplace=False, impl=lambda a, k: torch.Tensor.to(*a, **k),
    tags=(ELEMENTWISE, "may-return-input"))
def to(input, *, dtype=None, device=None, non_blocking=False, copy=False, memory_format=torch.preserve_format):
    """``input`` on ``device`` with ``dtype``; ``input`` itself when nothing changes and not
    ``copy`` (as in torch). The canonical form every ``Tensor.to`` call form is turned into."""
    if memory_format is not torch.preserve_format:
        out = to(input, dtype=dtype, device=device, non_blocking=non_blocking, copy=copy)
        return to_memory_format(out, memory_format=memory_format)
    out = input
    if device is not None and not _same_device(torch.device(device), input.device):
        out = prims.device_put(out, device=torch.device(device))
    if dtype is not None and dtype != out.dtype:
        out = prims.convert_element_type(out, dtype=dtype)
    if copy and out is input:
        out = prims.convert_element_type(input, dtype=input.dtype)
    return out


@torch_op(name="to_memory_format", impl=lambda a, k: a[0].to(**k), tags=(SHAPE, "may-return-input"))
def to_memory_format(input, *, memory_format):
    """``input`` laid out in ``memory_format`` (itself when it already is: torch decides at run time)."""


_PRESERVE = torch.preserve_format


def _to_dtype(dtype, non_blocking=False, copy=False, *, memory_format=_PRESERVE):
    return dict(dtype=dtype, non_blocking=non_blocking, copy=copy), memory_format


def _to_device(device=None, dtype=None, non_blocking=False, copy=False, *, memory_format=_PRESERVE):
    return dict(device=device, dtype=dtype, non_blocking=non_blocking, copy=copy), memory_format


def _to_other(other, non_blocking=False, copy=False, *, memory_format=_PRESERVE):
    return dict(device=other.device, dtype=other.dtype, non_blocking=non_blocking, copy=copy), memory_format


def _to_front(self, *args, **kwargs):
    """``Tensor.to`` in any of torch's forms: ``to(dtype, ...)``, ``to(device=None, dtype=None,
    ...)`` and ``to(other, ...)``, normalized to the ``to`` op's keywords."""
    first = args[0] if args else kwargs.get("other", kwargs.get("dtype"))
    dtype_first = isinstance(first, torch.dtype) or type(first) is type and first in PYTHON_DTYPES
    form = _to_other if isinstance(first, (TensorProxy, torch.Tensor)) else \
        _to_dtype if args and dtype_first else _to_device  # (`to(float)`: Python types are dtypes to torch)
    kw, memory_format = form(*args, **kwargs)
    if kw.get("device") is not None:
        kw["device"] = torch.device(kw["device"])
    if memory_format is not None and memory_format is not _PRESERVE:
        kw["memory_format"] = memory_format
    return ENTRIES["to"](self, **{k: v for k, v in kw.items() if v not in (None, False)})


def _type_as(self, other):
    """``Tensor.type_as``: ``self`` with ``other``'s dtype and device."""
    return ENTRIES["to"](self, dtype=other.dtype, device=other.device)


_to_front.__name__, _type_as.__name__ = "to", "type_as"
register_front(_to_front, [torch.Tensor.to], ["to"], callables=CALLABLES)
register_front(_type_as, [torch.Tensor.type_as], ["type_as"], callables=CALLABLES)

#: Tensor conversion methods: ``t.float()`` is ``t.to(torch.float32)``.
_CONVERSIONS = {"float": torch.float32, "double": torch.float64, "half": torch.float16, "bfloat16": torch.bfloat16,
                "cfloat": torch.complex64, "cdouble": torch.complex128, "bool": torch.bool, "byte": torch.uint8,
                "char": torch.int8, "short": torch.int16, "int": torch.int32, "long": torch.int64}


def _conversion(method: str, dtype: torch.dtype):
    def convert_method(self, memory_format=_PRESERVE):
        if memory_format is _PRESERVE:
            return ENTRIES["to"](self, dtype=dtype)
        return ENTRIES["to"](self, dtype=dtype, memory_format=memory_format)
    convert_method.__name__ = method
    return convert_method


for _m, _dt in _CONVERSIONS.items():
    register_front(_conversion(_m, _dt), [getattr(torch.Tensor, _m)], [_m], callables=CALLABLES)

del _m, _dt
