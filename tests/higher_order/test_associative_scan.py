"""torch's associative_scan under tc.jit: an inclusive ``higher_order.scan`` whose carry is the
running combination (HF Mamba's path under a compiler). Eager (``combine_mode="generic"``)
combines in a tree order, so values are compared to rounding, and gradients against the scan
written out as a Python loop (eager's associative_scan does not support autograd)."""

import pytest
import torch
from torch._higher_order_ops.associative_scan import associative_scan

import thunder_core as tc


def _linear_recurrence(left, right):  # (a, b) pairs: h -> a h + b, composed
    return left[0] * right[0], right[0] * left[1] + right[1]


def recurrence(a, b, reverse=False):
    return associative_scan(_linear_recurrence, (a, b), dim=1, reverse=reverse, combine_mode="generic")


def cumsum(x):
    return associative_scan(lambda p, q: p + q, x, dim=0, combine_mode="generic")


def _written_out(a, b, reverse=False):
    steps = range(a.shape[1] - 1, -1, -1) if reverse else range(a.shape[1])
    out, carry = {}, None
    for k in steps:
        x = (a[:, k], b[:, k])
        carry = x if carry is None else _linear_recurrence(carry, x)
        out[k] = carry
    return tuple(torch.stack([out[k][i] for k in range(a.shape[1])], 1) for i in (0, 1))


@pytest.mark.parametrize("reverse", [False, True])
def test_a_linear_recurrence_against_eager_and_its_gradients(reverse):
    a, b = torch.rand(2, 5, 3), torch.randn(2, 5, 3)
    jf = tc.jit(recurrence)
    for got, want in zip(jf(a, b, reverse), recurrence(a, b, reverse)):
        torch.testing.assert_close(got, want)
    a.requires_grad_(), b.requires_grad_()
    got, want = jf(a, b, reverse), _written_out(a, b, reverse)
    cot = [torch.randn_like(t) for t in want]
    g = torch.autograd.grad(got, (a, b), cot)
    w = torch.autograd.grad(want, (a, b), cot)
    for x, y in zip(g, w):
        torch.testing.assert_close(x, y)
    assert "higher_order.scan(" in str(tc.last_traces(jf)[-1])


@pytest.mark.parametrize("n", [1, 2, 7])
def test_a_cumulative_sum(n):
    x = torch.randn(n, 3)
    torch.testing.assert_close(tc.jit(cumsum)(x), x.cumsum(0))
