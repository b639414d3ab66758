"""Tiered execution (execution/tiered.py) with a compiling executor written against the SDK:
regions run op by op while they compile on the background thread, are swapped in when ready,
and every call equals eager."""

import contextlib
import threading

import pytest
import torch

import thunder_core as tc
from thunder_core.execution import tiered
from thunder_core.extend import Executor, has_trait, region_callable, torch_impls


class Slow:
    """A compiling executor: fuses runs of elementwise ops; its lower blocks until the test
    releases it (a compile that takes as long as the test wants) and records what it got."""

    def __init__(self, fail=False):
        self.release = threading.Event()
        self.seen = []          # (thread name, example input strides, grad mode)
        self.fail = fail
        self.ex = Executor("slowc", claim=self.claim, compiles=True, dispatch_us=0.0, fuses=True)

    def claim(self, bsyms, ctx):
        i = 0
        while i < len(bsyms):
            j = i
            while j < len(bsyms) and has_trait(bsyms[j], "elementwise") and bsyms[j].sym.id in torch_impls():
                j += 1
            if j - i >= 2 and ctx.region(i, j).outputs:
                yield ctx.claim(i, j, 0.0, self.lower, "slow compile")
            i = max(j, i + 1)

    def lower(self, region):
        self.release.wait(30)
        self.seen.append((threading.current_thread().name,
                          [x.stride() for x in region.example_inputs if isinstance(x, torch.Tensor)],
                          torch.is_grad_enabled()))
        if self.fail:
            raise RuntimeError("the toy compiler gave up")
        fn = region_callable(region, torch_impls())
        compiled_calls = self.compiled_calls = [0]

        def run(*args):
            compiled_calls[0] += 1
            return fn(*args)
        return run


def f(x, y):
    return torch.tanh(x * y + x) * 2


def _region(jf):
    (t,) = jf._last.tiered
    return t


def test_first_calls_run_op_by_op_then_the_compiled_region_is_swapped_in():
    slow = Slow()
    x, y = torch.randn(4, 3).t(), torch.randn(3, 4)  # a transposed input: its strides reach the compile
    jf = tc.jit(f, executors=[slow.ex, "torch"])
    for _ in range(3):  # the compile is blocked: every call runs op by op, and equals eager
        torch.testing.assert_close(jf(x, y), f(x, y))
    t = _region(jf)
    assert t.per_op_calls == 3 and t.state == "compiling"
    assert "runs op by op (torch) meanwhile (3 call(s) so far)" in tc.explain(jf)
    slow.release.set()
    assert tc.wait_for_compiles(30)
    assert t.state == "compiled" and "compiled since" in tc.explain(jf)
    (thread, strides, grad), = slow.seen
    assert thread != threading.current_thread().name and strides == [(1, 3), (4, 1)] and grad is True  # the caller's grad mode
    for _ in range(2):
        torch.testing.assert_close(jf(x, y), f(x, y))
    assert t.per_op_calls == 3 and slow.compiled_calls[0] == 2  # later calls ran the compiled region
    assert jf._last.computation.__globals__[t.name] is t.compiled  # the swap replaced the name: no indirection


def test_regions_of_one_structure_share_their_per_op_function():
    slow = Slow()  # (blocked: the calls below run the per-op tier)

    def two_layers(x, y, w):
        a = torch.tanh(x * y + x) * 2
        b = a @ w  # (not elementwise: the second run is a region of its own)
        return torch.tanh(b * y + b) * 2, a

    jf = tc.jit(two_layers, executors=[slow.ex, "torch"])
    x, y, w = torch.randn(4, 3), torch.randn(4, 3), torch.randn(3, 3)
    torch.testing.assert_close(jf(x, y, w), two_layers(x, y, w))
    first, second = jf._last.tiered
    assert first.name != second.name and first.baseline is second.baseline  # rendered and compiled once
    assert first.per_op_calls == second.per_op_calls == 1
    slow.release.set()
    assert tc.wait_for_compiles(30)


def test_calls_while_the_compile_finishes_equal_eager_every_time():
    slow = Slow()
    jf = tc.jit(f, executors=[slow.ex, "torch"])
    x, y = torch.randn(5, 5), torch.randn(5, 5)
    for i in range(40):
        if i == 5:
            slow.release.set()  # the swap happens somewhere among the next calls
        torch.testing.assert_close(jf(x, y), f(x, y))
    tc.wait_for_compiles(30)
    torch.testing.assert_close(jf(x, y), f(x, y))
    assert _region(jf).state == "compiled"


