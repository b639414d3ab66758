"""tc.plan: trace and partition for a target device without running anything (fake cuda here)."""

import pytest
import torch
from torch._subclasses.fake_tensor import FakeTensorMode

import thunder_core as tc
from thunder_core import extend as tx
from thunder_core.examples.models import GPT

GELU_CHAIN = ("ltorch.mul", "ltorch.add", "ltorch.gelu", "ltorch.tanh", "ltorch.sub")
LOWERED = []


def _claim(bsyms, ctx):
    i = 0
    while i < len(bsyms):
        j = i
        while j < len(bsyms) and bsyms[j].sym.id in GELU_CHAIN and ctx.check(bsyms[j]) is None:
            j += 1
        if j - i >= 2:
            region = ctx.region(i, j)
            yield ctx.claim(i, j, ctx.region_us(region) / 10, _lower, "gpu chain")
        i = max(j, i + 1)


def _lower(region):
    LOWERED.append(region)
    raise AssertionError("tc.plan must not lower regions")


def _artifacts(region, target):
    ops = " ".join(b.sym.id for b in region.bsyms)
    yield tx.Artifact("source", f"// {target.name}: {ops}", note=f"{len(region.inputs)} inputs")


GPU_ONLY = tx.Executor("gpuonly", device_types=("cuda",), unavailable=lambda: "needs a CUDA device",
                       dispatch_us={"cuda": 3.0}, claim=_claim, fuses=True, artifacts=_artifacts,
                       api_version=tx.API_VERSION)
CPU_ONLY = tx.Executor("cpuonly", implementations=lambda: {}, device_types=("cpu",), api_version=tx.API_VERSION)


def f(x, w):
    h = x @ w
    return torch.tanh(torch.nn.functional.gelu(h * 2 + 1)) - h


def fake_cuda(*shapes, dtype=torch.float32):
    with FakeTensorMode():
        return [torch.randn(*s, device="cuda", dtype=dtype) for s in shapes]


def test_plan_for_h100_with_fake_cuda_inputs_runs_nothing(monkeypatch):
    monkeypatch.setattr(torch, "compile", lambda *a, **k: pytest.fail("tc.plan compiled something"))
    x, w = fake_cuda((64, 256), (256, 256))
    p = tc.plan(f, x, w, target="h100", executors=[GPU_ONLY, "torch"])
    assert p.target.name == "h100" and p.executors == ["gpuonly", "torch"]
    final = p.traces[-1]
    tensors = [a for a in final.args if isinstance(a, tx.TensorProxy)]
    assert len(tensors) == 2 and all(a.device.type == "cuda" for a in tensors)
    # planned as tc.jit runs it: sizes symbolic, w's rows one symbol with x's columns (the matmul's guard)
    assert [repr(s) for s in (*tensors[0].shape, *tensors[1].shape)] == ["x_0", "x_1", "x_1", "w_1"]
    (name, (ex, region)), = p.regions.items()
    assert ex == "gpuonly" and [b.sym.id for b in region.bsyms][:2] == ["ltorch.mul", "ltorch.add"]
    assert name in final.python() and not LOWERED
    (art,) = p.artifacts[name]
    assert art.kind == "source" and art.content.startswith("// h100: ltorch.mul ltorch.add")
    assert "estimated total on h100" in p.explain() and "gpuonly" in p.explain()
    # the same function cannot be jitted here with that executor: it cannot run on this machine
    with pytest.raises(RuntimeError, match="needs a CUDA device"):
        tc.jit(f, executors=[GPU_ONLY, "torch"])


def test_plan_with_constant_values_is_for_the_example_shapes():
    x, w = fake_cuda((64, 256), (256, 256))
    p = tc.plan(f, x, w, target="h100", executors=[GPU_ONLY, "torch"], cache="constant values")
    assert [tuple(a.shape) for a in p.traces[-1].args] == [(64, 256), (256, 256)]
    with pytest.raises(ValueError, match="cache="):
        tc.plan(f, x, w, target="h100", cache="sometimes")


