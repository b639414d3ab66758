"""``y += z`` on an intermediate, then reading ``y`` (or another name of the same tensor) is
made functional and split into forward and backward traces; a *view* of ``y`` read after the
write still refuses the split (PyTorch's autograd then runs through the executed ops)."""

import torch

import thunder_core as tc


def _grads(f, *args):
    out = f(*args)
    return out, torch.autograd.grad(out, [a for a in args if a.requires_grad])


def test_inplace_result_and_other_names_read_afterwards_are_split():
    lin = torch.nn.Linear(4, 4)

    def f(x, z):
        y = lin(x)
        w = y  # another name of the same tensor
        y += z
        y *= 2
        return (y.sum() + w.sum()) * 1.5

    x, z = torch.randn(2, 4, requires_grad=True), torch.randn(2, 4, requires_grad=True)
    jf = tc.jit(f)
    (out, g), (ref, gr) = _grads(jf, x, z), _grads(f, x, z)
    torch.testing.assert_close(out, ref)
    for a, b in zip(g, gr):
        torch.testing.assert_close(a, b)
    assert tc.last_backward_traces(jf), tc.explain(jf)


def test_view_read_after_the_write_is_not_split_but_correct():
    def f(x):
        y = x * 2
        v = y[0]
        y += 1
        return v.sum() * 3

    x = torch.randn(2, 3, requires_grad=True)
    jf = tc.jit(f)
    (out, g), (ref, gr) = _grads(jf, x), _grads(f, x)
    torch.testing.assert_close(out, ref)
    torch.testing.assert_close(g[0], gr[0])
    assert not tc.last_backward_traces(jf) and "views (or base) are read afterwards" in tc.explain(jf)


def test_view_made_after_the_write_is_split():
    # Mixtral's router: `top /= top.sum(...)`, then `top.reshape(-1)`: the view sees the new values
    lin = torch.nn.Linear(4, 3)

    def f(x):
        top, idx = torch.topk(lin(x).softmax(-1), 2, dim=-1)
        top /= top.sum(dim=-1, keepdim=True)
        w = top.reshape(-1)
        return (w * idx.reshape(-1)).sum()

    x = torch.randn(5, 4, requires_grad=True)
    jf = tc.jit(f)
    (out, g), (ref, gr) = _grads(jf, x), _grads(f, x)
    torch.testing.assert_close(out, ref)
    torch.testing.assert_close(g[0], gr[0])
    assert tc.last_backward_traces(jf), tc.explain(jf)
