"""Entry point module of the thunder_core plugin (group ``thunder_core``, name ``nvfuser``)."""

from __future__ import annotations

import importlib.util

from thunder_core.extend import API_VERSION, Executor, hookimpl

from . import __version__
from .claim import check, claim

THUNDER_CORE_API = API_VERSION

#: declared per-call overhead of one region (µs) on CUDA devices: the host time of
#: ``FusionDefinition.execute`` on a cache hit (input layout and size lookup, launch). A
#: typical figure, NOT measured here (no GPU); ``python -m thunder_core calibrate`` on a GPU
#: machine measures it.
DISPATCH_US = {"cuda": 6.0}

#: the nvFuser wheel to install, by torch minor version (nvFuser publishes pre-releases only:
#: ``pip install --pre``); the one this package was tested with is the torch 2.10 one
WHEELS = {"2.10": "nvfuser-cu128-torch210 (or nvfuser-cu130-torch210 with a CUDA 13.0 torch)"}

_IMPORT: list = []


def nvfuser_missing() -> str | None:
    """None if ``nvfuser_direct`` imports, else why not and what to install."""
    if not _IMPORT:
        try:
            import nvfuser_direct  # noqa: F401
        except Exception as e:  # noqa: BLE001  (ImportError, or a library built for another torch)
            import torch

            minor = ".".join(torch.__version__.split("+")[0].split(".")[:2])
            wheel = WHEELS.get(minor)
            hint = (f"pip install --pre {wheel}" if wheel else
                    f"no nvFuser wheel is known to this package for torch {torch.__version__}; it was tested with "
                    f"torch 2.10 and nvfuser-cu128-torch210")
            _IMPORT.append(f"nvfuser_direct cannot be imported ({type(e).__name__}: {e}); {hint}")
        else:
            _IMPORT.append(None)
    return _IMPORT[0]


def unavailable() -> str | None:
    import torch

    if not torch.cuda.is_available():
        # nvfuser_direct is imported only where it can run (it imports torch.distributed.tensor
        # and sympy: seconds of a CPU program's first tc.jit); an absent one still gets the
        # import's own message
        if importlib.util.find_spec("nvfuser_direct") is None:
            return nvfuser_missing()
        return ("no CUDA device (nvFuser runs fusions on NVIDIA GPUs only); tc.plan(..., target='h100') still "
                "gives each region's fusion definition")
    return nvfuser_missing()


def can_plan(target) -> str | None:
    if target.device_type != "cuda":
        return "plans only for CUDA targets (nvFuser runs on NVIDIA GPUs only)"
    missing = nvfuser_missing()
    return f"cannot build fusion definitions: {missing}" if missing else None


def _artifacts(region, profile):
    from .aot import artifacts

    return artifacts(region, profile)


NVFUSER = Executor("nvfuser", version=__version__, api_version=THUNDER_CORE_API, unavailable=unavailable,
                   device_types=("cuda",), can_plan=can_plan, dispatch_us=DISPATCH_US, check=check, claim=claim,
                   fuses=True, artifacts=_artifacts)


@hookimpl
def thunder_core_executors():
    return [NVFUSER]
