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
slots do (special.py); the recursion budget is in recursion.py. A ``__call__`` generated as a
fast path of a general one says so with ``__traced_as__`` (the general method): calling such an
instance is traced as a call of that method (a jitted function's cache-hit method is traced as
``JittedFunction.__call__``, whose lookaside inlines it).
"""

from __future__ import annotations

import functools
import sys
import types

from . import events as ev
from . import native, recursion, special
from .code import _infos, CO_ASYNC_GENERATOR, CO_COROUTINE, PY, code_info
from .errors import refuse
from .frame import NULL, ExcItem, Frame
from .iteration import CONTAINERS, read_length
from .native import NOT_DATA as _NOT_DATA
from .native import SCALARS
from .provenance import ARG, KWARG, Provenance
from .special import HEAPTYPE, lookup
from .tracebacks import prepend, strip

FunctionType, MethodType = types.FunctionType, types.MethodType
BuiltinMethodType, GeneratorType = types.BuiltinMethodType, types.GeneratorType
_TYPE_SUBCLASS = 1 << 31  # Py_TPFLAGS_TYPE_SUBCLASS: instances are classes
_TYPE_CALL = type.__dict__["__call__"]
_PY_KINDS = (FunctionType, staticmethod, classmethod)  # special methods special.call interprets
_CONSTRUCT_RECURSION = "maximum recursion depth exceeded" + (" while calling a Python object" if PY == (3, 11) else "")

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
        # id(proxy) -> what it is now, for a tensor an in-place write gave another shape or made
        # require grad (the jit's Trace.written): the program's attribute reads see that
        self.replaced: dict = {}
        self._index: dict = {}                 # find_path's index: id -> (object, container, key, provenance)
        self._indexed = 0                      # how many outside entries it covers
        self.written: set = set()              # (id(outside object), key) this call wrote (attribute, item, global, cell)
        self.mutated: set = set()              # ids of outside containers changed by a mutating method
        self.frames: list[Frame] = []
        self.callback_depth = -1               # frames when C code (a trampoline) called back into the program
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
        objects, or None (see native.find_path)."""
        return native.find_path(self, x)

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
                if type(m) is FunctionType:  # (a generated fast path names what it stands for)
                    m = m.__dict__.get("__traced_as__", m)
                r = special.call(self, m, fn, t, args, kwargs)
                if r is not NULL:
                    return r
        elif t is staticmethod:
            return self.call(fn.__func__, args, kwargs)
        return self.call_native(fn, args, kwargs)

    def call_native(self, fn, args, kwargs=None):
        """Call ``fn`` natively; what it reads and writes of outside data is logged and the
        provenance of its result decided by native.py."""
        taken = native.taken(self, fn, args) if type(fn) is BuiltinMethodType and fn.__name__ in native.TAKERS else None
        if self.before_write is not None:
            native.before_write(self, fn, args)
        try:
            r = fn(*args, **kwargs) if kwargs else fn(*args)
        except BaseException as e:
            if type(fn) is BuiltinMethodType and type(fn.__self__) is GeneratorType:
                thrown_into_unstarted(self, e)
            raise
        if self.record_opaque_calls:
            inst = self._current_inst()
            # every frame's line too: a checker names the user's line, not the library's that made the call
            stack = tuple((f.info.code.co_filename, f.lineno, f.info.site_name) for f in self.frames)
            self.events.append(ev.Event(ev.OPAQUE_CALL, None, fn, (args, kwargs, stack),
                                        inst.site if inst else ("<native>", 0, "?")))
        return native.after(self, fn, args, kwargs, r, taken)

    def draw(self, fn, args, kwargs=None, name=None, frozen=False):
        """``fn(*args, **kwargs)``, a call whose result is new on every call in CPython (a random
        draw, a clock, ``next()`` of an outside iterator; ``name`` says which, in words;
        ``frozen``: its value cannot be an input, e.g. ``uuid.uuid4()``). The bare interpreter
        makes it natively, as CPython does; the jit's capture makes its value an input that the
        prologue draws again on every call (capture.py)."""
        return fn(*args, **kwargs) if kwargs else fn(*args)

    #: True once a fresh object exists (``is_fresh``): the operators and formatting check their operands
    fresh_objects = False
    #: ``for_text(value) -> value``: what the program's f-strings, ``%`` on a string (and the
    #: ``str``/``repr``/``format``/``ascii`` lookasides of a user of the interpreter) format in
    #: place of ``value`` (here the value itself). The jit replaces symbolic numbers by their
    #: guarded values there (ir/size.py ``textual``).
    for_text = staticmethod(lambda value: value)

    def identity_used(self, value):
        """The program compared ``value`` by identity (``is``, ``==`` through ``object.__eq__``):
        a user of the interpreter that checks outside objects by type only checks this one's
        identity (the jit's capture does)."""

    def is_fresh(self, x) -> bool:
        """True for a fresh object: drawn (``draw``), or reached from one, and used whole (not a
        number, string or tensor). An operator, ``format()`` or native call taking one is a draw
        itself, made again on every call on that call's object (``uuid4().int`` is a read; ``str(u)``,
        ``now - start``, ``f"{u}"`` are draws). The bare interpreter has none."""
        return False

    def result_unused(self) -> bool:
        """True while the program's own call instruction is calling natively and throws the
        result away (``sys.stdout.write(s)`` as a statement: the next instruction pops it), not
        a call that C code makes back into the program (a ``sorted`` key)."""
        frames = self.frames
        if not frames or len(frames) == self.callback_depth:
            return False
        f = frames[-1]  # (ip is past the end while the code's last instruction runs: a final `raise Cls`)
        return f.ip < len(f.insts) and f.insts[f.ip].opname == "POP_TOP" and f.insts[f.ip - 1].opname.startswith("CALL")

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
                            v = stack.pop()
                            if type(v) in CONTAINERS:  # `if cfg.layers:` its length decides
                                read_length(self, v)
                            if not v:
                                f.ip = inst.target
                            continue
                        elif k == 6:
                            v = stack.pop()
                            if type(v) in CONTAINERS:
                                read_length(self, v)
                            if v:
                                f.ip = inst.target
                            continue
                        elif k == 7:
                            f.ip = inst.target
                            continue
                        elif k == 8:
                            stack.pop()
                            continue
                        elif k == 11:
                            # (the handler checks for fresh operands, and reads the items of
                            # containers: `cfg.sizes + [n]`)
                            if not self.fresh_objects and type(stack[-1]) not in CONTAINERS \
                                    and type(stack[-2]) not in CONTAINERS:
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


from .driver import drive, thrown_into_unstarted  # noqa: E402 (driver.py imports this module)
