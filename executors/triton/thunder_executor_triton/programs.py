"""Reductions across a kernel's programs, in one kernel: each program writes its partial
results to a float32 workspace, counts itself done on an atomic counter, and the last one to
finish reads every partial result back and finishes the reduction (and whatever follows it).

The pattern of CUDA's "threadfence reduction" sample: a barrier makes every thread's stores of
the program precede the count, the counter's ``acq_rel`` atomic at GPU scope orders them
before the last program's loads, which bypass L1 (``.cg``). Deterministic (the partials are
combined in program order). Under Triton's interpreter programs run one after another, so the
tests check the indexing and the arithmetic, not the memory ordering on a GPU (not verified:
no GPU here). Used by row kernels (a weight gradient over all rows, a mean loss) and by split
reduction kernels.
"""

from __future__ import annotations

from .ops import REDUCTIONS


def reduce_all(sid: str, x: str) -> str:
    """``x`` (every lane valid: masked lanes hold the neutral element) reduced along axis 0,
    NaN-propagating for amax/amin as eager's reductions are."""
    if sid == "prims.sum":
        return f"tl.sum({x}, axis=0, keep_dims=True)"
    fn = "tl.max" if sid == "prims.amax" else "tl.min"
    return (f"tl.where(tl.max(({x} != {x}).to(tl.int32), axis=0, keep_dims=True) > 0, float(\"nan\"), "
            f"{fn}({x}, axis=0, keep_dims=True))")


def combine(sid: str, acc: str, part: str) -> str:
    """``acc`` combined with ``part`` by the reduction ``sid``."""
    if sid == "prims.sum":
        return f"{acc} + {part}"
    fn = "tl.maximum" if sid == "prims.amax" else "tl.minimum"
    return f"{fn}({acc}, {part}, propagate_nan=tl.PropagateNan.ALL)"


def last_program(counter: str, programs: str) -> list:
    """The statements after which only the last of ``programs`` programs to finish goes on
    (the lines that follow go inside the ``if``, one indent deeper)."""
    return ["    tl.debug_barrier()  # every thread's partial results are stored before the count",
            f"    done = tl.atomic_add({counter}, 1, sem=\"acq_rel\")",
            f"    if done == {programs} - 1:  # the last program: combine the partial results"]


def partials(j: int, sid: str, shape: str, address: str, mask: str, programs: str) -> list:
    """``tot{j}``: the partial results of reduction ``j`` (``sid``) of all ``programs``
    combined; ``address``/``mask`` are written in terms of the program index ``gi``."""
    neutral = REDUCTIONS[sid][0]
    return [f"    tot{j} = tl.full({shape}, {neutral}, tl.float32)",
            f"    for g0 in range(0, {programs}, 32):",
            "        gi = g0 + tl.arange(0, 32)[:, None]",
            f"        part{j} = tl.load(ws + {address}, mask=(gi < {programs}){mask}, other={neutral}, "
            f"cache_modifier=\".cg\")",
            f"        tot{j} = {combine(sid, f'tot{j}', reduce_all(sid, f'part{j}'))}"]
