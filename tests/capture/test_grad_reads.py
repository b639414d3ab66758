"""``.grad`` of a tensor from outside (a parameter, an argument) read inside a jitted function
is the real tensor's, fetched through its path on every call like any outside read: a grad
tensor is an input of the trace, None is guarded. (It read a fake tensor's, always None.)"""

import warnings

import pytest
import torch

import thunder_core as tc

lin = torch.nn.Linear(4, 4)


def _of_a_parameter(x, p):  # gradient clipping, logging, an optimizer step inside the function
    g = lin.weight.grad
    return x * 2 if g is None else x + g.sum()


def _of_an_argument(x, p):
    return x if p.grad is None else x * p.grad


class _Scaled(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.w = torch.nn.Parameter(torch.randn(4))

    def forward(self, x):
        return x * self.w if self.w.grad is None else x * self.w - self.w.grad


@pytest.mark.parametrize("f", [_of_a_parameter, _of_an_argument], ids=["parameter", "argument"])
def test_grad_read_inside_is_eager_on_every_call(f):
    jf = tc.jit(f)
    x, p = torch.randn(4), torch.randn(4, requires_grad=True)

    def backward():
        lin(x).sum().backward()
        (p * p).sum().backward()

    def set_to_none():
        lin.zero_grad(set_to_none=True)
        p.grad = None

    def in_place():
        with torch.no_grad():
            lin.weight.grad.mul_(3)
            p.grad.add_(1)

    set_to_none()
    for change in (None, backward, backward, in_place, set_to_none, backward):
        if change is not None:
            change()
        torch.testing.assert_close(jf(x, p), f(x, p), rtol=0, atol=0)
    assert tc.cache_misses(jf) == 2  # one compile with a grad, one without: each value is re-read, not recompiled


def test_grad_of_a_module_parameter():
    m = _Scaled()
    jm = tc.jit(m)
    x = torch.randn(4)
    torch.testing.assert_close(jm(x), m(x))
    m(x).sum().backward()
    torch.testing.assert_close(jm(x), m(x))


def test_grad_of_a_tensor_computed_inside_is_none_as_in_eager():
    def f(x):
        y = x * 2
        return y.grad

    x = torch.randn(3, requires_grad=True)
    x.grad = torch.ones(3)
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        assert tc.jit(f)(x) is None
    assert any("not a leaf" in str(w.message) for w in seen)


def test_grad_changed_in_place_inside_changes_the_real_grad():
    def f(x, p):
        p.grad.mul_(0.5)
        return x + 1

    x = torch.randn(4)
    p, q = torch.randn(4, requires_grad=True), torch.randn(4, requires_grad=True)
    p.grad, q.grad = torch.ones(4), torch.ones(4)
    jf = tc.jit(f)
    for _ in range(2):
        f(x, p)
        jf(x, q)
        torch.testing.assert_close(q.grad, p.grad)


def test_setting_grad_inside_is_refused_with_what_to_do():
    def f(x, p):
        p.grad = None
        return x

    p = torch.randn(4, requires_grad=True)
    p.grad = torch.ones(4)
    with pytest.raises(NotImplementedError, match=r"setting `\.grad` of p inside a jitted function is not supported"):
        tc.jit(f)(torch.randn(4), p)
