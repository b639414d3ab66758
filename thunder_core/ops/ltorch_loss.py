"""Torch-level loss functions (``torch.nn.functional``), decomposed with eager's formulas.

Reductions are ``"none"``, ``"mean"`` and ``"sum"`` (``kl_div`` also ``"batchmean"``); the
legacy ``size_average``/``reduce`` arguments are translated as eager translates them (with
its deprecation warning). Class-index targets pick their log-probability with ``T.gather``
and their class weight with ``T.index_select``; entries equal to ``ignore_index`` contribute
nothing, and a ``"mean"`` divides by the total weight of the others (NaN when there are none,
as in eager). Checks eager makes on tensor *values* (class indices in range, probabilities in
[0, 1] for ``binary_cross_entropy``) cannot be made while tracing: the decomposition then
gives NaN or an indexing error where eager raises its own error. Tensors and ``beta``,
``delta``, ``label_smoothing`` are inputs; reduction modes, ``ignore_index`` and flags are static.

Traits: every loss is a ``"reduction"`` (for its default ``reduction="mean"``); ``cross_entropy``
is also a ``"normalization"`` (its ``log_softmax``).
"""

from __future__ import annotations

import warnings

import torch
import torch.nn.functional as _F
from torch.nn import _reduction

from ..ir.traits import NORMALIZATION, REDUCTION
from .registry import F, T, torch_op

_MODES = ("none", "mean", "sum")


def _mode(size_average, reduce, reduction, modes=_MODES):
    if size_average is not None or reduce is not None:
        return _reduction.legacy_get_string(size_average, reduce)
    if reduction not in modes:
        raise ValueError(f"{reduction} is not a valid value for reduction; use one of {', '.join(modes)}.")
    return reduction


def _reduce(loss, mode):
    if mode == "none":
        return loss
    return T.sum(loss) if mode == "sum" else T.mean(loss)


def _pair(op, input, target):
    """``input`` and ``target`` broadcast to one shape, warning like eager when they differ."""
    if input.shape == target.shape:
        return input, target
    warnings.warn(f"{op}: Using a target size ({torch.Size(target.shape)}) that is different to the input size "
                  f"({torch.Size(input.shape)}). This will likely lead to incorrect results due to broadcasting. "
                  "Please ensure they have the same size.", stacklevel=3)
    shape = tuple(torch.broadcast_shapes(input.shape, target.shape))
    return input.expand(shape), target.expand(shape)


def _weighted(loss, weight, input, mode, mean_over_weight=True):
    """Reduce ``loss * weight`` (elementwise weights of the input's shape); ``mean_over_weight``:
    a mean divides by the sum of the weights instead of the element count."""
    if weight is None:
        return _reduce(loss, mode)
    if weight.shape != input.shape:
        raise ValueError("Weights and input must have the same size.")
    loss = loss * weight
    return T.sum(loss) / T.sum(weight) if mode == "mean" and mean_over_weight else _reduce(loss, mode)


@torch_op(_F.mse_loss, inputs=("input", "target", "weight"), tags=(REDUCTION,))
def mse_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    """Mean squared error ``(input - target) ** 2``."""
    mode = _mode(size_average, reduce, reduction)
    x, t = _pair("mse_loss", input, target)
    d = x - t
    return _weighted(d * d, weight, input, mode)


@torch_op(_F.l1_loss, inputs=("input", "target", "weight"), tags=(REDUCTION,))
def l1_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    """Mean absolute error ``|input - target|``."""
    mode = _mode(size_average, reduce, reduction)
    x, t = _pair("l1_loss", input, target)
    return _weighted(T.abs(x - t), weight, input, mode)


@torch_op(_F.smooth_l1_loss, inputs=("input", "target", "beta"), tags=(REDUCTION,))
def smooth_l1_loss(input, target, size_average=None, reduce=None, reduction="mean", beta=1.0):
    """``0.5 * z**2 / beta`` where ``z = |input - target| < beta``, else ``z - 0.5 * beta``."""
    mode = _mode(size_average, reduce, reduction)
    if beta < 0:
        raise RuntimeError("smooth_l1_loss does not support negative values for beta.")
    x, t = _pair("smooth_l1_loss", input, target)
    z = T.abs(x - t)
    return _reduce(z if beta == 0 else T.where(z < beta, 0.5 * z * z / beta, z - 0.5 * beta), mode)


