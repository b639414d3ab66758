"""python -m thunder_core calibrate measures this machine and the cost model reads it."""

import json

from thunder_core import calibrate
from thunder_core.execution.cost import CostModel


def test_calibrate_stores_measurements_the_cost_model_uses(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert calibrate.main() == 0
    stored = json.loads((tmp_path / "thunder_core" / "machine.json").read_text())
    assert stored["bandwidth_gbs"] > 0 and stored["flops_g"] > 0 and stored["launch_us"] > 0
    assert stored["dispatch_us"]["torch"] > 0
    assert stored["dispatch_us"]["inductor"] > 0  # a region executor: measured through its own claim
    model = CostModel()
    assert model.machine.bandwidth_gbs == stored["bandwidth_gbs"]
    assert model.dispatch_us["torch"] == stored["dispatch_us"]["torch"]


def test_defaults_without_calibration(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    model = CostModel()
    assert model.machine.bandwidth_gbs == 10.0 and model.dispatch_us == {}
