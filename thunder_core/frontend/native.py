"""What native calls read and write of outside data.

The interpreter runs builtins and C functions natively (``Interpreter.call_native``); this
module decides what such a call means for the event log and for provenance:

* writes: a mutating method of an outside container (``list.append``, ``dict.update``...),
  ``setattr``/``delattr`` on an outside object: a MUTATE / WRITE_ATTR event (the epilogue
  replays it); ``before_write`` lets the capture snapshot the object first;
* reads: ``d.get(k)``, ``L.index(v)`` on outside builtin containers are guarded queries (a CALL
  provenance keyed by the method and its literal arguments, which the prologue calls again);
  ``L.pop()``/``d.pop(k)``/``d.setdefault(k, v)`` read the element where it was before the call
  (``taken``); dict views of outside dicts are remembered for iteration (iteration.py);
* the result: an object nothing else refers to was made by the call (local state); anything
  else a call on outside data returns is outside data, named by the shortest path
  ``find_path`` finds to it (the items of outside containers, the attributes of outside
  objects), else a CALL provenance the prologue cannot follow (the jit then does not cache
  that compile). The items of a new container such a call returns are found the same way.
"""

from __future__ import annotations

import collections
import functools
import itertools
import operator
import sys
import types

from . import events as ev
from .frame import NULL
from .iteration import VIEW_KINDS, read_contents
from .provenance import ATTR, CALL, ITEM, Provenance
from .special import HEAPTYPE, lookup

SCALARS = frozenset({int, float, bool, str, bytes, complex, type(None), type(...), type(NotImplemented)})
# Callables whose objects are not data: reading them is an event, but they need no provenance entry.
NOT_DATA = frozenset({types.MethodType, types.BuiltinMethodType, types.MethodWrapperType})
_TYPE_SUBCLASS = 1 << 31  # Py_TPFLAGS_TYPE_SUBCLASS: instances are classes
#: the dicts nn.Module resolves its attributes through (names only: the interpreter is torch-free)
MODULE_TABLES = ("_parameters", "_buffers", "_modules")
_FRESH_REFS = 3  # references to a new object while `after` looks at it (see there)


