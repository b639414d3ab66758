"""The conformance kit's pytest plugin (entry point group ``pytest11``, name
``thunder_conformance``).

It does nothing unless ``--thunder-executor`` is given, so installing thunder-core never
changes other test runs. With it, the tests of ``thunder_core.testing.conformance``
(``test_kit.py``, collected with ``pytest --pyargs thunder_core.testing.conformance``) are
parametrized by the symbols the executor claims (discovery.py) and check it (check.py).

Options::

    --thunder-executor NAME      an installed executor's name, or module:attribute / file.py:attribute
    --thunder-ops PATTERNS       comma-separated fnmatch patterns of symbols (ids or short names)
    --thunder-target cpu|cuda|h100   cpu or cuda (this machine's GPU): run and compare with eager there;
                                 a GPU profile (a100, h100, b200): plan only (tc.plan, fake tensors)
    --thunder-xfails FILE        known failures (xfails.py describes the format)
    --thunder-max-examples N     hypothesis examples per drawn test (default: the profile's)

Hypothesis settings profiles: ``thunder-ci`` (the default here: derandomized, 10 examples,
no example database) and ``thunder-dev`` (random, 50 examples); ``--hypothesis-profile``
picks another, and ``--hypothesis-seed`` works as usual.
"""

from __future__ import annotations

import pytest

from . import xfails as _xfails

KIT_KEY = "thunder_conformance_kit"


def pytest_addoption(parser):
    group = parser.getgroup("thunder_conformance", "thunder_core executor conformance kit")
    group.addoption("--thunder-executor", default=None,
                    help="executor to check: an installed name, or module:attribute / file.py:attribute")
    group.addoption("--thunder-ops", default=None, help="comma-separated fnmatch patterns of symbol ids or names")
    group.addoption("--thunder-target", default="cpu", help="cpu or cuda (run on this machine's CPU or GPU, "
                    "compare with eager there) or a GPU profile name such as h100 (plan with fake tensors: claims "
                    "and artifacts only)")
    group.addoption("--thunder-xfails", default=None, help="file of 'symbol_id: reason' lines (known failures)")
    group.addoption("--thunder-max-examples", type=int, default=None, help="hypothesis examples per test")


def _register_profiles():
    from hypothesis import HealthCheck, settings

    from hypothesis import Phase

    checks = [HealthCheck.too_slow, HealthCheck.filter_too_much, HealthCheck.data_too_large]
    phases = [p for p in Phase if p is not Phase.explain]  # the minimal example and reproducer say it better
    settings.register_profile("thunder-ci", max_examples=10, derandomize=True, deadline=None, database=None,
                              suppress_health_check=checks, print_blob=False, phases=phases)
    settings.register_profile("thunder-dev", max_examples=50, deadline=None, suppress_health_check=checks,
                              phases=phases)


class Kit:
    """What the tests of one run share: the executor, its claims, the options."""

    def __init__(self, config):
        from . import discovery, executors, targets

        self.spec = config.getoption("--thunder-executor")
        self.executor = executors.resolve(self.spec)
        self.target = config.getoption("--thunder-target")
        try:
            targets.use(self.target)
        except ValueError as e:
            raise pytest.UsageError(str(e)) from None
        self.max_examples = config.getoption("--thunder-max-examples")
        path = config.getoption("--thunder-xfails")
        self.xfails = _xfails.load(path) if path else {}
        opdefs = discovery.select(config.getoption("--thunder-ops"), self.target)
        self.opdefs = {o.symbol.id: o for o in opdefs}
        self.claims = discovery.discover(self.executor, opdefs, self.target)

    def symbols(self, test_name: str) -> list:
        from .opinfo import available, opinfos_for
        from .strategies import supported

        syms = self.claims.symbols
        if test_name == "test_drawn_calls":
            from .cases import torch_function

            return [s for s in syms if supported(self.opdefs[s]) is None and torch_function(s) is not None]
        if test_name == "test_opinfo_samples":
            return [s for s in syms if available() is None and opinfos_for(s)]
        return syms


@pytest.hookimpl(tryfirst=True)  # before hypothesis's plugin loads --hypothesis-profile
def pytest_configure(config):
    if not config.getoption("--thunder-executor", default=None):
        return
    _register_profiles()
    from hypothesis import settings

    kit = Kit(config)
    # the kit's searches take their settings from this profile (whatever else loads profiles)
    kit.profile = config.getoption("--hypothesis-profile", default=None) or "thunder-ci"
    settings.get_profile(kit.profile)  # an unknown name fails here, naming it
    setattr(config, KIT_KEY, kit)


def get_kit(config):
    return getattr(config, KIT_KEY, None)


def pytest_generate_tests(metafunc):
    kit = get_kit(metafunc.config)
    if kit is None or "symbol" not in metafunc.fixturenames:
        return
    syms = kit.symbols(metafunc.function.__name__)
    metafunc.parametrize("symbol", syms, ids=syms)


def pytest_collection_modifyitems(config, items):
    kit = get_kit(config)
    if kit is None or not kit.xfails:
        return
    for item in items:
        name = getattr(item, "originalname", item.name)
        sym = item.callspec.params.get("symbol") if hasattr(item, "callspec") else None
        reason = _xfails.reason_for(kit.xfails, name, sym)
        if reason is not None:
            item.add_marker(pytest.mark.xfail(reason=reason, strict=False))


def pytest_report_header(config):
    kit = get_kit(config)
    if kit is None:
        return None
    ex = kit.executor
    from .targets import profile_name

    where = kit.target if kit.target != "cuda" else f"cuda ({profile_name('cuda')}: {_gpu_name()})"
    return [f"thunder conformance: executor {ex.name!r} ({kit.spec}) version {ex.version}, target {where}",
            *kit.claims.report().splitlines()]


def _gpu_name():
    import torch

    return torch.cuda.get_device_name()


def pytest_terminal_summary(terminalreporter, config):
    kit = get_kit(config)
    if kit is None:
        return
    terminalreporter.section("thunder conformance: claims")
    terminalreporter.write_line(kit.claims.report())
    for sid, why in sorted(kit.claims.not_probed.items()):
        terminalreporter.write_line(f"  not probed: {sid}: {why}")
    from .runner import STATS

    if STATS:
        ok, declined, invalid = (sum(v[k] for v in STATS.values()) for k in range(3))
        terminalreporter.write_line(f"drawn examples: {ok} checked, {declined} declined by the executor (with "
                                    f"reasons), {invalid} invalid (rejected by eager or the core), over "
                                    f"{len(STATS)} searches")
    from .check import CORE_DIFFERENCES

    if CORE_DIFFERENCES:
        terminalreporter.section("thunder conformance: the core's own differences from eager (not failed here)")
        for sid, what in sorted(CORE_DIFFERENCES.items()):
            terminalreporter.write_line(f"{sid}: {what}")
