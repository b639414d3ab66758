"""The public API: ``jit`` and the introspection functions (see shared/DESIGN.md)."""

from __future__ import annotations

import functools
import os
import time
import types
import warnings

import torch

from .capture import Capture, capture
from .execution.cost import CostModel
from .execution.lowering import lower, target_of
from .execution.partition import partition
from .guards import fresh
from .guards.cache import Entry, EntryWithDraws, dispatch_key
from .guards.prologue import MISS, build_prologue, hit_method
from .guards.record import TRUTH
from .ir import Trace
from .module import ThunderModule, jit_module

#: Run the IR verifier on every trace a compile produces (tests turn it on; so does
#: THUNDER_CORE_VERIFY=1), so a pass that breaks a trace fails where it broke it.
VERIFY_TRACES = os.environ.get("THUNDER_CORE_VERIFY", "") not in ("", "0")

CACHE_MODES = ("constant values", "no caching", "same input", "symbolic values")
#: What tc.jit and tc.plan trace with unless told: numbers and sizes stay symbolic (issue 17).
DEFAULT_CACHE = "symbolic values"
MISS_WARN_LIMIT = 8
#: calls in a row another cache entry takes before its hit method is tried first (JittedFunction._took)
SWITCH_AFTER = 4


class RecompileWarning(UserWarning):
    """A jitted function was compiled more often than the cache limit; says what changed."""


def _without_autocast(fn):
    from .ops.registry import without_autocast

    def run(*args):
        return without_autocast(fn, *args)
    run.__wrapped__ = fn
    return run


class _FirstRun:
    """What a freshly compiled entry's hit method is called with in place of the jitted
    function, for the compile's own call: a failed check returns MISS (the general prologue
    then runs) instead of taking the slow path, which would compile again."""

    @staticmethod
    def _call(args, kwargs):
        return MISS


_FIRST_RUN = _FirstRun()


