"""``y += z`` on an intermediate, then reading ``y`` (or another name of the same tensor) is
made functional and split into forward and backward traces; a *view* of ``y`` read after the
write still refuses the split (PyTorch's autograd then runs through the executed ops). An opaque
operator's result may be a view of its arguments, unless the operator's schema says it is fresh."""

import pytest
import torch

import thunder_core as tc


def _grads(f, *args):
    out = f(*args)
    return out, torch.autograd.grad(out, [a for a in args if a.requires_grad])


def _same_as_eager_and_split(f, *args):
    jf = tc.jit(f)
    (out, g), (ref, gr) = _grads(jf, *args), _grads(f, *args)
    torch.testing.assert_close(out, ref)
    for a, b in zip(g, gr):
        torch.testing.assert_close(a, b)
    assert tc.last_backward_traces(jf), tc.explain(jf)


def test_inplace_result_and_other_names_read_afterwards_are_split():
    lin = torch.nn.Linear(4, 4)

    def f(x, z):
        y = lin(x)
        w = y  # another name of the same tensor
        y += z
        y *= 2
        return (y.sum() + w.sum()) * 1.5

    _same_as_eager_and_split(f, torch.randn(2, 4, requires_grad=True), torch.randn(2, 4, requires_grad=True))


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


def _write_requires_grad_add(y, w):
    z = torch.zeros(3, 4)
    z.add_(y)
    return (z * (w * 2)).sum() + z.sum()


def _write_requires_grad_copy(y, w):
    z = torch.zeros(3, 4, dtype=torch.float64)  # copy_ casts and broadcasts
    z.copy_(y)
    u = torch.empty(3, 4)
    u.copy_(w * 2)
    return (u * z).sum() + z.sum() + u.mean()


def _write_requires_grad_chain(y, w):
    z = torch.zeros(3, 4)
    z.mul_(2)   # (a write that leaves z not requiring grad)
    z.add_(y)   # z requires grad from here on, through every name
    a = z
    a.mul_(w)
    return a.sum() + z.exp().sum()


@pytest.mark.parametrize("f", [_write_requires_grad_add, _write_requires_grad_copy, _write_requires_grad_chain])
def test_a_write_that_makes_a_tensor_require_grad_reaches_every_later_read(f):
    # `z.sum()` after `z.add_(y)` was traced while z did not require grad; the split kept that
    # stale flag and dropped the gradient through it (y's gradient was off by 3 for the first)
    _same_as_eager_and_split(f, torch.randn(4, requires_grad=True), torch.randn(3, 4, requires_grad=True))


def test_copy_into_an_input_and_its_result():
    def f(dst, src):
        r = dst.copy_(src)
        return r * 3, dst * 2

    dst, src = torch.zeros(2, 3), torch.randn(3)
    r, out = tc.jit(f)(dst, src)
    torch.testing.assert_close(dst, src.expand(2, 3))  # written into the caller's tensor
    torch.testing.assert_close(r, 3 * src.expand(2, 3))
    torch.testing.assert_close(out, 2 * src.expand(2, 3))


def test_an_op_writing_elsewhere_leaves_its_first_argument_alone():
    # batch_norm is tagged in-place for its running statistics; its input x, which does not
    # require grad while its output does, was taken for the written tensor: later reads of x
    # read the normalized output (silently wrong)
    bn = torch.nn.BatchNorm1d(4).train()
    state = {k: v.clone() for k, v in bn.state_dict().items()}

    def f(x):
        y = bn(x)
        return y.sum() + (x * 2).sum(), x * 3

    x = torch.randn(5, 4)
    want = f(x)
    bn.load_state_dict(state)
    got = tc.jit(f)(x)
    for g, w in zip(got, want):
        torch.testing.assert_close(g, w)
    torch.testing.assert_close(bn.running_mean, (0.1 * x.mean(0)))


def test_the_program_reads_requires_grad_a_write_gave():
    # z.add_(a) with a requiring grad makes z require grad; the program's own read of
    # z.requires_grad saw z's old proxy (False) and took the other branch (silently wrong)
    def f(a):
        z = torch.zeros(3)
        z.add_(a)
        return z * 2 if z.requires_grad else z * 3

    a = torch.randn(3, requires_grad=True)
    got, want = tc.jit(f)(a), f(a)
    torch.testing.assert_close(got, want)
    assert got.requires_grad
    got.sum().backward()
    torch.testing.assert_close(a.grad, torch.full((3,), 2.0))


@torch.library.custom_op("thunder_core_tests::grouped_scale", mutates_args=())
def _grouped_scale(x: torch.Tensor, w: torch.Tensor, offs: torch.Tensor) -> torch.Tensor:
    return x * w


@_grouped_scale.register_fake
def _(x, w, offs):
    return torch.empty_like(x)


def _grouped_scale_setup(ctx, inputs, output):
    ctx.save_for_backward(inputs[0], inputs[1])


def _grouped_scale_backward(ctx, g):
    x, w = ctx.saved_tensors
    return g * w, (g * x).sum(0), None


_grouped_scale.register_autograd(_grouped_scale_backward, setup_context=_grouped_scale_setup)


@pytest.mark.parametrize("op", [
    # (called with a keyword: an opaque call; its backward asks PyTorch's autograd)
    lambda x, w: torch.ops.thunder_core_tests.grouped_scale(x, w, offs=torch.arange(2)),
    torch.ops.aten.mul.Tensor,
], ids=["custom_op", "aten"])
def test_a_write_into_an_opaque_operators_fresh_result_is_split(op):
    # The operator's schema says its result shares no memory with its arguments (no alias
    # annotation); any opaque call was taken for a possible view of its arguments, here the
    # inputs, and the write refused the split ("writes into an input") (HF's MoE experts:
    # `out = torch.ops.transformers.grouped_mm_fallback(x, weight, offs=offs); out.add_(bias)`)
    def f(x, w, b):
        y = op(x, w)
        y.add_(b)
        return (y * y).sum()

    _same_as_eager_and_split(f, *(torch.randn(s, requires_grad=True) for s in ((2, 3), (3,), (3,))))


def test_a_write_into_an_opaque_operators_view_of_an_input_is_not_split():
    def f(x, b):
        torch.ops.aten.alias.default(x).add_(b)  # `Tensor(a) self -> Tensor(a)`: x itself is written
        return (x * b).sum()

    x, b = torch.randn(3), torch.randn(3, requires_grad=True)
    x2 = x.clone()
    jf = tc.jit(f)
    (out, g), (ref, gr) = _grads(jf, x, b), _grads(f, x2, b)
    torch.testing.assert_close(out, ref)
    torch.testing.assert_close(g[0], gr[0])
    torch.testing.assert_close(x, x2)
    assert not tc.last_backward_traces(jf) and "writes into an input" in tc.explain(jf)
