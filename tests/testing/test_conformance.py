"""The op conformance kit (thunder_core/testing/conformance) run as a plugin author runs it:
``pytest --pyargs thunder_core.testing.conformance --thunder-executor NAME``, in a subprocess
per executor, on a small op subset (CI time): the ``torch`` executor and the docs' toy pass,
an xfail file turns a known failure into an xfail, and two deliberately broken executors are caught with a minimal
example and a one-line reproducer."""

from __future__ import annotations

import importlib.metadata
import os
import re
import sys

import pytest

pytest.importorskip("hypothesis")
pytest.importorskip("thunder_executor_torch")

pytest_plugins = ["pytester"]

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
HERE = os.path.dirname(os.path.abspath(__file__))
TOY = os.path.join(ROOT, "docs", "examples", "toy_executor.py") + ":TOY"
BROKEN = os.path.join(HERE, "broken_executor.py")
OPS = "add,sub,mul,div,exp,tanh,sigmoid,relu,where,clamp,sum,amax,mean"


def _plugin_args():
    """``-p`` the plugin unless its pytest11 entry point is installed (loading it twice fails)."""
    eps = importlib.metadata.entry_points(group="pytest11")
    return [] if any(ep.name == "thunder_conformance" for ep in eps) else ["-p", "thunder_core.testing.conformance.plugin"]


def kit(pytester, *args):
    pytester.syspathinsert(ROOT)
    return pytester.runpytest_subprocess(*_plugin_args(), "-p", "no:cacheprovider", "-W", "ignore::UserWarning",
                                         "--pyargs", "thunder_core.testing.conformance", *args, timeout=600)


def test_torch_executor_conforms(pytester):
    r = kit(pytester, "--thunder-executor", "torch", "--thunder-ops", OPS)
    out = r.stdout.str()
    assert r.ret == 0, out
    outcomes = r.parseoutcomes()
    assert outcomes["passed"] >= 30 and "failed" not in outcomes, outcomes
    assert "executor 'torch' claims 13 of 13 selected torch-level symbols: 13 alone" in out


def test_toy_executor_conforms(pytester):
    """The docs' toy (whose add/sub once dropped alpha: the kit found it) passes; its xfail
    file is empty now."""
    r = kit(pytester, "--thunder-executor", TOY, "--thunder-ops", OPS,
            "--thunder-xfails", os.path.join(HERE, "toy_xfails.txt"))
    out = r.stdout.str()
    assert r.ret == 0, out
    outcomes = r.parseoutcomes()
    assert "failed" not in outcomes and "xfailed" not in outcomes, outcomes
    assert re.search(r"only inside regions\n  in regions: add .*tanh", out), out
    assert outcomes["passed"] >= 20, outcomes


def test_an_xfail_file_turns_a_known_failure_into_an_xfail(pytester, tmp_path):
    known = tmp_path / "xfails.txt"
    known.write_text("test_drawn_calls[ltorch.mul]: wrong for int64 (the deliberate bug)\n")
    r = kit(pytester, "--thunder-executor", BROKEN + ":BROKEN_DTYPE", "--thunder-ops", "mul",
            "--thunder-xfails", str(known))
    out = r.stdout.str()
    assert r.ret == 0, out
    assert r.parseoutcomes().get("xfailed") == 1, out


def test_broken_dtype_is_caught(pytester):
    r = kit(pytester, "--thunder-executor", BROKEN + ":BROKEN_DTYPE", "--thunder-ops", "mul")
    out = r.stdout.str()
    assert r.ret == 1, out
    assert "test_kit.py::test_drawn_calls[ltorch.mul]" in out and "FAILED" in out
    # the minimal example: int64, the bug's dtype, and a one-line reproducer naming it
    assert re.search(r"reproduce: python -c .*reproduce\('.*BROKEN_DTYPE', Case\('ltorch.mul', .*torch.int64", out), out


def test_broken_fusion_after_broadcast_is_caught(pytester):
    r = kit(pytester, "--thunder-executor", BROKEN + ":BROKEN_FUSION", "--thunder-ops", "add,mul,exp")
    out = r.stdout.str()
    assert r.ret == 1, out
    assert re.search(r"FAILED .*test_kit.py::test_fused_chains", out), out
    # a minimal chain: two inputs of different shapes (a broadcast), fused; the printed one-line
    # reproducer fails the same way on its own (run as printed, in a subprocess: pytester
    # restores sys.modules after each test, so torch's extensions must not load in-process here)
    m = re.search(r'reproduce: python -c "(.*BROKEN_FUSION.*ChainCase\(.*\))"', out)
    assert m, out
    shapes = re.findall(r"TensorSpec\((\([0-9, ]*\))", m.group(1))
    assert len(set(shapes)) > 1, m.group(1)
    again = pytester.run(sys.executable, "-W", "ignore", "-c", m.group(1), timeout=300)
    assert again.ret == 1 and "not close" in again.stdout.str() + again.stderr.str()


def test_target_mode_plans(pytester):
    r = kit(pytester, "--thunder-executor", "inductor", "--thunder-ops", "add,exp,sum", "--thunder-target", "h100")
    out = r.stdout.str()
    assert r.ret == 0, out
    assert r.parseoutcomes()["passed"] >= 7, out


def test_plugin_is_a_no_op_without_an_executor(pytester):
    pytester.makepyfile("def test_plain():\n    assert True\n")
    r = pytester.runpytest_subprocess(*_plugin_args(), "-p", "no:cacheprovider")
    assert r.ret == 0
    assert "thunder conformance" not in r.stdout.str()
    r.assert_outcomes(passed=1)


def test_xfail_file_format(tmp_path):
    from thunder_core.testing.conformance import xfails

    good = tmp_path / "x.txt"
    good.write_text("# comment\nltorch.add: alpha is dropped\n\ntest_fused_chains: known  # trailing\n")
    table = xfails.load(good)
    assert table == {"ltorch.add": "alpha is dropped", "test_fused_chains": "known"}
    assert xfails.reason_for(table, "test_drawn_calls", "ltorch.add") == "alpha is dropped"
    assert xfails.reason_for(table, "test_fused_chains", None) == "known"
    bad = tmp_path / "y.txt"
    bad.write_text("ltorch.add\n")
    with pytest.raises(ValueError, match="a reason is required"):
        xfails.load(bad)


def test_printed_examples_are_python():
    """Every drawn example's repr evaluates to an equal example building equal tensors (so the
    printed minimal example is a reproducer)."""
    import math

    import torch
    from hypothesis import given, settings
    from hypothesis import strategies as st

    from thunder_core.ops.registry import OPDEFS
    from thunder_core.testing.conformance import repro, strategies

    names = vars(repro)

    @settings(max_examples=40, deadline=None, derandomize=True)
    @given(st.one_of(strategies.calls(OPDEFS["ltorch.add"]), strategies.calls(OPDEFS["ltorch.sum"]),
                     strategies.chains([("ltorch.mul", 2), ("ltorch.exp", 1)])))
    def roundtrip(case):
        again = eval(repr(case), dict(names))
        assert repr(again) == repr(case)
        for a, b in zip(case.program()[1], again.program()[1]):
            x, y = a.build(), b.build()
            assert x.stride() == y.stride() and x.dtype == y.dtype
            torch.testing.assert_close(x, y, equal_nan=True, rtol=0, atol=0)

    roundtrip()
    assert math.isnan(eval("nan", dict(names)))
