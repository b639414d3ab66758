"""``torch.autograd.gradcheck`` in float64 through ``tc.jit`` for every differentiable
torch-level symbol: the backward trace (VJP rules, decompositions, the PyTorch fallback)
against finite differences.

Every symbol of ``thunder_core.ops.registry.OPDEFS`` gets a case: a sample below (a function
of the inputs calling the torch callable that records the symbol), or a skip with its reason
(in-place variants, random ops, creation ops, backward kernels, outputs eager does not
differentiate). A symbol with neither fails :func:`test_every_symbol_has_a_sample_or_a_skip`.
"""

from __future__ import annotations

import warnings

import pytest
import torch
import torch.nn.functional as F

import thunder_core as tc
from thunder_core.ir.traits import has_trait, traits
from thunder_core.ops.registry import OPDEFS

from ..ops.test_elementwise import _DOMAINS
from . import gradcheck_math

pytest.importorskip("thunder_executor_torch")

F64, I64 = torch.float64, torch.int64
_GEN = torch.Generator().manual_seed(0)


def r(*shape, low=-2.0, high=2.0):
    return (torch.rand(shape, generator=_GEN, dtype=F64) * (high - low) + low).requires_grad_()


def pos(*shape):
    return r(*shape, low=0.5, high=2.0)


def ints(high, *shape):
    return torch.randint(0, high, shape, generator=_GEN)


def probs(*shape):
    return r(*shape, low=0.1, high=0.9)


#: symbol id -> (function of the inputs, inputs)
SAMPLES: dict = {}


#: the backward kernels VJP rules record (ops/ltorch_backward.py): not user ops
_BACKWARD_KERNELS = {sid for sid in OPDEFS if sid.endswith(("_backward", "_backward_stats"))} | \
    {"ltorch.layer_norm_forward", "ltorch.sdpa_forward"}


def C(name, fn, *inputs):
    sid = f"ltorch.{name}"
    assert sid not in SAMPLES, sid
    SAMPLES[sid] = (fn, inputs)


# ---------------------------------------------------------------- elementwise

_SPECIAL = {"floor_divide", "pow", "float_power", "div", "fmod", "remainder", "where", "clamp", "masked_fill", "lerp",
            "addcmul", "addcdiv", "nan_to_num", "real", "imag", "rsub"}
#: elementwise symbols with cases of their own below (activations, backward kernels, random, `to`)
_OWN_CASES = set(("celu elu gelu glu hardsigmoid hardswish hardtanh leaky_relu logsigmoid mish relu relu6 selu silu "
                  "softplus softsign threshold to hardshrink softshrink prelu fill zero native_dropout_backward").split())
for _sid, _od in OPDEFS.items():
    _name = _sid.split(".", 1)[1]
    if traits(_od.symbol) & {"inplace", "random"} or not has_trait(_od.symbol, "elementwise") or _name in _SPECIAL \
            or _name in _OWN_CASES or _sid in _BACKWARD_KERNELS or _name in gradcheck_math.OWN \
            or _sid in gradcheck_math.NOT_DIFFERENTIABLE:
        continue
    _fn = _od.torch_fn
    if len(_od.inputs) == 1:
        low, high = {**_DOMAINS, **gradcheck_math.DOMAINS}.get(_name, (-2.0, 2.0))
        C(_name, _fn, r(2, 3, low=low, high=high))
    else:  # binary (with broadcasting)
        low, high = gradcheck_math.DOMAINS.get(_name, (-2.0, 2.0))
        C(_name, _fn, r(2, 3), r(3, low=low, high=high))
C("floor_divide", torch.floor_divide, r(2, 3), pos(3))
C("pow", torch.pow, pos(2, 3), r(3))
C("float_power", torch.float_power, pos(2, 3), r(3))
C("div", lambda x, y: torch.div(x, y, rounding_mode=None) + x / 3.0, r(2, 3), pos(3))
C("fmod", torch.fmod, r(2, 3), pos(3))
C("remainder", torch.remainder, r(2, 3), -pos(3).detach().requires_grad_())
C("rsub", lambda x, y: torch.rsub(x, y, alpha=2), r(2, 3), r(3))
C("where", lambda c, x, y: torch.where(c, x, y), torch.rand(2, 3, generator=_GEN) > 0.5, r(2, 3), r(3))
C("clamp", lambda x, lo, hi: torch.clamp(x, lo, hi), r(2, 3), r(3, low=-1.5, high=-0.5), r(2, 1, low=0.5, high=1.5))
C("masked_fill", lambda x: x.masked_fill(torch.tensor([True, False, True]), 0.5), r(2, 3))
C("lerp", torch.lerp, r(2, 3), r(2, 3), probs(3))
C("addcmul", lambda a, b, c: torch.addcmul(a, b, c, value=0.5), r(2, 3), r(2, 3), r(3))
C("addcdiv", lambda a, b, c: torch.addcdiv(a, b, c, value=-2), r(2, 3), r(2, 3), pos(3))
C("nan_to_num", lambda x: torch.nan_to_num(x, nan=0.0, posinf=1.0), r(2, 3))  # finite: non-finite points have no
# finite differences
C("real", lambda x: torch.real(torch.complex(x, 2 * x)), r(2, 3))
C("imag", lambda x: torch.imag(torch.complex(x, 2 * x)), r(2, 3))
C("to", lambda x: x.to(torch.complex128).real, r(2, 3))  # (a float32 round trip would defeat finite differences)