def after(I, fn, args, kwargs, r, taken):
    """The result of the native call ``fn(*args, **kwargs)``, with its effects on outside data
    logged and its provenance decided (see the module docstring)."""
    outside = I.outside
    # Effects and provenance of native calls on outside objects.
    t = type(fn)
    recv = getattr(fn, "__self__", None) if t is types.BuiltinMethodType else (args[0] if args and t is types.MethodDescriptorType else None)
    src = None
    if recv is not None:
        src = outside.get(id(recv))
        if src is not None:
            name = fn.__name__
            margs = args if t is types.BuiltinMethodType else args[1:]  # list.append(L, x): drop L
            if is_mutator(type(recv), name):
                if taken is not None and taken is not NULL and not kwargs:  # L.pop(), d.pop(k): read where it was
                    r = I.enter(r, taken, ev.READ_ITEM, I._current_inst(), taken.key, recv)
                I.write(ev.MUTATE, src[1], name, margs, I._current_inst(), recv)
                if taken is not None and taken is not NULL and not kwargs:
                    return r
            elif name in _QUERIES and not kwargs:
                q = query(recv, name, margs, src[1])
                if q is not None:  # d.get("k"), L.index(3): a read of outside data, guarded
                    return I.enter(r, q, ev.READ_ITEM, I._current_inst(), margs[0] if margs else name, recv)
    elif t is types.BuiltinFunctionType and fn in _ATTR_WRITERS and args:
        src = outside.get(id(args[0]))
        if src is not None:
            kind = ev.WRITE_ATTR if fn is setattr else ev.DELETE_ATTR
            I.write(kind, src[1], args[1] if len(args) > 1 else None, args[2] if len(args) > 2 else None,
                       I._current_inst(), args[0])
    tr = type(r)
    if (tr in SCALARS or tr is list) and args and not kwargs and id(args[0]) in outside:
        q = _pure_read(fn, args, outside)
        if q is not None:  # "".join(cfg.names), hasattr(cfg, "x"), id(obj), dir(obj): re-made and compared
            return I.enter(r, q, ev.READ_ITEM, I._current_inst(), q.key[0], args[0])
    if t is types.BuiltinFunctionType and getattr(fn, "__module__", None) == "math":
        for a in args:  # math.prod(cfg.kernel_size): the items decide
            read_contents(I, a)
    if outside and tr not in NOT_DATA:
        arr = next((a for a in (recv, *args) if type(a).__name__ == "ndarray" and id(a) in outside), None)
        if arr is not None and id(r) not in outside:
            # numpy computed it from an outside array's contents, which the prologue does not
            # read again: an input it cannot fetch (the compile is not cached, and says so)
            return I.enter(r, Provenance(CALL, outside[id(arr)][1], getattr(fn, "__name__", None), fn),
                           ev.READ_ITEM, I._current_inst(), None, arr)
    if src is not None and tr in VIEW_KINDS:  # d.items(): iterating it reads d's items (iteration.py)
        I.views[id(r)] = (r, recv, src[1], VIEW_KINDS[tr])
    # A result nothing else refers to (only Interpreter.call_native's local, this function's
    # parameter and getrefcount's argument: _FRESH_REFS) was made by this call: it is local
    # state, whatever made it (a copy...); so is what any __new__ returns (a class made by
    # type.__new__ is referred to by its own descriptors).
    # Anything else returned by a native call on outside objects is outside data reached
    # along a path the prologue cannot follow by itself (CALL).
    if (tr not in SCALARS and tr not in I.local_types and id(r) not in outside and not t.__flags__ & _TYPE_SUBCLASS
            and not (t is types.BuiltinFunctionType and fn in _FRESH) and tr not in NOT_DATA):
        if src is None:
            for a in args:
                src = outside.get(id(a))
                if src is not None:
                    break
            else:  # an outside callable object (a weakref, a C-level cache): its result derives from it
                src = outside.get(id(fn))
        if src is None or any(a is r for a in args):  # d.setdefault(k, []) returned the caller's own []
            return r
        if sys.getrefcount(r) > _FRESH_REFS and getattr(fn, "__name__", None) != "__new__":
            # outside data: read where it lives if that is known (entered: a tensor comes back as
            # the trace's value for it, so `ref() is param` holds as in eager), else along this call
            hit = I.find_path(r)
            if hit is not None:
                return I.enter(r, hit[2], ev.READ_ITEM, I._current_inst(), hit[1], hit[0])
            outside[id(r)] = (r, Provenance(CALL, src[1], getattr(fn, "__name__", None), fn))
        elif tr is tuple or tr is list or tr is dict:
            # a new container of outside objects (a copy, __reduce_ex__'s state): its items
            # are found where they live, so what is read through them is guarded
            for v in (r.values() if tr is dict else r):
                if type(v) not in SCALARS and id(v) not in outside:
                    hit = I.find_path(v)
                    if hit is not None:
                        outside[id(v)] = (v, hit[2])
    return r


#: builtins that read their first argument and nothing else: a call with an outside object
#: first (and literals after it) is made again by the prologue, which compares its result
_PURE_FNS = frozenset({hasattr, id, hash, dir, repr, str, ascii, format})
#: methods of a constant string taking outside data as their first argument
_PURE_STR_METHODS = frozenset({"join", "format"})


def _pure_read(fn, args, outside):
    """The provenance of ``fn(*args)`` as a re-made query of the outside object ``args[0]``
    (a CALL whose key is ``(name, args[1:])``), for the pure builtins above; else None. The
    object is not a scalar (those are compared by value already): the result depends on
    its contents or identity, which its type guard does not cover."""
    first = args[0]
    if type(first) in SCALARS or not all(type(a) in _LITERAL for a in args[1:]):
        return None
    t = type(fn)
    if not ((t is types.BuiltinFunctionType or t is type) and fn in _PURE_FNS or t is types.BuiltinMethodType
            and type(fn.__self__) is str and fn.__name__ in _PURE_STR_METHODS):
        return None
    return Provenance(CALL, outside[id(first)][1], (fn.__name__, tuple(args[1:])), fn)


