"""Differential tests of the reductions, scans and sorting ops
(thunder_core.ops.ltorch_reduction) against eager."""

from __future__ import annotations

import math

import pytest
import torch

from thunder_core.ir import Trace, tracing
from thunder_core.ops import TORCH_CALLS, ltorch_reduction
from thunder_core.testing.opcheck import check_error_like_eager, check_op, trace_op

from .test_shape import grad_samples, with_grad, F64, I32, I64, A, B, S, build, covered, registered_by

pytest.importorskip("thunder_executor_torch")
pytestmark = pytest.mark.filterwarnings("ignore:.*degrees of freedom is <= 0")

X = A((2, 3, 4))
T_ = A((3, 4), layout="t")
U8 = torch.uint8
SAMPLES = [
    S(torch.sum, X), S(torch.sum, X, 1), S(torch.sum, X, (0, -1), True), S(torch.sum, X, []), S(torch.sum, A(())),
    S(torch.sum, A((), I64), 0), S(torch.sum, A((2, 3), I32), -1), S(torch.sum, A((3, 2), B)),
    S(torch.sum, A((0, 3))), S(torch.sum, A((0, 3)), 1, True), S(torch.Tensor.sum, T_, dtype=F64),
    S(torch.Tensor.sum, A((3, 4), I64, "s"), dim=1, keepdim=True),
    S(torch.prod, A((2, 3))), S(torch.prod, X, 1, True), S(torch.prod, A((3, 2), I32), -1), S(torch.prod, A((0, 2))),
    S(torch.Tensor.prod, A((3, 2), B), 0), S(torch.Tensor.prod, T_, dtype=F64),
    S(torch.mean, X), S(torch.mean, X, -1, True), S(torch.mean, X, (0, 2)), S(torch.mean, A((0, 3)), 0),
    S(torch.mean, A((2, 3), I64), dtype=torch.float32), S(torch.Tensor.mean, T_, 0), S(torch.mean, A((), F64)),
    S(torch.mean, A((4, 3), torch.float16), 1),
    S(torch.var, X), S(torch.var, X, 1), S(torch.var, X, (0, 2), correction=0), S(torch.var, X, 1, True, True),
    S(torch.var, X, False), S(torch.Tensor.var, T_, -1, unbiased=False, keepdim=True), S(torch.var, A((1, 3)), 0),
    S(torch.var, A((0, 3)), 0), S(torch.var, A((), F64)),
    S(torch.std, X), S(torch.std, X, -1, keepdim=True), S(torch.Tensor.std, T_, 0, correction=2),
    S(torch.var_mean, X, 1), S(torch.var_mean, X, (0, -1), keepdim=True, correction=0), S(torch.var_mean, T_),
    S(torch.std_mean, X, -1), S(torch.std_mean, A((3, 2), F64), unbiased=False),
    S(torch.amax, X), S(torch.amax, X, (0, 1)), S(torch.amax, X, -1, True), S(torch.amax, A((0, 3)), 1),
    S(torch.Tensor.amax, A((2, 3), I64, "t"), 0), S(torch.amin, A((3, 2), B), 1), S(torch.amin, A(())),
    S(torch.Tensor.amin, T_, (-1, 0), keepdim=True),
    S(torch.max, X), S(torch.max, X, 1), S(torch.max, X, -1, True), S(torch.max, X, dim=0), S(torch.max, X, X),
    S(torch.Tensor.max, T_, 0), S(torch.Tensor.max, A((2, 3), I64)), S(torch.Tensor.max, A((2, 3)), other=A((3,))),
    S(torch.max, A((0, 3)), 1), S(torch.max, A(()), 0),
    S(torch.min, X), S(torch.min, X, 1, keepdim=True), S(torch.min, X, A((4,))), S(torch.Tensor.min, A((3, 2), B), -1),
    S(torch.Tensor.min, T_),
    S(torch.argmax, X), S(torch.argmax, X, 1), S(torch.argmax, X, -1, True), S(torch.argmax, X, keepdim=True),
    S(torch.argmax, A(())), S(torch.Tensor.argmax, A((3, 4), I64, "t"), 0), S(torch.argmax, A((0, 3)), 1),
    S(torch.argmin, X, 0), S(torch.Tensor.argmin, T_), S(torch.argmin, A((), I64), 0),
    S(torch.all, A((2, 3), B)), S(torch.all, X, 1), S(torch.all, X, (0, 2), True), S(torch.all, A((0, 3), B)),
    S(torch.all, A((0, 3)), 1), S(torch.Tensor.all, A((2, 3), U8)), S(torch.Tensor.all, A((2, 3), I64, "t"), -1),
    S(torch.any, A((2, 3), B)), S(torch.any, X, -1, True), S(torch.any, A((0, 3)), 0), S(torch.any, A(()), 0),
    S(torch.Tensor.any, A((2, 3), U8), 1),
    S(torch.cumsum, X, 1), S(torch.cumsum, A((2, 3), I32), -1), S(torch.cumsum, A((4,), B), 0),
    S(torch.cumsum, A((), F64), 0), S(torch.Tensor.cumsum, T_, 0, dtype=F64), S(torch.cumsum, A((0, 3)), 0),
    S(torch.cumprod, A((2, 3)), -1), S(torch.cumprod, A((3, 2), I64), 0), S(torch.Tensor.cumprod, T_, 1),
    S(torch.logsumexp, X, 1), S(torch.logsumexp, X, (0, -1), True), S(torch.logsumexp, A((2, 3), I64), 1),
    S(torch.logsumexp, A((0, 3)), 0), S(torch.logsumexp, A((3, 0)), 0), S(torch.Tensor.logsumexp, T_, -1),
    S(torch.logsumexp, A(()), 0),
    S(torch.linalg.vector_norm, X), S(torch.linalg.vector_norm, X, 1, 1), S(torch.linalg.vector_norm, X, 3, (0, 2), True),
    S(torch.linalg.vector_norm, X, math.inf, -1), S(torch.linalg.vector_norm, X, -math.inf),
    S(torch.linalg.vector_norm, X, 0, 1), S(torch.linalg.vector_norm, X, 0.5), S(torch.linalg.vector_norm, A((0, 3))),
    S(torch.linalg.vector_norm, T_, dtype=F64), S(torch.linalg.vector_norm, A((2, 3), torch.complex64), 2, 1),
    S(torch.norm, X), S(torch.norm, X, 1, 1), S(torch.norm, X, "fro", (0, 1)), S(torch.Tensor.norm, T_, dim=-1),
    S(torch.Tensor.norm, X, math.inf, keepdim=True),
    S(torch.topk, X, 2), S(torch.topk, X, 1, 0, False), S(torch.topk, X, 3, -2, sorted=True), S(torch.topk, A(()), 1),
    S(torch.Tensor.topk, A((3, 4), I64, "t"), 2, 0), S(torch.topk, A((2, 3)), 0),
    S(torch.sort, X), S(torch.sort, X, 1, True), S(torch.sort, X, stable=True, dim=0), S(torch.sort, A(())),
    S(torch.Tensor.sort, A((3, 4), B, "t"), 0), S(torch.sort, A((0, 3))),
    S(torch.argsort, X), S(torch.argsort, X, 0, True), S(torch.Tensor.argsort, T_, stable=True), S(torch.argsort, A(())),
]


