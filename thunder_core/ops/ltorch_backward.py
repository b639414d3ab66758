"""Torch-level backward ops: the gradients VJP rules (``transforms/vjp_ltorch*.py``) record.

Each op stands for one of PyTorch's fused backward kernels (``aten.gelu_backward``,
``aten.native_layer_norm_backward``, the CPU flash-attention backward...), which on CPU are
much faster than the chain of small ops their formula takes; the torch executor runs the
kernel (``impl``), and the body is the same gradient written in ops, for other executors.
Forward statistics the kernels want but the forward op does not return (layer/RMS norm's
mean and rstd, attention's logsumexp) are recomputed from the saved input: one reduction
(or one attention pass) instead of a forward that would have to return them.

Gradients of several arguments come out as one tuple holding only those ``output_mask``
asks for (a trace output cannot be None).

Traits say what each kernel computes: the activation gradients are ``"elementwise"`` (and
``"transcendental"`` where they evaluate erf/exp/sigmoid again: ``gelu_backward``,
``silu_backward``); the softmax and norm gradients are ``"reduction"`` (row or channel sums
combined with elementwise math; they normalize nothing, so they are not ``"normalization"``,
unlike ``layer_norm_forward``); attention and convolution gradients are ``"matmul"``. The
embedding and ``nll_loss`` gradients, which add or write into positions given by an index
tensor, are ``"indexing"``; ``getitem_backward`` (a pad for basic indices, an accumulating
``index_put`` for tensor ones) has no trait.
"""

from __future__ import annotations

import math

import torch
import torch.nn.functional as _F

from ..ir import tensor_proxy
from ..ir.traits import ELEMENTWISE, INDEXING, MATMUL, NORMALIZATION, REDUCTION, TRANSCENDENTAL
from . import attention_kernels
from .prims_shape import same_shape
from .registry import F, T, torch_op

aten = torch.ops.aten
_LOW = (torch.float16, torch.bfloat16)


def _wide(x):
    """float32 for half-precision tensors (the kernels' accumulation dtype)."""
    return x.float() if x.dtype in _LOW else x


def _trailing(x, normalized_shape):
    return tuple(range(x.ndim - len(normalized_shape), x.ndim))


def _masked(outs, mask):
    return tuple(o for o, m in zip(outs, mask) if m)


def _lead_sum(g, ndim_kept):
    """``g`` summed over all but its last ``ndim_kept`` dims."""
    lead = list(range(g.ndim - ndim_kept))
    return T.sum(g, lead) if lead else T.clone(g)  # (a decomposition may not return its input)


def _lead_sum_eager(t, ndim_kept):
    """Like :func:`_lead_sum`, on real tensors (torch's ``sum(())`` would sum every dim)."""
    lead = tuple(range(t.ndim - ndim_kept))
    return t.sum(lead) if lead else t


# ---------------------------------------------------------------- softmaxes and activations

@torch_op(name="softmax_backward", inputs=("grad_output", "output"),
          impl=lambda a, k: aten._softmax_backward_data(a[0], a[1], a[2], a[1].dtype), tags=(REDUCTION,))
def softmax_backward(grad_output, output, dim):
    """The input gradient of ``y = softmax(x, dim)`` from ``y``: ``y * (g - sum(g * y))``."""
    return output * (grad_output - T.sum(grad_output * output, dim, keepdim=True))


@torch_op(name="log_softmax_backward", inputs=("grad_output", "output"),
          impl=lambda a, k: aten._log_softmax_backward_data(a[0], a[1], a[2], a[1].dtype), tags=(REDUCTION,))
def log_softmax_backward(grad_output, output, dim):
    """The input gradient of ``y = log_softmax(x, dim)`` from ``y``: ``g - exp(y) * sum(g)``."""
    return grad_output - T.exp(output) * T.sum(grad_output, dim, keepdim=True)


@torch_op(aten.gelu_backward, inputs=("grad_output", "self"), tags=(ELEMENTWISE, TRANSCENDENTAL))
def gelu_backward(grad_output, self, *, approximate="none"):
    """``g * d gelu(x) / dx`` (exact or tanh-approximated)."""
    x = self
    if approximate == "tanh":
        k, c = math.sqrt(2.0 / math.pi), 0.044715
        t = T.tanh(k * (x + c * x * x * x))
        return grad_output * (0.5 * (1 + t) + 0.5 * x * (1 - t * t) * k * (1 + 3 * c * x * x))
    cdf = 0.5 * (1 + T.erf(x * math.sqrt(0.5)))
    pdf = T.exp(x * x * -0.5) * (1.0 / math.sqrt(2 * math.pi))
    return grad_output * (cdf + x * pdf)


