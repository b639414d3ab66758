"""pytest fixtures thunder_core's own test suites share (import one into a conftest.py to use it)."""

import sys

import pytest


@pytest.fixture(autouse=True)
def _settled_background_compiles():
    """Background compiles a test queued (tiered execution) are dropped when it ends and the one
    running is waited for, so no compile thread runs beside a later test."""
    yield
    tiered = sys.modules.get("thunder_core.execution.tiered")  # (not imported: nothing was queued)
    if tiered is not None:
        tiered.cancel_queued()
        assert tiered.wait_for_compiles(300), "a background compile still runs 300 s after its test ended"
