"""Tracebacks that show the user's frames, not the interpreter's.

CPython needs a real frame object for each traceback entry, and takes the file and function
name from that frame's code. For each interpreted code object we make one stub frame whose
code carries the user's filename and names (by running a tiny function whose code object
was ``replace``-d), and build entries ``TracebackType(next, stub_frame, -1, user_line)``.
Entries for the interpreter's own frames are unlinked, so a traceback reads like CPython's.
"""

from __future__ import annotations

import os
import types

INTERPRETER_DIR = os.path.dirname(os.path.abspath(__file__))


def _stub():
    raise _StubError


class _StubError(Exception):
    pass


def stub_frame(info):
    fr = info.stub_frame
    if fr is None:
        c = info.code
        code = _stub.__code__.replace(co_filename=c.co_filename, co_name=c.co_name,
                                      co_qualname=c.co_qualname, co_firstlineno=c.co_firstlineno)
        try:
            types.FunctionType(code, {"_StubError": _StubError})()
        except _StubError as e:
            fr = info.stub_frame = e.__traceback__.tb_next.tb_frame
    return fr


def is_interpreter_frame(frame) -> bool:
    return frame.f_code.co_filename.startswith(INTERPRETER_DIR)


# THUNDER_CORE_SHOW_INTERPRETER_FRAMES=1 keeps the interpreter's frames (to debug the interpreter).
KEEP_INTERPRETER_FRAMES = os.environ.get("THUNDER_CORE_SHOW_INTERPRETER_FRAMES", "") not in ("", "0")


def strip(tb):
    """Unlink the interpreter's own entries from a traceback chain; returns the new head."""
    if KEEP_INTERPRETER_FRAMES:
        return tb
    head = prev = None
    while tb is not None:
        nxt = tb.tb_next
        if not tb.tb_frame.f_code.co_filename.startswith(INTERPRETER_DIR):
            if prev is None:
                head = tb
            else:
                prev.tb_next = tb
            prev = tb
        tb = nxt
    if prev is not None and prev.tb_next is not None:
        prev.tb_next = None
    return head


def prepend(info, lineno, tb):
    """A new traceback entry for the user's frame (``info``'s code at ``lineno``)."""
    return types.TracebackType(tb, stub_frame(info), -1, lineno)
