"""Executor ``testexec`` implementing ``ltorch.add`` and ``ltorch.mul`` (recording each call
in CALLS), available only when THUNDER_TEST_PLUGIN=1 so installing it changes nothing else;
and a transform ``test-tag-trace`` that renames the computation trace."""

import os

import torch

from thunder_core.execution.executor import Executor
from thunder_core.hookspecs import hookimpl

THUNDER_CORE_API = 1
CALLS = []


def _add(a, b, alpha=1):
    CALLS.append("add")
    return torch.add(a, b, alpha=alpha)


def _mul(a, b):
    CALLS.append("mul")
    return torch.mul(a, b)


def _unavailable():
    return None if os.environ.get("THUNDER_TEST_PLUGIN") == "1" else "test executor: set THUNDER_TEST_PLUGIN=1 to enable it"


@hookimpl
def thunder_core_executors():
    return [Executor("testexec", lambda: {"ltorch.add": _add, "ltorch.mul": _mul}, version="0.0.1",
                     api_version=THUNDER_CORE_API, unavailable=_unavailable)]


@hookimpl
def thunder_core_transforms():
    def tag(trace):
        return trace.derive(name="tagged")
    return {"test-tag-trace": tag}
