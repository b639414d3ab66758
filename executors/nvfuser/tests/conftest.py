"""The nvfuser executor's tests.

Tests marked ``needs_nvfuser`` build real ``FusionDefinition``s with ``nvfuser_direct`` (no GPU
needed); where it cannot be imported (the main Python 3.11 / torch 2.13 venv: nvFuser's
wheels are built for one torch version each) they are skipped with the reason. The others
need only the core: the checker, the claims (planned with a copy of the executor that makes
no artifacts), the cost and the availability messages.
"""

import os

os.environ.setdefault("THUNDER_CORE_VERIFY", "1")
os.environ.setdefault("THUNDER_CORE_EXECUTORS", "torch")
# tiny tensors: always split into forward and backward traces, so backward claims are what
# runs (priced as users get it, small traces run op by op under PyTorch's autograd instead)
os.environ.setdefault("THUNDER_CORE_SPLIT_US", "0")

try:
    import nvfuser_direct  # noqa: F401
    MISSING = None
except Exception as e:  # noqa: BLE001
    MISSING = (f"nvfuser_direct cannot be imported ({type(e).__name__}: {e}); the nvFuser lane of scripts/test.sh "
               f"runs these in .venv-nvfuser (Python 3.12, torch 2.10.0, nvfuser-cu128-torch210)")


def pytest_configure(config):
    config.addinivalue_line("markers", "needs_nvfuser: builds FusionDefinitions with nvfuser_direct")


def pytest_collection_modifyitems(config, items):
    if MISSING is None:
        return
    import pytest

    for item in items:
        if item.get_closest_marker("needs_nvfuser"):
            item.add_marker(pytest.mark.skip(reason=MISSING))
