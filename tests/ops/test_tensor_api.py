"""Pieces of the tensor API on traced tensors, each against eager: the properties ``.T
.mT .H .mH .layout`` (every ``torch.masked`` op reads ``.layout``), ``*dims`` given by
keyword (``flip(dims=...)``), ``memory_format=`` in ``to``/``float``..., ``torch.linspace``
with 0-d tensor endpoints, and ``tensor_split`` with a tensor of indices (refused: the output
shapes depend on the tensor's values)."""

from __future__ import annotations

import pytest
import torch

import thunder_core as tc
from thunder_core.ir import TracingError

pytest.importorskip("thunder_executor_torch")

X3 = (2, 3, 4)
CASES = [
    ("T 2-d", lambda x: x[0].T), ("T 3-d", lambda x: x.T * 1), ("mT", lambda x: x.mT), ("H", lambda x: x[0].H),
    ("mH", lambda x: x.mH), ("mT 0-d", lambda x: x[0, 0, 0].mT),
    ("layout", lambda x: x * (x.layout == torch.strided)),
    ("masked.sum", lambda x: torch.masked.sum(x, 1, mask=x > 0)),
    ("masked.amax", lambda x: torch.masked.amax(x, 0, mask=x > -0.5)),
    ("flip dims=", lambda x: x.flip(dims=(0, 2))), ("torch.flip dims=", lambda x: torch.flip(x, dims=[1])),
    ("permute dims=", lambda x: x.permute(dims=(2, 0, 1))),
    ("float(memory_format=)", lambda x: x.transpose(0, 2).float(memory_format=torch.contiguous_format)),
    ("to(dtype, memory_format=)", lambda x: x.transpose(0, 2).to(torch.float64, memory_format=torch.contiguous_format)),
    ("to(memory_format=channels_last)", lambda x: x[None].to(memory_format=torch.channels_last)),
    ("double(memory_format=)", lambda x: x.double(memory_format=torch.contiguous_format)),
    ("linspace tensor ends", lambda x: torch.linspace(x[0, 0, 0], x[1, 2, 3], 7)),
    ("linspace tensor start, int", lambda x: torch.linspace(x[0, 0, 0] * 10, 20, 5, dtype=torch.int64)),
    ("linspace one step", lambda x: torch.linspace(x[0, 0, 0], 3.0, 1)),
]


def _strides_and_values(got, expected):
    torch.testing.assert_close(got, expected)
    assert got.stride() == expected.stride()


@pytest.mark.parametrize("name,fn", CASES, ids=[c[0] for c in CASES])
def test_like_eager(name, fn):
    x = torch.randn(X3)
    expected = fn(x)
    got = tc.jit(fn)(x)
    _strides_and_values(got, expected)
    assert (got is x) == (expected is x)


@pytest.mark.parametrize("name,fn", [("mT 1-d", lambda x: x[0, 0].mT), ("H 3-d", lambda x: x.H),
                                     ("mH 1-d", lambda x: x[0, 0].mH)])
def test_property_errors_like_eager(name, fn):
    x = torch.randn(X3)
    with pytest.raises(RuntimeError) as eager:
        fn(x)
    with pytest.raises(RuntimeError) as traced:
        tc.jit(fn)(x)
    assert str(traced.value) == str(eager.value)


def test_linspace_with_tensor_ends_is_not_differentiated():
    x = torch.randn(X3, dtype=torch.float64, requires_grad=True)
    fn = lambda x: torch.linspace(x[0, 0, 0], x[1, 0, 0], 4)  # noqa: E731
    got, expected = tc.jit(fn)(x), fn(x)
    assert got.requires_grad == expected.requires_grad is False
    torch.testing.assert_close(got, expected)


def test_tensor_split_with_a_tensor_of_indices():
    # an argument's contents are read while tracing and checked on every call
    jf = tc.jit(lambda x, i: torch.tensor_split(x, i))
    x = torch.randn(6, 2)
    for idx in (torch.tensor([1, 4]), torch.tensor([1, 4]), torch.tensor([2, 3]), torch.tensor(3)):
        got, want = jf(x, idx), torch.tensor_split(x, idx)
        assert len(got) == len(want) and all(torch.equal(g, w) for g, w in zip(got, want))
    assert (tc.cache_hits(jf), tc.cache_misses(jf)) == (1, 3)
    # indices computed inside the function: their values are not known while tracing
    with pytest.raises(TracingError, match="tensor_split's indices_or_sections is a tensor"):
        tc.jit(lambda x: torch.tensor_split(x, (x[:2, 0] > 0).long()))(x)


