"""The ``inductor`` executor: fuses regions of the trace with ``torch.compile``.

It claims maximal runs of fusible torch-level symbols (elementwise math and activations,
dtype conversions, reductions, shape ops and views, chosen by their traits; not normalizations, whose aten kernels beat the generated code here, nor matmuls/convolutions, which
run as library kernels either way, nor random ops, in-place ops or opaque ones) and lowers
each region to a function compiled by ``torch.compile``. Regions with the same structure and
metadata (one per transformer layer) share one compiled function, so they compile once.

The cost model charges a region the bytes crossing its boundary (intermediates never reach
memory) plus one kernel launch and this executor's per-call overhead, so fusion wins where
memory traffic dominates (large elementwise chains) and loses on tiny tensors.
"""

from __future__ import annotations

import torch

from thunder_core.extend import TensorProxy, region_callable, region_key, torch_impls

#: what inductor fuses, by op traits (thunder_core.extend.TRAITS): ops with one of FUSIBLE_TRAITS
#: and none of UNFUSED_TRAITS (random draws, writes, opaque calls, and normalizations, whose
#: aten kernels (layer_norm...) beat the code inductor generates for them here)
FUSIBLE_TRAITS = frozenset({"elementwise", "reduction", "shape", "view"})
UNFUSED_TRAITS = frozenset({"random", "inplace", "normalization", "opaque"})
#: per-call overhead of a compiled region (Python wrapper, guards), µs: measured on a 2-core
#: CPU; on CUDA the same host-side work (not measured here: no GPU)
DISPATCH_US = {"cpu": 40.0, "cuda": 40.0}
#: A region's compile (about a second on CPU), charged per call as if spread over ~100,000
#: calls: a region wins only where it saves more than this per call, so a region saving a few
#: µs never makes a first call take seconds (tc.explain shows the claim with it included).
COMPILE_AMORTIZED_US = 10.0
_COMPILED: dict = {}  # (region signature, input strides, autograd) -> compiled callable


def _fusible(bsym) -> bool:
    tags = bsym.sym.tags
    # decided by the op's traits, wherever it is defined (plugins included); a region runs
    # each op's torch implementation, so only torch-level ops with one can join it
    return (not tags.isdisjoint(FUSIBLE_TRAITS) and tags.isdisjoint(UNFUSED_TRAITS)
            and bsym.sym.id in torch_impls() and bsym.sym.id != "ltorch.contiguous")


def claim(bsyms, ctx):
    """One claim per maximal run of fusible symbols (of at least two) that produces a value
    used after it."""
    i, n = 0, len(bsyms)
    while i < n:
        if not (_fusible(bsyms[i]) and ctx.check(bsyms[i]) is None):
            i += 1
            continue
        j = i
        while j < n and _fusible(bsyms[j]) and ctx.check(bsyms[j]) is None:
            j += 1
        if j - i >= 2:
            region = ctx.region(i, j)
            if region.outputs:
                yield ctx.claim(i, j, ctx.region_us(region) + COMPILE_AMORTIZED_US, lower, f"{j - i} fused symbols")
        i = j


def lower(region):
    """The region compiled by inductor for inputs like ``region.example_inputs`` (zero-filled
    tensors of the first call's shapes and strides, given by tiered execution; contiguous ones
    made from the proxies otherwise). Regions of one structure, strides and grad mode share
    one compile. Called on the compile thread (``compiles=True``): this compiles at once."""
    examples = region.example_inputs
    if examples is None:
        examples = tuple(_example(p) for p in region.inputs)
    grad = torch.is_grad_enabled() and any(isinstance(x, torch.Tensor) and x.requires_grad for x in examples)
    key = (region_key(region), tuple(x.stride() if isinstance(x, torch.Tensor) else None for x in examples), grad)
    fn = _COMPILED.get(key)
    if fn is None:
        fn = _COMPILED[key] = _compile(region, examples)
    return fn


def _example(p):
    if not isinstance(p, TensorProxy):
        return p.value
    t = torch.zeros(tuple(p.shape), dtype=p.dtype, device=p.device)
    return t.requires_grad_() if p.requires_grad else t


def _compile(region, examples):
    """make_fx + inductor's compile_fx: no dynamo frame, so a call costs inductor's runtime
    wrapper only (torch.compile adds its guards and frame handling: ~4x the overhead here)."""
    from torch._inductor.compile_fx import compile_fx
    from torch.fx.experimental.proxy_tensor import make_fx

    per_op = region_callable(region, torch_impls())
    gm = make_fx(per_op, tracing_mode="fake")(*examples)
    compiled = compile_fx(gm, list(examples))
    # what the compile specialised on besides tensors' metadata (which inductor's generated
    # code asserts: a call with other sizes or strides raises AssertionError)
    numbers = [(i, x) for i, x in enumerate(examples) if not isinstance(x, torch.Tensor)]

    if numbers:
        def run(*args):
            if any(args[i] != v for i, v in numbers):
                return per_op(*args)
            try:
                return tuple(compiled(*args))
            except AssertionError:
                return per_op(*args)
    else:
        def run(*args):
            try:
                return tuple(compiled(*args))
            except AssertionError:  # sizes or strides other than the compile's: run op by op
                return per_op(*args)
    return run


def unavailable():
    try:
        import torch._inductor  # noqa: F401
    except Exception as e:  # noqa: BLE001
        return f"torch._inductor cannot be imported: {e}"
    return None
