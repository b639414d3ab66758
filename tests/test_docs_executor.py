"""docs/writing-an-executor.md: the doc shows docs/examples/toy_executor.py verbatim, and that
toy executor does what the doc says, differentially against eager PyTorch."""

import dataclasses
import importlib.util
import os
import pathlib
import re
import subprocess
import sys
import textwrap

import pytest
import torch

import thunder_core as tc
import thunder_core.ops  # noqa: F401 - the symbol tables are filled when the op language loads
from thunder_core.extend import API_VERSION, TensorProxy, has_trait, profile, region_of, symbols, torch_impls

ROOT = pathlib.Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "writing-an-executor.md"
MODULE = ROOT / "docs" / "examples" / "toy_executor.py"

_spec = importlib.util.spec_from_file_location("toy_executor", MODULE)
toy = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(toy)

#: Until the op traits land (thunder_core/ir/traits.py from the traits branch), torch-level
#: symbols carry no traits; the toy then sees these as elementwise, as the real traits will.
#: With the real traits this shim is off and the tests run on them unchanged.
REAL_TRAITS = has_trait(symbols()["ltorch.add"], "elementwise")
_ELEMENTWISE = {f"ltorch.{n}" for n in "add sub mul div neg tanh exp sigmoid tanh_backward sigmoid_backward".split()}


@pytest.fixture(autouse=True)
def _torch_level_traits(monkeypatch):
    if not REAL_TRAITS:
        real = toy.has_trait
        monkeypatch.setattr(toy, "has_trait", lambda b, t: real(b, t) or (
            t == "elementwise" and getattr(b, "sym", b).id in _ELEMENTWISE))


def f(x, w, b):
    return torch.tanh(x * w + b) * x


def args(*shape, dtype=torch.float32, requires_grad=False):
    torch.manual_seed(0)
    return [torch.randn(*shape, dtype=dtype, requires_grad=requires_grad) for _ in range(3)]


def toy_regions(trace):
    return [b for b in trace.bound_symbols if b.sym.id.startswith("toy.")]


# ---------------------------------------------------------------- the doc shows the module

def test_the_doc_shows_the_toy_module_verbatim_in_order():
    doc, module = DOC.read_text(), MODULE.read_text()
    blocks = re.findall(r"<!-- docs/examples/toy_executor\.py -->\n```python\n(.*?)```", doc, flags=re.S)
    assert len(blocks) >= 5
    pos = 0
    for block in blocks:
        at = module.find(block, pos)
        assert at >= 0, f"this block of the doc is not the next part of {MODULE.name}:\n{block}"
        assert module[pos:at].strip() == "", f"the doc leaves out this part of {MODULE.name}:\n{module[pos:at]}"
        pos = at + len(block)
    assert module[pos:].strip() == "", f"the doc leaves out the end of {MODULE.name}:\n{module[pos:]}"


# ---------------------------------------------------------------- claims and costs

def test_large_tensors_fuse_into_one_toy_region_matching_eager():
    x, w, b = args(512, 1024)
    jf = tc.jit(f, executors=[toy.TOY, "torch"])
    torch.testing.assert_close(jf(x, w, b), f(x, w, b))
    final = tc.last_traces(jf)[-1]
    assert [b.sym.id.split(".")[0] for b in final.bound_symbols] == ["toy"]
    assert [s.sym.id for s in final.bound_symbols[0].subsymbols] == ["ltorch.mul", "ltorch.add", "ltorch.tanh",
                                                                     "ltorch.mul"]
    assert "-> toy" in tc.explain(jf) and "[4 fused symbols]" in tc.explain(jf)


def test_tiny_tensors_stay_with_the_per_op_torch_executor():
    x, w, b = args(2, 4)
    jf = tc.jit(f, executors=[toy.TOY, "torch"])
    torch.testing.assert_close(jf(x, w, b), f(x, w, b))
    assert toy_regions(tc.last_traces(jf)[-1]) == []
    # the toy's claim was considered and lost on its estimated cost
    assert re.search(r"toy region \d+\.\dus", tc.explain(jf)) and "-> toy" not in tc.explain(jf)


