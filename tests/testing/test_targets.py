"""``--thunder-target``: ``cpu`` and ``cuda`` run the examples (on this machine's CPU or GPU),
a GPU profile name only plans. Without a GPU here, the ``cuda`` target is checked for what
does not need one: it refuses with a usage message, and every layout a spec builds lands on the
kit's device (the meta device stands in for the GPU)."""

from __future__ import annotations

import subprocess
import sys

import pytest
import torch

pytest.importorskip("hypothesis")

from thunder_core.testing.conformance import discovery, targets  # noqa: E402
from thunder_core.testing.conformance.cases import TensorSpec  # noqa: E402

SDPA = "ltorch.scaled_dot_product_attention"


def test_which_targets_run():
    assert targets.runs("cpu") and targets.runs("cuda") and not targets.runs("h100")
    assert targets.profile_name("h100") == "h100" and targets.profile_name("cpu") == "cpu"
    # a running GPU target leaves random symbols out, like cpu (their draws differ from eager's)
    assert SDPA not in {o.symbol.id for o in discovery.select("scaled_dot_product_attention", "cuda")}


@pytest.mark.parametrize("layout", ["contiguous", "transposed", "expanded", "offset", "strided"])
def test_specs_build_on_the_kits_device_with_the_same_values(layout, monkeypatch):
    spec = TensorSpec((3, 4), torch.float32, seed=2, layout=layout)
    here = spec.build()
    monkeypatch.setattr(targets, "DEVICE", "meta")
    there = spec.build(requires_grad=True)
    assert there.device.type == "meta" and there.shape == here.shape and there.stride() == here.stride()
    monkeypatch.setattr(targets, "DEVICE", "cpu")
    torch.testing.assert_close(spec.build(), here)


@pytest.mark.skipif(torch.cuda.is_available(), reason="a CUDA device is present: the cuda target runs")
def test_the_cuda_target_without_a_gpu_is_a_usage_error():
    with pytest.raises(ValueError, match="sees none here"):
        targets.use("cuda")
    assert targets.DEVICE == "cpu"
    out = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--pyargs",
                          "thunder_core.testing.conformance", "--thunder-executor", "torch", "--thunder-ops", "add",
                          "--thunder-target", "cuda"], capture_output=True, text=True, timeout=300)
    assert out.returncode != 0 and "--thunder-target cuda runs the examples on this machine's CUDA GPU" in out.stderr, \
        out.stdout[-2000:] + out.stderr[-2000:]
