"""Iteration over outside data, wherever CPython iterates.

Iterating an outside container reads outside data: every item that comes out must enter the
call with a provenance the prologue can follow again (``args[0].h._modules['3']``), and the
container's length becomes a guard. CPython iterates in many places: ``for`` loops,
unpacking, ``*spread``, and C functions that consume iterables (``enumerate``, ``zip``,
``map``, ``list``, ``sorted``, dict views, ...). They all get their items from
:func:`entering`: an :class:`Entering` iterator that enters each item as it is produced, so an
``enumerate`` pulling from it natively still yields entered items.

How an item's provenance is named (shortest stable path, never the iteration order when an
index or key exists): items of an outside list/tuple are ``parent[i]``; values and items of
an outside dict's views are ``dict[key]``; keys of a dict and items of any other outside
iterable are ``iter(parent)#n`` (the prologue fetches ``list(parent)[n]``).

C functions that take callables (``map``, ``filter``, ``sorted(key=)``, ``min``/``max``,
``functools.reduce``, ...) get :func:`trampoline` wrappers, so the callable is interpreted (its
torch calls recorded) even when the C code calls it.
"""

from __future__ import annotations

import collections
import functools
import itertools
import operator

from . import events as ev
from .frame import NULL
from .provenance import CALL, ITEM, ITER, Provenance
from .special import HEAPTYPE, lookup, special_method

FunctionType = type(lambda: 0)

_DictViews = (type({}.keys()), type({}.values()), type({}.items()))
_ODictViews = (type(collections.OrderedDict().keys()), type(collections.OrderedDict().values()),
               type(collections.OrderedDict().items()))
VIEW_KINDS = dict(zip(_DictViews + _ODictViews, ("keys", "values", "items") * 2))  # view type -> what it yields


class Entering:
    """An iterator over ``it`` whose items enter the interpreted call as they come out.

    ``how`` names each item's provenance: "index" (``parent[n]``), "rindex" (``reversed``:
    ``parent[size - 1 - n]``), "iter" (``iter(parent)#n``), "values"/"items" (``it`` yields
    ``(key, value)`` pairs of a dict: the value is ``parent[key]``; "values" yields the value
    alone, "items" the pair)."""

    __slots__ = ("I", "it", "prov", "how", "n", "size")

    def __init__(self, I, it, prov, how, size=0):
        self.I, self.it, self.prov, self.how, self.n, self.size = I, it, prov, how, 0, size
        I.iterated.add(prov)  # the number of items read is a guard (its length)

    def __iter__(self):
        return self

    def __next__(self):
        v = next(self.it)  # StopIteration (or the container's own error) propagates as is
        n = self.n
        self.n = n + 1
        I, how = self.I, self.how
        inst = I._current_inst()
        if how == "index":
            return I.enter(v, Provenance(ITEM, self.prov, n), ev.READ_ITEM, inst, n, self)
        if how == "rindex":
            n = self.size - 1 - n
            return I.enter(v, Provenance(ITEM, self.prov, n), ev.READ_ITEM, inst, n, self)
        if how == "iter":
            return I.enter(v, Provenance(ITER, self.prov, n), ev.READ_ITEM, inst, n, self)
        k, v = v
        key = I.enter(k, Provenance(ITER, self.prov, n), ev.READ_ITEM, inst, n, self)
        v = I.enter(v, Provenance(ITEM, self.prov, k), ev.READ_ITEM, inst, k, self)
        return v if how == "values" else (key, v)

    def __length_hint__(self):
        return operator.length_hint(self.it)

    def __reduce__(self):
        raise TypeError("cannot pickle an iterator of the jitted function")


def _items_of(d):
    # The mapping's own order, without calling methods a subclass may override (a
    # mappingproxy, which no subclass can be, gives its dict's items itself).
    if isinstance(d, collections.OrderedDict):
        return collections.OrderedDict.items(d)
    return dict.items(d) if isinstance(d, dict) else d.items()


CONTAINERS = frozenset({list, tuple, dict, set, frozenset})


