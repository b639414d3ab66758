"""Pointwise kernels under Triton's interpreter, against eager PyTorch."""

import pytest
import torch
import torch.nn.functional as F

import thunder_core as tc
from triton_helpers import close, jit, triton_regions

import thunder_executor_triton.kernels as kernels

DTYPES = [torch.float32, torch.float16, torch.bfloat16]


def chain(x, b):
    return F.gelu(x * 2.0 + b) - x


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_a_chain_with_a_broadcast_bias_is_one_kernel(dtype):
    torch.manual_seed(0)
    x, b = torch.randn(5, 37, dtype=dtype), torch.randn(37, dtype=dtype)  # ragged: 185 elements
    jf = jit(chain)
    close(jf(x, b), chain(x, b), dtype)
    final = tc.last_traces(jf)[-1]
    (region,) = triton_regions(final)
    assert [b.sym.id for b in region.subsymbols] == ["ltorch.mul", "ltorch.add", "ltorch.gelu", "ltorch.sub"]
    assert "1 symbols" not in str(tc.explain(jf)) and "4 symbols in one Triton kernel" in str(tc.explain(jf))


FUNCTIONS = {
    "scalars_and_casts": lambda x, y: ((x.float() * 3 + 1) / (y.float().abs() + 0.5)).to(x.dtype),
    "where_and_compare": lambda x, y: torch.where(x > y, x, 0.1 * y),
    "comparison_output": lambda x, y: (x * 2 > y) & (y < 1),
    "activations": lambda x, y: F.silu(x) * torch.sigmoid(y) + torch.relu(x - y) + torch.tanh(y),
    "exp_log_rsqrt_pow": lambda x, y: torch.exp(x) * torch.log(y.abs() + 1) + torch.rsqrt(y * y + 1) + x ** 2,
    "min_max_neg": lambda x, y: torch.maximum(x, y) - torch.minimum(-x, y * 0.5),
    "erf_sqrt": lambda x, y: torch.erf(x) + torch.sqrt(y.abs()),
}


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_pointwise_math_matches_eager(name, dtype):
    torch.manual_seed(1)
    fn = FUNCTIONS[name]
    x, y = torch.randn(3, 67, dtype=dtype), torch.randn(3, 67, dtype=dtype)
    jf = jit(fn)
    close(jf(x, y), fn(x, y), dtype)
    assert triton_regions(tc.last_traces(jf)[-1]), tc.explain(jf)


BROADCASTS = {
    "column": ((6, 1), (6, 33)),
    "row": ((1, 33), (6, 33)),
    "zero_dim": ((), (2, 3, 11)),
    "middle": ((4, 1, 9), (4, 5, 9)),
    "outer": ((5, 1, 1), (1, 7, 3)),
}


@pytest.mark.parametrize("name", sorted(BROADCASTS))
def test_broadcast_inputs_are_indexed_by_their_own_strides(name):
    torch.manual_seed(2)
    sa, sb = BROADCASTS[name]
    a, b = torch.randn(sa), torch.randn(sb)

    def fn(a, b):
        return torch.tanh(a * b + a) - b

    jf = jit(fn)
    close(jf(a, b), fn(a, b), torch.float32)
    assert triton_regions(tc.last_traces(jf)[-1])


def test_non_contiguous_inputs_are_made_contiguous():
    x = torch.randn(8, 12).t()  # [12, 8], transposed strides
    jf = jit(lambda x: torch.sigmoid(x) * 3 - x)
    close(jf(x), torch.sigmoid(x) * 3 - x, torch.float32)


def test_one_kernel_per_region_structure():
    x = torch.randn(4, 16)
    jf = jit(lambda x: (x * 2 + 1).exp())
    jf(x)
    before = len(kernels._JIT)
    jf2 = jit(lambda y: (y * 2 + 1).exp())  # another function, the same region structure
    close(jf2(x + 1), ((x + 1) * 2 + 1).exp(), torch.float32)
    assert len(kernels._JIT) == before


def test_large_and_empty_tensors():
    x = torch.randn(3, 40_000)  # several programs of the largest interpreter block
    jf = jit(lambda x: x * 0.5 + torch.abs(x))
    close(jf(x), x * 0.5 + torch.abs(x), torch.float32)
    e = torch.randn(0, 5)
    close(jf(e), e * 0.5 + torch.abs(e), torch.float32)


def test_float64_is_declined_with_the_reason_in_explain():
    x = torch.randn(4, 4, dtype=torch.float64)
    jf = jit(lambda x: torch.exp(x) * 2 + 1)
    close(jf(x), torch.exp(x) * 2 + 1, torch.float32)
    assert not triton_regions(tc.last_traces(jf)[-1])
    text = str(tc.explain(jf))
    assert "declined: triton" in text and "not float64" in text


def test_an_op_without_codegen_is_declined_by_name():
    x = torch.rand(4, 4) * 0.5
    fn = lambda x: torch.erfinv(x) * 2 + 1  # noqa: E731
    jf = jit(fn)
    close(jf(x), fn(x), torch.float32)
    text = str(tc.explain(jf))
    assert "declined: triton" in text and "no Triton code generation for prims.erfinv" in text
    # the ops around it still fuse
    assert triton_regions(tc.last_traces(jf)[-1])


def test_integer_tensors_compute_as_integers():
    """int64 arithmetic, comparisons and where stay integers (no float32 round trip: values
    beyond 2**24 stay exact), mixed with floats through conversions."""
    x = torch.arange(12).reshape(3, 4) * 3_000_001  # beyond float32's exact integers
    y = torch.randn(3, 4)

    def fn(x, y):
        return torch.where(x > 9_000_000, x * 2 + 1, -x), (x != 6_000_002) & (y > 0), x.float() * y

    jf = jit(fn)
    for a, e in zip(jf(x, y), fn(x, y)):
        assert a.dtype == e.dtype and torch.equal(a, e)
    assert len(triton_regions(tc.last_traces(jf)[-1])) == 1, tc.explain(jf)


def test_unsupported_dtypes_and_integer_ops_are_declined_with_reasons():
    x = torch.arange(12, dtype=torch.int8).reshape(3, 4)
    jf = jit(lambda x: x * 2 + 1)
    assert torch.equal(jf(x), x * 2 + 1)
    assert "declined: triton" in str(tc.explain(jf)) and "not int8" in str(tc.explain(jf))
    x = torch.arange(12).reshape(3, 4)
    for fn, reason in [(lambda x: torch.div(x, 5, rounding_mode="floor") + 1, "no Triton code generation for "
                        "prims.floor_divide"), (lambda x: x.sum(-1) + 1, "prims.sum of integers")]:
        jf = jit(fn)
        assert torch.equal(jf(x), fn(x))
        assert reason in str(tc.explain(jf)), tc.explain(jf)


def test_a_tensor_made_from_a_symbolic_size_is_declined_not_a_crash():
    # HF DeBERTa-v2 scales by torch.sqrt(torch.tensor(q.size(-1), dtype=torch.float)): under
    # symbolic values `ltorch.tensor` takes a number proxy, which the checker took for a tensor
    def scaled(x):
        return x * 2.0 / torch.sqrt(torch.tensor(x.size(-1), dtype=torch.float) * 2)

    jf = jit(scaled)
    for n in (9, 11):  # (the second size: the same trace, the size a number)
        x = torch.randn(4, n)
        close(jf(x), scaled(x), torch.float32)