@torch_op(aten.silu_backward, inputs=("grad_output", "self"), tags=(ELEMENTWISE, TRANSCENDENTAL))
def silu_backward(grad_output, self):
    """``g * s * (1 + x * (1 - s))`` with ``s = sigmoid(x)``."""
    s = T.sigmoid(self)
    return grad_output * s * (1 + self * (1 - s))


@torch_op(aten.tanh_backward, inputs=("grad_output", "output"), tags=(ELEMENTWISE,))
def tanh_backward(grad_output, output):
    """``g * (1 - y**2)`` from ``y = tanh(x)``."""
    return grad_output * (1 - output * output)


@torch_op(aten.sigmoid_backward, inputs=("grad_output", "output"), tags=(ELEMENTWISE,))
def sigmoid_backward(grad_output, output):
    """``g * y * (1 - y)`` from ``y = sigmoid(x)``."""
    return grad_output * output * (1 - output)


@torch_op(aten.threshold_backward, inputs=("grad_output", "self", "threshold"), tags=(ELEMENTWISE,))
def threshold_backward(grad_output, self, threshold):
    """``g`` where ``self > threshold``, else 0 (relu's backward, from its output)."""
    return T.where(self <= threshold, 0.0, grad_output)


# ---------------------------------------------------------------- norms

def _layer_norm_backward_impl(args, kwargs):
    g, x, shape, w, eps = args
    mask = kwargs.get("output_mask", (True, False, False))
    # the forward kernel is the fastest way to the statistics on CPU (torch.var_mean is ~10x slower)
    _, mean, rstd = aten.native_layer_norm(x, shape, None, None, eps)
    gi, gw, _ = aten.native_layer_norm_backward(g, x, shape, mean, rstd, w, None, [mask[0], mask[1], False])
    gb = _lead_sum_eager(g, len(shape)) if mask[2] else None  # (the kernel wants a bias tensor for it)
    return _masked((gi, gw, gb), mask)


@torch_op(name="layer_norm_backward", inputs=("grad_output", "input", "weight", "eps"), impl=_layer_norm_backward_impl,
          tags=(REDUCTION,))
def layer_norm_backward(grad_output, input, normalized_shape, weight=None, eps=1e-05, *,
                        output_mask=(True, False, False)):
    """Gradients of ``F.layer_norm`` for (input, weight, bias) where ``output_mask`` holds,
    from the input (mean and rstd are recomputed)."""
    dims, x = _trailing(input, normalized_shape), _wide(input)
    mean = T.mean(x, dims, keepdim=True)
    rstd = T.rsqrt(T.mean((x - mean) * (x - mean), dims, keepdim=True) + eps)
    return _layer_norm_grads(grad_output, input, mean, rstd, weight, dims, output_mask)


def _layer_norm_grads(grad_output, input, mean, rstd, weight, dims, output_mask, bias=None):
    x, g = _wide(input), _wide(grad_output)
    xhat = (x - mean) * rstd
    gx = g if weight is None else g * weight
    outs = []
    if output_mask[0]:
        gi = rstd * (gx - T.mean(gx, dims, keepdim=True) - xhat * T.mean(gx * xhat, dims, keepdim=True))
        outs.append(gi.to(input.dtype))
    if output_mask[1]:
        outs.append(_lead_sum(g * xhat, len(dims)).to(weight.dtype))
    if output_mask[2]:  # (the bias's dtype, as ATen's kernel: a float32 bias beside a bfloat16 input)
        outs.append(_lead_sum(g, len(dims)).to(grad_output.dtype if bias is None else bias.dtype))
    return tuple(outs)


def _layer_norm_forward_impl(args, kwargs):
    x, w, bias, eps = (list(args) + [None, None, 1e-05])[:4]
    return aten.native_layer_norm(x, kwargs["normalized_shape"], w, bias, eps)


def _stats_shape(input, normalized_shape):
    return (*input.shape[:input.ndim - len(normalized_shape)], *(1,) * len(normalized_shape))


