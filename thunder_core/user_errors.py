"""Errors of tracing say where in the user's code they come from.

An exception that leaves the traced call because thunder_core (or a native call it made for
the program) refused something carries a note naming two lines: the outermost line of the
user's own code that led there (code outside installed libraries, the standard library and
thunder_core) and the innermost traced line, where the construct was met. Exceptions the
program raises itself are left exactly as CPython raises them.
"""

from __future__ import annotations

import functools
import importlib.metadata
import importlib.util
import os
import site
import sysconfig
import traceback

from .frontend.tracebacks import path_forms

_CORE = path_forms(os.path.dirname(__file__))
_LIBRARIES = tuple(os.path.abspath(p) + os.sep for p in {
    *site.getsitepackages(), site.getusersitepackages(), sysconfig.get_paths()["stdlib"],
    sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]} if p)


@functools.lru_cache(maxsize=None)
def plugin_dirs() -> tuple[str, ...]:
    """Package directories of the installed thunder_core plugins (entry points of the
    ``thunder_core`` group, wherever they are installed, editable ones included): their code
    is library code, never the user's (a plugin's lookaside may interpret its own functions)."""
    dirs = []
    for ep in importlib.metadata.entry_points(group="thunder_core"):
        top = ep.value.split(":")[0].split(".")[0]
        try:
            spec = importlib.util.find_spec(top)
        except (ImportError, ValueError):
            continue
        if top != "thunder_core" and spec is not None:
            dirs += [os.path.abspath(loc) + os.sep for loc in spec.submodule_search_locations or ()]
    return tuple(dirs)


def _ours(filename: str) -> bool:
    return filename.startswith(_CORE) or "thunder_executor_" in filename or filename.startswith(plugin_dirs())


def is_user_file(filename: str) -> bool:
    """True for the user's own code: not thunder_core, not an installed library, not the standard library."""
    f = os.path.abspath(filename) if not filename.startswith("<") else filename
    return not _ours(f) and not f.startswith(_LIBRARIES)


def annotate(e: BaseException, what: str) -> None:
    """Add a note to ``e`` naming the user's line, when the innermost frame is not the
    program's own (an error raised by thunder_core or by a native call made while tracing)."""
    frames = traceback.extract_tb(e.__traceback__)
    traced = [f for f in frames if not _ours(f.filename)]
    if not traced or is_user_file(frames[-1].filename):
        return  # raised by the user's own code: CPython's exception as it is
    inner = traced[-1]
    user = next((f for f in traced if is_user_file(f.filename)), None)
    lines = [f"thunder_core, while tracing {what}:"]
    if user is not None:
        lines.append(f"  your code: {user.filename}:{user.lineno}: {user.line}")
    if inner is not user:
        lines.append(f"  {'reached' if user is not None else 'at'}: {inner.filename}:{inner.lineno}: {inner.line}")
    e.add_note("\n".join(lines))
