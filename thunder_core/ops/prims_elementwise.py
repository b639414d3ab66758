"""Elementwise primitives, and the two conversions every torch-level op builds on.

**Elementwise prims** (:data:`UNARY`, :data:`BINARY`, ``where``) take tensors that already
share one shape, dtype and device: torch-level decompositions broadcast them with
:func:`broadcast_in_dim` and convert them with :func:`convert_element_type` first. A Python
number may stand in for a tensor operand, provided its kind (bool < int < float < complex)
does not exceed the tensor dtype's, so the result dtype is always the tensor dtype (a float
number added to an int tensor would promote; convert the tensor first). The output has the
inputs' shape, device and dtype, except where the table says ``"bool"`` (comparisons and
tests) or ``"real"`` (complex -> real, e.g. ``abs``).

Semantics are torch's, including integers: ``div`` of integers truncates toward zero (C
division; true division is ``div`` of floats), ``floor_divide``/``remainder`` round toward
negative infinity like Python, ``fmod`` keeps the dividend's sign like C.

**Conversions**: ``convert_element_type(a, dtype=)`` always returns a new tensor (so it
doubles as a copy when the dtype is unchanged); ``broadcast_in_dim(a, shape=,
broadcast_dimensions=)`` places dimension ``i`` of ``a`` at output dimension
``broadcast_dimensions[i]`` (sizes 1 stretch), and its torch implementation is a view, like
``torch.expand``; ``device_put(a, device=)`` copies to a device.

Every meta checks its inputs and raises an error saying what to convert or broadcast.

Traits: the elementwise prims and ``convert_element_type`` are ``"elementwise"``, those in
:data:`TRANSCENDENTAL_PRIMS` also ``"transcendental"``; ``broadcast_in_dim`` is a ``"view"``, and so are
``real``/``imag`` (:data:`VIEW_PRIMS`: views of their complex input, as in torch).
``device_put`` has no trait (a copy between devices: no computation a trait describes).
"""

from __future__ import annotations

from ..ir.printing import describe

import torch

from ..ir import NumberProxy, TensorProxy, tensor_proxy
from ..ir.traits import ELEMENTWISE, TRANSCENDENTAL, VIEW
from .registry import prim

__all__ = ["UNARY", "BINARY", "TRANSCENDENTAL_PRIMS", "dtype_kind", "number_type", "KINDS"]

#: Kinds of values, in promotion order: bool, integer, floating point, complex.
KINDS = "bifc"
_KIND_NAMES = {"b": "bool", "i": "integer", "f": "floating-point", "c": "complex"}
_NUMBER_KINDS = {bool: "b", int: "i", float: "f", complex: "c"}
_REAL = {torch.complex32: torch.float16, torch.complex64: torch.float32, torch.complex128: torch.float64}


def dtype_kind(dtype: torch.dtype) -> str:
    """``"b"``, ``"i"``, ``"f"`` or ``"c"``: the kind of a dtype (see :data:`KINDS`)."""
    if dtype is torch.bool:
        return "b"
    return "c" if dtype.is_complex else "f" if dtype.is_floating_point else "i"


def number_type(x) -> type | None:
    """The Python type of a number or :class:`NumberProxy` (bool/int/float/complex), else None."""
    if isinstance(x, NumberProxy):
        return x.python_type
    return type(x) if type(x) in _NUMBER_KINDS else None


#: unary prim -> (dtype kinds it accepts, output dtype: "same" | "bool" | "real").
UNARY: dict[str, tuple[str, str]] = {
    **{n: ("fc", "same") for n in ("exp exp2 expm1 log log1p log2 log10 sqrt rsqrt sin cos tan asin acos atan sinh "
                                   "cosh tanh asinh acosh atanh sigmoid reciprocal").split()},
    **{n: ("f", "same") for n in "erf erfc erfinv lgamma digamma".split()},
    "abs": ("ifc", "real"), "neg": ("ifc", "same"), "sign": ("bif", "same"), "signbit": ("bif", "bool"),
    **{n: ("if", "same") for n in "floor ceil round trunc".split()},
    "bitwise_not": ("bi", "same"),
    **{n: ("bifc", "bool") for n in "logical_not isnan isinf isfinite".split()},
    "real": ("c", "real"), "imag": ("c", "real"),
}