def test_the_claim_cost_is_the_cost_model_plus_the_declared_dispatch_us():
    assert toy.TOY.overhead_us(profile("cpu")) == 20.0
    with pytest.raises(ValueError, match="declares no dispatch_us for h100"):
        toy.TOY.overhead_us(profile("h100"))  # no "cuda" and no "default" entry
    assert toy.TOY.supports(profile("h100")) == "runs on cpu, not cuda"


def test_float64_is_declined_by_the_checker_with_its_reason_in_explain():
    x, w, b = args(512, 1024, dtype=torch.float64)
    jf = tc.jit(f, executors=[toy.TOY, "torch"])
    torch.testing.assert_close(jf(x, w, b), f(x, w, b))
    assert toy_regions(tc.last_traces(jf)[-1]) == []
    assert "declined: toy (ltorch.mul): toy computes in float32, float16 and bfloat16, not torch.float64" \
        in tc.explain(jf)


def test_the_checker_declines_tensors_on_other_devices():
    on = {d: TensorProxy("t0", (2, 3), torch.float32, torch.device(d)) for d in ("cpu", "cuda", "meta")}
    assert toy.check(dataclasses.make_dataclass("B", ["flat_args", "flat_outs"])((on["cpu"],), ())) is None
    for d in ("cuda", "meta"):
        bsym = dataclasses.make_dataclass("B", ["flat_args", "flat_outs"])((on["cpu"],), (on[d],))
        assert toy.check(bsym) == f"toy runs on CPU tensors only, not {d}"


@pytest.mark.parametrize("cache", ["constant values", "symbolic values"])
def test_structurally_identical_regions_compile_once(cache):
    def two_layers(x, w, b, m):
        y = torch.tanh(x * w + b)
        return torch.tanh(torch.mm(y, m) * w + b)

    x, w, b = args(256, 256)
    m = torch.eye(256)
    before = len(toy.COMPILED)
    # symbolic sizes have other names in each region: region_key numbers them instead
    jf = tc.jit(two_layers, executors=[toy.TOY, "torch"], cache=cache)
    torch.testing.assert_close(jf(x, w, b, m), two_layers(x, w, b, m))
    regions = toy_regions(tc.last_traces(jf)[-1])
    assert len(regions) == 2 and regions[0].sym.id != regions[1].sym.id
    assert len(toy.COMPILED) - before <= 1   # one structure: compiled once (or earlier, by another test)
    assert toy.lower(region_of(regions[0])) is toy.lower(region_of(regions[1]))


# ---------------------------------------------------------------- autograd

def test_forward_and_backward_match_eager_and_the_backward_is_claimed_too():
    x, w, b = args(512, 1024, requires_grad=True)
    xe, we, be = (t.detach().clone().requires_grad_() for t in (x, w, b))
    jf = tc.jit(f, executors=[toy.TOY, "torch"])
    out = jf(x, w, b)
    expected = f(xe, we, be)
    torch.testing.assert_close(out, expected)
    g = torch.randn_like(out)
    out.backward(g)
    expected.backward(g)
    for got, want in ((x, xe), (w, we), (b, be)):
        torch.testing.assert_close(got.grad, want.grad)
    assert toy_regions(tc.last_traces(jf)[-1])
    backward = tc.last_backward_traces(jf)[-1]
    assert [b.sym.id.split(".")[0] for b in backward.bound_symbols] == ["toy"]
    assert "ltorch.tanh_backward" in [s.sym.id for s in backward.bound_symbols[0].subsymbols]


def test_fuses_true_lets_the_backward_recompute_cheap_elementwise_values():
    def g(x, w, b):
        y = x * w + b
        return torch.tanh(y) * y

    def saved(executor):
        jf = tc.jit(g, executors=[executor, "torch"])
        out = jf(*args(512, 1024, requires_grad=True))
        out.sum().backward()
        return [p.name for p in tc.last_traces(jf)[-1].output[1]]

    assert saved(toy.TOY) == ["x", "w", "b", "t2"]     # y = x * w + b recomputed in the fused backward
    assert saved(dataclasses.replace(toy.TOY, fuses=False)) == ["x", "w", "t1", "t2"]  # y saved


# ---------------------------------------------------------------- lowering and artifacts

