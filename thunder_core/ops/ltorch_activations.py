"""Activation functions: ``torch.nn.functional.relu`` & co., ``torch.relu``/``Tensor.relu``...

Decompositions are written in torch style (``T.``/``F.`` calls and proxy operators) after
torch's CPU kernels, so they round like eager up to the last bits; float16/bfloat16 inputs
are computed in float32 and converted back, as torch does. ``glu`` has no decomposition yet
(it splits the input, a shape op). ``sigmoid`` and ``tanh`` (with ``F.sigmoid``/``F.tanh``)
live with the other unary math ops in ``ltorch_elementwise``.

``F.<act>(x, inplace=True)`` records the in-place op ``<act>_`` (tagged ``"inplace"``, run
in place by the executor); ``inplace=False`` records ``<act>``. Each row of :data:`_ACTIVATIONS`
says which torch callables stand for which, and the op's traits: ``"elementwise"``, with
``"transcendental"`` for those built on exp/log/erf/tanh/sigmoid (``gelu``, ``silu``, ``elu``...;
not the piecewise-linear ``relu``, ``hardtanh``, ``hardswish``...). ``glu`` has none: each of
its outputs reads two elements half the dim apart, so it is not elementwise.
"""

from __future__ import annotations

import inspect
import math

import torch
import torch.nn.functional as nnf

from ..ir import TensorProxy, TracingError
from ..ir.traits import RANDOM
from .ltorch_elementwise import E, ET, cast_number, inplace_variant, register_front
from .prims_elementwise import dtype_kind
from .registry import F, T, torch_op

__all__ = ["CALLABLES"]

#: Every torch callable registered by this module.
CALLABLES: list = []


def _floating(name: str, x) -> TensorProxy:
    if not isinstance(x, TensorProxy) or dtype_kind(x.dtype) != "f":
        what = f"a {x.dtype} tensor" if isinstance(x, TensorProxy) else repr(x)
        raise NotImplementedError(f"{name} is only defined for floating-point tensors, got {what}.")
    return x


def _compute(fn, name: str, x, *args):
    """``fn(x, *args)`` for a floating-point ``x``, evaluated in float32 for float16/bfloat16."""
    dtype = _floating(name, x).dtype
    if dtype in (torch.float16, torch.bfloat16):
        return fn(x.float(), *args).to(dtype)
    return fn(x, *args)


# ---------------------------------------------------------------- decompositions

def relu(input):
    """``max(input, 0)``; NaN stays NaN (torch's ``clamp_min(input, 0)``)."""
    if input.dtype is torch.bool:
        raise RuntimeError("Boolean inputs not supported for relu.")
    return T.clamp_min(input, 0)


def hardtanh(input, min_val=-1.0, max_val=1.0):
    """``clamp(input, min_val, max_val)``, the bounds cast to the input's dtype."""
    if input.dtype is torch.bool:
        raise RuntimeError("Boolean inputs not supported for hardtanh.")
    return T.clamp(input, cast_number(min_val, input.dtype, "hardtanh"), cast_number(max_val, input.dtype, "hardtanh"))


def relu6(input):
    """``hardtanh(input, 0, 6)``."""
    return F.hardtanh(input, 0.0, 6.0)


def threshold(input, threshold, value):
    """``value`` where ``input <= threshold``, else ``input`` (both numbers cast to its dtype)."""
    threshold, value = (cast_number(v, input.dtype, "threshold") for v in (threshold, value))
    return T.where(input <= threshold, value, input)


def leaky_relu(input, negative_slope=0.01):
    """``input`` where positive, else ``input * negative_slope``."""
    return _compute(lambda x: T.where(x > 0, x, x * negative_slope), "leaky_relu", input)


def _elu(x, alpha, scale=1.0, input_scale=1.0):
    neg = T.expm1(x if input_scale == 1.0 else x * input_scale) * (alpha * scale)
    return T.where(x <= 0, neg, x if scale == 1.0 else x * scale)


def elu(input, alpha=1.0):
    """``input`` where positive, else ``alpha * (exp(input) - 1)``."""
    return _compute(_elu, "elu", input, alpha)


_SELU_ALPHA, _SELU_SCALE = 1.6732632423543772848170429916717, 1.0507009873554804934193349852946


def selu(input):
    """``scale * elu(input, alpha)`` with SELU's fixed constants."""
    return _compute(_elu, "selu", input, _SELU_ALPHA, _SELU_SCALE)


