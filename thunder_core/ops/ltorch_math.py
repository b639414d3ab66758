"""More torch-level elementwise math: angle conversions, ``logaddexp``, ``xlogy``, ``sinc``,
``logit``, ``fmax``/``fmin``, ``heaviside``, ``ldexp``, ``sgn``/``angle``, the ``isposinf``
family and ``isclose``; integer ``gcd``/``lcm``, ``frexp``; the complex constructors and the
conjugation ops.

Each decomposes into primitives (or other torch-level symbols) the way torch's CPU kernel
computes it, formula for formula (``logaddexp`` is ``m + log1p(exp(-|a - b|))`` with
``m = max(a, b)``, and ``a`` itself where both are the same infinity; ``sinc`` is
``sin(pi x) / (pi x)``, 1 at 0), in float32 for float16/bfloat16 inputs where the kernel
computes in float32 (opmath). A decomposition covers the real floating-point calls, and
integers where torch promotes them; it *declines* the calls it does not cover (returns
``NotImplemented``: complex inputs, numbers where a tensor is usual, dtype mismatches eager
rejects) and those are recorded whole, their metadata and errors from torch itself under
fake tensors (see ``ir.symbol``). ``gcd``, ``lcm``, ``frexp`` and ``complex`` have no
decomposition (no primitive computes them).

Traits: ``"elementwise"`` for all, with ``"transcendental"`` where the math is (``logaddexp``,
``xlogy``, ``sinc``, ``logit``...). Gradients: the rules in ``transforms/vjp_math.py`` for
the ops whose decomposition would differentiate differently from eager at edge points
(``xlogy`` at ``x == 0``, ``fmax`` at ties, ``logit`` outside ``[0, 1]``); the others through
their decomposition.
"""

from __future__ import annotations

import math

import torch

from ..ir import TENSOR_METHODS, TensorProxy
from ..ir.traits import ELEMENTWISE, VIEW
from . import prims
from .ltorch_elementwise import ET, _opmath, convert, op, prepare, register_front, result_dtype
from .prims_elementwise import dtype_kind
from .registry import T

__all__ = ["CALLABLES"]

#: Every torch callable registered by this module (tests/ops/test_math_ops.py covers each).
CALLABLES: list = []

_PI_180 = 0.017453292519943295769236907684886127134428718885417   # torch's M_PI_180
_180_PI = 57.295779513082320876798154814105170332405472466564     # torch's M_180_PI


def _real_float(*xs) -> bool:
    """All tensors among ``xs`` are real floating point (and there is one)."""
    ts = [x for x in xs if isinstance(x, TensorProxy)]
    return bool(ts) and all(dtype_kind(t.dtype) == "f" for t in ts)


def _floating(x: TensorProxy):
    """``x`` in the default float dtype when it is an integer or bool tensor (torch's "promote
    integer inputs to float" ops), else itself; None for complex."""
    kind = dtype_kind(x.dtype)
    if kind == "c":
        return None
    return convert(x, torch.get_default_dtype()) if kind in "bi" else x


def _tensors(*xs) -> bool:
    return all(isinstance(x, TensorProxy) for x in xs)


def _full_like(x: TensorProxy, value, dtype):
    return prims.full(value, shape=x.shape, dtype=dtype, device=x.device)


# ---------------------------------------------------------------- angle conversions

def _scale(x, factor):
    x = _floating(x)
    return NotImplemented if x is None else prims.mul(x, factor)


@op("deg2rad", callables=CALLABLES)
def deg2rad(input):
    """``input * pi / 180`` (integers in the default float dtype)."""
    return _scale(input, _PI_180)


@op("rad2deg", callables=CALLABLES)
def rad2deg(input):
    """``input * 180 / pi``."""
    return _scale(input, _180_PI)


# ---------------------------------------------------------------- log-sum-exp of two, x*log(y)

