"""Plugins: entry points, API versions, broken plugins, doctor, executors and transforms by name."""

import importlib.metadata
import types
import warnings

import pytest
import torch

import thunder_core as tc
from thunder_core import doctor, plugins

test_plugin = pytest.importorskip("thunder_test_plugin.plugin")


@pytest.fixture
def fresh_plugins():
    """Read the entry points again in the test (and after it, back to the real environment:
    reload() is lazy, so the next registry() reads them once monkeypatch has undone its fakes)."""
    plugins.reload()
    yield
    plugins.reload()


def test_doctor_lists_installed_plugins_and_why_unavailable(monkeypatch, fresh_plugins):
    monkeypatch.delenv("THUNDER_TEST_PLUGIN", raising=False)
    rows = {r["plugin"]: r for r in doctor.rows()}
    assert rows["torch"]["distribution"] == "thunder-executor-torch" and rows["torch"]["executors"] == "inductor, torch"
    assert "available" in rows["torch"]["status"]
    assert rows["testexec"]["distribution"] == "thunder-test-plugin" and rows["testexec"]["version"] == "0.0.1"
    assert "set THUNDER_TEST_PLUGIN=1" in rows["testexec"]["status"]
    assert "builtin-sharp-edges" in rows and "builtin-lookasides" in rows
    text = doctor.report()
    assert "thunder-test-plugin" in text and "plugin API 1" in text


def test_unavailable_executor_is_left_out_by_default_and_refused_by_name(monkeypatch):
    monkeypatch.delenv("THUNDER_TEST_PLUGIN", raising=False)
    jf = tc.jit(lambda a: a + a)
    assert [ex.name for ex in jf._executors] == ["torch"]
    with pytest.raises(RuntimeError, match="cannot run here: test executor"):
        tc.jit(lambda a: a, executors=["testexec", "torch"])


def test_named_executor_runs_the_ops_it_implements(monkeypatch):
    monkeypatch.setenv("THUNDER_TEST_PLUGIN", "1")
    test_plugin.CALLS.clear()

    def f(a, b):
        return (a + b) * b - a

    jf = tc.jit(f, executors=["testexec", "torch"])
    a, b = torch.randn(3), torch.randn(3)
    torch.testing.assert_close(jf(a, b), f(a, b))
    assert test_plugin.CALLS == ["add", "mul"]   # sub went to torch
    owners = jf._last.executors_used
    assert owners["ltorch.add"] == owners["ltorch.mul"] == "testexec" and owners["ltorch.sub"] == "torch"


def test_unknown_executor_name_lists_installed():
    with pytest.raises(ValueError, match=r"Unknown executor 'nope'. Installed executors: .*torch"):
        tc.jit(lambda a: a, executors=["nope"])


def test_transform_by_name_and_callable():
    jf = tc.jit(lambda a: a * 2, transforms=["test-tag-trace"])
    jf(torch.ones(2))
    names = [t.name for t in tc.last_traces(jf)]
    assert names[:2] == ["computation", "tagged"]
    with pytest.raises(ValueError, match="Unknown transform"):
        tc.jit(lambda a: a, transforms=["nope"])


def _fake_entry_points(monkeypatch, extra):
    real = importlib.metadata.entry_points

    def entry_points(**kw):
        eps = list(real(**kw))
        return eps + extra if kw.get("group") == "thunder_core" else eps
    monkeypatch.setattr(importlib.metadata, "entry_points", entry_points)


def _module(name, **attrs):
    import sys

    m = types.ModuleType(name)
    m.__dict__.update(attrs)
    sys.modules[name] = m
    return f"{name}"


def test_api_version_mismatch_and_import_error_disable_a_plugin_with_a_warning(monkeypatch, fresh_plugins):
    _module("tc_test_future_plugin", THUNDER_CORE_API=99)
    eps = [importlib.metadata.EntryPoint("future", "tc_test_future_plugin", "thunder_core"),
           importlib.metadata.EntryPoint("broken", "tc_test_no_such_module", "thunder_core")]
    _fake_entry_points(monkeypatch, eps)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        found = plugins.executors()
    messages = [str(w.message) for w in caught if issubclass(w.category, plugins.PluginWarning)]
    assert any("'future'" in m and "plugin API 99" in m for m in messages)
    assert any("'broken'" in m and "failed to import" in m for m in messages)
    assert "torch" in found  # the others still work
    rows = {r["plugin"]: r for r in doctor.rows()}
    assert "plugin API 99" in rows["future"]["status"] and "import failed" in rows["broken"]["status"]


