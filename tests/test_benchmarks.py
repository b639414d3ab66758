"""The side-by-side benchmark harness (benchmarks/) runs end to end on a tiny subset and
writes its three files. No timing assertions: benchmarks are benchmarks."""

import importlib.util
import json

import pytest

torch = pytest.importorskip("torch")

from benchmarks import __main__ as bench_main  # noqa: E402
from benchmarks import report, suite, systems  # noqa: E402


def test_harness_writes_json_markdown_and_chart(tmp_path):
    out = tmp_path / "results"
    logged = []
    results = bench_main.main(["--quick", "--workloads", "two-8x8", "--systems", "eager,tc.jit",
                               "--reps", "2", "--out", str(out)], log=logged.append)
    assert (out / "results.json").is_file() and (out / "results.md").is_file()
    if importlib.util.find_spec("matplotlib") is not None:
        assert (out / "results.png").stat().st_size > 0
    else:  # the harness says why there is no chart instead of failing
        assert "matplotlib" in results["chart"]["skipped"]

    data = json.loads((out / "results.json").read_text())
    meta = data["meta"]
    for key in ("date", "torch", "python", "torch_threads", "quick", "tc_default_executors", "memory_method",
                "elapsed_s", "settings"):
        assert key in meta, key
    assert meta["quick"] is True and meta["torch_threads"] == suite.DEFAULT_THREADS
    assert set(data["systems"]) == {"eager", "tc.jit"}
    assert all(s["available"] for s in data["systems"].values())

    rows = data["rows"]
    assert [(r["workload"], r["mode"]) for r in rows] == [("two-8x8", "forward"), ("two-8x8", "forward+backward")]
    for row in rows:
        assert set(row["results"]) == {"eager", "tc.jit"}
        for name, r in row["results"].items():
            assert r["status"] == "ok", (name, r)
            assert r["reps"] == 2 and r["inner"] >= 1
            for key in ("first_call_s", "median_us", "iqr_us", "ratio_to_eager"):
                assert isinstance(r[key], float), (name, key)
        tc = row["results"]["tc.jit"]
        assert tc["max_rel_err_output"] <= suite.FWD_TOL and tc["compiles"] == 1
        if row["mode"] == "forward+backward":
            assert tc["max_rel_err_grad"] <= suite.GRAD_TOL
    assert data["recompile"] is None  # not selected
    assert "tc.jit" in data["tc_jit_slower"]

    md = (out / "results.md").read_text()
    assert "| two 8x8 tensors" in md and "## Where tc.jit is slower" in md and meta["torch"] in md
    assert any("| workload | mode | eager | tc.jit |" in line for line in logged)  # the table is printed


def test_recompile_row_and_unavailable_system(monkeypatch, tmp_path):
    # A system that cannot run is skipped with its reason in the JSON and the Markdown.
    monkeypatch.setattr(systems.LightningThunder, "_probe", staticmethod(lambda: "not installed (test)"))
    results = suite.run(quick=True, workloads=["recompile"], systems=["eager", "tc.jit", "thunder.jit"],
                        log=lambda *a: None)
    assert results["systems"]["thunder.jit"] == {"available": False, "reason": "not installed (test)",
                                                 "description": systems.LightningThunder.description}
    rc = results["recompile"]
    assert len(rc["seq_lens"]) == 10 and len(set(rc["seq_lens"])) == 10
    tc = rc["results"]["tc.jit"]
    assert tc["status"] == "ok" and tc["compiles"] == 10 and len(tc["call_s"]) == 10
    assert "thunder.jit" not in rc["results"]
    paths, md = report.write_all(results, str(tmp_path))
    assert "not installed (test)" in md and "## Recompiles" in md


def test_unknown_names_are_errors():
    with pytest.raises(SystemExit, match="unknown workload"):
        bench_main.main(["--workloads", "nope"])
    with pytest.raises(SystemExit, match="unknown system"):
        bench_main.main(["--systems", "eager,nope"])