def test_plan_uses_only_executors_for_the_target():
    x, w = fake_cuda((8, 16), (16, 16))
    with pytest.raises(ValueError, match="cpuonly.*cannot plan for h100.*runs on cpu, not cuda"):
        tc.plan(f, x, w, target="h100", executors=[CPU_ONLY, "torch"])
    p = tc.plan(f, x, w, target="h100")   # every installed executor that compiles for cuda
    assert "torch" in p.executors and p.executors[-1] == "torch"  # the fallback last
    installed = tx.registry().executors
    for name in p.executors:
        assert installed[name].supports(tx.profile("h100")) is None


def test_plan_of_the_demo_model_with_autograd_on_h100():
    """The demo's GPT with fake cuda inputs: real CPU parameters are faked on cuda (the model
    itself is untouched), the trace splits for autograd, and nothing runs."""
    torch.manual_seed(0)
    model = GPT(vocab=256, block_size=64, n_layer=2, n_embd=64, n_head=4)
    before = {k: v.clone() for k, v in model.state_dict().items()}
    with FakeTensorMode():
        idx = torch.randint(0, 256, (4, 32), device="cuda")
    p = tc.plan(model, idx, target="h100")
    assert p.backward_traces, "parameters require grad: the plan has a backward"
    fwd = p.traces[-1]
    assert all(a.device.type == "cuda" for a in fwd.args if isinstance(a, tx.TensorProxy))
    assert set(p.owner.values()) <= set(p.executors)
    assert next(model.parameters()).device.type == "cpu"
    assert all(torch.equal(v, model.state_dict()[k]) for k, v in before.items())
    with torch.no_grad():
        q = tc.plan(model, idx, target="b200")
    assert not q.backward_traces and "estimated total on b200" in q.explain()


def test_costs_follow_the_target_profile():
    """A large matmul is estimated far faster on an H100 than on this CPU's profile, and
    bfloat16 faster than float32 on the H100 (tensor cores)."""
    x, w = fake_cuda((4096, 4096), (4096, 4096))
    t32 = tc.plan(lambda a, b: a @ b, x, w, target="h100", executors=["torch"])._explanation.total_us
    xb, wb = fake_cuda((4096, 4096), (4096, 4096), dtype=torch.bfloat16)
    t16 = tc.plan(lambda a, b: a @ b, xb, wb, target="h100", executors=["torch"])._explanation.total_us
    cpu = tc.plan(lambda a, b: a @ b, torch.randn(4096, 4096), torch.randn(4096, 4096), target="cpu",
                  executors=["torch"])._explanation.total_us
    flops = 2 * 4096 ** 3
    assert t32 == pytest.approx(flops / 67e6 + 3.0 + 8.0, rel=1e-3)   # 67 TFLOP/s fp32, launch, dispatch
    assert t16 < t32 / 10 and cpu > 100 * t32


def test_unknown_target_names_the_known_ones():
    with pytest.raises(ValueError, match="Known device profiles: cpu, a100, h100, b200"):
        tc.plan(f, torch.randn(2, 2), torch.randn(2, 2), target="tpu")


def test_addmm_is_priced_by_its_contracted_size_not_its_bias():
    # addmm(bias, mat1, mat2): the first tensor is the bias; pricing read the contracted size
    # off it (N, not K), 4x too dear for a GPT-2 MLP projection, and inductor then left it out
    from thunder_core.execution.cost import CostModel

    x, w, b = fake_cuda((256, 128), (128, 512), (512,))
    q = tc.plan(lambda b, x, w: torch.addmm(b, x, w), b, x, w, target="h100", executors=["torch"])
    (call,) = [s for s in q.traces[0].bound_symbols if s.sym.id == "ltorch.addmm"]
    assert CostModel("h100").flops(call) == 2 * 256 * 512 * 128


def test_a_decomposition_solved_once_per_structure_is_priced_for_each_size():
    # a T5 encoder's and decoder's projections have one structure (symbolic sizes are keyed
    # by which are equal) but different sizes: the decoder's cheaper cover was reused for the
    # encoder's, which then chose a decomposition no fusing executor could take
    w = torch.randn(128, 128)

    def f(a, b):
        return torch.nn.functional.linear(a, w).sum() + torch.nn.functional.linear(b, w).sum()

    jf = tc.jit(f, executors=["torch"])
    jf(torch.randn(4, 64, 128), torch.randn(4, 8, 128))
    costs = [d.cost_us for d in jf._last.explanation.decisions if d.where.startswith("ltorch.linear")]
    assert len(costs) == 2 and costs[0] > 4 * costs[1], costs