def test_two_executors_with_one_name_is_an_error(monkeypatch, fresh_plugins):
    from thunder_core.execution.executor import Executor
    from thunder_core.hookspecs import hookimpl

    @hookimpl
    def thunder_core_executors():
        return [Executor("torch", lambda: {}, api_version=1)]

    _module("tc_test_dup_plugin", THUNDER_CORE_API=1, thunder_core_executors=thunder_core_executors)
    _fake_entry_points(monkeypatch, [importlib.metadata.EntryPoint("dup", "tc_test_dup_plugin", "thunder_core")])
    with pytest.raises(RuntimeError, match="Two executors are named 'torch'") as e:
        plugins.executors()
    assert "thunder-executor-torch (plugin 'torch')" in str(e.value) and "plugin 'dup'" in str(e.value)


@pytest.fixture
def testexec(monkeypatch):
    monkeypatch.setenv("THUNDER_TEST_PLUGIN", "1")
    monkeypatch.setattr(test_plugin, "DISPATCH_US", 1.0)
    monkeypatch.setattr(test_plugin, "REGION_US", None)
    test_plugin.CALLS.clear()
    plugins.reload()
    yield test_plugin
    plugins.reload()


def _dispatch_us(testexec, us):
    """Set the test executor's per-op cost. Its hook reads DISPATCH_US when called, which is
    once per registry: reload() makes the next tc.jit see the new Executor."""
    testexec.DISPATCH_US = us
    plugins.reload()


def _fma(a, b, c):
    return a * b + c


@pytest.mark.parametrize("order", [["testexec", "torch"], ["torch", "testexec"]])
def test_cheaper_executor_wins_whatever_the_list_order(testexec, order):
    _dispatch_us(testexec, 0.2)  # cheaper than torch's 1 us per op
    jf = tc.jit(_fma, executors=order)
    a, b, c = (torch.randn(4) for _ in range(3))
    torch.testing.assert_close(jf(a, b, c), _fma(a, b, c))
    assert testexec.CALLS == ["mul", "add"]
    assert "ltorch.mul\n    -> testexec" in tc.explain(jf)


def test_costlier_executor_loses_and_ties_go_to_the_earlier_one(testexec):
    _dispatch_us(testexec, 50.0)
    jf = tc.jit(_fma, executors=["testexec", "torch"])
    jf(*(torch.randn(4) for _ in range(3)))
    assert testexec.CALLS == []
    assert set(jf._last.executors_used.values()) == {"torch"}
    _dispatch_us(testexec, 1.0)   # same cost as torch: the earlier one in executors=[...] wins
    for order, winner in ((["testexec", "torch"], "testexec"), (["torch", "testexec"], "torch")):
        jf = tc.jit(_fma, executors=order)
        jf(*(torch.randn(4) for _ in range(3)))
        assert jf._last.executors_used["ltorch.mul"] == winner


def test_region_claim_fuses_when_cheaper_and_explain_shows_the_competition(testexec):
    testexec.REGION_US = 1.0
    jf = tc.jit(_fma, executors=["torch", "testexec"])
    a, b, c = (torch.randn(4) for _ in range(3))
    torch.testing.assert_close(jf(a, b, c), _fma(a, b, c))
    assert testexec.CALLS == ["fused"]
    final = tc.last_traces(jf)[-1]
    assert len(final.bound_symbols) == 1 and "testexec_region" in final.python()
    text = tc.explain(jf)
    assert "-> testexec" in text and "region" in text and "torch symbol" in text
    testexec.REGION_US = 1000.0   # now too expensive: torch runs both ops
    testexec.CALLS.clear()
    jf2 = tc.jit(_fma, executors=["torch", "testexec"])
    jf2(a, b, c)
    assert testexec.CALLS == []


def test_doctor_shows_each_executors_declarations_and_plan_targets():
    rows = {r["executor"]: r for r in doctor.executor_rows()}
    assert rows["torch"]["declares"] == "fallback" and rows["torch"]["here"] == "runs"
    assert rows["inductor"]["declares"] == "fuses, regions"
    assert rows["torch"]["plans for"] == "cpu, a100, h100, b200"
    assert "plans for" in doctor.report()


def test_an_api_mismatch_names_both_versions_and_what_to_upgrade():
    from thunder_core import __version__

    newer = plugins.api_mismatch(2, "thunder-executor-x", "3.0")
    assert newer == (f"thunder-executor-x 3.0 was written for plugin API 2, thunder-core {__version__} speaks "
                     f"plugin API 1: upgrade thunder-core")
    older = plugins.api_mismatch(0, "thunder-executor-x", "0.0.1")
    assert older.endswith("upgrade thunder-executor-x to a release for plugin API 1, or install an older thunder-core")
