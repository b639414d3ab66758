"""Ahead-of-time artifacts for ``tc.plan``: each claimed region's graphs, built for the
target's architecture, validated and lowered to their operation graphs as far as this
machine allows, with what was not checked stated.

Measured with nvidia-cudnn-frontend 1.32 and libcudnn 9.28 on a machine without a GPU or
driver: attention graphs pass ``validate()`` (the frontend's own SDPA validator: cuDNN's
graph-semantic rules) and ``build_operation_graph()``. Normalization graphs have no such
validator: ``validate()`` runs the frontend's shape inference and tensor checks, then lowers
the graph to libcudnn, which needs a cuDNN handle and so the NVIDIA driver. Execution plans,
support checks and plan builds need a GPU for every graph.
"""

from __future__ import annotations

import json

from thunder_core.extend import Artifact

from .graphs import describe, steps
from .library import sm_for, versions
from .specs import spec_of

NOT_RUN = "not run: needs a GPU and its driver"


def driver_missing(e: BaseException) -> bool:
    """Is ``e`` the frontend failing to load the NVIDIA driver (libcuda)?"""
    return type(e).__name__ == "DynamicLibNotFoundError" or "driver" in str(e).lower()


def check(step) -> dict:
    """Validate ``step``'s graph and build its operation graph, as far as this machine allows
    (once per graph); what passed, and what was not run and why. A graph cuDNN rejects raises
    (``cudnn.cudnnGraphNotSupportedError`` or ``ValueError``)."""
    if step.checked is not None:
        return step.checked
    g = step.graph
    try:
        g.validate()
    except Exception as e:  # noqa: BLE001
        if not driver_missing(e):
            raise
        step.checked = {
            "validate": ("partly: the frontend's shape inference and tensor checks passed; lowering the graph to "
                         f"libcudnn needs the NVIDIA driver, absent here ({type(e).__name__})"),
            "build_operation_graph": NOT_RUN, "execution_plans": NOT_RUN, "check_support": NOT_RUN}
        return step.checked
    g.build_operation_graph()
    lowered = getattr(g, "_lowered_graph", None) is not None
    by = ("libcudnn validated and lowered it" if lowered else
          "checked by the frontend's own validator (cuDNN's graph-semantic rules); libcudnn sees the graph only when "
          "execution plans are created")
    step.checked = {"validate": f"passed ({by})", "build_operation_graph": "passed",
                    "execution_plans": NOT_RUN, "check_support": NOT_RUN}
    return step.checked


def artifacts(region, profile):
    """One ``"cudnn-graph"`` artifact per graph of each claimed symbol: the graph as JSON
    (``graph.inspect()`` with the roles and what was checked), built for ``sm_<arch>`` of the
    target; the note says what passed and what could not be checked without a device."""
    sm = sm_for(profile)
    for b in region.bsyms:
        spec = spec_of(b)
        if isinstance(spec, str):
            continue
        for step in steps(spec, sm):
            checked = check(step)
            content = {**describe(step), "sm_version": sm, "checked": checked, "library": versions()}
            passed = [k for k, v in checked.items() if v.startswith("passed")]
            note = (f"{step.name} for sm_{sm} ({b.sym.id}): built; {', '.join(passed) or 'validate partly'} passed; "
                    f"not checked without a device: "
                    f"{', '.join(k for k, v in checked.items() if not v.startswith('passed'))}")
            yield Artifact("cudnn-graph", json.dumps(content, indent=1, default=str), note)
