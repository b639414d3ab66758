"""The side-by-side benchmark harness (benchmarks/) runs end to end on a tiny subset and
writes its three files. No timing assertions: benchmarks are benchmarks."""

import importlib.util
import json
import sys

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
    # one compile: the default keeps the sequence length symbolic (constant values: 10)
    assert tc["status"] == "ok" and tc["compiles"] == 1 and len(tc["call_s"]) == 10
    assert "thunder.jit" not in rc["results"]
    paths, md = report.write_all(results, str(tmp_path))
    assert "not installed (test)" in md and "## Recompiles" in md


def test_unknown_names_are_errors():
    with pytest.raises(SystemExit, match="unknown workload"):
        bench_main.main(["--workloads", "nope"])
    with pytest.raises(SystemExit, match="unknown system"):
        bench_main.main(["--systems", "eager,nope"])


# ---------------------------------------------------------------- Hugging Face transformers workloads

from benchmarks import hf_workloads, workloads  # noqa: E402

HF_KEYS = [w.key for w in workloads.WORKLOADS if w.kind == "hf"]


def test_hf_workloads_are_listed_with_groups_and_zero_dropout():
    assert len(HF_KEYS) == 10 and {"hf-gpt2", "hf-llama", "hf-bert", "hf-t5"} <= set(HF_KEYS)
    assert workloads.expand(["hf"]) == [k for k in HF_KEYS if workloads.BY_KEY[k].default]
    assert workloads.expand(["hf-all", "hf-gpt2"]) == HF_KEYS
    assert {"hf-gpt2", "hf-llama", "hf-bert", "hf-t5"} <= set(workloads.expand(["hf"]))
    if hf_workloads.unavailable() is not None:
        pytest.skip(hf_workloads.unavailable())
    hidden, layers, heads, vocab, _, _ = hf_workloads.FULL_DIMS
    for name in hf_workloads.MODELS:
        cfg = hf_workloads.config(name, quick=False)
        assert cfg.vocab_size == vocab
        d = cfg.to_dict()
        assert hidden in [d.get(k) for k in ("hidden_size", "n_embd", "d_model")], name
        assert layers in [d.get(k) for k in ("num_hidden_layers", "n_layer", "num_layers")], name
        nonzero = {k: v for k, v in d.items() if "drop" in k and isinstance(v, float) and v}
        assert not nonzero, (name, nonzero)


class _Perturbed(systems.System):
    """A wrong 'compiler': eager, with one value of the last cache layer's keys changed."""
    name = "perturbed"

    def prepare(self, fn):
        def call(*args, **kwargs):
            out = fn(*args, **kwargs)
            cache = out.past_key_values
            layer = getattr(cache, "self_attention_cache", cache).layers[-1]
            layer.keys = layer.keys.detach().clone()  # not in place: the backward may need the original
            layer.keys[0, 0, -1, 0] += 1.0
            return out
        return call


def test_hf_rows_check_model_outputs_against_eager(monkeypatch, tmp_path):
    pytest.importorskip("transformers")
    monkeypatch.setattr(systems, "all_systems",
                        lambda: [systems.Eager(), systems.TcJit(), _Perturbed()])
    results = suite.run(quick=True, workloads=["hf-gpt2", "hf-t5"], systems=["eager", "tc.jit", "perturbed"],
                        reps=2, log=lambda *a: None)
    assert results["meta"]["transformers"] == hf_workloads.transformers_version()
    rows = results["rows"]
    assert [(r["workload"], r["mode"]) for r in rows] == [
        ("hf-gpt2", "forward"), ("hf-gpt2", "forward+backward"), ("hf-t5", "forward"), ("hf-t5", "forward+backward")]
    for row in rows:
        tc = row["results"]["tc.jit"]
        assert tc["status"] == "ok", (row["workload"], row["mode"], tc)
        assert tc["max_rel_err_output"] <= suite.FWD_TOL and tc["compiles"] == 1 and "median_us" in tc
        if row["mode"] == "forward+backward":
            assert tc["max_rel_err_grad"] <= suite.GRAD_TOL
        bad = row["results"]["perturbed"]
        assert bad["status"] == "mismatch" and "median_us" not in bad, bad
        assert "output.past_key_values." in bad["error"] and "layers[1].keys" in bad["error"], bad["error"]
    _, md = report.write_all(results, str(tmp_path))
    assert "| HF GPT-2 (2 layers, hidden 32" in md and "| HF T5 (" in md and "transformers " in md


def test_named_leaves_of_a_model_output():
    pytest.importorskip("transformers")
    setup = hf_workloads.build("t5", quick=True, train=True)
    out = setup.fn(**setup.kwargs)
    names = [n for n, _ in suite.named_leaves(out)]
    assert names[:2] == ["output.loss", "output.logits"], names
    assert "output.past_key_values.self_attention_cache.layers[0].keys" in names
    assert "output.past_key_values.cross_attention_cache.layers[1].values" in names
    assert "output.encoder_last_hidden_state" in names
    ref = suite._reference(out, "output")
    assert suite._compare(out, ref, suite.FWD_TOL, "output") == 0.0
    with pytest.raises(suite.Mismatch, match="output.loss"):
        suite._compare(type(out)(**{**out, "loss": out.loss + 1}), ref, suite.FWD_TOL, "output")
    with pytest.raises(suite.Mismatch, match="values"):
        suite._compare(type(out)(logits=out.logits), ref, suite.FWD_TOL, "output")


def test_hf_workloads_are_skipped_without_transformers(monkeypatch, tmp_path):
    monkeypatch.setitem(sys.modules, "transformers", None)  # `import transformers` raises ImportError
    assert "transformers is not importable" in hf_workloads.unavailable()
    results = bench_main.main(["--quick", "--workloads", "hf,two-8x8", "--systems", "eager", "--reps", "2",
                               "--modes", "forward", "--out", str(tmp_path)], log=lambda *a: None)
    rows = {r["workload"]: r for r in results["rows"]}
    assert list(rows) == [*workloads.GROUPS["hf"], "two-8x8"]
    assert rows["two-8x8"]["results"]["eager"]["status"] == "ok"
    for key in workloads.GROUPS["hf"]:
        assert "transformers is not importable" in rows[key]["skipped"] and rows[key]["results"] == {}
    md = (tmp_path / "results.md").read_text()
    assert "## Skipped workloads" in md and "| HF Llama (" in md and "transformers is not importable" in md


def test_zero_gradients_are_compared_against_a_floor_but_small_ones_are_not():
    big = torch.linspace(-1, 1, 16)
    ref = suite._reference({"w": big, "key_bias": torch.full((4,), 3e-12)}, "gradient")
    # rounding noise on a gradient that is zero in exact arithmetic: not a mismatch
    assert suite._compare({"w": big, "key_bias": torch.full((4,), -2e-12)}, ref, suite.GRAD_TOL, "gradient") < 1e-5
    # a wrong value in a small (1e-3) but real gradient is
    ref = suite._reference({"w": big, "b": torch.full((4,), 1e-3)}, "gradient")
    with pytest.raises(suite.Mismatch, match=r"gradient\.b: max"):
        suite._compare({"w": big, "b": torch.full((4,), 1.1e-3)}, ref, suite.GRAD_TOL, "gradient")
