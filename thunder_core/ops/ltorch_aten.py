"""ATen's own normalization and backward functions, as user code (and PyTorch's tests) call
them: ``torch.native_layer_norm``, ``native_group_norm``, ``native_batch_norm``,
``_native_batch_norm_legit``, ``torch.ops.aten._batch_norm_with_update``,
``aten._safe_softmax``, ``aten._softmax_backward_data`` and ``aten.native_dropout_backward``.

Each decomposes into the op language's normalizations (``F.layer_norm``, ``F.batch_norm``,
``softmax``) and the statistics ATen returns beside the result: the mean and reciprocal
standard deviation (``rstd``/``invstd``) of what was normalized, computed in float32 for
half-precision inputs and returned in the dtype eager gives them. The batch norms update the
running statistics in place through ``F.batch_norm`` (tag ``"inplace"``), and their VJP rule
(``transforms/vjp_ltorch_nn.py``) is ``F.batch_norm``'s, so training keeps them whole.

Traits: the norms and ``_safe_softmax`` are ``"normalization"`` (the batch norms also
``"inplace"``); ``_softmax_backward_data`` is a ``"reduction"`` like ``softmax_backward``;
``native_dropout_backward`` is ``"elementwise"``.
"""

from __future__ import annotations

import torch

from ..ir import tensor_proxy
from ..ir.traits import ELEMENTWISE, INPLACE, NORMALIZATION, REDUCTION
from . import prims
from .ltorch_backward import softmax_backward
from .ltorch_nn import torch_alias
from .ltorch_norm import _affine, _cast, _compute, _standardize
from .registry import F, T, torch_op

aten = torch.ops.aten


def _stats(x, dims, eps):
    """(mean, rstd) of ``x`` over ``dims`` (kept), in ``x``'s compute dtype."""
    _, mean, var = _standardize(_compute(x), dims, eps)
    return mean, T.rsqrt(var + eps)


@torch_op(torch.native_layer_norm, inputs=("input", "weight", "bias", "eps"), tags=(NORMALIZATION,))
def native_layer_norm(input, normalized_shape, weight, bias, eps):
    """``F.layer_norm`` and the mean and rstd of each normalized slice (shaped to broadcast)."""
    dims = tuple(range(input.ndim - len(normalized_shape), input.ndim))
    mean, rstd = _stats(input, dims, eps)
    out = F.layer_norm(input, tuple(normalized_shape), weight, bias, eps)
    return out, _cast(mean, input.dtype).detach(), _cast(rstd, input.dtype).detach()


@torch_op(torch.native_group_norm, inputs=("input", "weight", "bias", "eps"), tags=(NORMALIZATION,))
def native_group_norm(input, weight, bias, N, C, HxW, group, eps):
    """``F.group_norm`` of the (N, C, *) input with ``group`` groups, and each (sample, group)'s
    mean and rstd, shaped (N, group) (differentiable, as in eager)."""
    grouped = _compute(input).reshape(N, group, (C // group) * HxW)
    normalized, mean, var = _standardize(grouped, (2,), eps)
    rstd = T.rsqrt(var + eps)
    out = _cast(_affine(normalized.reshape(input.shape), weight, bias), input.dtype)
    return out, _cast(mean.reshape(N, group), input.dtype), _cast(rstd.reshape(N, group), input.dtype)


def _batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps):
    """(out, save_mean, save_invstd) of ATen's batch norms: batch statistics per channel when
    training (empty tensors otherwise), in the running statistics' dtype (the input's without)."""
    out = F.batch_norm(input, running_mean, running_var, weight, bias, training, momentum, eps)
    dtype = input.dtype if running_mean is None else running_mean.dtype
    if not training:
        empty = prims.full(0, shape=(0,), dtype=dtype, device=input.device)
        return out, empty, T.clone(empty)
    mean, invstd = _stats(input, (0, *range(2, input.ndim)), eps)
    return out, _cast(mean.reshape(-1), dtype).detach(), _cast(invstd.reshape(-1), dtype).detach()


@torch_op(torch.native_batch_norm, inputs=("input", "weight", "bias", "running_mean", "running_var", "momentum", "eps"),
          tags=(NORMALIZATION, INPLACE))
def native_batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps):
    """``F.batch_norm`` (updating the running statistics in place when training), with the
    batch mean and invstd per channel it used (empty in evaluation)."""
    return _batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps)


