"""Torch-level margin and embedding losses (``torch.nn.functional``): ``soft_margin_loss``,
``margin_ranking_loss``, ``hinge_embedding_loss``, ``cosine_embedding_loss``,
``multi_margin_loss``, ``multilabel_margin_loss``, ``triplet_margin_loss`` and
``poisson_nll_loss``, decomposed with ATen's formulas (``aten/src/ATen/native/Loss.cpp`` and
the multi-margin CPU kernels), reduced as in ``ltorch_loss`` (``"none"``, ``"mean"``, ``"sum"``,
legacy ``size_average``/``reduce`` translated).

The ATen functions ``F`` calls (``torch.hinge_embedding_loss(input, target, margin, 1)``...,
with the reduction as an enum) are registered too, as fronts recording the same symbols.

Class-index losses pick the target's score with ``T.gather`` and exclude the target's own
class with an ``iota`` comparison; ``multilabel_margin_loss`` reads each row's targets up to
the first ``-1`` (a running count of ``-1`` entries), as eager does.

Traits: every loss is a ``"reduction"`` (for its default ``reduction="mean"``).
"""

from __future__ import annotations

import math

import torch
import torch.nn.functional as _F

from ..ir.traits import REDUCTION
from . import prims
from .ltorch_loss import _mode, _reduce
from .ltorch_nn import torch_alias
from .registry import F, T, torch_op

_ENUM = {0: "none", 1: "mean", 2: "sum"}
_EPSILON = 1e-12  # ATen's cosine_embedding_loss


def _enum_front(op, names):
    """A front for the ATen function taking the reduction as an int (``torch.<loss>(..., 1)``):
    the arguments ``names`` (all but the reduction) by position or keyword."""
    def front(*args, **kwargs):
        bound = dict(zip(names + ("reduction",), args))
        bound.update(kwargs)
        bound["reduction"] = _ENUM[bound.get("reduction", 1)]
        return op(**bound)
    return front


# ---------------------------------------------------------------- elementwise margins

@torch_op(_F.soft_margin_loss, inputs=("input", "target"), tags=(REDUCTION,))
def soft_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    """``log(1 + exp(-target * input))``."""
    return _reduce(T.log1p(T.exp(-input * target)), _mode(size_average, reduce, reduction))


@torch_op(_F.margin_ranking_loss, inputs=("input1", "input2", "target", "margin"), tags=(REDUCTION,))
def margin_ranking_loss(input1, input2, target, margin=0.0, size_average=None, reduce=None, reduction="mean"):
    """``max(0, -target * (input1 - input2) + margin)``."""
    mode = _mode(size_average, reduce, reduction)
    if input1.ndim != input2.ndim or input1.ndim != target.ndim:
        raise RuntimeError(f"margin_ranking_loss : All input tensors should have same dimension but got sizes: input1: "
                           f"{torch.Size(input1.shape)}, input2: {torch.Size(input2.shape)}, target: "
                           f"{torch.Size(target.shape)} ")
    return _reduce(T.clamp_min(-target * (input1 - input2) + margin, 0), mode)


@torch_op(_F.hinge_embedding_loss, inputs=("input", "target", "margin"), tags=(REDUCTION,))
def hinge_embedding_loss(input, target, margin=1.0, size_average=None, reduce=None, reduction="mean"):
    """``input`` where ``target`` is 1, ``max(0, margin - input)`` where it is -1 (both terms
    for any other target value, as ATen)."""
    mode = _mode(size_average, reduce, reduction)
    zeros = T.zeros_like(input)
    margin_term = T.where(target != 1, T.clamp_min(margin - input, 0), zeros)
    return _reduce(margin_term + T.where(target != -1, input, zeros), mode)


