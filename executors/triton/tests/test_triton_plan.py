"""tc.plan for CUDA targets: Triton regions compiled ahead of time to PTX and cubin, no GPU."""

import os
import subprocess
import sys
import textwrap
from importlib import metadata
from pathlib import Path

import pytest
import torch
from torch._subclasses.fake_tensor import FakeTensorMode

import thunder_core as tc
from thunder_core.examples.models import GPT, GPTBlock
from thunder_executor_triton.plugin import TRITON
from triton_helpers import codegen_target

ROOT = Path(__file__).resolve().parents[3]


def coverage(p) -> tuple[int, int, list]:
    """(covered, total, uncovered ids): the top-level non-matmul compute symbols (elementwise,
    reduction, normalization traits) of the forward and backward traces before partitioning,
    and how many of them run entirely in Triton regions (themselves, or their decomposition)."""
    from thunder_core.extend import traits

    in_triton = {id(b) for ex, region in p.regions.values() if ex == "triton" for b in region.bsyms}

    def covered(b):
        if id(b) in in_triton:
            return True
        compute = [s for s in b.subsymbols if traits(s) - {"view", "shape"}]
        return bool(compute) and all(covered(s) for s in compute)

    tops = [b for t in (p.traces[-2], p.backward_traces[0]) for b in t.bound_symbols
            if traits(b) & {"elementwise", "reduction", "normalization"} and "matmul" not in traits(b)]
    missed = [b.sym.id for b in tops if not covered(b)]
    return len(tops) - len(missed), len(tops), missed


def test_measured_overhead_keeps_tiny_regions_with_torch_and_gives_large_ones_to_triton():
    """On an H100 a Triton region's call costs ~37 µs of host time (measured: DISPATCH_US):
    three tiny elementwise ops cost less one by one through torch; the same chain over 8192 x
    8192 bfloat16 saves two round trips through memory and goes to Triton."""
    def f(x):
        return torch.exp(x * 2 + 1)

    owners = []
    for shape in ((64, 128), (8192, 8192)):
        with FakeTensorMode():
            x = torch.randn(*shape, device="cuda", dtype=torch.bfloat16)
        p = tc.plan(f, x, target="h100", executors=[TRITON, "torch"])
        owners.append(sorted({ex for ex, _ in p.regions.values()}))
    assert owners == [[], ["triton"]], owners


def plan_gpt_block(target="h100"):
    torch.manual_seed(0)
    model = GPTBlock(n_embd=64, n_head=4).to(torch.bfloat16)
    with FakeTensorMode():
        x = torch.randn(4, 32, 64, device="cuda", dtype=torch.bfloat16)
    return tc.plan(model, x, target=codegen_target(target), executors=[TRITON, "torch"])


def _triton_regions_have_cubins(p, sm=".target sm_90a"):
    triton = {name: region for name, (ex, region) in p.regions.items() if ex == "triton"}
    assert triton, p.explain()
    for name in triton:
        kinds = {a.kind: a for a in p.artifacts[name]}
        assert kinds["cubin"].content[:4] == b"\x7fELF"
        assert sm in kinds["ptx"].content
        assert "@triton.jit" in kinds["source"].content
        assert "num_warps=" in kinds["cubin"].note and "registers=" in kinds["cubin"].note
        assert "BLOCK" in kinds["autotune"].content
    # matmuls stay with the library kernels
    assert not any("matmul" in b.sym.tags or b.sym.id == "ltorch.linear" for r in triton.values() for b in r.bsyms)
    return triton


def test_gpt_block_on_h100_gets_triton_kernels_with_cubins():
    p = plan_gpt_block("h100")
    triton = _triton_regions_have_cubins(p)
    fused = {b.sym.id for r in triton.values() for b in r.bsyms}
    assert {"ltorch.add", "ltorch.gelu", "ltorch.gelu_backward", "ltorch.layer_norm"} <= fused, fused
    notes = " ".join(a.note for arts in p.artifacts.values() for a in arts)
    assert "pointwise kernel" in notes and "row kernel" in notes and "reduction kernel" in notes
    # all 13 non-matmul compute symbols: both layer norms (one with the residual add), gelu,
    # the adds; in the backward gelu_backward, a recomputed add, the four bias gradients'
    # sums over rows, and both layer_norm_backward, each one kernel (input gradient per row,
    # weight and bias gradients over all rows)
    done, total, missed = coverage(p)
    assert (done, total, missed) == (14, 14, []), (done, total, missed)  # (autograd.add_cotangent is one)
    assert sum("layer_norm_backward" in b.sym.id for r in triton.values() for b in r.bsyms) == 2


