"""Torch-level neural-network ops: attention, dropout, embedding, padding, resampling,
pooling, pixel shuffles and distances.

Decompositions are written with torch-style calls (``T.``/``F.`` and proxy operators) and
follow eager's own formulas, so results match eager to rounding. Dropout draws its noise with
``prims.bernoulli_noise`` in exactly the shape and layout eager draws it, so under the same
``torch.manual_seed`` traced and eager dropout drop the same elements. Pooling, ``pad``,
``interpolate``, ``one_hot`` and ``unfold``/``fold`` have no decomposition: executors run
them whole. Numbers that enter the arithmetic (probabilities, ``eps``, ``scale``, the pad
``value``) are inputs; sizes, indices and flags are static.

Traits: dropout is ``"elementwise"`` and ``"random"`` (each element is kept or dropped,
whole channels for the feature forms); attention is ``"matmul"``; pooling, ``fold`` and the
distances are ``"reduction"`` (windowed or along a dim); ``pad``, ``unfold`` and the pixel
shuffles are ``"shape"`` (copies to positions fixed by the arguments); ``embedding`` is
``"indexing"`` (rows gathered at positions given by tensor values). ``one_hot`` (its size, by
default, comes from the largest value) and ``interpolate`` (a gather or weighted sums of
neighbours, by mode) have no trait: consumers treat them as library kernels.
"""

from __future__ import annotations

import inspect
import math

import torch
import torch.nn.functional as _F

from ..ir.traits import ELEMENTWISE, INDEXING, MATMUL, RANDOM, REDUCTION, SHAPE
from . import prims
from .ltorch_elementwise import inplace_variant, register_front
from .registry import TORCH_CALLS, F, T, fake_meta, torch_op


def torch_alias(*torch_fns, of):
    """Register torch callables whose signature differs from the one ``of`` (a torch-level
    entry) mirrors, e.g. ``F.softmax`` (``_stacklevel``) for ``torch.softmax``: the decorated
    function takes their arguments and returns the call of ``of``; it records no symbol of
    its own."""
    def define(fn):
        fn.symbol = of.symbol
        for torch_fn in torch_fns:
            TORCH_CALLS[torch_fn] = fn
        return fn
    return define


# ---------------------------------------------------------------- dropout

_SELU_ALPHA = 1.7580993408473766  # eager alpha_dropout's constant: minus SELU's saturation value (-scale * alpha)


def _feature_shape(op, input, batched=True):
    """Shape of channel-wise noise: (N, C, 1, ...) for a batched input, (C, 1, ...) otherwise."""
    if input.ndim < (2 if batched else 1):
        raise RuntimeError(f"{op}: feature dropout requires at least 2 dimensions in the input, got shape "
                           f"{list(input.shape)}.")
    keep = 2 if batched else 1
    return input.shape[:keep] + (1,) * (input.ndim - keep)


def _dropout(op, input, p, training, inplace, noise_shape=None, alpha=False):
    """Eager's dropout: ``input * bernoulli(1 - p) / (1 - p)``; the alpha variant keeps the
    mean and variance of SELU activations instead. A no-op (eval mode, ``p == 0``) returns the
    input itself, as eager does."""
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if not training or p == 0 or input.numel() == 0:
        return input
    if inplace:
        raise NotImplementedError(f"{op}(..., inplace=True) cannot be traced in training mode: it overwrites its "
                                  f"input. Pass inplace=False and use the result (x = {op}(x, ...)).")
    if p == 1:
        return input * 0.0
    noise = prims.bernoulli_noise(input, 1 - p, shape=noise_shape)
    if not alpha:
        return input * (noise / (1 - p))
    a = 1.0 / math.sqrt((_SELU_ALPHA * _SELU_ALPHA * p + 1) * (1 - p))
    b = (noise - 1) * (_SELU_ALPHA * a) + _SELU_ALPHA * a * p
    return input * (noise * a) + b


@torch_op(_F.dropout, inputs=("input", "p"), tags=(ELEMENTWISE, RANDOM, "may-return-input"))
def dropout(input, p=0.5, training=True, inplace=False):
    """Zero each element with probability ``p`` and scale the rest by ``1 / (1 - p)``."""
    return _dropout("F.dropout", input, p, training, inplace)


@torch_alias(torch.dropout, of=dropout)
def _torch_dropout(input, p, train):
    return dropout(input, p, train)


