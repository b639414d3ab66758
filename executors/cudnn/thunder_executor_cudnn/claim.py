"""What the cudnn executor claims: attention and normalization symbols, one per claim.

Each claimed symbol is a region of its own (cuDNN runs it as one or two graphs; nothing
fuses with it here). The checker (:func:`specs.check`) declines what no architecture can run
(dtypes, devices, layouts, head dims not a multiple of 8, dropout...); the ClaimFn adds the
target's architecture limits (:data:`MAX_HEAD_DIM`) with ``ctx.decline`` and prices the
claim (:mod:`.cost`).
"""

from __future__ import annotations

from thunder_core.extend import RegionNumbers

from .cost import claim_us, describe
from .library import sm_for
from .specs import CLAIMED_IDS, Attention, hinted, spec_of

#: largest head dim (query/key and value) of cuDNN's fused fp16/bf16 attention per architecture,
#: forward and backward: d <= 256 on Ampere/Ada and Hopper (cuDNN's SDPA support matrix for
#: backend 9.x); Blackwell (sm_100) is held to d <= 128 here, the limit NVIDIA Transformer
#: Engine applies to cuDNN there. These are documented figures: the backend's own
#: check_support() needs a GPU and did not run here.
MAX_HEAD_DIM = {80: 256, 86: 256, 89: 256, 90: 256, 100: 128}


def arch_reason(spec, sm: int) -> str | None:
    """Why ``spec`` cannot run on ``sm_<sm>``, or None."""
    if sm < 80:
        return f"cuDNN's fused attention and normalization graphs need sm_80 or newer, not sm_{sm}"
    if isinstance(spec, Attention):
        limit = MAX_HEAD_DIM.get(sm, MAX_HEAD_DIM[max(k for k in MAX_HEAD_DIM if k <= sm)])
        if max(spec.d, spec.d_v) > limit:
            return f"head dim {max(spec.d, spec.d_v)} exceeds cuDNN's limit of {limit} on sm_{sm}"
    return None


def claim(bsyms, ctx):
    """One claim per attention or normalization symbol cuDNN can run on the target."""
    from .runtime import lower

    sm = sm_for(ctx.profile)
    for i, b in enumerate(bsyms):
        if b.sym.id not in CLAIMED_IDS or ctx.check(b) is not None:
            continue
        spec = spec_of(hinted(b))  # (symbolic sizes: this trace's; calls build graphs for their own)
        reason = arch_reason(spec, sm)
        if reason is not None:
            ctx.decline(i, i + 1, reason)
            continue
        region = RegionNumbers(ctx.region(i, i + 1)).concrete()
        yield ctx.claim(i, i + 1, claim_us(region.bsyms[0], spec, region, ctx), lower, describe(spec))
