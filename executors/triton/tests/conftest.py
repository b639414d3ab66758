"""The triton executor's tests: kernels run for real on CPU tensors in Triton's interpreter.

Set before thunder_core and triton are imported (both read them then): TRITON_INTERPRET=1
(the interpreter, no GPU here), TRITON_HOME in a temporary directory (no cache in the user's
home), the IR verifier on, and tc.jit's default executors torch only (tests name triton).
Everything is skipped, with the reason, when triton or numpy cannot be imported.
"""

import os
import tempfile

os.environ["TRITON_INTERPRET"] = "1"
os.environ.setdefault("TRITON_HOME", tempfile.mkdtemp(prefix="thunder_triton_home_"))
os.environ.setdefault("TRITON_DEFAULT_FP_FUSION", "1")  # Triton 3.9's default, without its warning
os.environ.setdefault("THUNDER_CORE_VERIFY", "1")
os.environ.setdefault("THUNDER_CORE_EXECUTORS", "torch")
# tiny tensors: always split into forward and backward traces, so backward claims are what
# runs (priced as users get it, small traces run op by op under PyTorch's autograd instead)
os.environ.setdefault("THUNDER_CORE_SPLIT_US", "0")

try:
    import numpy  # noqa: F401
    import triton  # noqa: F401
    MISSING = None
except Exception as e:  # noqa: BLE001
    MISSING = f"triton and numpy are needed (pip install -c constraints.txt triton==3.9.0 numpy): {e}"


def pytest_collection_modifyitems(config, items):
    if MISSING is None:
        return
    import pytest

    here = os.path.dirname(__file__)
    for item in items:
        if str(item.fspath).startswith(here):
            item.add_marker(pytest.mark.skip(reason=MISSING))