#: binary prim -> (dtype kinds it accepts, output dtype: "same" | "bool").
BINARY: dict[str, tuple[str, str]] = {
    "add": ("bifc", "same"), "mul": ("bifc", "same"), "sub": ("ifc", "same"), "div": ("ifc", "same"),
    "pow": ("ifc", "same"),
    **{n: ("if", "same") for n in "floor_divide remainder fmod".split()},
    **{n: ("f", "same") for n in "atan2 hypot copysign nextafter".split()},
    "maximum": ("bif", "same"), "minimum": ("bif", "same"),
    **{n: ("bi", "same") for n in "bitwise_and bitwise_or bitwise_xor".split()},
    "bitwise_left_shift": ("i", "same"), "bitwise_right_shift": ("i", "same"),
    "eq": ("bifc", "bool"), "ne": ("bifc", "bool"),
    **{n: ("bif", "bool") for n in "lt le gt ge".split()},
    **{n: ("bifc", "bool") for n in "logical_and logical_or logical_xor".split()},
}

#: elementwise prims whose math is transcendental (trait ``"transcendental"``, see thunder_core.ir.traits)
TRANSCENDENTAL_PRIMS = frozenset(("exp exp2 expm1 log log1p log2 log10 sqrt rsqrt sin cos tan asin acos atan sinh cosh "
                                  "tanh asinh acosh atanh sigmoid erf erfc erfinv lgamma digamma pow atan2 "
                                  "hypot").split())


#: elementwise prims that return a view of their complex input (as torch.real/torch.imag do)
VIEW_PRIMS = frozenset({"real", "imag"})


def _traits(name: str) -> tuple:
    if name in VIEW_PRIMS:
        return (ELEMENTWISE, VIEW)
    return (ELEMENTWISE, TRANSCENDENTAL) if name in TRANSCENDENTAL_PRIMS else (ELEMENTWISE,)


def _describe(x) -> str:
    if isinstance(x, TensorProxy):
        return f"{x.name} (a {x.dtype} tensor of shape {list(x.shape)} on {x.device})"
    return describe(x)


def _check(name: str, args, kinds: str) -> tuple[TensorProxy, list[TensorProxy]]:
    """The first tensor argument and all tensor arguments, after checking that tensors agree
    and numbers fit (see the module docstring)."""
    tensors = [a for a in args if isinstance(a, TensorProxy)]
    if not tensors:
        raise TypeError(f"prims.{name} needs at least one tensor argument, got {', '.join(map(_describe, args))}.")
    t = tensors[0]
    for u in tensors[1:]:
        if u.shape != t.shape or u.dtype != t.dtype or u.device != t.device:
            raise ValueError(f"prims.{name} takes tensors of one shape, dtype and device, but got {_describe(t)} and "
                             f"{_describe(u)}. Broadcast them with prims.broadcast_in_dim and convert them with "
                             f"prims.convert_element_type first.")
    kind = dtype_kind(t.dtype)
    if kind not in kinds:
        accepted = " or ".join(_KIND_NAMES[k] for k in kinds)
        raise NotImplementedError(f"prims.{name} is defined for {accepted} tensors, but got {_describe(t)}. Convert the "
                        f"input with prims.convert_element_type first.")
    for a in args:
        if isinstance(a, TensorProxy):
            continue
        nt = number_type(a)
        if nt is None:
            raise TypeError(f"prims.{name}: argument {_describe(a)} is neither a tensor nor a Python number.")
        if KINDS.index(_NUMBER_KINDS[nt]) > KINDS.index(kind):
            raise TypeError(f"prims.{name}: the {nt.__name__} {a} cannot combine with {_describe(t)} without "
                            f"changing the result dtype. Convert the tensor to the promoted dtype first.")
    return t, tensors


def _output(t: TensorProxy, dtype: torch.dtype, tensors, shape=None) -> TensorProxy:
    # Like torch: only floating-point and complex results can require grad, and only with grad mode on.
    rg = torch.is_grad_enabled() and (dtype.is_floating_point or dtype.is_complex) \
        and any(u.requires_grad for u in tensors)
    return tensor_proxy(t.shape if shape is None else shape, dtype, t.device, rg)


def _out_dtype(rule: str, dtype: torch.dtype) -> torch.dtype:
    return torch.bool if rule == "bool" else _REAL.get(dtype, dtype) if rule == "real" else dtype


