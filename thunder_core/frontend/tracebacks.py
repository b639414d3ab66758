"""Tracebacks that show the user's frames, not the interpreter's.

CPython needs a real frame object for each traceback entry, and takes the file and function
name from that frame's code. For each interpreted code object we make stub frames whose code
carries the user's filename and names, and build entries
``TracebackType(next, stub_frame, -1, user_line)``. Entries for the interpreter's own frames
are unlinked, so a traceback reads like CPython's.

A stub frame is the frame of a suspended generator: a suspended generator's frame has no
``f_back``, so it pins none of the interpreter's frames (nor, through them, the user's
locals). Its generator function is created with the user function's globals, so
``tb_frame.f_globals`` is the user's module, and its ``yield`` sits on the user's line, so
``tb_frame.f_lineno`` is that line. Stubs are cached per (code, globals, line).
"""

from __future__ import annotations

import os
import types


def path_forms(path: str) -> tuple[str, ...]:
    """The spellings a code object's ``co_filename`` under ``path`` may start with: ``path`` as
    given (a module's ``__file__`` keeps its sys.path entry's spelling, ``/repo/scripts/../pkg``
    when a script put ``scripts/..`` on sys.path), absolute and normalized, and with links resolved."""
    return tuple(dict.fromkeys((path, os.path.abspath(path), os.path.realpath(path))))


#: the interpreter's directory, in each spelling (``startswith`` takes the tuple)
INTERPRETER_DIR = path_forms(os.path.dirname(__file__))
_HIDDEN = INTERPRETER_DIR  # files and directories whose frames a traceback does not show


def hide(path: str) -> None:
    """Frames of code under ``path`` (a file or directory: the jit's interpreter subclass, its
    lookasides) are left out of tracebacks, like the interpreter's own."""
    global _HIDDEN
    _HIDDEN = _HIDDEN + tuple(p for p in path_forms(path) if p not in _HIDDEN)

def _stub():
    yield


_STUB = _stub.__code__
# The template's line ranges: (code units, True if on the `yield`'s line, False if on the def
# line, None if without a line), from which each stub's line table is written.
_RANGES = [((end - start) // 2, None if line is None else line != _STUB.co_firstlineno)
           for start, end, line in _STUB.co_lines()]


def _varint(v: int, out: bytearray) -> None:
    while v >= 64:
        out.append(64 | (v & 63))
        v >>= 6
    out.append(v)


def _linetable(delta: int) -> bytes:
    """A line table (the 3.11+ format, Objects/locations.md) for the template with its body
    ``delta`` lines below the def line, and no column information. Written by hand, not by
    compiling source: tracebacks are made at any depth, where compile() could itself hit
    the recursion limit."""
    out, line = bytearray(), 0  # line: relative to co_firstlineno
    for n, on_body in _RANGES:
        while n > 0:
            k = min(n, 8)
            if on_body is None:
                out.append(0x80 | (15 << 3) | (k - 1))  # no location
            else:
                target = delta if on_body else 0
                out.append(0x80 | (13 << 3) | (k - 1))  # line delta only, as a signed varint
                d, line = target - line, target
                _varint((-d << 1) | 1 if d < 0 else d << 1, out)
            n -= k
    return bytes(out)


def stub_frame(info, globals_, lineno):
    stubs = info.stubs
    key = (id(globals_), lineno)  # the stub's frame holds globals_, so its id stays valid
    g = stubs.get(key)
    if g is None:
        c = info.code
        first = c.co_firstlineno
        code = _STUB.replace(co_filename=c.co_filename, co_name=c.co_name, co_qualname=c.co_qualname,
                             co_firstlineno=first, co_linetable=_linetable((lineno or first) - first))
        g = types.FunctionType(code, globals_)()
        next(g)
        stubs[key] = g  # the generator is kept (suspended) so its frame stays as it is
    return g.gi_frame


def is_interpreter_frame(frame) -> bool:
    return frame.f_code.co_filename.startswith(_HIDDEN)


# THUNDER_CORE_SHOW_INTERPRETER_FRAMES=1 keeps the interpreter's frames (to debug the interpreter).
KEEP_INTERPRETER_FRAMES = os.environ.get("THUNDER_CORE_SHOW_INTERPRETER_FRAMES", "") not in ("", "0")


def strip(tb):
    """Unlink the interpreter's own entries from a traceback chain; returns the new head.

    The walk stops at the first entry made by ``prepend`` (``tb_lasti == -1``): everything
    after it was stripped when it was made, so an exception unwinding through many
    interpreted frames is not walked again at each of them."""
    if KEEP_INTERPRETER_FRAMES:
        return tb
    head = prev = None
    while tb is not None:
        if tb.tb_lasti == -1:  # made by prepend(); its tail is already clean
            if prev is None:
                return tb
            prev.tb_next = tb
            return head
        nxt = tb.tb_next
        if not tb.tb_frame.f_code.co_filename.startswith(_HIDDEN):
            if prev is None:
                head = tb
            else:
                prev.tb_next = tb
            prev = tb
        tb = nxt
    if prev is not None and prev.tb_next is not None:
        prev.tb_next = None
    return head


def prepend(info, globals_, lineno, tb):
    """A new traceback entry for the user's frame (``info``'s code at ``lineno``)."""
    return types.TracebackType(tb, stub_frame(info, globals_, lineno), -1, lineno)
