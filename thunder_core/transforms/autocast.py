"""Autocast (``torch.autocast``, automatic mixed precision) while tracing.

Under ``torch.autocast(device_type, dtype)`` PyTorch casts the inputs of some operators before
running them: matmuls and convolutions to the lower precision (``dtype``), numerically
sensitive ops (losses, softmax, norms on CUDA) to float32, and ops taking several tensors
(``cat``) to the widest floating type among them. The cast happens once, at the op the
program called: inside such an op autocast is off (ATen excludes its key), while an op
without a policy (``einsum``) runs with autocast on, so the listed ops it calls are cast.

The capture does the same: when autocast is on for a call's device type at the moment the
program makes it (on when the jitted function was called, or turned on by the program's own
``with torch.autocast(...)``), the symbol's floating inputs on that device (float64 and
integer tensors are never cast) are converted with ``ltorch.to`` first, recorded in the
trace, and the symbol's own decomposition runs with autocast suspended. So the trace's
dtypes are the ones eager produces, its backward differentiates the casts, and executors
see explicit conversions. The tables below are PyTorch's autocast op lists
(``aten/src/ATen/autocast_mode.cpp``), keyed by symbol id; an op not listed is not cast.
"""

from __future__ import annotations

import torch

from ..ir import TensorProxy, flat_proxies
from ..ir.trace import AUTOCAST_DEVICES, any_autocast

#: ops atomic here that ATen builds from matmuls (autocast casts those inside them): cast as
#: the lower-precision ops (einsum only where two operands share a summed index: ATen
#: multiplies or sums otherwise)
_MADE_OF_MATMULS = {"ltorch.einsum", "ltorch.linalg_matrix_power", "ltorch.linalg_multi_dot"}
_LOWER_CUDA = _MADE_OF_MATMULS | {
    "ltorch.matmul", "ltorch.mm", "ltorch.bmm", "ltorch.mv", "ltorch.linear", "ltorch.addmm", "ltorch.addmv",
    "ltorch.addr", "ltorch.baddbmm", "ltorch.addbmm", "ltorch.conv1d", "ltorch.conv2d", "ltorch.conv3d",
    "ltorch.conv_transpose1d", "ltorch.conv_transpose2d", "ltorch.conv_transpose3d", "ltorch.prelu",
    "ltorch.scaled_dot_product_attention",
}
_FP32_CUDA = {
    "ltorch.acos", "ltorch.asin", "ltorch.cosh", "ltorch.sinh", "ltorch.tan", "ltorch.erfinv", "ltorch.exp",
    "ltorch.expm1", "ltorch.log", "ltorch.log10", "ltorch.log2", "ltorch.log1p", "ltorch.reciprocal", "ltorch.rsqrt",
    "ltorch.pow", "ltorch.softplus", "ltorch.layer_norm", "ltorch.group_norm", "ltorch.norm", "ltorch.normalize",
    "ltorch.cosine_similarity", "ltorch.softmax", "ltorch.log_softmax", "ltorch.softmin", "ltorch.cumprod",
    "ltorch.cumsum", "ltorch.dist", "ltorch.pdist", "ltorch.cdist", "ltorch.renorm", "ltorch.prod", "ltorch.sum",
    "ltorch.mse_loss", "ltorch.l1_loss", "ltorch.smooth_l1_loss", "ltorch.huber_loss", "ltorch.nll_loss",
    "ltorch.cross_entropy", "ltorch.kl_div", "ltorch.binary_cross_entropy_with_logits",
}
_PROMOTE_CUDA = {"ltorch.inner", "ltorch.addcdiv", "ltorch.addcmul", "ltorch.atan2", "ltorch.bilinear", "ltorch.cross", "ltorch.dot",
                 "ltorch.index_put", "ltorch.scatter_add", "ltorch.tensordot", "ltorch.cat", "ltorch.stack"}