def _logaddexp(a, b, exp, scale):
    if not (_tensors(a, b) and _real_float(a, b)):
        return NotImplemented
    dtype = result_dtype(a, b)
    x, y = prepare("logaddexp", (a, b), _opmath(dtype))
    m = prims.maximum(x, y)
    tail = prims.log1p(exp(prims.neg(prims.abs(prims.sub(x, y)))))
    out = prims.add(m, tail if scale is None else prims.mul(tail, scale))
    same_inf = prims.logical_and(prims.isinf(x), prims.eq(x, y))
    return convert(prims.where(same_inf, x, out), dtype)


@op("logaddexp", inputs=("input", "other"), tags=ET, callables=CALLABLES)
def logaddexp(input, other):
    """``log(exp(input) + exp(other))`` without overflow."""
    return _logaddexp(input, other, prims.exp, None)


@op("logaddexp2", inputs=("input", "other"), tags=ET, callables=CALLABLES)
def logaddexp2(input, other):
    """``log2(2**input + 2**other)`` without overflow."""
    return _logaddexp(input, other, prims.exp2, 1.0 / math.log(2.0))


def _xlog(name, log, x, y):
    """torch's ``x * log(y)`` kernels: NaN where ``y`` is NaN, else 0 where ``x == 0``."""
    if not isinstance(x, TensorProxy) and not isinstance(y, TensorProxy):
        return NotImplemented
    dtype = result_dtype(x, y)
    if dtype_kind(dtype) == "c":
        return NotImplemented
    if dtype_kind(dtype) in "bi":
        dtype = torch.get_default_dtype()
    compute = _opmath(dtype)
    shape_of = next(t for t in (x, y) if isinstance(t, TensorProxy))
    # a number becomes a 0-dim tensor, as torch wraps it: log(y) is computed in the tensor's dtype
    x, y = (a if isinstance(a, TensorProxy) else prims.full(a, shape=(), dtype=compute, device=shape_of.device)
            for a in (x, y))
    x, y = prepare(name, (x, y), compute)
    out = prims.where(prims.eq(x, 0), 0.0, prims.mul(x, log(y)))
    return convert(prims.where(prims.isnan(y), math.nan, out), dtype)


@op("xlogy", inputs=("input", "other"), extra=(torch.special.xlogy,), tags=ET, callables=CALLABLES)
def xlogy(input, other):
    """``input * log(other)``, 0 where ``input == 0`` (unless ``other`` is NaN)."""
    return _xlog("xlogy", prims.log, input, other)


@op("special_xlog1py", inputs=("input", "other"), fns=(torch.special.xlog1py,), methods=(), inplace=False, tags=ET,
    callables=CALLABLES)
def special_xlog1py(input, other):
    """``input * log1p(other)``, 0 where ``input == 0`` (unless ``other`` is NaN)."""
    return _xlog("xlog1py", prims.log1p, input, other)


@op("special_entr", fns=(torch.special.entr,), methods=(), inplace=False, tags=ET, callables=CALLABLES)
def special_entr(input):
    """``-x * log(x)`` for ``x > 0``, 0 at 0, ``-inf`` below, NaN for NaN."""
    x = _floating(input)
    if x is None:
        return NotImplemented
    dtype = x.dtype
    x = convert(x, _opmath(dtype))
    out = prims.where(prims.gt(x, 0), prims.mul(prims.neg(x), prims.log(x)),
                      prims.where(prims.eq(x, 0), 0.0, _full_like(x, -math.inf, x.dtype)))
    return convert(prims.where(prims.isnan(x), x, out), dtype)


@op("sinc", extra=(torch.special.sinc,), tags=ET, callables=CALLABLES)
def sinc(input):
    """``sin(pi x) / (pi x)``, 1 at 0."""
    x = _floating(input)
    if x is None:
        return NotImplemented
    dtype = x.dtype
    x = convert(x, _opmath(dtype))
    product = prims.mul(x, math.pi)
    return convert(prims.where(prims.eq(x, 0), 1.0, prims.div(prims.sin(product), product)), dtype)