@torch_op(_F.dropout1d, inputs=("input", "p"), tags=(ELEMENTWISE, RANDOM, "may-return-input"))
def dropout1d(input, p=0.5, training=True, inplace=False):
    """Zero whole channels of a (N, C, L) or (C, L) input."""
    if input.ndim not in (2, 3):
        raise RuntimeError(f"dropout1d: Expected 2D or 3D input, but received a {input.ndim}D input.")
    return _unbatched_feature_dropout("F.dropout1d", input, p, training, inplace, input.ndim == 3)


def _unbatched_feature_dropout(op, input, p, training, inplace, batched):
    """Eager's dropout1d/3d: an input without batch dimension is unsqueezed, dropped out and
    squeezed back, so even a no-op returns a view of it (in place: the input itself)."""
    if batched or inplace:
        return _dropout(op, input, p, training, inplace, _feature_shape(op, input, batched))
    x = input.unsqueeze(0)
    return _dropout(op, x, p, training, inplace, _feature_shape(op, x)).squeeze(0)


@torch_op(_F.dropout2d, inputs=("input", "p"), tags=(ELEMENTWISE, RANDOM, "may-return-input"))
def dropout2d(input, p=0.5, training=True, inplace=False):
    """Zero whole channels of a (N, C, H, W) input (a 3-D input is taken as (N, C, L), like eager)."""
    return _dropout("F.dropout2d", input, p, training, inplace, _feature_shape("dropout2d", input))


@torch_op(_F.dropout3d, inputs=("input", "p"), tags=(ELEMENTWISE, RANDOM, "may-return-input"))
def dropout3d(input, p=0.5, training=True, inplace=False):
    """Zero whole channels of a (N, C, D, H, W) or (C, D, H, W) input."""
    return _unbatched_feature_dropout("F.dropout3d", input, p, training, inplace, input.ndim == 5)


@torch_op(_F.alpha_dropout, inputs=("input", "p"), tags=(ELEMENTWISE, RANDOM, "may-return-input"))
def alpha_dropout(input, p=0.5, training=False, inplace=False):
    """Dropout for SELU networks: dropped elements take SELU's saturation value, then an affine
    map restores the mean and variance."""
    return _dropout("F.alpha_dropout", input, p, training, inplace, alpha=True)


@torch_op(_F.feature_alpha_dropout, inputs=("input", "p"), tags=(ELEMENTWISE, RANDOM, "may-return-input"))
def feature_alpha_dropout(input, p=0.5, training=False, inplace=False):
    """Channel-wise alpha dropout."""
    return _dropout("F.feature_alpha_dropout", input, p, training, inplace,
                    _feature_shape("feature_alpha_dropout", input), alpha=True)


def _inplace_front(entry, inplace, f_fn):
    """``F.<dropout>(..., inplace=True)`` in training: the in-place op (run whole, in place, in
    program order; the autograd split makes it the functional op, like any other write);
    otherwise the functional op, which returns the input itself when nothing is dropped."""
    sig = inspect.signature(f_fn)

    def front(*args, **kwargs):
        bound = sig.bind(*args, **kwargs)
        bound.apply_defaults()
        a = bound.arguments
        writes = a.pop("inplace") and a["training"] and a["p"] != 0
        return (inplace if writes else entry)(**a)
    front.__name__, front.symbol = entry.symbol.name, entry.symbol  # (the op F.<dropout> stands for, as an alias's)
    return front


def _inplace_impl(f_fn):
    sig = inspect.signature(f_fn)

    def run(args, kwargs):  # (the executor passes torch's positional form, ``inplace`` included)
        bound = sig.bind(*args, **kwargs)
        bound.arguments["inplace"] = True
        return f_fn(*bound.args, **bound.kwargs)
    return run


_INPLACE_DROPOUTS = {}  # functional entry -> its in-place op's entry
for _entry, _f in ((dropout, _F.dropout), (dropout1d, _F.dropout1d), (dropout2d, _F.dropout2d),
                   (dropout3d, _F.dropout3d), (alpha_dropout, _F.alpha_dropout),
                   (feature_alpha_dropout, _F.feature_alpha_dropout)):
    _INPLACE_DROPOUTS[_entry] = inplace_variant(
        _entry.symbol.name + "_", _f, ("input", "p"), (), impl=_inplace_impl(_f), callables=[],
        traits=(ELEMENTWISE, RANDOM))
    register_front(_inplace_front(_entry, _INPLACE_DROPOUTS[_entry], _f), [_f], callables=[])
del _entry, _f


# ---------------------------------------------------------------- attention

