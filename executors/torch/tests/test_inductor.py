"""The inductor executor: fused regions compiled by inductor, chosen by cost, compiled in the
background while they run op by op (tiered execution) unless wait_for_compile=True."""

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
    jf = tc.jit(chain, executors=["inductor", "torch"], wait_for_compile=True)
    torch.testing.assert_close(jf(x, w, b), chain(x, w, b), atol=1e-4, rtol=1e-4)
    final = tc.last_traces(jf)[-1]
    assert [b.sym.id.split(".")[0] for b in final.bound_symbols] == ["inductor"]
    assert "-> inductor" in tc.explain(jf)
    (t,) = jf._last.tiered
    assert t.state == "compiled" and t.per_op_calls == 0


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
    jm = tc.jit(blocks, executors=[cheap, "torch"], wait_for_compile=True)
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


def test_background_compile_swaps_in_while_every_call_equals_eager():
    """The default: the first call does not wait for inductor; calls run op by op until the
    compile is ready, then compiled; each call, forward and gradients, equals eager."""
    torch.manual_seed(0)
    x, w, b = torch.randn(64, 128), torch.randn(128), torch.randn(128)
    jf = tc.jit(chain, executors=["inductor", "torch"])
    for i in range(8):
        xs, ws, bs = (t.clone().requires_grad_() for t in (x, w, b))
        xe, we, be = (t.clone().requires_grad_() for t in (x, w, b))
        out, ref = jf(xs, ws, bs), chain(xe, we, be)
        torch.testing.assert_close(out, ref, atol=1e-4, rtol=1e-4)
        out.sum().backward()
        ref.sum().backward()
        for got, want in ((xs.grad, xe.grad), (ws.grad, we.grad), (bs.grad, be.grad)):
            torch.testing.assert_close(got, want, atol=1e-4, rtol=1e-4)
        if i == 0:
            assert all(t.state == "compiling" for t in jf._last.tiered) and jf._last.tiered
        if i == 3:
            assert tc.wait_for_compiles(300)
    assert all(t.state == "compiled" for t in jf._last.tiered), tc.explain(jf)
    assert all(t.name in tc.explain(jf) for t in jf._last.tiered)


def test_a_compile_on_another_thread_leaves_the_random_stream_and_nn_module_alone():
    """What inductor does to the whole process while it compiles (torch.fx's patches of
    nn.Module.__call__, restoring the default generator's state at the end) happens to the
    compiling thread only: the main thread's random stream goes on as if nothing compiled."""
    import threading

    import torch.fx._symbolic_trace as st
    from torch._dynamo.utils import preserve_rng_state  # noqa: F401 - the name inductor calls

    from thunder_executor_torch import inductor

    original_call = torch.nn.Module.__call__
    inside, leave, seen = threading.Event(), threading.Event(), {}

    def compiling():
        import torch._dynamo.utils as dynamo_utils

        with inductor._thread_local_effects(), dynamo_utils.preserve_rng_state(), st._new_patcher() as patcher:
            patcher.patch_method(torch.nn.Module, "__call__", lambda *a, **k: None, deduplicate=False)
            seen["patched here"] = torch.nn.Module.__call__ is not original_call
            inside.set()
            leave.wait(30)

    torch.manual_seed(0)
    want = torch.rand(6)
    torch.manual_seed(0)
    got = [torch.rand(2)]
    t = threading.Thread(target=compiling)
    t.start()
    assert inside.wait(30)
    assert torch.nn.Module.__call__ is original_call and seen["patched here"] is False
    got.append(torch.rand(2))
    leave.set()
    t.join(30)
    got.append(torch.rand(2))  # a restored state would repeat the draws made meanwhile
    assert torch.equal(torch.cat(got), want)


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
