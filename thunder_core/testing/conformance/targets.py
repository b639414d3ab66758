"""Where the kit's examples run: ``--thunder-target``.

- ``cpu`` (the default): on this machine's CPU, compared with eager there.
- ``cuda``: on this machine's CUDA GPU, compared with eager on the same GPU. Tensors are made on
  the CPU from their specs' seeds (the same values as under ``cpu``) and moved; the cost model
  uses the GPU's profile (``h100`` on an H100, :func:`thunder_core.execution.profiles.profile_for_device`).
- a GPU profile name (``a100``, ``h100``, ``b200``): nothing runs; claims and plans are checked with
  fake tensors on that device (``tc.plan``).
"""

from __future__ import annotations

import torch

#: the targets whose examples run (the others are plan-only profile names)
RUN_TARGETS = ("cpu", "cuda")

#: where :meth:`TensorSpec.build <thunder_core.testing.conformance.cases.TensorSpec.build>` puts
#: tensors: set by :func:`use` (the kit's target, or a reproducer's)
DEVICE = "cpu"


def runs(target: str) -> bool:
    """Do examples run (and get compared with eager) on ``target``?"""
    return target in RUN_TARGETS


def profile_name(target: str) -> str:
    """The device profile the cost model uses for ``target``."""
    if target == "cuda":
        from thunder_core.execution.profiles import profile_for_device

        return profile_for_device("cuda").name
    return target


def use(target: str) -> None:
    """Make specs build on ``target``'s device (``cuda`` for ``cuda``, else the CPU); raises a
    usage error when ``cuda`` is asked for on a machine without a CUDA device."""
    global DEVICE
    if target == "cuda" and not torch.cuda.is_available():
        raise ValueError("--thunder-target cuda runs the examples on this machine's CUDA GPU, and torch sees none "
                         "here: use --thunder-target cpu to run them on the CPU, or a GPU profile (h100) to check "
                         "only claims and plans with fake tensors")
    DEVICE = "cuda" if target == "cuda" else "cpu"
