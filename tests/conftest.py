"""Every trace compiled during the tests goes through the IR verifier."""

import importlib.util
import os

os.environ.setdefault("THUNDER_CORE_VERIFY", "1")
# tc.jit's default executors in tests: torch only (inductor compiles take seconds; its own
# tests name it explicitly)
os.environ.setdefault("THUNDER_CORE_EXECUTORS", "torch")

if importlib.util.find_spec("torch") is not None:
    import thunder_core.api

    thunder_core.api.VERIFY_TRACES = True

from thunder_core.testing.fixtures import _settled_background_compiles  # noqa: E402, F401 - autouse
