"""The interpreter's own lookasides: builtins that look at the *calling frame* (``super()``,
``locals()``, ``sys.exc_info()``, ``sys._getframe()``, ``warnings.warn``, ...), run code
(``__build_class__``, ``exec``/``eval`` without explicit namespaces) or see the interpreter's
own state (the recursion limit). Called natively they would see the interpreter's frames
instead of the user's, so the interpreter answers them itself. Builtins that iterate or call
back (``enumerate``, ``zip``, ``map``, ``sorted``, ``getattr``...) are in iteration.py.

A lookaside has the signature ``(interpreter, args: tuple, kwargs: dict) -> result``.
"""

from __future__ import annotations

import builtins
import operator
import sys
import types

from . import recursion
from .iteration import CONTAINERS, read_length
from .iteration import LOOKASIDES as ITERATION_LOOKASIDES
from .code import PY
from .frame import NULL
from .frameview import _getframe, _getframemodulename, _has, _warn, frame_locals


def _caller(I):
    return I.frames[-1]


def _super(I, args, kwargs):
    """Zero-argument ``super()`` (super_init_without_args): the first argument and the
    ``__class__`` cell of the calling frame. Errors are raised outside ``except`` blocks so
    they carry no internal ``__context__``."""
    if args or kwargs:
        return super(*args, **kwargs)
    f = _caller(I)
    code = f.info.code
    if code.co_argcount == 0:
        raise RuntimeError("super(): no arguments")
    first = f.localsplus[0]
    if code.co_varnames[0] in code.co_cellvars and isinstance(first, types.CellType):
        first = first.cell_contents if _has(first) else NULL
    if first is NULL:
        raise RuntimeError("super(): arg[0] deleted")
    names = f.info.names
    for i in range(f.info.first_free, len(names)):
        if names[i] == "__class__":
            break
    else:
        raise RuntimeError("super(): __class__ cell not found")
    cell = f.localsplus[i]
    if not isinstance(cell, types.CellType):
        raise RuntimeError("super(): bad __class__ cell")
    if not _has(cell):
        raise RuntimeError("super(): empty __class__ cell")
    cls = cell.cell_contents
    if not isinstance(cls, type):
        raise RuntimeError(f"super(): __class__ is not a type ({type(cls).__name__})")
    return super(cls, first)


def _locals(I, args, kwargs):
    if args or kwargs:
        return locals(*args, **kwargs)  # raises CPython's TypeError
    return frame_locals(_caller(I))


def _globals(I, args, kwargs):
    if args or kwargs:
        return globals(*args, **kwargs)
    return _caller(I).globals


def _vars(I, args, kwargs):
    if len(args) == 1 and not kwargs:  # vars(o) is o.__dict__: an outside object's is outside data
        from .ops.names import read_attr

        vars(args[0])  # CPython's TypeError for objects without __dict__
        return read_attr(I, None, args[0], "__dict__")
    if args or kwargs:
        return vars(*args, **kwargs)
    return frame_locals(_caller(I))


def _bool(I, args, kwargs):
    if len(args) == 1 and not kwargs and type(args[0]) in CONTAINERS:  # bool(cfg.layers): its length decides
        read_length(I, args[0])
    return bool(*args, **kwargs)


def _dir(I, args, kwargs):
    if args or kwargs:
        return I.call_native(dir, args, kwargs)  # (of an outside object: made again by the prologue)
    return sorted(frame_locals(_caller(I)))


def _exc_info(I, args, kwargs):
    e = I.topmost_exception()
    return (None, None, None) if e is None else (type(e), e, e.__traceback__)


def _exception(I, args, kwargs):
    return I.topmost_exception()


_NS_KEYWORDS = PY >= (3, 13)  # eval/exec take globals=/locals= by keyword since 3.13


def _namespaces(I, args, kwargs, fn):
    """eval/exec: globals None means the caller's globals, and then locals None the
    caller's locals (builtin_eval_impl). Explicit globals, or bad arguments, go native."""
    if not 1 <= len(args) <= 3:
        return fn(*args, **kwargs)
    kw = dict(kwargs)
    g = args[1] if len(args) > 1 else (kw.pop("globals", None) if _NS_KEYWORDS else None)
    if g is not None:
        return fn(*args, **kwargs)
    loc = args[2] if len(args) > 2 else (kw.pop("locals", None) if _NS_KEYWORDS else None)
    f = _caller(I)
    return fn(args[0], f.globals, frame_locals(f) if loc is None else loc, **kw)


