"""A user's torch.autograd.Function under tc.jit: forward and backward traced into one
higher_order.autograd_function, the traced backward used as its VJP; against eager."""

import pytest
import torch
from torch.autograd.function import once_differentiable
from torch.autograd.gradcheck import GradcheckError

import thunder_core as tc
from thunder_core.ir import verify

from .helpers import assert_same


class ScaledSin(torch.autograd.Function):
    """ctx attributes of every kind: saved tensors, a number, a string, needs_input_grad."""

    @staticmethod
    def forward(ctx, x, w, scale, mode):
        ctx.scale, ctx.mode = scale, mode
        h = x * w
        ctx.save_for_backward(x, w, h)
        return h.sin() * scale if mode == "sin" else h.cos() * scale

    @staticmethod
    def backward(ctx, g):
        x, w, h = ctx.saved_tensors
        d = (h.cos() if ctx.mode == "sin" else -h.sin()) * ctx.scale * g
        return (d * w if ctx.needs_input_grad[0] else None, d * x if ctx.needs_input_grad[1] else None, None, None)


def scaled(x, w):
    return ScaledSin.apply(x.exp(), w, 1.5, "sin") + ScaledSin.apply(x, w, 0.5, "cos")


def test_gradcheck_in_float64_with_ctx_attributes():
    jf = tc.jit(scaled)
    x = torch.randn(4, dtype=torch.float64, requires_grad=True)
    w = torch.randn(4, dtype=torch.float64, requires_grad=True)
    assert torch.autograd.gradcheck(jf, (x, w))
    assert torch.autograd.gradcheck(scaled, (x, w))
    forward, backward = str(tc.last_traces(jf)[-1]), str(tc.last_backward_traces(jf)[-1])
    assert forward.count("higher_order.autograd_function(") == 2 and "name='ScaledSin'" in forward
    assert "ctx.scale * g" in backward  # the user's backward, traced into the backward trace
    assert tc.cache_misses(jf) == 1  # gradcheck's calls are cache hits
    for t in (*tc.last_traces(jf), *tc.last_backward_traces(jf)):
        verify(t)


def test_needs_input_grad_decides_what_is_traced():
    jf = tc.jit(scaled)
    for grad in ((0,), (1,), (0, 1)):
        assert_same(jf, scaled, [torch.randn(3), torch.randn(3)], grad=grad)
    assert tc.cache_misses(jf) == 3  # requires_grad is guarded: one compile each


class WrongGrad(torch.autograd.Function):
    """A deliberately wrong backward: twice the true gradient."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x.sin()

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return 2 * g * x.cos()


def wrong(x):
    return WrongGrad.apply(x) * 3


def test_a_wrong_backward_is_reproduced():
    x = torch.randn(5, dtype=torch.float64, requires_grad=True)
    jf = tc.jit(wrong)
    for fn in (wrong, jf):
        with pytest.raises(GradcheckError, match="Jacobian mismatch"):
            torch.autograd.gradcheck(fn, (x,))
    assert_same(jf, wrong, [x], grad=(0,))  # the same (wrong) gradient as eager


class ExpWithIndex(torch.autograd.Function):
    """setup_context style, a non-differentiable output, @once_differentiable."""

    @staticmethod
    def forward(x, p):
        return x.exp() * p, torch.argmax(x)

    @staticmethod
    def setup_context(ctx, inputs, output):
        y, idx = output
        ctx.p = inputs[1]
        ctx.mark_non_differentiable(idx)
        ctx.save_for_backward(y)

    @staticmethod
    @once_differentiable
    def backward(ctx, gy, gidx):
        (y,) = ctx.saved_tensors
        return gy * y, None


def with_index(x):
    y, i = ExpWithIndex.apply(x, 2.0)
    return y * 3, i


def test_setup_context_non_differentiable_once_differentiable():
    jf = tc.jit(with_index)
    x = torch.randn(4, dtype=torch.float64, requires_grad=True)
    assert torch.autograd.gradcheck(lambda x: jf(x)[0], (x,))
    y, i = jf(x)
    assert y.requires_grad and not i.requires_grad and i == with_index(x)[1]
    assert "once_differentiable=True" in str(tc.last_traces(jf)[-1])


class TwoOutputs(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.set_materialize_grads(False)
        return x * 2, x * 3

    @staticmethod
    def backward(ctx, g1, g2):
        g = 0
        if g1 is not None:
            g = g + g1 * 2
        if g2 is not None:
            g = g + g2 * 3
        return g


def test_set_materialize_grads_and_an_unused_output():
    def f(x):
        return TwoOutputs.apply(x)[0].sum()

    assert_same(tc.jit(f), f, [torch.randn(3)], grad=(0,))


class ReadsAValue(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x.sin()

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        scale = 2.0 if x.sum().item() > 0 else 1.0  # a tensor's value in Python: cannot be traced
        return g * x.cos() * scale


def test_untraceable_backward_falls_back_and_says_why():
    def f(x):
        return ReadsAValue.apply(x) * 2

    jf = tc.jit(f)
    assert_same(jf, f, [torch.rand(3)], grad=(0,))
    assert_same(jf, f, [-torch.rand(3)], grad=(0,))  # PyTorch ran the real backward both times
    text = tc.explain(jf)
    assert "ReadsAValue.apply runs as one opaque op" in text and "item" in text
    assert "ReadsAValue_apply" in str(tc.last_traces(jf)[-1])


def test_without_gradients_the_forward_is_inline():
    jf = tc.jit(scaled)
    x, w = torch.randn(3, requires_grad=True), torch.randn(3)
    with torch.no_grad():
        torch.testing.assert_close(jf(x, w), scaled(x, w))
    assert "higher_order" not in str(tc.last_traces(jf)[-1])


class Mul(torch.autograd.Function):
    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        return a * b

    @staticmethod
    def backward(ctx, g):
        a, b = ctx.saved_tensors
        return g * b, g * a


def test_double_backward_through_the_traced_backward():
    def f(x):
        return Mul.apply(x, x).sum()

    for fn in (tc.jit(f), f):
        x = torch.randn(3, dtype=torch.float64, requires_grad=True)
        (g,) = torch.autograd.grad(fn(x), x, create_graph=True)
        (gg,) = torch.autograd.grad(g.sum(), x)
        torch.testing.assert_close(g, 2 * x)
        torch.testing.assert_close(gg, torch.full_like(x, 2.0))


def test_in_a_module_with_default_executors(monkeypatch):
    monkeypatch.delenv("THUNDER_CORE_EXECUTORS", raising=False)

    class Block(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.w = torch.nn.Parameter(torch.randn(4))

        def forward(self, x):
            return ScaledSin.apply(x, self.w, 2.0, "sin").tanh() * x

    torch.manual_seed(0)
    m = Block()
    jm = tc.jit(m)
    x = torch.randn(2, 4, requires_grad=True)
    out = jm(x)
    out.sum().backward()
    got = (x.grad.clone(), m.w.grad.clone())
    x.grad = m.w.grad = None
    torch.testing.assert_close(out, m(x))
    m(x).sum().backward()
    torch.testing.assert_close(got, (x.grad, m.w.grad))
