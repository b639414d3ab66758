"""As tests/conftest.py (set before thunder_core is imported, which reads them): every trace compiled in these tests goes through the IR verifier, and
tc.jit's default executors are torch only (the inductor tests name inductor explicitly)."""

import os
import sys

import pytest

os.environ.setdefault("THUNDER_CORE_VERIFY", "1")
os.environ.setdefault("THUNDER_CORE_EXECUTORS", "torch")
# tiny tensors: always split into forward and backward traces, so backward claims are what
# runs (priced as users get it, small traces run op by op under PyTorch's autograd instead)
os.environ.setdefault("THUNDER_CORE_SPLIT_US", "0")


@pytest.fixture(autouse=True)
def _settled_background_compiles():
    """Background compiles a test queued (tiered execution) are dropped when it ends and the one
    running is waited for, so no compile thread runs beside a later test."""
    yield
    tiered = sys.modules.get("thunder_core.execution.tiered")  # (not imported: nothing was queued)
    if tiered is not None:
        tiered.cancel_queued()
        assert tiered.wait_for_compiles(300), "a background compile still runs 300 s after its test ended"
