"""Ahead-of-time artifacts for ``tc.plan(..., target=<a CUDA profile>)``, without a GPU.

For each nvFuser region: its ``FusionDefinition`` built with ``nvfuser_direct`` (inputs
described as contiguous: traces do not model strides, and at run time another layout gets a
definition of its own), as nvFuser prints it back as Python (``repr(fd)``, kind
``"nvfuser-fusion"``), and its fusion math (``fd.fusion.print_math()``, kind
``"nvfuser-math"``: nvFuser's IR after its own lowering of each op, e.g. ``var`` into sums).
Kernels are not compiled: nvFuser schedules and compiles only when it executes, on a GPU.
"""

from __future__ import annotations

import threading

from thunder_core.extend import Artifact, region_key

_LOCK = threading.Lock()
_MADE: dict = {}  # region_key -> [Artifact]


def artifacts(region, profile):
    key = region_key(region)
    with _LOCK:
        made = _MADE.get(key)
    if made is not None:
        return made
    import nvfuser_direct

    from .definition import build

    fd, extra = build(region)
    version = nvfuser_direct.version() if hasattr(nvfuser_direct, "version") else "?"
    inputs = len(fd.fusion.inputs())
    outputs = len(fd.fusion.outputs())
    sizes = f", {len(extra)} of them symbolic sizes computed per call" if extra else ""
    note = (f"nvFuser {version} definition of {len(region.bsyms)} symbols, {inputs} inputs (contiguous{sizes}), "
            f"{outputs} outputs; for {profile.name}: built without a GPU, not scheduled, compiled or run")
    made = [Artifact("nvfuser-fusion", repr(fd), note),
            Artifact("nvfuser-math", fd.fusion.print_math(), note)]
    with _LOCK:
        _MADE[key] = made
    return made
