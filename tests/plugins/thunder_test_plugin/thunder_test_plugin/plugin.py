"""Executor ``testexec`` implementing ``ltorch.add`` and ``ltorch.mul`` (recording each call
in CALLS) and claiming every ``mul`` followed by an ``add`` of its result as one fused
region; available only when THUNDER_TEST_PLUGIN=1 so installing it changes nothing else.
Its per-op cost (DISPATCH_US) and region cost (REGION_US, None: no region claims) are
module attributes tests can set. Also a transform ``test-tag-trace``."""

import os

import torch

from thunder_core.extend import API_VERSION, Executor, hookimpl, region_callable

THUNDER_CORE_API = API_VERSION
CALLS = []
DISPATCH_US = 1.0
REGION_US = None


def _add(a, b, alpha=1):
    CALLS.append("add")
    return torch.add(a, b, alpha=alpha)


def _mul(a, b):
    CALLS.append("mul")
    return torch.mul(a, b)


IMPLS = {"ltorch.add": _add, "ltorch.mul": _mul}


def _unavailable():
    return None if os.environ.get("THUNDER_TEST_PLUGIN") == "1" else "test executor: set THUNDER_TEST_PLUGIN=1 to enable it"


def _lower(region):
    run = region_callable(region, {"ltorch.add": torch.add, "ltorch.mul": torch.mul})

    def fused(*args):
        CALLS.append("fused")
        return run(*args)
    return fused


def _claim(bsyms, ctx):
    if REGION_US is None:
        return []
    out = []
    for i in range(len(bsyms) - 1):
        a, b = bsyms[i], bsyms[i + 1]
        if a.sym.id == "ltorch.mul" and b.sym.id == "ltorch.add" and any(p is a.output for p in b.flat_args):
            out.append(ctx.claim(i, i + 2, REGION_US, _lower, "mul+add"))
    return out


@hookimpl
def thunder_core_executors():
    return [Executor("testexec", lambda: IMPLS, version="0.0.1", api_version=THUNDER_CORE_API,
                     unavailable=_unavailable, can_plan=lambda target: _unavailable(), dispatch_us=DISPATCH_US,
                     claim=_claim)]


@hookimpl
def thunder_core_transforms():
    def tag(trace):
        return trace.derive(name="tagged")
    return {"test-tag-trace": tag}
