"""The plugin author's manual: every hook thunder_core calls, grouped by phase.

A plugin is a module listed under the ``thunder_core`` entry-point group of its
distribution::

    [project.entry-points.thunder_core]
    myexec = "my_package.plugin"

holding functions marked ``@thunder_core.hookimpl`` whose names are the hooks below. The
core's own behaviour registers through the same hooks. ``API_VERSION`` is the major version
of this contract; a plugin declares the version it was written for (``Executor.api_version``
for executors, a module attribute ``THUNDER_CORE_API`` otherwise) and a mismatch disables it
with a warning.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pluggy

if TYPE_CHECKING:
    from .execution.executor import Executor

API_VERSION = 1
hookspec = pluggy.HookspecMarker("thunder_core")
hookimpl = pluggy.HookimplMarker("thunder_core")

# --------------------------------------------------------------------------- executors


@hookspec
def thunder_core_executors() -> list[Executor]:
    """Return the executors this plugin provides.

    :return: a list of :class:`thunder_core.execution.executor.Executor`. Every plugin's
        list is collected (not ``firstresult``); two executors with one name are an error
        naming both distributions.

    An executor that cannot run here (no CUDA device, library missing) is still returned,
    with ``unavailable`` giving the reason: ``python -m thunder_core doctor`` shows it and
    ``executors=None`` leaves it out.

    **Example**::

        from thunder_core import hookimpl
        from thunder_core.execution.executor import Executor

        @hookimpl
        def thunder_core_executors():
            return [Executor("myexec", implementations=lambda: {"prims.add": my_add},
                             version="1.0", api_version=1)]
    """


# --------------------------------------------------------------------------- sharp edges


@hookspec
def thunder_core_sharp_edge_checkers() -> list:
    """Return sharp-edge checkers (:class:`thunder_core.sharp_edges.SharpEdgeChecker`).

    :return: a list; every plugin's list is collected. Checker names must be unique.

    A checker's ``check(capture)`` runs once per compile over the capture (``capture.events``
    is the interpreter's event log: reads of outside data, writes, opaque calls;
    ``capture.trace`` the computation trace) and yields ``SharpEdge(checker, message)``. The
    user's level for the checker decides: "allow" ignores, "warn" emits
    ``tc.SharpEdgeWarning``, "error" raises ``tc.SharpEdgeError``. Messages name the user's
    file:line, what was found and how to fix or silence it.

    **Example**::

        @hookimpl
        def thunder_core_sharp_edge_checkers():
            def check(cap):
                for e in cap.events:
                    if e.kind == "read-global" and e.key.isupper():
                        yield SharpEdge("constants", f"{e.where}: reads constant {e.key}")
            return [SharpEdgeChecker("constants", "warn", check)]
    """
