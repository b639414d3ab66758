"""Torch-level normalizations: softmax and its relatives, layer/RMS/group/batch/instance norm
and ``F.normalize``.

Every decomposition computes in float32 for float16/bfloat16 inputs and converts back once,
as eager's kernels do (so results match to rounding, not to one rounding per step). Softmaxes
subtract the maximum first. ``batch_norm`` (training) and ``instance_norm`` (with running
stats) update ``running_mean``/``running_var`` *in place*, as eager does, through
``Tensor.copy_`` in the decomposition and through the torch function itself when run whole;
both are tagged ``"inplace"``. ``eps`` and ``momentum`` are inputs; shapes and flags are static.
Every op here has the trait ``"normalization"``.
"""

from __future__ import annotations

import math

import torch
import torch.nn.functional as _F

from ..ir.traits import INPLACE, NORMALIZATION
from .ltorch_nn import torch_alias, vector_norm
from .registry import F, T, torch_op

_LOW = (torch.float16, torch.bfloat16)


def _compute(x):
    """``x`` in its computation dtype: float32 for half-precision, else unchanged."""
    return x.to(torch.float32) if x.dtype in _LOW else x


def _cast(x, dtype):
    return x if x.dtype == dtype else x.to(dtype)


# ---------------------------------------------------------------- softmax

def _reduced_size(x, dim):
    return x.shape[dim] if x.ndim else 1


def _floating(op, x):
    if not x.is_floating_point():
        raise RuntimeError(f"{op}: expected a floating-point input, got {x.dtype}; pass dtype=torch.float32 (or "
                           "another floating dtype) to compute in it.")
    return x


def _shifted(x, dim):
    """``x - max(x, dim)`` (nothing to subtract over an empty dimension)."""
    return x if _reduced_size(x, dim) == 0 else x - T.amax(x, dim, keepdim=True)


@torch_op(torch.softmax, torch.Tensor.softmax, torch.special.softmax, inputs=("input",), method="softmax",
          tags=(NORMALIZATION,))
def softmax(input, dim, dtype=None):
    """``exp(x - max) / sum(exp(x - max))`` over ``dim``, after converting to ``dtype`` if given."""
    x = _floating("softmax", input if dtype is None else _cast(input, dtype))
    e = T.exp(_shifted(_compute(x), dim))
    return _cast(e / T.sum(e, dim, keepdim=True), x.dtype)


@torch_op(torch.log_softmax, torch.Tensor.log_softmax, torch.special.log_softmax, inputs=("input",),
          method="log_softmax", tags=(NORMALIZATION,))
def log_softmax(input, dim, dtype=None):
    """``(x - max) - log(sum(exp(x - max)))`` over ``dim``, after converting to ``dtype`` if given."""
    x = _floating("log_softmax", input if dtype is None else _cast(input, dtype))
    s = _shifted(_compute(x), dim)
    return _cast(s - T.log(T.sum(T.exp(s), dim, keepdim=True)), x.dtype)


@torch_alias(_F.softmax, of=softmax)
def _nn_softmax(input, dim=None, _stacklevel=3, dtype=None):
    if dim is None:
        dim = _F._get_softmax_dim("softmax", input.ndim, _stacklevel)
    return softmax(input, dim, dtype=dtype)


@torch_alias(_F.log_softmax, of=log_softmax)
def _nn_log_softmax(input, dim=None, _stacklevel=3, dtype=None):
    if dim is None:
        dim = _F._get_softmax_dim("log_softmax", input.ndim, _stacklevel)
    return log_softmax(input, dim, dtype=dtype)


@torch_op(_F.softmin, tags=(NORMALIZATION,))
def softmin(input, dim=None, _stacklevel=3, dtype=None):
    """``softmax(-input)``."""
    if dim is None:
        dim = _F._get_softmax_dim("softmin", input.ndim, _stacklevel)
    return T.softmax(-input, dim, dtype=dtype)


# ---------------------------------------------------------------- layer-wise norms

def _standardize(x, dims, eps):
    """(``(x - mean) / sqrt(var + eps)``, mean, biased var) over ``dims``, keeping them."""
    mean = T.mean(x, dims, keepdim=True)
    centered = x - mean
    var = T.mean(centered * centered, dims, keepdim=True)
    return centered * T.rsqrt(var + eps), mean, var


def _normalized_dims(op, input, normalized_shape):
    shape = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
    if not shape or len(shape) > input.ndim or input.shape[input.ndim - len(shape):] != shape:
        raise RuntimeError(f"{op}: normalized_shape {list(shape)} does not match the trailing dimensions of the "
                           f"input of shape {list(input.shape)}.")
    return tuple(range(-len(shape), 0))


@torch_op(_F.layer_norm, inputs=("input", "weight", "bias", "eps"), tags=(NORMALIZATION,))
def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-05):
    """Standardize over the trailing ``normalized_shape`` dimensions, then scale and shift."""
    dims = _normalized_dims("F.layer_norm", input, normalized_shape)
    out = _standardize(_compute(input), dims, eps)[0]
    if weight is not None:
        out = out * weight
    if bias is not None:
        out = out + bias
    return _cast(out, input.dtype)