def unused_call(I, fn, args, modules=True):
    """For a native call whose result the program throws away (``Interpreter.result_unused``):
    ``(replay, args)`` when it is a call on an outside object, made for its effect (``stream.write(s)``,
    ``log_file.flush()``; with ``modules``, a module's function: ``time.sleep(t)``): the caller
    records it to be made on every call (``replay(*args, **kwargs)``), instead of making it once
    now. None for calls that are not: pure functions, methods of builtin containers (their
    writes are MUTATE events)."""
    t = type(fn)
    if t is types.BuiltinMethodType:
        recv, rest = fn.__self__, args
    elif t is types.MethodDescriptorType and args:
        recv, rest = args[0], args[1:]
    else:
        return None
    if type(recv) is types.ModuleType:  # time.sleep, os.write: the module's function itself
        return (fn, rest) if modules and recv.__name__ not in _PURE_MODULES else None
    if (id(recv) not in I.outside or isinstance(recv, _PLAIN) or type(recv) in I.local_types
            or (type(recv).__module__ or "").startswith("torch")):  # (torch's own state: a generator's seed)
        return None
    return method_call(fn.__name__), (recv, *rest)


_PURE_MODULES = frozenset({"builtins", "_operator", "operator", "math", "cmath", "_functools", "itertools",
                           "_collections", "_abc", "_weakref", "_warnings", "_random", "posixpath", "ntpath",
                           "_string", "_struct", "_json", "_pickle", "_heapq", "_bisect", "copy", "_codecs"})
_PLAIN = (list, dict, set, frozenset, tuple, bytearray, collections.deque, str, bytes, int, float, complex, bool,
          type, types.GeneratorType)


@functools.lru_cache(maxsize=None)
def method_call(name):
    """``method_call("write")(obj, *args)`` is ``obj.write(*args)``: the method looked up on the
    object the epilogue fetches on that call (``sys.stdout`` may be another stream by then)."""
    def call(obj, *args, **kwargs):
        return getattr(obj, name)(*args, **kwargs)
    call.__name__ = call.__qualname__ = f"call_{name}"
    return call


def taken(I, fn, args):
    """Before ``L.pop(i)`` / ``d.pop(k)`` / ``d.setdefault(k, v)`` on an outside builtin
    container: guard what the result depends on (``k in d``, read before the call) and
    return the provenance of the element it will take (``L[i]``, ``d[k]``), or NULL when
    the result is the given default. None when not such a call."""
    recv = fn.__self__
    e = I.outside.get(id(recv))
    t = type(recv)
    base = dict if isinstance(recv, dict) else list if t is list else None
    if e is None or base is None or t.__flags__ & HEAPTYPE and lookup(t, fn.__name__) is not getattr(base, fn.__name__):
        return None  # not outside, or not the builtin method (a subclass overriding it)
    inst = I._current_inst()
    if base is list:
        if fn.__name__ != "pop" or len(args) > 1 or args and type(args[0]) is not int:
            return None
        i = args[0] if args else -1
        n = I.call(len, (recv,))  # guarded: the index taken depends on it
        return Provenance(ITEM, e[1], i + n if i < 0 else i) if -n <= i < n else None
    if not args or type(args[0]) not in _LITERAL:
        return None
    q = query(recv, "__contains__", (args[0],), e[1])
    present = I.enter(args[0] in recv, q, ev.READ_ITEM, inst, args[0], recv)  # guarded, as it was before
    return Provenance(ITEM, e[1], args[0]) if present else NULL


def before_write(I, fn, args):
    """Tell ``before_write`` about the outside object a mutating native call will change."""
    t, outside = type(fn), I.outside
    recv = getattr(fn, "__self__", None) if t is types.BuiltinMethodType else (
        args[0] if args and t is types.MethodDescriptorType else None)
    if recv is not None:
        if id(recv) in outside and is_mutator(type(recv), fn.__name__):
            I.before_write(recv)
    elif t is types.BuiltinFunctionType and args and fn in _ATTR_WRITERS and id(args[0]) in outside:
        I.before_write(args[0])


def find_path(I, x):
    """``(container, key, provenance)`` of the shortest path to object ``x`` among the
    items of outside lists/tuples/dicts and the attributes (and ``__dict__``) of outside
    objects, or None: how a value that native code handed over (an item of a copy, the
    state ``__reduce_ex__`` returns) is found again on later calls."""
    index, outside = I._index, I.outside
    if I._indexed < len(outside):
        for obj, prov in itertools.islice(outside.values(), I._indexed, None):  # (indexing adds no entries)
            _index_items(index, obj, prov)
        I._indexed = len(outside)
    hit = index.get(id(x))
    if hit is None or hit[0] is not x:
        return None
    container, key, prov = hit[1:]
    if I._wrote(container, key):
        return None  # a place this call wrote: not where the object was before the call
    try:  # still there? (containers change)
        now = container[key] if prov.kind == ITEM else getattr(container, key)
    except Exception:  # noqa: BLE001
        return None
    return hit[1:] if now is x else None