# ---------------------------------------------------------------- activations, norms, losses

for _name in ("celu elu gelu glu hardsigmoid hardswish hardtanh leaky_relu logsigmoid mish relu relu6 selu silu "
              "softplus softsign").split():
    C(_name, getattr(F, _name), r(2, 4, low=-3, high=3))
C("threshold", lambda x: F.threshold(x, 0.1, -1.0), r(2, 3))
C("hardshrink", lambda x: F.hardshrink(x, 0.3), r(2, 4, low=-3, high=3))
C("softshrink", lambda x: F.softshrink(x, 0.3), r(2, 4, low=-3, high=3))
C("prelu", F.prelu, r(2, 3, 2), r(3))
C("fill", torch.fill, r(2, 3), r())
C("zero", torch.ops.aten.zero.default, r(2, 3))
C("softmax", lambda x: F.softmax(x, dim=1), r(2, 3))
C("log_softmax", lambda x: F.log_softmax(x, dim=0), r(2, 3))
C("softmin", lambda x: F.softmin(x, dim=1), r(2, 3))
C("layer_norm", lambda x, w, b: F.layer_norm(x, (3,), w, b), r(2, 3), r(3), r(3))
C("rms_norm", lambda x, w: F.rms_norm(x, (3,), w), r(2, 3), r(3))
C("group_norm", lambda x, w, b: F.group_norm(x, 2, w, b), r(2, 4, 3), r(4), r(4))
C("batch_norm", lambda x, w, b: F.batch_norm(x, None, None, w, b, training=True), r(2, 3, 2), r(3), r(3))
C("instance_norm", lambda x, w, b: F.instance_norm(x, weight=w, bias=b), r(2, 3, 2), r(3), r(3))
C("normalize", lambda x: F.normalize(x, dim=1), r(2, 3))
C("mse_loss", F.mse_loss, r(2, 3), r(2, 3))
C("l1_loss", F.l1_loss, r(2, 3), r(2, 3))
C("smooth_l1_loss", lambda x, y: F.smooth_l1_loss(x, y, beta=0.5), r(2, 3), r(2, 3))
C("huber_loss", lambda x, y: F.huber_loss(x, y, reduction="sum", delta=0.7), r(2, 3), r(2, 3))
C("binary_cross_entropy", F.binary_cross_entropy, probs(2, 3), probs(2, 3))
C("binary_cross_entropy_with_logits", lambda x, y: F.binary_cross_entropy_with_logits(x, y, pos_weight=_PW),
  r(2, 3), probs(2, 3))
_PW = torch.tensor([0.5, 1.0, 2.0], dtype=F64)  # weights eager does not differentiate
C("kl_div", lambda x, y: F.kl_div(x, y, reduction="batchmean"), r(2, 3), probs(2, 3))
C("nll_loss", lambda x: F.nll_loss(x, torch.tensor([0, 2]), weight=_PW), r(2, 3))
C("cross_entropy", lambda x: F.cross_entropy(x, torch.tensor([1, 0]), label_smoothing=0.1), r(2, 3))
C("soft_margin_loss", lambda x: F.soft_margin_loss(x, _PW.sign()), r(2, 3))
C("margin_ranking_loss", lambda a, b: F.margin_ranking_loss(a, b, torch.tensor([1.0, -1.0], dtype=F64), 0.3), r(2),
  r(2))
C("hinge_embedding_loss", lambda x: F.hinge_embedding_loss(x, torch.tensor([1.0, -1.0, -1.0], dtype=F64), 2.5), r(3))
C("cosine_embedding_loss", lambda a, b: F.cosine_embedding_loss(a, b, torch.tensor([1.0, -1.0], dtype=F64), 0.1),
  r(2, 3), r(2, 3))