def _repeat_heads(x, groups):
    """``x.repeat_interleave(groups, dim=-3)`` as unsqueeze/expand/reshape."""
    if groups == 1:
        return x
    *batch, heads, s, e = x.shape
    return x.unsqueeze(-3).expand(*batch, heads, groups, s, e).reshape(*batch, heads * groups, s, e)


@torch_op(_F.scaled_dot_product_attention, inputs=("query", "key", "value", "attn_mask", "dropout_p", "scale"),
          tags=(MATMUL, RANDOM))
def scaled_dot_product_attention(query, key, value, attn_mask=None, dropout_p=0.0, is_causal=False, scale=None,
                                 enable_gqa=False):
    """``softmax(q @ k.T * scale + mask) @ v`` in eager's math form: ``q`` and ``k`` each scaled
    by ``sqrt(scale)``, boolean masks keep ``True`` positions, rows masked entirely give zeros,
    dropout (``dropout_p > 0``) applied to the attention weights like ``F.dropout``."""
    if query.ndim < 2 or key.ndim < 2 or value.ndim < 2:
        raise RuntimeError("scaled_dot_product_attention: query, key and value need at least 2 dimensions, got "
                           f"shapes {list(query.shape)}, {list(key.shape)}, {list(value.shape)}.")
    s = 1.0 / math.sqrt(query.shape[-1]) if scale is None else scale
    root = math.sqrt(abs(s))
    if enable_gqa:
        hq, hk, hv = query.shape[-3], key.shape[-3], value.shape[-3]
        if hq % hk or hq % hv:
            raise RuntimeError(f"scaled_dot_product_attention: with enable_gqa the number of heads in key ({hk}) "
                               f"and value ({hv}) must divide the number of heads in query ({hq}).")
        key, value = _repeat_heads(key, hq // hk), _repeat_heads(value, hq // hv)
    scores = T.matmul(query * (-root if s < 0 else root), key.transpose(-2, -1) * root)
    explicit_mask = attn_mask is not None
    if is_causal:
        if explicit_mask:
            raise RuntimeError("scaled_dot_product_attention: an explicit attn_mask must not be given with "
                               "is_causal=True; pass one or the other.")
        attn_mask = T.ones(query.shape[-2], key.shape[-2], dtype=torch.bool, device=query.device).tril()
    if attn_mask is not None:
        if attn_mask.dtype == torch.bool:
            scores = T.where(attn_mask, scores, float("-inf"))
        else:
            scores = scores + attn_mask
    weights = T.softmax(scores, -1)
    if explicit_mask:  # eager's _safe_softmax: a row with every position masked attends to nothing
        weights = T.where(T.all(scores == float("-inf"), -1, keepdim=True), 0.0, weights)
    if dropout_p > 0:
        weights = F.dropout(weights, dropout_p)
    return T.matmul(weights, value)


# ---------------------------------------------------------------- embeddings

@torch_op(_F.embedding, inputs=("input", "weight"), tags=(INDEXING,))
def embedding(input, weight, padding_idx=None, max_norm=None, norm_type=2.0, scale_grad_by_freq=False,
              sparse=False):
    """Rows of ``weight`` at the indices in ``input`` (``padding_idx``, ``scale_grad_by_freq``
    and ``sparse`` only change the gradient)."""
    if max_norm is not None:
        raise NotImplementedError("F.embedding(max_norm=...) cannot be traced: it renormalizes rows of the weight "
                                  "in place. Renormalize the weight outside the jitted function, or pass "
                                  "max_norm=None.")
    if weight.ndim != 2:
        raise RuntimeError(f"F.embedding: weight must be 2-D (num_embeddings, embedding_dim), got shape "
                           f"{list(weight.shape)}.")
    if padding_idx is not None and not -weight.shape[0] <= padding_idx < weight.shape[0]:
        raise AssertionError("Padding_idx must be within num_embeddings")
    if input.dtype not in (torch.int32, torch.int64):
        raise RuntimeError(f"F.embedding: indices must be int64 or int32, got {input.dtype}.")
    rows = T.index_select(weight, 0, input.reshape(-1))
    return rows.reshape(*input.shape, weight.shape[1])


_one_hot_fake = fake_meta(lambda pos, kw: _F.one_hot(*pos, **kw))


def _one_hot_meta(tensor, *, num_classes=-1):
    if num_classes < 0:
        raise ValueError("F.one_hot: num_classes=-1 takes the class count from the largest value in the tensor, "
                         "which is not known while tracing. Pass num_classes explicitly.")
    return _one_hot_fake(tensor, num_classes=num_classes)


@torch_op(_F.one_hot, inputs=("tensor",), meta=_one_hot_meta)
def one_hot(tensor, num_classes=-1):
    """int64 one-hot encoding along a new last dimension of size ``num_classes``."""


# ---------------------------------------------------------------- padding, resampling, pooling

@torch_op(_F.pad, inputs=("input", "value"), tags=(SHAPE,))
def pad(input, pad, mode="constant", value=None):
    """Pad the trailing dimensions (``pad`` lists (before, after) pairs from the last dimension);
    modes ``constant``, ``reflect``, ``replicate``, ``circular``."""


@torch_op(_F.interpolate)
def interpolate(input, size=None, scale_factor=None, mode="nearest", align_corners=None,
                recompute_scale_factor=None, antialias=False):
    """Resample the spatial dimensions (nearest, linear, bilinear, bicubic, trilinear, area)."""


@torch_op(_F.max_pool1d, tags=(REDUCTION,))
def max_pool1d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    """1-D max pooling (with ``return_indices=True``: also the argmax indices)."""


@torch_op(_F.max_pool2d, tags=(REDUCTION,))
def max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    """2-D max pooling."""


@torch_op(_F.max_pool3d, tags=(REDUCTION,))
def max_pool3d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    """3-D max pooling."""


@torch_op(_F.avg_pool1d, tags=(REDUCTION,))
def avg_pool1d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True):
    """1-D average pooling."""


