"""Tiered execution: regions of compiling executors run op by op until their compile is ready.

A region claimed by an executor that declares ``compiles=True`` (inductor) is lowered to a
:class:`TieredRegion`. Its first call records the metadata of its inputs (shapes, strides,
dtypes, devices, requires_grad) and the caller's grad mode, queues the compile on one
background thread, and runs the region with the fallback executor's per-op implementations
(the *per-op tier*); so do later calls until the compile is done. Then the compiled callable
replaces the region's name in the globals of every execution trace that calls it (a dict
assignment: later calls pay nothing for the swap) and calls run compiled (the *compiled
tier*). A compile that fails leaves the region on the per-op tier; ``tc.explain`` says why.

``wait=True`` (``tc.jit(..., wait_for_compile=True)``) compiles on the region's first call, in
the calling thread, and runs that call compiled: deterministic, as before tiering.

Thread safety: compiles run one at a time (one worker thread), holding torch's own
compile lock (``torch._dynamo.convert_frame.compile_lock``), so a ``torch.compile`` the program
runs meanwhile waits for ours instead of running beside it. Two FX traces at once are not safe
(torch.fx's patcher is process-global: measured, two compiling threads fail with
"CURRENT_PATCHER is None"); one compile thread beside a thread running eager ops is, once the
compile's FX state is kept from the program's own FX tracing (``_install_fx_guards``: a
``make_fx``, ``torch.export`` or eager higher-order op with autograd on another thread waits for
the running compile; nothing else does; the compile's "FX trace in progress" flag is its own,
so neither thread's trace makes the other's ``torch.compile``'d calls fail). At exit,
queued compiles are dropped and the one running is waited for (a daemon thread still inside
torch's C++ code when the interpreter finalizes aborts the process: measured).
The compile thread shares the GIL with the program: while it compiles, Python-heavy calls on
the main thread run slower (~1.8x, measured), but no call waits for it; no compile starts while
a jitted function's first call (tracing, lowering, its first run) is in progress, nor until its
first backward has run (at most twice the first call's time, or 1 s, later).
"""

from __future__ import annotations

import atexit
import collections
import contextlib
import dataclasses
import functools
import inspect
import threading
import time
import types

import torch

__all__ = ["TieredRegion", "wait_for_compiles", "cancel_queued", "first_call", "defer_compiles", "release_compiles"]


class _Worker:
    """One daemon thread running queued compiles in order."""

    def __init__(self):
        self.cond = threading.Condition()
        self.queue: collections.deque = collections.deque()
        self.busy = 0          # jobs queued or running
        self.held = 0          # first calls in progress: compiles wait for them (they share the GIL)
        self.holders: dict = {}  # thread id -> first calls it is in
        self.deferred: dict = {}  # token -> deadline (time.monotonic()): a first call's backward to come
        self.thread = None

    def defer(self, seconds: float):
        """Hold compiles until ``release(token)`` or for ``seconds`` at most (a first call's
        backward, which the program may never run); returns the token."""
        token = object()
        with self.cond:
            self.deferred[token] = time.monotonic() + seconds
        return token

    def release(self, token):
        with self.cond:
            if self.deferred.pop(token, None) is not None:
                self.cond.notify_all()

    def _deferred_for(self):
        """Seconds until the last deferral still in force ends (0: none)."""
        now = time.monotonic()
        for t, deadline in list(self.deferred.items()):
            if deadline <= now:
                del self.deferred[t]
        return max(self.deferred.values(), default=now) - now

    @contextlib.contextmanager
    def hold(self):
        """No compile starts while a first call (tracing, then running op by op) is in
        progress: the compile thread would take the GIL from it half the time."""
        me = threading.get_ident()
        with self.cond:
            self.held += 1
            self.holders[me] = self.holders.get(me, 0) + 1
        try:
            yield
        finally:
            with self.cond:
                self.held -= 1
                self.holders[me] -= 1
                if not self.holders[me]:
                    del self.holders[me]
                self.cond.notify_all()

    def submit(self, job):
        with self.cond:
            self.queue.append(job)
            self.busy += 1
            if self.thread is None or not self.thread.is_alive():
                self.thread = threading.Thread(target=self._run, name="thunder_core compile", daemon=True)
                self.thread.start()
            self.cond.notify_all()

    def _run(self):
        while True:
            with self.cond:
                while True:
                    left = self._deferred_for()
                    if self.queue and not self.held and not left:
                        break
                    self.cond.wait(left or None)
                job = self.queue.popleft()
            try:
                job()
            finally:
                with self.cond:
                    self.busy -= 1
                    self.cond.notify_all()

    def cancel_queued(self) -> int:
        """Drop the compiles not started yet (their regions stay on the per-op tier); how many."""
        with self.cond:
            n = len(self.queue)
            for job in self.queue:
                job.cancel()
            self.busy -= n
            self.queue.clear()
            self.cond.notify_all()
        return n

    def drain(self):
        """At exit: drop the queued compiles and wait for the one running (a daemon thread
        stopped inside torch's C++ code when the interpreter finalizes aborts the process)."""
        self.cancel_queued()
        self.wait()

    def wait(self, timeout=None) -> bool:
        deadline = None if timeout is None else time.monotonic() + timeout
        with self.cond:
            if threading.get_ident() in self.holders:
                raise RuntimeError("thunder_core: waiting for background compiles inside a jitted function's first "
                                   "call would wait forever (they start when it returns); wait after the call.")
            while self.busy:
                left = None if deadline is None else deadline - time.monotonic()
                if left is not None and left <= 0:
                    return False
                self.cond.wait(left)
        return True


