"""Every trace compiled during the tests goes through the IR verifier."""

import importlib.util
import os
import sys

import pytest

os.environ.setdefault("THUNDER_CORE_VERIFY", "1")
# tc.jit's default executors in tests: torch only (inductor compiles take seconds; its own
# tests name it explicitly)
os.environ.setdefault("THUNDER_CORE_EXECUTORS", "torch")

if importlib.util.find_spec("torch") is not None:
    import thunder_core.api

    thunder_core.api.VERIFY_TRACES = True


@pytest.fixture(autouse=True)
def _settled_background_compiles():
    """Background compiles a test queued (tiered execution) are dropped when it ends and the one
    running is waited for, so no compile thread runs beside a later test."""
    yield
    tiered = sys.modules.get("thunder_core.execution.tiered")  # (not imported: nothing was queued)
    if tiered is not None:
        tiered.cancel_queued()
        assert tiered.wait_for_compiles(300), "a background compile still runs 300 s after its test ended"
