"""Building and unpacking collections, and the ``*``/``**`` merges of calls and literals."""

import functools

from .. import events as ev
from .. import iteration
from ..code import PY, native
from ..frame import NULL
from ..provenance import ITEM, Provenance
from ..special import HEAPTYPE, lookup
from . import op


def _pop_n(s, n):
    if not n:
        return []
    items = s[-n:]
    del s[-n:]
    return items


@op("BUILD_TUPLE")
def build_tuple(I, f, inst):
    s = f.stack
    s.append(tuple(_pop_n(s, inst.arg)))


@op("BUILD_LIST")
def build_list(I, f, inst):
    s = f.stack
    s.append(_pop_n(s, inst.arg))


@op("BUILD_SET")
def build_set(I, f, inst):
    s = f.stack
    items = _pop_n(s, inst.arg)
    r = set()
    for x in items:  # element by element: same order of __hash__/__eq__ calls as CPython
        r.add(x)
    s.append(r)


@op("BUILD_MAP")
def build_map(I, f, inst):
    s = f.stack
    items = _pop_n(s, 2 * inst.arg)
    d = {}
    for i in range(0, len(items), 2):
        d[items[i]] = items[i + 1]
    s.append(d)


@op("BUILD_CONST_KEY_MAP")
def build_const_key_map(I, f, inst):
    s = f.stack
    keys = s.pop()
    values = _pop_n(s, inst.arg)
    d = {}
    for k, v in zip(keys, values):
        d[k] = v
    s.append(d)


@op("BUILD_SLICE")
def build_slice(I, f, inst):
    s = f.stack
    s.append(slice(*_pop_n(s, inst.arg)))


@op("LIST_APPEND")
def list_append(I, f, inst):
    s = f.stack
    v = s.pop()
    s[-inst.arg].append(v)


@op("SET_ADD")
def set_add(I, f, inst):
    s = f.stack
    v = s.pop()
    s[-inst.arg].add(v)


@op("MAP_ADD")
def map_add(I, f, inst):
    s = f.stack
    v = s.pop()
    k = s.pop()
    s[-inst.arg][k] = v


@op("LIST_TO_TUPLE")
def list_to_tuple(I, f, inst):
    s = f.stack
    s[-1] = tuple(s[-1])


def _not_iterable(x) -> bool:
    """``tp_iter == NULL && !PySequence_Check(x)``: the type defines no ``__iter__`` (an
    ``__iter__`` set to None still fills the slot) and is no sequence (``__getitem__``, and
    not a dict)."""
    t = type(x)
    return lookup(t, "__iter__") is NULL and (lookup(t, "__getitem__") is NULL or issubclass(t, dict))


@op("LIST_EXTEND")
def list_extend(I, f, inst):
    s = f.stack
    it = s.pop()
    it = entered_items(I, inst, it) if type(it) in (list, tuple) else _iterated(I, it)
    try:
        s[-inst.arg].extend(it)
        err = None
    except TypeError:
        if not _not_iterable(it):
            raise
        err = TypeError(f"Value after * must be an iterable, not {type(it).__name__}")
    if err is not None:
        raise err


@op("SET_UPDATE")
def set_update(I, f, inst):
    s = f.stack
    it = s.pop()
    s[-inst.arg].update(it)


def _merge(d, m, check_dup):
    """_PyDict_MergeEx(d, m): a dict whose type keeps dict's own ``__iter__`` is read
    directly (its overridden ``keys``/``__getitem__`` are not called); anything else through
    ``keys()`` and ``m[k]``. With ``check_dup`` a key already in ``d`` stops the merge and
    is returned; else returns NULL."""
    if type(m) is dict or (issubclass(type(m), dict) and type(m).__iter__ is _DICT_ITER):
        if not check_dup:
            dict.update(d, m)  # PyDict_Merge: the same direct read
            return NULL
        for k, v in dict.items(m):
            if k in d:
                return k
            d[k] = v
        return NULL
    keys = m.keys()  # PyMapping_Keys: an AttributeError here means "not a mapping"
    try:
        it = iter(keys)
        bad = None
    except TypeError:
        bad = type(keys)
    if bad is not None:
        raise TypeError(f"{type(m).__name__}.keys() returned a non-iterable (type {bad.__name__})")
    for k in list(it):
        if check_dup and k in d:
            return k
        d[k] = m[k]
    return NULL


_DICT_ITER = dict.__iter__


@op("DICT_UPDATE")
def dict_update(I, f, inst):
    s = f.stack
    m = entered_values(I, inst, s.pop())
    try:
        _merge(s[-inst.arg], m, False)
        err = None
    except AttributeError:  # PyDict_Update takes mappings only, not sequences of pairs
        err = TypeError(f"'{type(m).__name__}' object is not a mapping")
    if err is not None:  # raised outside the except block: no internal __context__
        raise err