def read_contents(I, x, depth=4):
    """Read every item of ``x``, an outside builtin container (and of the builtin containers
    in it), through the interpreter, with its length: for what C code computes from a whole
    container (``==``, ``+``, its text, its truth), which a guard on its type alone does not
    cover."""
    t = type(x)
    if t not in CONTAINERS or depth == 0:
        return
    e = I.outside.get(id(x))
    if e is None or e[0] is not x:
        return
    if t is dict:
        it = Entering(I, iter(_items_of(x)), e[1], "values")
    else:
        it = Entering(I, iter(x), e[1], "index" if t is list or t is tuple else "iter")
    for v in it:
        read_contents(I, v, depth - 1)


def read_length(I, x):
    """``x``'s length is read (guarded), when ``x`` is an outside builtin container: its truth."""
    e = I.outside.get(id(x))
    if e is not None and e[0] is x and type(x) in CONTAINERS:
        I.iterated.add(e[1])


def entering(I, x, it=NULL):
    """An :class:`Entering` iterator over ``x`` if ``x`` is outside data (an outside
    container, or a view of an outside dict); else NULL. ``it``: the iterator already made
    from ``x`` (by its ``__iter__``), used for containers whose items are not keyed."""
    view = I.views.get(id(x))
    if view is not None and view[0] is x:
        _, d, prov, kind = view
        if kind == "keys":
            return Entering(I, iter(x) if it is NULL else it, prov, "iter")
        return Entering(I, iter(_items_of(d)), prov, kind)
    e = I.outside.get(id(x))
    if e is None:
        return NULL
    t = type(x)
    if t is list or t is tuple:
        return Entering(I, iter(x) if it is NULL else it, e[1], "index")
    if it is x:  # an outside iterator (a generator, itertools.count): each item is new on every call
        return Drawing(I, x)
    return Entering(I, iter(x) if it is NULL else it, e[1], "iter")


class Drawing:
    """An iterator over an outside iterator ``it`` (its own ``__iter__``: a generator, an
    ``itertools.count``, a file) whose items are fresh values: each ``next`` is
    ``Interpreter.draw``, so the jit's prologue makes it again on every call and the outside
    iterator advances on every call, as in CPython (its end, StopIteration, too)."""

    __slots__ = ("I", "it")

    def __init__(self, I, it):
        self.I, self.it = I, it

    def __iter__(self):
        return self

    def __next__(self):
        return self.I.draw(next, (self.it,), None, "next")

    def __length_hint__(self):
        return operator.length_hint(self.it)

    def __reduce__(self):
        raise TypeError("cannot pickle an iterator of the jitted function")


def get_iter(I, x):
    """``iter(x)``, with an ``__iter__`` written in Python interpreted, and entering the
    items of outside data that a native ``__iter__`` produces."""
    it = special_method(I, x, "__iter__")
    if it is NULL:
        t = type(x)
        if t is Entering or t is Drawing:
            return x
        it = iter(x)
        if t is list or t is tuple or t is dict or t in VIEW_KINDS or id(x) in I.outside:
            e = entering(I, x, it)
            if e is not NULL:
                return e
        return it
    if not hasattr(type(it), "__next__"):
        raise TypeError(f"iter() returned non-iterator of type '{type(it).__name__}'")
    return it  # an interpreted __iter__: what it reads carries its own provenance


class Interpreted:
    """An iterator whose ``__next__`` (written in Python) is interpreted even when C code
    pulls from it."""

    __slots__ = ("I", "it")

    def __init__(self, I, it):
        self.I, self.it = I, it

    def __iter__(self):
        return self

    def __next__(self):
        return next_value(self.I, self.it)


def iterable(I, x):
    """What a C function consuming ``x`` should iterate: ``x`` itself when nothing about it
    needs the interpreter (a local builtin container or iterator), else an iterator that
    enters outside items and interprets a Python ``__iter__``/``__next__``."""
    t = type(x)
    if t in _OURS or (not t.__flags__ & HEAPTYPE and id(x) not in I.outside and id(x) not in I.views):
        return x
    it = get_iter(I, x)
    return Interpreted(I, it) if has_python_next(type(it)) else it