class JittedFunction:
    """``tc.jit(fn)``: calls ``fn`` through cached, guarded compiled traces."""

    def __init__(self, fn, executors=None, cache=DEFAULT_CACHE, sharp_edges=None, transforms=(),
                 wait_for_compile=False):
        if cache not in CACHE_MODES:
            raise ValueError(f"cache={cache!r} is not one of {', '.join(map(repr, CACHE_MODES))}.")
        self._transforms = _resolve_transforms(transforms)
        from .sharp_edges import checkers, resolve_levels

        self.fn = fn
        # A bound method (`model.forward`): its object is the first argument of every call, so
        # what the method reads through `self` is fetched and guarded like any argument.
        bound = isinstance(fn, types.MethodType)
        self._bound, self._target = (fn.__self__, fn.__func__) if bound else (None, fn)
        self.cache = cache
        self._sharp_levels = resolve_levels(sharp_edges)
        found = checkers()
        self._record_opaque = any(found[n].needs_opaque_calls for n, lv in self._sharp_levels.items() if lv != "allow")
        self._executors = _resolve_executors(executors)
        self.wait_for_compile = wait_for_compile
        self._entries: dict = {}
        self._draws = fresh.DrawLog()  # the fresh values of the call in progress (guards/fresh.py)
        self._ran_last: Entry | None = None  # the entry that ran last through _call (or compiled): see _last
        self._installed: Entry | None = None  # the entry whose hit method is __call__
        self._mark = 0                        # the hit count after _ran_last ran
        self.misses = 0
        self._hits = [0]  # (a list the hit methods add to: cheaper than an attribute of this object)
        self._streak = [None, 0]  # (_took: the entry that took the last calls in a row, how many)
        self._warned = False
        self.arg_names = None  # names of positional arguments for traces and messages
        functools.update_wrapper(self, fn, updated=())
        # Each jitted function is the only instance of its own subclass, whose __call__ is the
        # hit method of the entry that ran last (_ran): a cache hit is then one generated
        # Python frame, not __call__'s and the hit function's (the interpreter traces any of
        # them as JittedFunction.__call__: builtin/lookasides.py).
        cls = type(self)
        self.__class__ = type(cls.__name__, (cls,), {"__slots__": (), "__module__": cls.__module__,
                                                     "__qualname__": cls.__qualname__, "_own_class": True})

    _own_class = False  # (True on the subclass made for each instance)

    @property
    def hits(self) -> int:
        """Calls that a cache entry took (the others compiled)."""
        return self._hits[0]

    def __call__(self, *args, **kwargs):
        # (no entry with a hit method ran last: _ran installs the last one's as its __call__)
        return self._call(args, kwargs)

    @property
    def _last(self) -> Entry | None:
        """The entry that ran last (what tc.last_traces and the other introspection show): the
        installed one if its hit method took a call since another entry ran (hits counted
        past the mark), else the one that did."""
        if self._installed is not None and self._hits[0] > self._mark:
            return self._installed
        return self._ran_last

    def _ran(self, entry: Entry) -> None:
        """``entry`` ran (just compiled, or took calls: _took): its hit method becomes this
        jitted function's ``__call__``, so the next call tries it first."""
        self._ran_last, self._mark = entry, self._hits[0]
        self._installed = entry if entry.hit is not None else None
        hit = entry.hit if entry.hit is not None else JittedFunction.__call__
        cls = type(self)
        if cls._own_class and cls.__dict__.get("__call__") is not hit:
            cls.__call__ = hit

    def _took(self, entry: Entry) -> None:
        """``entry`` took a call that the installed hit method missed. Its hit method is
        installed after SWITCH_AFTER such calls in a row (no other hit between): setting a
        class's ``__call__`` undoes CPython's specialisations of the code calling it (~1.5 us), which
        calls alternating between entries (a branch on a random draw) would pay often."""
        n, s = self._hits[0], self._streak
        in_a_row = entry is s[0] and n == self._mark + 1  # (only this call counted since the last one ran)
        self._ran_last, self._mark = entry, n
        if in_a_row:
            s[1] += 1
            if s[1] >= SWITCH_AFTER:
                self._ran(entry)
        else:
            s[:] = entry, 1

    def _call(self, args, kwargs):
        """A call the last entry's hit function did not take: the other entries, else a compile."""
        if self._bound is not None:
            args = (self._bound, *args)
        if self.cache == "same input" and self._last is not None:
            inputs = self._last.unchecked.fn(args, kwargs)
            if inputs is not MISS:  # (fresh values are checked all the same: a draw's outcome may change)
                self._hits[0] += 1
                return self._last.run(inputs, args, kwargs)
        if self.cache != "no caching":
            entries = self._entries.get(dispatch_key(args, kwargs))
            if entries:
                if entries[0] is self._installed and len(entries) > 1:
                    # the installed entry's hit method has just missed: its general prologue (other
                    # sizes) is tried after the other entries' (another branch of the program)
                    entries = entries[1:] + entries[:1]
                for e in entries:
                    try:
                        inputs = e.prologue.fn(args, kwargs)
                    except Exception:  # noqa: BLE001 - a path that no longer exists is a miss
                        continue
                    if inputs is not MISS:
                        self._hits[0] += 1
                        self._took(e)
                        return e.run(inputs, args, kwargs)
        return self._compile_and_run(args, kwargs)

    def _trace(self, args, kwargs, draw_log=None):
        """(capture, [captured trace, transformed traces...], epilogue, its source): what a
        compile does before executors take the trace. ``draw_log``: where the fresh values
        drawn while tracing are left for the prologue run next (guards/fresh.py)."""
        from .guards.epilogue import build_epilogue
        from .sharp_edges import run_checkers

        cap = capture(self._target, args, kwargs, arg_names=self.arg_names, record_opaque_calls=self._record_opaque,
                      what=self.__qualname__, symbolic=self.cache == "symbolic values", draw_log=draw_log)
        self._nested_options(cap)
        run_checkers(cap, self._sharp_levels)
        epilogue, epilogue_source, results = build_epilogue(cap, args, kwargs, cap.trace.output)
        if epilogue is not None:  # the computation returns what the epilogue needs; it returns the output
            cap.trace.output = tuple(results)
        traces = [cap.trace]
        for name, transform in self._transforms:
            t = transform(traces[-1])
            if VERIFY_TRACES:
                from .ir import verify

                verify(t)
            traces.append(t)
        return cap, traces, epilogue, epilogue_source

    def _nested_options(self, cap):
        """Jitted functions called inside are traced inline, as part of this compile: this jit's
        executors and cache apply to them (noted for tc.explain where theirs differ); transforms
        cannot apply to a part of a trace, so an inner jit's transforms must be this one's too."""
        for n in cap.nested:
            inner, name = n.jitted, getattr(n.jitted, "__qualname__", "a jitted function")
            missing = [t for t, _ in inner._transforms if t not in {u for u, _ in self._transforms}]
            if missing:
                raise ValueError(f"{self.__qualname__} calls {name}, jitted with transforms {missing}, which {name} "
                                 f"does not have itself: a jitted function called inside another is traced into the "
                                 f"caller's trace, and a transform applies to a whole trace. Give the outer "
                                 f"tc.jit these transforms too, or call {name} outside it.")
            differs = [f"executors {[e.name for e in inner._executors]}"] if \
                [e.name for e in inner._executors] != [e.name for e in self._executors] else []
            differs += [f"cache={inner.cache!r}"] if inner.cache != self.cache else []
            differs += [f"wait_for_compile={inner.wait_for_compile}"] \
                if inner.wait_for_compile != self.wait_for_compile else []
            if differs and not any(name in note and "inline" in note for note in cap.notes):
                cap.notes.append(f"{name} (a jitted function called inside) is traced inline into this compile, so "
                                 f"its options ({', '.join(differs)}) are not used: this jit's are (executors "
                                 f"{[e.name for e in self._executors]}, cache={self.cache!r}); its sharp-edge "
                                 f"levels apply to what it does where they are stricter")

    def _compile_and_run(self, args, kwargs):
        from .execution.autograd_runtime import AutogradRunner
        from .execution.tiered import defer_compiles, first_call

        t0 = time.perf_counter()
        with first_call():  # compiles queued by this call start when it returns
            out = self._compile_and_run_now(args, kwargs)
            runner = getattr(self._last.computation, "__wrapped__", self._last.computation)
            if isinstance(runner, AutogradRunner) and self._last.tiered:  # ... or after its first backward
                # deferred before the hold ends: the compile thread, woken then, must find it
                # (registered after, a compile could start and take the GIL from the backward)
                _after_first_backward(runner, defer_compiles(max(1.0, 2 * (time.perf_counter() - t0))))
        return out

    def _compile_and_run_now(self, args, kwargs):
        self.misses += 1
        from .ir.trace import tracing

        try:
            # a compile is on its own even when this call comes from a trace being built (a
            # generator another prologue draws from calls it natively): the checks its lowering
            # and verifier make on its symbolic sizes are its own guards, never the other trace's
            with tracing(None):
                entry = self._compile(args, kwargs)
            if entry.hit is not None and not self._draws.draws:
                # the cache hit's method checks and runs this call too (the general prologue is
                # then compiled only if a later call needs it: a new size, another entry's hit)
                n = self._hits[0]
                try:
                    out = entry.hit(_FIRST_RUN, *(args[1:] if self._bound is not None else args), **kwargs)
                finally:
                    self._hits[0] = n  # (not a hit: the compile's own call)
                if out is not MISS:
                    return out
            # the new entry's prologue takes the fresh values the trace drew (guards/fresh.py)
            inputs = entry.prologue.fn(args, kwargs)
        except BaseException:
            self._draws.clear()  # drawn for a call that did not run: no later prologue may take them
            raise
        if inputs is MISS:
            raise RuntimeError(f"thunder_core: the prologue of a freshly compiled {self.__qualname__} rejected the "
                               f"arguments it was compiled for. This is a bug; the prologue was:\n"
                               f"{entry.prologue.source}")
        return entry.run(inputs, args, kwargs)

    def _compile(self, args, kwargs) -> Entry:
        cap, traces, epilogue, epilogue_source = self._trace(args, kwargs, draw_log=self._draws)
        from .ir.trace import guarding

        with guarding(cap.specialize, cap.equalities):  # what lowering specialises is guarded like the capture's reads
            computation, more, backward_traces, owner, explanation, tiered, used = self._lower(traces[-1])
        if cap.autocast:
            # traced under torch.autocast: the trace holds its casts (transforms/autocast.py),
            # and where the program turned it off (HF's rotary embeddings) none: it runs with
            # the caller's autocast off, so nothing is cast twice, or against the program
            computation = _without_autocast(computation)
        traces += more
        exec_trace = traces.pop()
        if VERIFY_TRACES:
            from .ir import verify

            verify(cap.trace)
            for t in (exec_trace, *more, *(backward_traces or ())):
                verify(t)
        prologue = build_prologue(cap, args, kwargs, used=used)
        unchecked = build_prologue(cap, args, kwargs, check=False, used=used) if self.cache == "same input" else None
        entry = (EntryWithDraws if cap.epilogue_draws else Entry)(
            cap, prologue, unchecked, computation, [*traces, exec_trace], owner, epilogue, epilogue_source,
            explanation, backward_traces, tiered)
        if prologue.guards_unchecked:
            # What the trace read along a path the prologue cannot follow cannot be checked: the
            # entry is not reused (sound, but every call compiles again), and the user is told.
            g = prologue.guards_unchecked[0]
            warnings.warn(f"{self.__qualname__} depends on {cap.describe_path(g.prov)} ({g.describe()}), which "
                          f"thunder_core cannot read again before a call (native code returned it), so this compile "
                          f"is not cached and every call traces again. Pass the value as an argument, or read it as "
                          f"an attribute or item of an argument, global or module.", RecompileWarning, stacklevel=4)
        elif self.cache != "no caching":
            if self.cache != "same input" and not cap.epilogue_draws:  # (the prologue returns draws too)
                static = build_prologue(cap, args, kwargs, static=True, used=used)  # (None: the same as prologue)
                entry.hit = hit_method(static or prologue, args, kwargs, computation, epilogue, self.__qualname__,
                                       bound=self._bound, hits=self._hits)
                entry.hit.__traced_as__ = JittedFunction.__call__  # (by the interpreter, called inside a trace)
            key = dispatch_key(args, kwargs)
            previous = self._last
            self._entries.setdefault(key, []).insert(0, entry)
            n = sum(len(v) for v in self._entries.values())
            if n > MISS_WARN_LIMIT and not self._warned:
                self._warned = True
                advice = ("Pass values that change between calls as tensors, or use cache='symbolic values' (the "
                          "default: numbers and tensor sizes stay symbolic)." if self.cache != "symbolic values" else
                          "What the program needs as a concrete value is specialised (int(n), range(n), a branch on "
                          "a number, sizes 0 and 1, bool and str arguments, attributes of objects): "
                          "tc.last_prologue_traces shows what each entry checks. Pass values that change between "
                          "calls as tensors or int/float arguments.")
                warnings.warn(f"{getattr(self.fn, '__qualname__', self.fn)} was compiled {n} times "
                              f"(limit {MISS_WARN_LIMIT}); the last time because {_what_changed(previous, cap)}. "
                              f"{advice}", RecompileWarning, stacklevel=4)
        self._ran(entry)
        return entry

    def _lower(self, trace):
        """(computation callable, [traces made on the way..., execution trace], backward traces or
        None, {symbol id: executor}, explanation, [TieredRegion], positions of the trace's inputs
        the computation takes or None for all). A trace with outputs that require grad is split
        into a forward and a backward, each claimed by the executors, run as one autograd node."""
        lowered = lower(trace, self._executors, CostModel(target_of(trace)), wait_for_compile=self.wait_for_compile)
        tiered = [t for p in lowered.partitions for t in p.tiered]
        if lowered.forward is None:
            return (lowered.computation, [lowered.trace], None, lowered.owner, lowered.explanation, tiered,
                    lowered.used)
        from .execution.autograd_runtime import AutogradRunner

        s, fwd, bwd = lowered.split, lowered.forward, lowered.backward

        def joint():  # the unsplit trace under PyTorch's autograd, for double backward
            return partition(trace, self._executors, CostModel(target_of(trace)),
                             wait_for_compile=self.wait_for_compile).callable()

        runner = AutogradRunner(fwd.callable(), bwd.callable(boxed=True), s, joint)
        return (runner, [s.joint, s.forward, fwd.trace], [s.backward, bwd.trace], lowered.owner, lowered.explanation,
                tiered, None)