def test_wait_for_compile_compiles_on_the_first_call_and_runs_it_compiled():
    slow = Slow()
    slow.release.set()
    jf = tc.jit(f, executors=[slow.ex, "torch"], wait_for_compile=True)
    x, y = torch.randn(2, 2), torch.randn(2, 2)
    torch.testing.assert_close(jf(x, y), f(x, y))
    t = _region(jf)
    assert t.state == "compiled" and t.per_op_calls == 0 and slow.compiled_calls[0] == 1
    assert slow.seen[0][0] == threading.current_thread().name


def test_a_failed_compile_leaves_the_region_op_by_op_and_says_why():
    slow = Slow(fail=True)
    slow.release.set()
    jf = tc.jit(f, executors=[slow.ex, "torch"])
    x, y = torch.randn(3), torch.randn(3)
    jf(x, y)
    tc.wait_for_compiles(30)
    torch.testing.assert_close(jf(x, y), f(x, y))
    assert "the slowc compile failed: RuntimeError: the toy compiler gave up" in tc.explain(jf)


def test_training_regions_swap_in_forward_and_backward_with_eager_gradients():
    slow = Slow()
    jf = tc.jit(f, executors=[slow.ex, "torch"])

    def step(fn, x, y):
        x, y = x.clone().requires_grad_(), y.clone().requires_grad_()
        out = fn(x, y)
        out.sum().backward()
        return out, x.grad, y.grad

    x, y = torch.randn(3, 4), torch.randn(3, 4)
    for i in range(6):
        if i == 2:
            slow.release.set()
            tc.wait_for_compiles(30)
        for got, want in zip(step(jf, x, y), step(f, x, y)):
            torch.testing.assert_close(got, want)
    tiers = jf._last.tiered
    assert len(tiers) >= 2 and all(t.state == "compiled" for t in tiers)  # forward and backward regions
    assert all(grad is False for _, _, grad in slow.seen)  # they run inside the autograd node


def test_a_region_compiled_without_autograd_runs_op_by_op_under_grad_mode():
    """A forward region's inputs require grad but it ran with grad mode off; called under
    grad mode (here by hand) it must record autograd, so it runs op by op."""
    from thunder_core.execution.tiered import _no_grad_only

    fn = _no_grad_only(lambda x: (x.detach() * 2,), lambda x: (x * 2,))
    x = torch.ones(2, requires_grad=True)
    assert fn(x)[0].requires_grad
    with torch.no_grad():
        assert not fn(x)[0].requires_grad


@pytest.mark.parametrize("wait", [False, True])
def test_tc_plan_and_explain_are_unchanged_by_tiers(wait):
    slow = Slow()
    slow.release.set()
    jf = tc.jit(f, executors=[slow.ex, "torch"], wait_for_compile=wait)
    jf(torch.randn(2), torch.randn(2))
    tc.wait_for_compiles(30)
    assert "-> slowc" in tc.explain(jf) and "tiers (regions of compiling executors):" in tc.explain(jf)
    assert [b.sym.id for b in tc.last_traces(jf)[-1].bound_symbols] == ["slowc.slowc_region0"]


@pytest.mark.parametrize("fail", [False, True])
def test_without_a_fallback_executor_the_first_call_waits_for_the_compile(fail):
    """No executor can run the region op by op: the call compiles it and runs it compiled, or
    raises the compile's error (and the next call tries again)."""
    slow = Slow(fail=fail)
    slow.release.set()
    jf = tc.jit(lambda x, y: x * y + x, executors=[slow.ex])
    x, y = torch.randn(3), torch.randn(3)
    if fail:
        for _ in range(2):
            with pytest.raises(RuntimeError, match="the toy compiler gave up"):
                jf(x, y)
        assert len(slow.seen) == 2
    else:
        torch.testing.assert_close(jf(x, y), x * y + x)
        t = _region(jf)
        assert t.state == "compiled" and t.per_op_calls == 0 and slow.seen[0][0] == threading.current_thread().name


def test_background_compiles_wait_for_the_first_calls_backward():
    """The first training call's backward runs after the call returns; its compiles (which
    share the GIL) are deferred until it has run."""
    from thunder_core.execution import tiered

    slow = Slow()
    slow.release.set()
    jf = tc.jit(f, executors=[slow.ex, "torch"])
    x, y = (torch.randn(3, 4, requires_grad=True) for _ in range(2))
    out = jf(x, y)
    assert len(tiered._WORKER.deferred) == 1
    out.sum().backward()
    assert not tiered._WORKER.deferred
    assert tc.wait_for_compiles(30) and all(t.state == "compiled" for t in jf._last.tiered)


