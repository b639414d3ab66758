"""What the executor claims and declines, its cost and its availability: these need only the
core (claims are planned with NVFUSER_CLAIMS, a copy that makes no artifacts), so they run in
every venv, nvFuser installed or not."""

import dataclasses
import importlib.util
import os
import re
import subprocess
import sys
from importlib import metadata
from pathlib import Path

import pytest
import torch
import torch.nn.functional as F

import thunder_core as tc
from thunder_core.extend import profile
from thunder_executor_nvfuser import plugin
from thunder_executor_nvfuser.ops import TRANSLATIONS

from nvfuser_helpers import NVFUSER_CLAIMS, plan, region_leaves, regions
from samples import SAMPLES

ROOT = Path(__file__).resolve().parents[3]


def test_every_translation_has_a_sample():
    """The lane checks each translated symbol with its sample: none may be left out."""
    assert set(SAMPLES) == set(TRANSLATIONS)


@pytest.mark.parametrize("sid", sorted(SAMPLES))
def test_each_sample_reaches_its_symbol_in_a_claimed_region(sid):
    fn, specs, _ = SAMPLES[sid]
    p = plan(fn, *specs, executor=NVFUSER_CLAIMS)
    assert any(sid in region_leaves(r) for r in regions(p).values()), p.explain()


@pytest.mark.parametrize("fn, specs, reason", [
    (lambda x: torch.exp(x) * 2, [((4, 8), torch.complex64)], "not complex64"),
    (lambda x: torch.abs(x) + 1, [((4, 8), torch.int8)], "not int8"),
    (lambda x: torch.digamma(x) * 2, [((4, 8), torch.float32)], "no nvFuser translation for prims.digamma (in "
                                                                  "ltorch.digamma)"),
    (lambda x: torch.floor_divide(x, 3) * 2, [((4, 8), torch.float32)], "no nvFuser translation for "
                                                                         "prims.floor_divide"),
    (lambda x: torch.exp(x)[:, ::2], [((4, 8), torch.float32)], "only unit strides are translated"),
    (lambda x: F.pad(torch.exp(x), (1, 1), mode="reflect"), [((1, 4, 8), torch.float32)],
     "only constant padding is translated"),
    (lambda x: F.pad(torch.exp(x), (-1, 1)), [((4, 8), torch.float32)], "cropping is not translated"),
])
def test_declines_say_why(fn, specs, reason):
    p = plan(fn, *specs, executor=NVFUSER_CLAIMS)
    text = p.explain()
    assert "declined: nvfuser" in text and reason in text, text


def test_views_alone_are_left_to_the_library():
    p = plan(lambda x: x.t().reshape(2, 16)[:, 1:3], ((4, 8), torch.float32), executor=NVFUSER_CLAIMS)
    assert not regions(p), p.explain()


def test_matmuls_and_random_ops_are_never_claimed():
    p = plan(lambda x, w: F.dropout(torch.relu(x @ w), 0.1), ((8, 16), torch.float32), ((16, 16), torch.float32),
             executor=NVFUSER_CLAIMS)
    fused = {b.sym.id for r in regions(p).values() for b in r.bsyms}
    assert "ltorch.relu" in fused and not fused & {"ltorch.matmul", "ltorch.dropout"}, p.explain()


def _own_cost(p) -> float:
    (us,) = re.findall(r"-> nvfuser \(([\d.]+) us itself\)", p.explain())
    return float(us)


@pytest.mark.parametrize("target", ["h100", "a100", "b200"])
def test_the_cost_comes_from_the_device_profile(target):
    """One region x * y + z of 1024x1024 float32: 16 MB cross its boundary (three inputs, one
    output), at the target's bandwidth, plus one launch and the declared 6 µs."""
    f32 = torch.float32
    p = plan(lambda x, y, z: x * y + z, ((1024, 1024), f32), ((1024, 1024), f32), ((1024, 1024), f32),
             executor=dataclasses.replace(plugin.NVFUSER, can_plan=None, artifacts=None),
             target=target)
    prof = profile(target)
    expected = 4 * 1024 * 1024 * 4 / (prof.bandwidth_gbs * 1e3) + prof.launch_us + plugin.DISPATCH_US["cuda"]
    assert _own_cost(p) == pytest.approx(expected, abs=0.06), p.explain()