@torch_op(name="native_batch_norm_legit", inputs=("input", "weight", "bias", "running_mean", "running_var", "momentum",
                                                  "eps"),
          impl=lambda a, k: torch._native_batch_norm_legit(*a, **k) if a[3] is not None
          else torch._native_batch_norm_legit(*a[:3], *a[5:], **k), tags=(NORMALIZATION, INPLACE))
def native_batch_norm_legit(input, weight, bias, running_mean, running_var, training, momentum, eps):
    """``torch._native_batch_norm_legit``: ``native_batch_norm`` (running statistics given, or
    None for the ``no_stats`` form)."""
    return _batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps)


@torch_alias(torch._native_batch_norm_legit, of=native_batch_norm_legit)
def _native_batch_norm_legit(input, weight, bias, *rest, **kwargs):
    if len(rest) + len(kwargs) == 3:  # the no_stats overload: (training, momentum, eps)
        return native_batch_norm_legit(input, weight, bias, None, None, *rest, **kwargs)
    return native_batch_norm_legit(input, weight, bias, *rest, **kwargs)


def _with_update_meta(input, weight, bias, running_mean, running_var, momentum, eps):
    # (fake tensors cannot run ATen's op without a weight; eager can)
    c, grad = input.shape[1], any(t is not None and t.requires_grad for t in (input, weight, bias))
    return (tensor_proxy(input.shape, input.dtype, input.device, grad and torch.is_grad_enabled()),
            tensor_proxy((c,), running_mean.dtype, input.device), tensor_proxy((c,), running_mean.dtype, input.device),
            tensor_proxy((0,), torch.uint8, input.device))


@torch_op(aten._batch_norm_with_update, aten._batch_norm_with_update.default, name="batch_norm_with_update",
          inputs=("input", "weight", "bias", "running_mean", "running_var", "momentum", "eps"),
          meta=_with_update_meta, tags=(NORMALIZATION, INPLACE))
def batch_norm_with_update(input, weight, bias, running_mean, running_var, momentum, eps):
    """Training batch norm updating the running statistics, with its batch mean and invstd and
    an empty ``reserve`` buffer (cuDNN's workspace; nothing on CPU)."""
    out, mean, invstd = _batch_norm(input, weight, bias, running_mean, running_var, True, momentum, eps)
    return out, mean, invstd, prims.full(0, shape=(0,), dtype=torch.uint8, device=input.device)


@torch_op(aten._safe_softmax, aten._safe_softmax.default, name="safe_softmax", tags=(NORMALIZATION,))
def safe_softmax(input, dim, dtype=None):
    """``softmax``, with 0 for rows whose every element is -inf (masked out entirely)."""
    out = T.softmax(input, dim, dtype=dtype)
    return T.where(T.all(input == float("-inf"), dim, keepdim=True), 0.0, out).to(out.dtype)


@torch_op(aten._softmax_backward_data, aten._softmax_backward_data.default, name="softmax_backward_data",
          inputs=("grad_output", "output"),
          tags=(REDUCTION,))
def softmax_backward_data(grad_output, output, dim, input_dtype):
    """The input gradient of ``softmax`` from its output, in ``input_dtype``."""
    return _cast(softmax_backward(grad_output, output, dim), input_dtype)


@torch_op(aten.native_dropout_backward, aten.native_dropout_backward.default, name="native_dropout_backward",
          inputs=("grad_output", "mask", "scale"),
          tags=(ELEMENTWISE,))
def native_dropout_backward(grad_output, mask, scale):
    """``grad_output * mask * scale``: the gradient through dropout's kept elements."""
    return grad_output * (mask.to(grad_output.dtype) * scale)