def has_python_next(t) -> bool:
    """True if iterators of type ``t`` have a ``__next__`` the interpreter runs itself."""
    if not t.__flags__ & HEAPTYPE or t in _OURS:
        return False
    m = lookup(t, "__next__")
    return type(m) in (FunctionType, staticmethod, classmethod)


def next_value(I, it):
    """next(it) (StopIteration propagates); ``__next__`` written in Python is interpreted."""
    t = type(it)
    if t is Entering or t is Drawing:
        return it.__next__()
    v = special_method(I, it, "__next__")
    return next(it) if v is NULL else v


def trampoline(I, fn):
    """``fn`` as a callable that C code can call and whose body is interpreted (a ``key=``
    of sorted, the function of ``map``)."""
    if fn is None:
        return None

    def call(*args, **kwargs):
        outer, I.callback_depth = I.callback_depth, len(I.frames)  # (a call C makes: see Interpreter.result_unused)
        try:
            return I.call(fn, args, kwargs)
        finally:
            I.callback_depth = outer
    return call


# -------------------------------------------------------------------- C functions that iterate

def _iterables(I, args):
    return tuple(iterable(I, a) for a in args)


def _iterates_first(fn, keyword=None):
    """The lookaside of a C function whose first argument is an iterable it consumes (``sum``,
    ``itertools.islice``, ``enumerate``, which also takes it by the name ``keyword``)."""
    def lookaside(I, args, kwargs):
        if args:
            args = (iterable(I, args[0]), *args[1:])
        elif keyword in kwargs:
            kwargs = {**kwargs, keyword: iterable(I, kwargs[keyword])}
        return fn(*args, **kwargs)
    return lookaside


def _zip(I, args, kwargs):
    return zip(*_iterables(I, args), **kwargs)


def _map(I, args, kwargs):
    if len(args) < 2 or kwargs:
        return map(*args, **kwargs)  # CPython's argument errors
    return map(trampoline(I, args[0]), *_iterables(I, args[1:]))


def _filter(I, args, kwargs):
    if len(args) != 2 or kwargs:
        return filter(*args, **kwargs)
    fn = args[0]
    return filter(None if fn is None else trampoline(I, fn), iterable(I, args[1]))


def _first_iterable(ctor):
    def lookaside(I, args, kwargs):
        if len(args) == 1:
            return ctor(iterable(I, args[0]), **kwargs)
        return ctor(*args, **kwargs)
    return lookaside


def _with_key(fn, varargs):
    def lookaside(I, args, kwargs):
        if "key" in kwargs and kwargs["key"] is not None:
            kwargs = {**kwargs, "key": trampoline(I, kwargs["key"])}
        if len(args) == 1 or not varargs:
            args = (iterable(I, args[0]), *args[1:]) if args else args
        return fn(*args, **kwargs)
    return lookaside


def _iter(I, args, kwargs):
    if len(args) == 1 and not kwargs:
        return get_iter(I, args[0])
    if len(args) == 2 and not kwargs:
        return iter(trampoline(I, args[0]) if callable(args[0]) else args[0], args[1])
    return iter(*args, **kwargs)


def _next(I, args, kwargs):
    if kwargs or not 1 <= len(args) <= 2:
        return next(*args, **kwargs)
    it = args[0]
    t = type(it)
    outside = id(it) in I.outside and not has_python_next(t)  # an outside iterator: a fresh value
    if outside or t is Entering or t is Drawing or has_python_next(t):
        try:
            return I.draw(next, (it,), None, "next") if outside else next_value(I, it)
        except StopIteration:
            if len(args) == 2:
                I._propagating = None
                return args[1]
            raise
    return next(*args)


def _reversed(I, args, kwargs):
    if len(args) != 1 or kwargs:
        return reversed(*args, **kwargs)
    x = args[0]
    r = special_method(I, x, "__reversed__")
    if r is not NULL:
        return r
    r = reversed(x)
    e = I.outside.get(id(x))
    if e is None:
        return r
    if type(x) in (list, tuple):
        return Entering(I, r, e[1], "rindex", len(x))
    if type(r) is reversed:  # the sequence protocol on an outside object: its items are x[i]
        return SequenceItems(I, x, range(I.call(len, (x,)) - 1, -1, -1))
    return r


