"""Differential tests of the creation ops (thunder_core.ops.ltorch_creation) against eager.

Deterministic ops compare values. ``empty``/``empty_like`` compare metadata only (their
values are unspecified). Random ops compare metadata with ``check_op(random=True)`` and,
separately, values: under one ``torch.manual_seed`` the torch executor (whole ops and
decomposed into primitives) draws exactly what eager draws, and each call draws afresh.
"""

from __future__ import annotations

import pytest
import torch

from thunder_core.ir import TracingError, verify
from thunder_core.ops import PRIMS, ltorch_creation
from thunder_core.testing.opcheck import _compare, check_error_like_eager, check_op, torch_impls, trace_op
from thunder_core.transforms.flatten import flatten

from .test_shape import F32, F64, I32, I64, A, B, S, build, covered, registered_by

pytest.importorskip("thunder_executor_torch")

F16 = torch.float16
SAMPLES = [
    S(torch.arange, 5), S(torch.arange, 0), S(torch.arange, 2, 9), S(torch.arange, 10, 0, -3), S(torch.arange, 1, 2.5, 0.1),
    S(torch.arange, 0, 1, 0.1, dtype=F32), S(torch.arange, -1.5, 2), S(torch.arange, 3, dtype=F64), S(torch.arange, end=4),
    S(torch.arange, 0.5, 5.5, dtype=I64), S(torch.arange, 1, 7, 2, dtype=I32), S(torch.arange, 4, device="cpu"),
    S(torch.arange, 5, 1.0, -0.7, dtype=F16),
    S(torch.linspace, 0, 1, 7), S(torch.linspace, -3, 10, 4), S(torch.linspace, 0, 10, 5, dtype=I64),
    S(torch.linspace, 2.5, -1, 1), S(torch.linspace, 0, 1, 0), S(torch.linspace, 0, 1, 100, dtype=F64),
    S(torch.eye, 3), S(torch.eye, 2, 4), S(torch.eye, 3, dtype=B), S(torch.eye, 0, 2, dtype=I64),
    S(torch.full, (2, 3), 1.5), S(torch.full, (2,), 7), S(torch.full, (), True), S(torch.full, (0, 2), 2, dtype=F64),
    S(torch.full, [2, 1], 3.0, requires_grad=True),
    S(torch.zeros, 2, 3), S(torch.zeros, (4,), dtype=I64), S(torch.zeros, ()), S(torch.zeros, 2, requires_grad=True),
    S(torch.ones, (2, 0)), S(torch.ones, 3, dtype=B), S(torch.ones, torch.Size([2, 2]), dtype=F64),
    S(torch.zeros_like, A((2, 3), layout="t")), S(torch.zeros_like, A((3,), I64), dtype=F32),
    S(torch.ones_like, A(())), S(torch.ones_like, A((0, 2), B)),
    S(torch.full_like, A((2, 3)), 7), S(torch.full_like, A((2,), I64), 2.5, dtype=F64),
    S(torch.tensor, [[1, 2], [3, 4]]), S(torch.tensor, 3.5), S(torch.tensor, [True, False]),
    S(torch.tensor, [1, 2.5], dtype=F64), S(torch.tensor, []),
]
UNSPECIFIED = [S(torch.empty, 2, 3), S(torch.empty, (0,), dtype=I64), S(torch.empty_like, A((2, 3), layout="t")),
               S(torch.empty_like, A((2,)), dtype=B)]
RANDOM = [
    S(torch.rand, 3, 4), S(torch.rand, (5,), dtype=F64), S(torch.rand, 0), S(torch.rand, ()), S(torch.randn, 2, 17), S(torch.randn, ()),
    S(torch.randint, 10, (3,)), S(torch.randint, 3, 10, (4, 5)), S(torch.randint, -5, 5, (2,), dtype=I32),
    S(torch.rand_like, A((2, 3))), S(torch.rand_like, A((3,), F64), dtype=F32), S(torch.randn_like, A((4, 5), F64)),
    S(torch.randint_like, A((2, 3)), 5), S(torch.randint_like, A((3,), I64), 2, 9),
    S(torch.normal, 0.0, 2.0, (3, 17)), S(torch.normal, A((3, 4)), 2.0), S(torch.normal, A((3, 4)), A((4,), F32)),
    S(torch.normal, 1.0, A((5,), F64)), S(torch.normal, A((2, 1)), A((2, 3))),
    S(torch.bernoulli, A((20,), F64)), S(torch.bernoulli, A((3, 8)), 0.3), S(torch.Tensor.bernoulli, A((64,))),
    S(torch.multinomial, A((3, 5)), 2), S(torch.Tensor.multinomial, A((6,), F64), 10, True),
]


