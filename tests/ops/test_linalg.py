"""Linear algebra and linear layers (thunder_core/ops/ltorch_linalg.py) against eager."""

import pytest
import torch
import torch.nn.functional as F

from thunder_core.ir import Trace, tracing, verify
from thunder_core.ops import ltorch_linalg
from thunder_core.testing.opcheck import check_op, torch_impls

from .test_nn import assert_covered, case, check_error, check_requires_grad, nc, params, r

pytest.importorskip("thunder_executor_torch")

f64, bf16 = torch.float64, torch.bfloat16
TOL = {"atol": 1e-5, "rtol": 1e-5}

CASES = [
    case(torch.matmul, r(3), r(3)),
    case(torch.matmul, r(2, 3), r(3)),
    case(torch.matmul, r(3), r(3, 4)),
    case(torch.matmul, nc(r(2, 3)), nc(r(3, 4))),
    case(torch.matmul, r(5, 2, 3), r(3, 4)),
    case(torch.matmul, r(3), r(5, 3, 4)),
    case(torch.matmul, r(2, 1, 2, 3), r(4, 3, 2)),
    case(torch.matmul, r(0, 2, 3), r(3, 4)),
    case(torch.matmul, r(2, 0), r(0, 4)),
    case(torch.matmul, r(4, 2, 3, dtype=f64), r(4, 3, 5, dtype=f64)),
    case(torch.matmul, r(8, 16, dtype=bf16), r(16, 8, dtype=bf16)),
    case(torch.Tensor.matmul, r(4, 3), r(3, 2)),
    case(torch.mm, r(2, 3), r(3, 4)),
    case(torch.mm, nc(r(3, 3, dtype=f64)), r(3, 0, dtype=f64)),
    case(torch.Tensor.mm, r(0, 3), r(3, 4)),
    case(torch.bmm, r(4, 2, 3), nc(r(4, 3, 5))),
    case(torch.bmm, r(0, 2, 3, dtype=f64), r(0, 3, 5, dtype=f64)),
    case(torch.Tensor.bmm, r(2, 2, 3, dtype=bf16), r(2, 3, 2, dtype=bf16)),
    case(torch.mv, r(2, 3), r(3)),
    case(torch.Tensor.mv, nc(r(4, 3, dtype=f64)), r(3, dtype=f64)),
    case(torch.dot, r(5), r(5)),
    case(torch.Tensor.dot, nc(r(4, dtype=f64)), r(4, dtype=f64)),
    case(torch.outer, r(3), r(4)),
    case(torch.outer, r(3), torch.arange(4)),
    case(torch.Tensor.outer, r(0), r(2, dtype=f64)),
    case(torch.addmm, r(2, 4), r(2, 3), r(3, 4), **TOL),
    case(torch.addmm, r(4), nc(r(2, 3)), r(3, 4), beta=0.5, alpha=2, **TOL),
    case(torch.addmm, torch.full((2, 4), float("nan")), r(2, 3), r(3, 4), beta=0, **TOL),
    case(torch.Tensor.addmm, r(2, 4, dtype=f64), r(2, 3, dtype=f64), r(3, 4, dtype=f64), alpha=-1),
    case(torch.baddbmm, r(3, 2, 4), r(3, 2, 5), r(3, 5, 4), **TOL),
    case(torch.baddbmm, r(1, 4), r(0, 2, 5), r(0, 5, 4), beta=2, alpha=0.5),
    case(torch.Tensor.baddbmm, r(3, 2, 4, dtype=f64), r(3, 2, 5, dtype=f64), nc(r(3, 5, 4, dtype=f64)), beta=0),
    case(torch.addmv, r(2), r(2, 3), r(3), **TOL),
    case(torch.addmv, r(1), r(2, 3), r(3), beta=3, alpha=0.5, **TOL),
    case(torch.Tensor.addmv, r(4, dtype=f64), nc(r(4, 3, dtype=f64)), r(3, dtype=f64)),
    case(torch.einsum, "ij,jk->ik", r(2, 3), r(3, 4)),
    case(torch.einsum, "bij,bjk->bik", r(5, 2, 3), nc(r(5, 3, 4)), **TOL),
    case(torch.einsum, "ii->i", r(4, 4, dtype=f64)),
    case(torch.einsum, "i,j", [r(3), r(2)]),
    case(torch.einsum, "...ij->...ji", r(0, 2, 3)),
    case(F.linear, r(3, 4), r(5, 4), r(5)),
    case(F.linear, nc(r(2, 3, 4)), r(5, 4), **TOL),
    case(F.linear, r(0, 4), r(5, 4), r(5)),
    case(F.linear, r(3, 4, dtype=f64), r(4, dtype=f64)),
    case(F.linear, r(4, 16, dtype=bf16), r(8, 16, dtype=bf16), r(8, dtype=bf16)),
    case(F.bilinear, r(3, 4), r(3, 5), r(6, 4, 5), r(6), **TOL),
    case(F.bilinear, r(2, 3, 4, dtype=f64), nc(r(2, 3, 5, dtype=f64)), r(6, 4, 5, dtype=f64)),
    case(F.bilinear, r(4), r(5), r(2, 4, 5), **TOL),
    case(F.bilinear, r(0, 4), r(0, 5), r(6, 4, 5), r(6)),
    case(torch.conv1d, r(2, 4, 9), r(6, 4, 3), r(6), **TOL),
    case(torch.conv1d, nc(r(2, 4, 9)), r(6, 2, 3), None, 2, 1, 2, 2, **TOL),
    case(torch.conv1d, r(4, 9), r(6, 4, 4), padding="same", **TOL),
    case(torch.conv1d, r(2, 4, 9, dtype=f64), r(6, 4, 3, dtype=f64), padding="valid", stride=(3,)),
    case(torch.conv2d, r(2, 4, 8, 8), r(6, 2, 3, 3), r(6), stride=2, padding=1, groups=2, **TOL),
    case(torch.conv2d, r(0, 3, 5, 5), r(2, 3, 3, 3)),
    case(torch.conv2d, r(3, 7, 6), r(4, 3, 2, 3), padding="same", dilation=(2, 1), **TOL),
    case(torch.conv2d, r(1, 3, 7, 6, dtype=f64), r(4, 3, 3, 3, dtype=f64), stride=(2, 1), padding=(0, 2)),
    case(torch.conv2d, r(1, 4, 6, 6, dtype=bf16), r(4, 4, 3, 3, dtype=bf16)),
    case(torch.conv3d, r(1, 2, 5, 5, 5), r(3, 2, 2, 3, 3), r(3), padding=1, **TOL),
    case(torch.conv3d, r(2, 4, 4, 4), r(4, 1, 3, 3, 3), groups=2, dilation=2, padding="same", **TOL),
    case(torch.conv_transpose1d, r(2, 4, 5), r(4, 3, 3), r(3), stride=2, output_padding=1, **TOL),
    case(torch.conv_transpose1d, r(4, 5, dtype=f64), r(4, 1, 3, dtype=f64), groups=2, dilation=2, padding=1),
    case(torch.conv_transpose2d, r(2, 4, 5, 5), r(4, 3, 3, 3), stride=2, padding=1, output_padding=1, **TOL),
    case(torch.conv_transpose2d, nc(r(0, 4, 5, 5)), r(4, 2, 2, 2), r(4), groups=2),
    case(torch.conv_transpose3d, r(1, 2, 3, 3, 3), r(2, 3, 2, 2, 2), None, (1, 2, 1), **TOL),
]