def test_two_layer_gpt_with_its_loss_on_h100_is_all_triton_but_the_matmuls():
    """The 2-layer GPT in bf16 with targets: every non-matmul compute symbol of the forward
    and backward (embeddings' adds, norms, gelu, cross-entropy forward and backward, all
    gradients' reductions) in Triton regions, each with a cubin."""
    torch.manual_seed(0)
    model = GPT(vocab=256, n_embd=64).to(torch.bfloat16)
    with FakeTensorMode():
        idx = torch.randint(0, 256, (4, 32), device="cuda")
        targets = torch.randint(0, 256, (4, 32), device="cuda")
    p = tc.plan(model, idx, targets, target=codegen_target("h100"), executors=[TRITON, "torch"])
    triton = _triton_regions_have_cubins(p)
    done, total, missed = coverage(p)
    assert (done, total, missed) == (44, 44, []), (done, total, missed)  # (autograd.add_cotangent is one)
    fused = {b.sym.id for r in triton.values() for b in r.bsyms}
    assert {"ltorch.log_softmax", "ltorch.nll_loss", "ltorch.nll_loss_backward", "ltorch.log_softmax_backward",
            "ltorch.layer_norm_backward", "ltorch.ne"} <= fused, fused


@pytest.mark.parametrize("target,sm", [("a100", "sm_80"), ("b200", "sm_100a")])
def test_other_targets_compile_for_their_architecture(target, sm):
    def f(x, b):
        return torch.nn.functional.silu(x + b) * x

    with FakeTensorMode():
        x, b = torch.randn(64, 128, device="cuda", dtype=torch.float16), torch.randn(128, device="cuda",
                                                                                  dtype=torch.float16)
    p = tc.plan(f, x, b, target=codegen_target(target), executors=[TRITON, "torch"])
    ((name, (ex, region)),) = p.regions.items()
    assert ex == "triton" and len(region.bsyms) == 3
    ptx = next(a for a in p.artifacts[name] if a.kind == "ptx")
    assert f".target {sm}" in ptx.content and "*fp16" not in ptx.content


def test_cpu_targets_are_not_planned():
    with pytest.raises(ValueError, match="triton.*cannot plan for cpu"):
        tc.plan(lambda x: x * 2, torch.randn(4), target="cpu", executors=[TRITON, "torch"])