def _define_unary(name: str, kinds: str, rule: str):
    def meta(a):
        t, tensors = _check(name, (a,), kinds)
        return _output(t, _out_dtype(rule, t.dtype), tensors)
    meta.__name__ = name
    return prim(name, tags=_traits(name))(meta)


def _define_binary(name: str, kinds: str, rule: str):
    def meta(a, b):
        t, tensors = _check(name, (a, b), kinds)
        return _output(t, _out_dtype(rule, t.dtype), tensors)
    meta.__name__ = name
    return prim(name, tags=_traits(name))(meta)


for _name, (_kinds, _rule) in UNARY.items():
    _define_unary(_name, _kinds, _rule)
for _name, (_kinds, _rule) in BINARY.items():
    _define_binary(_name, _kinds, _rule)
del _name, _kinds, _rule


@prim(tags=(ELEMENTWISE,))
def where(pred, a, b):
    """``a`` where ``pred`` holds, else ``b``: ``pred`` is a bool tensor; ``a`` and ``b`` are
    tensors of its shape and device with one dtype, or numbers (at least one is a tensor)."""
    if not isinstance(pred, TensorProxy) or pred.dtype is not torch.bool:
        raise TypeError(f"prims.where: the condition must be a bool tensor, got {_describe(pred)}.")
    t, tensors = _check("where", (a, b), KINDS)
    if t.shape != pred.shape or t.device != pred.device:
        raise ValueError(f"prims.where: the condition {_describe(pred)} and the branch {_describe(t)} must have one "
                         f"shape and device; broadcast them with prims.broadcast_in_dim first.")
    return _output(t, t.dtype, tensors)


@prim(tags=(ELEMENTWISE,))
def convert_element_type(a, *, dtype: torch.dtype):
    """A new tensor with ``a``'s values converted to ``dtype`` (a copy when the dtype is unchanged)."""
    if not isinstance(a, TensorProxy):
        raise TypeError(f"prims.convert_element_type converts tensors, got {_describe(a)}.")
    if not isinstance(dtype, torch.dtype):
        raise TypeError(f"prims.convert_element_type: dtype must be a torch.dtype, got {dtype!r}.")
    return _output(a, dtype, (a,))


@prim(tags=(VIEW,))
def broadcast_in_dim(a, *, shape, broadcast_dimensions):
    """``a`` broadcast to ``shape``: dimension ``i`` of ``a`` becomes output dimension
    ``broadcast_dimensions[i]`` (strictly increasing) and must have that size or size 1."""
    if not isinstance(a, TensorProxy):
        raise TypeError(f"prims.broadcast_in_dim broadcasts tensors, got {_describe(a)}.")
    shape, dims = tuple(shape), tuple(broadcast_dimensions)
    if any(not isinstance(s, int) or s < 0 for s in shape):
        raise ValueError(f"prims.broadcast_in_dim: shape must be a sequence of non-negative ints, got {shape}.")
    problem = None
    if len(dims) != a.ndim:
        problem = f"it has {len(dims)} entries but {a.name} has {a.ndim} dimensions"
    elif any(not 0 <= d < len(shape) for d in dims):
        problem = f"its entries must be output dimensions, i.e. in range({len(shape)})"
    elif any(d1 >= d2 for d1, d2 in zip(dims, dims[1:])):
        problem = "its entries must be strictly increasing"
    else:
        bad = [i for i, d in enumerate(dims) if a.shape[i] not in (1, shape[d])]
        if bad:
            i = bad[0]
            problem = (f"dimension {i} of {a.name} has size {a.shape[i]}, but output dimension {dims[i]} has size "
                       f"{shape[dims[i]]} (sizes must match or be 1)")
    if problem:
        raise ValueError(f"prims.broadcast_in_dim of {_describe(a)} to shape {list(shape)} with broadcast_dimensions="
                         f"{dims}: {problem}.")
    return tensor_proxy(shape, a.dtype, a.device, a.requires_grad and torch.is_grad_enabled())


@prim()
def device_put(a, *, device: torch.device):
    """A copy of ``a`` on ``device``."""
    if not isinstance(a, TensorProxy):
        raise TypeError(f"prims.device_put moves tensors, got {_describe(a)}.")
    return tensor_proxy(a.shape, a.dtype, torch.device(device), a.requires_grad and torch.is_grad_enabled())
