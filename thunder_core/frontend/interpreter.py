"""The interpreter: calls, the run loop, exception unwinding and generators.

``Interpreter.call(fn, args, kwargs)`` is the single entry for every call an interpreted
program makes. It consults the lookaside table first, then interprets Python functions
(including ``__init__``/``__call__`` of user classes and bound methods), and calls anything
else natively ("opaque"). The run loop executes decoded instructions; each opcode's handler
lives in ``ops/`` (one family per file) and receives ``(interpreter, frame, inst)``.

Exceptions are real Python exceptions. When one reaches an interpreted frame, the loop
(1) gives it CPython's implicit ``__context__`` from the interpreter's own handled-exception
chain, (2) puts a traceback entry for the user's line in front of it and drops entries of
the interpreter's own frames, then (3) jumps to the handler from the exception table, or
re-raises it to the caller.

Generators are real generator objects: ``driver.drive`` is a Python generator that resumes
the interpreted frame, so ``send``/``throw``/``close``, ``next`` and finalisation behave like
CPython's (see driver.py).

Special methods (``__call__``, ``__init__``, ...) are looked up and bound as CPython's type
slots do (special.py); the recursion budget is in recursion.py.
"""

from __future__ import annotations

import functools
import itertools
import sys
import types

from . import events as ev
from . import recursion, special
from .iteration import VIEW_KINDS
from .code import _infos, CO_ASYNC_GENERATOR, CO_COROUTINE, PY, code_info
from .errors import refuse
from .frame import NULL, ExcItem, Frame
from .provenance import ARG, ATTR, CALL, ITEM, KWARG, Provenance
from .special import HEAPTYPE, lookup
from .tracebacks import prepend, strip

FunctionType, MethodType = types.FunctionType, types.MethodType
BuiltinMethodType, GeneratorType = types.BuiltinMethodType, types.GeneratorType
_TYPE_SUBCLASS = 1 << 31  # Py_TPFLAGS_TYPE_SUBCLASS: instances are classes
_TYPE_CALL = type.__dict__["__call__"]
_PY_KINDS = (FunctionType, staticmethod, classmethod)  # special methods special.call interprets
_CONSTRUCT_RECURSION = "maximum recursion depth exceeded" + (" while calling a Python object" if PY == (3, 11) else "")
SCALARS = frozenset({int, float, bool, str, bytes, complex, type(None), type(...), type(NotImplemented)})
# Callables whose objects are not data: reading them is an event, but they need no provenance entry.
_NOT_DATA = frozenset({MethodType, types.BuiltinMethodType, types.MethodWrapperType})

# handler return signals
RETURN, YIELD, GENERATOR = object(), object(), object()
# Coroutines and async generators are refused; a generator function marked by
# @types.coroutine (CO_ITERABLE_COROUTINE) is a generator and is interpreted as one.
_ASYNC = CO_COROUTINE | CO_ASYNC_GENERATOR


