"""torch.while_loop and scan under tc.jit, against eager: the body traced once into
higher_order.while_loop / higher_order.scan, run by a loop at run time, with gradients."""

import pytest
import torch
from torch._higher_order_ops import scan

import thunder_core as tc
from thunder_core.ir import TracingError, verify
from thunder_core.ops.higher_order import stack_dim

from .helpers import assert_same


def power_loop(n, x, w):
    def cond_fn(i, a):
        return i < n

    def body_fn(i, a):
        return i + 1, (a * w).sin() + a

    return torch.while_loop(cond_fn, body_fn, (torch.zeros((), dtype=torch.int64), x))


def test_while_loop_runs_as_many_steps_as_the_tensors_say():
    jf = tc.jit(power_loop)
    x, w = torch.randn(4), torch.randn(4)
    for n in (3, 2, 5, 1):
        assert_same(jf, power_loop, [torch.tensor(n), x, w], grad=(1, 2))
    assert tc.cache_misses(jf) == 1 and tc.cache_hits(jf) == 3
    trace = str(tc.last_traces(jf)[-1])
    assert "higher_order.while_loop(" in trace and "def while_body0(" in trace
    assert "higher_order.while_loop_vjp(" in str(tc.last_backward_traces(jf)[-1])
    for t in (*tc.last_traces(jf), *tc.last_backward_traces(jf)):
        verify(t)


def test_while_loop_that_runs_no_step():
    jf = tc.jit(power_loop)
    x, w = torch.randn(4, requires_grad=True), torch.randn(4, requires_grad=True)
    i, out = jf(torch.tensor(0), x, w)
    assert i == 0 and torch.equal(out, x) and out is not x  # a new tensor, as in eager
    ct = torch.randn(4)
    gx, gw = torch.autograd.grad(out, (x, w), ct, allow_unused=True)
    # the exact gradient of the identity (eager's WhileLoopAutogradOp differentiates one step of
    # the body even when none ran: its gradients differ here)
    torch.testing.assert_close(gx, ct)
    assert gw is None or torch.count_nonzero(gw) == 0


def unrolled(n, x, w):
    a = x
    for _ in range(int(n)):
        a = (a * w).sin() + a
    return torch.tensor(int(n)), a


def test_while_loop_carry_that_comes_to_need_gradients():
    # x does not require grad, but w does: after one step the carry depends on w. (Checked
    # against the loop written out: eager's WhileLoopAutogradOp gives half this gradient here.)
    jf = tc.jit(power_loop)
    for n in (2, 3):
        assert_same(jf, unrolled, [torch.tensor(n), torch.randn(3), torch.randn(3)], grad=(2,))
    out = jf(torch.tensor(2), torch.randn(3), torch.randn(3, requires_grad=True))
    assert out[1].requires_grad and not out[0].requires_grad


def test_while_loop_on_python_values_is_a_python_loop():
    def f(x):
        # the condition reads only Python numbers: the loop is unrolled while tracing
        return torch.while_loop(lambda i, a: i < 3, lambda i, a: (i + 1, a * 2), (0, x))

    jf = tc.jit(f)
    got = jf(torch.ones(2))
    assert got[0] == 3 and torch.equal(got[1], f(torch.ones(2))[1])
    assert "higher_order" not in str(tc.last_traces(jf)[-1])


def test_while_loop_refusals():
    def changes_shape(x):
        return torch.while_loop(lambda a: a.sum() < 10, lambda a: (a.sum(),), (x,))

    with pytest.raises(TracingError, match="carried input 0"):
        tc.jit(changes_shape)(torch.ones(3))

    def int_carry(x):
        return torch.while_loop(lambda i, a: a.sum() < 10, lambda i, a: (i + 1, a * 2), (0, x))

    with pytest.raises(TracingError, match="must be a tensor"):
        tc.jit(int_carry)(torch.ones(3))


def running(init, xs, w):
    def combine(c, x):
        h = (c * w + x).tanh()
        return h, h * 2

    return scan(combine, init, xs)


def test_scan_against_eager():
    jf = tc.jit(running)
    for steps in (5, 5, 5):
        assert_same(jf, running, [torch.randn(3), torch.randn(steps, 3), torch.randn(3)], grad=(0, 1, 2))
    assert tc.cache_misses(jf) == 1
    assert "higher_order.scan(" in str(tc.last_traces(jf)[-1])
    assert "higher_order.scan(" in str(tc.last_backward_traces(jf)[-1])  # a scan the other way


def pytree_scan(init, xs, w, counter=False):
    def combine(c, x):
        h = (c["h"] * w + x[0]).tanh()
        return {"h": h, **({"n": c["n"] + 1} if counter else {"g": c["g"] * 0.5 + h})}, (h * 2, x[1].sum())

    extra = {"n": torch.zeros((), dtype=torch.int64)} if counter else {"g": torch.ones(3)}
    return scan(combine, {"h": init, **extra}, (xs, xs * 3), dim=1, reverse=True)


def pytree_unrolled(init, xs, w):
    """pytree_scan written out (eager's scan on torch 2.10 gets the gradient of w wrong); its
    outputs stacked where this torch's scan stacks them (checked against eager's forward)."""
    c, ys = {"h": init, "g": torch.ones(3)}, []
    for i in reversed(range(xs.shape[1])):
        h = (c["h"] * w + xs[:, i]).tanh()
        c = {"h": h, "g": c["g"] * 0.5 + h}
        ys.append((h * 2, (xs[:, i] * 3).sum()))
    ys.reverse()
    return c, (torch.stack([y[0] for y in ys], stack_dim(ys[0][0], 1)), torch.stack([y[1] for y in ys]))


def test_scan_over_a_dimension_in_reverse_with_nested_values():
    jf = tc.jit(pytree_scan)
    args = [torch.randn(3), torch.randn(3, 4), torch.randn(3)]
    assert_same(jf, pytree_scan, args)
    assert_same(jf, pytree_unrolled, args, grad=(0, 1, 2))
    # an integer carry (eager cannot differentiate this one: forward only)
    with torch.no_grad():
        got, want = jf(*args, True), pytree_scan(*args, True)
    assert got[0].keys() == want[0].keys() and [t.shape for t in got[1]] == [t.shape for t in want[1]]
    torch.testing.assert_close(got, want)


class RNN(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.cell = torch.nn.Linear(6, 3)

    def forward(self, xs, unrolled=False):
        def step(h, x):
            h = self.cell(torch.cat([h, x], -1)).tanh()
            return h, h.clone()

        h0 = torch.zeros(2, 3)
        if not unrolled:
            return scan(step, h0, xs)[1]
        ys = []
        for x in xs:
            h0, y = step(h0, x)
            ys.append(y)
        return torch.stack(ys)


def test_scan_in_a_module():
    # (against the loop written out: eager's scan on torch 2.10 gets the parameters' gradients wrong)
    torch.manual_seed(0)
    m = RNN()
    jm = tc.jit(m)
    for steps in (4, 6, 3):  # the number of steps is symbolic: one trace, its VJP scan included
        xs = torch.randn(steps, 2, 3)
        out = jm(xs)
        out.sum().backward()
        got = [p.grad.clone() for p in m.parameters()]
        m.zero_grad()
        want = m(xs, unrolled=True)
        want.sum().backward()
        torch.testing.assert_close(out, want)
        for g, p in zip(got, m.parameters()):
            torch.testing.assert_close(g, p.grad)
        m.zero_grad()
    assert tc.cache_misses(jm) == 1
