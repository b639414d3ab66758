"""VJP rules of products, norms, attention, embedding, convolutions and losses (see
``vjp.py`` for the contract, ``vjp_ltorch.py`` for why torch-level rules)."""

from __future__ import annotations

import torch

from ..ops import attention_kernels, ltorch_backward as B
from ..ops.ltorch_loss import _mode
from ..ops.registry import F, T
from .vjp import forward_for_grad, sum_to, torch_vjp_rule, vjp
from .vjp_ltorch import args_of, is_tensor, value


# ---------------------------------------------------------------- products

def _matmul_grads(a, b_, g):
    """Gradients of ``a @ b_`` (torch.matmul semantics, every rank case)."""
    if a.ndim == 1 and b_.ndim == 1:
        return g * b_, g * a
    if a.ndim == 1:  # (k) @ (..., k, n) -> (..., n)
        ga = sum_to(T.matmul(g.unsqueeze(-2), b_.transpose(-2, -1)).squeeze(-2), a.shape)
        return ga, sum_to(a.unsqueeze(-1) * g.unsqueeze(-2), b_.shape)
    if b_.ndim == 1:  # (..., m, k) @ (k) -> (..., m)
        k = a.shape[-1]
        return g.unsqueeze(-1) * b_, T.matmul(a.reshape(-1, k).transpose(-2, -1), g.reshape(-1))
    if b_.ndim == 2 and a.ndim > 2:  # batched @ matrix: one (k, n) product over all rows
        k, n = b_.shape
        return T.matmul(g, b_.transpose(-2, -1)), T.matmul(a.reshape(-1, k).transpose(-2, -1), g.reshape(-1, n))
    return sum_to(T.matmul(g, b_.transpose(-2, -1)), a.shape), sum_to(T.matmul(a.transpose(-2, -1), g), b_.shape)


@vjp("ltorch.matmul", "ltorch.mm", "ltorch.bmm", "ltorch.mv", "ltorch.dot")
def _(b, g):
    return _matmul_grads(*b.args, g)


@vjp("ltorch.outer")
def _(b, g):
    x, y = b.args
    return T.mv(g, y), T.mv(g.transpose(-2, -1), x)


def _scaled_add(b, g, product_grads):
    inp, m1, m2, beta, alpha = args_of(b, None, None, None, 1, 1)
    beta, alpha = value(beta), value(alpha)
    gp = g if alpha == 1 else g * alpha
    g1, g2 = product_grads(m1, m2, gp)
    gi = None if beta == 0 else sum_to(g if beta == 1 else g * beta, inp.shape)
    return (gi, g1, g2, None, None)[:len(b.args)]


@vjp("ltorch.addmm", "ltorch.baddbmm", "ltorch.addmv")
def _(b, g):
    return _scaled_add(b, g, lambda m1, m2, gp: _matmul_grads(m1, m2, gp))


@vjp("ltorch.linear")
def _(b, g):
    x, w, bias = args_of(b, None, None, None)
    if w.ndim != 2:
        return torch_vjp_rule(b, g)
    n_out, n_in = w.shape
    g2 = g.reshape(-1, n_out)
    gw = T.matmul(g2.transpose(-2, -1), x.reshape(-1, n_in)) if w.requires_grad else None
    gb = T.sum(g2, 0) if bias is not None and bias.requires_grad else None
    return (T.matmul(g, w) if x.requires_grad else None, gw, gb)[:len(b.args)]


# ---------------------------------------------------------------- norms

def _norm_grads(b, g, op, n_affine):
    """(input, weight[, bias], eps) gradients through one fused backward op."""
    x, *affine, eps = args_of(b, *([None] * (n_affine + 2)))
    mask = (x.requires_grad, *(is_tensor(a) and a.requires_grad for a in affine))
    kw = {} if eps is None else {"eps": eps}
    outs = iter(op(g, x, b.kwargs["normalized_shape"], affine[0], output_mask=mask, **kw))
    return (*(next(outs) if m else None for m in mask), None)[:len(b.args)]


