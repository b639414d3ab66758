"""Buffer reuse in execution traces (execution/reuse.py): an elementwise call reading a dead
intermediate for the last time writes into it, and nothing a user can see changes. Each case
compares with eager PyTorch and checks the inputs are untouched."""

import pytest
import torch

import thunder_core as tc


def _run(f, *args, executors=("torch",)):
    before = [a.clone() if isinstance(a, torch.Tensor) else a for a in args]
    jf = tc.jit(f, executors=list(executors))
    got = jf(*args)
    want = f(*before)
    torch.testing.assert_close(got, want, rtol=0, atol=0)
    for a, b in zip(args, before):  # the inputs are never written
        if isinstance(a, torch.Tensor):
            assert torch.equal(a, b)
    return str(tc.last_traces(jf)[-1]), jf


def test_a_dead_intermediate_is_written_again_along_a_chain():
    def f(a, b):
        return ((a * b + a) / 3).exp().relu()

    src, _ = _run(f, torch.randn(8, 8), torch.randn(8, 8))
    assert "ltorch.add_(" in src and "ltorch.div_(" in src and "ltorch.exp_(" in src and "ltorch.relu_(" in src
    assert "ltorch.mul(" in src  # the first op allocates: its inputs are the caller's


def test_the_same_numbers_as_eager_on_a_hit_and_for_other_sizes():
    def f(a, b):
        return (a * b - a) * 0.5 + b

    src, jf = _run(f, torch.randn(8, 8), torch.randn(8, 8))
    assert "ltorch.sub_(" in src
    for shape in [(8, 8), (5, 7), (8, 8)]:
        a, b = torch.randn(shape), torch.randn(shape)
        torch.testing.assert_close(jf(a, b), f(a, b), rtol=0, atol=0)
    assert tc.cache_misses(jf) == 1


def test_inputs_outputs_and_values_read_later_keep_their_own_buffers():
    def f(a, b):
        t = a * b
        u = t + 1  # t is returned as well: not written
        v = a + 2  # a is an input: never written
        return t, u, v

    src, _ = _run(f, torch.randn(4, 4), torch.randn(4, 4))
    assert "ltorch.add_(" not in src


@pytest.mark.parametrize("case", ["view kept", "may return its input", "broadcast", "promotion", "integer division"])
def test_not_written_where_the_result_or_an_alias_would_see_it(case):
    a, b = torch.randn(4, 4), torch.randn(4, 4)
    if case == "view kept":
        def f(a, b):
            t = a * b
            row = t[0]  # a view of t, returned
            return row, t + 1
    elif case == "may return its input":
        def f(a, b):
            t = a * b
            same = t.to(torch.float32)  # t itself
            return same, t + 1
    elif case == "broadcast":
        a = torch.randn(4, 1)

        def f(a, b):
            t = a * 2
            return t + b  # the result is larger than t
    elif case == "promotion":
        b = torch.randn(4, 4, dtype=torch.float64)

        def f(a, b):
            t = a * 2
            return t + b  # a float64 result does not fit t's float32 buffer
    else:
        a, b = torch.randint(1, 9, (4, 4)), torch.randint(1, 9, (4, 4))

        def f(a, b):
            t = a * b
            return t / 3  # float results of integer t
    _run(f, a, b)


def test_training_forward_keeps_what_autograd_saves_and_gradients_match():
    def f(x, w):
        h = (x * w).sin()
        return (h * h + x).sum()

    x = torch.randn(6, 6, requires_grad=True)
    w = torch.randn(6, 6, requires_grad=True)
    jf = tc.jit(f, executors=["torch"])
    out = jf(x, w)
    gx, gw = torch.autograd.grad(out, (x, w))
    x2, w2 = x.detach().clone().requires_grad_(), w.detach().clone().requires_grad_()
    want = f(x2, w2)
    ex, ew = torch.autograd.grad(want, (x2, w2))
    torch.testing.assert_close(out, want)
    torch.testing.assert_close(gx, ex)
    torch.testing.assert_close(gw, ew)


def test_not_written_when_a_region_reads_the_intermediate():
    """A fusing executor's region may return its input or a view of it: what it reads is
    never written by a later call."""
    def f(a, b):
        t = a * b
        u = t.transpose(0, 1)  # a view: t stays shared
        return u, t * 3

    _run(f, torch.randn(4, 4), torch.randn(4, 4), executors=("inductor", "torch"))