def test_the_backwards_deferral_is_in_place_when_the_first_call_lets_compiles_start(monkeypatch):
    """The compile thread is woken when the first call's hold ends; the deferral for the
    backward must be registered by then, or a compile starts and takes the GIL from the
    backward (seen as a first backward of a 12-layer GPT ten times its later ones)."""
    hold, deferred_at_release = tiered.first_call, []

    @contextlib.contextmanager
    def watched():
        with hold():
            yield
            deferred_at_release.append(len(tiered._WORKER.deferred))
    monkeypatch.setattr(tiered, "first_call", watched)
    slow = Slow()
    slow.release.set()
    jf = tc.jit(f, executors=[slow.ex, "torch"])
    x, y = (torch.randn(3, 4, requires_grad=True) for _ in range(2))
    out = jf(x, y)
    assert deferred_at_release == [1] and not slow.seen
    out.sum().backward()
    assert tc.wait_for_compiles(30) and all(t.state == "compiled" for t in jf._last.tiered)


def test_fx_tracing_on_one_thread_is_invisible_to_torch_compile_on_the_other():
    """torch.fx's "a trace is in progress" flag is a module global that dynamo checks when a
    torch.compile'd function is called. The compile thread's make_fx must not make the program's
    compiled functions raise (nor leave the flag set), and the program's own FX trace must not
    make the compile thread's torch.compile (inductor's, of regions taking symbolic numbers) fail."""
    import threading

    import torch.fx._symbolic_trace as st
    from torch.fx.experimental.proxy_tensor import make_fx

    x = torch.arange(4.0)
    inside, leave, seen = threading.Event(), threading.Event(), {}

    def region(t):
        inside.set()
        assert leave.wait(60)
        return t + 1

    def compile_thread_traces():
        with tiered._compiling():
            seen["graph"] = make_fx(region, tracing_mode="fake")(x)

    doubled = torch.compile(lambda t: t * 2, backend="eager")
    doubled(x)  # compiled now: its call below does not wait for the compile thread's lock
    worker = threading.Thread(target=compile_thread_traces)
    worker.start()
    try:
        assert inside.wait(60)
        torch.testing.assert_close(doubled(x), x * 2)  # raised "Detected that you are using FX..."
        assert not st._is_fx_tracing_flag
    finally:
        leave.set()
        worker.join()
    torch.testing.assert_close(seen["graph"](x), x + 1)
    assert not st._is_fx_tracing_flag

    def compile_thread_compiles():
        try:
            with tiered._compiling():
                seen["compiled"] = torch.compile(lambda t: t - 3, backend="eager")(x)
        except Exception as e:  # noqa: BLE001 - reported by the assertion below
            seen["compiled"] = e

    def program(t):  # FX-traced by the program while the compile thread compiles
        worker = threading.Thread(target=compile_thread_compiles)
        worker.start()
        worker.join()
        return t * 5

    gm = torch.fx.symbolic_trace(program)
    assert isinstance(seen["compiled"], torch.Tensor), seen["compiled"]
    torch.testing.assert_close(seen["compiled"], x - 3)
    torch.testing.assert_close(gm(x), x * 5)
    assert not st._is_fx_tracing_flag


def test_a_compile_on_another_thread_leaves_the_programs_own_fx_tracing_alone():
    """torch's FX tracing state is process-global (the make_fx tracer in progress, whether node
    metadata is preserved). While a background compile is inside make_fx, the main thread does
    not see the compile's tracer (eager higher-order ops read it to decide whether they are being
    traced: measured, eager torch.while_loop's backward then failed), and its own make_fx (here
    eager torch.while_loop with autograd, which traces its body) waits for the compile instead
    of tracing beside it; its values and gradients are eager's."""
    import threading

    import torch.fx.experimental.proxy_tensor as pt
    from torch.fx.experimental.proxy_tensor import make_fx

    def loop(x, w):
        return torch.while_loop(lambda i, a: i < 3, lambda i, a: (i + 1, (a * w).sin() + a),
                                (torch.zeros((), dtype=torch.int64), x))[1]

    def reference(x, w):
        for _ in range(3):
            x = (x * w).sin() + x
        return x

    inside, leave, order = threading.Event(), threading.Event(), []

    def traced_body(a):
        inside.set()
        leave.wait(30)
        return a.cos() * 2

    def compiling():
        with tiered._compiling():
            gm = make_fx(traced_body, tracing_mode="fake")(torch.randn(3))
            order.append("compile done" if "cos" in gm.code else "compile wrong")

    t = threading.Thread(target=compiling)
    t.start()
    assert inside.wait(30)
    assert pt._CURRENT_MAKE_FX_TRACER is None
    x, w = torch.randn(4, requires_grad=True), torch.randn(4, requires_grad=True)
    threading.Timer(0.5, leave.set).start()
    out = loop(x, w)
    out.sum().backward()
    order.append("program traced")
    t.join(30)
    assert order == ["compile done", "program traced"]
    xe, we = x.detach().clone().requires_grad_(), w.detach().clone().requires_grad_()
    want = reference(xe, we)
    want.sum().backward()
    torch.testing.assert_close(out, want)
    torch.testing.assert_close((x.grad, w.grad), (xe.grad, we.grad))