@vjp("ltorch.layer_norm")
def _(b, g):
    return _norm_grads(b, g, B.layer_norm_backward, 2)


@forward_for_grad("ltorch.layer_norm")
def _(b):
    """Training records layer_norm with its mean and rstd, as eager does, for the backward kernel."""
    x, w, bias, eps = args_of(b, None, None, None, 1e-05)
    if is_tensor(eps) or x.device.type != "cpu":
        return None
    return B.layer_norm_forward(x, w, bias, eps, normalized_shape=tuple(b.kwargs["normalized_shape"]))


@vjp("ltorch.layer_norm_forward")
def _(b, g, _mean_cotangent, _rstd_cotangent):
    x, w, bias, eps = args_of(b, None, None, None, 1e-05)
    _, mean, rstd = b.output
    mask = (x.requires_grad, is_tensor(w) and w.requires_grad, is_tensor(bias) and bias.requires_grad)
    outs = iter(B.layer_norm_backward_stats(g, x, mean, rstd, w, bias, normalized_shape=b.kwargs["normalized_shape"],
                                            output_mask=mask))
    return (*(next(outs) if m else None for m in mask), None)[:len(b.args)]


@vjp("ltorch.rms_norm")
def _(b, g):
    return _norm_grads(b, g, B.rms_norm_backward, 1)


@vjp("ltorch.batch_norm")
def _(b, g):
    # running statistics are state, not inputs of the gradient: the forward updated them
    x, rm, rv, w, bias, momentum, eps = args_of(b, None, None, None, None, None, 0.1, 1e-05)
    mask = (x.requires_grad, is_tensor(w) and w.requires_grad, is_tensor(bias) and bias.requires_grad)
    grads = iter(B.batch_norm_backward(g, x, w, rm, rv, eps, training=b.kwargs.get("training", False),
                                       output_mask=mask))
    gi, gw, gb = (next(grads) if m else None for m in mask)
    return (gi, None, None, gw, gb, None, None)[:len(b.args)]


@vjp("ltorch.native_batch_norm", "ltorch.native_batch_norm_legit", "ltorch.batch_norm_with_update")
def _(b, g, *_statistics):
    # ATen's batch norms: F.batch_norm's gradient (their batch statistics are outputs without one)
    x, w, bias, rm, rv, _momentum, eps = b.args
    mask = (x.requires_grad, is_tensor(w) and w.requires_grad, is_tensor(bias) and bias.requires_grad)
    grads = iter(B.batch_norm_backward(g, x, w, rm, rv, eps, training=b.kwargs.get("training", True),
                                       output_mask=mask))
    return (*(next(grads) if m else None for m in mask), None, None, None, None)


# ---------------------------------------------------------------- attention and embedding

def _no_dropout(b):
    return _is_zero(args_of(b, None, None, None, None, 0.0)[4])


def _fused_backward(b):
    """Calls the attention rule covers: no dropout, and no mask that needs a gradient."""
    mask = args_of(b, None, None, None, None, 0.0)[3]
    return _no_dropout(b) and not (is_tensor(mask) and mask.requires_grad)


# Others are differentiated through the decomposition: with dropout the fused op does not return
# its mask (the decomposition draws it in the forward); a learned float mask (T5's position
# bias) gets its gradient from the scores' (the fused backward kernels give none), and every op
# of it can join the regions around it (it was PyTorch's autograd on the op, opaque).
@vjp("ltorch.scaled_dot_product_attention", applies=_fused_backward)
def _(b, g):
    q, k, v, mask, p, scale = args_of(b, None, None, None, None, 0.0, None)
    kw = {k_: v_ for k_, v_ in b.kwargs.items() if k_ in ("is_causal", "enable_gqa")}
    gq, gk, gv = B.sdpa_backward(g, q, k, v, mask, scale, **kw)
    return (gq, gk, gv, None, None, None)[:len(b.args)]