@torch_op(_F.cosine_embedding_loss, inputs=("input1", "input2", "target", "margin"), tags=(REDUCTION,))
def cosine_embedding_loss(input1, input2, target, margin=0.0, size_average=None, reduce=None, reduction="mean"):
    """``1 - cos(input1, input2)`` where ``target`` is 1, ``max(0, cos - margin)`` where it is -1;
    the cosine along the last dim (with ATen's ``1e-12`` added to each squared magnitude)."""
    mode = _mode(size_average, reduce, reduction)
    d = target.ndim
    if d > 1:
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    if (d == 1 and (input1.ndim != 2 or input2.ndim != 2)) or (d == 0 and (input1.ndim != 1 or input2.ndim != 1)):
        raise RuntimeError(f"{d}D target tensor expects {d + 1}D input tensors, but found inputs with sizes "
                           f"{list(input1.shape)} and {list(input2.shape)}.")
    prod_sum = T.sum(input1 * input2, d)
    mag1 = T.sum(input1 * input1, d) + _EPSILON
    mag2 = T.sum(input2 * input2, d) + _EPSILON
    cos = prod_sum / T.sqrt(mag1 * mag2)
    zeros = T.zeros_like(cos)
    pos = T.where(target == 1, 1 - cos, zeros)
    return _reduce(pos + T.where(target == -1, T.clamp_min(cos - margin, 0), zeros), mode)


@torch_op(_F.poisson_nll_loss, inputs=("input", "target", "eps"), tags=(REDUCTION,))
def poisson_nll_loss(input, target, log_input=True, full=False, size_average=None, eps=1e-8, reduce=None,
                     reduction="mean"):
    """``exp(input) - target * input`` (``log_input``) or ``input - target * log(input + eps)``,
    plus Stirling's approximation of ``log(target!)`` where ``target > 1`` (``full``)."""
    mode = _mode(size_average, reduce, reduction)
    loss = T.exp(input) - target * input if log_input else input - target * T.log(input + eps)
    if full:
        stirling = target * T.log(target) - target + 0.5 * T.log(2 * math.pi * target)
        loss = loss + T.masked_fill(stirling, target <= 1, 0)
    return _reduce(loss, mode)


@torch_op(_F.triplet_margin_loss, inputs=("anchor", "positive", "negative", "margin", "p", "eps"), tags=(REDUCTION,))
def triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2, eps=1e-6, swap=False, size_average=None,
                        reduce=None, reduction="mean"):
    """``max(0, margin + d(anchor, positive) - d(anchor, negative))`` with ``pairwise_distance``
    ``d`` (``swap``: the smaller of ``d(anchor, negative)`` and ``d(positive, negative)``)."""
    mode = _mode(size_average, reduce, reduction)
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin}")
    if not anchor.ndim == positive.ndim == negative.ndim:
        raise RuntimeError(f"The anchor, positive, and negative tensors are expected to have the same number of "
                           f"dimensions, but got: anchor {anchor.ndim}D, positive {positive.ndim}D, and negative "
                           f"{negative.ndim}D inputs")
    pos = F.pairwise_distance(anchor, positive, p, eps)
    neg = F.pairwise_distance(anchor, negative, p, eps)
    if swap:
        neg = T.minimum(neg, F.pairwise_distance(positive, negative, p, eps))
    return _reduce(T.clamp_min(margin + pos - neg, 0), mode)


# ---------------------------------------------------------------- class margins

def _frames(input, what):
    """(input as (frames, classes), frames, classes)."""
    classes = input.shape[-1] if input.ndim else 1
    frames = input.numel() // classes if classes else input.shape[0]
    if input.ndim > 2:
        raise RuntimeError(f"{what}: Expected non-empty vector or matrix with optional 0-dim batch size, but got: "
                           f"{list(input.shape)}")
    return input.reshape(frames, classes), frames, classes


def _per_frame(loss, mode, keep_frames):
    if mode == "none":
        return loss if keep_frames else loss.reshape(())
    return _reduce(loss, mode)