C("multi_margin_loss", lambda x: F.multi_margin_loss(x, torch.tensor([1, 0]), p=2, weight=_PW), r(2, 3))
C("multilabel_margin_loss", lambda x: F.multilabel_margin_loss(x, torch.tensor([[2, 0, -1], [1, -1, 0]])), r(2, 3))
C("triplet_margin_loss", lambda a, p, n: F.triplet_margin_loss(a, p, n, swap=True), r(2, 3), r(2, 3), r(2, 3))
C("poisson_nll_loss", lambda x, t: F.poisson_nll_loss(x, t, full=True), r(2, 3), pos(2, 3) * 2)
if hasattr(F, "linear_cross_entropy"):  # (torch 2.13; not in torch 2.10)
    C("linear_cross_entropy", lambda x, w, b: F.linear_cross_entropy(x, w, torch.tensor([1, 0]), linear_bias=b),
      r(2, 3), r(4, 3), r(4))
C("native_layer_norm", lambda x, w, b: torch.native_layer_norm(x, (3,), w, b, 1e-5)[0], r(2, 3), r(3), r(3))
C("native_group_norm", lambda x, w, b: torch.native_group_norm(x, w, b, 2, 4, 3, 2, 1e-5), r(2, 4, 3), r(4), r(4))
C("native_batch_norm", lambda x, w, b: torch.native_batch_norm(x, w, b, None, None, True, 0.1, 1e-5)[0],
  r(2, 3, 2), r(3), r(3))
C("native_batch_norm_legit", lambda x, w: torch._native_batch_norm_legit(x, w, None, True, 0.1, 1e-5)[0],
  r(2, 3, 2), r(3))
C("batch_norm_with_update", lambda x, b: torch.ops.aten._batch_norm_with_update(
    x, None, b, torch.zeros(3, dtype=F64), torch.ones(3, dtype=F64), 0.1, 1e-5)[0], r(2, 3, 2), r(3))
C("safe_softmax", lambda x: torch.ops.aten._safe_softmax(x, 1), r(2, 3))
C("softmax_backward_data", lambda g, y: torch.ops.aten._softmax_backward_data(g, y, 1, F64), r(2, 3),
  F.softmax(r(2, 3), 1).detach().requires_grad_())

# ---------------------------------------------------------------- linear algebra and nn

C("matmul", torch.matmul, r(2, 2, 3), r(3, 2))
C("mm", torch.mm, r(2, 3), r(3, 2))
C("bmm", torch.bmm, r(2, 2, 3), r(2, 3, 2))
C("mv", torch.mv, r(2, 3), r(3))
C("dot", torch.dot, r(3), r(3))
C("outer", torch.outer, r(2), r(3))
C("addmm", lambda a, b, c: torch.addmm(a, b, c, beta=0.5, alpha=2), r(2), r(2, 3), r(3, 2))
C("addmv", torch.addmv, r(2), r(2, 3), r(3))
C("baddbmm", torch.baddbmm, r(2, 2, 2), r(2, 2, 3), r(2, 3, 2))
C("einsum", lambda a, b: torch.einsum("ij,jk->ik", a, b), r(2, 3), r(3, 2))
C("linear", F.linear, r(2, 3), r(4, 3), r(4))
C("bilinear", F.bilinear, r(2, 2), r(2, 3), r(2, 2, 3), r(2))
C("conv1d", lambda x, w, b: F.conv1d(x, w, b, stride=2, padding=1), r(1, 2, 5), r(3, 2, 2), r(3))
C("conv2d", lambda x, w: F.conv2d(x, w, groups=2, dilation=(1, 2)), r(1, 2, 4, 5), r(2, 1, 2, 2))
C("conv3d", F.conv3d, r(1, 1, 3, 3, 3), r(2, 1, 2, 2, 2), r(2))
C("conv_transpose1d", lambda x, w: F.conv_transpose1d(x, w, stride=2, output_padding=1), r(1, 2, 3), r(2, 2, 2))
C("conv_transpose2d", F.conv_transpose2d, r(1, 2, 2, 3), r(2, 1, 2, 2), r(1))
C("conv_transpose3d", F.conv_transpose3d, r(1, 1, 2, 2, 2), r(1, 2, 2, 1, 2))
C("embedding", lambda w: F.embedding(torch.tensor([[0, 2], [2, 3]]), w), r(4, 3))
C("pad", lambda x: F.pad(x, [1, -1, 2, 0], value=0.5), r(1, 2, 3))
C("interpolate", lambda x: F.interpolate(x, size=(3, 5), mode="bilinear"), r(1, 1, 2, 3))
C("max_pool1d", lambda x: F.max_pool1d(x, 2), r(1, 2, 4))
C("max_pool2d", lambda x: F.max_pool2d(x, 2, stride=1, padding=1), r(1, 1, 3, 3))
C("max_pool3d", lambda x: F.max_pool3d(x, 2), r(1, 1, 2, 2, 4))
C("max_pool1d_with_indices", lambda x: F.max_pool1d_with_indices(x, 2)[0], r(1, 2, 4))
C("max_pool2d_with_indices", lambda x: F.max_pool2d_with_indices(x, 2)[0], r(1, 1, 3, 3))
C("max_pool3d_with_indices", lambda x: F.max_pool3d_with_indices(x, 2)[0], r(1, 1, 2, 2, 4))
C("adaptive_max_pool3d", lambda x: F.adaptive_max_pool3d(x, 1), r(1, 1, 2, 2, 2))
C("fractional_max_pool2d", lambda x: F.fractional_max_pool2d(x, 2, output_size=2, _random_samples=_FRAC),
  r(1, 1, 4, 4))
