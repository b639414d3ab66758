"""Differential tests of the indexing ops (thunder_core.ops.ltorch_indexing) against eager:
``x[index]`` with every kind of index, ``x[index] = value`` (in place), index_select,
gather, take_along_dim, scatter and scatter_add."""

from __future__ import annotations

import pytest
import torch

from thunder_core.ir import Trace, TracingError, tracing, verify
from thunder_core.ops import ltorch_indexing
from thunder_core.testing.opcheck import check_op, torch_impls, trace_op

from .test_shape import grad_samples, with_grad, F64, I32, I64, A, B, I, S, build, covered, registered_by

pytest.importorskip("thunder_executor_torch")

GET = torch.Tensor.__getitem__
X = A((2, 3, 4))
SAMPLES = [
    # basic indexing: ints, slices, None, Ellipsis, bools
    S(GET, X, 0), S(GET, X, -1), S(GET, X, (1, 2)), S(GET, X, (0, -1, 3)), S(GET, X, slice(None)),
    S(GET, X, (slice(None), slice(1, None))), S(GET, X, (Ellipsis, slice(None, None, 2))),
    S(GET, X, (slice(-2, None), slice(-100, 100), slice(1, -1, 3))), S(GET, X, (slice(None), slice(2, 1))),
    S(GET, X, (Ellipsis, 0)), S(GET, X, (None, 0, None)), S(GET, X, (Ellipsis, None)), S(GET, X, (0, Ellipsis, 1)),
    S(GET, X, True), S(GET, X, False), S(GET, X, (0, True, -1)), S(GET, A(()), Ellipsis), S(GET, A(()), None),
    S(GET, A(()), ()), S(GET, A((0, 3)), (slice(None), 1)), S(GET, A((3, 4), layout="t"), (slice(1, None), slice(None, None, 2))),
    S(GET, A((4, 3), B, "s"), (-1, slice(None, 1))), S(GET, A((5,), I64), slice(None, None, 3)),
    # advanced indexing: integer tensors and lists
    S(GET, X, I((3,), 2, -2)), S(GET, X, I((), 2)), S(GET, X, (I((), 2, -2), slice(None), I((2,), 4))), S(GET, X, (slice(None), I((2, 2), 3, -3))),
    S(GET, X, (Ellipsis, I((5,), 4, dtype=I32))), S(GET, X, (0, slice(None), I((2,), 4))), S(GET, X, (None, I((2,), 2))),
    S(GET, X, [0, -1]), S(GET, X, (slice(None), [[0, 1], [2, 0]])), S(GET, X, [True, False]), S(GET, X, ([],)),
    S(GET, X, (slice(None), I((0,), 3))), S(GET, A((3, 4), layout="t"), I((2,), 3)),
    S(GET, X, (I((2,), 2), slice(None), I((2,), 4))), S(GET, X, (I((2, 1), 2), I((3,), 3))),
    S(GET, X, (slice(None), [0, 2], [1, 3])),
    # index_select, gather, take_along_dim, scatter, scatter_add
    S(torch.index_select, X, 1, I((2,), 3)), S(torch.index_select, X, -1, I((), 4)),
    S(torch.Tensor.index_select, A((3, 4), layout="t"), 0, I((5,), 3, dtype=I32)), S(torch.index_select, A(()), 0, I((1,), 1)),
    S(torch.index_select, A((3, 2), I64), 0, I((0,), 3)),
    S(torch.gather, X, 2, I((2, 3, 2), 4)), S(torch.gather, X, -2, I((1, 2, 4), 3)), S(torch.gather, A(()), 0, I((), 1)),
    S(torch.Tensor.gather, A((3, 4), B, "t"), 1, I((3, 2), 4)), S(torch.gather, A((3,)), 0, I((0,), 3)),
    S(torch.take_along_dim, X, I((1, 3, 2), 4), 2), S(torch.take_along_dim, X, I((5,), 24)),
    S(torch.Tensor.take_along_dim, A((3, 4), layout="t"), I((2, 1), 3), -2),
    S(torch.scatter, A((3, 4)), 1, I((3, 2), 4), A((3, 2))), S(torch.scatter, A((3, 4)), 0, I((2, 4), 3), 2.5),
    S(torch.Tensor.scatter, A((3, 4), I64), -1, I((3, 1), 4), 3, reduce="multiply"),
    S(torch.scatter_add, A((3, 4)), 0, I((2, 4), 3), A((2, 4))), S(torch.Tensor.scatter_add, A((3, 4), layout="t"), 1,
                                                                     I((3, 6), 4), A((3, 6))),
    S(torch.scatter_add, A((), F64), 0, I((), 1), A((), F64)),
]


