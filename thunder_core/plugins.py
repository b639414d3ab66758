"""Finding plugins: the ``thunder_core`` entry-point group, loaded through pluggy.

A plugin that fails to import, targets another API major version or raises in a hook is
disabled with a warning (and reported by ``doctor``); ``import thunder_core`` never fails
because of a plugin.
"""

from __future__ import annotations

import functools
import importlib.metadata
import warnings
from dataclasses import dataclass

import pluggy

from . import hookspecs


class PluginWarning(UserWarning):
    """A plugin was disabled; the message says which and why."""


@dataclass
class PluginRecord:
    name: str
    distribution: str
    version: str
    module: object | None
    problem: str | None = None


@functools.lru_cache(maxsize=1)
def _loaded():
    pm = pluggy.PluginManager("thunder_core")
    pm.add_hookspecs(hookspecs)
    records = []
    # The core's own plugins (thunder_core/builtin/) are entry points of the thunder-core
    # distribution like everyone else's (pyproject.toml), loaded first; nothing in the core
    # imports them, so they sit at the top of its layering.
    found = sorted(importlib.metadata.entry_points(group="thunder_core"),
                   key=lambda ep: (_distribution(ep) != "thunder-core", ep.name))
    if not any(_distribution(ep) == "thunder-core" for ep in found):
        warnings.warn("thunder_core's own plugins (thunder_core.builtin) are not registered: the thunder-core "
                      "distribution is not installed. Install it (pip install -e . in a checkout) so tc.jit has its "
                      "built-in lookasides and sharp-edge checkers.", PluginWarning, stacklevel=2)
    for ep in found:
        dist = _distribution(ep)
        version = ep.dist.version if ep.dist else "?"
        try:
            module = ep.load()
        except Exception as e:  # noqa: BLE001 - any failure disables only this plugin
            records.append(PluginRecord(ep.name, dist, version, None, f"import failed: {type(e).__name__}: {e}"))
            warnings.warn(f"thunder_core plugin {ep.name!r} ({dist} {version}) failed to import and is disabled: "
                          f"{type(e).__name__}: {e}", PluginWarning, stacklevel=2)
            continue
        api = getattr(module, "THUNDER_CORE_API", hookspecs.API_VERSION)
        if api != hookspecs.API_VERSION:
            problem = f"written for plugin API {api}, this thunder_core has {hookspecs.API_VERSION}"
            records.append(PluginRecord(ep.name, dist, version, module, problem))
            warnings.warn(f"thunder_core plugin {ep.name!r} ({dist} {version}) is disabled: {problem}.",
                          PluginWarning, stacklevel=2)
            continue
        pm.register(module, name=ep.name)
        records.append(PluginRecord(ep.name, dist, version, module))
    return pm, records


def _distribution(ep) -> str:
    return ep.dist.name if ep.dist else "?"


def _call_hook(hook_name, what):
    """Yield (record, result) of ``hook_name`` for every enabled plugin that implements it;
    a plugin whose hook raises is disabled with a warning (the others go on)."""
    pm, records = _loaded()
    for r in records:
        fn = getattr(r.module, hook_name, None) if r.problem is None and r.module is not None else None
        if fn is None:
            continue
        try:
            result = fn()
        except Exception as e:  # noqa: BLE001 - a broken plugin must not break the others
            r.problem = f"{hook_name} raised {type(e).__name__}: {e}"
            warnings.warn(f"thunder_core plugin {r.name!r}: {r.problem}; its {what} are disabled.", PluginWarning)
            continue
        yield r, result


def _unique(items, what):
    """{name: (value, record)} from (name, value, record) triples; a repeated name is an error."""
    out = {}
    for name, value, r in items:
        if name in out:
            raise RuntimeError(f"Two {what} are named {name!r}: one from {out[name][1].distribution}, one from "
                               f"{r.distribution}. Uninstall one of them.")
        out[name] = (value, r)
    return out


def sharp_edge_checkers() -> dict:
    """name -> SharpEdgeChecker from every enabled plugin (built-ins included)."""
    found = _call_hook("thunder_core_sharp_edge_checkers", "checkers")
    return {k: v for k, (v, _) in _unique(((c.name, c, r) for r, cs in found for c in cs),
                                           "sharp-edge checkers").items()}


def _collect(hook_name, what):
    """{name: (value, record)} from every enabled plugin's dict-returning hook."""
    found = _call_hook(hook_name, what)
    return _unique(((k, v, r) for r, d in found for k, v in (d or {}).items()), what)


def lookasides() -> dict:
    """callable -> replacement, from every enabled plugin (built-ins included)."""
    return {k: v for k, (v, _) in _collect("thunder_core_lookasides", "lookasides").items()}


def transforms() -> dict:
    """name -> transform, from every enabled plugin."""
    return {k: v for k, (v, _) in _collect("thunder_core_transforms", "transforms").items()}


def vjp_rules() -> dict:
    """symbol id -> VJP rule, from every enabled plugin."""
    return {k: v for k, (v, _) in _collect("thunder_core_vjp_rules", "VJP rules").items()}


def define_symbols() -> None:
    """Let every enabled plugin define its symbols (thunder_core_symbols)."""
    for _ in _call_hook("thunder_core_symbols", "symbols"):
        pass


def executors() -> dict:
    """name -> Executor, for every executor of every enabled plugin (available here or not)."""
    return {name: ex for name, (ex, _) in executors_with_plugins().items()}


def executors_with_plugins() -> dict:
    """name -> (Executor, the PluginRecord that provided it)."""
    def provided():
        for r, exs in _call_hook("thunder_core_executors", "executors"):
            for ex in exs or ():
                if ex.api_version != hookspecs.API_VERSION:
                    warnings.warn(f"executor {ex.name!r} of {r.distribution} targets plugin API {ex.api_version}, "
                                  f"this thunder_core has {hookspecs.API_VERSION}; it is disabled.", PluginWarning)
                    continue
                yield ex.name, ex, r
    return _unique(provided(), "executors")
