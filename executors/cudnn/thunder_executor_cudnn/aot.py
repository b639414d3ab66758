"""Ahead-of-time artifacts for ``tc.plan``: each claimed region's graphs, built for the
target's architecture with its device description (:mod:`.devices`), validated and lowered
to libcudnn's operation graphs, with what was not checked stated.

Measured with nvidia-cudnn-frontend 1.32 and libcudnn 9.26 on a machine without a GPU or
driver, for attention and normalization graphs alike: ``validate()`` (the frontend's
checks: its own Python validator for attention, its C++ node checks for normalizations)
and ``build_operation_graph()`` in libcudnn pass. The frontend defers libcudnn's lowering
of an attention graph to planning (one of its Python engines may serve it), so
``graph.key()``, the backend's cache key, is what makes libcudnn lower and build it here.
Execution plans and support checks need the device: libcudnn's engine compiler loads
the driver (``libcuda.so.1``).

Without a device description (libcudnn 9.27 or newer loads ``libcuda.so.1`` with its
engines, so it makes none without a driver) the frontend lowers to libcudnn on a cuDNN
handle, which needs the driver; then only the frontend's checks run, as the record says.
"""

from __future__ import annotations

import json

from thunder_core.extend import Artifact, RegionNumbers

from .graphs import describe, steps
from .library import sm_for, versions
from .specs import spec_of

NOT_RUN = "not run: needs a GPU and its driver (libcudnn's engine compiler loads libcuda.so.1)"


def driver_missing(e: BaseException) -> bool:
    """Is ``e`` the frontend failing to load the NVIDIA driver (libcuda)?"""
    return type(e).__name__ == "DynamicLibNotFoundError" or "driver" in str(e).lower()


def check(step) -> dict:
    """Validate ``step``'s graph and have libcudnn build its operation graph, as far as this
    machine allows (once per graph); what passed, and what was not run and why. A graph cuDNN
    rejects raises (``cudnn.cudnnGraphNotSupportedError``, ``ValueError`` or ``RuntimeError``)."""
    if step.checked is not None:
        return step.checked
    g, stage = step.graph, "validate"
    try:
        g.validate()
        stage = "lower"
        g.build_operation_graph()
        key = g.key()  # lowers what the frontend deferred (attention): libcudnn builds its operation graph
    except Exception as e:  # noqa: BLE001
        if not driver_missing(e):
            raise
        why = f"lowering to libcudnn with {step.lowering} needs the NVIDIA driver, absent here ({type(e).__name__})"
        step.checked = {
            "validate": "passed (the frontend's validator)" if stage == "lower" else
                        f"partly: the frontend's shape inference and tensor checks passed; {why}",
            "build_operation_graph": f"not run: {why}", "execution_plans": NOT_RUN, "check_support": NOT_RUN}
        return step.checked
    step.checked = {"validate": "passed",
                    "build_operation_graph": f"passed: libcudnn lowered the graph, with {step.lowering}, and built "
                                             f"its operation graph (backend key {key})",
                    "execution_plans": NOT_RUN, "check_support": NOT_RUN}
    return step.checked


def artifacts(region, profile):
    """One ``"cudnn-graph"`` artifact per graph of each claimed symbol: the graph as JSON
    (``graph.inspect()`` with the roles and what was checked), built for ``sm_<arch>`` of the
    target; the note says what passed and what could not be checked without a device."""
    sm = sm_for(profile)
    numbers = RegionNumbers(region)
    sizes = ", ".join(f"{p.name}={v}" for p, v in zip(numbers.symbols, numbers.hints()))
    for b in numbers.concrete().bsyms:  # symbolic sizes: the example's (calls build graphs for their own)
        spec = spec_of(b)
        if isinstance(spec, str):
            continue
        for step in steps(spec, sm, aot=True):
            checked = check(step)
            content = {**describe(step), "sm_version": sm, "checked": checked, "library": versions()}
            passed = [k for k, v in checked.items() if v.startswith("passed")]
            note = (f"{step.name} for sm_{sm} ({b.sym.id}): built; {', '.join(passed) or 'validate partly'} passed; "
                    f"not checked without a device: "
                    f"{', '.join(k for k, v in checked.items() if not v.startswith('passed'))}")
            if sizes:
                note += f"; for the example's sizes ({sizes}): at run time a graph is built per call's sizes"
            yield Artifact("cudnn-graph", json.dumps(content, indent=1, default=str), note)