@pytest.mark.parametrize("fn, args, kwargs", SAMPLES)
def test_op(fn, args, kwargs):
    check_op(fn, *build(args), **build(kwargs))


@pytest.mark.parametrize("fn, args, kwargs", grad_samples(SAMPLES))
def test_requires_grad_like_eager(fn, args, kwargs):
    check_op(fn, *build(with_grad(args)), **build(kwargs))


def test_single_advanced_index_decomposes_into_take():
    trace = check_op(GET, A((2, 3, 4)).make(), (slice(None), torch.tensor([0, -1])))
    ids = [s.sym.id for s in trace.bound_symbols[0].subsymbols]
    assert ids[-1] == "prims.take" and "ltorch.index" not in ids


@pytest.mark.parametrize("index, value", [
    ((0,), 1.5), ((slice(None), 1), A((2,))), ((Ellipsis, slice(None, None, 2)), A((2,))),
    ((I((2,), 2),), A((2, 3))), ((None, 1), -1.0), ("mask", 0.0), ((slice(1, None),), A((1, 3), layout="t")),
    ((I((), 2, -2), slice(None, 2)), 3.0), (([True, False],), A((3,))),
])
def test_setitem_writes_in_place(index, value):
    x, value = A((2, 3)).make(), build(value)
    index = (x > 0,) if index == "mask" else build(index)
    trace, inputs = trace_op(torch.Tensor.__setitem__, x, index, value)
    verify(trace)
    bsym, = trace.bound_symbols
    assert "inplace" in bsym.sym.tags and bsym.output is None
    expected = x.clone()
    expected[index] = value
    fresh = [t.clone() for t in inputs]
    assert trace.python_callable(torch_impls())(*fresh) is None
    torch.testing.assert_close(fresh[0], expected)


def test_setitem_operator_records_setitem():
    trace = Trace("f")
    p = trace.add_input(torch.zeros(3))
    with tracing(trace):
        p[1] = 2.0
    assert [b.sym.id for b in trace.bound_symbols] == ["ltorch.setitem"]


def test_setitem_through_jit_mutates_like_eager():
    import thunder_core as tc

    def f(x, i):
        x[0] = 1.0
        x[:, i] += 2
        y = x.clone()
        y[y > 1] = -1.0
        return y

    x, i = torch.randn(3, 4), torch.tensor([1, -1])
    expected_x = x.clone()
    expected = f(expected_x, i)
    torch.testing.assert_close(tc.jit(f)(x, i), expected)
    torch.testing.assert_close(x, expected_x)


@pytest.mark.parametrize("index, error, match", [
    ((slice(None), "mask"), TracingError, "boolean mask"),
    ((3,), IndexError, "out of bounds"),
    ((slice(None, None, -1),), ValueError, "step must be greater than zero"),
    ((0, 0, 0, 0), IndexError, "too many indices"),
    ((1.5,), IndexError, "only integers"),
    ((Ellipsis, 0, Ellipsis), IndexError, "single ellipsis"),
])
def test_getitem_errors(index, error, match):
    x = A((2, 3, 4)).make()
    index = tuple(torch.ones(3, dtype=torch.bool) if i == "mask" else i for i in index)
    with pytest.raises(error, match=match):
        trace_op(GET, x, index)


def test_every_registered_callable_has_samples():
    registered = registered_by(ltorch_indexing)
    assert registered == covered(SAMPLES) | {torch.Tensor.__setitem__}