_WORKER = _Worker()
atexit.register(_WORKER.drain)


def wait_for_compiles(timeout: float | None = None) -> bool:
    """Block until every queued background compile has finished (True), or ``timeout``
    seconds passed (False)."""
    return _WORKER.wait(timeout)


def first_call():
    """Context of a jitted function's compile and first run: background compiles start after it."""
    return _WORKER.hold()


def defer_compiles(seconds: float):
    """Hold background compiles until ``release_compiles(token)`` or ``seconds`` passed (the
    backward of a first call: it runs after the call returns, and shares the GIL too)."""
    return _WORKER.defer(seconds)


def release_compiles(token) -> None:
    _WORKER.release(token)


def _compile_lock():
    try:
        from torch._dynamo.convert_frame import compile_lock
    except Exception:  # noqa: BLE001 - an internal name: serialise our own compiles at least
        return _OWN_LOCK
    return compile_lock


_OWN_LOCK = threading.RLock()
_FX_LOCK = threading.RLock()   # held by a compile, and by other threads' FX traces (_install_fx_guards)
_COMPILING = threading.local()


@contextlib.contextmanager
def _compiling():
    """Hold torch's compile lock and the FX tracing lock for a compile. Neither is held while
    waiting for the other (a program's make_fx may call a torch.compile'd function inside:
    the other order), so the two cannot deadlock."""
    _install_fx_guards()
    locks = (_compile_lock(), _FX_LOCK)
    while True:
        got = [lk for lk in locks if lk.acquire(blocking=False)]
        if len(got) == len(locks):
            break
        for lk in got:
            lk.release()
        time.sleep(0.005)
    _COMPILING.active = True
    try:
        yield
    finally:
        _COMPILING.active = False
        for lk in locks:
            lk.release()