def celu(input, alpha=1.0):
    """``input`` where positive, else ``alpha * (exp(input / alpha) - 1)``."""
    return _compute(lambda x: _elu(x, alpha, 1.0, 1.0 / alpha), "celu", input)


def gelu(input, *, approximate="none"):
    """``x * Φ(x)``: exact with erf, or torch's tanh approximation (``approximate="tanh"``)."""
    if approximate == "none":
        return _compute(lambda x: x * 0.5 * (T.erf(x * math.sqrt(0.5)) + 1), "gelu", input)
    if approximate == "tanh":
        k = math.sqrt(2.0 / math.pi)
        return _compute(lambda x: x * 0.5 * (T.tanh((x + x * x * x * 0.044715) * k) + 1), "gelu", input)
    raise RuntimeError(f"gelu: approximate must be 'none' or 'tanh', got {approximate!r}.")


def silu(input):
    """``input * sigmoid(input)``."""
    return _compute(lambda x: x * T.sigmoid(x), "silu", input)


def mish(input):
    """``input * tanh(log(1 + exp(input)))``."""
    return _compute(lambda x: x * T.tanh(T.log1p(T.exp(x))), "mish", input)


def softplus(input, beta=1.0, threshold=20.0):
    """``log(1 + exp(beta * input)) / beta``, or ``input`` where ``beta * input > threshold``."""
    def f(x):
        scaled = x * beta
        return T.where(scaled > threshold, x, T.log1p(T.exp(scaled)) / beta)
    return _compute(f, "softplus", input)


def softsign(input):
    """``input / (1 + |input|)``."""
    return input / (input.abs() + 1)


def hardsigmoid(input):
    """``clamp(input + 3, 0, 6) / 6``."""
    return _compute(lambda x: T.clamp(x + 3, 0, 6) / 6, "hardsigmoid", input)


def hardswish(input):
    """``input * clamp(input + 3, 0, 6) / 6``."""
    return _compute(lambda x: x * T.clamp(x + 3, 0, 6) / 6, "hardswish", input)


def logsigmoid(input):
    """``log(sigmoid(input))`` computed stably: ``min(input, 0) - log1p(exp(-|input|))``."""
    return _compute(lambda x: T.clamp_max(x, 0) - T.log1p(T.exp(-x.abs())), "logsigmoid", input)


def hardshrink(input, lambd=0.5):
    """``input`` outside ``[-lambd, lambd]``, else 0 (NaN stays NaN)."""
    return T.where(T.logical_and(input >= -lambd, input <= lambd), 0, input)


def softshrink(input, lambd=0.5):
    """``input`` moved ``lambd`` towards 0, and 0 within ``[-lambd, lambd]`` (``input * 0``: NaN stays)."""
    return T.where(input > lambd, input - lambd, T.where(input < -lambd, input + lambd, input * 0))


def prelu(input, weight):
    """``input`` where positive, else ``weight * input``, with one ``weight`` per channel (dim 1)
    or a single one."""
    n = weight.numel()
    if weight.ndim > 1:
        raise RuntimeError(f"prelu: Expected `weight` to be a scalar or 1D tensor, but got: ndim = {weight.ndim}")
    if n != 1:
        if input.ndim == 0:
            raise RuntimeError("Not allow zero-dim input tensor.")
        c = input.shape[1] if input.ndim >= 2 else 1
        if c != n:
            raise RuntimeError(f"Mismatch of parameter numbers and input channel size. Found parameter numbers = "
                               f"{n} and channel size = {c}.")
        weight = weight.reshape(n, *([1] * (input.ndim - 2)))
    return T.where(input > 0, input, weight * input)


def glu(input, dim=-1):
    """``a * sigmoid(b)`` for the halves ``a, b`` of ``input`` along ``dim``."""


# ---------------------------------------------------------------- registration