class SequenceItems:
    """``x[i]`` for each ``i`` of ``indices``, read like the interpreted ``x[i]`` (entering
    the items of an outside ``x``)."""

    __slots__ = ("I", "x", "indices")

    def __init__(self, I, x, indices):
        self.I, self.x, self.indices = I, x, iter(indices)

    def __iter__(self):
        return self

    def __next__(self):
        from .ops.arith import getitem

        i = next(self.indices)
        return getitem(self.I, self.I._current_inst(), self.x, i)


_DICT_READS = (dict.__iter__, collections.OrderedDict.__iter__)


def _dict(ctor):
    def lookaside(I, args, kwargs):
        if len(args) == 1:
            x = args[0]
            e = I.outside.get(id(x))
            if e is not None and isinstance(x, dict):
                t = type(x)
                # read directly (PyDict_Merge) unless the class overrides how it is read
                if t.__iter__ in _DICT_READS and t.keys in (dict.keys, collections.OrderedDict.keys) \
                        and t.__getitem__ is dict.__getitem__:
                    return ctor(Entering(I, iter(_items_of(x)), e[1], "items"), **kwargs)
            elif not hasattr(type(x), "keys"):
                return ctor(iterable(I, x), **kwargs)
        return ctor(*args, **kwargs)
    return lookaside


def _getattr(I, args, kwargs):
    if kwargs or not 2 <= len(args) <= 3:
        return getattr(*args, **kwargs)
    from .ops.names import read_attr

    o, name = args[0], args[1]
    if type(name) is not str:
        return getattr(*args)
    if len(args) == 2:
        return read_attr(I, None, o, name)
    try:
        return read_attr(I, None, o, name)
    except AttributeError:
        I._propagating = None
        e = I.outside.get(id(o))
        if e is not None:  # getattr(cfg, "scale", 1.0): that it is absent is checked on every call
            I.enter(False, Provenance(CALL, e[1], ("hasattr", (name,)), hasattr), ev.READ_ATTR, I._current_inst(), name, o)
        return args[2]


def _reduce(I, args, kwargs):
    if kwargs or not 2 <= len(args) <= 3:
        return functools.reduce(*args, **kwargs)
    return functools.reduce(trampoline(I, args[0]), iterable(I, args[1]), *args[2:])


def _chain(I, args, kwargs):
    return itertools.chain(*_iterables(I, args), **kwargs)


def _chain_from(I, args, kwargs):
    if len(args) != 1 or kwargs:
        return itertools.chain.from_iterable(*args, **kwargs)
    return itertools.chain.from_iterable(map(lambda x: iterable(I, x), iterable(I, args[0])))


def _starmap(I, args, kwargs):
    if len(args) != 2 or kwargs:
        return itertools.starmap(*args, **kwargs)
    return itertools.starmap(trampoline(I, args[0]), iterable(I, args[1]))


_OURS = frozenset({Entering, Drawing, Interpreted, SequenceItems})  # iterators of this module: never interpreted

LOOKASIDES = {
    iter: _iter, next: _next, enumerate: _iterates_first(enumerate, "iterable"), zip: _zip, map: _map,
    filter: _filter, reversed: _reversed, sum: _iterates_first(sum), getattr: _getattr,
    list: _first_iterable(list), tuple: _first_iterable(tuple), set: _first_iterable(set),
    frozenset: _first_iterable(frozenset), any: _first_iterable(any), all: _first_iterable(all),
    sorted: _with_key(sorted, False), min: _with_key(min, True), max: _with_key(max, True),
    dict: _dict(dict), collections.OrderedDict: _dict(collections.OrderedDict),
    functools.reduce: _reduce, itertools.chain: _chain, itertools.chain.from_iterable: _chain_from,
    itertools.islice: _iterates_first(itertools.islice), itertools.starmap: _starmap,
}
