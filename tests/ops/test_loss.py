"""Loss functions (thunder_core/ops/ltorch_loss.py) against eager, in every reduction mode."""

import pytest
import torch
import torch.nn.functional as F

from thunder_core.ops import ltorch_loss
from thunder_core.testing.opcheck import check_op

from .test_nn import assert_covered, case, check_error, check_requires_grad, ints, nc, params, r, u

pytest.importorskip("thunder_executor_torch")

f64, bf16 = torch.float64, torch.bfloat16
TOL = {"atol": 1e-5, "rtol": 1e-5}
MODES = ("none", "mean", "sum")


def probs(*shape, dim=1, dtype=torch.float32):
    return torch.softmax(r(*shape, dtype=dtype), dim)


def with_ignored(t, ignore_index=-100):
    """``t`` with some entries set to ``ignore_index``."""
    t = t.clone()
    t.view(-1)[::3] = ignore_index
    return t


a, b = r(4, 5), r(4, 5)
logits, labels = r(6, 4), ints(4, 6)
CASES = [c for mode in MODES for c in [
    case(F.mse_loss, a, b, reduction=mode),
    case(F.mse_loss, nc(a), b, reduction=mode, weight=u(4, 5), **TOL),
    case(F.l1_loss, a, nc(b), reduction=mode),
    case(F.l1_loss, a, b, reduction=mode, weight=u(4, 5), **TOL),
    case(F.smooth_l1_loss, a, b, reduction=mode, beta=0.5),
    case(F.huber_loss, a, b, reduction=mode, delta=0.7),
    case(F.huber_loss, a, b, reduction=mode, weight=u(4, 5)),
    case(F.binary_cross_entropy, u(4, 5), u(4, 5), reduction=mode, **TOL),
    case(F.binary_cross_entropy, u(4, 5), u(4, 5).round(), u(5), reduction=mode, **TOL),
    case(F.binary_cross_entropy_with_logits, a, u(4, 5), reduction=mode, **TOL),
    case(F.binary_cross_entropy_with_logits, a * 30, u(4, 5), u(4, 5), reduction=mode, pos_weight=u(5) * 2, **TOL),
    case(F.kl_div, torch.log_softmax(a, 1), probs(4, 5), reduction=mode, **TOL),
    case(F.kl_div, torch.log_softmax(a, 1), torch.log_softmax(b, 1), reduction=mode, log_target=True, **TOL),
    case(F.nll_loss, torch.log_softmax(logits, 1), labels, reduction=mode, **TOL),
    case(F.nll_loss, nc(r(6, 4)), with_ignored(labels), u(4), reduction=mode, **TOL),
    case(F.nll_loss, r(2, 4, 3, 2), ints(4, 2, 3, 2), u(4), ignore_index=1, reduction=mode, **TOL),
    case(F.nll_loss, r(5, dtype=f64), torch.tensor(3), reduction=mode),
    case(F.cross_entropy, logits, labels, reduction=mode, **TOL),
    case(F.cross_entropy, nc(logits), with_ignored(labels, 2), u(4), ignore_index=2, reduction=mode, **TOL),
    case(F.cross_entropy, r(2, 4, 3), with_ignored(ints(4, 2, 3)), reduction=mode, label_smoothing=0.1, **TOL),
    case(F.cross_entropy, logits, with_ignored(labels), u(4), reduction=mode, label_smoothing=0.2, **TOL),
    case(F.cross_entropy, r(4, dtype=f64), torch.tensor(1), reduction=mode, label_smoothing=0.3),
    case(F.cross_entropy, logits, probs(6, 4), reduction=mode, **TOL),
    case(F.cross_entropy, r(2, 4, 3, dtype=f64), probs(2, 4, 3, dtype=f64), u(4, dtype=f64), reduction=mode,
         label_smoothing=0.25),
]] + [
    case(F.mse_loss, r(4, 5, dtype=f64), r(4, 5, dtype=f64), size_average=False),
    case(F.mse_loss, r(0, 5), r(0, 5), reduction="sum"),
    case(F.mse_loss, r(8, 8, dtype=bf16), r(8, 8, dtype=bf16)),
    case(F.l1_loss, r(3, 5, dtype=f64), r(3, 5, dtype=f64), reduce=False),
    case(F.smooth_l1_loss, a, b, beta=0.0),
    case(F.smooth_l1_loss, r(4, 5, dtype=f64), r(4, 5, dtype=f64), size_average=True),
    case(F.huber_loss, r(4, 5, dtype=bf16), r(4, 5, dtype=bf16), delta=2.0),
    case(F.binary_cross_entropy, torch.tensor([0.0, 1.0, 0.5]), torch.tensor([1.0, 0.0, 0.5])),  # logs clamp
    case(F.binary_cross_entropy, u(3, 4, dtype=f64), u(3, 4, dtype=f64), reduce=False),
    case(F.binary_cross_entropy_with_logits, r(3, 4, dtype=f64), u(3, 4, dtype=f64), size_average=False),
    case(F.kl_div, torch.log_softmax(a, 1), probs(4, 5), reduction="batchmean", **TOL),
    case(F.kl_div, r(3, dtype=f64), torch.tensor([0.0, 0.5, 0.5], dtype=f64), reduction="sum"),
    case(F.nll_loss, r(0, 4), ints(4, 0)),  # an empty batch: the mean is 0 / 0
    case(F.nll_loss, torch.log_softmax(logits, 1), torch.full((6,), -100)),  # everything ignored
    case(F.nll_loss, torch.log_softmax(logits.double(), 1), labels, size_average=False),
    case(F.cross_entropy, r(8, 16, dtype=bf16), ints(16, 8)),
    case(F.cross_entropy, logits.double(), labels, reduce=False),
]


@pytest.mark.parametrize("fn, args, kwargs, tol", params(CASES))
@pytest.mark.filterwarnings("ignore:size_average and reduce args will be deprecated")
@pytest.mark.filterwarnings("ignore:reduction. 'mean' divides the total loss")
def test_loss(fn, args, kwargs, tol):
    check_op(fn, *args, **tol, **kwargs)
    check_requires_grad(fn, args, kwargs)


def test_broadcast_target_warns_like_eager():
    with pytest.warns(UserWarning, match="target size"):
        check_op(F.mse_loss, a, torch.zeros(5), **TOL)


@pytest.mark.parametrize("fn, args, kwargs, error, match", [
    (F.mse_loss, (a, b), {"reduction": "avg"}, ValueError, "not a valid value for reduction"),
    (F.mse_loss, (a, b), {"weight": u(5)}, ValueError, "same size"),
    (F.smooth_l1_loss, (a, b), {"beta": -1.0}, RuntimeError, "negative values for beta"),
    (F.binary_cross_entropy, (u(4, 5), u(5)), {}, ValueError, "different to the input size"),
    (F.binary_cross_entropy_with_logits, (a, u(5)), {}, ValueError, "must be the same as input size"),
    (F.nll_loss, (logits, ints(4, 5)), {}, RuntimeError, "expected target of shape \\[6\\]"),
    (F.nll_loss, (logits, u(6)), {}, RuntimeError, "class indices"),
    (F.cross_entropy, (logits, labels), {"label_smoothing": 1.5}, ValueError, "between 0.0 and 1.0"),
    (F.cross_entropy, (logits, probs(6, 3)), {}, RuntimeError, "probability targets"),
])
def test_errors_while_tracing(fn, args, kwargs, error, match):
    check_error(fn, args, kwargs, error, match)


def test_every_registered_callable_is_tested():
    assert_covered([ltorch_loss], CASES)

