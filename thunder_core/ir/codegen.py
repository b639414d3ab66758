"""Compiling generated Python (prologues, epilogues) so tracebacks show its lines."""

from __future__ import annotations

import itertools
import linecache

_COUNTER = itertools.count()


def compile_function(source: str, name: str, label: str, namespace: dict):
    """Exec ``source`` (which defines ``name``) in a copy of ``namespace`` under a unique
    filename ``<thunder_core {label} #n>`` registered in linecache; return the function."""
    filename = f"<thunder_core {label} #{next(_COUNTER)}>"
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    ns = dict(namespace)
    exec(compile(source, filename, "exec"), ns)
    return ns[name]