def _eval(I, args, kwargs):
    return _namespaces(I, args, kwargs, eval)


def _exec(I, args, kwargs):
    return _namespaces(I, args, kwargs, exec)


def _tp_name(t) -> str:
    if t.__flags__ & (1 << 9) or t.__module__ == "builtins":
        return t.__name__
    return f"{t.__module__}.{t.__qualname__}"


def _calculate_meta(meta, bases):
    """_PyType_CalculateMetaclass: the most derived metaclass of ``meta`` and the bases'."""
    winner = meta
    for base in bases:
        m = type(base)
        if m in winner.__mro__:
            continue
        if winner in m.__mro__:
            winner = m
            continue
        raise TypeError("metaclass conflict: the metaclass of a derived class must be a (non-strict) "
                        "subclass of the metaclasses of all its bases")
    return winner


def _build_class(I, args, kwargs):
    """builtins.__build_class__ with ``__prepare__``, the class body and the metaclass call
    interpreted."""
    if len(args) < 2:
        raise TypeError("__build_class__: not enough arguments")
    func, name, *bases = args
    if not isinstance(func, types.FunctionType):
        raise TypeError("__build_class__: func must be a function")
    if not isinstance(name, str):
        raise TypeError("__build_class__: name is not a string")
    orig_bases = tuple(bases)
    bases = types.resolve_bases(orig_bases)
    kw = dict(kwargs)
    meta = kw.pop("metaclass", NULL)
    if meta is NULL:
        meta, isclass = (type(bases[0]) if bases else type), True
    else:
        isclass = issubclass(type(meta), type)
    if isclass:
        meta = _calculate_meta(meta, bases)
    prep = getattr(meta, "__prepare__", NULL)
    ns = {} if prep is NULL else I.call(prep, (name, bases), kw)
    if not hasattr(type(ns), "__getitem__"):  # PyMapping_Check
        raise TypeError(f"{_tp_name(meta) if isclass else '<metaclass>'}.__prepare__() must return a mapping, "
                        f"not {_tp_name(type(ns))}")
    cell = I.call_function(func, (), None, locals_map=ns)
    if bases is not orig_bases:
        ns["__orig_bases__"] = orig_bases
    cls = I.call(meta, (name, bases, ns), kw)
    if isinstance(cls, type) and isinstance(cell, types.CellType):
        if not _has(cell):
            raise RuntimeError(f"__class__ not set defining {name!r} as {cls!r}. "
                               "Was __classcell__ propagated to type.__new__?")
        if cell.cell_contents is not cls:
            raise TypeError(f"__class__ set to {cell.cell_contents!r} defining {name!r} as {cls!r}")
    return cls


def _getrecursionlimit(I, args, kwargs):
    sys.getrecursionlimit(*args, **kwargs)  # CPython's argument errors
    return recursion.user_limit()


def _setrecursionlimit(I, args, kwargs):
    if kwargs or len(args) != 1:
        return sys.setrecursionlimit(*args, **kwargs)  # CPython's argument errors
    recursion.set_user_limit(I, operator.index(args[0]))


def _warnings_warn():
    try:
        from _warnings import warn
    except ImportError:  # pragma: no cover - the pure-Python warn() is interpreted instead
        return None
    return warn


BUILTIN_LOOKASIDES = {
    super: _super,
    locals: _locals,
    globals: _globals,
    vars: _vars,
    dir: _dir, bool: _bool,
    eval: _eval,
    exec: _exec,
    builtins.__build_class__: _build_class,
    sys.exc_info: _exc_info,
    sys._getframe: _getframe,
    sys.getrecursionlimit: _getrecursionlimit,
    sys.setrecursionlimit: _setrecursionlimit,
}
BUILTIN_LOOKASIDES.update(ITERATION_LOOKASIDES)
if hasattr(sys, "exception"):
    BUILTIN_LOOKASIDES[sys.exception] = _exception
if hasattr(sys, "_getframemodulename"):
    BUILTIN_LOOKASIDES[sys._getframemodulename] = _getframemodulename
if _warnings_warn() is not None:
    BUILTIN_LOOKASIDES[_warnings_warn()] = _warn

#: The table as the interpreter keeps it: by id() (the keys above live as long as the module).
BUILTIN_BY_ID = {id(k): v for k, v in BUILTIN_LOOKASIDES.items()}
BUILTIN_FN = {k: v for k, v in BUILTIN_LOOKASIDES.items() if type(k) is types.FunctionType}