def _install_fx_guards():
    """torch's FX tracing keeps its state in module globals: the make_fx tracer in progress
    (which eager higher-order ops such as ``torch.while_loop``'s backward read to decide whether
    they are being traced, and whose fake mode they then use) and whether node metadata is
    preserved (which AOT autograd sets and asserts). A compile on the background thread beside a
    program doing its own FX tracing broke the program (measured: fake-mode assertion errors and
    "expected preserved node meta" in eager ``torch.cond``/``while_loop`` with autograd). So: the
    compiling thread's make_fx tracer is not published (its regions hold no higher-order ops,
    the only readers), and another thread entering make_fx or AOT autograd's node-meta scope
    waits for a running compile instead of tracing beside it.

    Likewise torch.fx's "a trace is in progress" flag (``_is_fx_tracing_flag``, set and
    restored by every ``Tracer.trace``, make_fx's included), which dynamo checks when a
    ``torch.compile``'d function is called: the compile's make_fx made the program's compiled
    functions raise "Detected that you are using FX to symbolically trace a dynamo-optimized
    function"; the program's FX traces made a symbolic-number region's torch.compile fail the
    same way; and an eager ``torch.cond``/``while_loop`` on the program's thread (which clears
    the flag and sets back what it saw) left it set for good once a compile's make_fx ended in
    between: every later torch.compile in the process failed (measured, in the suite). So the
    compiling thread's traces keep their flag in private globals, and dynamo's check is False
    there (it FX-traces nothing a compiled function is called in)."""
    import torch.fx._symbolic_trace as st
    import torch.fx.experimental.proxy_tensor as pt
    import torch.fx.traceback as fx_traceback

    set_tracer, preserve = getattr(pt, "_set_make_fx_tracer", None), fx_traceback.preserve_node_meta
    if set_tracer is None or getattr(set_tracer, "_thunder_core", False):  # (a torch without it, or done)
        return

    @contextlib.contextmanager
    def guarded_set_tracer(tracer):
        if getattr(_COMPILING, "active", False):
            yield
        else:
            with _FX_LOCK, set_tracer(tracer):
                yield

    @contextlib.contextmanager
    def guarded_preserve(enable: bool = True):
        with _FX_LOCK, preserve(enable):
            yield

    trace, symbolic = st.Tracer.trace, st.is_fx_symbolic_tracing
    fx_trace = inspect.unwrap(trace)  # (dynamo wraps it in torch._dynamo.disable)
    private_trace = types.FunctionType(fx_trace.__code__, _PrivateGlobals(fx_trace.__globals__),
                                       fx_trace.__name__, fx_trace.__defaults__, fx_trace.__closure__)
    private_trace.__kwdefaults__ = fx_trace.__kwdefaults__

    @functools.wraps(trace)
    def aware_trace(self, *args, **kwargs):
        return (private_trace if getattr(_COMPILING, "active", False) else trace)(self, *args, **kwargs)

    @functools.wraps(symbolic)
    def aware_symbolic():  # (a torch.compile wrapper keeps the one it finds when it is made)
        return False if getattr(_COMPILING, "active", False) else symbolic()

    guarded_set_tracer._thunder_core = guarded_preserve._thunder_core = True
    pt._set_make_fx_tracer = guarded_set_tracer
    fx_traceback.preserve_node_meta = guarded_preserve
    st.Tracer.trace, st.is_fx_symbolic_tracing = aware_trace, aware_symbolic


class _PrivateGlobals(dict):
    """The globals of the compiling thread's copy of ``Tracer.trace``: what it writes (the
    tracing flag) stays here; every other name is read from torch.fx's module."""

    def __init__(self, module_globals):
        super().__init__(_is_fx_tracing_flag=False, __builtins__=module_globals["__builtins__"])
        self.module_globals = module_globals

    def __missing__(self, name):
        return self.module_globals[name]  # (a KeyError: Python then looks in builtins)


@dataclasses.dataclass(frozen=True)
class _Meta:
    """What a compile needs of one tensor input: the example it compiles for is made from it
    on the compile thread (zeros; the call's own tensor is not kept alive)."""

    size: tuple
    stride: tuple
    dtype: torch.dtype
    device: torch.device
    requires_grad: bool

    def example(self):
        # zeros under the same strides (expanded inputs have stride 0: a storage just big enough)
        n = 0 if 0 in self.size else 1 + sum((s - 1) * st for s, st in zip(self.size, self.stride))
        t = torch.zeros(n, dtype=self.dtype, device=self.device).as_strided(self.size, self.stride)
        return t.requires_grad_() if self.requires_grad else t


def _meta(x):
    if isinstance(x, torch.Tensor):
        return _Meta(tuple(x.size()), tuple(x.stride()), x.dtype, x.device, x.requires_grad)
    return x


def _hashable(metas):
    try:
        hash(metas)
    except TypeError:  # (an input that is neither a tensor nor a hashable value: never recompiled for)
        return None
    return metas


class _Job:
    def __init__(self, region, metas, grad):
        self.region, self.metas, self.grad = region, metas, grad

    def __call__(self):
        self.region._compile(self.metas, self.grad)

    def cancel(self):
        if self.region.compiled is None:  # (a cancelled recompile leaves the compiled tier as it is)
            self.region.state = "failed: cancelled before it started (thunder_core.execution.tiered.cancel_queued)"


def cancel_queued() -> int:
    """Drop the background compiles that have not started (their regions keep running op by
    op); returns how many. The test suite uses it between tests to bound background work."""
    return _WORKER.cancel_queued()


#: how many compiles beyond the first a region may ask for (Region.recompile)
MAX_RECOMPILES = 3