def test_torch_seed_inside_the_function_is_refused_by_name():
    # torch.seed() draws a new nondeterministic seed: a compiled function cannot replay it
    # (torch.manual_seed is recorded instead: tests/capture/test_torch_state.py)
    def fn(x):
        torch.seed()
        return x + torch.rand(2)

    with pytest.raises(TracingError, match="torch.seed inside a jitted function would run once"):
        tc.jit(fn)(torch.zeros(2))


@pytest.mark.parametrize("pytype", [int, float, bool, complex])
def test_python_types_as_dtypes_like_eager(pytype):
    # torch's argument parser takes Python types for dtypes (HF masking utilities:
    # `torch.zeros(batch_size, device=device, dtype=int)`)
    def f(x):
        return (torch.zeros(x.shape[0], dtype=pytype), torch.full((2,), 1, dtype=pytype), x.to(pytype),
                x.to(dtype=pytype), x.new_ones(3, dtype=pytype), x.to("cpu", pytype))

    x = torch.randn(4)
    for got, want in zip(tc.jit(f)(x), f(x)):
        assert got.dtype == want.dtype and torch.equal(got, want)


def test_numpy_names_for_dim_and_keepdim_like_eager():
    # torch's native functions take `axis` and `keepdims` (HF Funnel: `x.sum(axis=...)`)
    def f(x):
        return (torch.sum(x, axis=0, keepdims=True), x.mean(axis=1), torch.cat([x, x], axis=0),
                x.amax(axis=-1, keepdims=True), torch.argmax(x, axis=0), x.std(axis=0))

    x = torch.randn(3, 4)
    for got, want in zip(tc.jit(f)(x), f(x)):
        torch.testing.assert_close(got, want)


def test_every_numpy_name_torch_takes_and_torchs_own_where_numpy_is_the_documented_one():
    # torch's parser renames axis, keepdims, x/a/x1 and x2 for every native function; HF Zamba2
    # calls `torch.concatenate(..., dim=-1)` (documented with `axis`); `torch.max(x, axis=1)`
    # used to return the largest element of all (its overloads read only `dim`)
    def f(x, y):
        return (torch.concatenate([x, y], dim=-1), torch.concatenate([x, y], axis=0), torch.max(x, axis=1),
                torch.min(x, axis=0, keepdims=True), torch.max(x, 1, keepdims=True).values, torch.abs(x=x),
                torch.sum(a=x), torch.add(x1=x, x2=y), torch.max(input=x, other=y))

    x, y = torch.randn(3, 4), torch.randn(3, 4)
    got, want = tc.jit(f)(x, y), f(x, y)
    for i, (g, w) in enumerate(zip(got, want)):
        assert type(g) is type(w), i
        torch.testing.assert_close(g, w)


def test_a_keyword_the_op_does_not_take_names_the_op():
    with pytest.raises(TypeError, match=r"torch\.sum\(\): got an unexpected keyword argument 'dimension'"):
        tc.jit(lambda x: torch.sum(x, dimension=0))(torch.randn(3))


def test_numpy_scalars_are_the_python_numbers_they_hold_as_in_eager():
    # torch's parser takes NumPy scalars as Python numbers (HF CTRL: `x *= np.sqrt(d_model)`):
    # a half tensor times np.float32 stays half, an int tensor times np.float32 is float32;
    # NumPy's own operators defer to the tensor's (`np.float64(2) + x` is a tensor)
    np = pytest.importorskip("numpy")

    def f(x):
        y = x * 1
        y *= np.sqrt(np.float64(32))
        return (y, x.half() * np.float32(2.5), x.long() * np.float32(2.5), x.view(np.int64(4), -1),
                x.clamp(np.float32(-0.5), np.float64(0.5)), np.float64(2.0) + x, np.float32(3.0) * x,
                torch.full((2,), np.float32(1.5)), torch.where(x > 0, x, np.float64(0.0)))

    x = torch.randn(2, 6)
    got, want = tc.jit(f)(x), f(x)
    for i, (g, w) in enumerate(zip(got, want)):
        assert type(g) is torch.Tensor and g.dtype == w.dtype, (i, type(g), g.dtype, w.dtype)
        torch.testing.assert_close(g, w)
