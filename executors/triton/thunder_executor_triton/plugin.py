"""Entry point module of the thunder_core plugin (group ``thunder_core``, name ``triton``)."""

from __future__ import annotations

import importlib.util
import os

from thunder_core.extend import API_VERSION, Executor, hookimpl

from . import __version__
from .claim import check, claim

THUNDER_CORE_API = API_VERSION

#: declared per-call overhead of one region (µs). cpu: Triton's interpreter runs a launch as
#: NumPy code, 10-200 ms per launch measured here (a correctness tool, never chosen for speed);
#: cuda: measured on an H100 (Triton 3.6, torch 2.11; `python -m thunder_core calibrate --device
#: cuda`, 2026-11-27): a tiny region's call takes ~37 µs of host time, of which the profile's
#: kernel launch (3 µs) is counted apart: the generated launcher's output allocations and Triton's
#: JIT dispatch (a bare `kernel[grid](...)` took 27 µs there).
DISPATCH_US = {"cpu": 50_000.0, "cuda": 34.0}


def _triton_missing() -> str | None:
    try:
        import numpy  # noqa: F401  (the interpreter needs it)
        import triton  # noqa: F401
    except Exception as e:  # noqa: BLE001
        return f"triton (and numpy) cannot be imported: {type(e).__name__}: {e}"
    return None


def unavailable() -> str | None:
    import torch

    if not torch.cuda.is_available() and os.environ.get("TRITON_INTERPRET") != "1":
        # triton (and numpy) are imported only where they can run: importing them cost a CPU
        # program's first tc.jit ~0.1 s; an absent triton still gets the import's own message
        if importlib.util.find_spec("triton") is None:
            return _triton_missing()
        return ("no CUDA device; set TRITON_INTERPRET=1 to run its kernels on CPU tensors in Triton's interpreter "
                "(slow: a correctness tool); tc.plan(..., target='h100') compiles them ahead of time without a GPU")
    return _triton_missing()


def can_plan(target) -> str | None:
    if target.device_type != "cuda":
        return "plans only for CUDA targets (on the CPU its kernels run only in Triton's interpreter)"
    missing = _triton_missing()
    return f"cannot compile: {missing}" if missing else None


def _artifacts(region, profile):
    from .kernels import artifacts

    return artifacts(region, profile)


TRITON = Executor("triton", version=__version__, api_version=THUNDER_CORE_API, unavailable=unavailable,
                  device_types=("cpu", "cuda"), can_plan=can_plan, dispatch_us=DISPATCH_US, check=check,
                  claim=claim, fuses=True, artifacts=_artifacts)


@hookimpl
def thunder_core_executors():
    return [TRITON]