def _after_first_backward(runner, token):
    """Release the compiles deferred for ``runner``'s first backward when it has run."""
    from .execution.tiered import release_compiles

    backward = runner.backward

    def first(saved):
        runner.backward = backward
        try:
            return backward(saved)
        finally:
            release_compiles(token)
    runner.backward = first


def _what_changed(previous: Entry | None, cap: Capture) -> str:
    if previous is None:
        return "the cache was empty"
    old = {_guard_key(g): g for g in previous.capture.guards}
    diffs = []
    for g in cap.guards:
        o = old.get(_guard_key(g))
        if o is not None and not _same(o.value, g.value):
            where = "a tensor predicate" if g.kind == TRUTH else cap.describe_path(g.prov)
            diffs.append(f"{where}: {o.describe()} -> {g.describe()}")
    return "; ".join(diffs[:3]) if diffs else "a check of the previous entry failed"


def _guard_key(g):
    # (guards of tensor predicates have no path: told apart by the predicate itself)
    return (g.prov, g.kind, g.value.source if g.kind == TRUTH else None)


def _same(a, b):
    try:
        return a is b or bool(a == b)
    except Exception:  # noqa: BLE001
        return False


def _resolve_transforms(spec):
    """[(name, transform)] for ``transforms=``: registered names or callables."""
    from . import plugins

    out, registered = [], None
    for item in spec or ():
        if isinstance(item, str):
            registered = plugins.registry().transforms if registered is None else registered
            if item not in registered:
                raise ValueError(f"Unknown transform {item!r}. Registered transforms: "
                                 f"{', '.join(sorted(registered)) or '(none)'}.")
            out.append((item, registered[item]))
        elif callable(item):
            out.append((getattr(item, "__name__", repr(item)), item))
        else:
            raise TypeError(f"transforms: expected a registered name or a callable, got {item!r}")
    return out


