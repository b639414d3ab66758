"""What native code would read from the *calling frame*, answered for interpreted frames:
``sys._getframe()`` (a live view of an interpreted frame), ``sys._getframemodulename()`` and
``warnings.warn`` (which attributes a warning to the frame ``stacklevel`` levels up).
"""

from __future__ import annotations

import operator
import os
import sys
import types

from .code import PY
from .frame import NULL
from .tracebacks import is_interpreter_frame, path_forms

try:
    from _warnings import warn as _native_warn, warn_explicit as _warn_explicit  # what warn() calls
except ImportError:  # pragma: no cover - CPython always has _warnings
    from warnings import warn as _native_warn, warn_explicit as _warn_explicit

_PKG_DIR = path_forms(os.path.dirname(os.path.dirname(__file__)))


def _has(cell) -> bool:
    try:
        cell.cell_contents
    except ValueError:
        return False
    return True


def frame_locals(f) -> dict:
    """A snapshot of a frame's variables, as ``locals()`` in a function returns them."""
    if f.locals_map is not None:
        return f.locals_map
    out, names, first_free = {}, f.info.names, f.info.first_free
    cellvars = f.info.code.co_cellvars
    for i, v in enumerate(f.localsplus):
        if v is NULL:
            continue
        if i >= first_free or (names[i] in cellvars and isinstance(v, types.CellType)):
            if not _has(v):
                continue
            v = v.cell_contents
        out[names[i]] = v
    return out


class FrameView:
    """What ``sys._getframe()`` returns for an interpreted frame. Like a frame object, it
    is live: ``f_lineno``, ``f_lasti`` and ``f_locals`` are read from the interpreted frame
    when accessed. It passes ``isinstance(view, types.FrameType)`` (``__class__``), so
    ``inspect.getframeinfo``, ``inspect.stack`` and ``traceback.walk_stack`` accept it."""

    f_trace = None
    f_trace_lines = True
    f_trace_opcodes = False

    def __init__(self, I, f):
        self._I, self._f = I, f
        self.f_globals, self.f_builtins, self.f_code = f.globals, f.builtins, f.info.code

    @property
    def __class__(self):
        return types.FrameType

    @property
    def f_lineno(self):
        return self._f.lineno

    @property
    def f_lasti(self):
        """Byte offset of the instruction being executed (the call that is running)."""
        f = self._f
        return f.insts[max(f.ip - 1, 0)].offset

    @property
    def f_locals(self):
        return frame_locals(self._f)

    @property
    def f_back(self):
        frames = self._I.frames
        for i in range(len(frames) - 1, -1, -1):
            if frames[i] is self._f:
                return FrameView(self._I, frames[i - 1]) if i > 0 else _native_caller(0)
        return None  # the frame has finished

    def clear(self):
        raise RuntimeError("cannot clear an executing frame")

    def __repr__(self):
        return f"<interpreted frame of {self.f_code.co_qualname} at line {self.f_lineno}>"


def _native_caller(depth):
    """The real frame ``depth`` levels above whoever called the interpreter."""
    fr = sys._getframe(1)
    while fr is not None and (is_interpreter_frame(fr) or fr.f_code.co_filename.startswith(_PKG_DIR)):
        fr = fr.f_back
    for _ in range(depth):
        if fr is None:
            break
        fr = fr.f_back
    if fr is None:
        raise ValueError("call stack is not deep enough")
    return fr


def _getframe(I, args, kwargs):
    depth = args[0] if args else kwargs.get("depth", 0)
    n = len(I.frames)
    if depth < n:
        return FrameView(I, I.frames[n - 1 - depth])
    return _native_caller(depth - n)


def _getframemodulename(I, args, kwargs):
    depth = args[0] if args else kwargs.get("depth", 0)
    n = len(I.frames)
    if depth < n:
        return I.frames[n - 1 - depth].globals.get("__name__")
    return _native_caller(depth - n).f_globals.get("__name__")


# ------------------------------------------------------------------ warnings.warn

if PY >= (3, 12):
    def _warn_args(message, category=None, stacklevel=1, source=None, *, skip_file_prefixes=()):
        return message, category, stacklevel, source, skip_file_prefixes
else:
    def _warn_args(message, category=None, stacklevel=1, source=None):
        return message, category, stacklevel, source, ()


def _is_internal(fr) -> bool:
    filename = fr.f_code.co_filename
    return "importlib" in filename and "_bootstrap" in filename


def _next_external(fr, skip):
    while True:
        fr = fr.f_back
        if fr is None or not (_is_internal(fr) or (skip and fr.f_code.co_filename.startswith(skip))):
            return fr


def _warn(I, args, kwargs):
    """``warnings.warn`` (the C one: _warnings.c do_warn/setup_context) with the warning
    attributed to the interpreted frame ``stacklevel`` levels up: its file, line, module
    name and ``__warningregistry__``."""
    try:
        message, category, stacklevel, source, skip = _warn_args(*args, **kwargs)
        bad_args = False
    except TypeError:
        bad_args = True
    if bad_args:  # the C warn() raises its own argument error (before it warns)
        return _native_warn(*args, **kwargs)
    stacklevel = operator.index(stacklevel)  # converted with the arguments, as in C
    if isinstance(message, Warning):
        category = type(message)
    elif category is None:
        category = UserWarning
    try:
        ok = issubclass(category, Warning)
    except TypeError:
        ok = False
    if not ok:
        raise TypeError(f"category must be a Warning subclass, not '{type(category).__name__}'")
    if not isinstance(skip, tuple):
        raise TypeError(f"warn() argument 'skip_file_prefixes' must be tuple, not {type(skip).__name__}")
    if skip and stacklevel < 2:
        stacklevel = 2
    fr = FrameView(I, I.frames[-1]) if I.frames else _native_caller(0)
    if stacklevel <= 0 or _is_internal(fr):
        while stacklevel > 1 and fr is not None:
            fr = fr.f_back
            stacklevel -= 1
    else:
        while stacklevel > 1 and fr is not None:
            fr = _next_external(fr, skip)
            stacklevel -= 1
    if fr is None:
        globals_, filename, lineno = sys.__dict__, "sys", 0
    else:
        globals_, filename, lineno = fr.f_globals, fr.f_code.co_filename, fr.f_lineno
    registry = dict.get(globals_, "__warningregistry__")
    if registry is None:
        registry = globals_["__warningregistry__"] = {}
    module = dict.get(globals_, "__name__", NULL)
    if not (module is None or isinstance(module, str)):
        module = "<string>"
    # No module_globals, as the C warn() passes none: given them, warn_explicit would fetch
    # the module's source through its loader at every warning (and could fail doing so).
    _warn_explicit(message, category, filename, lineno, module, registry, source=source)
