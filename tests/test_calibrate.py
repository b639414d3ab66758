"""python -m thunder_core calibrate measures this machine and the cost model reads it."""

import json

from thunder_core import calibrate
from thunder_core.execution.cost import CostModel
from thunder_core.execution.profiles import PROFILES


def test_calibrate_stores_measurements_the_cost_model_uses(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert calibrate.main() == 0
    stored = json.loads((tmp_path / "thunder_core" / "machine.json").read_text())["profiles"]["cpu"]
    assert stored["bandwidth_gbs"] > 0 and stored["flops_g"] > 0 and stored["launch_us"] > 0
    assert stored["dispatch_us"]["torch"] > 0
    assert stored["dispatch_us"]["inductor"] > 0  # a region executor: measured through its own claim
    model = CostModel()
    assert model.profile.bandwidth_gbs == stored["bandwidth_gbs"]
    assert model.profile.matmul_gflops["float32"] == stored["flops_g"]
    assert model.profile.dispatch_us["torch"] == stored["dispatch_us"]["torch"]
    # the split's fixed cost and PyTorch's per-op autograd cost (two training steps timed two ways)
    assert stored["autograd_us"]["split"] > 0 and stored["autograd_us"]["grad_node"] > 0
    assert model.profile.autograd_us == stored["autograd_us"]
    # GPU profiles are untouched by a CPU calibration
    assert CostModel("h100").profile == PROFILES["h100"]


def test_defaults_without_calibration(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    model = CostModel()
    assert model.profile == PROFILES["cpu"] and model.profile.dispatch_us == {}


def test_a_calibration_file_of_the_first_format_is_the_cpu_profile(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    (tmp_path / "thunder_core").mkdir()
    (tmp_path / "thunder_core" / "machine.json").write_text(json.dumps(
        {"bandwidth_gbs": 12.5, "flops_g": 80.0, "launch_us": 2.0, "dispatch_us": {"torch": 1.5}}))
    p = CostModel().profile
    assert (p.bandwidth_gbs, p.launch_us, p.matmul_gflops["float32"], p.dispatch_us) == (12.5, 2.0, 80.0,
                                                                                        {"torch": 1.5})
