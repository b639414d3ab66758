"""The plugin registry: hooks called through pluggy (tryfirst/trylast, hookwrappers), plugins
registered and unregistered at runtime, broken plugins disabled, duplicate names refused."""

import importlib.metadata
import sys
import types
import warnings

import pytest
import torch

import thunder_core as tc
from thunder_core import doctor, plugins
from thunder_core.execution.executor import Executor
from thunder_core.hookspecs import hookimpl
from thunder_core.sharp_edges import SharpEdge, SharpEdgeChecker, resolve_levels


@pytest.fixture(autouse=True)
def fresh_registry():
    """Each test starts from the installed plugins and leaves them so (runtime plugins dropped)."""
    plugins.reload()
    yield
    plugins.reload()


def _plugin(name, **hooks):
    """A plugin module holding ``hooks`` (hookimpl functions named after their hooks)."""
    m = types.ModuleType(name)
    m.__dict__.update(hooks, THUNDER_CORE_API=1)
    return m


def _executors(*names):
    return [Executor(n, lambda: {}, api_version=1) for n in names]


def _provides(*names, **opts):
    @hookimpl(**opts)
    def thunder_core_executors():
        return _executors(*names)
    return thunder_core_executors


# ---------------------------------------------------------------------------- pluggy's ordering


def test_tryfirst_and_trylast_order_the_executors():
    plugins.register(_plugin("tc_test_first", thunder_core_executors=_provides("first-ex", tryfirst=True)), "first")
    plugins.register(_plugin("tc_test_last", thunder_core_executors=_provides("last-ex", trylast=True)), "last")
    plugins.register(_plugin("tc_test_plain", thunder_core_executors=_provides("plain-ex")), "plain")
    names = list(plugins.registry().executors)
    # pluggy calls the latest registration first ("plain-ex" before the installed executors),
    # but a tryfirst hookimpl before all of them and a trylast one after
    assert names[0] == "first-ex" and names[1] == "plain-ex" and names[-1] == "last-ex"
    assert {"torch", "inductor"} <= set(names)
    assert list(plugins.executors()) == names   # the module-level function reads the same registry
    rows = {r["plugin"]: r for r in doctor.rows()}
    assert rows["first"]["distribution"] == plugins.RUNTIME and rows["first"]["executors"] == "first-ex"


def test_hookwrappers_see_and_change_the_results():
    seen = []

    @hookimpl(hookwrapper=True)
    def observe():
        outcome = yield
        seen.append([ex.name for exs in outcome.get_result() for ex in exs])

    @hookimpl(wrapper=True)
    def add_one():
        result = yield
        return result + [_executors("from-wrapper")]

    plugins.register(_plugin("tc_test_add", thunder_core_executors=add_one), "add")
    plugins.register(_plugin("tc_test_observe", thunder_core_executors=observe), "observe")   # outermost
    reg = plugins.registry()
    names = list(reg.executors)
    assert "from-wrapper" in names and "torch" in names
    assert seen[0] == names   # the old-style wrapper, registered last, wraps the other one
    assert reg.executor_plugins["from-wrapper"].name == "add"
    assert reg.executor_plugins["torch"].distribution == "thunder-executor-torch"
    plugins.unregister("add")
    assert "from-wrapper" not in plugins.registry().executors


def test_each_table_is_one_pluggy_call_kept_until_the_plugins_change():
    reg = plugins.registry()
    reg.executors, reg.lookasides, reg.transforms, reg.vjp_rules, reg.sharp_edge_checkers
    tc.jit(lambda a: a * 2)(torch.ones(2))
    plugins.reload()  # (the modules the plugins and a first trace import, imported: the next test
    reg = plugins.registry()  # shows the lookasides asked again after an import)
    calls = []
    undo = reg.pm.add_hookcall_monitoring(lambda name, impls, kwargs: calls.append(name), lambda *args: None)
    try:
        for _ in range(2):
            reg.executors, reg.lookasides, reg.transforms, reg.vjp_rules, reg.sharp_edge_checkers
            tc.jit(lambda a: a * 2)(torch.ones(2))
        assert sorted(calls) == sorted(set(calls)) and "thunder_core_executors" in calls   # once each
        calls.clear()
        plugins.register(_plugin("tc_test_y", thunder_core_executors=_provides("y-ex")), "y")
        assert "y-ex" in reg.executors and calls == ["thunder_core_executors"]
    finally:
        undo()


