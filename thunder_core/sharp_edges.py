"""Sharp edges: constructs whose jitted behaviour can surprise (reading data the caller did
not pass, writing outside state, calls whose result is frozen at trace time).

A :class:`SharpEdgeChecker` has a name, a default level and a ``check(capture)`` that yields
:class:`SharpEdge` findings. ``tc.jit(fn, sharp_edges=...)`` sets levels: None (each
checker's default), one level for all (``"allow"``/``"warn"``/``"error"``) or a dict
``{"checker-name": level}`` over the defaults. Checkers come from plugins (hook
``thunder_core_sharp_edge_checkers``); the built-in ones are in builtin/sharp_edges.py.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Callable, Iterable, Mapping

from . import plugins

LEVELS = ("allow", "warn", "error")


class SharpEdgeError(RuntimeError):
    """Raised for a sharp edge whose checker is at level "error"."""


class SharpEdgeWarning(UserWarning):
    """Warned for a sharp edge whose checker is at level "warn"."""


@dataclass(frozen=True)
class SharpEdge:
    checker: str
    message: str


@dataclass(frozen=True)
class SharpEdgeChecker:
    """:param name: what users write in ``sharp_edges={name: level}``.
    :param default_level: "allow", "warn" or "error".
    :param check: ``check(capture) -> iterable of SharpEdge`` over a capture (its events,
        trace, guards)."""

    name: str
    default_level: str
    check: Callable[[object], Iterable[SharpEdge]]
    needs_opaque_calls: bool = False


def checkers() -> Mapping[str, SharpEdgeChecker]:
    """name -> checker, of every enabled plugin: read from the current plugin registry, so
    ``plugins.register``/``unregister``/``reload`` take effect on the next ``tc.jit``."""
    return plugins.registry().sharp_edge_checkers


def resolve_levels(spec) -> dict[str, str]:
    """checker name -> level for ``sharp_edges=spec``; raises on unknown names/levels."""
    known = checkers()
    levels = {name: c.default_level for name, c in known.items()}
    if spec is None:
        return levels
    if isinstance(spec, str):
        _check_level(spec)
        return {name: spec for name in known}
    if isinstance(spec, dict):
        for name, level in spec.items():
            if name not in known:
                raise ValueError(f"sharp_edges: unknown checker {name!r}. Installed checkers: {', '.join(sorted(known))}.")
            _check_level(level)
            levels[name] = level
        return levels
    raise TypeError(f"sharp_edges must be None, one of {LEVELS} or a dict {{checker: level}}, not {spec!r}")


def _check_level(level):
    if level not in LEVELS:
        raise ValueError(f"sharp_edges level {level!r} is not one of {', '.join(map(repr, LEVELS))}.")


def stricter(inner: dict[str, str], outer: dict[str, str]) -> dict[str, str]:
    """The levels of ``inner`` that are stricter than ``outer``'s (``"error"`` over ``"warn"``
    over ``"allow"``)."""
    return {k: lv for k, lv in inner.items() if LEVELS.index(lv) > LEVELS.index(outer.get(k, "allow"))}


def run_checkers(capture, levels: dict[str, str]) -> None:
    """Warn or raise for what the enabled checkers find in ``capture``; for what a nested
    jitted function traced inline read and wrote, each checker at the stricter of the two levels."""
    _run(capture, levels)
    for n in getattr(capture, "nested", ()):
        more = stricter(n.jitted._sharp_levels, levels)
        if more:
            _run(n.view(capture), more)


def _run(capture, levels: dict[str, str]) -> None:
    found = checkers()
    for name, level in levels.items():
        if level == "allow":
            continue
        for edge in found[name].check(capture):
            if level == "error":
                raise SharpEdgeError(f"[{edge.checker}] {edge.message}")
            warnings.warn(f"[{edge.checker}] {edge.message}", SharpEdgeWarning, stacklevel=4)
