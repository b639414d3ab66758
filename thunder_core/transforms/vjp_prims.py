"""VJP rules of the primitives (see ``vjp.py`` for the rule contract).

Elementwise, reduction, scan, sort and linear-algebra prims are here; shape and indexing
prims in ``vjp_prims_shape.py``. Gradients match eager PyTorch's, including its choices at
non-differentiable points (``abs`` at 0 gives 0, ``maximum``/``minimum`` split ties equally,
``amax``/``amin`` share the gradient among equal maxima, ``floor``/``sign``/... give zeros,
``prod``/``cumprod`` are exact with zeros in the input).

Nonlinear rules are written for real dtypes; a complex input goes to the PyTorch fallback
(its gradients need conjugates, which are torch's convention). Prims without a rule here:
the non-differentiable ones (comparisons, bitwise and logical ops, tests, ``argmax``/``argmin``,
creation and random ops: their outputs never require grad), ``floor_divide`` (eager raises
"derivative not implemented"; so does the fallback) and ``real``/``imag`` (fallback).
"""

from __future__ import annotations

import math

from ..ir import TensorProxy
from ..ops import prims
from ..ops.registry import T
from .vjp import sum_to, torch_vjp_rule, vjp, zeros_for
from .vjp_prims_shape import rg  # also registers the shape and indexing rules

LN2, LN10 = math.log(2.0), math.log(10.0)
_2_SQRT_PI, _SQRT_PI_2 = 2.0 / math.sqrt(math.pi), math.sqrt(math.pi) / 2.0


def number(x):
    """The Python value of a number argument (a NumberProxy's recorded value); a symbolic
    number stays a proxy (arithmetic on it is recorded in the trace)."""
    v = getattr(x, "value", None)
    return x if v is None else v


def _complex(b) -> bool:
    return any(isinstance(p, TensorProxy) and p.dtype.is_complex for p in (*b.flat_args, *b.flat_outs))


def real_rule(*ids):
    """Register a rule written for real dtypes; complex inputs use the PyTorch fallback."""
    def register(rule):
        def dispatch(b, *cts):
            return torch_vjp_rule(b, *cts) if _complex(b) else rule(b, *cts)
        dispatch.__name__ = rule.__name__
        return vjp(*ids)(dispatch)
    return register


def expand_back(x, a, dims):
    """``x``, reduced from ``a`` over ``dims``, broadcast back to ``a``'s shape."""
    kept = tuple(d for d in range(a.ndim) if d not in dims)
    if tuple(x.shape) == tuple(a.shape):
        return x
    return prims.broadcast_in_dim(x, shape=a.shape, broadcast_dimensions=kept)


def rcumsum(x, dim):
    """Sums from each position to the end along ``dim``."""
    return prims.flip(prims.cumsum(prims.flip(x, dims=(dim,)), dim=dim), dims=(dim,))


# ---------------------------------------------------------------- unary elementwise

def _unary_rule(formula):
    """The rule of a unary prim whose gradient is ``formula(input, output, cotangent)``."""
    return lambda b, g: (formula(b.args[0], b.output, g),)


_UNARY = {
    "exp": lambda a, out, g: g * out,
    "exp2": lambda a, out, g: g * out * LN2,
    "expm1": lambda a, out, g: g * (out + 1),
    "log": lambda a, out, g: g / a,
    "log1p": lambda a, out, g: g / (a + 1),
    "log2": lambda a, out, g: g / (a * LN2),
    "log10": lambda a, out, g: g / (a * LN10),
    "sqrt": lambda a, out, g: g / (out * 2),
    "rsqrt": lambda a, out, g: g * (out * out * out) * -0.5,
    "sin": lambda a, out, g: g * T.cos(a),
    "cos": lambda a, out, g: -(g * T.sin(a)),
    "tan": lambda a, out, g: g * (out * out + 1),
    "asin": lambda a, out, g: g * T.rsqrt(1 - a * a),
    "acos": lambda a, out, g: -(g * T.rsqrt(1 - a * a)),
    "atan": lambda a, out, g: g / (a * a + 1),
    "sinh": lambda a, out, g: g * T.cosh(a),
    "cosh": lambda a, out, g: g * T.sinh(a),
    "tanh": lambda a, out, g: g * (1 - out * out),
    "asinh": lambda a, out, g: g * T.rsqrt(a * a + 1),
    "acosh": lambda a, out, g: g * T.rsqrt(a * a - 1),
    "atanh": lambda a, out, g: g / (1 - a * a),
    "sigmoid": lambda a, out, g: g * (out * (1 - out)),
    "reciprocal": lambda a, out, g: -(g * (out * out)),
    "erf": lambda a, out, g: g * (T.exp(-(a * a)) * _2_SQRT_PI),
    "erfc": lambda a, out, g: g * (T.exp(-(a * a)) * -_2_SQRT_PI),
    "erfinv": lambda a, out, g: g * (T.exp(out * out) * _SQRT_PI_2),
    "lgamma": lambda a, out, g: g * T.digamma(a),
    "digamma": lambda a, out, g: g * T.polygamma(1, a),
    "abs": lambda a, out, g: g * T.sign(a),  # sign(0) = 0: eager's gradient of abs at 0
    "neg": lambda a, out, g: -g,
    # piecewise constant: eager gives zeros (not None), so the input's .grad is a zero tensor
    **{n: (lambda a, out, g: zeros_for(a)) for n in ("sign", "floor", "ceil", "round", "trunc")},
}
for _name, _formula in _UNARY.items():
    real_rule(f"prims.{_name}")(_unary_rule(_formula))