@torch_op(_F.avg_pool2d, tags=(REDUCTION,))
def avg_pool2d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
               divisor_override=None):
    """2-D average pooling."""


@torch_op(_F.avg_pool3d, tags=(REDUCTION,))
def avg_pool3d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
               divisor_override=None):
    """3-D average pooling."""


@torch_op(_F.adaptive_avg_pool1d, tags=(REDUCTION,))
def adaptive_avg_pool1d(input, output_size):
    """Average pooling to a given output length."""


@torch_op(_F.adaptive_avg_pool2d, tags=(REDUCTION,))
def adaptive_avg_pool2d(input, output_size):
    """Average pooling to a given output size (None keeps that dimension)."""


@torch_op(_F.adaptive_avg_pool3d, tags=(REDUCTION,))
def adaptive_avg_pool3d(input, output_size):
    """Average pooling to a given output size."""


@torch_op(_F.adaptive_max_pool1d, tags=(REDUCTION,))
def adaptive_max_pool1d(input, output_size, return_indices=False):
    """Max pooling to a given output length."""


@torch_op(_F.adaptive_max_pool2d, tags=(REDUCTION,))
def adaptive_max_pool2d(input, output_size, return_indices=False):
    """Max pooling to a given output size."""


@torch_op(_F.unfold, tags=(SHAPE,))
def unfold(input, kernel_size, dilation=1, padding=0, stride=1):
    """Sliding local blocks of a batched image as columns (im2col)."""


@torch_op(_F.fold, tags=(REDUCTION,))
def fold(input, output_size, kernel_size, dilation=1, padding=0, stride=1):
    """Sum columns of sliding blocks back into an image (col2im), the adjoint of ``unfold``."""