def test_lookasides_are_asked_again_once_the_program_imported_more_modules():
    """A plugin may look aside a library's callables only once the program has imported it
    (thunder-distributed and FSDP2): its table is asked for again before the next trace."""
    name = "tc_test_late_library"

    @hookimpl
    def thunder_core_lookasides():
        lib = sys.modules.get(name)
        return {} if lib is None else {lib.triple: lambda interpreter, args, kwargs: args[0] * 2}

    plugins.register(_plugin("tc_test_late", thunder_core_lookasides=thunder_core_lookasides), "late")
    lib = types.ModuleType(name)
    lib.triple = lambda x: x * 3
    x = torch.ones(2)
    assert torch.equal(tc.jit(lambda a: lib.triple(a))(x), x * 3)   # not imported: not looked aside
    sys.modules[name] = lib
    try:
        assert lib.triple in plugins.registry().lookasides
        assert torch.equal(tc.jit(lambda a: lib.triple(a))(x), x * 2)   # the plugin's replacement
    finally:
        del sys.modules[name]


# ---------------------------------------------------------------------------- register / unregister


def _slow(x):
    return x * 2


def _fast(x):
    return x + 100


def _uses_slow(x):
    return _slow(x) + 1


class _FastPath:
    """A plugin object (not a module) replacing _slow by _fast while tracing."""

    @hookimpl
    def thunder_core_lookasides(self):
        return {_slow: lambda I, args, kwargs: I.call(_fast, args, kwargs)}


def test_registering_a_lookaside_changes_what_jit_traces():
    x = torch.arange(3.0)
    torch.testing.assert_close(tc.jit(_uses_slow)(x), x * 2 + 1)
    record = plugins.register(_FastPath(), "fast-path")
    assert record.distribution == plugins.RUNTIME and record.problem is None
    jf = tc.jit(_uses_slow)   # a new jit: compiled entries of earlier ones stay as they were
    torch.testing.assert_close(jf(x), x + 101)
    assert "ltorch.mul" not in str(tc.last_traces(jf)[0])
    assert plugins.unregister("fast-path") is record
    torch.testing.assert_close(tc.jit(_uses_slow)(x), x * 2 + 1)


def test_registering_a_sharp_edge_checker_makes_it_a_known_name():
    def check(cap):
        yield SharpEdge("no-exp", "exp is not allowed here")

    plugin = _plugin("tc_test_checker", thunder_core_sharp_edge_checkers=hookimpl(
        lambda: [SharpEdgeChecker("no-exp", "error", check)]))
    with pytest.raises(ValueError, match="unknown checker 'no-exp'"):
        resolve_levels({"no-exp": "warn"})
    plugins.register(plugin, "checker")
    assert resolve_levels(None)["no-exp"] == "error"
    with pytest.raises(tc.SharpEdgeError, match="exp is not allowed"):
        tc.jit(lambda a: torch.exp(a))(torch.ones(2))
    plugins.unregister("checker")
    assert "no-exp" not in resolve_levels(None)


def test_register_refuses_a_taken_name_and_another_api_version():
    plugins.register(_plugin("tc_test_a"), "a")
    with pytest.raises(ValueError, match="named 'a' is registered already"):
        plugins.register(_plugin("tc_test_b"), "a")
    with pytest.raises(ValueError, match="named 'torch' is registered already .thunder-executor-torch."):
        plugins.register(_plugin("tc_test_c"), "torch")
    future = _plugin("tc_test_future")
    future.THUNDER_CORE_API = 99
    with pytest.raises(ValueError, match="written for plugin API 99"):
        plugins.register(future, "future")
    with pytest.raises(ValueError, match="No thunder_core plugin is named 'nope'"):
        plugins.unregister("nope")


def test_reload_drops_runtime_plugins():
    plugins.register(_plugin("tc_test_x", thunder_core_executors=_provides("x-ex")), "x")
    assert "x-ex" in plugins.registry().executors
    before = plugins.registry()
    plugins.reload()
    assert plugins.registry() is not before and "x-ex" not in plugins.registry().executors


# ---------------------------------------------------------------------------- broken plugins


def _raising(exc):
    @hookimpl
    def hook():
        raise exc
    return hook