def test_the_source_artifact_is_the_code_that_runs():
    x, w, b = args(512, 1024)
    jf = tc.jit(f, executors=[toy.TOY, "torch"])
    jf(x, w, b)
    region = region_of(tc.last_traces(jf)[-1].bound_symbols[0])
    (art,) = toy.TOY.artifacts(region, profile("cpu"))
    assert art.kind == "source" and art.note == "Python for 4 symbols, cpu"
    assert art.content == textwrap.dedent("""\
        def toy_fused(a0, a1, a2):
            v0 = a0 * a1  # ltorch.mul
            v1 = v0 + a2  # ltorch.add
            v2 = torch.tanh(v1)  # ltorch.tanh
            v3 = v2 * a0  # ltorch.mul
            return (v3,)
        """)
    namespace = {"torch": torch}
    exec(art.content, namespace)
    torch.testing.assert_close(namespace["toy_fused"](x, w, b), toy.lower(region)(x, w, b))


def test_generated_code_binds_what_it_cannot_print_and_calls_torch_functions_with_keywords():
    def g(x, w):
        return torch.nn.functional.gelu(x * w, approximate="tanh") * 2 - float("inf")

    with pytest.MonkeyPatch.context() as mp:
        if not REAL_TRAITS:
            real = toy.has_trait
            mp.setattr(toy, "has_trait", lambda b, t: real(b, t) or (
                t == "elementwise" and getattr(b, "sym", b).id in _ELEMENTWISE | {"ltorch.gelu"}))
        x, w, _ = args(512, 1024)
        jg = tc.jit(g, executors=[toy.TOY, "torch"])
        torch.testing.assert_close(jg(x, w), g(x, w))
        (r,) = toy_regions(tc.last_traces(jg)[-1])
        source, namespace = toy.generate(region_of(r))
    assert "v1 = f1(v0, approximate='tanh')  # ltorch.gelu" in source
    assert namespace["f1"] is torch_impls()["ltorch.gelu"]
    assert [v for k, v in namespace.items() if k.startswith("c")] == [float("inf")]


def test_plan_collects_the_source_artifacts_without_running_anything():
    x, w, b = args(512, 1024)
    before = len(toy.COMPILED)
    plan = tc.plan(f, x, w, b, target="cpu", executors=[toy.TOY, "torch"])
    assert len(toy.COMPILED) == before  # nothing lowered
    [(name, arts)] = plan.artifacts.items()
    assert plan.regions[name][0] == "toy" and [a.kind for a in arts] == ["source"]
    assert "def toy_fused(a0, a1, a2):" in arts[0].content
    with pytest.raises(ValueError, match="runs on cpu, not cuda"):
        tc.plan(f, x, w, b, target="h100", executors=[toy.TOY, "torch"])


# ---------------------------------------------------------------- registration

def test_the_hook_returns_the_toy_executor():
    assert toy.thunder_core_executors() == [toy.TOY]
    assert toy.TOY.api_version == toy.THUNDER_CORE_API == API_VERSION
    assert toy.TOY.fuses and not toy.TOY.fallback and toy.TOY.unavailable() is None


def test_an_installed_toy_registers_through_its_entry_point(tmp_path):
    # what `pip install` of the doc's pyproject leaves behind: a dist-info with the entry point
    info = tmp_path / "thunder_executor_toy-0.1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: thunder-executor-toy\nVersion: 0.1.0\n")
    (info / "entry_points.txt").write_text("[thunder_core]\ntoy = toy_executor\n")
    script = textwrap.dedent("""
        import torch, thunder_core as tc
        from thunder_core import plugins
        toy = plugins.executors()["toy"]
        x = torch.randn(4, 4)
        jf = tc.jit(lambda x: x * 2 + 1, executors=["toy", "torch"])
        torch.testing.assert_close(jf(x), x * 2 + 1)
        print(toy.name, toy.version, [r.distribution for r in plugins.registry().records if r.name == "toy"])
    """)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), str(MODULE.parent),
                                                        os.environ.get("PYTHONPATH", "")])}
    run = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, cwd=ROOT,
                         timeout=300)
    assert run.returncode == 0, run.stderr
    assert run.stdout.split("\n")[0] == "toy 0.1.0 ['thunder-executor-toy']"