def _layer_norm_forward_meta(input, weight=None, bias=None, eps=1e-05, *, normalized_shape):
    grad = any(t is not None and t.requires_grad for t in (input, weight, bias))
    stats = _stats_shape(input, normalized_shape)
    dt = torch.float32 if input.dtype in _LOW else input.dtype
    return (tensor_proxy(input.shape, input.dtype, input.device, grad), tensor_proxy(stats, dt, input.device),
            tensor_proxy(stats, dt, input.device))


@torch_op(name="layer_norm_forward", inputs=("input", "weight", "bias", "eps"), impl=_layer_norm_forward_impl,
          meta=_layer_norm_forward_meta, tags=(NORMALIZATION,))
def layer_norm_forward(input, weight=None, bias=None, eps=1e-05, *, normalized_shape):
    """``F.layer_norm`` that also returns the mean and reciprocal standard deviation it used
    (shaped to broadcast against the input): what training records, like eager's
    ``native_layer_norm``, so the backward need not recompute them."""
    out = F.layer_norm(input, normalized_shape, weight, bias, eps)
    dims, x = _trailing(input, normalized_shape), _wide(input)
    mean = T.mean(x, dims, keepdim=True)
    rstd = T.rsqrt(T.mean((x - mean) * (x - mean), dims, keepdim=True) + eps)
    return out, mean.detach(), rstd.detach()


def _layer_norm_backward_stats_impl(args, kwargs):
    g, x, mean, rstd, w, bias = (list(args) + [None, None])[:6]
    mask = kwargs.get("output_mask", (True, False, False))
    return _masked(aten.native_layer_norm_backward(g, x, kwargs["normalized_shape"], mean, rstd, w, bias, list(mask)),
                   mask)


@torch_op(name="layer_norm_backward_stats", inputs=("grad_output", "input", "mean", "rstd", "weight", "bias"),
          impl=_layer_norm_backward_stats_impl, tags=(REDUCTION,))
def layer_norm_backward_stats(grad_output, input, mean, rstd, weight=None, bias=None, *, normalized_shape,
                              output_mask=(True, False, False)):
    """Gradients of :func:`layer_norm_forward` for (input, weight, bias) where ``output_mask``
    holds, from its saved statistics (eager's kernel, or the same formula on them: recomputing
    them would need the forward's eps)."""
    return _layer_norm_grads(grad_output, input, mean, rstd, weight, _trailing(input, normalized_shape), output_mask,
                             bias)


def _batch_norm_backward_impl(args, kwargs):
    g, x, w, rm, rv, eps = (list(args) + [None] * 6)[:6]
    eps = 1e-05 if eps is None else eps
    training, mask = kwargs["training"], kwargs.get("output_mask", (True, False, False))
    mean = invstd = None
    if training:  # the batch statistics the forward used (F.batch_norm does not return them)
        dims = (0, *range(2, x.ndim))
        var, mean = torch.var_mean(_wide(x), dims, correction=0)
        invstd = torch.rsqrt(var + eps)
    gi, gw, gb = aten.native_batch_norm_backward(g, x, w, rm, rv, mean, invstd, training, eps,
                                                 [mask[0], mask[1] and w is not None, mask[2]])
    return _masked((gi, gw, gb), mask)


@torch_op(name="batch_norm_backward", inputs=("grad_output", "input", "weight", "running_mean", "running_var", "eps"),
          impl=_batch_norm_backward_impl, tags=(REDUCTION,))
def batch_norm_backward(grad_output, input, weight=None, running_mean=None, running_var=None, eps=1e-05, *,
                        training, output_mask=(True, False, False)):
    """Gradients of ``F.batch_norm`` for (input, weight, bias) where ``output_mask`` holds: with
    the batch statistics (recomputed from the input) in training, the running ones in eval."""
    dims = (0, *range(2, input.ndim))
    shape = [1, input.shape[1]] + [1] * (input.ndim - 2)
    x, g = _wide(input), _wide(grad_output)
    if training:
        mean = T.mean(x, dims, keepdim=True)
        invstd = T.rsqrt(T.mean((x - mean) * (x - mean), dims, keepdim=True) + eps)
    else:
        mean, invstd = running_mean.reshape(shape), T.rsqrt(running_var.reshape(shape) + eps)
    xhat = (x - mean) * invstd
    gx = g if weight is None else g * weight.reshape(shape)
    outs = []
    if output_mask[0]:
        gi = gx * invstd
        if training:
            gi = invstd * (gx - T.mean(gx, dims, keepdim=True) - xhat * T.mean(gx * xhat, dims, keepdim=True))
        outs.append(gi.to(input.dtype))
    if output_mask[1]:
        outs.append(T.sum(g * xhat, dims).to(weight.dtype))
    if output_mask[2]:
        outs.append(T.sum(g, dims).to(grad_output.dtype))
    return tuple(outs)