del _name, _formula


# ---------------------------------------------------------------- binary elementwise

@vjp("prims.add")
def _add(b, g):
    return g, g


@vjp("prims.sub")
def _sub(b, g):
    return g, (-g if rg(b.args[1]) else None)


@real_rule("prims.mul")
def _mul(b, g):
    x, y = b.args
    return (g * y if rg(x) else None), (g * x if rg(y) else None)


@real_rule("prims.div")
def _div(b, g):
    x, y = b.args
    gx = g / y if rg(x) or rg(y) else None
    return gx, (-gx * b.output if rg(y) else None)  # d(x/y)/dy = -(x/y)/y


@real_rule("prims.pow")
def _pow(b, g):
    x, y, out = *b.args, b.output
    gx = gy = None
    if rg(x):
        if isinstance(y, TensorProxy):  # x**0 has gradient 0 even where x**-1 is inf
            gx = T.where(y == 0, 0.0, g * (y * x ** (y - 1)))
        else:
            e = number(y)
            gx = zeros_for(x) if e == 0 else g * (x ** (e - 1) * e)
    if rg(y):
        if isinstance(x, TensorProxy):  # 0**y has gradient 0 for y >= 0, as in eager
            gy = T.where((x == 0) & (y >= 0), 0.0, g * (out * T.log(x)))
        else:
            base = number(x)
            if base == 0:
                gy = T.where(y >= 0, 0.0, g * (out * -math.inf))
            else:
                gy = g * (out * (math.log(base) if base > 0 else math.nan))
    return gx, gy


def _extremum(b, g, wins):
    """maximum/minimum: the winner gets ``g``, ties split it equally (eager's choice)."""
    x, y = b.args
    half = g * 0.5

    def grad(p, q):  # NaN operands compare false both ways: both get g, like eager
        return T.where(wins(q, p), 0.0, T.where(p == q, half, g))
    return (grad(x, y) if rg(x) else None), (grad(y, x) if rg(y) else None)


@vjp("prims.maximum")
def _maximum(b, g):
    return _extremum(b, g, lambda p, q: p > q)


@vjp("prims.minimum")
def _minimum(b, g):
    return _extremum(b, g, lambda p, q: p < q)


@vjp("prims.atan2")
def _atan2(b, g):
    y, x = b.args
    s = g / (x * x + y * y)
    return (s * x if rg(y) else None), (-s * y if rg(x) else None)


@vjp("prims.hypot")
def _hypot(b, g):
    x, y = b.args
    s = g / b.output
    return (s * x if rg(x) else None), (s * y if rg(y) else None)


@vjp("prims.copysign")
def _copysign(b, g):
    x, y = b.args
    gx = T.where(x == 0, 0.0, g * (b.output / x)) if rg(x) else None  # eager masks x == 0
    return gx, (zeros_for(y) if rg(y) else None)


@vjp("prims.nextafter")
def _nextafter(b, g):
    x, y = b.args  # eager: g for x except where x == y, zeros for y
    return (T.where(x == y, 0.0, g) if rg(x) else None), (zeros_for(y) if rg(y) else None)


@vjp("prims.fmod")
def _fmod(b, g):
    x, y = b.args
    return g, (-g * T.div(x, y, rounding_mode="trunc") if rg(y) else None)


@vjp("prims.remainder")
def _remainder(b, g):
    x, y = b.args
    return g, (-g * T.div(x, y, rounding_mode="floor") if rg(y) else None)


@vjp("prims.where")
def _where(b, g):
    pred, x, y = b.args
    return None, (prims.where(pred, g, 0) if rg(x) else None), (prims.where(pred, 0, g) if rg(y) else None)


@vjp("prims.convert_element_type")
def _convert_element_type(b, g):
    a = b.args[0]
    if g.dtype == a.dtype:
        return (g,)
    if g.dtype.is_complex and not a.dtype.is_complex:
        g = prims.real(g)  # a real input's gradient is the real part, as in eager
    return (g if g.dtype == a.dtype else prims.convert_element_type(g, dtype=a.dtype),)


@vjp("prims.device_put")
def _device_put(b, g):
    a = b.args[0]
    return (g if g.device == a.device else prims.device_put(g, device=a.device),)


# ---------------------------------------------------------------- reductions and scans

@vjp("prims.sum")
def _sum(b, g):
    a = b.args[0]
    return (expand_back(g, a, b.kwargs["dims"]),)


