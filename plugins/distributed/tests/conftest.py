"""The distributed plugin's tests: 2 ranks on gloo (CPU), spawned once per session.

Every trace compiled in the ranks goes through the IR verifier (the environment below is
inherited by the spawned processes). Tests that need the ranks take the ``ranks`` fixture: a
live pool (distributed_ranks.py), made again after a test killed the previous one. Everything
is skipped, with the reason, when torch.distributed (gloo) is missing from this build of torch
or thunder-distributed is not installed (pip install -e plugins/distributed).
"""

import importlib.metadata
import os
import sys

import pytest

os.environ.setdefault("THUNDER_CORE_VERIFY", "1")
os.environ.setdefault("THUNDER_CORE_EXECUTORS", "torch")
# tiny tensors: always split into forward and backward traces, so backward claims are what
# runs (priced as users get it, small traces run op by op under PyTorch's autograd instead)
os.environ.setdefault("THUNDER_CORE_SPLIT_US", "0")
sys.path.insert(0, os.path.dirname(__file__))

_POOL = []


@pytest.fixture
def ranks():
    from distributed_ranks import Ranks

    if not _POOL or not _POOL[0].alive:
        _POOL[:] = [Ranks(2)]
    return _POOL[0]


def pytest_sessionfinish(session, exitstatus):
    for pool in _POOL:
        pool.close()


def _missing():
    import torch.distributed as dist

    if not dist.is_available() or not dist.is_gloo_available():
        return "this build of torch has no torch.distributed with gloo"
    if not any(ep.name == "distributed" for ep in importlib.metadata.entry_points(group="thunder_core")):
        return "thunder-distributed is not installed (pip install -e plugins/distributed)"
    return None


def pytest_collection_modifyitems(config, items):
    reason = _missing()
    if reason is None:
        return
    here = os.path.dirname(__file__)
    for item in items:
        if str(item.fspath).startswith(here):
            item.add_marker(pytest.mark.skip(reason=reason))