def _probabilities(args):
    """Random samples read their tensor arguments as probabilities/weights/stds: make them so."""
    return [a.abs() / (1 + a.abs()) if isinstance(a, torch.Tensor) and a.is_floating_point() else a
            for a in build(args)]


@pytest.mark.parametrize("fn, args, kwargs", SAMPLES)
def test_op(fn, args, kwargs):
    check_op(fn, *build(args), **build(kwargs))


@pytest.mark.parametrize("fn, args, kwargs", UNSPECIFIED)
def test_unspecified_values_have_eager_metadata(fn, args, kwargs):
    check_op(fn, *build(args), random=True, **build(kwargs))


@pytest.mark.parametrize("fn, args, kwargs", RANDOM)
def test_random_metadata(fn, args, kwargs):
    trace = check_op(fn, *_probabilities(args), random=True, **kwargs)
    assert all("random" in b.sym.tags for b in trace.bound_symbols)


@pytest.mark.parametrize("fn, args, kwargs", RANDOM)
def test_random_values_follow_manual_seed(fn, args, kwargs):
    """Same seed, same values as eager (whole and decomposed); the next call draws new values."""
    args = _probabilities(args)
    trace, inputs = trace_op(fn, *args, **kwargs)
    verify(trace)
    torch.manual_seed(1234)
    expected = fn(*args, **kwargs)
    runs = [trace]
    if any(b.subsymbols for b in trace.bound_symbols):
        runs.append(flatten(trace, keep=lambda s: s.is_prim or s.decomposition is None))
    for t in runs:
        run = t.python_callable(torch_impls())
        torch.manual_seed(1234)
        got = run(*inputs)
        _compare(got, expected, f"{fn.__name__} under manual_seed", True)
        if expected.numel() >= 16:
            assert not torch.equal(run(*inputs), got), "a second call must draw fresh values"


def test_rng_prims_are_tagged_random():
    assert {k for k, p in PRIMS.items() if "random" in p.tags} >= {"prims.uniform", "prims.normal", "prims.randint"}


def test_creation_decomposes_with_explicit_dtype_and_device():
    trace = check_op(torch.zeros, 2, 3)
    prim, = trace.bound_symbols[0].subsymbols
    assert prim.sym.id == "prims.full"
    assert prim.kwargs["dtype"] == torch.get_default_dtype() and prim.kwargs["device"] == torch.device("cpu")
    old = torch.get_default_dtype()
    torch.set_default_dtype(torch.float64)
    try:
        check_op(torch.ones, 2)
        check_op(torch.rand, 2, random=True)
        check_op(torch.arange, 0.0, 1.0, 0.25)
    finally:
        torch.set_default_dtype(old)


@pytest.mark.parametrize("fn, args", [
    (torch.rand, (2,)), (torch.normal, (0.0, 1.0, (2,))), (torch.bernoulli, (torch.rand(2),)),
])
def test_explicit_generator_is_rejected(fn, args):
    with pytest.raises(TracingError, match="torch.Generator cannot be traced"):
        trace_op(fn, *args, generator=torch.Generator())


@pytest.mark.parametrize("fn, args, kwargs, match", [
    (torch.arange, (0, 5, 0), {}, "step must be nonzero"),
    (torch.arange, (5, 0, 1), {}, "upper bound and larger bound inconsistent"),
    (torch.linspace, (0, 1, -1), {}, "number of steps must be non-negative"),
])
def test_errors_like_eager(fn, args, kwargs, match):
    check_error_like_eager(fn, *args, match=match, **kwargs)


def test_tensor_of_traced_values_is_rejected():
    with pytest.raises(TracingError, match="torch.stack"):
        trace_op(torch.tensor, [torch.tensor(1.0), torch.tensor(2.0)])


def test_every_registered_callable_has_samples():
    assert registered_by(ltorch_creation) == covered(SAMPLES + UNSPECIFIED + RANDOM)