def test_a_plugin_whose_hook_raises_is_disabled_and_the_others_still_arrive():
    @hookimpl
    def its_transforms():
        return {"broken-transform": lambda t: t}

    broken = _plugin("tc_test_broken", thunder_core_executors=_raising(ZeroDivisionError("oops")),
                     thunder_core_transforms=its_transforms)
    plugins.register(broken, "broken")
    plugins.register(_plugin("tc_test_fine", thunder_core_executors=_provides("fine-ex")), "fine")
    reg = plugins.registry()
    with pytest.warns(plugins.PluginWarning, match=r"'broken' .*thunder_core_executors raised ZeroDivisionError: oops"):
        names = list(reg.executors)
    assert "fine-ex" in names and "torch" in names
    record = next(r for r in reg.records if r.name == "broken")
    assert "ZeroDivisionError" in record.problem and reg.pm.is_blocked("broken")
    assert "broken-transform" not in reg.transforms   # disabled: all its hooks, not only the one that raised
    assert "ZeroDivisionError" in {r["plugin"]: r for r in doctor.rows()}["broken"]["status"]
    plugins.unregister("broken")   # a disabled plugin can be unregistered, and its name used again
    assert not reg.pm.is_blocked("broken")
    plugins.register(_plugin("tc_test_fixed", thunder_core_executors=_provides("fixed-ex")), "broken")
    assert "fixed-ex" in reg.executors


def test_a_wrapper_that_raises_only_around_the_others_is_found_from_the_traceback():
    @hookimpl(wrapper=True)
    def picky():
        result = yield
        if result:   # alone (no other results) it is fine
            raise KeyError("cannot stand company")
        return result

    plugins.register(_plugin("tc_test_picky", thunder_core_transforms=picky), "picky")
    with pytest.warns(plugins.PluginWarning, match="'picky'.*KeyError"):
        found = plugins.transforms()
    assert "test-tag-trace" in found


def _fake_entry_points(monkeypatch, extra):
    real = importlib.metadata.entry_points

    def entry_points(**kw):
        eps = list(real(**kw))
        return eps + extra if kw.get("group") == "thunder_core" else eps
    monkeypatch.setattr(importlib.metadata, "entry_points", entry_points)


@pytest.mark.parametrize("broken_first", [True, False])
def test_symbols_are_defined_once_per_plugin_even_when_one_raises(monkeypatch, broken_first):
    """thunder_core_symbols has effects: a plugin whose hook ran is not called again after
    another one raised, nor by a new registry."""
    import thunder_core.ops  # noqa: F401 - the op language is loaded: new registries define symbols

    calls = []

    @hookimpl
    def good():
        calls.append("good")

    names = ("a-broken", "b-good") if broken_first else ("b-broken", "a-good")
    good_mod = f"tc_test_symbols_good_{broken_first}"
    monkeypatch.setitem(sys.modules, good_mod, _plugin(good_mod, thunder_core_symbols=good))
    bad_mod = f"tc_test_symbols_bad_{broken_first}"
    monkeypatch.setitem(sys.modules, bad_mod, _plugin(bad_mod, thunder_core_symbols=_raising(RuntimeError("no"))))
    bad, ok = names
    _fake_entry_points(monkeypatch, [importlib.metadata.EntryPoint(bad, bad_mod, "thunder_core"),
                                     importlib.metadata.EntryPoint(ok, good_mod, "thunder_core")])
    plugins.reload()
    with pytest.warns(plugins.PluginWarning, match=f"'{bad}'.*thunder_core_symbols raised RuntimeError: no"):
        reg = plugins.registry()
    assert calls == ["good"]
    assert next(r for r in reg.records if r.name == bad).problem
    assert next(r for r in reg.records if r.name == ok).problem is None
    plugins.reload()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", plugins.PluginWarning)
        plugins.registry()
    assert calls == ["good"]   # defined already in this process


# ---------------------------------------------------------------------------- duplicate names


def test_a_runtime_executor_named_like_an_installed_one_is_an_error_naming_both():
    plugins.register(_plugin("tc_test_dup", thunder_core_executors=_provides("torch")), "dup")
    with pytest.raises(RuntimeError, match="Two executors are named 'torch'") as e:
        plugins.registry().executors
    assert "thunder-executor-torch (plugin 'torch')" in str(e.value)
    assert f"{plugins.RUNTIME} (plugin 'dup')" in str(e.value)
    plugins.unregister("dup")
    assert "torch" in plugins.registry().executors


def test_two_plugins_looking_aside_one_callable_is_an_error():
    plugins.register(_FastPath(), "fast-1")
    plugins.register(_FastPath(), "fast-2")
    with pytest.raises(RuntimeError, match=r"Two lookasides are named .*_slow.*plugin 'fast-2'.*plugin 'fast-1'"):
        tc.jit(_uses_slow)(torch.ones(2))
