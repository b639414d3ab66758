"""VJP rules of the math and special-function ops (ops/ltorch_math.py, ltorch_special.py):
PyTorch's own derivative formulas (``tools/autograd/derivatives.yaml``), where the op's
decomposition would differentiate differently from eager at some points (``xlogy`` at
``x == 0``, ``fmax`` at ties and NaNs, ``logit`` outside ``[0, 1]``, ``sinc`` at 0), or
where the op runs whole and a formula in other symbols lets the backward fuse (``i0``,
``polygamma``, ``erfcx``...). Ops without a rule here are differentiated through their
decomposition, or, run whole, by PyTorch's autograd (``autograd.torch_vjp``).
"""

from __future__ import annotations

import math

from ..ir import TensorProxy
from ..ops.registry import S, T
from .vjp import torch_vjp_rule, vjp, zeros_for
from .vjp_ltorch import grad_to, is_tensor


def _real(b) -> bool:
    """Every tensor argument is real (the rule's formula; complex calls run whole, through PyTorch's autograd)."""
    return not any(isinstance(a, TensorProxy) and a.dtype.is_complex for a in b.args)


# ---------------------------------------------------------------- x * log(y)

def _xlog(b, g, log_fn, pole):
    x, y = b.args
    if is_tensor(y):
        gx = T.where(T.logical_and(T.eq(x, 0), T.le(y, pole)), 0.0, log_fn(g, y)) if is_tensor(x) else None
    else:  # the Scalar_Other overload: grad * xlogy(x != 0, y)
        gx = g * log_fn(T.ne(x, 0), y)
    gy = g * x / (y if pole == 0 else y + 1) if is_tensor(y) else None
    return grad_to(gx, x) if gx is not None else None, grad_to(gy, y) if gy is not None else None


@vjp("ltorch.xlogy", applies=_real)
def _(b, g):
    return _xlog(b, g, T.xlogy, 0)


@vjp("ltorch.special_xlog1py", applies=_real)
def _(b, g):
    return _xlog(b, g, S.xlog1py, -1)


@vjp("ltorch.special_entr")
def _(b, g):
    return (g * -(1 + T.log(b.args[0])),)


@vjp("ltorch.sinc", applies=_real)
def _(b, g):
    x = b.args[0]
    x_pi = x * math.pi
    sq_pi = x * x * math.pi
    out = g * (x_pi * T.cos(x_pi) - T.sin(x_pi)) / sq_pi
    return (T.where(sq_pi == 0.0, 0.0, out),)


@vjp("ltorch.logit")
def _(b, g):
    x = b.args[0]
    eps = b.kwargs.get("eps")
    lo, hi, outside = (0.0, 1.0, math.nan) if eps is None else (eps, 1.0 - eps, 0.0)
    inside = T.logical_and(T.ge(x, lo), T.le(x, hi))
    return (T.where(inside, g / (x * (1.0 - x)), outside),)


# ---------------------------------------------------------------- two-argument selections and log-sum-exp

def _fminmax(b, g, keep):
    x, y = b.args
    first = T.logical_or(keep(x, y), T.isnan(y))
    return grad_to(T.where(first, g, 0.0), x), grad_to(T.where(first, 0.0, g), y)


@vjp("ltorch.fmax")
def _(b, g):
    return _fminmax(b, g, T.ge)


@vjp("ltorch.fmin")
def _(b, g):
    return _fminmax(b, g, T.le)


@vjp("ltorch.logaddexp", applies=_real)
def _(b, g):
    x, y = b.args
    return grad_to(g / (1 + T.exp(y - x)), x), grad_to(g / (1 + T.exp(x - y)), y)


@vjp("ltorch.logaddexp2", applies=_real)
def _(b, g):
    x, y = b.args
    return grad_to(g / (1 + T.pow(2, y - x)), x), grad_to(g / (1 + T.pow(2, x - y)), y)


@vjp("ltorch.angle", applies=_real)
def _(b, g):
    return (zeros_for(b.args[0]),)


# eager has no derivative for heaviside: its backward raises where eager's does
vjp("ltorch.heaviside")(torch_vjp_rule)


# ---------------------------------------------------------------- special functions run whole

@vjp("ltorch.polygamma")
def _(b, g):
    return (g * T.polygamma(b.kwargs["n"] + 1, b.args[0]),)


@vjp("ltorch.i0")
def _(b, g):
    return (g * S.i1(b.args[0]),)


@vjp("ltorch.special_i0e")
def _(b, g):
    x = b.args[0]
    return (g * (S.i1e(x) - T.sgn(x) * b.output),)


@vjp("ltorch.special_ndtri")
def _(b, g):
    return (g * math.sqrt(2 * math.pi) * T.exp(T.square(b.output) / 2),)


@vjp("ltorch.special_log_ndtr")
def _(b, g):
    x = b.args[0]
    return (g / math.sqrt(2 * math.pi) * T.exp(-(b.output + T.pow(x, 2) / 2)),)


@vjp("ltorch.special_erfcx")
def _(b, g):
    x = b.args[0]
    return ((2.0 * x * b.output - 2.0 / math.sqrt(math.pi)) * g,)


@vjp("ltorch.mvlgamma")
def _(b, g):
    x, p = b.args[0], b.kwargs["p"]
    args = T.arange(-p / 2 + 0.5, 0.5, 0.5, dtype=x.dtype, device=x.device) + T.unsqueeze(x, -1)
    return (g * T.sum(T.digamma(args), -1),)

