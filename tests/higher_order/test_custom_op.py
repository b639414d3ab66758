"""torch.library custom ops under tc.jit: one symbol whose metadata comes from the fake
kernel; a registered Python autograd formula is traced (setup_context and backward)."""

import pytest
import torch

import thunder_core as tc

from .helpers import assert_same


@torch.library.custom_op("thunder_core_tests::scaled_sin", mutates_args=())
def scaled_sin(x: torch.Tensor, k: float) -> torch.Tensor:
    return x.sin() * k


@scaled_sin.register_fake
def _(x, k):
    return torch.empty_like(x)


def _setup(ctx, inputs, output):
    ctx.save_for_backward(inputs[0])
    ctx.k = inputs[1]


def _backward(ctx, g):
    (x,) = ctx.saved_tensors
    return g * x.cos() * ctx.k, None


scaled_sin.register_autograd(_backward, setup_context=_setup)


@torch.library.custom_op("thunder_core_tests::pairs", mutates_args=())
def pairs(x: torch.Tensor) -> torch.Tensor:
    """Changes the shape (the fake kernel says how), no autograd formula."""
    return torch.stack([x, x * x], -1)


@pairs.register_fake
def _(x):
    return x.new_empty((*x.shape, 2))


def calls(x):
    # the custom op, its packet and its overload
    return scaled_sin(x, 2.0) * 2 + torch.ops.thunder_core_tests.scaled_sin(x, 3.0) + \
        torch.ops.thunder_core_tests.scaled_sin.default(x, 0.5)


def test_custom_op_with_a_registered_autograd_formula():
    jf = tc.jit(calls)
    for _ in range(2):
        assert_same(jf, calls, [torch.randn(4)], grad=(0,))
    assert tc.cache_misses(jf) == 1
    forward, backward = str(tc.last_traces(jf)[-1]), str(tc.last_backward_traces(jf)[-1])
    assert forward.count("name='thunder_core_tests::scaled_sin'") == 3
    assert "opaque.thunder_core_tests__scaled_sin(" in forward
    assert "g * x.cos() * ctx.k" in backward and "torch_vjp" not in backward  # the formula, traced
    with torch.no_grad():
        torch.testing.assert_close(jf(torch.ones(3)), calls(torch.ones(3)))
    assert "higher_order" not in str(tc.last_traces(jf)[-1])  # no gradient: the op alone


def test_custom_op_metadata_comes_from_its_fake_kernel():
    def f(x):
        return pairs(x).sum(-1) + torch.ops.thunder_core_tests.pairs(x)[..., 1]

    jf = tc.jit(f)
    assert_same(jf, f, [torch.randn(2, 3)])
    assert 'f32[x_0, x_1, 2]' in str(tc.last_traces(jf)[-1])  # x's symbolic sizes and the fake kernel's 2
    for fn in (jf, f):  # no autograd formula: its backward fails as in eager
        with pytest.raises(RuntimeError, match="no autograd formula was registered"):
            fn(torch.randn(2, 3, requires_grad=True)).sum().backward()