def _rms_eps(x, eps):
    return torch.finfo(x.dtype if x.dtype not in _LOW else torch.float32).eps if eps is None else eps


def _rms_norm_backward_impl(args, kwargs):
    # (aten._fused_rms_norm_backward has no CPU kernel: the formula, in eager ops)
    g, x, shape, w, eps = args
    mask = kwargs.get("output_mask", (True, False))
    dims, xw, gw_ = _trailing(x, shape), _wide(x), _wide(g)
    rstd = torch.rsqrt(xw.square().mean(dims, keepdim=True) + _rms_eps(x, eps))
    xhat = xw * rstd
    gx = gw_ if w is None else gw_ * w
    gi = (rstd * (gx - xhat * (gx * xhat).mean(dims, keepdim=True))).to(x.dtype) if mask[0] else None
    gw = _lead_sum_eager(gw_ * xhat, len(dims)).to(w.dtype) if mask[1] else None
    return _masked((gi, gw), mask)


@torch_op(name="rms_norm_backward", inputs=("grad_output", "input", "weight", "eps"), impl=_rms_norm_backward_impl,
          tags=(REDUCTION,))
def rms_norm_backward(grad_output, input, normalized_shape, weight=None, eps=None, *, output_mask=(True, False)):
    """Gradients of ``F.rms_norm`` for (input, weight) where ``output_mask`` holds (rstd recomputed)."""
    dims, x, g = _trailing(input, normalized_shape), _wide(input), _wide(grad_output)
    rstd = T.rsqrt(T.mean(x * x, dims, keepdim=True) + _rms_eps(input, eps))
    xhat = x * rstd
    gx = g if weight is None else g * weight
    outs = []
    if output_mask[0]:
        outs.append((rstd * (gx - xhat * T.mean(gx * xhat, dims, keepdim=True))).to(input.dtype))
    if output_mask[1]:
        outs.append(_lead_sum(g * xhat, len(dims)).to(weight.dtype))
    return tuple(outs)


# ---------------------------------------------------------------- embedding

@torch_op(name="embedding_dense_backward", inputs=("grad_output", "indices"),
          impl=lambda a, k: aten.embedding_dense_backward(*a), tags=(INDEXING,))
def embedding_dense_backward(grad_output, indices, num_weights, padding_idx=-1, scale_grad_by_freq=False):
    """The (num_weights, dim) weight gradient of ``F.embedding``: rows of ``grad_output``
    summed into the rows their indices name (none into ``padding_idx``; each divided by its
    index's count with ``scale_grad_by_freq``)."""
    d = grad_output.shape[-1]
    idx = indices.reshape(-1)
    g = grad_output.reshape(-1, d)
    if scale_grad_by_freq:
        counts = T.scatter_add(T.zeros(num_weights, dtype=g.dtype, device=g.device), 0, idx, T.ones_like(idx, dtype=g.dtype))
        g = g / T.index_select(counts, 0, idx).unsqueeze(1)
    if padding_idx >= 0:
        g = T.where((idx == padding_idx).unsqueeze(1), 0.0, g)
    rows = idx.unsqueeze(1).expand(idx.shape[0], d)
    return T.scatter_add(T.zeros(num_weights, d, dtype=g.dtype, device=g.device), 0, rows, g)


# ---------------------------------------------------------------- attention

def _sdpa_backward_impl(args, kwargs):
    g, q, k, v, mask, scale = args
    causal, gqa = kwargs.get("is_causal", False), kwargs.get("enable_gqa", False)
    if attention_kernels.kernel(q, k, v, mask, gqa) == "cpu":
        # eager runs this kernel forward on CPU; recomputing gives its logsumexp (and the same out)
        out, lse = attention_kernels.forward(q, k, v, mask, scale, causal)
        return attention_kernels.backward(g, q, k, v, out, lse, mask, scale, causal)
    leaves = [t.detach().requires_grad_(True) for t in (q, k, v)]
    with torch.enable_grad():
        out = _F.scaled_dot_product_attention(*leaves, attn_mask=mask, is_causal=causal, scale=scale,
                                              enable_gqa=gqa)
        return torch.autograd.grad(out, leaves, g)


