"""The cudnn executor's tests. Those that build graphs need the cuDNN frontend
(``nvidia-cudnn-frontend``) and libcudnn (``nvidia-cudnn-cu13``): without them they are
skipped with the reason. No GPU is needed (nor used): graphs are built and validated, never
executed.
"""

import os

os.environ.setdefault("THUNDER_CORE_VERIFY", "1")
os.environ.setdefault("THUNDER_CORE_EXECUTORS", "torch")
# tiny tensors: always split into forward and backward traces, so backward claims are what
# runs (priced as users get it, small traces run op by op under PyTorch's autograd instead)
os.environ.setdefault("THUNDER_CORE_SPLIT_US", "0")

import pytest  # noqa: E402

from thunder_executor_cudnn.library import missing  # noqa: E402

MISSING = missing()


def pytest_collection_modifyitems(config, items):
    if MISSING is None:
        return
    here = os.path.dirname(__file__)
    for item in items:
        if str(item.fspath).startswith(here) and "needs_cudnn" in item.keywords:
            item.add_marker(pytest.mark.skip(reason=f"needs the cuDNN frontend: {MISSING}"))


def pytest_configure(config):
    config.addinivalue_line("markers", "needs_cudnn: builds cuDNN graphs (skipped when the frontend cannot load)")
