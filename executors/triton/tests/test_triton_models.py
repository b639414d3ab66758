"""The example models: forward and backward under Triton's interpreter against eager, and
tc.plan for an H100 with an ahead-of-time cubin for every Triton region."""

import pytest
import torch
from torch._subclasses.fake_tensor import FakeTensorMode

import thunder_core as tc
from thunder_core.examples.models import CNN, MLP, GPTBlock, LlamaBlock
from thunder_executor_triton.plugin import TRITON
from triton_helpers import TRITON_HERE, codegen_target, triton_regions

CASES = {
    "MLP": (MLP, (8, 32)),
    "CNN": (CNN, (2, 3, 16, 16)),
    "GPTBlock": (GPTBlock, (2, 8, 64)),
    "LlamaBlock": (LlamaBlock, (2, 32, 64)),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_model_forward_and_backward_match_eager(name):
    make, shape = CASES[name]
    torch.manual_seed(0)
    model = make()
    x = torch.randn(shape)
    jm = tc.jit(model, executors=[TRITON_HERE, "torch"])
    out = jm(x)
    torch.testing.assert_close(out, model(x), rtol=1e-5, atol=1e-5)
    out.sum().backward()
    ours = {n: p.grad.clone() for n, p in model.named_parameters()}
    model.zero_grad()
    model(x).sum().backward()
    for n, p in model.named_parameters():
        torch.testing.assert_close(ours[n], p.grad, rtol=1e-4, atol=1e-5, msg=n)
    assert triton_regions(tc.last_traces(jm)[-1]) and triton_regions(tc.last_backward_traces(jm)[-1])


@pytest.mark.parametrize("name", sorted(CASES))
def test_model_plans_for_h100_with_a_cubin_per_triton_region(name):
    make, shape = CASES[name]
    # LlamaBlock adds a float32 mask to its scores, so it is not bf16-clean (eager fails too)
    dtype = torch.float32 if name == "LlamaBlock" else torch.bfloat16
    torch.manual_seed(0)
    model = make().to(dtype)
    with FakeTensorMode():
        x = torch.randn(shape, device="cuda", dtype=dtype)
    p = tc.plan(model, x, target=codegen_target("h100"), executors=[TRITON, "torch"])
    names = [n for n, (ex, _) in p.regions.items() if ex == "triton"]
    assert names
    for n in names:
        assert any(a.kind == "cubin" and a.content[:4] == b"\x7fELF" for a in p.artifacts[n]), n
