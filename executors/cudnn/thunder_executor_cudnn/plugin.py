"""Entry point module of the thunder_core plugin (group ``thunder_core``, name ``cudnn``)."""

from __future__ import annotations

import importlib.util

from thunder_core.extend import API_VERSION, Executor, hookimpl

from . import __version__
from .claim import claim
from .library import missing
from .specs import check

THUNDER_CORE_API = API_VERSION

#: per-call overhead of one cuDNN graph execution (µs): the Python frontend's execute (a variant
#: pack from a dict, the workspace, the handle's stream) on top of a kernel launch. Measured on an
#: H100 (cuDNN 9.19, frontend 1.32, 2026-11-27, scripts/gpu_check.py): a float16 causal attention
#: (2, 8, 2048, 128) took 95-119 µs per call through cuDNN where torch's flash kernel took 53 µs
#: for the same work: ~60 µs more than the kernel.
DISPATCH_US = {"cuda": 60.0}


def unavailable() -> str | None:
    import torch

    if not torch.cuda.is_available():
        # the frontend is imported only where it can run (it cost a CPU program's first tc.jit
        # ~0.03 s); an absent one still gets the import's own message
        if importlib.util.find_spec("cudnn") is None:
            return missing()
        return ("no CUDA device; tc.plan(..., target='h100') still builds and validates its graphs ahead of time "
                "(without a GPU)")
    reason = missing()
    if reason:
        return reason
    major, _ = torch.cuda.get_device_capability()
    if major < 8:
        return f"the GPU is sm_{major}x; cuDNN's fused attention and normalization graphs need sm_80 or newer"
    return None


def can_plan(target) -> str | None:
    if target.device_type != "cuda":
        return "plans only for CUDA targets"
    reason = missing()
    return f"cannot build its graphs: {reason}" if reason else None


def _artifacts(region, profile):
    from .aot import artifacts

    return artifacts(region, profile)


CUDNN = Executor("cudnn", version=__version__, api_version=THUNDER_CORE_API, unavailable=unavailable,
                 device_types=("cuda",), can_plan=can_plan, dispatch_us=DISPATCH_US, check=check, claim=claim,
                 artifacts=_artifacts)


@hookimpl
def thunder_core_executors():
    return [CUDNN]
