"""VJP rules of torch-level symbols that are better differentiated whole than through their
decomposition (see ``vjp.py`` for the rule contract).

With a rule, the forward keeps the torch-level op (one PyTorch kernel, or a piece of an
inductor region) instead of its primitives, and the backward is written with efficient ops,
often one of PyTorch's fused backward kernels (``ops/ltorch_backward.py``). This module has
the elementwise ops, activations and softmaxes; ``vjp_ltorch_nn`` the products, norms,
attention, embedding, convolution and losses; ``vjp_ltorch_shape`` shape ops, indexing and
reductions. Ops without a rule here (dropout, whose noise must be the forward's, and the
rest) are differentiated through their decomposition.
"""

from __future__ import annotations

import math

from ..ir import NumberProxy, Proxy, TensorProxy
from ..ops import ltorch_backward as B
from ..ops.registry import T
from .vjp import sum_to, torch_vjp_rule, vjp, zeros_for

__all__ = ["args_of", "fit", "value", "is_tensor", "grad_to"]


def args_of(b, *defaults):
    """``b.args`` padded with the defaults of trailing inputs the call left out."""
    a = tuple(b.args)
    return a + tuple(defaults[len(a):])


def fit(b, *grads):
    """``grads`` cut to the arguments the call has (trailing inputs at defaults are absent)."""
    return grads[:len(b.args)]


def value(x):
    """A number's value (a NumberProxy's known value), else ``x`` itself."""
    return x.value if isinstance(x, NumberProxy) and x.value is not None else x


def _is(x, v) -> bool:
    x = value(x)
    return not isinstance(x, Proxy) and x == v


def is_tensor(x) -> bool:
    return isinstance(x, TensorProxy)


def grad_to(g, x):
    """``g`` summed to tensor ``x``'s shape (undoing broadcasting), None for numbers."""
    return sum_to(g, x.shape) if is_tensor(x) else None


# ---------------------------------------------------------------- arithmetic

@vjp("ltorch.add")
def _(b, g):
    x, y, alpha = args_of(b, None, None, 1)
    return fit(b, grad_to(g, x), grad_to(g if _is(alpha, 1) else g * alpha, y), None)


@vjp("ltorch.sub")
def _(b, g):
    x, y, alpha = args_of(b, None, None, 1)
    return fit(b, grad_to(g, x), grad_to(-g if _is(alpha, 1) else g * -value(alpha), y), None)


@vjp("ltorch.rsub")
def _(b, g):  # other - alpha * input
    x, y, alpha = args_of(b, None, None, 1)
    return fit(b, grad_to(-g if _is(alpha, 1) else g * -value(alpha), x), grad_to(g, y), None)


@vjp("ltorch.normal", "ltorch.uniform", "ltorch.normal_functional", "ltorch.cauchy", "ltorch.exponential",
     "ltorch.geometric", "ltorch.log_normal")
def _(b, g):  # draws are not reparameterised: eager's gradients of mean and std (or of the filled tensor) are zeros
    return tuple(zeros_for(a) if is_tensor(a) else None for a in b.args)


@vjp("ltorch.mul")
def _(b, g):
    x, y = b.args
    return (grad_to(g * y, x) if is_tensor(x) else None), (grad_to(g * x, y) if is_tensor(y) else None)


@vjp("ltorch.div")
def _(b, g):
    x, y = b.args
    if b.kwargs.get("rounding_mode") is not None:  # piecewise constant: zero gradients, as eager
        return tuple(zeros_for(a) if is_tensor(a) else None for a in (x, y))
    gx = grad_to(g / y, x) if is_tensor(x) else None
    gy = grad_to(-g * b.output / y, y) if is_tensor(y) else None
    return gx, gy


@vjp("ltorch.neg")
def _(b, g):
    return (-g,)


@vjp("ltorch.pow")
def _(b, g):
    x, e = b.args
    gx = ge = None
    if is_tensor(x):
        if is_tensor(e):  # eager: 0 where the exponent is 0 (even for x == 0)
            gx = grad_to(T.where(e == 0, 0.0, g * e * T.pow(x, e - 1)), x)
        elif _is(e, 0):
            gx = zeros_for(x)
        elif _is(e, 1):
            gx = g
        elif _is(e, 2):
            gx = g * x * 2
        else:
            gx = g * value(e) * T.pow(x, value(e) - 1)
    if is_tensor(e):
        logx = T.log(x) if is_tensor(x) else math.log(value(x)) if value(x) > 0 else float("nan")
        zero = (x == 0) & (e >= 0) if is_tensor(x) else (e >= 0 if value(x) == 0 else None)
        ge = g * b.output * logx
        ge = grad_to(ge if zero is None else T.where(zero, 0.0, ge), e)
    return gx, ge


