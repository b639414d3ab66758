"""What a cuDNN claim costs on the target, from its device profile.

The core prices an attention symbol for any executor as a roofline at the profile's peak
matrix-product rate: ``max(bytes / bandwidth, FLOPs / rate) + launch + dispatch``. What eager
PyTorch runs for it on an H100 is FlashAttention-2; cuDNN's fused attention is faster. A
cuDNN claim is priced in the same convention with its FLOPs divided by cuDNN's speed
*relative to FlashAttention-2*:

    FLOP time = FLOPs / (peak matmul rate * RELATIVE_SPEED[profile][direction][head dim])

``RELATIVE_SPEED["h100"]`` comes from the published H100 SXM5 bf16 measurements in the
FlashAttention-3 paper (Shah et al., 2024, figures 5 and 6: non-causal, sequence length 1k,
TFLOP/s of cuDNN / FlashAttention-2): forward 373/306 = 1.22 at head dim 64, 574/350 = 1.64
at 128, 546/313 = 1.74 at 256; backward 348/238 = 1.46 at 64, 408/260 = 1.57 at 128,
391/251 = 1.56 at 256. In absolute terms cuDNN reached 38-62% of the 989 TFLOP/s peak there
and FlashAttention-2 31-37%. **None of this was measured here** (no GPU). Other profiles get
1.0 (no comparison consulted): cuDNN then wins nothing on FLOPs there, and its higher
per-call overhead makes the core's other attention kernels win.

Bytes: a claim reads and writes the tensors crossing its boundary; the backward also writes
and reads the recomputed output and statistics and reads q, k, v (and the mask) a second
time (its two graphs). Normalizations are memory-bound: bytes only (the backward re-reads the
input to recompute the statistics, like the core's own estimate), so with the same bytes as
eager's kernels and a larger per-call overhead, cuDNN normalizations lose to eager's and to
fused Triton kernels on every profile. They are claimed (and show in ``tc.explain``) so a
profile or a calibration that makes them cheaper can pick them.
"""

from __future__ import annotations

import math


from thunder_core.extend import TensorProxy

from .specs import Attention

#: profile name -> direction -> ((largest head dim, cuDNN speed / FlashAttention-2 speed), ...)
RELATIVE_SPEED = {
    "h100": {"forward": ((64, 1.22), (128, 1.64), (256, 1.74)),
             "backward": ((64, 1.46), (128, 1.57), (256, 1.56))},
}
#: graphs per claim: attention backward and normalization backward run two (statistics
#: recomputed), except training's attention backward, which takes the saved statistics
GRAPHS = {False: 1, True: 2}


def relative_speed(profile_name: str, backward: bool, head_dim: int) -> float:
    """cuDNN's attention speed relative to FlashAttention-2 (1.0 where nothing is known)."""
    table = RELATIVE_SPEED.get(profile_name, {}).get("backward" if backward else "forward", ())
    for largest, speed in table:
        if head_dim <= largest:
            return speed
    return 1.0


def nbytes(p) -> float:
    return float(math.prod(p.shape) * p.dtype.itemsize) if isinstance(p, TensorProxy) else 0.0


def claim_us(bsym, spec, region, ctx) -> float:
    """The estimated time of ``bsym`` run by cuDNN on ``ctx.profile`` (µs), overheads included."""
    model, profile = ctx.model, ctx.profile
    moved = sum(nbytes(p) for p in (*region.inputs, *region.outputs))
    graphs = 1 if isinstance(spec, Attention) and spec.saved else GRAPHS[spec.backward]
    if isinstance(spec, Attention):
        flop_us = model.flops(bsym) / (profile.flops_per_us(spec.dtype, True)
                                       * relative_speed(profile.name, spec.backward, max(spec.d, spec.d_v)))
        if spec.backward:
            o = math.prod(spec.o) * spec.dtype.itemsize
            stats = math.prod(spec.stats) * 4
            qkv = sum(math.prod(s) for s in (spec.q, spec.k, spec.v, spec.mask or ())) * spec.dtype.itemsize
            moved += 0 if spec.saved else 2 * (o + stats) + qkv  # (the saved ones are the region's inputs)
    else:
        flop_us = 0.0
        if spec.backward:  # the input read again, the statistics written and read
            moved += spec.n * spec.c * spec.dtype.itemsize + 2 * 2 * spec.n * 4
    return model.kernel_us(moved, flop_us) + (graphs - 1) * profile.launch_us + graphs * ctx.dispatch_us


def describe(spec) -> str:
    """A few words for tc.explain."""
    dt = str(spec.dtype).removeprefix("torch.")
    if isinstance(spec, Attention):
        what = ("attention backward" + ("" if spec.saved else " (forward recomputed)") if spec.backward else
                "attention" + (" with its statistics" if spec.saved else ""))
        mask = f", additive mask {list(spec.mask)}" if spec.mask else ""
        return (f"cuDNN {what} {dt} b={spec.b} h={spec.h} s_q={spec.s_q} s_kv={spec.s_kv} d={spec.d}"
                f"{' causal' if spec.causal else ''}{mask}")
    return f"cuDNN {spec.kind.replace('_', '')}{' backward' if spec.backward else ''} {dt} {spec.n}x{spec.c}"


__all__ = ["RELATIVE_SPEED", "relative_speed", "claim_us", "describe"]
