"""How each primitive becomes nvFuser operations: the translation table, keyed by symbol id.

An entry is ``emit(em, bsym) -> value``: it reads its operands with ``em.value(x)`` (a tensor
already in the definition, or a Python number made a constant scalar), records nvFuser
operations with ``em.op(name, *args, **kwargs)`` (``fd.ops.<name>``) and returns the value of
the primitive's output. The translator (:mod:`.translate`) then casts that value to the dtype
the trace declares for the output when nvFuser inferred another one (nvFuser computes
``bf16 + bf16`` in float32 and returns float32; the primitive returns bfloat16).

Nothing here imports nvFuser: :class:`.translate.Emitter` hands operations either to a real
``FusionDefinition`` or to a recorder that only checks the region can be translated (the
checker and the claim function run where nvFuser is not installed).

Half-precision inputs of reductions are converted to float32 first (the sum of many bf16
values is accumulated in float32 and rounded once, as PyTorch does).
"""

from __future__ import annotations

import torch

from .dtypes import HALF


class Unsupported(Exception):
    """The region (or symbol) cannot be translated; the message says why (tc.explain shows it)."""


def arg(b, pos: int, key: str, default=None):
    """A bound symbol's argument by position or by keyword (static arguments of primitives
    are keyword-only)."""
    if len(b.args) > pos:
        return b.args[pos]
    return b.kwargs.get(key, default)


def _ints(x, what: str) -> list:
    out = []
    for v in x:
        if isinstance(v, bool) or not isinstance(v, int):
            raise Unsupported(f"{what} {tuple(x)} holds {v!r}, not a constant int")
        out.append(int(v))
    return out


def _sizes(em, x, what: str) -> list:
    """A shape, bounds or widths (``what``, for errors): ints, and scalars of the definition
    for symbolic sizes."""
    if not isinstance(x, (tuple, list)):
        raise Unsupported(f"{what} {x!r} is not a sequence of sizes")
    return [em.size(v) for v in x]


def _unary(name):
    def emit(em, b):
        return em.op(name, em.value(b.args[0]))
    emit.nv = name
    return emit


def _binary(name):
    def emit(em, b):
        return em.op(name, em.value(b.args[0]), em.value(b.args[1]))
    emit.nv = name
    return emit


def _where(em, b):
    return em.op("where", em.value(b.args[0]), em.value(b.args[1]), em.value(b.args[2]))


def _convert(em, b):
    out = b.flat_outs[0]
    return em.cast(em.value(b.args[0]), out.dtype)


def _broadcast_in_dim(em, b):
    a = em.value(b.args[0])
    shape = _sizes(em, arg(b, 1, "shape"), "shape")
    dims = _ints(arg(b, 2, "broadcast_dimensions"), "broadcast_dimensions")
    return em.op("broadcast_in_dim", a, shape=shape, broadcast_dims=dims)


def _reshape(em, b):
    return em.op("reshape", em.value(b.args[0]), new_shape=_sizes(em, arg(b, 1, "shape"), "shape"))


def _transpose(em, b):
    return em.op("permute", em.value(b.args[0]), dims=_ints(arg(b, 1, "permutation"), "permutation"))


def _squeeze(em, b):
    return em.op("squeeze", em.value(b.args[0]), dims=_ints(arg(b, 1, "dims"), "dims"))


def _slice(em, b):
    a = b.args[0]
    starts = _sizes(em, arg(b, 1, "start_indices"), "start_indices")
    ends = _sizes(em, arg(b, 2, "end_indices"), "end_indices")
    strides = arg(b, 3, "strides")
    strides = [1] * len(starts) if strides is None else _ints(strides, "strides")
    if any(s != 1 for s in strides):
        # strided slices exist in nvFuser, but only unit strides are exercised by the lane's tests
        raise Unsupported(f"prims.slice of {a.name} with strides {tuple(strides)} (only unit strides are translated)")
    return em.op("slice", em.value(a), start_indices=starts, end_indices=ends, strides=strides)


def _cat(em, b):
    """Each tensor padded with zeros to the joined size at its offset along ``dim``, then
    nvFuser's ``cat(..., manual_padding=True)``: with ``cat``'s own padding, nvFuser prints
    widths as scalar expressions that re-execute into a different definition (measured:
    three inputs), with constant widths here it prints back exactly."""
    tensors = list(arg(b, 0, "tensors"))
    dim = int(arg(b, 1, "dim"))
    sizes = [em.size(t.shape[dim]) for t in tensors]  # symbolic sizes: scalars, the widths computed in the definition
    rank, total = len(tensors[0].shape), sizes[0]
    for size in sizes[1:]:
        total = em.add(total, size)
    padded, offset = [], 0
    for t, size in zip(tensors, sizes):
        widths = [0, 0] * (rank - 1 - dim) + [offset, em.add(em.add(total, offset, -1), size, -1)] + [0, 0] * dim
        padded.append(em.op("pad", em.value(t), widths, em.value(0, like=t)))
        offset = em.add(offset, size)
    return em.op("cat", padded, dim, manual_padding=True)


def _pad(em, b):
    """``ltorch.pad`` (``F.pad``) has no decomposition; constant padding is nvFuser's ``pad``
    (widths as F.pad gives them: (lo, hi) pairs from the last dim)."""
    a = b.args[0]
    value = b.args[1] if len(b.args) > 1 else b.kwargs.get("value")
    mode = b.kwargs.get("mode", "constant")
    widths = _sizes(em, b.kwargs.get("pad", ()), "pad")
    if mode != "constant":
        raise Unsupported(f"F.pad with mode={mode!r} (only constant padding is translated)")
    if any(not isinstance(w, int) for w in widths):
        raise Unsupported(f"F.pad with symbolic widths {tuple(b.kwargs.get('pad', ()))} (cropping or not: only "
                          f"constant widths are translated)")
    if any(w < 0 for w in widths):
        raise Unsupported(f"F.pad with the negative widths {tuple(widths)} (cropping is not translated)")
    return em.op("pad", em.value(a), widths, em.value(0 if value is None else value, like=a))