#: (decomposition/signature, number inputs, functional callables, F function with `inplace` routed
#:  by a front, in-place callables, traits). Empty in-place callables with an F front: the in-place
#:  op runs ``F.<name>(..., inplace=True)``.
_ACTIVATIONS = [
    (relu, (), (torch.relu, torch.Tensor.relu), nnf.relu, (torch.Tensor.relu_, torch.relu_), E),
    (relu6, (), (), nnf.relu6, (), E),
    (hardtanh, ("min_val", "max_val"), (), nnf.hardtanh, (nnf.hardtanh_,), E),
    (threshold, ("threshold", "value"), (torch.threshold,), nnf.threshold, (torch.threshold_,), E),
    (leaky_relu, ("negative_slope",), (), nnf.leaky_relu, (nnf.leaky_relu_,), E),
    (elu, ("alpha",), (), nnf.elu, (nnf.elu_,), ET),
    (selu, (), (torch.selu,), nnf.selu, (torch.selu_,), ET),
    (celu, ("alpha",), (torch.celu,), nnf.celu, (torch.celu_,), ET),
    (gelu, (), (nnf.gelu,), None, (), ET),
    (silu, (), (), nnf.silu, (), ET),
    (mish, (), (), nnf.mish, (), ET),
    (softplus, ("beta", "threshold"), (nnf.softplus,), None, (), ET),
    (softsign, (), (nnf.softsign,), None, (), E),
    (hardsigmoid, (), (), nnf.hardsigmoid, (), E),
    (hardswish, (), (), nnf.hardswish, (), E),
    (logsigmoid, (), (nnf.logsigmoid,), None, (), ET),
    (hardshrink, ("lambd",), (torch.hardshrink, torch.Tensor.hardshrink), None, (), E),
    (softshrink, ("lambd",), (nnf.softshrink,), None, (), E),
    (prelu, ("weight",), (torch.prelu, torch.Tensor.prelu), None, (), E),
    (glu, (), (nnf.glu,), None, (), ()),  # not elementwise (see the module docstring)
]


def _route(name, f_fn, functional, inplace):
    """Front for ``F.<act>(..., inplace=False)``: the functional op, or the in-place one."""
    sig = inspect.signature(f_fn)

    def front(*args, **kwargs):
        bound = sig.bind(*args, **kwargs)
        flag = bound.arguments.pop("inplace", False)
        return (inplace if flag else functional)(**bound.arguments)
    front.__name__ = name
    return front


def _f_impl(f_fn, **flags):
    return lambda a, k: f_fn(*a, **k, **flags)


for _sig, _numbers, _fns, _f, _in_fns, _traits in _ACTIVATIONS:
    _name, _inputs = _sig.__name__, ("input", *_numbers)
    _entry = torch_op(*_fns, inputs=_inputs, name=_name, impl=None if _fns else _f_impl(_f), tags=_traits,
                      method=tuple(f.__name__ for f in _fns if getattr(torch.Tensor, f.__name__, None) is f))(_sig)
    CALLABLES.extend(_fns)
    if _f is not None:
        _inplace = inplace_variant(_name + "_", _sig, _inputs, _in_fns, [f.__name__ for f in _in_fns
                                   if getattr(torch.Tensor, f.__name__, None) is f],
                                   impl=None if _in_fns else _f_impl(_f, inplace=True), callables=CALLABLES,
                                   traits=_traits, of=_entry)
        register_front(_route(_name, _f, _entry, _inplace), [_f], callables=CALLABLES)

del _sig, _numbers, _fns, _f, _in_fns, _traits, _name, _inputs, _entry, _inplace


# ---------------------------------------------------------------- randomized leaky ReLU

@torch_op(name="rrelu_train", impl=lambda a, k: torch.rrelu(*a, training=True, **k), inputs=("input", "lower", "upper"),
          tags=(*E, RANDOM))
def rrelu_train(input, lower=0.125, upper=1.0 / 3.0):
    """Training-mode ``rrelu``: each negative element times its own slope drawn uniformly from
    ``[lower, upper]`` by torch's kernel (which draws only for those elements, so no primitive
    draws the same numbers); no decomposition."""


@torch_op(torch.rrelu, inputs=("input", "lower", "upper"), tags=(*E, RANDOM))
def rrelu(input, lower=0.125, upper=1.0 / 3.0, training=False, generator=None):
    """Leaky ReLU with the slope ``(lower + upper) / 2`` (evaluation), or random slopes in
    ``[lower, upper]`` (training)."""
    if generator is not None:
        raise TracingError("torch.rrelu(generator=...): an explicit torch.Generator cannot be traced. Seed torch's "
                           "global generator with torch.manual_seed instead.")
    if not training:
        return F.leaky_relu(input, (lower + upper) / 2)
    return rrelu_train(input, lower, upper)


CALLABLES.append(torch.rrelu)
