"""As tests/conftest.py (set before thunder_core is imported, which reads them): every trace compiled in these tests goes through the IR verifier, and
tc.jit's default executors are torch only (the inductor tests name inductor explicitly)."""

import os

os.environ.setdefault("THUNDER_CORE_VERIFY", "1")
os.environ.setdefault("THUNDER_CORE_EXECUTORS", "torch")

from thunder_core.testing.fixtures import _settled_background_compiles  # noqa: E402, F401 - autouse
