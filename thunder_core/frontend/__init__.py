"""The bytecode interpreter (standard library only, no torch).

``interpret(fn)(*args, **kwargs)`` runs ``fn`` under the interpreter and returns what
CPython returns (or raises what CPython raises). ``Interpreter`` is the object behind it,
with the lookaside table, the event log and provenance; see interpreter.py.

Example::

    >>> from thunder_core.frontend import interpret
    >>> def f(xs):
    ...     return [x * 2 for x in xs if x % 2]
    >>> interpret(f)([1, 2, 3])
    [2, 6]
"""

from __future__ import annotations

import functools

from . import events
from .errors import InterpreterError, UnsupportedConstructError
from .events import Event
from .interpreter import Interpreter
from .provenance import Provenance

__all__ = ["interpret", "Interpreter", "Event", "Provenance", "events", "InterpreterError",
           "UnsupportedConstructError"]


def interpret(fn, *, lookasides=None, on_enter=None, record_opaque_calls=False, interpreter_out=None):
    """Return a callable that runs ``fn`` under a fresh :class:`Interpreter` on every call.

    ``lookasides``, ``on_enter`` and ``record_opaque_calls`` are passed to the Interpreter.
    ``interpreter_out``: a list; each call appends its Interpreter (to inspect events and
    provenance afterwards).
    """

    @functools.wraps(fn)
    def run(*args, **kwargs):
        I = Interpreter(lookasides=lookasides, on_enter=on_enter, record_opaque_calls=record_opaque_calls)
        if interpreter_out is not None:
            interpreter_out.append(I)
        return I.run(fn, args, kwargs)

    return run
