"""Normalizations (thunder_core/ops/ltorch_norm.py) against eager, including the in-place
running-statistics updates of batch_norm and instance_norm."""

import math

import pytest
import torch
import torch.nn.functional as F

from thunder_core.ops import ltorch_norm
from thunder_core.testing.opcheck import check_op

from .test_nn import assert_covered, case, check_error, check_requires_grad, check_stateful, nc, params, r

pytest.importorskip("thunder_executor_torch")

f64, bf16 = torch.float64, torch.bfloat16
TOL = {"atol": 1e-5, "rtol": 1e-5}
x3 = r(2, 3, 4)
with_inf = torch.tensor([[0.0, -math.inf, 1.0], [-math.inf, -math.inf, 2.0]])

SOFTMAX_CASES = [
    case(fn, *args, **kwargs)
    for fns in [(torch.softmax, torch.log_softmax), (torch.Tensor.softmax, torch.Tensor.log_softmax),
                (torch.special.softmax, torch.special.log_softmax), (F.softmax, F.log_softmax)]
    for fn in fns
    for args, kwargs in [((x3, 1), {}), ((nc(x3), -1), {}), ((with_inf, 1), {})]
] + [
    case(torch.softmax, x3, -1, f64),
    case(torch.log_softmax, r(3, 0), 1),
    case(torch.Tensor.softmax, torch.tensor(1.5), 0),
    case(torch.Tensor.log_softmax, r(0, 4), dim=1, dtype=f64),
    case(torch.special.softmax, r(4, 8, dtype=bf16), 1),
    case(torch.special.log_softmax, r(4, 8, dtype=bf16), 0, dtype=torch.float32),
    case(F.softmax, x3, 1, 5, f64),
    case(F.log_softmax, r(2, 3, dtype=f64), dim=0, _stacklevel=4),
    case(F.softmin, x3, 1),
    case(F.softmin, r(5, dtype=f64), dim=0, dtype=torch.float32),
]

rm, rv = r(3), r(3).abs() + 0.5
CASES = SOFTMAX_CASES + [
    case(F.layer_norm, x3, [4], r(4), r(4), **TOL),
    case(F.layer_norm, nc(x3), (3, 4), **TOL),
    case(F.layer_norm, r(0, 5), [5], eps=1e-3),
    case(F.layer_norm, r(2, 3, dtype=f64), [3], r(3, dtype=f64), None),
    case(F.layer_norm, r(4, 16, dtype=bf16), [16], r(16, dtype=bf16), r(16, dtype=bf16)),
    case(F.rms_norm, x3, [4], **TOL),
    case(F.rms_norm, nc(x3), [3, 4], r(3, 4), eps=1e-3, **TOL),
    case(F.rms_norm, r(4, 16, dtype=bf16), [16], r(16, dtype=bf16)),
    case(torch.rms_norm, r(2, 5, dtype=f64), [5], r(5, dtype=f64)),
    case(torch.rms_norm, r(0, 5), (5,)),
    case(F.group_norm, r(2, 6, 4, 4), 3, r(6), r(6), **TOL),
    case(F.group_norm, nc(r(2, 6, 5)), 2, **TOL),
    case(F.group_norm, r(0, 4, 3), 4, eps=1e-3),
    case(F.group_norm, r(3, 4, dtype=f64), 1, r(4, dtype=f64), r(4, dtype=f64)),
    case(F.group_norm, r(2, 4, 8, dtype=bf16), 2, r(4, dtype=bf16), r(4, dtype=bf16)),
    case(F.batch_norm, r(4, 3, 5, 5), rm, rv, r(3), r(3), **TOL),
    case(F.batch_norm, nc(r(4, 3)), rm, rv, eps=1e-3, **TOL),
    case(F.batch_norm, r(0, 3, 2), rm, rv),
    case(F.batch_norm, r(4, 3, 5, dtype=bf16), rm, rv, r(3), r(3)),
    case(F.batch_norm, r(4, 3, 5, dtype=f64), None, None, r(3, dtype=f64), training=True),
    case(F.instance_norm, r(2, 3, 5, 5), weight=r(3), bias=r(3), **TOL),
    case(F.instance_norm, nc(r(2, 3, 6, dtype=f64)), eps=1e-3),
    case(F.instance_norm, r(2, 3, 6), rm, rv, use_input_stats=False, **TOL),
    case(F.normalize, r(4, 5), **TOL),
    case(F.normalize, nc(r(4, 5, dtype=f64)), p=1.0, dim=0),
    case(F.normalize, r(3, 4), p=math.inf, dim=-1, eps=0.5),
    case(F.normalize, torch.zeros(2, 3)),
    case(F.normalize, r(0, 3)),
    case(F.normalize, r(4, 8, dtype=bf16)),
]

# Ops that update running_mean / running_var in place: checked with the tensors afterwards.
INPLACE_CASES = [
    case(F.batch_norm, r(4, 3, 5, 5), rm, rv, r(3), r(3), training=True, **TOL),
    case(F.batch_norm, nc(r(6, 3)), rm, rv, training=True, momentum=0.3, eps=1e-3, **TOL),
    case(F.batch_norm, r(4, 3, 5, dtype=bf16), rm, rv, training=True),
    case(F.batch_norm, r(4, 3, 5, dtype=f64), rm.double(), rv.double(), None, r(3, dtype=f64), True),
    case(F.instance_norm, r(2, 3, 5, 5), rm, rv, r(3), r(3), **TOL),
    case(F.instance_norm, r(4, 3, 6, dtype=f64), rm.double(), rv.double(), momentum=0.5),
]


@pytest.mark.parametrize("fn, args, kwargs, tol", params(CASES))
def test_norm_op(fn, args, kwargs, tol):
    check_op(fn, *args, **tol, **kwargs)
    check_requires_grad(fn, args, kwargs)


@pytest.mark.parametrize("fn, args, kwargs, tol", params(INPLACE_CASES))
def test_running_stats_are_updated_in_place_like_eager(fn, args, kwargs, tol):
    check_stateful(fn, *args, **tol, **kwargs)


@pytest.mark.parametrize("fn", [F.softmax, F.log_softmax, F.softmin])
@pytest.mark.parametrize("shape", [(5,), (2, 3), (2, 3, 4)])
def test_implicit_softmax_dim_warns_and_matches_eager(fn, shape):
    with pytest.warns(UserWarning, match="Implicit dimension"):
        check_op(fn, r(*shape), **TOL)


@pytest.mark.parametrize("fn, args, kwargs, error, match", [
    (torch.softmax, (torch.arange(3), 0), {}, RuntimeError, "floating-point"),
    (F.layer_norm, (x3, [3]), {}, RuntimeError, "normalized_shape"),
    (F.group_norm, (r(2, 6, 3), 4), {}, RuntimeError, "divisible"),
    (F.batch_norm, (r(1, 3), rm, rv), {"training": True}, ValueError, "more than 1 value per channel"),
    (F.batch_norm, (r(2, 3), None, None), {}, ValueError, "training=False"),
    (F.instance_norm, (r(2, 3, 1),), {}, ValueError, "more than 1 spatial element"),
    (F.normalize, (r(2, 3),), {"out": r(2, 3)}, NotImplementedError, "out="),
])
def test_errors_while_tracing(fn, args, kwargs, error, match):
    check_error(fn, args, kwargs, error, match)


def test_every_registered_callable_is_tested():
    assert_covered([ltorch_norm], CASES, INPLACE_CASES)
