"""As tests/conftest.py: every trace compiled in these tests goes through the IR verifier, and
tc.jit's default executors are torch only (the inductor tests name inductor explicitly)."""

import os

os.environ.setdefault("THUNDER_CORE_VERIFY", "1")
os.environ.setdefault("THUNDER_CORE_EXECUTORS", "torch")

import thunder_core.api  # noqa: E402

thunder_core.api.VERIFY_TRACES = True