C("fractional_max_pool3d", lambda x: F.fractional_max_pool3d(x, 2, output_size=2, _random_samples=_FRAC3),
  r(1, 1, 4, 4, 4))
_FRAC, _FRAC3 = torch.rand(1, 1, 2, generator=_GEN, dtype=F64), torch.rand(1, 1, 3, generator=_GEN, dtype=F64)
C("max_unpool2d", lambda x: F.max_unpool1d(x, torch.tensor([[[1, 2]]]), 2), r(1, 1, 2))
C("max_unpool3d", lambda x: F.max_unpool3d(x, torch.tensor([[[[[0, 3]]]]]), (1, 1, 2)), r(1, 1, 1, 1, 2))
C("grid_sampler", lambda x, g: F.grid_sample(x, g, align_corners=False), r(1, 1, 3, 3), r(1, 2, 2, 2, low=-0.9,
                                                                                          high=0.9))
C("grid_sampler_2d", lambda x, g: torch.grid_sampler_2d(x, g, 0, 0, True), r(1, 1, 3, 3), r(1, 2, 2, 2))
C("grid_sampler_3d", lambda x, g: torch.grid_sampler_3d(x, g, 0, 1, False), r(1, 1, 2, 2, 2), r(1, 1, 1, 2, 3))
C("_upsample_bilinear2d_aa", lambda x: torch.ops.aten._upsample_bilinear2d_aa(x, [2, 2], False), r(1, 1, 4, 5))
C("embedding_bag", lambda w, p: F.embedding_bag(torch.tensor([0, 2, 1, 3]), w, torch.tensor([0, 1]),
                                                per_sample_weights=p, mode="sum"), r(4, 3), r(4))
C("segment_reduce", lambda x: torch.segment_reduce(x, "mean", lengths=torch.tensor([2, 3])), r(5))
C("stft", lambda x: torch.stft(x, 4, return_complex=False), r(10))
C("avg_pool1d", lambda x: F.avg_pool1d(x, 3, stride=2, padding=1, count_include_pad=False), r(1, 2, 5))
C("avg_pool2d", lambda x: F.avg_pool2d(x, 2, ceil_mode=True), r(1, 1, 3, 3))
C("avg_pool3d", lambda x: F.avg_pool3d(x, (2, 1, 2)), r(1, 1, 2, 2, 2))
C("adaptive_avg_pool1d", lambda x: F.adaptive_avg_pool1d(x, 2), r(1, 2, 5))
C("adaptive_avg_pool2d", lambda x: F.adaptive_avg_pool2d(x, (2, 1)), r(1, 1, 3, 3))
C("adaptive_avg_pool3d", lambda x: F.adaptive_avg_pool3d(x, 1), r(1, 1, 2, 2, 2))
C("adaptive_max_pool1d", lambda x: F.adaptive_max_pool1d(x, 2), r(1, 2, 5))
C("adaptive_max_pool2d", lambda x: F.adaptive_max_pool2d(x, 2), r(1, 1, 3, 3))
C("unfold", lambda x: F.unfold(x, 2), r(1, 1, 3, 3))
C("fold", lambda x: F.fold(x, (3, 3), 2), r(1, 4, 4))
C("pixel_shuffle", lambda x: F.pixel_shuffle(x, 2), r(1, 4, 1, 2))
C("pixel_unshuffle", lambda x: F.pixel_unshuffle(x, 2), r(1, 1, 2, 4))
C("cosine_similarity", F.cosine_similarity, r(2, 3), r(2, 3))
C("pairwise_distance", F.pairwise_distance, r(2, 3), r(2, 3))
C("one_hot", lambda x: F.one_hot(torch.tensor([0, 2]), 3) * x, r(3))  # checks the product; one_hot itself is int
C("scaled_dot_product_attention", lambda q, k, v: F.scaled_dot_product_attention(q, k, v, is_causal=True),
  r(1, 2, 3, 2), r(1, 2, 3, 2), r(1, 2, 3, 2))

# ---------------------------------------------------------------- reductions