@pytest.mark.parametrize("fn, args, kwargs, tol", params(CASES))
@pytest.mark.filterwarnings("ignore:Using padding='same' with even kernel lengths")
def test_linalg_op(fn, args, kwargs, tol):
    check_op(fn, *args, **tol, **kwargs)
    check_requires_grad(fn, args, kwargs)


@pytest.mark.parametrize("reflected", [False, True])
def test_matmul_operator(reflected):
    a, b = r(2, 3, 4), r(4, 5)
    trace = Trace("op")
    with tracing(trace):
        pa, pb = trace.add_input(a), trace.add_input(b)
        trace.output = pb.__rmatmul__(pa) if reflected else pa @ pb
    verify(trace)
    assert trace.bound_symbols[0].sym.id == "ltorch.matmul"
    torch.testing.assert_close(trace.python_callable(torch_impls())(a, b), a @ b)


@pytest.mark.parametrize("fn, args, kwargs, error, match", [
    (torch.mm, (r(2, 3, 4), r(4, 2)), {}, RuntimeError, "2-D"),
    (torch.bmm, (r(2, 3, 4), r(3, 4, 2)), {}, RuntimeError, "batch sizes"),
    (torch.matmul, (r(2, 3), r(4, 2)), {}, ValueError, "contracted sizes 3 and 4"),
    (torch.matmul, (r(2, 3), r(3, 2, dtype=f64)), {}, ValueError, "one dtype"),
    (torch.matmul, (r(2, 3), torch.tensor(1.0)), {}, ValueError, "at least one dimension"),
    (torch.einsum, (r(2, 3), [0, 1]), {}, TypeError, "equation-string"),
    (torch.conv2d, (r(1, 3, 5, 5), r(2, 3, 3, 3)), {"stride": 2, "padding": "same"}, RuntimeError, "strided"),
    (torch.conv2d, (r(1, 3, 2, 2), r(2, 3, 3, 3)), {}, ValueError, "kernel is too large"),
    (torch.conv2d, (r(1, 4, 5, 5), r(2, 3, 3, 3)), {}, ValueError, "4 channels"),
    (torch.conv1d, (r(5), r(2, 1, 3)), {}, RuntimeError, "2-D \\(unbatched\\) or 3-D"),
])
def test_errors_while_tracing(fn, args, kwargs, error, match):
    check_error(fn, args, kwargs, error, match)


def test_every_registered_callable_is_tested():
    assert_covered([ltorch_linalg], CASES)