@op("logit", inputs=("input",), extra=(torch.special.logit,), tags=ET, callables=CALLABLES)
def logit(input, eps=None):
    """``log(x / (1 - x))``, with ``x`` clamped to ``[eps, 1 - eps]`` when ``eps`` is given."""
    x = _floating(input)
    if x is None:
        return NotImplemented
    dtype = x.dtype
    if eps is not None and eps >= 0:  # the bounds in the tensor's dtype, as the kernel has them
        lo = torch.tensor(eps, dtype=dtype).item()
        hi = (torch.tensor(1, dtype=dtype) - torch.tensor(eps, dtype=dtype)).item()
        x = prims.minimum(prims.maximum(x, lo), hi)
    return prims.log(prims.div(x, prims.sub(1.0, x)))


# ---------------------------------------------------------------- selections

def _fminmax(extreme, a, b):
    if not _tensors(a, b):
        return NotImplemented
    dtype = result_dtype(a, b)
    if dtype_kind(dtype) == "c":
        return NotImplemented
    x, y = prepare("fmax", (a, b), dtype)
    out = extreme(x, y)
    if dtype_kind(dtype) != "f":
        return out
    return prims.where(prims.isnan(x), y, prims.where(prims.isnan(y), x, out))


@op("fmax", inputs=("input", "other"), inplace=False, callables=CALLABLES)
def fmax(input, other):
    """The larger of the two, ignoring a NaN (NaN only where both are)."""
    return _fminmax(prims.maximum, input, other)


@op("fmin", inputs=("input", "other"), inplace=False, callables=CALLABLES)
def fmin(input, other):
    """The smaller of the two, ignoring a NaN (NaN only where both are)."""
    return _fminmax(prims.minimum, input, other)


@op("heaviside", inputs=("input", "values"), callables=CALLABLES)
def heaviside(input, values):
    """``values`` where ``input == 0``, else ``input > 0``, in ``input``'s dtype."""
    if not _tensors(input, values) or input.dtype != values.dtype or dtype_kind(input.dtype) == "c":
        return NotImplemented  # (eager's error: dtypes must match, complex unsupported)
    x, v = prepare("heaviside", (input, values))
    zero = False if x.dtype is torch.bool else 0
    return prims.where(prims.eq(x, zero), v, convert(prims.gt(x, zero), x.dtype))


@op("ldexp", inputs=("input", "other"), callables=CALLABLES)
def ldexp(input, other):
    """``input * 2**other``, as torch computes it (``mul(input, pow(2.0, other))``)."""
    if not _tensors(input, other):
        return NotImplemented
    return T.mul(input, T.pow(2.0, other))


# ---------------------------------------------------------------- signs and tests

@op("sgn", callables=CALLABLES)
def sgn(input):
    """``sign`` for real tensors; ``z / |z|`` for complex ones (run whole)."""
    if dtype_kind(input.dtype) == "c":
        return NotImplemented
    return T.sign(input)


@op("angle", inplace=False, callables=CALLABLES)
def angle(input):
    """The argument of a complex number (run whole); for real ``x``: pi where ``x < 0``, else 0 (NaN stays)."""
    x = _floating(input)
    if x is None:
        return NotImplemented
    return prims.where(prims.isnan(x), x, prims.where(prims.lt(x, 0), math.pi, _full_like(x, 0.0, x.dtype)))


def _isinf_signed(x, value):
    kind = dtype_kind(x.dtype)
    if kind == "c":
        return NotImplemented
    return prims.eq(x, value) if kind == "f" else _full_like(x, False, torch.bool)


@op("isposinf", inplace=False, callables=CALLABLES)
def isposinf(input):
    """``input == inf`` (all False for integers)."""
    return _isinf_signed(input, math.inf)


@op("isneginf", inplace=False, callables=CALLABLES)
def isneginf(input):
    """``input == -inf`` (all False for integers)."""
    return _isinf_signed(input, -math.inf)


@op("isreal", inplace=False, callables=CALLABLES)
def isreal(input):
    """``imag(input) == 0`` for complex tensors; all True for real ones."""
    if dtype_kind(input.dtype) == "c":
        return prims.eq(prims.imag(input), 0.0)
    return _full_like(input, True, torch.bool)


