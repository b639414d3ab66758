"""Every trace compiled during the tests goes through the IR verifier."""

import importlib.util
import os
import sys

import pytest

os.environ.setdefault("THUNDER_CORE_VERIFY", "1")
# tc.jit's default executors in tests: torch only (inductor compiles take seconds; its own
# tests name it explicitly)
os.environ.setdefault("THUNDER_CORE_EXECUTORS", "torch")
# The suite's tensors are tiny: priced at its real fixed cost, the split into a forward and a
# backward trace would lose to PyTorch's autograd op by op on almost every test needing
# gradients (execution/autograd_choice.py), and the VJP rules, the split and its runtime, which
# every model of real size runs, would go untested. Here the split costs nothing extra, so traces
# split; tests/execution/test_autograd_choice.py tests the choice at the real price, and the
# docs' examples (tests/test_docs.py) run as users get them.
os.environ.setdefault("THUNDER_CORE_SPLIT_US", "0")

if importlib.util.find_spec("torch") is not None:
    import thunder_core.api

    thunder_core.api.VERIFY_TRACES = True


@pytest.fixture
def real_split_price(monkeypatch):
    """The split priced as users get it (THUNDER_CORE_SPLIT_US above)."""
    from thunder_core.execution import autograd_choice

    monkeypatch.setattr(autograd_choice, "SPLIT_US", None)


@pytest.fixture(autouse=True)
def _settled_background_compiles():
    """Background compiles a test queued (tiered execution) are dropped when it ends and the one
    running is waited for, so no compile thread runs beside a later test."""
    yield
    tiered = sys.modules.get("thunder_core.execution.tiered")  # (not imported: nothing was queued)
    if tiered is not None:
        tiered.cancel_queued()
        assert tiered.wait_for_compiles(300), "a background compile still runs 300 s after its test ended"