C("sum", lambda x: torch.sum(x, 1, keepdim=True), r(2, 3))
C("prod", lambda x: torch.prod(x, 0), r(2, 3))
C("mean", lambda x: torch.mean(x, (0, 1)), r(2, 3))
C("var", lambda x: torch.var(x, 1, correction=0), r(2, 3))
C("std", lambda x: torch.std(x, 0), r(2, 3))
C("var_mean", lambda x: torch.var_mean(x, 1), r(2, 3))
C("std_mean", lambda x: torch.std_mean(x, -1, keepdim=True), r(2, 3))
C("amax", lambda x: torch.amax(x, 1), r(2, 3))
C("amin", lambda x: torch.amin(x, (0, 1)), r(2, 3))
C("max", torch.max, r(2, 3))
C("min", torch.min, r(2, 3))
C("max_dim", lambda x: torch.max(x, 1), r(2, 3))
C("min_dim", lambda x: torch.min(x, 0, keepdim=True), r(2, 3))
C("cumsum", lambda x: torch.cumsum(x, 1), r(2, 3))
C("cumprod", lambda x: torch.cumprod(x, 1), r(2, 3))
C("logsumexp", lambda x: torch.logsumexp(x, 1), r(2, 3))
C("vector_norm", lambda x: torch.linalg.vector_norm(x, 3, dim=1), r(2, 3))
C("norm", lambda x: torch.norm(x, dim=0), r(2, 3))
C("topk", lambda x: torch.topk(x, 2, dim=1), r(2, 4))
C("sort", lambda x: torch.sort(x, 0, descending=True), r(3, 2))
for _name in ("argmax", "argmin", "argsort", "all", "any"):
    C(_name, getattr(torch, _name), r(2, 3))

# ---------------------------------------------------------------- math, special functions, statistics, fft, linalg

gradcheck_math.add_cases(C, r, pos, probs)

# ---------------------------------------------------------------- shape and indexing

C("reshape", lambda x: x.reshape(3, -1), r(2, 3))
C("view", lambda x: x.view(6), r(2, 3))
C("view_as", lambda x, y: x.view_as(y), r(2, 3), r(3, 2))
C("reshape_as", lambda x, y: x.reshape_as(y), r(2, 3), r(6))
C("view_dtype", lambda x: x.view(torch.int64), r(2, 3))
C("flatten", lambda x: torch.flatten(x, 1), r(2, 3, 2))
C("unflatten", lambda x: torch.unflatten(x, 1, (3, 1)), r(2, 3))
C("unsqueeze", lambda x: torch.unsqueeze(x, 1), r(2, 3))
C("squeeze", lambda x: torch.squeeze(x, 1), r(2, 1, 3))
C("permute", lambda x: x.permute(2, 0, 1), r(2, 3, 2))
C("transpose", lambda x: torch.transpose(x, 0, 2), r(2, 3, 2))
C("swapaxes", lambda x: torch.swapaxes(x, 0, 1), r(2, 3))
C("swapdims", lambda x: torch.swapdims(x, 1, 0), r(2, 3))
C("t", torch.t, r(2, 3))
C("movedim", lambda x: torch.movedim(x, 0, -1), r(2, 3, 2))
C("contiguous", lambda x: x.t().contiguous(), r(2, 3))
C("T", lambda x: x.T * 2, r(2, 3))
C("mT", lambda x: x.mT * 2, r(4, 2, 3))
C("H", lambda x: x.H * 2, r(2, 3))
C("mH", lambda x: x.mH * 2, r(4, 2, 3))
C("to_memory_format", lambda x: x.to(torch.float64, memory_format=torch.channels_last) * 2, r(1, 2, 3, 2))
C("clone", torch.clone, r(2, 3))
C("detach", torch.detach, r(2, 3))
C("expand", lambda x: x.expand(2, 3, 3), r(3, 1))
C("expand_as", lambda x, y: x.expand_as(y), r(3), r(2, 3))
C("broadcast_to", lambda x: torch.broadcast_to(x, (2, 3)), r(1, 3))
C("cat", lambda x, y: torch.cat([x, y], 1), r(2, 3), r(2, 1))
C("concatenate", lambda x, y: torch.concatenate([x, y]), r(2, 3), r(1, 3))
C("stack", lambda x, y: torch.stack([x, y], 1), r(2, 3), r(2, 3))
C("hstack", lambda x, y: torch.hstack([x, y]), r(2, 3), r(2, 2))
C("vstack", lambda x, y: torch.vstack([x, y]), r(3), r(2, 3))
C("split", lambda x: torch.split(x, 2, 1), r(2, 5))
C("split_with_sizes", lambda x: torch.split_with_sizes(x, [1, 3, 1], 1), r(2, 5))
C("chunk", lambda x: torch.chunk(x, 2, 0), r(3, 2))
C("tensor_split", lambda x: torch.tensor_split(x, [1, 3], 1), r(2, 5))
C("unbind", lambda x: torch.unbind(x, 1), r(2, 3))
C("select", lambda x: torch.select(x, 1, -1), r(2, 3))
C("narrow", lambda x: torch.narrow(x, 1, 1, 2), r(2, 3))
C("flip", lambda x: x.flip(0, 1), r(2, 3))
C("roll", lambda x: torch.roll(x, (1, -1), (0, 1)), r(2, 3))
C("repeat", lambda x: x.repeat(2, 1, 2), r(2, 3))
C("tile", lambda x: torch.tile(x, (2,)), r(2, 3))
C("repeat_interleave", lambda x: torch.repeat_interleave(x, 2, 1), r(2, 3))
C("tril", lambda x: torch.tril(x, 1), r(3, 3))
C("triu", lambda x: torch.triu(x, -1), r(3, 3))
C("diagonal", lambda x: torch.diagonal(x, 1, 0, 2), r(3, 2, 3))
C("getitem", lambda x: x[1:, ::2, None, -1], r(3, 4, 2))