_LOWER_CPU = _MADE_OF_MATMULS | {
    "ltorch.matmul", "ltorch.mm", "ltorch.bmm", "ltorch.linear", "ltorch.addmm", "ltorch.baddbmm", "ltorch.addbmm",
    "ltorch.conv1d", "ltorch.conv2d", "ltorch.conv3d", "ltorch.conv_transpose1d", "ltorch.conv_transpose2d",
    "ltorch.conv_transpose3d", "ltorch.prelu", "ltorch.scaled_dot_product_attention",
}
#: on CPU, ATen's inner and tensordot reach mm (autocast's), and linalg_vecdot is listed (bilinear:
#: its matmul is cast, the rest runs in float32, eager's dtype; bfloat16 rounding differs)
_LOWER_CPU |= {"ltorch.inner", "ltorch.tensordot", "ltorch.linalg_vecdot"}
_FP32_CPU = {
    "ltorch.prod", "ltorch.cdist", "ltorch.mse_loss", "ltorch.nll_loss", "ltorch.cross_entropy", "ltorch.l1_loss",
    "ltorch.smooth_l1_loss", "ltorch.huber_loss", "ltorch.kl_div", "ltorch.binary_cross_entropy_with_logits",
}
_PROMOTE_CPU = {"ltorch.cat", "ltorch.stack", "ltorch.index_copy"}

#: device type -> symbol id -> "lower" | "fp32" | "promote"
POLICY: dict[str, dict[str, str]] = {
    dev: {**dict.fromkeys(promote, "promote"), **dict.fromkeys(fp32, "fp32"), **dict.fromkeys(lower, "lower")}
    for dev, lower, fp32, promote in (("cuda", _LOWER_CUDA, _FP32_CUDA, _PROMOTE_CUDA),
                                      ("cpu", _LOWER_CPU, _FP32_CPU, _PROMOTE_CPU))
}

def active() -> dict:
    """``{device type: autocast dtype}`` for the device types autocast is on for now."""
    if not any_autocast():
        return {}
    return {d: torch.get_autocast_dtype(d) for d in AUTOCAST_DEVICES if torch.is_autocast_enabled(d)}


def cast_inputs(sym, args, kwargs):
    """``(args, kwargs)`` with ``sym``'s inputs cast as autocast casts them now, or None when
    autocast leaves this call alone (off, the op not listed, no eligible tensor)."""
    if not any_autocast():
        return None
    sid = sym.id
    flat = [p for p in flat_proxies((args, kwargs)) if isinstance(p, TensorProxy)]
    if not flat:
        return None
    dev = flat[0].device.type
    policy = POLICY.get(dev, {}).get(sid)
    if policy is None or not torch.is_autocast_enabled(dev):
        return None
    if sid == "ltorch.einsum" and not _contracts(kwargs.get("equation"), len(flat)):
        return None
    eligible = [t for t in flat if _eligible(t, dev)]
    if not eligible:
        return args, kwargs
    if policy == "lower":
        dtype = torch.get_autocast_dtype(dev)
    elif policy == "fp32":
        dtype = torch.float32
    else:
        dtype = eligible[0].dtype
        for t in eligible[1:]:
            dtype = torch.promote_types(dtype, t.dtype)
    if all(t.dtype == dtype for t in eligible):
        return args, kwargs
    from ..ops.registry import SYMBOLS

    to = SYMBOLS["ltorch.to"]
    cast = {}

    def conv(x):
        if isinstance(x, TensorProxy) and _eligible(x, dev) and x.dtype != dtype:
            c = cast.get(id(x))
            if c is None:
                c = cast[id(x)] = to(x, dtype=dtype)
            return c
        if type(x) in (tuple, list):
            return type(x)(conv(y) for y in x)
        return x

    return tuple(conv(a) for a in args), {k: conv(v) for k, v in kwargs.items()}


def _contracts(equation, n: int) -> bool:
    """Whether einsum ``equation`` sums an index two of its ``n`` operands share (ATen's
    einsum uses bmm for it; without one it multiplies or sums)."""
    if not isinstance(equation, str) or n < 2:
        return False
    lhs, _, rhs = equation.replace(" ", "").replace("...", "").partition("->")
    terms = lhs.split(",")
    if not _:
        letters = "".join(terms)
        rhs = "".join(c for c in letters if letters.count(c) == 1)
    return any(c not in rhs and sum(c in t for t in terms) >= 2 for c in set("".join(terms)))


def _eligible(t: TensorProxy, dev: str) -> bool:
    # what autocast casts: floating tensors on its device type, never float64
    return t.device.type == dev and t.dtype.is_floating_point and t.dtype != torch.float64