class Interpreter:
    """Runs Python functions by interpreting their bytecode.

    ``lookasides``: ``{callable: replacement}``; before any call the interpreter looks the
    callee up here and, if found, calls ``replacement(interpreter, args, kwargs)`` instead.
    A replacement may re-enter the interpreter with ``interpreter.call``. The table is kept
    by ``id(callable)`` (``self.lookasides``), so looking a callee up never runs its
    ``__hash__``.
    ``on_enter(interpreter, value, provenance) -> value``: called for every value entering
    from outside (argument, global, outside cell, attribute/item of an outside object); the
    jit uses it to replace tensors with proxies.
    ``record_opaque_calls``: also log an ``opaque-call`` event for every native call.

    After (or during) a call: ``events`` is the event log, ``provenance(obj)`` tells where
    an outside object came from.
    """

    def __init__(self, lookasides=None, on_enter=None, record_opaque_calls=False):
        from .lookasides import BUILTIN_BY_ID, BUILTIN_FN
        from .ops import HANDLERS

        self.handlers = HANDLERS
        self.lookasides = dict(BUILTIN_BY_ID)  # id(callable) -> replacement
        # Python functions hash by identity (no user __hash__ can run), so calls of them,
        # the most frequent, look up this table by the function itself: no id() call.
        self.fn_lookasides = dict(BUILTIN_FN)
        self._lookaside_keys = ()
        if lookasides:
            for k, v in lookasides.items():
                self.lookasides[id(k)] = v
                if type(k) is FunctionType:
                    self.fn_lookasides[k] = v
            self._lookaside_keys = tuple(lookasides)  # alive, so their ids stay theirs
        self.on_enter = on_enter
        self.record_opaque_calls = record_opaque_calls
        # before_write(obj): called before the interpreter changes an outside object (a
        # globals dict, a cell, a container, an object's attributes) so a caller can snapshot it.
        self.before_write = None
        self.events: list[ev.Event] = []
        self.outside: dict[int, tuple] = {}     # id -> (object, Provenance); pins the object
        self.created_cells: dict[int, object] = {}  # id -> cell made during this call
        self.iterated: set = set()             # provenances of outside containers whose items were iterated
        self.views: dict[int, tuple] = {}      # id(view of an outside dict) -> (view, dict, its provenance, kind)
        # types whose objects are made by the trace, never outside data (the jit's proxies)
        self.local_types: frozenset = frozenset()
        self._index: dict = {}                 # find_path's index: id -> (object, container, key, provenance)
        self._indexed = 0                      # how many outside entries it covers
        self.written: set = set()              # (id(outside object), key) this call wrote (attribute, item, global, cell)
        self.mutated: set = set()              # ids of outside containers changed by a mutating method
        self.frames: list[Frame] = []
        self.exc_item = ExcItem()              # root of the handled-exception chain
        self.outer_exc = sys.exception()       # what the caller of the interpreter is handling
        self._last_read: dict = {}             # inst -> (owner, value) of the last read event there
        self._propagating = None               # exception leaving an interpreted frame
        self._raising = None                   # (exception, __context__, add traceback entry)
        # The recursion budget (recursion.py sets these when run() starts): user frames
        # below this interpreter, interpreted frames allowed, and the window of frame counts
        # inside which no checkpoint is needed.
        self.base_depth, self.max_depth = 0, sys.getrecursionlimit()
        self.low_mark, self.depth_mark, self.real_depth = 0, self.max_depth, 0

    # ---------------------------------------------------------------- outside values

    def provenance(self, obj):
        """Where ``obj`` came from, or None if it was created during the call (or is a scalar,
        whose provenance is in the event that read it)."""
        e = self.outside.get(id(obj))
        return None if e is None else e[1]

    def find_path(self, x):
        """``(container, key, provenance)`` of the shortest path to object ``x`` among the
        items of outside lists/tuples/dicts and the attributes (and ``__dict__``) of outside
        objects, or None: how a value that native code handed over (an item of a copy, the
        state ``__reduce_ex__`` returns) is found again on later calls."""
        index, outside = self._index, self.outside
        if self._indexed < len(outside):
            for obj, prov in itertools.islice(list(outside.values()), self._indexed, None):
                _index_items(index, obj, prov)
            self._indexed = len(outside)
        hit = index.get(id(x))
        if hit is None or hit[0] is not x:
            return None
        container, key, prov = hit[1:]
        if self._wrote(container, key):
            return None  # a place this call wrote: not where the object was before the call
        try:  # still there? (containers change)
            now = container[key] if prov.kind == ITEM else getattr(container, key)
        except Exception:  # noqa: BLE001
            return None
        return hit[1:] if now is x else None

    def enter(self, value, prov, kind, inst, key=None, owner=None):
        """A value read from outside: log the read (once per site while it stays the same),
        give it to ``on_enter``, remember its provenance. Reading back what this call wrote
        there (``self.dtype = ...; self.dtype``) is no outside read: the value is the call's own."""
        if owner is not None and (self.written or self.mutated) and self._wrote(owner, key):
            return value
        last = self._last_read.get(inst)
        if last is not None and last[0] is owner and last[1] is value:
            if self.on_enter is None:
                return value  # same read as last time at this site: logged and registered already
        else:
            self._last_read[inst] = (owner, value)
            self.events.append(ev.Event(kind, prov, key, value, inst.site))
        if self.on_enter is not None:
            new = self.on_enter(self, value, prov)
            if new is not value:  # replaced (e.g. a tensor by its proxy): the hook owns it now
                return new
        t = type(value)
        if t not in SCALARS and t not in _NOT_DATA and id(value) not in self.outside:
            self.outside[id(value)] = (value, prov)
        return value

    def write(self, kind, prov, key, value, inst, owner=None):
        """Log a write into outside state ``prov`` (the object ``owner``; its ``key``)."""
        self.events.append(ev.Event(kind, prov, key, value, inst.site))
        if owner is not None:
            if kind == ev.MUTATE:
                self.mutated.add(id(owner))
            else:
                try:
                    self.written.add((id(owner), key))
                except TypeError:  # an unhashable key (a slice before 3.12): the whole object
                    self.mutated.add(id(owner))

    def _wrote(self, owner, key) -> bool:
        if id(owner) in self.mutated:
            return True
        try:
            return (id(owner), key) in self.written
        except TypeError:
            return False

    # ---------------------------------------------------------------- calls

    def run(self, fn, args, kwargs):
        """Interpret the root call ``fn(*args, **kwargs)``; arguments are the first inputs."""
        site = ("<call>", 0, getattr(fn, "__qualname__", type(fn).__name__))
        args = tuple(self._enter_arg(a, Provenance(ARG, None, i), site) for i, a in enumerate(args))
        kwargs = {k: self._enter_arg(v, Provenance(KWARG, None, k), site) for k, v in kwargs.items()}
        recursion.enter(self)
        try:
            return self.call(fn, args, kwargs)
        except BaseException as e:
            e.__traceback__ = strip(e.__traceback__)
            raise
        finally:
            self._propagating = self._raising = None
            recursion.leave(self)

    def _enter_arg(self, value, prov, site):
        self.events.append(ev.Event(ev.READ_ARG, prov, None, value, site))
        if self.on_enter is not None:
            new = self.on_enter(self, value, prov)
            if new is not value:
                return new
        if type(value) not in SCALARS:
            self.outside.setdefault(id(value), (value, prov))
        return value

    def call(self, fn, args, kwargs=None):
        t = type(fn)
        if t is FunctionType:
            la = self.fn_lookasides.get(fn)
            if la is None:
                return self.call_function(fn, args, kwargs)
            return la(self, args, kwargs or {})
        la = self.lookasides.get(id(fn))
        if la is not None:
            return la(self, args, kwargs or {})
        if t is MethodType:
            return self.call(fn.__func__, (fn.__self__, *args), kwargs)
        if t is functools.partial:
            kw = {**fn.keywords, **kwargs} if kwargs else fn.keywords
            return self.call(fn.func, fn.args + tuple(args), kw)
        fl = t.__flags__
        if fl & _TYPE_SUBCLASS:
            return self._construct(fn, args, kwargs)
        if fl & HEAPTYPE:  # an instance of a Python class: its __call__, bound like slot_tp_call
            m = lookup(t, "__call__")
            if m is not NULL:
                r = special.call(self, m, fn, t, args, kwargs)
                if r is not NULL:
                    return r
        elif t is staticmethod:
            return self.call(fn.__func__, args, kwargs)
        return self.call_native(fn, args, kwargs)

    def call_native(self, fn, args, kwargs=None):
        taken = self._taken(fn, args) if type(fn) is BuiltinMethodType and fn.__name__ in _TAKERS else None
        if self.before_write is not None:
            self._before_native_write(fn, args)
        try:
            r = fn(*args, **kwargs) if kwargs else fn(*args)
        except BaseException as e:
            if type(fn) is BuiltinMethodType and type(fn.__self__) is GeneratorType:
                thrown_into_unstarted(self, e)
            raise
        outside = self.outside
        if self.record_opaque_calls:
            inst = self._current_inst()
            self.events.append(ev.Event(ev.OPAQUE_CALL, None, fn, (args, kwargs), inst.site if inst else ("<native>", 0, "?")))
        # Effects and provenance of native calls on outside objects.
        t = type(fn)
        recv = getattr(fn, "__self__", None) if t is types.BuiltinMethodType else (args[0] if args and t is types.MethodDescriptorType else None)
        src = None
        if recv is not None:
            src = outside.get(id(recv))
            if src is not None:
                name = fn.__name__
                margs = args if t is types.BuiltinMethodType else args[1:]  # list.append(L, x): drop L
                if _is_mutator(type(recv), name):
                    if taken is not None and taken is not NULL and not kwargs:  # L.pop(), d.pop(k): read where it was
                        r = self.enter(r, taken, ev.READ_ITEM, self._current_inst(), taken.key, recv)
                    self.write(ev.MUTATE, src[1], name, margs, self._current_inst(), recv)
                    if taken is not None and taken is not NULL and not kwargs:
                        return r
                elif name in _QUERIES and not kwargs:
                    q = query(recv, name, margs, src[1])
                    if q is not None:  # d.get("k"), L.index(3): a read of outside data, guarded
                        return self.enter(r, q, ev.READ_ITEM, self._current_inst(), margs[0] if margs else name, recv)
        elif t is types.BuiltinFunctionType and fn in _ATTR_WRITERS and args:
            src = outside.get(id(args[0]))
            if src is not None:
                kind = ev.WRITE_ATTR if fn is setattr else ev.DELETE_ATTR
                self.write(kind, src[1], args[1] if len(args) > 1 else None, args[2] if len(args) > 2 else None,
                           self._current_inst(), args[0])
        tr = type(r)
        if src is not None and tr in VIEW_KINDS:  # d.items(): iterating it reads d's items (iteration.py)
            self.views[id(r)] = (r, recv, src[1], VIEW_KINDS[tr])
        # A result nothing else refers to (only our local `r` and getrefcount's argument) was
        # made by this call: it is local state, whatever made it (a copy...); so is what any
        # __new__ returns (a class made by type.__new__ is referred to by its own descriptors).
        # Anything else returned by a native call on outside objects is outside data reached
        # along a path the prologue cannot follow by itself (CALL).
        if (tr not in SCALARS and tr not in self.local_types and id(r) not in outside and not t.__flags__ & _TYPE_SUBCLASS
                and not (t is types.BuiltinFunctionType and fn in _FRESH) and tr not in _NOT_DATA):
            if src is None:
                for a in args:
                    src = outside.get(id(a))
                    if src is not None:
                        break
                else:  # an outside callable object (a weakref, a C-level cache): its result derives from it
                    src = outside.get(id(fn))
            if src is None or any(a is r for a in args):  # d.setdefault(k, []) returned the caller's own []
                return r
            if sys.getrefcount(r) > 2 and getattr(fn, "__name__", None) != "__new__":
                # outside data: where it lives if that is known, else along this call
                hit = self.find_path(r)
                outside[id(r)] = (r, hit[2] if hit is not None else Provenance(CALL, src[1], getattr(fn, "__name__", None), fn))
            elif tr is tuple or tr is list or tr is dict:
                # a new container of outside objects (a copy, __reduce_ex__'s state): its items
                # are found where they live, so what is read through them is guarded
                for v in (r.values() if tr is dict else r):
                    if type(v) not in SCALARS and id(v) not in outside:
                        hit = self.find_path(v)
                        if hit is not None:
                            outside[id(v)] = (v, hit[2])
        return r

    def _taken(self, fn, args):
        """Before ``L.pop(i)`` / ``d.pop(k)`` / ``d.setdefault(k, v)`` on an outside builtin
        container: guard what the result depends on (``k in d``, read before the call) and
        return the provenance of the element it will take (``L[i]``, ``d[k]``), or NULL when
        the result is the given default. None when not such a call."""
        recv = fn.__self__
        e = self.outside.get(id(recv))
        if e is None or type(recv) not in (list, dict) and not isinstance(recv, dict) or type(recv).__flags__ & HEAPTYPE \
                and lookup(type(recv), fn.__name__) is not getattr(dict if isinstance(recv, dict) else list, fn.__name__):
            return None
        inst = self._current_inst()
        if isinstance(recv, list):
            if fn.__name__ != "pop" or len(args) > 1 or args and type(args[0]) is not int:
                return None
            i = args[0] if args else -1
            n = self.call(len, (recv,))  # guarded: the index taken depends on it
            return Provenance(ITEM, e[1], i + n if i < 0 else i) if -n <= i < n else None
        if not args or type(args[0]) not in _LITERAL:
            return None
        q = query(recv, "__contains__", (args[0],), e[1])
        present = self.enter(args[0] in recv, q, ev.READ_ITEM, inst, args[0], recv)  # guarded, as it was before
        return Provenance(ITEM, e[1], args[0]) if present else NULL

    def _before_native_write(self, fn, args):
        """Tell ``before_write`` about the outside object a mutating native call will change."""
        t, outside = type(fn), self.outside
        recv = getattr(fn, "__self__", None) if t is types.BuiltinMethodType else (
            args[0] if args and t is types.MethodDescriptorType else None)
        if recv is not None:
            if id(recv) in outside and _is_mutator(type(recv), fn.__name__):
                self.before_write(recv)
        elif t is types.BuiltinFunctionType and args and fn in _ATTR_WRITERS and id(args[0]) in outside:
            self.before_write(args[0])

    def _current_inst(self):
        if not self.frames:
            return None
        f = self.frames[-1]
        return f.insts[f.ip - 1]

    def _construct(self, cls, args, kwargs):
        """``cls(*args, **kwargs)`` following ``type.__call__``, with ``__new__``/``__init__``
        (and a metaclass ``__call__``) written in Python interpreted."""
        meta = type(cls)
        if meta is not type:
            m = lookup(meta, "__call__")
            if m is not _TYPE_CALL:
                r = special.call(self, m, cls, meta, args, kwargs)
                return self.call_native(cls, args, kwargs) if r is NULL else r
        if not cls.__flags__ & HEAPTYPE:
            return self.call_native(cls, args, kwargs)
        new = cls.__new__  # tp_new of a Python class calls getattr(cls, "__new__")
        init = lookup(cls, "__init__")
        tn = type(new)
        if (type(init) not in _PY_KINDS and tn is not FunctionType
                and not (tn is MethodType and type(new.__func__) is FunctionType)):
            return self.call_native(cls, args, kwargs)
        # CPython counts a construction as one more level of recursion (the native call of
        # the class, or 3.13's __init__ shim frame): so does the budget while it runs.
        if len(self.frames) >= self.max_depth:
            raise RecursionError(_CONSTRUCT_RECURSION)
        self.max_depth -= 1
        if self.depth_mark > self.max_depth:
            self.depth_mark = self.max_depth
        try:
            if new is object.__new__:  # __init__ is overridden: object_new accepts more arguments
                obj = object.__new__(cls)
            else:
                obj = self.call(new, (cls, *args), kwargs)
            t = type(obj)
            if cls not in t.__mro__:
                return obj
            if t is not cls:
                init = lookup(t, "__init__")
            r = special.call_bound(self, init, obj, t, args, kwargs)
        finally:
            self.max_depth += 1
        if r is not None:
            raise TypeError(f"__init__() should return None, not '{type(r).__name__}'")
        return obj

    def call_function(self, fn, args, kwargs=None, locals_map=None):
        code = fn.__code__
        info = _infos.get(code) or code_info(code, self.handlers)
        if info.native:
            return self.call_native(fn, args, kwargs)
        if info.flags & _ASYNC:
            refuse(None, info.insts[0], f"calling async function {fn.__qualname__!r} is not supported",
                   "Async functions and generators cannot be interpreted yet; call them outside the jitted function.")
        f = Frame(info, fn, fn.__globals__, fn.__builtins__, locals_map)
        if kwargs or not info.simple_args or len(args) != code.co_argcount:
            bound = info.bind(fn, args, kwargs or {})
            f.localsplus[:len(bound)] = bound
        else:
            f.localsplus[:len(args)] = args
        r = self._run(f)
        if r is RETURN:
            return f.retval
        if r is GENERATOR:
            f.exc_item = ExcItem()
            g = drive(self, f)
            g.__name__, g.__qualname__ = fn.__name__, fn.__qualname__  # as CPython: the function's, now
            return g
        raise AssertionError(r)

    # ---------------------------------------------------------------- the run loop

    def _run(self, f, throw=None):
        frames = self.frames
        n = len(frames)
        if not self.low_mark <= n < self.depth_mark:  # the user's recursion limit (recursion.py)
            recursion.checkpoint(self, n, True)
        frames.append(f)
        try:
            insts = f.insts
            if throw is not None:
                inst = insts[f.ip - 1]
                try:
                    self._raising = (throw, throw.__context__, True)
                    raise throw
                except BaseException as e:
                    if not self._catch(f, inst, e):
                        raise
            stack, loc = f.stack, f.localsplus  # both lists are only ever mutated in place
            while True:
                inst = insts[f.ip]
                f.ip += 1
                try:  # zero-cost on 3.11+; inline truth tests may call a user __bool__ that raises
                    # The most frequent instructions run inline (a handler call costs more than
                    # the work); anything unusual (an unbound local) takes the handler path.
                    # LOAD_FAST passes the value through `k`, which the next instruction
                    # overwrites first thing: no local of this loop keeps a user value alive
                    # (after the user's `del x`, or while a generator is suspended).
                    k = inst.inline
                    if k:
                        if k == 1:
                            k = loc[inst.arg]
                            if k is not NULL:
                                stack.append(k)
                                continue
                        elif k == 2:
                            stack.append(inst.argval)
                            continue
                        elif k == 3:
                            loc[inst.arg] = stack.pop()
                            continue
                        elif k == 4:  # no-ops: RESUME, NOP, PRECALL, ...
                            continue
                        elif k == 5:
                            if not stack.pop():
                                f.ip = inst.target
                            continue
                        elif k == 6:
                            if stack.pop():
                                f.ip = inst.target
                            continue
                        elif k == 7:
                            f.ip = inst.target
                            continue
                        elif k == 8:
                            stack.pop()
                            continue
                        elif k == 11:
                            k = stack.pop()
                            stack[-1] = inst.cache(stack[-1], k)
                            continue
                        elif k == 9:
                            f.retval = stack.pop()
                            return RETURN
                        else:
                            f.retval = inst.argval
                            return RETURN
                    r = inst.run(self, f, inst)
                    if r is None:
                        continue
                    return r
                except BaseException as e:
                    if not self._catch(f, inst, e):
                        raise
        finally:
            frames.pop()
            if n < self.low_mark:
                recursion.checkpoint(self, n, False)

    def _catch(self, f, inst, e):
        """An exception reached frame ``f`` at ``inst``: fix context and traceback like CPython,
        then jump to its handler (True) or leave it to propagate (False)."""
        r = self._raising
        if r is not None and r[0] is e:
            self._raising = None
            e.__context__ = r[1]
            add_tb = r[2]
        elif e is self._propagating:
            add_tb = True
        else:  # raised by native code during this instruction
            ctx = e.__context__
            if ctx is None or ctx is self.outer_exc:
                top = self.topmost_exception()
                if top is not None and top is not e:
                    set_context(e, top)
            add_tb = True
        tb = strip(e.__traceback__)
        e.__traceback__ = prepend(f.info, f.globals, inst.lineno, tb) if add_tb else tb
        h = inst.handler
        if h is None:
            self._propagating = e
            return False
        self._propagating = None
        target, depth, lasti = h
        s = f.stack
        del s[depth:]
        if lasti:
            s.append(inst.offset)
        s.append(e)
        f.ip = target
        return True

    def topmost_exception(self):
        item = self.exc_item
        while item is not None:
            if item.value is not None:
                return item.value
            item = item.prev
        return self.outer_exc

    def raise_(self, exc, context, add_traceback=True):
        """Raise ``exc`` from a handler with exactly this ``__context__``."""
        self._raising = (exc, context, add_traceback)
        raise exc