def _tolerance(fn, args):
    low = any(isinstance(a, A) and a.dtype == torch.float16 for a in args)
    return dict(atol=1e-3, rtol=1e-3) if low else {}


@pytest.mark.parametrize("fn, args, kwargs", SAMPLES)
def test_op(fn, args, kwargs):
    check_op(fn, *build(args), **_tolerance(fn, args), **build(kwargs))


@pytest.mark.parametrize("fn, args, kwargs", grad_samples(SAMPLES))
def test_requires_grad_like_eager(fn, args, kwargs):
    check_op(fn, *build(with_grad(args)), **_tolerance(fn, args), **build(kwargs))


def test_ties_and_nan_follow_eager():
    """Indices of repeated extremes and NaN propagation match eager exactly."""
    x = torch.tensor([[1.0, 3.0, 3.0, float("nan")], [2.0, 2.0, 0.0, 0.0]])
    for fn, args in [(torch.max, (1,)), (torch.min, (1,)), (torch.argmax, (1,)), (torch.amax, (1,)),
                     (torch.sort, (1,)), (torch.topk, (2,)), (torch.logsumexp, (1,))]:
        check_op(fn, x, *args)
    check_op(torch.logsumexp, torch.tensor([[-math.inf, -math.inf], [math.inf, 1.0]]), 1)


def test_named_tuples_in_user_code():
    """``torch.max(x, 1).values`` and ``torch.sort(x).indices`` work while tracing, and a
    returned named tuple prints and runs."""
    trace = Trace("f")
    p = trace.add_input(torch.zeros(2, 3))
    with tracing(trace):
        out = TORCH_CALLS[torch.sort](p)
        assert out.values is out[0] and out.indices is out[1]
        assert TORCH_CALLS[torch.max](p, 1).indices.dtype == torch.int64
    trace, _ = trace_op(torch.topk, torch.randn(4), 2)
    assert "torch.return_types.topk((" in trace.python()


@pytest.mark.parametrize("fn, args, match", [
    (torch.amax, (A((0, 3)), 0), "amax\\(\\): Expected reduction dim 0 to have non-zero size"),
    (torch.max, (A((0, 3)),), "Expected reduction dim to be specified"),
    (torch.argmax, (A((0,)),), "Expected reduction dim to be specified"),
    (torch.mean, (A((2,), I64),), "mean\\(\\): could not infer output dtype"),
    (torch.var, (A((2,), I64),), "std and var only support floating point"),
    (torch.sum, (A((2, 3)), 2), "Dimension out of range"),
    (torch.topk, (A((3,)), 4), "selected index k out of range"),
    (torch.linalg.vector_norm, (A((0,)), math.inf), "cannot compute the inf norm on an empty tensor"),
])
def test_errors_like_eager(fn, args, match):
    check_error_like_eager(fn, *build(args), match=match)


def test_every_registered_callable_has_samples():
    assert registered_by(ltorch_reduction) == covered(SAMPLES)
