"""The conformance kit's tests: collected by ``pytest --pyargs thunder_core.testing.conformance
--thunder-executor NAME`` (plugin.py parametrizes them by the symbols the executor claims;
runner.py holds what each one checks). Without ``--thunder-executor`` every test skips."""

import pytest

from .plugin import get_kit


@pytest.fixture
def kit(request):
    found = get_kit(request.config)
    if found is None:
        pytest.skip("the conformance kit runs with --thunder-executor NAME (pytest plugin "
                    "thunder_core.testing.conformance.plugin)")
    return found


@pytest.fixture
def symbol():
    pytest.skip("parametrized by the conformance plugin with --thunder-executor")


def test_drawn_calls(kit, symbol):
    from .runner import drawn_calls

    drawn_calls(kit, symbol)


def test_opinfo_samples(kit, symbol):
    from .runner import opinfo_samples

    opinfo_samples(kit, symbol)


def test_claims_honest(kit, symbol):
    from .runner import claims_honest

    claims_honest(kit, symbol)


def test_fused_chains(kit):
    from .runner import fused_chains

    fused_chains(kit)


def test_target_plan(kit, symbol):
    from .runner import target_plan

    target_plan(kit, symbol)


def test_declaration(kit):
    from .runner import declaration

    declaration(kit)
