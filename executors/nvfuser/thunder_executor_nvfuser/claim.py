"""What the nvfuser executor claims: maximal runs of fusible symbols, chosen by op traits.

A symbol is a *candidate* when it is ``elementwise``, a ``reduction``, a ``normalization``, a
``view``, a ``shape`` op or a (non-random) ``creation``, by its declared traits (never
``random``, ``inplace`` or ``matmul``). The *checker* (:func:`check`) then translates the
symbol alone, without nvFuser (:func:`.translate.check_region`): its decomposition must reach
only symbols with a translation (:data:`.ops.TRANSLATIONS`), its tensors must be CUDA tensors
of a dtype the translation takes, its static arguments constant. Each decline has a reason
``tc.explain`` shows.

The ClaimFn sees every list the partitioner solves (a trace's top level, forward or
backward, and each symbol's decomposition). It claims each maximal run of accepted
candidates, one region (nvFuser takes several outputs of different shapes, reductions over
any dims, and views in one definition). A run the translator rejects as a whole is recorded
with ``ctx.decline`` and cut to its longest prefix that translates; a run that only moves or
views data (reshape, transpose, slice...) is not claimed: the library does that without
copying.
"""

from __future__ import annotations

from thunder_core.extend import traits

from .ops import MOVES_ONLY
from .translate import check_region, leaves, symbol_region

FUSIBLE = frozenset({"elementwise", "reduction", "normalization", "view", "shape", "creation"})
NEVER = frozenset({"random", "inplace", "matmul"})


def candidate(bsym) -> bool:
    """Might ``bsym`` join a region (before the checker)? By traits, never by a list of ids."""
    found = traits(bsym)
    return bool(found & FUSIBLE) and not found & NEVER and bool(bsym.flat_outs)


def check(bsym) -> str | None:
    """The checker: None, or why nvFuser cannot take ``bsym``."""
    if not candidate(bsym):
        return None  # never claimed by the ClaimFn
    return check_region(symbol_region(bsym))


def _moves_only(region) -> bool:
    return all(b.sym.id in MOVES_ONLY for top in region.bsyms for b, _ in leaves(top))


def claim(bsyms, ctx):
    """One claim per maximal run of candidates the checker accepts, cut to its longest prefix
    that translates; one-symbol regions too (a layer norm is one fusion instead of the
    library's kernel, and fuses with its neighbours)."""
    from .runtime import lower

    i, n = 0, len(bsyms)
    while i < n:
        j = i
        while j < n and candidate(bsyms[j]) and ctx.check(bsyms[j]) is None:
            j += 1
        end, declined = j, False
        while end > i:
            region = ctx.region(i, end)
            reason = check_region(region)
            if reason is None:
                break
            if not declined:  # the longest run's reason; shorter prefixes are tried silently
                ctx.decline(i, end, reason)
                declined = True
            end -= 1
        if end > i and not _moves_only(region):
            yield ctx.claim(i, end, ctx.region_us(region), lower, f"{end - i} symbols in one nvFuser fusion")
            i = end
        else:  # nothing translates from here, or views and copies alone (left to the library)
            i = max(j if end == j else i + 1, i + 1)
