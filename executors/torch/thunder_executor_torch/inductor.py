"""The ``inductor`` executor: fuses regions of the trace with ``torch.compile``.

It claims maximal runs of fusible torch-level symbols (elementwise math and activations,
dtype conversions, reductions, shape and normalisation ops; not matmuls/convolutions, which
run as library kernels either way, nor random ops, in-place ops or opaque ones) and lowers
each region to a function compiled by ``torch.compile``. Regions with the same structure and
metadata (one per transformer layer) share one compiled function, so they compile once.

The cost model charges a region the bytes crossing its boundary (intermediates never reach
memory) plus one kernel launch and this executor's per-call overhead, so fusion wins where
memory traffic dominates (large elementwise chains) and loses on tiny tensors.
"""

from __future__ import annotations

import torch

from thunder_core.execution.claims import Claim, region_boundary, region_callable, region_symbol
from thunder_core.ir import Proxy, TensorProxy

#: what inductor fuses, by op traits (thunder_core.ir.traits): ops with one of FUSIBLE_TRAITS
#: and none of UNFUSED_TRAITS (random draws, writes, opaque calls, and normalizations, whose
#: aten kernels (layer_norm...) beat the code inductor generates for them here)
FUSIBLE_TRAITS = frozenset({"elementwise", "reduction", "shape", "view"})
UNFUSED_TRAITS = frozenset({"random", "inplace", "normalization", "opaque"})
#: per-call overhead of a compiled region on CPU (Python wrapper, guards), µs
DISPATCH_US = 40.0
#: A region's compile (about a second on CPU), charged per call as if spread over ~100,000
#: calls: a region wins only where it saves more than this per call, so a region saving a few
#: µs never makes a first call take seconds (tc.explain shows the claim with it included).
COMPILE_AMORTIZED_US = 10.0
_COMPILED: dict = {}  # region signature -> compiled callable


def _fusible(bsym) -> bool:
    from thunder_core.ops import TORCH_IMPLS

    tags = bsym.sym.tags
    # decided by the op's traits, wherever it is defined (plugins included); a region runs
    # each op's torch implementation, so only torch-level ops with one can join it
    return (not tags.isdisjoint(FUSIBLE_TRAITS) and tags.isdisjoint(UNFUSED_TRAITS)
            and bsym.sym.id in TORCH_IMPLS and bsym.sym.id != "ltorch.contiguous")


def claim(bsyms, model, last_use):
    """One claim per maximal run of fusible symbols (of at least two)."""
    out, i, n = [], 0, len(bsyms)
    while i < n:
        if not _fusible(bsyms[i]):
            i += 1
            continue
        j = i
        while j < n and _fusible(bsyms[j]):
            j += 1
        if j - i >= 2:
            region = bsyms[i:j]
            inputs, outputs = region_boundary(region, j, last_use)
            if outputs:
                cost = model.region_us(region, [*inputs, *outputs], model.dispatch_us.get("inductor", DISPATCH_US))
                out.append(Claim("inductor", i, j, cost + COMPILE_AMORTIZED_US, lower, f"{j - i} fused symbols"))
        i = j
    return out


def _signature(bsyms, inputs, outputs):
    """Structure and metadata of a region, independent of proxy names."""
    index = {id(p): k for k, p in enumerate(inputs)}

    def enc(x):
        if isinstance(x, TensorProxy):
            return ("T", index.get(id(x)), tuple(x.shape), x.dtype, x.device, x.requires_grad)
        if isinstance(x, Proxy):
            return ("P", index.get(id(x)))
        if isinstance(x, (tuple, list)):
            return (type(x).__name__, tuple(enc(y) for y in x))
        if isinstance(x, dict):
            return ("dict", tuple((k, enc(v)) for k, v in x.items()))
        return ("C", repr(x))

    parts = []
    for b in bsyms:
        for p in b.flat_outs:
            index.setdefault(id(p), len(index))
        parts.append((b.sym.id, enc(b.args), enc(dict(b.kwargs)), enc(b.output)))
    return (tuple(parts), tuple(index[id(p)] for p in outputs))


def lower(bsyms, inputs, outputs):
    from thunder_core.ops import TORCH_IMPLS

    key = _signature(bsyms, inputs, outputs)
    fn = _COMPILED.get(key)
    if fn is None:
        fn = _COMPILED[key] = torch.compile(region_callable(bsyms, inputs, outputs, TORCH_IMPLS), dynamic=False)
    return region_symbol("inductor", bsyms, inputs, outputs), fn


def unavailable():
    try:
        import torch._inductor  # noqa: F401
    except Exception as e:  # noqa: BLE001
        return f"torch._inductor cannot be imported: {e}"
    return None
