"""The interpreter's own lookasides: builtins that look at the *calling frame* (``super()``,
``locals()``, ``sys.exc_info()``, ``sys._getframe()``, ...) or run code (``__build_class__``,
``exec``/``eval`` without explicit namespaces). Called natively they would see the
interpreter's frames instead of the user's, so the interpreter answers them itself.

A lookaside has the signature ``(interpreter, args: tuple, kwargs: dict) -> result``.
"""

from __future__ import annotations

import builtins
import sys
import types

from .code import CO_VARARGS
from .frame import NULL
from .tracebacks import is_interpreter_frame


def _caller(I):
    return I.frames[-1]


def _super(I, args, kwargs):
    if args or kwargs:
        return super(*args, **kwargs)
    f = _caller(I)
    code = f.info.code
    if code.co_argcount == 0 and not code.co_flags & CO_VARARGS:
        raise RuntimeError("super(): no arguments")
    first = f.localsplus[0]
    if code.co_varnames[0] in code.co_cellvars and isinstance(first, types.CellType):
        first = first.cell_contents if _has(first) else NULL
    if first is NULL:
        raise RuntimeError("super(): arg[0] deleted")
    try:
        i = f.info.names.index("__class__", f.info.first_free)
    except ValueError:
        raise RuntimeError("super(): __class__ cell not found") from None
    cell = f.localsplus[i]
    if not _has(cell):
        raise RuntimeError("super(): empty __class__ cell")
    cls = cell.cell_contents
    if not isinstance(cls, type):
        raise RuntimeError(f"super(): __class__ is not a type ({type(cls).__name__})")
    return super(cls, first)


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


def _locals(I, args, kwargs):
    if args or kwargs:
        return locals(*args, **kwargs)  # raises CPython's TypeError
    return frame_locals(_caller(I))


def _globals(I, args, kwargs):
    if args or kwargs:
        return globals(*args, **kwargs)
    return _caller(I).globals


def _vars(I, args, kwargs):
    if args or kwargs:
        return vars(*args, **kwargs)
    return frame_locals(_caller(I))


def _dir(I, args, kwargs):
    if args or kwargs:
        return dir(*args, **kwargs)
    return sorted(frame_locals(_caller(I)))


def _exc_info(I, args, kwargs):
    e = I.topmost_exception()
    return (None, None, None) if e is None else (type(e), e, e.__traceback__)


def _exception(I, args, kwargs):
    return I.topmost_exception()


def _namespaces(I, args, kwargs, fn):
    if len(args) >= 2 or "globals" in kwargs:
        return fn(*args, **kwargs)
    f = _caller(I)
    if len(args) == 1 and "locals" not in kwargs:
        return fn(args[0], f.globals, frame_locals(f), **kwargs)
    return fn(*args, f.globals, **kwargs)


def _eval(I, args, kwargs):
    return _namespaces(I, args, kwargs, eval)


def _exec(I, args, kwargs):
    return _namespaces(I, args, kwargs, exec)


def _build_class(I, args, kwargs):
    """builtins.__build_class__ with the class body interpreted."""
    if len(args) < 2:
        raise TypeError("__build_class__: not enough arguments")
    func, name, *bases = args
    if not isinstance(func, types.FunctionType):
        raise TypeError("__build_class__: func must be a function")
    if not isinstance(name, str):
        raise TypeError("__build_class__: name is not a string")
    orig_bases = tuple(bases)
    bases = types.resolve_bases(orig_bases)
    meta, ns, kwds = types.prepare_class(name, bases, dict(kwargs))
    cell = I.call_function(func, (), None, locals_map=ns)
    if bases is not orig_bases:
        ns["__orig_bases__"] = orig_bases
    cls = I.call(meta, (name, bases, ns), kwds)
    if isinstance(cls, type) and isinstance(cell, types.CellType):
        if not _has(cell):
            raise RuntimeError(f"__class__ not set defining {name!r} as {cls!r}. "
                               "Was __classcell__ propagated to type.__new__?")
        if cell.cell_contents is not cls:
            raise TypeError(f"__class__ set to {cell.cell_contents!r} defining {name!r} as {cls!r}")
    return cls


class FrameView:
    """What ``sys._getframe()`` returns for an interpreted frame: the attributes code
    commonly reads (``f_globals``, ``f_locals``, ``f_code``, ``f_lineno``, ``f_back``)."""

    def __init__(self, I, index):
        self._I, self._index = I, index
        f = I.frames[index]
        self.f_globals, self.f_builtins, self.f_code = f.globals, f.builtins, f.info.code
        self.f_lineno = f.lineno
        self.f_locals = frame_locals(f)

    @property
    def f_back(self):
        if self._index > 0:
            return FrameView(self._I, self._index - 1)
        return _native_caller(0)

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
        return FrameView(I, n - 1 - depth)
    return _native_caller(depth - n)


def _getframemodulename(I, args, kwargs):
    depth = args[0] if args else kwargs.get("depth", 0)
    n = len(I.frames)
    if depth < n:
        return I.frames[n - 1 - depth].globals.get("__name__")
    return _native_caller(depth - n).f_globals.get("__name__")


import os as _os  # noqa: E402

_PKG_DIR = _os.path.dirname(_os.path.dirname(_os.path.abspath(__file__)))

BUILTIN_LOOKASIDES = {
    super: _super,
    locals: _locals,
    globals: _globals,
    vars: _vars,
    dir: _dir,
    eval: _eval,
    exec: _exec,
    builtins.__build_class__: _build_class,
    sys.exc_info: _exc_info,
    sys._getframe: _getframe,
}
if hasattr(sys, "exception"):
    BUILTIN_LOOKASIDES[sys.exception] = _exception
if hasattr(sys, "_getframemodulename"):
    BUILTIN_LOOKASIDES[sys._getframemodulename] = _getframemodulename