@torch_op(_F.pixel_shuffle, tags=(SHAPE,))
def pixel_shuffle(input, upscale_factor):
    """(*, C * r * r, H, W) -> (*, C, H * r, W * r)."""
    r = upscale_factor
    if input.ndim < 3 or input.shape[-3] % (r * r):
        raise RuntimeError(f"pixel_shuffle: expected an input of shape (*, C * {r * r}, H, W), got "
                           f"{list(input.shape)}.")
    *batch, c, h, w = input.shape
    nb = len(batch)
    x = input.reshape(*batch, c // (r * r), r, r, h, w).permute(*range(nb), nb, nb + 3, nb + 1, nb + 4, nb + 2)
    return x.reshape(*batch, c // (r * r), h * r, w * r)


@torch_op(_F.pixel_unshuffle, tags=(SHAPE,))
def pixel_unshuffle(input, downscale_factor):
    """(*, C, H * r, W * r) -> (*, C * r * r, H, W), the inverse of ``pixel_shuffle``."""
    r = downscale_factor
    if input.ndim < 3 or input.shape[-2] % r or input.shape[-1] % r:
        raise RuntimeError(f"pixel_unshuffle: expected an input of shape (*, C, H * {r}, W * {r}), got "
                           f"{list(input.shape)}.")
    *batch, c, h, w = input.shape
    nb = len(batch)
    x = input.reshape(*batch, c, h // r, r, w // r, r).permute(*range(nb), nb, nb + 2, nb + 4, nb + 1, nb + 3)
    return x.reshape(*batch, c * r * r, h // r, w // r)


@torch_op(torch.channel_shuffle, torch.native_channel_shuffle, tags=(SHAPE,))
def channel_shuffle(input, groups):
    """(N, C, *) with its channels regrouped: channel ``g * (C / groups) + k`` moves to ``k * groups + g``."""
    if input.ndim < 3:
        raise RuntimeError(f"channel_shuffle expects input to have at least 3 dimensions, but got input with "
                           f"sizes {list(input.shape)}")
    if groups <= 0:
        raise RuntimeError(f"Number of groups to divide channels in must be positive. Value of groups:{groups}")
    n, c, *rest = input.shape
    if c % groups:
        raise RuntimeError(f"Number of channels must be divisible by groups. Got {c} channels and {groups} groups.")
    return input.reshape(n, groups, c // groups, *rest).transpose(1, 2).reshape(input.shape)


# ---------------------------------------------------------------- distances

def vector_norm(x, p, dim, keepdim=False):
    """The ``p``-norm of ``x`` over ``dim`` (``linalg.vector_norm``), accumulated in float32 for
    half-precision inputs like eager's."""
    low = x.dtype in (torch.float16, torch.bfloat16)
    y = x.to(torch.float32) if low else x
    if p == 2:
        out = T.sqrt(T.sum(y * y, dim, keepdim=keepdim))
    elif p == math.inf:
        out = T.amax(T.abs(y), dim, keepdim=keepdim)
    elif p == -math.inf:
        out = T.amin(T.abs(y), dim, keepdim=keepdim)
    elif p == 0:  # the count of non-zeros; `y * 0` keeps eager's (zero) gradient connection to y
        out = T.sum(T.where(y == 0, y * 0, 1.0), dim, keepdim=keepdim)
    elif p == 1:
        out = T.sum(T.abs(y), dim, keepdim=keepdim)
    else:
        out = T.sum(T.abs(y) ** p, dim, keepdim=keepdim) ** (1.0 / p)
    return out.to(x.dtype) if low else out


@torch_op(_F.cosine_similarity, inputs=("x1", "x2", "eps"), tags=(REDUCTION,))
def cosine_similarity(x1, x2, dim=1, eps=1e-8):
    """``sum(x1 / max(|x1|, eps) * x2 / max(|x2|, eps))`` over ``dim``, after broadcasting (eager's
    normalize-first form)."""
    if not (x1.is_floating_point() or x2.is_floating_point()):
        raise RuntimeError("cosine_similarity: expected floating-point inputs (the common dtype of "
                           f"{x1.dtype} and {x2.dtype} is not).")
    shape = tuple(torch.broadcast_shapes(x1.shape, x2.shape))
    x1, x2 = x1.expand(shape), x2.expand(shape)
    n1 = T.clamp(vector_norm(x1, 2, dim, keepdim=True), min=eps)
    n2 = T.clamp(vector_norm(x2, 2, dim, keepdim=True), min=eps)
    return T.sum((x1 / n1) * (x2 / n2), dim)


@torch_op(_F.pairwise_distance, inputs=("x1", "x2", "p", "eps"), tags=(REDUCTION,))
def pairwise_distance(x1, x2, p=2.0, eps=1e-6, keepdim=False):
    """``p``-norm of ``x1 - x2 + eps`` over the last dimension."""
    return vector_norm(x1 - x2 + eps, p, max(x1.ndim, x2.ndim) - 1, keepdim=keepdim)


@torch_op(torch.pdist, inputs=("input", "p"), tags=(REDUCTION,))
def pdist(input, p=2.0):
    """The ``p``-norm distances between every pair of rows ``i < j`` of an (N, M) input, in
    row-major order of the pairs (the rows of ``triu_indices(N, N, 1)``)."""
    if input.ndim != 2:
        raise RuntimeError(f"pdist only supports 2D tensors, got: {input.ndim}D")
    if p < 0:
        raise RuntimeError("pdist only supports non-negative p values")
    n = input.shape[0]
    pairs = T.triu_indices(n, n, 1, device=input.device)
    return vector_norm(T.index_select(input, 0, pairs[0]) - T.index_select(input, 0, pairs[1]), p, 1)