@op("isclose", inputs=("input", "other"), inplace=False, callables=CALLABLES)
def isclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    """``|input - other| <= atol + rtol * |other|`` (or equal, or both NaN with ``equal_nan``),
    computed with torch's own sequence of ops."""
    if not _tensors(input, other) or input.dtype != other.dtype or rtol < 0 or atol < 0 or \
            (equal_nan and input.dtype.is_complex):
        return NotImplemented  # (eager's errors)
    close = T.eq(input, other)
    if equal_nan and input.dtype.is_floating_point:
        close = T.logical_or(close, T.logical_and(T.isnan(input), T.isnan(other)))
    if rtol == 0 and atol == 0:
        return close
    default = torch.get_default_dtype()
    a = convert(input, default) if input.dtype is torch.bool else input
    b = convert(other, default) if other.dtype is torch.bool else other
    allowed = T.add(T.abs(T.mul(b, rtol)), atol)
    actual = T.abs(T.sub(a, b))
    return T.logical_or(close, T.logical_and(T.isfinite(actual), T.le(actual, allowed)))


# ---------------------------------------------------------------- no decomposition: gcd, lcm, frexp

@op("gcd", inputs=("input", "other"), callables=CALLABLES)
def gcd(input, other):
    """Greatest common divisor of integers: run whole (no primitive loops)."""


@op("lcm", inputs=("input", "other"), callables=CALLABLES)
def lcm(input, other):
    """Least common multiple of integers: run whole."""


@op("frexp", inplace=False, returns=torch.return_types.frexp,
    impl=lambda args, kwargs: tuple(torch.frexp(*args, **kwargs)), callables=CALLABLES)
def frexp(input):
    """``(mantissa, exponent)`` with ``input == mantissa * 2**exponent``: run whole."""


# ---------------------------------------------------------------- complex numbers

@op("complex", inputs=("real", "imag"), inplace=False, methods=(), callables=CALLABLES)
def complex_(real, imag):
    """``real + i * imag``: run whole (no primitive builds complex numbers)."""


@op("polar", inputs=("abs", "angle"), inplace=False, methods=(), tags=ET, callables=CALLABLES)
def polar(abs, angle):
    """``complex(abs * cos(angle), abs * sin(angle))``, as torch computes it."""
    if not _tensors(abs, angle) or abs.dtype != angle.dtype or abs.dtype not in (torch.float32, torch.float64):
        return NotImplemented
    a, t = prepare("polar", (abs, angle))
    return T.complex(prims.mul(a, prims.cos(t)), prims.mul(a, prims.sin(t)))


@op("conj", inplace=False, tags=(VIEW, "may-return-input"), callables=CALLABLES)
def conj(input):
    """The input itself for real tensors (as in torch); a conjugated view of a complex one (run whole)."""
    return NotImplemented if dtype_kind(input.dtype) == "c" else input


@op("conj_physical", tags=(ELEMENTWISE, "may-return-input"), callables=CALLABLES)
def conj_physical(input):
    """The input itself for real tensors (as in torch); the conjugate of a complex one (run whole)."""
    return NotImplemented if dtype_kind(input.dtype) == "c" else input


@op("resolve_conj", inplace=False, tags=(ELEMENTWISE, "may-return-input"), callables=CALLABLES)
def resolve_conj(input):
    """A real tensor itself; a complex one made without a pending conjugation (run whole)."""
    return NotImplemented if dtype_kind(input.dtype) == "c" else input


@op("resolve_neg", inplace=False, tags=(ELEMENTWISE, "may-return-input"), callables=CALLABLES)
def resolve_neg(input):
    """A real tensor itself; a complex one made without a pending negation (run whole)."""
    return NotImplemented if dtype_kind(input.dtype) == "c" else input


@op("view_as_complex", inplace=False, methods=(), tags=(VIEW,), callables=CALLABLES)
def view_as_complex(input):
    """A complex view of a real tensor whose last dimension (of size 2) holds real and imaginary parts."""


def _chalf(self, memory_format=torch.preserve_format):
    """``Tensor.chalf()``: ``self.to(torch.complex32)``."""
    return TENSOR_METHODS["to"](self, torch.complex32, memory_format=memory_format)


_chalf.__name__ = "chalf"
register_front(_chalf, [torch.Tensor.chalf], ["chalf"], callables=CALLABLES)
