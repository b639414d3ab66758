"""Row kernels (reductions over the last dim with elementwise prologue and epilogue) under
Triton's interpreter, against eager PyTorch."""

import pytest
import torch
import torch.nn.functional as F

import thunder_core as tc
from triton_helpers import close, jit, no_worse_than_eager, triton_regions

DTYPES = [torch.float32, torch.float16, torch.bfloat16]

FUNCTIONS = {
    "softmax": lambda x, w, b: x.softmax(-1),
    "log_softmax": lambda x, w, b: (x * 2).log_softmax(-1),
    "layer_norm_with_prologue": lambda x, w, b: F.layer_norm(x + 1, (x.shape[-1],), w, b),
    "rms_norm": lambda x, w, b: F.rms_norm(x, (x.shape[-1],), w),
    "var_mean_amax_amin": lambda x, w, b: (x.var(-1, keepdim=True), x.mean(-1), x.amax(-1) - x.amin(-1)),
    "sum_epilogue": lambda x, w, b: torch.tanh(x - x.sum(-1, keepdim=True) / 3) * w,
}


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_row_kernels_match_eager(name, dtype):
    torch.manual_seed(4)
    fn = FUNCTIONS[name]
    x, w, b = torch.randn(3, 5, 37, dtype=dtype), torch.randn(37, dtype=dtype), torch.randn(37, dtype=dtype)
    jf = jit(fn)
    close(jf(x, w, b), fn(x, w, b), dtype)
    final = tc.last_traces(jf)[-1]
    regions = triton_regions(final)
    assert len(regions) == 1 and len(final.bound_symbols) == 1, final.python()


def test_a_residual_add_fuses_into_the_layer_norm_after_it():
    def block(x, y, w, b):
        h = x + y
        return h, F.layer_norm(h, (64,), w, b)

    torch.manual_seed(5)
    args = [torch.randn(6, 64), torch.randn(6, 64), torch.randn(64), torch.randn(64)]
    jf = jit(block)
    close(jf(*args), block(*args), torch.float32)
    (region,) = triton_regions(tc.last_traces(jf)[-1])
    assert [b.sym.id for b in region.subsymbols] == ["ltorch.add", "ltorch.layer_norm"]


def test_many_rows_and_one_long_row():
    torch.manual_seed(6)
    for shape in [(300, 3), (1, 5000)]:
        x = torch.randn(shape)
        jf = jit(lambda x: x.softmax(-1))
        close(jf(x), x.softmax(-1), torch.float32)
        assert triton_regions(tc.last_traces(jf)[-1])


def test_reductions_over_other_dims_are_left_to_others():
    x = torch.randn(4, 8, 16)
    fn = lambda x: (x * 2).sum(1) + 1  # noqa: E731  (a middle dim: neither a row nor a column kernel)
    jf = jit(fn)
    close(jf(x), fn(x), torch.float32)
    final = tc.last_traces(jf)[-1]
    assert any(b.sym.id == "ltorch.sum" for b in final.bound_symbols), final.python()


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16], ids=str)
def test_softmax_and_layer_norm_backward(dtype):
    def fn(x, w, b):
        return F.layer_norm(x, (33,), w, b).softmax(-1) * x

    torch.manual_seed(7)
    ours = [torch.randn(s, dtype=dtype).requires_grad_() for s in [(4, 33), (33,), (33,)]]
    ref = [t.detach().clone().requires_grad_() for t in ours]
    exact = [t.detach().float().requires_grad_() for t in ours]
    jf = jit(fn)
    out, expected = jf(*ours), fn(*ref)
    close(out, expected, dtype)
    g = torch.randn_like(expected)
    out.backward(g)
    expected.backward(g)
    fn(*exact).backward(g.float())
    for a, e, x in zip(ours, ref, exact):
        if dtype == torch.float32:
            close(a.grad, e.grad, dtype)
        else:
            no_worse_than_eager(a.grad, e.grad, x.grad, slack=2e-2)
    assert triton_regions(tc.last_backward_traces(jf)[-1])


def test_a_per_row_value_is_not_mistaken_for_a_column_in_square_shapes():
    """x.mean(-1) of a [64, 64] tensor has shape [64], like a bias: adding it to x pairs it
    with columns (NumPy broadcasting), which a row kernel must not turn into rows."""
    torch.manual_seed(8)
    x, y = torch.randn(64, 64), torch.randn(64)
    for fn in (lambda x, y: x * (x.mean(-1) + y), lambda x, y: x - x.amax(-1)):
        jf = jit(fn)
        close(jf(x, y), fn(x, y), torch.float32)