@torch_op(_F.multi_margin_loss, inputs=("input", "target", "p", "margin", "weight"), tags=(REDUCTION,))
def multi_margin_loss(input, target, p=1, margin=1.0, weight=None, size_average=None, reduce=None, reduction="mean"):
    """Per sample, the sum over the other classes ``j`` of ``max(0, margin - x[y] + x[j]) ** p``
    (times ``weight[y]``), divided by the number of classes."""
    mode = _mode(size_average, reduce, reduction)
    if p != 1 and p != 2:
        raise ValueError("only p == 1 and p == 2 supported")
    if weight is not None and weight.ndim != 1:
        raise ValueError("weight must be one-dimensional")
    x, frames, classes = _frames(input, "multi_margin_loss")
    t = target.reshape(frames)
    z = margin - T.gather(x, 1, t.reshape(frames, 1)) + x
    h = T.where(z > 0, z if p == 1 else z * z, 0.0)
    if weight is not None:
        h = h * T.index_select(weight, 0, t).reshape(frames, 1)
    other = prims.iota(classes, start=0, step=1, dtype=torch.int64, device=input.device) != t.reshape(frames, 1)
    loss = T.sum(T.where(other, h, 0.0), 1) / classes
    return _per_frame(loss, mode, target.ndim > 0)


@torch_op(_F.multilabel_margin_loss, inputs=("input", "target"), tags=(REDUCTION,))
def multilabel_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    """Per sample, the sum over its target classes ``j`` (the entries of ``target`` before the
    first -1) and non-target classes ``k`` of ``max(0, 1 - (x[j] - x[k]))``, divided by the number
    of classes."""
    mode = _mode(size_average, reduce, reduction)
    x, frames, classes = _frames(input, "multilabel_margin_loss")
    t = target.reshape(frames, classes)
    listed = T.cumsum((t == -1).to(torch.int64), 1) == 0  # entries before the first -1
    safe = T.where(listed, t, 0)
    kinds = prims.iota(classes, start=0, step=1, dtype=torch.int64, device=input.device)
    is_target = T.any(T.logical_and(safe.unsqueeze(2) == kinds, listed.unsqueeze(2)), 1)
    z = 1 - T.gather(x, 1, safe).unsqueeze(2) + x.unsqueeze(1)
    counted = T.logical_and(T.logical_and(z > 0, listed.unsqueeze(2)), T.logical_not(is_target).unsqueeze(1))
    loss = T.sum(T.where(counted, z, 0.0), (1, 2)) / classes
    return _per_frame(loss, mode, target.ndim > 1)


# ---------------------------------------------------------------- the ATen functions F calls

torch_alias(torch.hinge_embedding_loss, of=hinge_embedding_loss)(
    _enum_front(hinge_embedding_loss, ("input", "target", "margin")))
torch_alias(torch.margin_ranking_loss, of=margin_ranking_loss)(
    _enum_front(margin_ranking_loss, ("input1", "input2", "target", "margin")))
torch_alias(torch.cosine_embedding_loss, of=cosine_embedding_loss)(
    _enum_front(cosine_embedding_loss, ("input1", "input2", "target", "margin")))
torch_alias(torch.triplet_margin_loss, of=triplet_margin_loss)(
    _enum_front(triplet_margin_loss, ("anchor", "positive", "negative", "margin", "p", "eps", "swap")))
torch_alias(torch.poisson_nll_loss, of=poisson_nll_loss)(
    _enum_front(poisson_nll_loss, ("input", "target", "log_input", "full", "eps")))
torch_alias(torch._C._nn.soft_margin_loss, of=soft_margin_loss)(
    _enum_front(soft_margin_loss, ("input", "target")))
torch_alias(torch._C._nn.multi_margin_loss, of=multi_margin_loss)(
    _enum_front(multi_margin_loss, ("input", "target", "p", "margin", "weight")))
torch_alias(torch._C._nn.multilabel_margin_loss, of=multilabel_margin_loss)(
    _enum_front(multilabel_margin_loss, ("input", "target")))