@forward_for_grad("ltorch.scaled_dot_product_attention")
def _(b):
    """Training records the attention with its logsumexp (when a kernel that returns it takes
    the call: ops/attention_kernels.py), so the backward kernel gets it instead of running the
    forward again."""
    q, k, v, mask, p, scale = args_of(b, None, None, None, None, 0.0, None)
    boolean = is_tensor(mask) and mask.dtype == torch.bool
    if not _no_dropout(b) or b.kwargs.get("enable_gqa") or is_tensor(scale) or (is_tensor(mask) and mask.requires_grad) \
            or (is_tensor(mask) and q.device.type != "cpu") \
            or attention_kernels.kernel(q, k, v, None if boolean else mask, False) is None:
        return None
    if boolean:
        # what eager's attention does with a boolean mask before choosing a kernel
        # (convert_boolean_attn_mask): 0 where attended, -inf elsewhere, in the query's dtype
        mask = T.where(mask, 0.0, float("-inf")).to(q.dtype)
    return B.sdpa_forward(q, k, v, mask, scale, is_causal=b.kwargs.get("is_causal", False))


@vjp("ltorch.sdpa_forward")
def _(b, g, _lse_cotangent):
    q, k, v, mask, scale = args_of(b, None, None, None, None, None)
    out, lse = b.output
    gq, gk, gv = B.sdpa_backward_stats(g, q, k, v, out, lse, mask, scale, is_causal=b.kwargs.get("is_causal", False))
    return (gq, gk, gv, None, None)[:len(b.args)]


def _is_zero(p):
    p = value(p)
    return not is_tensor(p) and p == 0


@vjp("ltorch.embedding")
def _(b, g):
    idx, w = b.args
    if b.kwargs.get("sparse"):
        return torch_vjp_rule(b, g)  # eager's gradient is a sparse tensor
    pad = b.kwargs.get("padding_idx")
    pad = -1 if pad is None else pad % w.shape[0]
    return None, B.embedding_dense_backward(g, idx, w.shape[0], pad, b.kwargs.get("scale_grad_by_freq", False))


# ---------------------------------------------------------------- convolutions

def _conv_rule(n, transposed):
    def rule(b, g):
        x, w, bias = args_of(b, None, None, None)
        kw = dict(b.kwargs)
        pad = kw.get("padding", 0)
        if isinstance(pad, str):
            if pad != "valid":
                return torch_vjp_rule(b, g)  # "same" may pad unevenly; eager's own backward handles it
            pad = 0
        tup = (lambda v: (v,) * n if isinstance(v, int) else tuple(v) * (n if len(v) == 1 else 1))
        batched = x.ndim == n + 2
        xb, gb_ = (x, g) if batched else (x.unsqueeze(0), g.unsqueeze(0))
        mask = (x.requires_grad, w.requires_grad, is_tensor(bias) and bias.requires_grad)
        outs = iter(B.convolution_backward(
            gb_, xb, w, bias_sizes=None if bias is None else tuple(bias.shape), stride=tup(kw.get("stride", 1)),
            padding=tup(pad), dilation=tup(kw.get("dilation", 1)), transposed=transposed,
            output_padding=tup(kw.get("output_padding", 0)), groups=kw.get("groups", 1), output_mask=mask))
        gx, gw, gbias = (next(outs) if m else None for m in mask)
        if gx is not None and not batched:
            gx = gx.squeeze(0)
        return (gx, gw, gbias)[:len(b.args)]
    return rule


for _n in (1, 2, 3):
    vjp(f"ltorch.conv{_n}d")(_conv_rule(_n, False))
    vjp(f"ltorch.conv_transpose{_n}d")(_conv_rule(_n, True))


# ---------------------------------------------------------------- losses

def _reduce_scale(g, mode, count):
    """The cotangent each element of an unreduced loss gets."""
    return g / count if mode == "mean" else g