def test_only_cuda_targets_are_planned():
    assert plugin.NVFUSER.supports(profile("cpu")) == "runs on cuda, not cpu"
    assert plugin.can_plan(profile("cpu")).startswith("plans only for CUDA targets")
    with pytest.raises(ValueError, match="nvfuser.*cannot plan for cpu"):
        tc.plan(lambda x: x * 2, torch.randn(4), target="cpu", executors=[plugin.NVFUSER, "torch"])


def test_cpu_tensors_are_declined():
    from thunder_executor_nvfuser.translate import check_tensor

    class P:  # the checker reads a tensor proxy's device, dtype and name
        device, dtype, name = torch.device("cpu"), torch.float32, "t0"

    assert check_tensor(P()) == "nvFuser runs fusions on CUDA tensors, not cpu (t0)"


def test_unavailable_says_why(monkeypatch):
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(plugin, "_IMPORT", ["nvfuser_direct cannot be imported (ModuleNotFoundError: x); hint"])
    assert plugin.unavailable().startswith("nvfuser_direct cannot be imported")
    assert plugin.can_plan(profile("h100")).startswith("cannot build fusion definitions: nvfuser_direct")
    monkeypatch.setattr(plugin, "_IMPORT", [None])
    assert plugin.unavailable() is None
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: object())  # (installed, as _IMPORT says)
    assert plugin.unavailable().startswith("no CUDA device (nvFuser runs fusions on NVIDIA GPUs only)")
    assert plugin.can_plan(profile("h100")) is None


def test_without_a_gpu_unavailable_does_not_import_nvfuser(monkeypatch):
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    monkeypatch.setattr(plugin, "nvfuser_missing", lambda: pytest.fail("nvfuser_direct was imported"))
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: object())  # installed
    assert plugin.unavailable().startswith("no CUDA device")
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None)  # not installed: the import says why
    monkeypatch.setattr(plugin, "nvfuser_missing", lambda: "nvfuser_direct cannot be imported (test)")
    assert plugin.unavailable() == "nvfuser_direct cannot be imported (test)"


def test_the_missing_library_names_the_wheel_for_this_torch(monkeypatch):
    import builtins

    real = builtins.__import__

    def no_nvfuser(name, *a, **k):
        if name == "nvfuser_direct":
            raise ImportError("No module named 'nvfuser_direct'")
        return real(name, *a, **k)

    monkeypatch.setattr(plugin, "_IMPORT", [])
    monkeypatch.setattr(builtins, "__import__", no_nvfuser)
    monkeypatch.setattr(torch, "__version__", "2.10.0+cu128")
    assert plugin.nvfuser_missing().endswith("pip install --pre nvfuser-cu128-torch210 (or nvfuser-cu130-torch210 "
                                             "with a CUDA 13.0 torch)")
    monkeypatch.setattr(plugin, "_IMPORT", [])
    monkeypatch.setattr(torch, "__version__", "2.13.0+cpu")
    assert "no nvFuser wheel is known to this package for torch 2.13.0+cpu" in plugin.nvfuser_missing()


def test_doctor_lists_the_package_with_its_reason(tmp_path):
    env = dict(os.environ)
    try:
        metadata.distribution("thunder-executor-nvfuser")
    except metadata.PackageNotFoundError:
        info = tmp_path / "thunder_executor_nvfuser-0.1.0.dev0.dist-info"
        info.mkdir()
        (info / "METADATA").write_text("Metadata-Version: 2.1\nName: thunder-executor-nvfuser\nVersion: 0.1.0.dev0\n")
        (info / "entry_points.txt").write_text("[thunder_core]\nnvfuser = thunder_executor_nvfuser.plugin\n")
        env["PYTHONPATH"] = os.pathsep.join([str(tmp_path), str(ROOT / "executors" / "nvfuser"),
                                             env.get("PYTHONPATH", "")])
    out = subprocess.run([sys.executable, "-m", "thunder_core", "doctor"], env=env, capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stderr
    row = next(line for line in out.stdout.splitlines() if "thunder-executor-nvfuser" in line)
    assert "nvfuser:" in row and "failed" not in row and "disabled" not in row, row
    if not torch.cuda.is_available():
        assert "nvfuser_direct cannot be imported" in row or "no CUDA device" in row, row