def _sdpa_backward_meta(grad_output, query, key, value, *rest, **kwargs):
    """(query, key, value)-shaped gradients (both attention backward ops)."""
    return tuple(tensor_proxy(t.shape, t.dtype, t.device) for t in (query, key, value))


def _heads_summed(g, like):
    """A gradient of heads repeated for GQA summed back onto ``like``'s heads."""
    if same_shape(g.shape, like.shape):
        return g
    *batch, h, s, e = g.shape
    groups = h // like.shape[-3]
    return T.sum(g.reshape(*batch, like.shape[-3], groups, s, e), -3)


@torch_op(name="sdpa_backward", inputs=("grad_output", "query", "key", "value", "attn_mask", "scale"),
          impl=_sdpa_backward_impl, meta=_sdpa_backward_meta, tags=(MATMUL,))
def sdpa_backward(grad_output, query, key, value, attn_mask=None, scale=None, *, is_causal=False, enable_gqa=False):
    """(query, key, value) gradients of ``F.scaled_dot_product_attention`` without dropout; the
    attention weights are recomputed (the forward op keeps none of them)."""
    from .ltorch_nn import _repeat_heads

    s = 1.0 / math.sqrt(query.shape[-1]) if scale is None else scale
    k, v = key, value
    if enable_gqa:
        k, v = _repeat_heads(key, query.shape[-3] // key.shape[-3]), _repeat_heads(value, query.shape[-3] // value.shape[-3])
    scores = T.matmul(query, k.transpose(-2, -1)) * s
    explicit_mask = attn_mask is not None
    if is_causal:
        attn_mask = T.ones(query.shape[-2], key.shape[-2], dtype=torch.bool, device=query.device).tril()
    if attn_mask is not None:
        scores = T.where(attn_mask, scores, float("-inf")) if attn_mask.dtype == torch.bool else scores + attn_mask
    p = T.softmax(scores, -1)
    if explicit_mask:  # as the forward (eager's _safe_softmax): a row masked entirely attends to nothing
        p = T.where(T.all(scores == float("-inf"), -1, keepdim=True), 0.0, p)
    gv = T.matmul(p.transpose(-2, -1), grad_output)
    gs = softmax_backward(T.matmul(grad_output, v.transpose(-2, -1)), p, -1) * s
    gq = T.matmul(gs, k)
    gk = T.matmul(gs.transpose(-2, -1), query)
    return gq, _heads_summed(gk, key), _heads_summed(gv, value)


def _sdpa_forward_impl(args, kwargs):
    q, k, v, mask, scale = (list(args) + [None, None])[:5]
    return attention_kernels.forward(q, k, v, mask, scale, kwargs.get("is_causal", False))


def _sdpa_forward_meta(query, key, value, attn_mask=None, scale=None, *, is_causal=False):
    out = tensor_proxy((*query.shape[:-1], value.shape[-1]), query.dtype, query.device,
                       any(t.requires_grad for t in (query, key, value)))
    lse_dtype = torch.float64 if query.dtype == torch.float64 else torch.float32
    return out, tensor_proxy(query.shape[:-1], lse_dtype, query.device)  # statistics: never differentiated


@torch_op(name="sdpa_forward", inputs=("query", "key", "value", "attn_mask", "scale"), impl=_sdpa_forward_impl,
          meta=_sdpa_forward_meta, tags=(MATMUL,))
def sdpa_forward(query, key, value, attn_mask=None, scale=None, *, is_causal=False):
    """``F.scaled_dot_product_attention`` (no dropout, 4-d, same head count) that also returns the
    rows' logsumexp: what training records instead, so the backward need not recompute it
    (attention_kernels.py: which kernel, on the CPU or a GPU)."""
    out = F.scaled_dot_product_attention(query, key, value, attn_mask=attn_mask, is_causal=is_causal, scale=scale)
    s = 1.0 / math.sqrt(query.shape[-1]) if scale is None else scale
    scores = T.matmul(_wide(query), _wide(key).transpose(-2, -1)) * s
    if is_causal:
        attn_mask = T.ones(query.shape[-2], key.shape[-2], dtype=torch.bool, device=query.device).tril()
    if attn_mask is not None:
        scores = T.where(attn_mask, scores, float("-inf")) if attn_mask.dtype == torch.bool else scores + attn_mask
    return out, T.logsumexp(scores, -1).detach()


def _sdpa_backward_stats_impl(args, kwargs):
    g, q, k, v, out, lse, mask, scale = (list(args) + [None, None])[:8]
    return attention_kernels.backward(g, q, k, v, out, lse, mask, scale, kwargs.get("is_causal", False))


@torch_op(name="sdpa_backward_stats", impl=_sdpa_backward_stats_impl, meta=_sdpa_backward_meta,
          inputs=("grad_output", "query", "key", "value", "output", "logsumexp", "attn_mask", "scale"), tags=(MATMUL,))
def sdpa_backward_stats(grad_output, query, key, value, output, logsumexp, attn_mask=None, scale=None, *,
                        is_causal=False):
    """(query, key, value) gradients of :func:`sdpa_forward` from its saved output and logsumexp
    (the backward of the kernel that ran the forward; the decomposition recomputes the weights)."""
    return sdpa_backward(grad_output, query, key, value, attn_mask, scale, is_causal=is_causal)


_REDUCTIONS = {"none": 0, "mean": 1, "sum": 2}


def _nll_loss_backward_impl(args, kwargs):
    g, logp, target, weight, total_weight = (list(args) + [None, None])[:5]
    return aten.nll_loss_backward(g, logp, target, weight, _REDUCTIONS[kwargs.get("reduction", "mean")],
                                  kwargs.get("ignore_index", -100), total_weight)


def _nll_loss_backward_meta(grad_output, input, target, weight=None, total_weight=None, *, reduction="mean",
                            ignore_index=-100):
    return tensor_proxy(input.shape, input.dtype, input.device)


@torch_op(name="nll_loss_backward", inputs=("grad_output", "input", "target", "weight", "total_weight"),
          impl=_nll_loss_backward_impl, meta=_nll_loss_backward_meta, tags=(INDEXING,))
def nll_loss_backward(grad_output, input, target, weight=None, total_weight=None, *, reduction="mean",
                      ignore_index=-100):
    """The input gradient of ``F.nll_loss`` (class indices on dim 1, or 0 for one sample):
    ``-weight[target] * grad`` at each target, zero elsewhere (eager's kernel; ``total_weight``
    is the sum of the kept targets' weights, the mean's divisor)."""
    tw, safe, _ = target_weights(target, weight, ignore_index, input.dtype)
    per = -tw * (grad_output / total_weight if reduction == "mean" else grad_output)
    return to_classes(input, 0 if input.ndim == 1 else 1, safe, per)


def target_weights(target, weight, ignore_index, dtype):
    """(each target's class weight, 1 without weights, 0 where it is ``ignore_index``; the
    targets with the ignored ones made 0, safe to index with; the mask of kept targets)."""
    kept = target != ignore_index
    safe = T.where(kept, target, 0)
    tw = kept.to(dtype) if weight is None else \
        T.where(kept, T.index_select(weight, 0, safe.reshape(-1)).reshape(target.shape), 0.0)
    return tw, safe, kept


def to_classes(like, cdim, safe, values):
    """Zeros shaped like ``like`` with ``values`` added at each target's class along ``cdim``."""
    return T.scatter_add(T.zeros(like.shape, dtype=like.dtype, device=like.device), cdim, safe.unsqueeze(cdim),
                         values.unsqueeze(cdim).to(like.dtype))


# ---------------------------------------------------------------- convolution and indexing (no decomposition)

def _convolution_backward_impl(args, kwargs):
    g, x, w = args
    mask = kwargs.pop("output_mask")
    return _masked(aten.convolution_backward(g, x, w, output_mask=list(mask), **kwargs), mask)


def _convolution_backward_meta(grad_output, input, weight, *, bias_sizes, output_mask, **geometry):
    shapes = (input.shape, weight.shape, tuple(bias_sizes or ()))
    return _masked(tuple(tensor_proxy(s, grad_output.dtype, grad_output.device) for s in shapes), output_mask)


@torch_op(name="convolution_backward", inputs=("grad_output", "input", "weight"), impl=_convolution_backward_impl,
          meta=_convolution_backward_meta, tags=(MATMUL,))
def convolution_backward(grad_output, input, weight, *, bias_sizes, stride, padding, dilation, transposed,
                         output_padding, groups, output_mask):
    """Gradients of ``prims.convolution`` (batched) for (input, weight, bias) where
    ``output_mask`` holds; no decomposition yet."""


def _getitem_backward_impl(args, kwargs):
    g, index = args
    z = torch.zeros(kwargs["shape"], dtype=g.dtype, device=g.device)
    entries = index if type(index) is tuple else (index,)
    if not any(isinstance(e, (list, torch.Tensor)) and not (isinstance(e, torch.Tensor) and e.ndim == 0)
               for e in entries):
        z[index] = g  # basic indexing: each element read at most once
        return z
    z.requires_grad_(True)  # advanced indices may repeat positions: autograd's index_put accumulates
    with torch.enable_grad():
        return torch.autograd.grad(z[index], z, g)[0]


@torch_op(name="getitem_backward", inputs=("grad_output", "index"), impl=_getitem_backward_impl,
          meta=lambda grad_output, index, *, shape: tensor_proxy(shape, grad_output.dtype, grad_output.device))
def getitem_backward(grad_output, index, *, shape):
    """The gradient of ``x[index]`` for ``x`` of ``shape``: zeros with ``grad_output`` added
    where the index reads. Basic indexing by unit-step slices, ints, ``None`` and ``...``
    decomposes into ``grad_output`` reshaped and zero-padded back to ``shape`` (each element
    is read at most once: a pad, which fusing executors generate); other indices (tensors,
    lists, steps, a bound other than 0 or the end on a dim of symbolic size) are the op whole."""
    return basic_index_backward(grad_output, index, shape)


def basic_index_backward(grad_output, index, shape):
    """``getitem_backward``'s decomposition, or NotImplemented where there is none (see there).
    The VJP of ``getitem`` records it directly where it applies: its pad then sits beside the
    ops around it, where a fusing executor takes it with them."""
    entries = index if type(index) is tuple else (index,)
    if not all(e is None or e is Ellipsis or type(e) in (int, slice) for e in entries) or entries.count(Ellipsis) > 1:
        return NotImplemented
    consumed = sum(type(e) in (int, slice) for e in entries)
    if consumed > len(shape):
        return NotImplemented
    full = []
    for e in entries:
        full += [slice(None)] * (len(shape) - consumed) if e is Ellipsis else [e]
    if Ellipsis not in entries:
        full += [slice(None)] * (len(shape) - consumed)
    g, gd, xd, pads = grad_output, 0, 0, []
    for e in full:
        if e is None:  # a new dim of size 1 in the gradient: dropped
            g = T.squeeze(g, gd)
            continue
        n = shape[xd]
        if type(e) is int:
            if type(n) is not int or not -n <= e < n:
                return NotImplemented
            lo = e % n
            g, hi = T.unsqueeze(g, gd), n - lo - 1
        else:
            if e.step not in (None, 1):
                return NotImplemented
            if e.start in (None, 0) and e.stop is None:
                lo, hi = 0, 0
            elif type(n) is int:
                lo, stop, _ = e.indices(n)
                hi = n - max(stop, lo)
            elif e.stop is None:  # to the end: the last grad_output.shape[gd] positions
                lo, hi = n - g.shape[gd], 0
            elif e.start in (None, 0):  # from the start: the first ones
                lo, hi = 0, n - g.shape[gd]
            else:  # (a bound against a symbolic size would need its clamping guarded)
                return NotImplemented
        pads.append((lo, hi))
        gd, xd = gd + 1, xd + 1
    if all(type(v) is int and not v for lo_hi in pads for v in lo_hi):
        return T.clone(g)  # a new tensor, as eager's (never the cotangent or a view of it)
    # zeros either side, joined: torch-level ops with symbolic sizes, which a fusing executor
    # takes with the ops around it (F.pad's fake meta would specialise symbolic sizes, and
    # prims.pad is below what such executors take)
    def zeros(d, k):  # [] for none (a symbolic amount is a size that may be 0)
        if type(k) is int and not k:
            return []
        size = list(g.shape)
        size[d] = k
        return [T.zeros(size, dtype=g.dtype, device=g.device)]

    for d, (lo, hi) in enumerate(pads):
        before, after = zeros(d, lo), zeros(d, hi)
        if before or after:
            g = T.cat([*before, g, *after], d)
    return g