def _class_index_grad(x, t, w, g, cdim, mode, ignore_index, ls):
    """d loss / d logp for class-index targets (nll term, plus label smoothing's uniform term)."""
    n = x.shape[cdim]
    tw, safe, kept = B.target_weights(t, w, ignore_index, x.dtype)
    s = g / T.sum(tw) if mode == "mean" else g  # 0-d for "sum"/"mean", per sample for "none"
    grad = B.to_classes(x, cdim, safe, tw * s * -(1 - ls))
    if ls:
        uniform = (kept.to(x.dtype) * s * -(ls / n)).unsqueeze(cdim)
        wv = None if w is None else w.reshape(n, *([1] * (x.ndim - cdim - 1)))
        grad = grad + (uniform if wv is None else uniform * wv)
    return grad


def _loss_mode(b):
    kw = b.kwargs
    return _mode(kw.get("size_average"), kw.get("reduce"), kw.get("reduction", "mean"))


@forward_for_grad("ltorch.cross_entropy")
def _(b):
    """Training records cross_entropy as log_softmax then nll_loss, as eager runs it: the
    backward gets the log-probabilities saved instead of recomputing them next to the
    logits' gradient (one large tensor fewer at the backward's peak)."""
    x, t, w, ls = args_of(b, None, None, None, 0.0)
    if t.is_floating_point() or is_tensor(ls) or value(ls) != 0 or set(b.kwargs) - {"ignore_index", "reduction"}:
        return None
    return (F.nll_loss(F.log_softmax(x, 0 if x.ndim == 1 else 1), t, w, **b.kwargs),)


@vjp("ltorch.cross_entropy")
def _(b, g):
    x, t, w, ls = args_of(b, None, None, None, 0.0)
    if (is_tensor(w) and w.requires_grad) or is_tensor(ls) or value(ls) is None:
        return torch_vjp_rule(b, g)
    ls, mode = value(ls), _loss_mode(b)
    cdim = 0 if x.ndim == 1 else 1
    n = x.shape[cdim]
    logp = T.log_softmax(x, cdim)  # recomputed: the fused forward keeps only the loss
    gt = None
    if t.is_floating_point():  # class probabilities
        tt = t if ls == 0 else t * (1 - ls) + ls / n
        wv = None if w is None else w.reshape(n, *([1] * (x.ndim - cdim - 1)))
        s = _reduce_scale(g, mode, x.numel() // n)
        s = s.unsqueeze(cdim) if mode == "none" else s
        glogp = -(tt if wv is None else tt * wv) * s
        if t.requires_grad:
            gt = -(logp if wv is None else logp * wv) * s * (1 - ls)
    else:
        glogp = _class_index_grad(x, t, w, g, cdim, mode, b.kwargs.get("ignore_index", -100), ls)
    return (B.log_softmax_backward(glogp, logp, cdim), gt, None, None)[:len(b.args)]


@vjp("ltorch.nll_loss")
def _(b, g):
    x, t, w = args_of(b, None, None, None)
    if is_tensor(w) and w.requires_grad:
        return torch_vjp_rule(b, g)
    cdim, mode, ignore = 0 if x.ndim == 1 else 1, _loss_mode(b), b.kwargs.get("ignore_index", -100)
    if x.ndim > 2 or mode == "none" and x.ndim == 1:
        return (_class_index_grad(x, t, w, g, cdim, mode, ignore, 0.0), None, None)[:len(b.args)]
    total = T.sum(B.target_weights(t, w, ignore, x.dtype)[0])  # the mean's divisor: weights of the kept targets
    return (B.nll_loss_backward(g, x, t, w, total, reduction=mode, ignore_index=ignore), None, None)[:len(b.args)]


@vjp("ltorch.mse_loss")
def _(b, g):
    x, t, w = args_of(b, None, None, None)
    if w is not None:
        return torch_vjp_rule(b, g)
    mode = _loss_mode(b)
    d = x - t
    gd = d * _reduce_scale(g * 2, mode, d.numel())
    return (sum_to(gd, x.shape) if x.requires_grad else None,
            sum_to(-gd, t.shape) if t.requires_grad else None, None)[:len(b.args)]


del _n
