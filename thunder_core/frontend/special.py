"""Special methods (``__call__``, ``__init__``, ``__iter__``, ``__next__``, ...) looked up and
called the way CPython's type slots do it.

CPython finds a special method with ``_PyType_Lookup``: the raw attribute from the first
class of the *type's* MRO whose ``__dict__`` defines it (never the instance, never the
metaclass), then binds it by its descriptor kind. ``lookup`` does the first step; ``call``
does the second, interpreting the method when it is written in Python. Nothing is cached:
a class's ``__iter__`` may be reassigned after it was first used, and the walk over a few
``__dict__``s costs less than the interpreted call it leads to.
"""

from __future__ import annotations

import types

from .frame import NULL

FunctionType = types.FunctionType
HEAPTYPE = 1 << 9  # Py_TPFLAGS_HEAPTYPE: classes made by a class statement or type()


def lookup(t, name):
    """``_PyType_Lookup(t, name)``: the raw attribute (no descriptor invoked), or NULL."""
    for k in t.__mro__:
        d = k.__dict__
        if name in d:
            return d[name]
    return NULL


def call(I, m, obj, t, args, kwargs=None):
    """Call the special method ``m`` (found raw on ``t = type(obj)``) if it is one the
    interpreter runs itself: a plain function gets ``obj`` prepended, a staticmethod's
    function gets neither, a classmethod's function gets the class. Returns NULL for any
    other kind of attribute: the caller then performs the operation natively, which binds
    and calls it exactly as CPython does."""
    tm = type(m)
    if tm is FunctionType:
        return I.call(m, (obj, *args), kwargs)
    if tm is staticmethod:
        return I.call(m.__func__, args, kwargs)
    if tm is classmethod and type(m.__func__) is FunctionType:
        return I.call(m.__func__, (t, *args), kwargs)
    return NULL


def call_bound(I, m, obj, t, args, kwargs=None):
    """Like ``call``, but any other attribute is bound with its ``__get__`` (if it has one)
    and the result called, as CPython's ``lookup_maybe_method`` + call do."""
    r = call(I, m, obj, t, args, kwargs)
    if r is not NULL:
        return r
    get = getattr(type(m), "__get__", None)
    return I.call(m if get is None else get(m, obj, t), args, kwargs)


def special_method(I, obj, name, args=()):
    """``type(obj).name(obj, *args)`` interpreted if ``type(obj)`` is a class written in
    Python and the method is a Python function (plain, static or class method); else NULL.
    Builtin types never define Python methods, so they cost one flag test."""
    t = type(obj)
    if not t.__flags__ & HEAPTYPE:
        return NULL
    m = lookup(t, name)
    if m is NULL:
        return NULL
    return call(I, m, obj, t, args)
