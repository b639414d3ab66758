"""``python -m thunder_core doctor``: installed plugins, their executors, and whether each can
run on this machine (and why not)."""

from __future__ import annotations

import warnings

from . import hookspecs, plugins


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


def report() -> str:
    rs = rows()
    cols = ["plugin", "distribution", "version", "api", "executors", "status"]
    widths = {c: max([len(c)] + [len(str(r[c])) for r in rs]) for c in cols}
    lines = [f"thunder_core plugin API {hookspecs.API_VERSION}", ""]
    lines.append("  ".join(c.ljust(widths[c]) for c in cols))
    lines.append("  ".join("-" * widths[c] for c in cols))
    for r in rs:
        lines.append("  ".join(str(r[c]).ljust(widths[c]) for c in cols))
    if not rs:
        lines.append("(no plugins installed: pip install thunder-executor-torch)")
    return "\n".join(lines)
