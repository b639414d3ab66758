"""What the triton executor claims: maximal runs of fusible symbols, chosen by op traits.

A symbol is *fusible* when it is ``elementwise``, a ``reduction`` or a ``normalization`` (by
its declared traits; neither ``random``, ``inplace`` nor ``matmul``), or one of the view
primitives the generator handles (broadcasts, reshapes adding or removing leading 1s), and
its decomposition reaches only primitives with a Triton template (reductions: sum, amax,
amin, var, over the last dim; the generator checks the dims). The ClaimFn sees every list the partitioner solves (a trace's top level, forward or
backward, and each symbol's decomposition), so a torch-level op claimed nowhere else may be
claimed in its decomposition. A run that cannot be one kernel (its outputs have different
shapes, a value does not broadcast to them) is cut at the longest prefix that can.
"""

from __future__ import annotations

from thunder_core.extend import NumberProxy, TensorProxy, has_trait, traits

from .codegen import DTYPES, check_leaves, generate
from .ops import Unsupported, VIEWS

DEVICE_TYPES = ("cpu", "cuda")


def candidate(bsym) -> bool:
    """Might ``bsym`` join a region (before the checker)? By traits, never by a list of ids."""
    found = traits(bsym)
    if found & {"random", "inplace", "matmul"} or not bsym.flat_outs:
        return False
    return bool(found & {"elementwise", "reduction", "normalization"}) or bsym.sym.id in VIEWS


def check(bsym) -> str | None:
    """The checker: None, or why no generated kernel can run ``bsym``."""
    for p in (*bsym.flat_args, *bsym.flat_outs):
        if isinstance(p, TensorProxy):
            if p.device.type not in DEVICE_TYPES:
                return f"Triton kernels run on CPU (interpreter) and CUDA tensors, not {p.device.type}"
            if p.dtype not in DTYPES:
                return (f"generated kernels load and store float32, float16, bfloat16 and bool tensors, "
                        f"not {str(p.dtype).removeprefix('torch.')} ({p.name})")
        elif isinstance(p, NumberProxy):
            return f"the symbolic number {p.name} (kernels bake constants in)"
    if len(bsym.flat_outs) != 1:
        return f"{bsym.sym.id} has {len(bsym.flat_outs)} outputs"
    if not candidate(bsym):
        return None  # not claimed by the ClaimFn anyway
    reason = check_leaves(bsym)
    if reason is not None:
        return reason
    out = bsym.flat_outs[0]
    for p in bsym.flat_args:
        if isinstance(p, TensorProxy) and has_trait(bsym, "elementwise") and not _aligns(p.shape, out.shape):
            return f"{p.name} of shape {list(p.shape)} does not broadcast to {list(out.shape)} NumPy's way"
    return None


def _aligns(a, b):
    from .codegen import aligns

    return aligns(tuple(a), tuple(b))


def claim(bsyms, ctx):
    """One claim per maximal run of fusible symbols the checker accepts, cut to the longest
    prefix that makes one kernel; one-symbol regions too (a torch-level op such as gelu is
    several primitives: one kernel instead of several launches)."""
    from .kernels import lower

    i, n = 0, len(bsyms)
    while i < n:
        j = i
        while j < n and candidate(bsyms[j]) and ctx.check(bsyms[j]) is None:
            j += 1
        end = j
        while end > i:
            region = ctx.region(i, end)
            if all(b.sym.id in VIEWS for b in region.bsyms):
                end -= 1  # views alone: no kernel to run
                continue
            try:
                generate(region, ctx.profile.device_type)
            except Unsupported:
                end -= 1
                continue
            yield ctx.claim(i, end, ctx.region_us(region), lower, f"{end - i} symbols in one Triton kernel")
            break
        i = max(end, i + 1)