@real_rule("prims.prod")
def _prod(b, g):
    # d prod / d a_i is the product of the others: out / a_i unless a_i == 0, where it is
    # the product of the other (non-zero) elements if a_i is the only zero, else 0 (eager's).
    a, out, dims = b.args[0], b.output, b.kwargs["dims"]
    zero = a == 0
    zeros = prims.sum(prims.convert_element_type(zero, dtype=a.dtype), dims=dims)
    others = prims.where(zeros == 1, prims.prod(prims.where(zero, 1, a), dims=dims), 0)
    return (prims.where(zero, expand_back(g * others, a, dims), expand_back(g * out, a, dims) / a),)


def _amax_amin(b, g):
    """The gradient goes to the elements equal to the result, shared equally among ties:
    ``g / count * mask``, eager's formula, which is NaN everywhere when no element equals a
    NaN result (a ``where`` would give zeros)."""
    a, dims = b.args[0], b.kwargs["dims"]
    hit = prims.convert_element_type(a == expand_back(b.output, a, dims), dtype=g.dtype)
    count = prims.sum(hit, dims=dims)
    return (expand_back(g / count, a, dims) * hit,)


vjp("prims.amax", "prims.amin")(_amax_amin)


@vjp("prims.var")
def _var(b, g):
    a, dims, correction = b.args[0], b.kwargs["dims"], b.kwargs["correction"]
    n = math.prod(a.shape[d] for d in dims)
    scale = 2.0 / (n - correction) if n != correction else math.inf
    centered = a - expand_back(prims.sum(a, dims=dims) / n, a, dims) if n else a
    return (expand_back(g * scale, a, dims) * centered,)


@vjp("prims.cumsum")
def _cumsum(b, g):
    a, dim = b.args[0], b.kwargs["dim"]
    return (g if a.ndim == 0 else rcumsum(g, dim),)


@real_rule("prims.cumprod")
def _cumprod(b, g):
    # grad_i = sum_{j>=i} g_j * prod_{k<=j, k!=i} a_k. With P the running product of the
    # non-zero elements and Z the running count of zeros, that product is P_j / a_i when no
    # zero up to j except possibly a_i itself, else 0: exact with zeros (like eager), no
    # division by zero, O(n).
    a, dim = b.args[0], b.kwargs["dim"]
    if a.ndim == 0:
        return (g,)
    zero = a == 0
    nonzero = prims.where(zero, 1, a)
    zeros = prims.cumsum(prims.convert_element_type(zero, dtype=a.dtype), dim=dim)
    w = g * prims.cumprod(nonzero, dim=dim)
    none_before = rcumsum(prims.where(zeros == 0, w, 0), dim)
    first_zero = rcumsum(prims.where(zeros == 1, w, 0), dim)
    return (prims.where(zero, first_zero, none_before) / nonzero,)


def _selected(b, g, *rest):
    """topk/sort: the values' cotangent goes back to where the values came from."""
    a, dim = b.args[0], b.kwargs["dim"]
    if g is None:
        return (None,)
    if a.ndim == 0:
        return (g,)
    base = prims.full(0, shape=a.shape, dtype=g.dtype, device=g.device)
    return (prims.scatter_add(base, b.output[1], g, dim=dim),)


vjp("prims.topk", "prims.sort")(_selected)


# ---------------------------------------------------------------- linear algebra

def _mT(x):
    perm = (*range(x.ndim - 2), x.ndim - 1, x.ndim - 2)
    return prims.transpose(x, permutation=perm)


@real_rule("prims.matmul")
def _matmul(b, g):
    # Promote 1-D operands as matmul does ((k,) @ -> (1, k), @ (k,) -> (k, 1)), take the
    # matrix gradients, then sum the broadcast batch dims away and drop the added dims.
    a, w = b.args
    a2 = prims.reshape(a, shape=(1, a.shape[0])) if a.ndim == 1 else a
    w2 = prims.reshape(w, shape=(w.shape[0], 1)) if w.ndim == 1 else w
    g_shape = (*g.shape[:g.ndim - (w.ndim > 1) - (a.ndim > 1)], a2.shape[-2], w2.shape[-1])
    g2 = prims.reshape(g, shape=g_shape) if g_shape != tuple(g.shape) else g
    ga = gw = None
    if rg(a):
        ga = sum_to(prims.matmul(g2, _mT(w2)), a.shape)  # (..., 1, k) sums to (k,) directly
    if rg(w):
        gw = sum_to(prims.matmul(_mT(a2), g2), w2.shape)
        gw = prims.reshape(gw, shape=w.shape) if w.ndim == 1 else gw
    return ga, gw


@real_rule("prims.convolution")
def _convolution(b, g):
    # aten's fused convolution_backward, as eager runs it: the rule in ops would be several
    # transposed, dilated and grouped convolutions per case (transposed or not, N-d, groups).
    from ..ops.ltorch_backward import convolution_backward

    a, w, bias = b.args
    mask = (rg(a), rg(w), rg(bias))
    kw = {k: (list(v) if isinstance(v, tuple) else v) for k, v in b.kwargs.items()}
    grads = iter(convolution_backward(g, a, w, bias_sizes=None if bias is None else list(bias.shape),
                                      output_mask=mask, **kw))
    return tuple(next(grads) if m else None for m in mask)