@vjp("ltorch.square")
def _(b, g):
    return (g * b.args[0] * 2,)


@vjp("ltorch.reciprocal")
def _(b, g):
    return (-g * b.output * b.output,)


# ---------------------------------------------------------------- unary math

@vjp("ltorch.exp")
def _(b, g):
    return (g * b.output,)


@vjp("ltorch.expm1")
def _(b, g):
    return (g * (b.output + 1),)


@vjp("ltorch.log")
def _(b, g):
    return (g / b.args[0],)


@vjp("ltorch.log1p")
def _(b, g):
    return (g / (b.args[0] + 1),)


@vjp("ltorch.sqrt")
def _(b, g):
    return (g / (b.output * 2),)


@vjp("ltorch.rsqrt")
def _(b, g):
    y = b.output
    return (g * y * y * y * -0.5,)


@vjp("ltorch.abs")
def _(b, g):
    return (g * T.sign(b.args[0]),)


@vjp("ltorch.sin")
def _(b, g):
    return (g * T.cos(b.args[0]),)


@vjp("ltorch.cos")
def _(b, g):
    return (-g * T.sin(b.args[0]),)


@vjp("ltorch.erf")
def _(b, g):
    x = b.args[0]
    return (g * T.exp(-x * x) * (2 / math.sqrt(math.pi)),)


@vjp("ltorch.tanh")
def _(b, g):
    return (B.tanh_backward(g, b.output),)


@vjp("ltorch.sigmoid")
def _(b, g):
    return (B.sigmoid_backward(g, b.output),)


# ---------------------------------------------------------------- activations

@vjp("ltorch.relu")
def _(b, g):
    return (B.threshold_backward(g, b.output, 0),)


@vjp("ltorch.gelu")
def _(b, g):
    return (B.gelu_backward(g, b.args[0], **b.kwargs),)


@vjp("ltorch.silu")
def _(b, g):
    return (B.silu_backward(g, b.args[0]),)


@vjp("ltorch.leaky_relu")
def _(b, g):
    x, slope = args_of(b, None, 0.01)
    return fit(b, T.where(x > 0, g, g * value(slope)), None)


# ---------------------------------------------------------------- selection

@vjp("ltorch.where")
def _(b, g):
    c, x, y = b.args
    gx = grad_to(T.where(c, g, 0.0), x) if is_tensor(x) else None
    gy = grad_to(T.where(c, 0.0, g), y) if is_tensor(y) else None
    return None, gx, gy


@vjp("ltorch.masked_fill")
def _(b, g):
    x, mask, v = b.args
    gv = T.sum(T.where(mask, g, 0.0)) if is_tensor(v) else None
    return grad_to(T.where(mask, 0.0, g), x), None, gv


@vjp("ltorch.clamp")
def _(b, g):
    x, lo, hi = args_of(b, None, None, None)
    if is_tensor(lo) or is_tensor(hi):
        return torch_vjp_rule(b, g)
    keep = None if lo is None else x >= value(lo)
    if hi is not None:
        keep = x <= value(hi) if keep is None else keep & (x <= value(hi))
    return fit(b, T.where(keep, g, 0.0), None, None)


# ---------------------------------------------------------------- conversions and copies

@vjp("ltorch.to")
def _(b, g):
    x = b.args[0]
    return (g.to(device=x.device, dtype=x.dtype),)


@vjp("ltorch.contiguous", "ltorch.clone")
def _(b, g):
    return (g,)


# ---------------------------------------------------------------- softmaxes

@vjp("ltorch.softmax")
def _(b, g):
    return (B.softmax_backward(g, b.output, b.kwargs["dim"]),)


@vjp("ltorch.safe_softmax")
def _(b, g):  # from the output, whose fully masked rows are zeros (the inner softmax's are NaN)
    x = b.args[0]
    return (B.softmax_backward(g, b.output, b.kwargs["dim"]).to(x.dtype),)


@vjp("ltorch.log_softmax")
def _(b, g):
    return (B.log_softmax_backward(g, b.output, b.kwargs["dim"]),)