def _resolve_executors(spec):
    from . import plugins

    installed = plugins.registry().executors
    if spec is None and os.environ.get("THUNDER_CORE_EXECUTORS"):
        # the default for every tc.jit of this process (tests use it to keep inductor out)
        spec = [name.strip() for name in os.environ["THUNDER_CORE_EXECUTORS"].split(",") if name.strip()]
    if spec is None:
        chosen = [ex for ex in installed.values() if ex.unavailable() is None]
        chosen.sort(key=lambda ex: ex.fallback)  # per-op fallbacks last: ties go to the others
        if not chosen:
            raise RuntimeError("No executor is installed: install one, e.g. pip install thunder-executor-torch "
                               "(executors/torch in a checkout); python -m thunder_core doctor lists what is found.")
        return chosen
    out = []
    for item in spec:
        item = executor_named(item, installed)
        reason = item.unavailable()
        if reason is not None:
            raise RuntimeError(f"Executor {item.name!r} cannot run here: {reason}.")
        out.append(item)
    return out


def executor_named(item, installed):
    """``item`` itself if it is an Executor, else the installed executor of that name."""
    if not isinstance(item, str):
        return item
    if item not in installed:
        raise ValueError(f"Unknown executor {item!r}. Installed executors: {', '.join(sorted(installed))}.")
    return installed[item]