@torch_op(_F.huber_loss, inputs=("input", "target", "delta", "weight"), tags=(REDUCTION,))
def huber_loss(input, target, reduction="mean", delta=1.0, weight=None):
    """``0.5 * z**2`` where ``z = |input - target| < delta``, else ``delta * (z - 0.5 * delta)``."""
    mode = _mode(None, None, reduction)
    x, t = _pair("huber_loss", input, target)
    z = T.abs(x - t)
    return _weighted(T.where(z < delta, 0.5 * z * z, delta * (z - 0.5 * delta)), weight, input, mode,
                     mean_over_weight=False)


@torch_op(_F.binary_cross_entropy, inputs=("input", "target", "weight"), tags=(REDUCTION,))
def binary_cross_entropy(input, target, weight=None, size_average=None, reduce=None, reduction="mean"):
    """``-(target * log(input) + (1 - target) * log(1 - input))``, each log clamped at -100."""
    mode = _mode(size_average, reduce, reduction)
    if target.shape != input.shape:
        raise ValueError(f"Using a target size ({torch.Size(target.shape)}) that is different to the input size "
                         f"({torch.Size(input.shape)}) is deprecated. Please ensure they have the same size.")
    loss = (target - 1) * T.clamp(T.log1p(-input), min=-100) - target * T.clamp(T.log(input), min=-100)
    return _reduce(loss if weight is None else loss * weight, mode)


@torch_op(_F.binary_cross_entropy_with_logits, inputs=("input", "target", "weight", "pos_weight"), tags=(REDUCTION,))
def binary_cross_entropy_with_logits(input, target, weight=None, size_average=None, reduce=None, reduction="mean",
                                     pos_weight=None):
    """``(1 - target) * input - log_sigmoid(input)`` (the positive term weighted by ``pos_weight``),
    with the stable ``log_sigmoid(x) = min(x, 0) - log1p(exp(-|x|))``."""
    mode = _mode(size_average, reduce, reduction)
    if target.shape != input.shape:
        raise ValueError(f"Target size ({torch.Size(target.shape)}) must be the same as input size "
                         f"({torch.Size(input.shape)})")
    log_sigmoid = T.clamp(input, max=0) - T.log1p(T.exp(-T.abs(input)))
    if pos_weight is not None:
        log_sigmoid = log_sigmoid * ((pos_weight - 1) * target + 1)
    loss = (1 - target) * input - log_sigmoid
    return _reduce(loss if weight is None else loss * weight, mode)


@torch_op(_F.kl_div, inputs=("input", "target"), tags=(REDUCTION,))
def kl_div(input, target, size_average=None, reduce=None, reduction="mean", log_target=False):
    """``target * (log(target) - input)`` (``target`` given as log-probabilities with
    ``log_target``); ``"batchmean"`` divides the sum by the batch size."""
    if size_average is None and reduce is None and reduction == "mean":
        warnings.warn("reduction: 'mean' divides the total loss by both the batch size and the support size."
                      "'batchmean' divides only by the batch size, and aligns with the KL div math definition."
                      "'mean' will be changed to behave the same as 'batchmean' in the next major release.",
                      stacklevel=3)
    mode = _mode(size_average, reduce, reduction, _MODES + ("batchmean",))
    if log_target:
        loss = T.exp(target) * (target - input)
    else:  # xlogy(target, target): 0 where target == 0
        loss = T.where(target == 0, 0.0, target * T.log(target)) - target * input
    if mode != "batchmean":
        return _reduce(loss, mode)
    total = T.sum(loss)
    return total / input.shape[0] if input.ndim else total


# ---------------------------------------------------------------- class-index losses

