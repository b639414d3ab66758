"""Which executor the kit checks, and the company it runs in.

``resolve(spec)`` finds the executor under test: an installed executor's name
(``thunder_core.extend.registry().executors``), or ``module:attribute`` /
``path/to/file.py:attribute`` naming an ``Executor`` object (an executor not installed yet).

The kit runs the executor with the installed *fallback* (``Executor.fallback``: the one that
implements every symbol, op by op) so any program has a cover, but with the fallback's
per-call overhead made prohibitive (:func:`penalized_fallback`): whatever the executor claims
wins, so a correct claim is exercised even where it would lose on cost, and what the executor
claimed is exactly what ran.
"""

from __future__ import annotations

import dataclasses
import importlib
import importlib.util
import math
import os

#: per-call overhead given to the fallback (µs): no claim of the executor under test costs as much
PENALTY_US = 1e9
FALLBACK_NAME = "conformance-fallback"


def resolve(spec):
    """The ``Executor`` named by ``spec`` (an installed name, ``module:attr`` or ``file.py:attr``)."""
    from thunder_core.extend import Executor, registry

    if not isinstance(spec, str):
        return spec
    installed = registry().executors
    if spec in installed:
        return installed[spec]
    if ":" in spec:
        where, attr = spec.rsplit(":", 1)
        if where.endswith(".py") or os.sep in where:
            name = "thunder_conformance_" + os.path.splitext(os.path.basename(where))[0]
            loader = importlib.util.spec_from_file_location(name, where)
            if loader is None:
                raise ValueError(f"--thunder-executor {spec!r}: cannot load {where!r}")
            module = importlib.util.module_from_spec(loader)
            loader.loader.exec_module(module)
        else:
            module = importlib.import_module(where)
        ex = getattr(module, attr)
        if not isinstance(ex, Executor):
            raise TypeError(f"--thunder-executor {spec!r} is a {type(ex).__name__}, not a thunder_core.extend.Executor")
        return ex
    raise ValueError(f"--thunder-executor {spec!r}: no installed executor has that name (installed: "
                     f"{', '.join(sorted(installed)) or 'none'}); give an installed name or module:attribute.")


def fallback():
    """The installed fallback executor (the one that runs every symbol op by op)."""
    from thunder_core.extend import registry

    found = [ex for ex in registry().executors.values() if ex.fallback]
    if not found:
        raise RuntimeError("the conformance kit compares against a fallback executor (Executor.fallback=True, e.g. "
                           "'torch' from thunder-executor-torch), and none is installed.")
    return found[0]


def penalized_fallback():
    """The fallback under another name, with a prohibitive per-call overhead (see the module
    docstring). Its name differs so that calibration data for the real one does not apply."""
    return dataclasses.replace(fallback(), name=FALLBACK_NAME, dispatch_us=PENALTY_US, claim=None)


def company(executor):
    """The ``executors=[...]`` list a check runs with: the executor alone when it is itself a
    fallback, else the executor and the penalized fallback."""
    return [executor] if executor.fallback else [executor, penalized_fallback()]


def decline_reason(executor, bsym):
    """What the executor's checkers say about ``bsym``: None (accepted) or the reason."""
    from thunder_core.execution.claims import _decline_reason

    return _decline_reason(executor, bsym)


def check_reason(executor, bsym, reason):
    """A decline must carry a reason: a non-empty string."""
    if reason is not None and not (isinstance(reason, str) and reason.strip()):
        raise AssertionError(f"executor {executor.name!r} declined {bsym.sym.id} without a reason (its checker "
                             f"returned {reason!r}; return None to accept, or a string saying why)")


def check_cost(executor, what, cost):
    if not (isinstance(cost, (int, float)) and math.isfinite(cost) and cost > 0):
        raise AssertionError(f"executor {executor.name!r}: the estimated cost of {what} is {cost!r}; costs must be "
                             "finite and positive (µs)")