def function_str(fn) -> str:
    """CPython's _PyObject_FunctionStr: how call errors name a callable."""
    qualname = getattr(fn, "__qualname__", None)
    if not isinstance(qualname, str):
        return str(fn)
    module = getattr(fn, "__module__", None)
    if isinstance(module, str) and module != "builtins":
        return f"{module}.{qualname}()"
    return f"{qualname}()"


_FUNC_DEPTH = 4 if PY >= (3, 13) else 3  # distance from the dict being merged to the callable


@op("DICT_MERGE")
def dict_merge(I, f, inst):
    """``f(**m)``: merge ``m`` into the call's keyword dict; errors as format_kwargs_error."""
    s = f.stack
    m = entered_values(I, inst, s.pop())
    d = s[-inst.arg]
    err = None
    try:
        dup = _merge(d, m, True)
    except AttributeError:
        dup, err = NULL, "argument after ** must be a mapping, not " + type(m).__name__
    except KeyError as e:
        if PY < (3, 12) or len(e.args) != 1:
            raise
        dup = e.args[0]  # 3.12+ reads any one-argument KeyError as a duplicate key
    if dup is not NULL:
        err = f"got multiple values for keyword argument '{dup}'"
    if err is not None:
        fn = s[-inst.arg - _FUNC_DEPTH + 1]
        raise TypeError(f"{function_str(fn)} {err}")


@functools.lru_cache(maxsize=None)
def unpacker(before, after=-1):
    """A native function unpacking like ``a, b = x`` (after == -1) or ``a, *b, c = x``, so the
    iteration protocol and the error messages are CPython's."""
    names = [f"a{i}" for i in range(before)]
    if after < 0:
        target = ", ".join(names) + ("," if before == 1 else "")
        if before == 0:
            return native("def u(x):\n [] = x\n return ()\n")
        return native(f"def u(x):\n {target} = x\n return ({target},)\n")
    rest = [f"b{i}" for i in range(after)]
    target = ", ".join(names + ["*r"] + rest)
    return native(f"def u(x):\n {target} = x\n return ({', '.join(names + ['r'] + rest)},)\n")


def _push_items(I, f, inst, seq, items):
    f.stack.extend(reversed(entered_items(I, inst, seq, items)))


def entered_items(I, inst, seq, items=None):
    """The items of ``seq`` (or ``items`` taken from it); each one read from outside (so a
    tensor becomes an input) when ``seq`` is an outside list or tuple: ``*outside`` spreads
    and unpacking read its elements like ``outside[i]`` does."""
    items = seq if items is None else items
    e = I.outside.get(id(seq))
    if e is not None and type(seq) in (list, tuple):
        I.iterated.add(e[1])  # (how many there are is read too: its length is guarded)
        return [I.enter(v, Provenance(ITEM, e[1], i), ev.READ_ITEM, inst, i, seq) for i, v in enumerate(items)]
    return items


def entered_values(I, inst, m):
    """``m`` itself, or for an outside dict a copy whose values were each read from outside."""
    e = I.outside.get(id(m))
    if e is None or type(m) is not dict:
        return m
    I.iterated.add(e[1])
    return {k: I.enter(v, Provenance(ITEM, e[1], k), ev.READ_ITEM, inst, k, m) for k, v in m.items()}


@op("UNPACK_SEQUENCE")
def unpack_sequence(I, f, inst):
    s, n = f.stack, inst.arg
    seq = s.pop()
    if type(seq) in (tuple, list):
        _push_items(I, f, inst, seq, seq if len(seq) == n else unpacker(n)(seq))
    else:
        s.extend(reversed(unpacker(n)(_iterated(I, seq))))


@op("UNPACK_EX")
def unpack_ex(I, f, inst):
    s = f.stack
    seq = s.pop()
    before, after = inst.arg & 0xFF, inst.arg >> 8
    u = unpacker(before, after)
    if type(seq) in (tuple, list) and id(seq) in I.outside:
        u(seq)  # CPython's error when there are too few items
        entered = entered_items(I, inst, seq)  # every item by its index; the starred part is a new list
        stop = len(seq) - after
        items = (*entered[:before], entered[before:stop], *entered[stop:])
    else:
        items = u(_iterated(I, seq))
    s.extend(reversed(items))


def _iterated(I, seq):
    """What unpacking iterates: ``seq`` unless it is outside data or has a Python
    ``__iter__`` (then an iterator entering its items, interpreted); a non-iterable stays as
    it is, for CPython's own error message."""
    t = type(seq)
    if (t.__flags__ & HEAPTYPE or id(seq) in I.outside or id(seq) in I.views) and not _not_iterable(seq):
        return iteration.iterable(I, seq)
    return seq