def _class_dim(op, input, target):
    """The class dimension of ``input``, checking a class-index ``target`` against it."""
    cdim = 0 if input.ndim == 1 else 1
    if input.ndim == 0:
        raise RuntimeError(f"{op}: input must have a class dimension, got a 0-d tensor.")
    expected = input.shape[:cdim] + input.shape[cdim + 1:]
    if not target.is_floating_point() and target.shape != expected:
        raise RuntimeError(f"{op}: expected target of shape {list(expected)} for input of shape "
                           f"{list(input.shape)}, got {list(target.shape)}.")
    return cdim


def _target_weights(input, target, weight, ignore_index):
    """(kept, safe target, per-target weight): ``kept`` marks targets != ignore_index, ``safe``
    replaces ignored targets by class 0, the weight is ``weight[target]`` (1 without a weight)
    and 0 where ignored."""
    kept = target != ignore_index
    safe = T.where(kept, target, 0)
    if weight is None:
        return kept, safe, kept.to(input.dtype)
    picked = T.index_select(weight, 0, safe.reshape(-1)).reshape(target.shape)
    return kept, safe, T.where(kept, picked, 0.0)


@torch_op(_F.nll_loss, inputs=("input", "target", "weight"), tags=(REDUCTION,))
def nll_loss(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None, reduction="mean"):
    """``-weight[t] * input[t]`` at each class index ``t`` of ``target`` (input holds
    log-probabilities along dimension 1, or 0 for a single sample)."""
    mode = _mode(size_average, reduce, reduction)
    cdim = _class_dim("F.nll_loss", input, target)
    if target.is_floating_point():
        raise RuntimeError(f"F.nll_loss: target must hold class indices (an integer dtype), got {target.dtype}.")
    kept, safe, w = _target_weights(input, target, weight, ignore_index)
    picked = T.gather(input, cdim, safe.unsqueeze(cdim)).squeeze(cdim)
    loss = T.where(kept, -picked if weight is None else -picked * w, 0.0)
    if mode == "none":
        return loss
    return T.sum(loss) if mode == "sum" else T.sum(loss) / T.sum(w)


@torch_op(_F.cross_entropy, inputs=("input", "target", "weight", "label_smoothing"), tags=(REDUCTION, NORMALIZATION))
def cross_entropy(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None, reduction="mean",
                  label_smoothing=0.0):
    """``nll_loss(log_softmax(input))`` for class-index targets, ``-sum(target * log_softmax(input))``
    over classes for probability targets (a floating ``target`` of the input's shape); with
    ``label_smoothing`` mixed with the uniform distribution over classes, as eager."""
    mode = _mode(size_average, reduce, reduction)
    if not 0.0 <= label_smoothing <= 1.0:
        raise ValueError(f"label_smoothing must be between 0.0 and 1.0. Got: {label_smoothing}")
    cdim = _class_dim("F.cross_entropy", input, target)
    n = input.shape[cdim]
    logp = T.log_softmax(input, cdim)
    w = None if weight is None else weight.reshape(n, *([1] * (input.ndim - cdim - 1)))
    if target.is_floating_point():
        if target.shape != input.shape:
            raise RuntimeError(f"F.cross_entropy: probability targets must have the input's shape "
                               f"{list(input.shape)}, got {list(target.shape)}.")
        t = target if label_smoothing == 0 else target * (1 - label_smoothing) + label_smoothing / n
        prod = logp * t if w is None else logp * t * w
        if mode == "none":
            return -T.sum(prod, cdim)
        return -T.sum(prod) if mode == "sum" else -T.sum(prod) / (input.numel() // n)
    nll = F.nll_loss(logp, target, weight, ignore_index=ignore_index, reduction=mode)
    if label_smoothing == 0:
        return nll
    kept, _, tw = _target_weights(input, target, weight, ignore_index)
    smooth = T.where(kept, -T.sum(logp if w is None else logp * w, cdim), 0.0)
    if mode == "mean":
        smooth = T.sum(smooth) / T.sum(tw)
    elif mode == "sum":
        smooth = T.sum(smooth)
    return nll * (1 - label_smoothing) + smooth * (label_smoothing / n)
