"""Torch implementations of the elementwise primitives.

Every unary and binary elementwise prim (trait ``"elementwise"``) without an implementation
below is the torch function of the same name. A Python number in
place of a tensor is passed to torch as is where torch accepts a number in that position;
elsewhere it becomes a 0-dim CPU tensor of the other operand's dtype, which is exact because
the prim's operands already share that dtype (and torch lets CPU scalars meet any device).
"""

from __future__ import annotations

import inspect

import torch
from thunder_core.extend import has_trait, prims

from .prims import IMPLS, impl

#: Binary prims whose torch function accepts a Python number as the second argument.
_NUMBER_SECOND = {"add", "sub", "mul", "div", "floor_divide", "remainder", "fmod", "pow", "copysign", "bitwise_and",
                  "bitwise_or", "bitwise_xor", "bitwise_left_shift", "bitwise_right_shift", "eq", "ne", "lt", "le",
                  "gt", "ge"}
#: ... and as the first argument (torch's Scalar-first overloads).
_NUMBER_FIRST = {"pow", "remainder", "bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_left_shift",
                 "bitwise_right_shift"}
#: Commutative prims: a number first is swapped to second place.
_COMMUTATIVE = {"add", "mul", "eq", "ne", "maximum", "minimum", "hypot", "bitwise_and", "bitwise_or", "bitwise_xor",
                "logical_and", "logical_or", "logical_xor"}


def _scalar(x, like: torch.Tensor) -> torch.Tensor:
    return torch.scalar_tensor(x, dtype=like.dtype)


def _binary(name: str, fn):
    def run(a, b):
        if not isinstance(a, torch.Tensor):
            if name in _COMMUTATIVE:
                a, b = b, a
            elif name == "sub":
                return torch.rsub(b, a)
            elif name not in _NUMBER_FIRST:
                a = _scalar(a, b)
        if not isinstance(b, torch.Tensor) and name not in _NUMBER_SECOND:
            b = _scalar(b, a)
        return fn(a, b)
    run.__name__ = name
    return run


def _int_div(a, b):
    """Torch's true division for floating-point/complex operands, C (truncating) division for integers."""
    t = a if isinstance(a, torch.Tensor) else b
    return torch.div(a, b, rounding_mode=None if t.is_floating_point() or t.is_complex() else "trunc")


@impl("prims.where")
def where(pred, a, b):
    return torch.where(pred, a, b)


@impl("prims.convert_element_type")
def convert_element_type(a, *, dtype):
    return a.to(dtype, copy=True)


@impl("prims.broadcast_in_dim")
def broadcast_in_dim(a, *, shape, broadcast_dimensions):
    # a view, like torch.expand: unsqueeze the dimensions a lacks, then stretch size-1 ones
    dims = set(broadcast_dimensions)
    for d in range(len(shape)):
        if d not in dims:
            a = a.unsqueeze(d)
    return a.expand(shape)


@impl("prims.device_put")
def device_put(a, *, device):
    return a.to(device, copy=True)


def _same_named():
    """The other elementwise prims: each is the torch function of its name, unary or binary
    as its meta function's signature says."""
    for sid, sym in prims().items():
        if sid in IMPLS or not has_trait(sym, "elementwise") or not hasattr(torch, sym.name):
            continue
        arity = len([p for p in inspect.signature(sym.meta).parameters.values()
                     if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)])
        fn = _int_div if sym.name == "div" else getattr(torch, sym.name)
        impl(sid)(fn if arity == 1 else _binary(sym.name, fn))


_same_named()