class TieredRegion:
    """The callable a compiling executor's region runs through until its compile is ready
    (see the module docstring). ``state``: ``"not called"``, ``"compiling"``, ``"compiled"``
    or ``"failed: <reason>"``; ``per_op_calls``: calls that ran on the per-op tier;
    ``compile_s``: how long the compile took (seconds)."""

    def __init__(self, name: str, executor: str, lower, region, baseline, fallback: str, wait: bool):
        self.name, self.executor, self.fallback = name, executor, fallback
        self._lower, self.region, self.baseline, self.wait = lower, region, baseline, wait
        self.state = "not called"
        self.per_op_calls = 0
        self.recompiles = 0  # compiles asked for through Region.recompile
        self.compile_s = None
        self.compiled = None
        self._homes: list = []   # globals dicts of the execution traces calling this region
        self._requested: set = set()  # input metadata compiled for, or queued (Region.recompile)

    def bind(self, namespace: dict) -> None:
        """Register the globals of an execution trace calling this region by its name: the
        compiled callable is put there when ready."""
        self._homes.append(namespace)
        if self.compiled is not None:
            namespace[self.name] = self.compiled

    def __call__(self, *args):
        fn = self.compiled
        if fn is not None:  # a caller bound before the swap that has not looked the name up again
            return fn(*args)
        if self.state == "not called":
            self.state = "compiling"
            metas, grad = tuple(_meta(a) for a in args), torch.is_grad_enabled()
            self._requested.add(_hashable(metas))
            if self.wait:
                self._compile(metas, grad)
                if self.compiled is not None:
                    return self.compiled(*args)
            else:
                _WORKER.submit(_Job(self, metas, grad))
        self.per_op_calls += 1
        return self.baseline(*args)

    def recompile(self, *args):
        """``Region.recompile``: a compile for the metadata of ``args`` too (see there)."""
        metas = tuple(_meta(a) for a in args)
        key = _hashable(metas)
        if key is None or key in self._requested or len(self._requested) > MAX_RECOMPILES:
            return
        self._requested.add(key)
        self.recompiles += 1
        grad = torch.is_grad_enabled()
        if self.wait:
            self._compile(metas, grad)
        else:
            _WORKER.submit(_Job(self, metas, grad))

    def _compile(self, metas, grad):
        t0 = time.perf_counter()
        try:
            with _compiling(), torch.set_grad_enabled(grad):
                examples = tuple(m.example() if isinstance(m, _Meta) else m for m in metas)
                fn = self._lower(dataclasses.replace(self.region, example_inputs=examples, recompile=self.recompile))
        except Exception as e:  # noqa: BLE001 - the per-op tier stays: correct, only slower
            if self.compiled is not None:  # a recompile: the compiled tier stays as it is
                return
            self.state = f"failed: {type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"
            if self.baseline is None:  # no fallback executor runs it op by op: the error is the call's
                self.state = "not called"  # (and the next call tries again)
                raise
            return
        finally:
            self.compile_s = time.perf_counter() - t0
        if not grad and any(isinstance(m, _Meta) and m.requires_grad for m in metas):
            fn = _no_grad_only(fn, self.baseline)
        self.compiled = fn
        self.state = "compiled"
        for namespace in self._homes:
            namespace[self.name] = fn

    def describe(self) -> str:
        """One line for tc.explain: which tier runs this region now."""
        if self.state == "compiled":
            again = f"; compiled again for other inputs' layouts {self.recompiles} time(s)" if self.recompiles else ""
            return (f"{self.name}: compiled by {self.executor} in {self.compile_s:.2f} s; ran op by op "
                    f"({self.fallback}) for the first {self.per_op_calls} call(s), compiled since{again}")
        if self.state == "compiling":
            return (f"{self.name}: {self.executor} is compiling it in the background; runs op by op "
                    f"({self.fallback}) meanwhile ({self.per_op_calls} call(s) so far)")
        if self.state == "not called":
            return f"{self.name}: not called yet ({self.executor} compiles it on its first call)"
        return f"{self.name}: runs op by op ({self.fallback}): the {self.executor} compile {self.state}"


def _no_grad_only(fn, baseline):
    """A region compiled without autograd for inputs that require grad (a forward or backward
    trace's region, run inside the autograd node with grad mode off): called with grad mode
    on, it runs op by op so that PyTorch's autograd records it."""
    is_grad_enabled = torch.is_grad_enabled

    def run(*args):
        return baseline(*args) if is_grad_enabled() else fn(*args)
    return run
