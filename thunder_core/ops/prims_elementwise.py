"""Elementwise primitives: inputs already broadcast to one shape and converted to one dtype
(numbers are allowed in place of tensors); the output has that shape, dtype and device."""

from __future__ import annotations

from ..ir import TensorProxy, tensor_proxy
from .registry import prim


def _elementwise_meta(name, *args):
    tensors = [a for a in args if isinstance(a, TensorProxy)]
    if not tensors:
        raise TypeError(f"prims.{name}: needs at least one tensor input, got {args!r}")
    t = tensors[0]
    for u in tensors[1:]:
        if u.shape != t.shape or u.dtype != t.dtype or u.device != t.device:
            raise ValueError(f"prims.{name}: inputs must have one shape, dtype and device (broadcast and convert "
                             f"them first); got {t.name}: {t.shape} {t.dtype} {t.device} and {u.name}: {u.shape} "
                             f"{u.dtype} {u.device}")
    return tensor_proxy(t.shape, t.dtype, t.device, any(x.requires_grad for x in tensors))


@prim()
def add(a, b):
    return _elementwise_meta("add", a, b)


@prim()
def mul(a, b):
    return _elementwise_meta("mul", a, b)