def _call_module(module, *args, **kwargs):
    return module(*args, **kwargs)


def jit(fn, executors=None, cache=DEFAULT_CACHE, sharp_edges=None, transforms=(), wait_for_compile=False):
    """Compile ``fn`` (a function or an ``nn.Module``); see shared/DESIGN.md.

    ``wait_for_compile``: regions of compiling executors (inductor) are compiled on their
    first call, which waits for them and runs compiled. By default (False) no call waits:
    such a region runs op by op while it compiles in the background, and is swapped in when
    ready (``tc.explain`` shows which tier runs each region; ``tc.wait_for_compiles()`` waits
    for the background compiles)."""
    if isinstance(fn, torch.nn.Module):
        jfn = JittedFunction(_call_module, executors, cache, sharp_edges, transforms, wait_for_compile)
        jfn.__qualname__ = type(fn).__qualname__
        code = getattr(getattr(type(fn).forward, "__func__", type(fn).forward), "__code__", None)
        if code is not None:
            jfn.arg_names = ["module", *code.co_varnames[1:code.co_argcount]]
        return jit_module(fn, jfn)
    return JittedFunction(fn, executors, cache, sharp_edges, transforms, wait_for_compile)


def _jfn(obj) -> JittedFunction:
    if isinstance(obj, ThunderModule):
        return obj._tc_jfn
    if isinstance(obj, JittedFunction):
        return obj
    raise TypeError(f"expected the result of thunder_core.jit, got {type(obj).__qualname__}")


