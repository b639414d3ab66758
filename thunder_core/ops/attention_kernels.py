"""Which fused attention kernel a training step records, so that its backward reads the
forward's saved logsumexp instead of running the attention forward again.

``sdpa_forward`` (ltorch_backward.py) returns the attention and the rows' logsumexp, and
``sdpa_backward_stats`` takes them back. They run the kernel eager's attention would pick:

- ``"cpu"``: the CPU flash kernel (``_scaled_dot_product_flash_attention_for_cpu``): any float
  dtype, an optional mask in the query's dtype;
- ``"flash"``: the CUDA flash kernel: float16/bfloat16, no mask, head dim a multiple of 8 up to 256,
  an sm_80 or newer GPU; its logsumexp is (batch, heads, queries);
- ``"efficient"``: the CUDA memory-efficient kernel for float32 without a mask (eager's choice for
  float32 on a GPU), head dim a multiple of 4 up to 128. Its logsumexp has the queries padded to a
  multiple of 32: :func:`forward` returns the (batch, heads, queries) view of it, as the other
  kernels' (so the trace's shapes never depend on the kernel, symbolic sizes included), and
  :func:`backward` gives the kernel the padded buffer back (no copy when it is that view).

Anything else (GQA, a mask on CUDA: eager preprocesses masks before these kernels, a kernel the
user turned off with ``torch.backends.cuda.enable_flash_sdp(False)``) records the plain
attention, whose backward recomputes the forward. The choice is made while tracing, from the
inputs' device, dtype and shapes, which the cache's guards fix, and from the backend switches as
they are then (not guarded: a switch turned later does not retrace). At run time the kernel is
the one the trace chose, whatever the switches say by then.
"""

from __future__ import annotations

import functools

import torch

aten = torch.ops.aten


def kernel(q, k, v, mask, gqa, switches=True) -> str | None:
    """``"cpu"``, ``"flash"``, ``"efficient"`` or None for an attention call without dropout
    (tensors or proxies; see the module docstring). ``switches``: consult
    ``torch.backends.cuda``'s kernel switches (while tracing; not when running what was traced)."""
    if q.ndim != 4 or k.ndim != 4 or v.ndim != 4 or gqa or k.shape[1] != q.shape[1] or v.shape[-1] != q.shape[-1]:
        return None
    if q.device.type == "cpu":
        ok = q.dtype in (torch.float32, torch.float64, torch.bfloat16, torch.float16) and \
            (mask is None or mask.dtype == q.dtype)
        return "cpu" if ok else None
    d = q.shape[-1]
    if q.device.type != "cuda" or mask is not None or not isinstance(d, int) or not _gpu_ok(q.device):
        return None
    if q.dtype in (torch.float16, torch.bfloat16) and d % 8 == 0 and d <= 256 and \
            (not switches or torch.backends.cuda.flash_sdp_enabled()):
        return "flash"
    if q.dtype == torch.float32 and d % 4 == 0 and d <= 128 and \
            (not switches or torch.backends.cuda.mem_efficient_sdp_enabled()):
        return "efficient"
    return None


def _gpu_ok(device) -> bool:
    """sm_80 or newer; a device this machine does not have (fake tensors of tc.plan) is taken as
    the planned target's (every CUDA profile is sm_80 or newer)."""
    if not torch.cuda.is_available():
        return True
    index = torch.device(str(device)).index
    return torch.cuda.get_device_capability(index if index is not None else torch.cuda.current_device())[0] >= 8


def forward(q, k, v, mask, scale, causal):
    """(attention, logsumexp) by the kernel :func:`kernel` picks for these tensors."""
    which = kernel(q, k, v, mask, False, switches=False)
    if which == "flash":
        out, lse, *_ = aten._scaled_dot_product_flash_attention(q, k, v, 0.0, causal, False, scale=scale)
        return out, lse
    if which == "efficient":
        out, lse, _, _ = aten._scaled_dot_product_efficient_attention(q, k, v, None, True, 0.0, causal, scale=scale)
        return out, lse[..., :q.shape[-2]]
    return tuple(aten._scaled_dot_product_flash_attention_for_cpu(q, k, v, 0.0, causal, attn_mask=mask, scale=scale))


def backward(g, q, k, v, out, lse, mask, scale, causal):
    """(query, key, value) gradients from the saved attention and logsumexp (same kernel)."""
    which = kernel(q, k, v, mask, False, switches=False)
    if which in ("flash", "efficient"):
        seed, offset = _no_dropout_rng(which, q)
    if which == "flash":
        return tuple(aten._scaled_dot_product_flash_attention_backward(
            g.contiguous(), q, k, v, out, lse, None, None, q.shape[-2], k.shape[-2], 0.0, causal, seed, offset,
            scale=scale))
    if which == "efficient":
        return tuple(aten._scaled_dot_product_efficient_attention_backward(
            g.contiguous(), q, k, v, None, out, _padded(lse), seed, offset, 0.0, [True, True, True, False], causal,
            scale=scale)[:3])
    return tuple(aten._scaled_dot_product_flash_attention_for_cpu_backward(
        g, q, k, v, out, lse, 0.0, causal, attn_mask=mask, scale=scale))


def _padded(lse):
    """The memory-efficient kernel's (batch, heads, queries padded to 32) logsumexp from the
    (batch, heads, queries) one: the buffer it views (forward's), or a padded copy."""
    b, h, n = lse.shape
    p = (n + 31) // 32 * 32
    if p == n:
        return lse
    if lse.stride() == (h * p, p, 1) and lse.untyped_storage().nbytes() >= (lse.storage_offset() + b * h * p) * 4:
        return lse.as_strided((b, h, p), (h * p, p, 1))
    return torch.nn.functional.pad(lse, (0, p - n))


def _no_dropout_rng(which, q):
    """The (philox seed, offset) tensors the CUDA kernel's forward returns without dropout,
    which its backward takes back and, without dropout, does not read: taken from one forward
    on tiny inputs (their type and shape differ across PyTorch versions). Cached for real
    tensors; made afresh while a compiler traces the call (inductor's fake tensors: a cached
    fake tensor would reach later real calls, and a real one cannot enter its trace)."""
    key = (which, q.device, q.dtype, q.shape[-1])
    if type(q) is torch.Tensor and not torch._C._len_torch_dispatch_stack():
        return _cached_rng(*key)
    return _rng(*key)


@functools.lru_cache(maxsize=None)
def _cached_rng(which, device, dtype, head_dim):
    return _rng(which, device, dtype, head_dim)


def _rng(which, device, dtype, head_dim):
    t = torch.zeros(1, 1, 16, head_dim, device=device, dtype=dtype)
    if which == "flash":
        r = aten._scaled_dot_product_flash_attention(t, t, t, 0.0, False, False)
        return r[6], r[7]
    r = aten._scaled_dot_product_efficient_attention(t, t, t, None, True, 0.0, False)
    return r[2], r[3]