def _setitem(x, v):
    y = x * 1  # an intermediate: autograd records setitem_out in place of the write
    y[1:, 0] = v
    return y


C("setitem_out", _setitem, r(3, 4), r(2))
C("index", lambda x: x[torch.tensor([0, 2, 0]), torch.tensor([1, 0, 1])], r(3, 2))
C("index_select", lambda x: torch.index_select(x, 1, torch.tensor([2, 0, 2])), r(2, 3))
C("gather", lambda x: torch.gather(x, 1, torch.tensor([[0, 0], [2, 1]])), r(2, 3))
C("take_along_dim", lambda x: torch.take_along_dim(x, torch.tensor([[0], [2]]), 1), r(2, 3))
C("scatter", lambda x, s: torch.scatter(x, 0, torch.tensor([[1, 0, 1]]), s), r(2, 3), r(1, 3))
C("scatter_add", lambda x, s: torch.scatter_add(x, 1, torch.tensor([[0, 0], [2, 1]]), s), r(2, 3), r(2, 2))

# ---------------------------------------------------------------- copies of views, NumPy-style shape ops, broadcasting

for _name, _fn, _x in (
        ("alias_copy", torch.alias_copy, r(2, 3)),
        ("view_copy", lambda x: torch.view_copy(x, (3, 2)), r(2, 3)),
        ("permute_copy", lambda x: torch.permute_copy(x, (1, 0)), r(2, 3)),
        ("expand_copy", lambda x: torch.expand_copy(x, (2, 3)), r(1, 3)),
        ("squeeze_copy", lambda x: torch.squeeze_copy(x, 1), r(2, 1, 3)),
        ("unsqueeze_copy", lambda x: torch.unsqueeze_copy(x, 0), r(2, 3)), ("t_copy", torch.t_copy, r(2, 3)),
        ("transpose_copy", lambda x: torch.transpose_copy(x, 0, 1), r(2, 3)),
        ("diagonal_copy", lambda x: torch.diagonal_copy(x, 1), r(3, 3)),
        ("narrow_copy", lambda x: torch.narrow_copy(x, 1, 1, 2), r(2, 3)),
        ("select_copy", lambda x: torch.select_copy(x, 0, 1), r(2, 3)),
        ("slice_copy", lambda x: torch.slice_copy(x, 1, 0, 3, 2), r(2, 3)),
        ("unfold_copy", lambda x: torch.unfold_copy(x, 1, 2, 1), r(2, 3)),
        ("as_strided_copy", lambda x: torch.as_strided_copy(x, (2, 2), (1, 2)), r(2, 3)),
        ("unbind_copy", lambda x: torch.unbind_copy(x, 1), r(2, 3)),
        ("split_copy", lambda x: torch.split_copy(x, 2, 1), r(2, 3)),
        ("split_with_sizes_copy", lambda x: torch.split_with_sizes_copy(x, [1, 2], 1), r(2, 3)),
        ("unsafe_split", lambda x: torch.unsafe_split(x, 2, 1), r(2, 3)),
        ("unsafe_split_with_sizes", lambda x: torch.unsafe_split_with_sizes(x, [2, 1], 1), r(2, 3)),
        ("unsafe_chunk", lambda x: torch.unsafe_chunk(x, 2, 0), r(3, 2)),
        ("atleast_1d", torch.atleast_1d, r()), ("atleast_2d", torch.atleast_2d, r(3)),
        ("atleast_3d", torch.atleast_3d, r(2, 3)), ("ravel", torch.ravel, r(2, 3)),
        ("fliplr", torch.fliplr, r(2, 3)), ("flipud", torch.flipud, r(2, 3)),
        ("rot90", lambda x: torch.rot90(x, 3, (1, 2)), r(2, 2, 3)),
        ("hsplit", lambda x: torch.hsplit(x, [1]), r(2, 3)), ("vsplit", lambda x: torch.vsplit(x, 2), r(4, 3)),
        ("dsplit", lambda x: torch.dsplit(x, [1, 2]), r(1, 2, 3)),
        ("sum_to_size", lambda x: x.sum_to_size(1, 3), r(2, 3)),
        ("tensor_unfold", lambda x: x.unfold(1, 2, 1), r(2, 4)),
        ("as_strided", lambda x: torch.as_strided(x, (2, 2), (1, 2), 1) * 2, r(2, 3)),
        ("slice", lambda x: torch.ops.aten.slice.Tensor(x, 1, 1, None, 2), r(2, 4)),
        ("constant_pad_nd", lambda x: torch.constant_pad_nd(x, [1, -1, 0, 2], 0.5), r(2, 3)),
        ("diag", lambda x: torch.diag(x, -1), r(3)), ("diag_embed", lambda x: torch.diag_embed(x, 1, 0, 2), r(2, 3)),
        ("diagflat", lambda x: torch.diagflat(x, 1), r(2, 2)), ("channel_shuffle", lambda x: F.channel_shuffle(x, 2),
                                                                 r(1, 4, 2)),
        ("pdist", F.pdist, r(3, 2)),
        ("meshgrid", lambda x: torch.meshgrid(x, x[:2], indexing="xy"), r(3))):
    C(_name, _fn, _x)
