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

What differs from CPython
-------------------------
Results, exceptions (type, message, ``__context__``/``__cause__``) and side effects are
CPython's; tests/frontend/test_corpus.py checks this differentially and lists each case a
pure-Python interpreter cannot pass in ``KNOWN_LIMITATIONS``. The differences:

* Traceback entries of interpreted frames point at stub frames (CPython cannot make a real
  frame for code it does not run): ``tb_frame.f_code`` is a stub carrying the function's
  file, names and first line, not its code object; ``f_locals`` is empty; ``f_back`` is
  None; one stub per (code, globals, line) is shared, so recursive entries are the same
  frame; entries have no column positions (``tb_lasti`` is -1). ``tb_lineno``,
  ``f_lineno`` and ``f_globals`` are the user's.
* An interpreted generator is the interpreter's driver generator: ``gi_code``,
  ``gi_frame``, ``gi_yieldfrom``, ``inspect.getgeneratorlocals`` and awaitability of a
  ``@types.coroutine`` generator are the driver's.
* Objects read from outside the call stay alive until the call ends (provenance keeps them).
* Native code run by the program (C builtins, and whatever they call back natively:
  ``sorted``'s key, ``map``'s function, dunders reached by operators, a property read by
  ``getattr()``) sees the thread's real state: not the exception an interpreted handler is
  handling (``sys.exception()``, implicit ``__context__``), and the interpreter's frames
  (``sys._getframe``, ``eval`` without namespaces, warnings raised from C).
* ``sys._getframe()`` returns a live view of the interpreted frame (``f_lineno``,
  ``f_lasti``, ``f_locals``, ``f_back``...; it passes ``isinstance(v, types.FrameType)``),
  a new object at each call; its ``f_locals`` is a fresh snapshot at each access (writes
  to it do not reach the frame, as in 3.11/3.12 but not 3.13).
* Property getters are interpreted for a plain ``property`` with a Python getter on a class
  using ``object.__getattribute__``; a property added to a class after a LOAD_ATTR site
  cached that class is read natively at that site.
* Recursion stops at about CPython's depth (a construction counts as two levels, as in
  CPython), except: through generators each level also costs a native call (3.12 stops at
  about half the depth, on its C recursion limit); native code under interpreted frames
  may recurse a few hundred levels deeper than natively; where CPython's message says
  "... while calling a Python object" (or "in comparison") the interpreter's may not.
  While interpreting, the process-wide recursion limit is raised as far as the
  interpreted frames need (other threads see it); ``sys.getrecursionlimit()`` in
  interpreted code answers the user's limit.
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
