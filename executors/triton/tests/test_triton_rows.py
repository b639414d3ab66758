"""Row kernels (reductions over the last dim with elementwise prologue and epilogue) under
Triton's interpreter, against eager PyTorch."""

import pytest
import torch
import torch.nn.functional as F

import thunder_core as tc
from thunder_core.extend import region_of
from thunder_executor_triton.codegen import generate
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


@pytest.fixture
def looped(monkeypatch):
    """Rows longer than 16 elements are walked in chunks of 8 (the layout of a large
    vocabulary's rows, at a size the interpreter runs quickly)."""
    import thunder_executor_triton.tuning as tuning

    monkeypatch.setitem(tuning.WHOLE_ROW, "cpu", 16)
    monkeypatch.setitem(tuning.CHUNK, "cpu", 8)


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_rows_longer_than_a_program_holds_are_looped_over(looped, name, dtype):
    """Every row function again with 37-element rows in chunks of 8: one pass per level of
    reductions (a softmax's max and sum in one pass, online), Welford-merged var."""
    torch.manual_seed(4)
    fn = FUNCTIONS[name]
    x, w, b = torch.randn(3, 5, 37, dtype=dtype), torch.randn(37, dtype=dtype), torch.randn(37, dtype=dtype)
    jf = jit(fn)
    close(jf(x, w, b), fn(x, w, b), dtype)
    (region,) = triton_regions(tc.last_traces(jf)[-1])
    assert "looped over chunks" in generate(region_of(region), "cpu").describe


def test_a_looped_softmax_reads_its_row_twice(looped):
    """The online softmax: the maximum and the sum of exponentials in one pass, then the
    outputs: two loops over the row, not three."""
    jf = jit(lambda x: x.softmax(-1))
    x = torch.randn(4, 50)
    close(jf(x), x.softmax(-1), torch.float32)
    (region,) = triton_regions(tc.last_traces(jf)[-1])
    kernel = generate(region_of(region), "cpu")
    assert "looped" in kernel.describe and kernel.source.count("for c0 in range(0, C, BLOCK_C)") == 2, kernel.source


def test_amax_and_amin_propagate_nan_like_eager(looped):
    x = torch.randn(6, 40)
    x[1, 7], x[4, 33] = float("nan"), float("nan")
    for fn in (lambda x: x.amax(-1), lambda x: x.amin(-1) * 2):
        for long_rows in (x, x[:, :12]):  # looped, then whole rows
            jf = jit(fn)
            torch.testing.assert_close(jf(long_rows), fn(long_rows), equal_nan=True)


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


@pytest.mark.parametrize("layout", ["whole", "looped"])
def test_gather_and_scatter_one_index_per_row(layout, request):
    """torch.gather / scatter_add along the last dim with one index per row (a loss's target
    logit and its one-hot gradient), on floats and on int64 values beyond float32's integers."""
    if layout == "looped":
        request.getfixturevalue("looped")
    torch.manual_seed(17)
    x, xi = torch.randn(6, 37), torch.randint(-2 ** 40, 2 ** 40, (6, 37))
    idx = torch.randint(0, 37, (6, 1))
    cases = [(lambda x, i: torch.gather(x * 2, 1, i) + 1, x),
             (lambda x, i: torch.gather(x + 3, 1, i) - 1, xi),
             (lambda x, i: torch.zeros_like(x).scatter_add(1, i, torch.full((6, 1), 0.5)) * x, x)]
    for fn, a in cases:
        jf = jit(fn)
        out = jf(a, idx)
        assert out.dtype == fn(a, idx).dtype and torch.equal(out, fn(a, idx))
        assert triton_regions(tc.last_traces(jf)[-1]), tc.explain(jf)