C("broadcast_tensors", torch.broadcast_tensors, r(2, 1), r(3))
C("cartesian_prod", torch.cartesian_prod, r(2), r(3))
C("column_stack", lambda x, y: torch.column_stack([x, y]), r(3), r(3, 2))
C("dstack", lambda x, y: torch.dstack([x, y]), r(3), r(1, 3))
C("block_diag", torch.block_diag, r(2, 2), r(3), r())
C("_chunk_cat", lambda x, y: torch._chunk_cat([x, y], 1, 2), r(2, 3), r(2, 4))

# ---------------------------------------------------------------- scatters at index positions, scatters into views

_I = torch.tensor([2, 0])
C("index_add", lambda x, s: torch.index_add(x, 1, _I, s, alpha=2), r(2, 3), r(2, 2))
C("index_copy", lambda x, s: torch.index_copy(x, 1, _I, s), r(2, 3), r(2, 2))
C("index_fill", lambda x, v: torch.index_fill(x, 1, _I, v), r(2, 3), r())
C("index_reduce", lambda x, s: torch.index_reduce(x, 1, torch.tensor([2, 0, 2]), s, "prod"), r(2, 3), r(2, 3))
C("scatter_reduce", lambda x, s: torch.scatter_reduce(x, 0, torch.tensor([[1, 0, 1], [1, 1, 0]]), s, "amax",
                                                      include_self=False), r(2, 3), r(2, 3))
C("take", lambda x: torch.take(x, torch.tensor([[5, 0], [-1, 2]])), r(2, 3))
C("put", lambda x, s: torch.put(x, torch.tensor([4, 0, 4]), s, accumulate=True), r(2, 3), r(3))
C("masked_scatter", lambda x, s: torch.masked_scatter(x, torch.tensor([True, False, True]), s), r(2, 3), r(5))
C("index_put", lambda x, v: torch.index_put(x, (torch.tensor([1, 0]), torch.tensor([2, 2])), v), r(2, 3), r(2))
C("_unsafe_masked_index", lambda x: torch._unsafe_masked_index(
    x, torch.tensor([True, False]), [torch.tensor([1, 5])], 0.5), r(3, 2))
C("_unsafe_masked_index_put_accumulate", lambda x, v: torch._unsafe_masked_index_put_accumulate(
    x, torch.tensor([True, False, True]), [torch.tensor([1, 7, 1])], v), r(3), r(3))
C("nonzero_static", lambda x: torch.nonzero_static(x, size=4), r(2, 3))
C("slice_scatter", lambda x, s: torch.slice_scatter(x, s, 1, 0, 3, 2), r(2, 3), r(2, 2))
C("select_scatter", lambda x, s: torch.select_scatter(x, s, 0, -1), r(2, 3), r(3))
C("diagonal_scatter", lambda x, s: torch.diagonal_scatter(x, s, -1, 1, 0), r(3, 2, 3), r(3, 1))
C("as_strided_scatter", lambda x, s: torch.as_strided_scatter(x, s, (2,), (2,), 1), r(2, 3), r(2))

# ---------------------------------------------------------------- skips and known failures