_MUTATORS = {
    list: {"append", "extend", "insert", "pop", "remove", "clear", "sort", "reverse",
           "__setitem__", "__delitem__", "__iadd__", "__imul__"},
    dict: {"update", "pop", "popitem", "setdefault", "clear", "__setitem__", "__delitem__", "__ior__"},
    set: {"add", "discard", "remove", "pop", "clear", "update", "intersection_update",
          "difference_update", "symmetric_difference_update", "__ior__", "__iand__", "__isub__", "__ixor__"},
    bytearray: {"append", "extend", "insert", "pop", "remove", "clear", "reverse", "__setitem__",
                "__delitem__", "__iadd__", "__imul__"},
    collections.deque: {"append", "appendleft", "extend", "extendleft", "pop", "popleft", "rotate", "clear",
                        "remove", "insert", "__setitem__", "__delitem__"},
}
_ATTR_WRITERS = frozenset({setattr, delattr})
TAKERS = frozenset({"pop", "setdefault"})  # mutators whose result is an element of the container (or a default)
# Methods of builtin containers that only read them: on an outside container, with literal
# arguments, their result is outside data the prologue reads again by calling the method.
_QUERIES = frozenset({"get", "__contains__", "__getitem__", "index", "count"})
_LITERAL = frozenset({int, float, bool, str, bytes, type(None)})


def _depth(prov) -> int:
    n = 0
    while prov is not None:
        n, prov = n + 1, prov.parent
    return n


def _index_items(index, obj, prov):
    """Add the items/attributes of outside object ``obj`` to ``find_path``'s index, keeping
    the shortest path to each object."""
    t = type(obj)
    if t is list or t is tuple:
        pairs, kind = enumerate(obj), ITEM
    elif isinstance(obj, dict):
        if t is not dict and t.__getitem__ is not dict.__getitem__:
            return
        pairs, kind = list(dict.items(obj)), ITEM
    elif t.__flags__ & HEAPTYPE and not isinstance(obj, type):
        try:
            d = object.__getattribute__(obj, "__dict__")
        except (AttributeError, TypeError):
            return
        if type(d) is not dict:
            return
        pairs = [("__dict__", d), *d.items()]
        for table in MODULE_TABLES:
            tab = d.get(table)
            if type(tab) is dict:
                pairs += list(tab.items())
        kind = ATTR
    else:
        return
    depth = _depth(prov) + 1
    for key, v in pairs:
        if type(v) in SCALARS:
            continue
        old = index.get(id(v))
        if old is None or old[0] is not v or _depth(old[3]) > depth:
            index[id(v)] = (v, obj, key, Provenance(kind, prov, key))


def query(obj, name, args, prov, overridable=False):
    """The provenance of ``name(obj, *args)`` (a CALL whose key is ``(name, args)`` and whose
    ref is the builtin container's method, which the prologue calls again) when ``args`` are
    literals; else None. The builtin method itself was called (``super().get(k)`` on a dict
    subclass overriding ``get``), unless ``overridable``: then only if the class does not
    override it (``k in d`` calls the class's ``__contains__``)."""
    if not all(type(a) in _LITERAL for a in args):
        return None
    for base in type(obj).__mro__:
        if not base.__flags__ & HEAPTYPE:
            m = base.__dict__.get(name)
            if m is None or overridable and lookup(type(obj), name) is not m:
                break
            return Provenance(CALL, prov, (name, tuple(args)), m)
    op = _OPERATORS.get(name) if overridable else None
    if op is not None and type(lookup(type(obj), name)) is types.FunctionType:
        # the class's own method written in Python (``"HOME" in os.environ``): the operator calls it again
        return Provenance(CALL, prov, (name, tuple(args)), op)
    return None


_OPERATORS = {"__contains__": operator.contains}


_FRESH = frozenset({sorted, reversed, iter, len, repr, str, format, id, hash, isinstance, issubclass,
                    callable, dir, vars, list, dict, set, frozenset, tuple})


@functools.lru_cache(maxsize=512)
def is_mutator(t, name):
    for base in t.__mro__:
        names = _MUTATORS.get(base)
        if names is not None:
            return name in names
    return False


