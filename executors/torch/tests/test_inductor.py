"""The inductor executor: fused regions compiled with torch.compile, chosen by cost."""

import pytest
import torch

import thunder_core as tc
from thunder_core.examples.models import GPTBlock

pytest.importorskip("torch._inductor")


def chain(x, w, b):
    y = torch.nn.functional.gelu(x) * w + b
    mu = y.mean(-1, keepdim=True)
    var = ((y - mu) ** 2).mean(-1, keepdim=True)
    return (y - mu) * torch.rsqrt(var + 1e-5)


def test_large_elementwise_chain_is_one_fused_region_and_matches_eager():
    x, w, b = torch.randn(256, 512), torch.randn(512), torch.randn(512)
    jf = tc.jit(chain, executors=["inductor", "torch"])
    torch.testing.assert_close(jf(x, w, b), chain(x, w, b), atol=1e-4, rtol=1e-4)
    final = tc.last_traces(jf)[-1]
    assert [b.sym.id.split(".")[0] for b in final.bound_symbols] == ["inductor"]
    assert "-> inductor" in tc.explain(jf)


def test_tiny_tensors_stay_with_torch_when_cheaper():
    x, w, b = torch.randn(2, 4), torch.randn(4), torch.randn(4)
    jf = tc.jit(lambda x, w, b: x * w + b, executors=["inductor", "torch"])
    jf(x, w, b)
    assert set(jf._last.executors_used.values()) == {"torch"}


def test_identical_layer_regions_compile_once_and_gradients_match(monkeypatch):
    import dataclasses

    from thunder_core.extend import registry
    from thunder_executor_torch import inductor

    # fuse even these small layers (this test is about reuse)
    cheap = dataclasses.replace(registry().executors["inductor"], dispatch_us=1.0)
    monkeypatch.setattr(inductor, "COMPILE_AMORTIZED_US", 0.0)
    torch.manual_seed(0)
    blocks = torch.nn.Sequential(GPTBlock(64, 4), GPTBlock(64, 4))
    ref = torch.nn.Sequential(GPTBlock(64, 4), GPTBlock(64, 4))
    ref.load_state_dict(blocks.state_dict())
    x = torch.randn(2, 32, 64)
    jm = tc.jit(blocks, executors=[cheap, "torch"])
    before = len(inductor._COMPILED)
    out = jm(x)
    torch.testing.assert_close(out, ref(x), atol=1e-4, rtol=1e-4)
    executed = (tc.last_traces(jm)[-1], tc.last_backward_traces(jm)[-1])
    regions = [b for t in executed for b in t.bound_symbols if b.sym.id.startswith("inductor.")]
    assert len(regions) >= 4
    # layer 2 reuses layer 1's compiled regions, forward and backward; the regions at each end
    # of the forward and of the backward may differ (the model's input does not require grad,
    # the first backward region starts from the given cotangent, the last one ends the chain)
    assert len(inductor._COMPILED) - before <= len(regions) // 2 + 4
    out.sum().backward()
    ref(x).sum().backward()
    for p, q in zip(blocks.parameters(), ref.parameters()):
        torch.testing.assert_close(p.grad, q.grad, atol=1e-4, rtol=1e-4)


def test_a_region_taking_a_number_drawn_on_every_call_compiles_at_most_twice(monkeypatch):
    # x * random.random(): the number is an input of the region that changes on every call;
    # dynamic=False would compile the region again for each one (issue 21)
    import dataclasses
    import random

    import torch._dynamo.utils as dynamo_utils

    from thunder_core.extend import registry
    from thunder_executor_torch import inductor

    cheap = dataclasses.replace(registry().executors["inductor"], dispatch_us=1.0)
    monkeypatch.setattr(inductor, "COMPILE_AMORTIZED_US", 0.0)

    def f(x):
        return (x * random.random()).sin() + 1

    x = torch.randn(64)
    jf = tc.jit(f, executors=[cheap, "torch"])
    before = dynamo_utils.counters["stats"]["unique_graphs"]
    random.seed(0)
    got = [jf(x) for _ in range(4)]
    random.seed(0)
    for g in got:
        torch.testing.assert_close(g, f(x))
    assert "-> inductor" in tc.explain(jf) and tc.cache_misses(jf) == 1
    assert dynamo_utils.counters["stats"]["unique_graphs"] - before <= 2
