"""``python -m thunder_core doctor``: installed plugins, their executors, whether each can run
on this machine (and why not), and the device profiles each can plan for (``tc.plan``)."""

from __future__ import annotations

import warnings

from . import hookspecs, plugins
from .execution.profiles import PROFILES


def rows() -> list[dict]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", plugins.PluginWarning)
        reg = plugins.registry()
        executors, owners = reg.executors, reg.executor_plugins
        records = reg.records   # after the executors: a plugin whose hook raised is disabled by now
    out = []
    for r in records:
        provided = [ex for name, ex in executors.items() if owners[name] is r]
        names = [ex.name for ex in provided] if r.problem is None else []
        status = r.problem or "; ".join(f"{ex.name}: " + (ex.unavailable() or "available") for ex in provided) or "ok"
        out.append({"plugin": r.name, "distribution": r.distribution, "version": r.version,
                    "api": getattr(r.module, "THUNDER_CORE_API", hookspecs.API_VERSION) if r.module else "?",
                    "executors": ", ".join(names), "status": status})
    return out


def executor_rows() -> list[dict]:
    """One row per executor: its declared properties and the targets ``tc.plan`` may use it for."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", plugins.PluginWarning)
        executors = plugins.registry().executors
    out = []
    for ex in executors.values():
        kinds = [k for k, on in (("fallback", ex.fallback), ("fuses", ex.fuses), ("regions", ex.claim is not None),
                                 ("artifacts", ex.artifacts is not None)) if on]
        out.append({"executor": ex.name, "devices": ", ".join(ex.device_types), "declares": ", ".join(kinds),
                    "here": "runs" if ex.unavailable() is None else "no",
                    "plans for": ", ".join(n for n, p in PROFILES.items() if ex.supports(p) is None)})
    return out


def _table(rs, cols) -> list[str]:
    widths = {c: max([len(c)] + [len(str(r[c])) for r in rs]) for c in cols}
    lines = ["  ".join(c.ljust(widths[c]) for c in cols), "  ".join("-" * widths[c] for c in cols)]
    return [line.rstrip() for line in lines + ["  ".join(str(r[c]).ljust(widths[c]) for c in cols) for r in rs]]


def report() -> str:
    rs = rows()
    lines = [f"thunder_core plugin API {hookspecs.API_VERSION}", ""]
    lines += _table(rs, ["plugin", "distribution", "version", "api", "executors", "status"])
    if not rs:
        lines.append("(no plugins installed: pip install thunder-executor-torch)")
    es = executor_rows()
    if es:
        lines += ["", *_table(es, ["executor", "devices", "declares", "here", "plans for"])]
    return "\n".join(lines)