def test_doctor_lists_the_package_with_its_reason(tmp_path):
    """``python -m thunder_core doctor`` with the package installed (here: its entry point made
    visible by a dist-info directory on the path, if it is not pip-installed)."""
    env = dict(os.environ)
    env.pop("TRITON_INTERPRET", None)
    try:
        metadata.distribution("thunder-executor-triton")
    except metadata.PackageNotFoundError:
        info = tmp_path / "thunder_executor_triton-0.1.0.dev0.dist-info"
        info.mkdir()
        (info / "METADATA").write_text("Metadata-Version: 2.1\nName: thunder-executor-triton\nVersion: 0.1.0.dev0\n")
        (info / "entry_points.txt").write_text("[thunder_core]\ntriton = thunder_executor_triton.plugin\n")
        env["PYTHONPATH"] = os.pathsep.join([str(tmp_path), str(ROOT / "executors" / "triton"),
                                             env.get("PYTHONPATH", "")])
    out = subprocess.run([sys.executable, "-m", "thunder_core", "doctor"], env=env, capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stderr
    row = next(line for line in out.stdout.splitlines() if "thunder-executor-triton" in line)
    if not torch.cuda.is_available():
        assert "triton: no CUDA device; set TRITON_INTERPRET=1" in row
    env["TRITON_INTERPRET"] = "1"
    out = subprocess.run([sys.executable, "-m", "thunder_core", "doctor"], env=env, capture_output=True, text=True,
                         timeout=120)
    row = next(line for line in out.stdout.splitlines() if "thunder-executor-triton" in line)
    assert "triton: available" in row


def test_without_the_interpreter_it_plans_in_process_and_refuses_to_run(tmp_path):
    """A fresh process without TRITON_INTERPRET (the machine's normal state): tc.plan compiles
    in the process itself (no worker), tc.jit refuses the executor with its reason."""
    script = textwrap.dedent("""
        import torch, thunder_core as tc
        from torch._subclasses.fake_tensor import FakeTensorMode
        from thunder_executor_triton.plugin import TRITON
        import thunder_executor_triton.aot as aot
        with FakeTensorMode():
            x = torch.randn(64, 128, device="cuda", dtype=torch.bfloat16)
        from thunder_core.extend import profile
        target = profile("h100").replace(dispatch_us={"triton": 0.0})  # (the kernels, not the cost)
        p = tc.plan(lambda x: torch.softmax(x * 2, -1).sum(0), x, target=target, executors=[TRITON, "torch"])
        kinds = sorted(a.kind for arts in p.artifacts.values() for a in arts)
        assert kinds == ["autotune", "cubin", "ptx", "source"], kinds  # one kernel: rows, then over rows
        assert not aot._WORKER  # compiled in this process
        try:
            tc.jit(lambda x: x * 2, executors=[TRITON, "torch"])(torch.randn(3))
        except RuntimeError as e:
            assert "no CUDA device; set TRITON_INTERPRET=1" in str(e), e
        else:
            raise AssertionError("ran without the interpreter")
        print("ok")
    """)
    env = {k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"}
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT / "executors" / "triton"), env.get("PYTHONPATH", "")])
    out = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=300)
    if torch.cuda.is_available():
        pytest.skip("a CUDA device is present: the executor runs")
    assert out.returncode == 0 and out.stdout.strip().endswith("ok"), out.stderr[-3000:]


def test_a_script_under_the_interpreter_plans_through_the_worker(tmp_path):
    """Under TRITON_INTERPRET=1, AOT compiles run in a worker process; a user's script with no
    ``if __name__ == "__main__"`` guard must not be re-imported by it."""
    script = tmp_path / "user_script.py"
    script.write_text(textwrap.dedent("""
        import torch, thunder_core as tc
        from torch._subclasses.fake_tensor import FakeTensorMode
        from thunder_executor_triton.plugin import TRITON
        import thunder_executor_triton.aot as aot
        print("script body ran")
        with FakeTensorMode():
            x = torch.randn(64, 128, device="cuda", dtype=torch.float16)
        from thunder_core.extend import profile
        target = profile("a100").replace(dispatch_us={"triton": 0.0})  # (the kernels, not the cost)
        p = tc.plan(lambda x: torch.relu(x) * 2, x, target=target, executors=[TRITON, "torch"])
        (arts,) = p.artifacts.values()
        assert [a.kind for a in arts] == ["source", "ptx", "cubin", "autotune"] and aot._WORKER
    """))
    env = dict(os.environ, TRITON_INTERPRET="1")
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT / "executors" / "triton"), env.get("PYTHONPATH", "")])
    out = subprocess.run([sys.executable, str(script)], env=env, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    assert out.stdout.count("script body ran") == 1


def test_without_a_gpu_or_the_interpreter_unavailable_does_not_import_triton(monkeypatch):
    import importlib.util

    from thunder_executor_triton import plugin

    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    monkeypatch.delenv("TRITON_INTERPRET", raising=False)
    monkeypatch.setattr(plugin, "_triton_missing", lambda: pytest.fail("triton was imported"))
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: object())  # installed
    assert plugin.unavailable().startswith("no CUDA device; set TRITON_INTERPRET=1")
    monkeypatch.setattr(plugin, "_triton_missing", lambda: None)
    monkeypatch.setenv("TRITON_INTERPRET", "1")  # its interpreter runs on the CPU: the import decides
    assert plugin.unavailable() is None
    monkeypatch.setattr(plugin, "_triton_missing", lambda: "triton (and numpy) cannot be imported: test")
    assert plugin.unavailable() == "triton (and numpy) cannot be imported: test"
    monkeypatch.delenv("TRITON_INTERPRET")
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None)  # not installed: the import says why
    assert plugin.unavailable() == "triton (and numpy) cannot be imported: test"