@torch_op(_F.rms_norm, torch.rms_norm, inputs=("input", "weight", "eps"), tags=(NORMALIZATION,))
def rms_norm(input, normalized_shape, weight=None, eps=None):
    """``x / sqrt(mean(x**2) + eps)`` over the trailing dimensions (``eps`` defaults to the machine
    epsilon of the computation dtype), converted back, then times ``weight``, as eager."""
    dims = _normalized_dims("F.rms_norm", input, normalized_shape)
    x = _compute(input)
    if eps is None:
        eps = torch.finfo(x.dtype).eps
    out = _cast(x * T.rsqrt(T.mean(x * x, dims, keepdim=True) + eps), input.dtype)
    return out if weight is None else _cast(out * weight, input.dtype)


def _channel_view(t, ndim):
    """A per-channel (C,) tensor shaped to broadcast against (N, C, *spatial)."""
    return t.reshape(t.shape[0], *([1] * (ndim - 2)))


def _affine(out, weight, bias):
    if weight is not None:
        out = out * _channel_view(weight, out.ndim)
    if bias is not None:
        out = out + _channel_view(bias, out.ndim)
    return out


@torch_op(_F.group_norm, inputs=("input", "weight", "bias", "eps"), tags=(NORMALIZATION,))
def group_norm(input, num_groups, weight=None, bias=None, eps=1e-05):
    """Standardize each group of ``C / num_groups`` channels (with their spatial positions) of
    each sample, then apply the per-channel ``weight`` and ``bias``."""
    if input.ndim < 2 or input.shape[1] % num_groups:
        raise RuntimeError(f"F.group_norm: expected an input (N, C, *) with C divisible by num_groups={num_groups}, "
                           f"got shape {list(input.shape)}.")
    n, c = input.shape[:2]
    grouped = _compute(input).reshape(n, num_groups, (c // num_groups) * math.prod(input.shape[2:]))
    out = _standardize(grouped, (2,), eps)[0].reshape(input.shape)
    return _cast(_affine(out, weight, bias), input.dtype)


def _update_running(running, batch_value, momentum):
    """``running = (1 - momentum) * running + momentum * batch_value``, written into ``running``."""
    if running is not None:  # (no gradient flows into running statistics, as in eager)
        running.copy_((running * (1 - momentum) + _cast(batch_value, running.dtype) * momentum).detach())


@torch_op(_F.batch_norm, inputs=("input", "running_mean", "running_var", "weight", "bias", "momentum", "eps"),
          tags=(NORMALIZATION, INPLACE))
def batch_norm(input, running_mean, running_var, weight=None, bias=None, training=False, momentum=0.1, eps=1e-05):
    """Normalize each channel of (N, C, *) with batch statistics (training: updating the running
    statistics in place, with the unbiased variance) or with the running statistics (eval)."""
    if input.ndim < 2:
        raise ValueError(f"F.batch_norm: expected an input (N, C, *), got shape {list(input.shape)}.")
    x = _compute(input)
    dims = (0, *range(2, input.ndim))
    if training:
        count = input.numel() // input.shape[1]
        if count <= 1:
            raise ValueError(f"Expected more than 1 value per channel when training, got input size "
                             f"{list(input.shape)}")
        out, mean, var = _standardize(x, dims, eps)
        _update_running(running_mean, mean.reshape(-1), momentum)
        _update_running(running_var, var.reshape(-1) * (count / (count - 1)), momentum)
    else:
        if running_mean is None or running_var is None:
            raise ValueError("F.batch_norm: running_mean and running_var are needed when training=False.")
        mean, var = _channel_view(running_mean, x.ndim), _channel_view(running_var, x.ndim)
        out = (x - mean) * T.rsqrt(var + eps)
    return _cast(_affine(out, weight, bias), input.dtype)


@torch_op(_F.instance_norm, inputs=("input", "running_mean", "running_var", "weight", "bias", "momentum", "eps"),
          tags=(NORMALIZATION, INPLACE))
def instance_norm(input, running_mean=None, running_var=None, weight=None, bias=None, use_input_stats=True,
                  momentum=0.1, eps=1e-05):
    """Normalize each channel of each sample over its spatial positions (``use_input_stats``,
    updating running statistics with the batch average of the per-sample ones) or with the
    running statistics."""
    if input.ndim < 3:
        raise ValueError(f"F.instance_norm: expected an input (N, C, *spatial), got shape {list(input.shape)}.")
    if not use_input_stats:
        return F.batch_norm(input, running_mean, running_var, weight, bias, False, momentum, eps)
    count = math.prod(input.shape[2:])
    if count <= 1:
        raise ValueError(f"Expected more than 1 spatial element when training, got input size {list(input.shape)}")
    out, mean, var = _standardize(_compute(input), tuple(range(2, input.ndim)), eps)
    n, c = input.shape[:2]
    _update_running(running_mean, T.mean(mean.reshape(n, c), 0), momentum)
    _update_running(running_var, T.mean(var.reshape(n, c), 0) * (count / (count - 1)), momentum)
    return _cast(_affine(out, weight, bias), input.dtype)


@torch_op(_F.normalize, inputs=("input", "p", "eps"), tags=(NORMALIZATION,))
def normalize(input, p=2.0, dim=1, eps=1e-12, out=None):
    """``input / max(norm_p(input, dim), eps)``."""
    if out is not None:
        raise NotImplementedError("F.normalize(out=...) cannot be traced: it writes into an existing tensor. Use "
                                  "the returned tensor instead.")
    return input / T.clamp(vector_norm(input, p, dim, keepdim=True), min=eps)
