"""What a trace asks cuDNN for: a bound symbol read into a frozen, hashable spec, or the
reason cuDNN cannot run it.

A spec holds everything a graph depends on (kind, sizes, dtypes, causal flag, scale, mask
shape, eps), so specs key the graph cache (one graph per structure, as ``region_key`` would)
and the differential tests compare built graphs against them. Checks that depend on the
target architecture (head-dim limits) are in :mod:`.claim`, which knows the target.

cuDNN graphs have fixed dims. A symbol with symbolic sizes (``cache="symbolic values"``, the
default) is read with this trace's sizes (:func:`hinted`) for checks, costs and ``tc.plan``'s
graphs; at run time its graphs are built per concrete sizes of the call (``runtime.lower``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch

from thunder_core.extend import NumberProxy, RegionNumbers, TensorProxy

from .library import IO_DTYPES, NORM_DTYPES

ATTENTION_IDS = ("ltorch.scaled_dot_product_attention", "ltorch.sdpa_backward",
                 "ltorch.sdpa_forward", "ltorch.sdpa_backward_stats")
#: the attention symbols of training, whose forward returns the statistics the backward takes
SAVED_IDS = ("ltorch.sdpa_forward", "ltorch.sdpa_backward_stats")
NORM_IDS = ("ltorch.layer_norm", "ltorch.rms_norm", "ltorch.layer_norm_backward", "ltorch.rms_norm_backward")
CLAIMED_IDS = ATTENTION_IDS + NORM_IDS


@dataclass(frozen=True)
class Attention:
    """``softmax(q k^T * scale + mask) v`` (forward), or its (q, k, v) gradients (backward).

    Tensors are 4-D: q (b, h, s_q, d), k (b, h, s_kv, d), v (b, h, s_kv, d_v), output and
    its gradient (b, h, s_q, d_v); ``mask``, when given, is the 4-D shape of the additive
    mask (leading 1s added; each of its first two dims 1 or b/h). ``saved``: training's pair
    (``sdpa_forward`` also returns the rows' logsumexp, (b, h, s_q) float32, which
    ``sdpa_backward_stats`` takes back with the output, so it runs no forward)."""

    backward: bool
    b: int
    h: int
    s_q: int
    s_kv: int
    d: int
    d_v: int
    dtype: torch.dtype
    causal: bool
    scale: float
    mask: tuple | None = None
    saved: bool = False

    @property
    def q(self):
        return (self.b, self.h, self.s_q, self.d)

    @property
    def k(self):
        return (self.b, self.h, self.s_kv, self.d)

    @property
    def v(self):
        return (self.b, self.h, self.s_kv, self.d_v)

    @property
    def o(self):
        return (self.b, self.h, self.s_q, self.d_v)

    @property
    def stats(self):
        return (self.b, self.h, self.s_q, 1)


@dataclass(frozen=True)
class Norm:
    """``layer_norm``/``rms_norm`` over the trailing ``c`` elements of ``n`` rows (the input
    viewed as (n, c, 1, 1), the layout cuDNN's normalization graphs take), or its gradients
    where ``output_mask`` holds (input, weight[, bias])."""

    kind: str  # "layer_norm" | "rms_norm"
    backward: bool
    n: int
    c: int
    dtype: torch.dtype
    eps: float
    output_mask: tuple = ()


# ---------------------------------------------------------------- reading bound symbols

def _padded(bsym, *defaults):
    a = tuple(bsym.args)
    return a + tuple(defaults[len(a):])


def _device_and_dtypes(tensors, allowed, what) -> str | None:
    for t in tensors:
        if t.device.type != "cuda":
            return f"cuDNN runs on CUDA tensors, not {t.device.type} ({t.name})"
    for t in tensors:
        if t.dtype not in allowed:
            names = ", ".join(str(d).removeprefix("torch.") for d in allowed)
            return f"cuDNN's {what} here takes {names} tensors, not {str(t.dtype).removeprefix('torch.')} ({t.name})"
    if len({t.dtype for t in tensors}) > 1:
        return f"mixed dtypes ({', '.join(f'{t.name}: {t.dtype}' for t in tensors)}); cuDNN's graph has one io dtype"
    return None


def _constant(x, what) -> tuple[object, str | None]:
    if isinstance(x, NumberProxy):
        if x.value is None:
            return None, f"{what} is the symbolic number {x.name} (cuDNN graphs bake it in)"
        return x.value, None
    return x, None


def attention_spec(bsym) -> Attention | str:
    """The :class:`Attention` ``bsym`` asks for, or why cuDNN cannot run it."""
    sid = bsym.sym.id
    backward, saved = sid in ("ltorch.sdpa_backward", "ltorch.sdpa_backward_stats"), sid in SAVED_IDS
    if sid == "ltorch.sdpa_backward_stats":
        g, q, k, v, _out, _lse, mask, scale = _padded(bsym, None, None, None, None, None, None, None, None)
        dropout = 0.0
    elif backward:
        g, q, k, v, mask, scale = _padded(bsym, None, None, None, None, None, None)
        dropout = 0.0
    elif saved:
        q, k, v, mask, scale = _padded(bsym, None, None, None, None, None)
        dropout, g = 0.0, None
    else:
        q, k, v, mask, dropout, scale = _padded(bsym, None, None, None, None, 0.0, None)
        g = None
    causal, gqa = bool(bsym.kwargs.get("is_causal", False)), bool(bsym.kwargs.get("enable_gqa", False))
    tensors = [t for t in (g, q, k, v) if t is not None]
    if not all(isinstance(t, TensorProxy) for t in tensors):
        return "query, key and value must be tensors"
    reason = _device_and_dtypes(tensors, IO_DTYPES, "fused attention")
    if reason:
        return reason
    if any(t.ndim != 4 for t in tensors):
        return (f"cuDNN attention takes 4-D (batch, heads, seq, head_dim) tensors, got shapes "
                f"{[list(t.shape) for t in tensors]}")
    dropout, reason = _constant(dropout, "dropout_p")
    if reason:
        return reason
    if dropout != 0:
        return f"dropout_p={dropout}: attention with dropout is not claimed (its random mask would differ from eager's)"
    scale, reason = _constant(scale, "scale")
    if reason:
        return reason
    if gqa:
        return "enable_gqa=True (grouped-query attention) is not claimed yet"
    (b, h, s_q, d), (bk, hk, s_kv, dk), (bv, hv, sv, d_v) = q.shape, k.shape, v.shape
    if (bk, hk, dk) != (b, h, d) or (bv, hv, sv) != (b, h, s_kv):
        return f"query/key/value shapes {list(q.shape)}, {list(k.shape)}, {list(v.shape)} do not pair up"
    if backward and tuple(g.shape) != (b, h, s_q, d_v):
        return f"grad_output of shape {list(g.shape)} is not the output's shape {[b, h, s_q, d_v]}"
    if d % 8 or d_v % 8:
        return f"head dims {d} (query/key) and {d_v} (value) must be multiples of 8 for cuDNN"
    if backward and s_q == 1 and s_kv == 1:
        return "cuDNN's attention backward does not support s_q = s_kv = 1"
    mask_shape = None
    if mask is not None:
        mask_shape = _mask_shape(mask, q.dtype, b, h, s_q, s_kv)
        if isinstance(mask_shape, str):
            return mask_shape
    scale = 1.0 / math.sqrt(d) if scale is None else float(scale)
    return Attention(backward, b, h, s_q, s_kv, d, d_v, q.dtype, causal, scale, mask_shape, saved)


def _mask_shape(mask, dtype, b, h, s_q, s_kv) -> tuple | str:
    if not isinstance(mask, TensorProxy):
        return "attn_mask is not a tensor"
    if mask.device.type != "cuda":
        return f"cuDNN runs on CUDA tensors, not {mask.device.type} ({mask.name})"
    if mask.dtype == torch.bool:
        return ("a boolean attn_mask: cuDNN's attention bias is additive (pass a float mask, 0 where kept and "
                "-inf where masked; rows masked entirely then differ from eager's zeros)")
    if mask.dtype != dtype:
        return f"attn_mask of dtype {mask.dtype}, not the query's {dtype}"
    if mask.requires_grad:
        return "the attn_mask requires grad (its gradient, cuDNN's dBias, is not produced here)"
    if mask.ndim > 4:
        return f"attn_mask of {mask.ndim} dims"
    shape = (1,) * (4 - mask.ndim) + tuple(mask.shape)
    if shape[2:] != (s_q, s_kv) or shape[0] not in (1, b) or shape[1] not in (1, h):
        return (f"attn_mask of shape {list(mask.shape)}: cuDNN's bias is (1 or batch, 1 or heads, s_q, s_kv) = "
                f"(1|{b}, 1|{h}, {s_q}, {s_kv})")
    return shape


def norm_spec(bsym) -> Norm | str:
    """The :class:`Norm` ``bsym`` asks for, or why cuDNN cannot run it."""
    sid = bsym.sym.id
    kind = "layer_norm" if "layer_norm" in sid else "rms_norm"
    backward = sid.endswith("_backward")
    shape = bsym.kwargs.get("normalized_shape")
    if backward:
        g, x, w, eps = _padded(bsym, None, None, None, 1e-05 if kind == "layer_norm" else None)
        bias = None
        mask = tuple(bsym.kwargs.get("output_mask", (True, False, False) if kind == "layer_norm" else (True, False)))
    elif kind == "layer_norm":
        x, w, bias, eps = _padded(bsym, None, None, None, 1e-05)
        g, mask = None, ()
    else:
        x, w, eps = _padded(bsym, None, None, None)
        g = bias = None
        mask = ()
    if not isinstance(w, TensorProxy):
        return f"cuDNN's {kind.replace('_', '')} takes a scale tensor; this {kind} has no weight"
    if kind == "layer_norm" and not backward and not isinstance(bias, TensorProxy):
        return "cuDNN's layernorm takes a bias tensor; this layer_norm has none"
    tensors = [t for t in (g, x, w, bias) if t is not None]
    reason = _device_and_dtypes(tensors, NORM_DTYPES, kind.replace("_", ""))
    if reason:
        return reason
    shape = (shape,) if isinstance(shape, int) else tuple(shape or ())
    k = len(shape)
    if not shape or tuple(x.shape[x.ndim - k:]) != shape or any(tuple(t.shape) != shape for t in (w, bias) if t is not None):
        return f"normalized_shape {list(shape)} does not match the trailing dims of {list(x.shape)} and the weight"
    if backward and tuple(g.shape) != tuple(x.shape):
        return f"grad_output of shape {list(g.shape)} is not the input's {list(x.shape)}"
    eps, reason = _constant(eps, "eps")
    if reason:
        return reason
    if eps is None:  # F.rms_norm's default: the machine epsilon of the computation dtype
        eps = torch.finfo(torch.float32 if x.dtype in IO_DTYPES else x.dtype).eps
    c = math.prod(shape)
    n = math.prod(x.shape) // c if c else 0
    if n == 0 or c == 0:
        return f"an empty input of shape {list(x.shape)}"
    return Norm(kind, backward, n, c, x.dtype, float(eps), mask)


def hinted(bsym):
    """``bsym`` with this trace's values (hints) in place of its symbolic sizes and numbers
    (itself when it has none): what checks, costs and ahead-of-time graphs read."""
    return RegionNumbers(bsym).concrete_bsym()


def spec_of(bsym) -> Attention | Norm | str:
    """The spec of a claimed symbol (with concrete sizes: see :func:`hinted`), or the reason
    it is declined."""
    if bsym.sym.id in ATTENTION_IDS:
        return attention_spec(bsym)
    if bsym.sym.id in NORM_IDS:
        return norm_spec(bsym)
    return f"{bsym.sym.id} is not run by cuDNN here"


def check(bsym) -> str | None:
    """The executor's checker: None for a call cuDNN can run (on some architecture), else why not."""
    spec = spec_of(hinted(bsym))
    return spec if isinstance(spec, str) else None
