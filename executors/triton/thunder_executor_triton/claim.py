"""What the triton executor claims: maximal runs of fusible symbols, chosen by op traits.

A symbol is *fusible* when it is ``elementwise``, a ``reduction``, a ``normalization`` or a
``creation`` (by its declared traits; neither ``random``, ``inplace`` nor ``matmul``), a
symbol with no trait that has a decomposition (a loss's backward: a scatter of one value per
row), or one of the view primitives the generator handles; and its decomposition reaches only
primitives with code generation. The ClaimFn sees every list the partitioner solves (a
trace's top level, forward or backward, and each symbol's decomposition), so a torch-level op
claimed nowhere else may be claimed in its decomposition. A run that cannot be one kernel
(outputs of different shapes, a value reduced and then used across rows) is cut at the longest
prefix that can; the reason the whole run could not be one kernel is recorded for tc.explain
(``ctx.decline``).
"""

from __future__ import annotations

from thunder_core.extend import NumberProxy, TensorProxy, traits

from .codegen import DTYPES, check_leaves, variants
from .ops import VIEWS, Unsupported

DEVICE_TYPES = ("cpu", "cuda")
FUSIBLE = frozenset({"elementwise", "reduction", "normalization", "creation"})


def candidate(bsym) -> bool:
    """Might ``bsym`` join a region (before the checker)? By traits, never by a list of ids."""
    found = traits(bsym)
    if found & {"random", "inplace", "matmul"} or not bsym.flat_outs:
        return False
    if found & FUSIBLE or bsym.sym.id in VIEWS:
        return True
    # an op of no trait the kernels know, or a gather/scatter ("indexing"), joins through its
    # decomposition when the checker takes every leaf (nll_loss_backward: a where and a scatter)
    return found <= {"indexing"} and bool(bsym.subsymbols) and "region" not in bsym.sym.tags


def check(bsym) -> str | None:
    """The checker: None, or why no generated kernel can run ``bsym``."""
    for p in (*bsym.flat_args, *bsym.flat_outs):
        if isinstance(p, TensorProxy):
            if p.device.type not in DEVICE_TYPES:
                return f"Triton kernels run on CPU (interpreter) and CUDA tensors, not {p.device.type}"
            if p.dtype not in DTYPES:
                return (f"generated kernels load and store float32, float16, bfloat16, bool, int32 and int64 "
                        f"tensors, not {str(p.dtype).removeprefix('torch.')} ({p.name})")
        elif type(p) is NumberProxy and p.python_type not in (int, float, bool):
            return f"the {p.python_type.__name__} number {p.name}"
    if not candidate(bsym):
        return None  # not claimed by the ClaimFn anyway
    return check_leaves(bsym)


def claim(bsyms, ctx):
    """One claim per maximal run of fusible symbols the checker accepts, cut to the longest
    prefix that makes one kernel (in every variant its sizes may need); one-symbol regions too
    (a torch-level op such as gelu is several primitives: one kernel instead of several
    launches)."""
    from .kernels import lower

    device_type = ctx.profile.device_type
    i, n = 0, len(bsyms)
    while i < n:
        j = i
        while j < n and candidate(bsyms[j]) and ctx.check(bsyms[j]) is None:
            j += 1
        end, why = j, None
        while end > i:
            region = ctx.region(i, end)
            if all(b.sym.id in VIEWS for b in region.bsyms):
                end -= 1  # views alone: no kernel to run
                continue
            try:
                _, declined = variants(region, device_type)
            except Unsupported as e:
                why = why or str(e)
                end -= 1
                continue
            except Exception as e:  # noqa: BLE001  (a generator bug must not fail the user's compile)
                why = why or f"a bug in the Triton code generator ({type(e).__name__}: {e}); please report it"
                end -= 1
                continue
            note = f"{end - i} symbols in one Triton kernel"
            if declined:  # sizes of other calls may need a kernel the generator cannot make
                note += f"; calls needing another variant run with torch ({next(iter(declined.values()))})"
            yield ctx.claim(i, end, ctx.region_us(region), lower, note)
            break
        if why is not None and j - i > 1:
            ctx.decline(i, j, f"not one Triton kernel: {why}" + (f" (claimed the first {end - i})" if end > i else ""))
        elif why is not None:
            ctx.decline(i, j, why)
        i = max(end, i + 1)
