"""Reduction kernels (sum/amax/amin over any dims but the last alone, with elementwise
prologue and epilogue; split across programs when few outputs reduce many elements) under
Triton's interpreter, against eager PyTorch."""

import pytest
import torch

import thunder_core as tc
from triton_helpers import close, jit, no_worse_than_eager, triton_regions

FUNCTIONS = {
    "bias_grad_sum": lambda x, b: x.reshape(-1, x.shape[-1]).sum(0),
    "prologue_and_epilogue": lambda x, b: torch.tanh((x * 2 + b).sum((0, 1)) * 0.5) + b,
    "amax_amin": lambda x, b: x.reshape(-1, x.shape[-1]).amax(0) - x.reshape(-1, x.shape[-1]).amin(0),
    "keepdim_mean": lambda x, b: (x - b).mean((0, 1), keepdim=True),
    "first_dim_of_three": lambda x, b: (x * b).sum(0, keepdim=True),  # a broadcast embedding's gradient
    "middle_dim": lambda x, b: (x * 2).sum(1) + 1,
    "outer_and_last": lambda x, b: torch.exp(x).amax((0, 2)),
    "everything": lambda x, b: (x * b).sum() / 7,
}


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.bfloat16], ids=str)
@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_column_kernels_match_eager(name, dtype):
    torch.manual_seed(9)
    fn = FUNCTIONS[name]
    x, b = torch.randn(3, 70, 37, dtype=dtype), torch.randn(37, dtype=dtype)  # 210 ragged rows, 37 columns
    jf = jit(fn)
    close(jf(x, b), fn(x, b), dtype)
    final = tc.last_traces(jf)[-1]
    assert triton_regions(final), final.python()
    assert not any(b.sym.id in ("ltorch.sum", "ltorch.amax", "ltorch.mean") for b in final.bound_symbols)


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16], ids=str)
def test_a_convolution_bias_gradient_reduces_dims_0_2_3(dtype):
    torch.manual_seed(10)
    x = torch.randn(2, 3, 5, 7, dtype=dtype)
    fn = lambda x: torch.relu(x).sum((0, 2, 3))  # noqa: E731
    jf = jit(fn)
    close(jf(x), fn(x), dtype)
    assert triton_regions(tc.last_traces(jf)[-1])


def test_a_value_reduced_and_reused_over_rows_is_not_one_column_kernel():
    x = torch.randn(40, 24)
    fn = lambda x: x - x.mean(0)  # noqa: E731  (two passes over the rows)
    jf = jit(fn)
    close(jf(x), fn(x), torch.float32)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.bfloat16], ids=str)
def test_a_linear_bias_gradient_in_the_backward(dtype):
    """The backward's bias gradient (a sum over all leading dims of the output gradient) with
    the elementwise backward before it, in one reduction kernel."""
    torch.manual_seed(18)
    x = torch.randn(3, 70, 16, dtype=dtype)
    w = torch.randn(24, 16, dtype=dtype)
    b = torch.randn(24, dtype=dtype, requires_grad=True)
    fn = lambda x, w, b: torch.tanh(torch.nn.functional.linear(x, w, b))  # noqa: E731
    jf = jit(fn)
    g = torch.randn(3, 70, 24, dtype=dtype)
    jf(x, w, b).backward(g)
    ours, b.grad = b.grad, None
    fn(x, w, b).backward(g)
    exact = b.detach().float().requires_grad_()
    fn(x.float(), w.float(), exact).backward(g.float())
    if dtype == torch.float32:
        close(ours, b.grad, dtype)
    else:
        no_worse_than_eager(ours, b.grad, exact.grad, slack=5e-2)
    backward = tc.last_backward_traces(jf)[-1]
    assert triton_regions(backward) and not any(s.sym.id == "ltorch.sum" for s in backward.bound_symbols)


def test_non_contiguous_inputs_of_row_and_reduction_kernels():
    x = torch.randn(37, 20).t()  # [20, 37], transposed strides
    for fn in (lambda x: x.softmax(-1) * 2, lambda x: (x * 3).sum(0), lambda x: x[:, ::2].amax(-1)):
        jf = jit(fn)
        close(jf(x), fn(x), torch.float32)
        assert triton_regions(tc.last_traces(jf)[-1]), tc.explain(jf)