def set_context(e, ctx):
    """``e.__context__ = ctx``, first breaking a cycle through ``e`` as CPython does."""
    o, seen = ctx, 0
    while True:
        c = o.__context__
        if c is None:
            break
        if c is e:
            o.__context__ = None
            break
        o = c
        seen += 1
        if seen > 10000:  # a pre-existing cycle not through e
            break
    e.__context__ = ctx


# -------------------------------------------------------------------- effects of native calls

_MUTATORS = {
    list: {"append", "extend", "insert", "pop", "remove", "clear", "sort", "reverse",
           "__setitem__", "__delitem__", "__iadd__", "__imul__"},
    dict: {"update", "pop", "popitem", "setdefault", "clear", "__setitem__", "__delitem__", "__ior__"},
    set: {"add", "discard", "remove", "pop", "clear", "update", "intersection_update",
          "difference_update", "symmetric_difference_update", "__ior__", "__iand__", "__isub__", "__ixor__"},
    bytearray: {"append", "extend", "insert", "pop", "remove", "clear", "reverse", "__setitem__",
                "__delitem__", "__iadd__", "__imul__"},
}
_ATTR_WRITERS = frozenset({setattr, delattr})
_TAKERS = frozenset({"pop", "setdefault"})  # mutators whose result is an element of the container (or a default)
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
        for table in ("_parameters", "_buffers", "_modules"):  # nn.Module resolves its attributes there
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
                return None
            return Provenance(CALL, prov, (name, tuple(args)), m)
    return None
_FRESH = frozenset({sorted, reversed, iter, len, repr, str, format, id, hash, isinstance, issubclass,
                    callable, dir, vars, list, dict, set, frozenset, tuple})


@functools.lru_cache(maxsize=512)
def _is_mutator(t, name):
    import collections

    extra = {collections.deque: {"append", "appendleft", "extend", "extendleft", "pop", "popleft",
                                 "rotate", "clear", "remove", "insert", "__setitem__", "__delitem__"}}
    for base in t.__mro__:
        names = _MUTATORS.get(base) or extra.get(base)
        if names is not None:
            return name in names
    return False


from .driver import drive, thrown_into_unstarted  # noqa: E402 (driver.py imports this module)