def _last(obj) -> Entry:
    e = _jfn(obj)._last
    if e is None:
        raise RuntimeError("This jitted function has not been called yet: there are no traces.")
    return e


def last_traces(obj) -> list[Trace]:
    """Computation traces of the last compile, first to final (the one that ran)."""
    return list(_last(obj).traces)


def last_backward_traces(obj) -> list[Trace]:
    """Backward traces of the last compile, first to final (the one that runs), or [] when the
    last compile needed no gradients (or got them from PyTorch's autograd: see tc.explain)."""
    return list(_last(obj).backward_traces or ())


def last_prologue_traces(obj) -> list[str]:
    """The printed prologue (checks and input fetching) of the last compile."""
    return [_last(obj).prologue.source]


def explain(obj) -> str:
    """For the last compile: each region of the trace, the competing claims with their
    estimated costs, and the executor that won; which tier runs each region of a compiling
    executor (op by op while it compiles in the background, or compiled); the values that are
    fresh on every call (drawn by the prologue, in order, as inputs), and those that are fresh
    in eager but were read once while tracing (allowed with ``sharp_edges={"opaque-call": "allow"}``)."""
    from .frontend import events as ev

    entry = _last(obj)
    text = str(entry.explanation)
    if entry.tiered:
        text += "\ntiers (regions of compiling executors):" + "".join(f"\n  {t.describe()}" for t in entry.tiered)
    if entry.capture.notes:
        text += "\nwhile tracing:" + "".join(f"\n  {note}" for note in entry.capture.notes)
    truths = [g for g in entry.capture.guards if g.kind == TRUTH]
    if truths:
        text += "\nbranched on tensor predicates of inputs (computed again by the prologue on every call):" + "".join(
            f"\n  {g.describe()}" for g in truths)
    drawn = entry.capture.draws
    if drawn:
        text += "\ndrawn by the prologue on every call, in this order (inputs of the computation):" + "".join(
            f"\n  {d.site[0]}:{d.site[1]}: {d.name}(...)" + (f" raises {d.raised.__name__}" if d.raised else "")
            for d in drawn)
    frozen = [e for e in entry.capture.events if e.kind == ev.FROZEN]
    if frozen:
        text += "\nread once while tracing, the same on every call (sharp_edges opaque-call 'allow'):" + "".join(
            f"\n  {e.site[0]}:{e.site[1]}: {e.key}(...) = {e.value!r:.80}" for e in frozen)
    return text


def wait_for_compiles(timeout: float | None = None) -> bool:
    """Block until the regions compiling in the background (tiered execution: see ``jit``'s
    ``wait_for_compile``) are compiled and swapped in, or failed; True when none is left,
    False if ``timeout`` seconds passed first. Later calls then run the steady state."""
    from .execution.tiered import wait_for_compiles as wait

    return wait(timeout)


def cache_hits(obj) -> int:
    return _jfn(obj).hits


def cache_misses(obj) -> int:
    return _jfn(obj).misses