def _reduction(name):
    def emit(em, b):
        a = b.args[0]
        dims = _ints(arg(b, 1, "dims"), "dims")
        if not dims:
            raise Unsupported(f"{b.sym.id} over no dims (a copy, not a reduction)")
        x = em.value(a)
        if a.dtype in HALF:
            x = em.cast(x, torch.float32)
        return em.op(name, x, dims=dims, keepdim=False)
    emit.nv = name
    return emit


def _var(em, b):
    a = b.args[0]
    dims = _ints(arg(b, 1, "dims"), "dims")
    correction = arg(b, 2, "correction", 1)
    if isinstance(correction, float) and correction.is_integer():
        correction = int(correction)
    if isinstance(correction, bool) or not isinstance(correction, int):
        raise Unsupported(f"prims.var with the correction {correction!r} (nvFuser takes an integer correction)")
    x = em.value(a)
    if a.dtype in HALF:
        x = em.cast(x, torch.float32)
    return em.op("var", x, dims=dims, correction=correction, keepdim=False)


def _cumsum(em, b):
    a = b.args[0]
    x = em.value(a)
    if a.dtype in HALF:
        x = em.cast(x, torch.float32)
    return em.op("cumsum", x, int(arg(b, 1, "dim")))


def _full(em, b):
    out = b.flat_outs[0]
    value = em.value(arg(b, 0, "fill_value"), like=out)
    return em.op("full", shape=_sizes(em, arg(b, 1, "shape"), "shape"), fill_value=value, dtype=em.dtype(out.dtype))


def _iota(em, b):
    out = b.flat_outs[0]
    length = em.value(arg(b, 0, "length"), like=torch.int64)
    start = em.value(arg(b, 1, "start"), like=out)
    step = em.value(arg(b, 2, "step"), like=out)
    return em.op("iota", length, start, step, em.dtype(out.dtype))


def _contiguous(em, b):
    """``ltorch.contiguous`` has no decomposition: a fusion's outputs are written contiguous,
    so inside a definition it is a copy (``set``)."""
    return em.op("set", em.value(b.args[0]))


UNARY = {
    "abs": "abs", "neg": "neg", "exp": "exp", "exp2": "exp2", "expm1": "expm1", "log": "log", "log1p": "log1p",
    "log2": "log2", "log10": "log10", "sqrt": "sqrt", "rsqrt": "rsqrt", "sin": "sin", "cos": "cos", "tan": "tan",
    "asin": "asin", "acos": "acos", "atan": "atan", "sinh": "sinh", "cosh": "cosh", "tanh": "tanh",
    "asinh": "asinh", "acosh": "acosh", "atanh": "atanh", "sigmoid": "sigmoid", "reciprocal": "reciprocal",
    "erf": "erf", "erfc": "erfc", "erfinv": "erfinv", "lgamma": "lgamma", "floor": "floor", "ceil": "ceil",
    "round": "round", "trunc": "trunc", "sign": "sign", "signbit": "signbit", "bitwise_not": "bitwise_not",
    "logical_not": "logical_not", "isnan": "isnan", "isinf": "isinf", "isfinite": "isfinite",
}
BINARY = {
    "add": "add", "sub": "sub", "mul": "mul", "div": "div", "pow": "pow", "maximum": "maximum",
    "minimum": "minimum", "atan2": "atan2", "fmod": "fmod", "nextafter": "nextafter",
    "eq": "eq", "ne": "ne", "lt": "lt", "le": "le", "gt": "gt", "ge": "ge",
    "logical_and": "logical_and", "logical_or": "logical_or", "bitwise_and": "bitwise_and",
    "bitwise_or": "bitwise_or", "bitwise_xor": "bitwise_xor", "bitwise_left_shift": "bitwise_left_shift",
    "bitwise_right_shift": "bitwise_right_shift",
}

#: symbol id -> emit(em, bsym) -> value. Primitives, and the few torch-level symbols that
#: have no decomposition but a meaning inside a fusion (``contiguous``, ``pad``). ``prims.pad``
#: (XLA-style, with interior padding) is not here: no torch-level op decomposes into it.
TRANSLATIONS = {
    **{f"prims.{k}": _unary(v) for k, v in UNARY.items()},
    **{f"prims.{k}": _binary(v) for k, v in BINARY.items()},
    "prims.where": _where,
    "prims.convert_element_type": _convert,
    "prims.broadcast_in_dim": _broadcast_in_dim,
    "prims.reshape": _reshape,
    "prims.transpose": _transpose,
    "prims.squeeze": _squeeze,
    "prims.slice": _slice,
    "prims.cat": _cat,
    "prims.sum": _reduction("sum"),
    "prims.prod": _reduction("prod"),
    "prims.amax": _reduction("max"),
    "prims.amin": _reduction("min"),
    "prims.var": _var,
    "prims.cumsum": _cumsum,
    "prims.full": _full,
    "prims.iota": _iota,
    "ltorch.contiguous": _contiguous,
    "ltorch.pad": _pad,
}

#: primitives that only rearrange or view data: a region made of nothing else is left to
#: the library (a view costs nothing there, a fusion would copy)
MOVES_ONLY = frozenset({"prims.broadcast_in_dim", "prims.reshape", "prims.transpose", "prims.squeeze",
                        "prims.slice", "ltorch.contiguous"})