#: skipped by rule: the first matching reason wins
RULES = [
    (lambda od: not od.module.startswith("thunder_core."),
     "defined by a plugin (a collective needs a process group): the plugin's own tests check its gradients"),
    (lambda od: "inplace" in od.symbol.tags and od.symbol.id not in SAMPLES,
     "in-place variant: functionalised into its out-of-place op, which has its own case"),
    (lambda od: has_trait(od.symbol, "creation"), "creation op: no differentiable input"),
    (lambda od: od.symbol.id in _BACKWARD_KERNELS, "a backward kernel that VJP rules record; not a user op"),
    (lambda od: "random" in od.symbol.tags and od.symbol.id not in SAMPLES,
     "random: finite differences of fresh noise are meaningless"),
]
#: symbol id -> why it has no case although it takes floating-point tensors
NOT_DIFFERENTIABLE = {
    "ltorch.floor_divide": "eager raises 'derivative for aten::floor_divide is not implemented'",
    "ltorch.positive": "an identity that records no call (`+x` traces as `x`), so there is nothing to check",
    "ltorch.assert_tensor": "the program's `assert` on a tensor: it has no outputs (tests/capture/test_tensor_asserts.py)",
    "ltorch.set_grad_enabled": "grad mode inside an op-by-op trace: it has no outputs (tests/autograd/test_autograd_api.py)",
    "ltorch.as_strided_scatter": "eager's own gradient fails torch.autograd.gradcheck on this sample (its backward "
                                 "is PyTorch's, run through torch_vjp)",
    **gradcheck_math.NOT_DIFFERENTIABLE,
}
XFAIL: dict[str, str] = {}  # symbol id -> why its gradcheck is known to fail (strict xfail)


def skip_reason(sid):
    od = OPDEFS[sid]
    if sid in NOT_DIFFERENTIABLE:
        return NOT_DIFFERENTIABLE[sid]
    for rule, reason in RULES:
        if rule(od):
            return reason
    if sid not in SAMPLES:
        return None
    fn, inputs = SAMPLES[sid]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            out = fn(*inputs)
        except (RuntimeError, NotImplementedError) as e:
            if "not implemented for 'Double'" not in str(e):
                raise
            return "not differentiable: an integer/bool op (eager rejects float64 inputs)"
    outs = [o for o in (out if isinstance(out, (tuple, list)) else (out,)) if isinstance(o, torch.Tensor)]
    if not any(o.requires_grad for o in outs):
        return f"not differentiable: eager's output ({', '.join(str(o.dtype) for o in outs)}) does not require grad"
    return None


def cases():
    out = []
    for sid in sorted(OPDEFS):
        reason = skip_reason(sid)
        if reason is not None:
            out.append(pytest.param(sid, marks=pytest.mark.skip(reason=reason), id=sid))
        elif sid in SAMPLES:
            marks = [pytest.mark.xfail(strict=True, reason=XFAIL[sid])] if sid in XFAIL else []
            out.append(pytest.param(sid, marks=marks, id=sid))
    return out


CASES = cases()
COVERED = [p.values[0] for p in CASES if not any(m.name == "skip" for m in p.marks)]


@pytest.mark.parametrize("sid", CASES)
def test_gradcheck_through_jit(sid):
    fn, inputs = SAMPLES[sid]
    jfn = tc.jit(fn, executors=["torch"])
    inputs = tuple(x.detach().requires_grad_(x.requires_grad) for x in inputs)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert torch.autograd.gradcheck(jfn, inputs, eps=1e-6, atol=1e-5, rtol=1e-3)
    assert tc.last_backward_traces(jfn), f"{sid}: the compile was not split:\n{tc.explain(jfn)}"
    printed = OPDEFS[sid].symbol.printed_name
    assert any(f"{printed}(" in t.python(print_subsymbols=True) for t in tc.last_traces(jfn)), \
        f"{sid}: the sample does not record {printed}"


def test_every_symbol_has_a_sample_or_a_skip():
    missing = [p.values[0] for p in CASES]
    missing = sorted(set(OPDEFS) - set(missing))
    assert not missing, f"symbols with neither a sample nor a skip rule: {missing}"
    assert not set(SAMPLES) - set(OPDEFS), f"samples of unknown symbols: {sorted(set(SAMPLES) - set(OPDEFS))}"
    assert len(COVERED) >= 180, f"only {len(COVERED)} symbols are gradchecked"


def test_batch_norm_with_running_stats_is_split():
    stats = torch.zeros(3, dtype=F64), torch.ones(3, dtype=F64)
    jfn = tc.jit(lambda x, w: F.batch_norm(x, *stats, w, training=True), executors=["torch"])
    assert torch.autograd.gradcheck(jfn, (r(2, 3, 2), r(3)))
    assert tc.last_backward_traces(jfn), tc.explain(jfn)
