"""The conformance kit's discovery finds claims the float32 (2, 3) probe cannot show: an
executor that takes only half-precision 4-d attention (as cuDNN's does) is probed again in
bfloat16/float16 and with PyTorch's OpInfo samples, and its tests use the call it claimed."""

from __future__ import annotations

import pytest
import torch

pytest.importorskip("hypothesis")
pytest.importorskip("expecttest")

from thunder_core.extend import API_VERSION, Executor, TensorProxy  # noqa: E402
from thunder_core.testing.conformance import discovery  # noqa: E402

SDPA = "ltorch.scaled_dot_product_attention"


def check(bsym):
    ts = [p for p in bsym.flat_args if isinstance(p, TensorProxy)]
    if any(t.dtype not in (torch.float16, torch.bfloat16) for t in ts):
        return "half precision only"
    if any(t.ndim != 4 for t in ts):
        return "4-d (batch, heads, seq, head_dim) only"
    return None


def claim(bsyms, ctx):
    for i, b in enumerate(bsyms):
        if b.sym.id == SDPA and ctx.check(b) is None:
            yield ctx.claim(i, i + 1, ctx.region_us(ctx.region(i, i + 1)), None, "attention")


HALF_ATTENTION = Executor("half_attention", version="0", api_version=API_VERSION, device_types=("cuda",),
                          dispatch_us={"default": 5.0}, check=check, claim=claim, fuses=False)


def test_random_symbols_are_candidates_only_when_planning():
    assert SDPA not in {o.symbol.id for o in discovery.select("scaled_dot_product_attention")}
    assert SDPA in {o.symbol.id for o in discovery.select("scaled_dot_product_attention", "h100")}


def test_half_precision_4d_claim_is_found_with_the_call_it_claimed():
    claims = discovery.discover(HALF_ATTENTION, discovery.select("scaled_dot_product_attention,exp", "h100"), "h100")
    assert claims.symbols == [SDPA], claims.report()
    fn, args = claims.probes[SDPA]
    assert all(a.ndim == 4 and a.dtype in (torch.float16, torch.bfloat16) for a in args[:3]), \
        [(a.shape, a.dtype) for a in args]
    trace, _ = discovery.trace_of((fn, args), "h100")
    assert [b.sym.id for b in trace.bound_symbols if b.sym.id == SDPA]
    assert SDPA not in claims.partial
