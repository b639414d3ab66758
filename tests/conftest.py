"""Every trace compiled during the tests goes through the IR verifier."""

import importlib.util
import os

os.environ.setdefault("THUNDER_CORE_VERIFY", "1")

if importlib.util.find_spec("torch") is not None:
    import thunder_core.api

    thunder_core.api.VERIFY_TRACES = True
