"""The decompositions of the math, special, statistics and linear-algebra ops
(ops/ltorch_math.py, ltorch_special.py, ltorch_stats.py, ltorch_products.py, ltorch_fft.py,
ltorch_linalg_library.py) against eager, and their gradients at the points where a
decomposition differentiates differently from eager (the VJP rules of transforms/vjp_math.py).

test_opdb.py runs every OpInfo sample through tc.jit, but the torch executor runs these ops
whole; here each sample is traced and run *flattened to primitives* too (``check_op``), so
every decomposition is compared with eager on PyTorch's own samples, in every dtype the
OpInfo supports among float32, float64, bfloat16, int64 and bool, plus special values
(nan, +-inf, +-0, ties) the OpInfo samples rarely hold.
"""

from __future__ import annotations

import itertools
import math
import warnings

import pytest
import torch

import thunder_core as tc
from thunder_core.ops import (TORCH_CALLS, ltorch_fft, ltorch_linalg_library, ltorch_math, ltorch_products,
                              ltorch_special, ltorch_stats)
from thunder_core.testing.opcheck import check_error_like_eager, check_op

pytest.importorskip("expecttest")  # torch.testing._internal needs it
pytest.importorskip("thunder_executor_torch")

from torch.testing._internal.common_methods_invocations import op_db  # noqa: E402

DTYPES = (torch.float32, torch.float64, torch.bfloat16, torch.int64, torch.bool)
MODULES = (ltorch_math, ltorch_special, ltorch_stats, ltorch_products, ltorch_fft, ltorch_linalg_library)
_TOL = {torch.bfloat16: dict(atol=1e-2, rtol=1.6e-2)}


def _decomposed_ops():
    """(OpInfo, torch callable) for every OpInfo whose function is a callable registered by
    MODULES and whose symbol has a decomposition."""
    mine = {f for m in MODULES for f in m.CALLABLES}
    out = []
    for op in op_db:
        entry = TORCH_CALLS.get(op.op) if op.op in mine else None
        sym = getattr(entry, "symbol", None)
        if sym is not None and sym.decomposition is not None:
            out.append(op)
    return out


def _name(op):
    return op.name + (f".{op.variant_test_name}" if op.variant_test_name else "")


def _run(fn, args, kwargs, dtype):
    with warnings.catch_warnings(), torch.no_grad():
        warnings.simplefilter("ignore")
        try:
            fn(*args, **kwargs)
        except Exception:  # noqa: BLE001 - eager rejects the sample: nothing to compare
            return False
        check_op(fn, *args, **kwargs, **_TOL.get(dtype, {}))
    return True


@pytest.mark.parametrize("op", _decomposed_ops(), ids=_name)
def test_decomposition_matches_eager_on_opinfo_samples(op):
    ran = 0
    for dtype in DTYPES:
        if dtype not in op.supported_dtypes("cpu"):
            continue
        for s in itertools.islice(op.sample_inputs("cpu", dtype), 4):
            ran += _run(op.op, [s.input, *s.args], dict(s.kwargs), dtype)
    assert ran, f"no sample of {_name(op)} ran"


def _symbol(fn):
    return getattr(TORCH_CALLS.get(fn), "symbol", None)


def test_every_decomposition_is_checked_on_samples():
    covered = {_symbol(op.op) for op in _decomposed_ops()} | {_symbol(fn) for fn, *_ in EDGES}
    mine = {_symbol(f) for m in MODULES for f in m.CALLABLES} - {None}
    missing = sorted(s.id for s in mine if s.decomposition is not None and s not in covered and "inplace" not in s.tags)
    assert not missing, f"no OpInfo or EDGES sample checks the decomposition of {missing}"


# ---------------------------------------------------------------- special values

NAN, INF = math.nan, math.inf
SPECIAL = torch.tensor([0.0, -0.0, 1.0, -1.0, 0.5, 2.0, NAN, INF, -INF, 1e-30, 1e30])
SPECIAL_B = torch.tensor([0.0, 1.0, 0.0, NAN, INF, -INF, INF, -INF, 1e-30, 2.0, -3.0])

#: (torch callable, args): special values, ties, integers, numbers in place of tensors
EDGES = [
    (torch.deg2rad, (SPECIAL,)), (torch.rad2deg, (torch.arange(-3, 4),)),
    (torch.logaddexp, (SPECIAL, SPECIAL_B)), (torch.logaddexp, (SPECIAL.bfloat16(), SPECIAL_B.bfloat16())),
    (torch.logaddexp2, (SPECIAL, SPECIAL_B)), (torch.logaddexp, (SPECIAL, SPECIAL)),
    (torch.xlogy, (SPECIAL, SPECIAL_B)), (torch.xlogy, (2, SPECIAL)), (torch.xlogy, (SPECIAL, 3.0)),
    (torch.xlogy, (torch.arange(-2, 3), torch.arange(0, 5))), (torch.special.xlog1py, (SPECIAL, SPECIAL_B)),
    (torch.special.entr, (SPECIAL,)), (torch.sinc, (SPECIAL,)), (torch.sinc, (torch.arange(-2, 3),)),
    (torch.logit, (torch.tensor([-0.5, 0.0, 0.2, 1.0, 1.5, NAN]),)),
    (torch.logit, (torch.tensor([-0.5, 0.0, 0.2, 1.0, 1.5, NAN]), 0.25)),
    (torch.fmax, (SPECIAL, SPECIAL_B)), (torch.fmin, (SPECIAL, SPECIAL_B)),
    (torch.fmax, (torch.arange(4), torch.tensor([3, 2, 1, 0]))),
    (torch.heaviside, (SPECIAL, SPECIAL_B)), (torch.heaviside, (torch.tensor([True, False]), torch.tensor([False, True]))),
    (torch.ldexp, (SPECIAL, torch.arange(-5, 6))), (torch.sgn, (SPECIAL,)), (torch.angle, (SPECIAL,)),
    (torch.angle, (torch.arange(-2, 3),)), (torch.isposinf, (SPECIAL,)), (torch.isneginf, (torch.arange(3),)),
    (torch.isreal, (SPECIAL,)), (torch.isclose, (SPECIAL, SPECIAL_B)),
    (torch.isclose, (SPECIAL, SPECIAL_B, 0.1, 0.5, True)), (torch.isclose, (torch.arange(5), torch.tensor([0, 2, 2, 4, 4]))),
    (torch.polar, (SPECIAL.abs(), SPECIAL_B)),
    (torch.nansum, (SPECIAL,)), (torch.nansum, (torch.tensor([[1.0, NAN], [NAN, NAN]]), 1, True)),
    (torch.nanmean, (torch.tensor([[1.0, NAN], [NAN, NAN]]), 1)), (torch.nanmean, (SPECIAL.bfloat16(),)),
    (torch.count_nonzero, (torch.tensor([[True, False], [True, True]]), 0)), (torch.count_nonzero, (SPECIAL,)),
    (torch.aminmax, (SPECIAL.reshape(1, 11),), dict(keepdim=True)), (torch.aminmax, (torch.arange(6).reshape(2, 3),),
                                                                     dict(dim=1)),
    (torch.msort, (torch.tensor([[3, 1], [2, 5], [0, 4]]),)),
    (torch.isin, (SPECIAL, torch.tensor([NAN, 0.0, INF]))), (torch.isin, (torch.arange(6), torch.tensor([1.0, 4.5]))),
    (torch.isin, (torch.tensor(3), torch.tensor([3])), dict(invert=True)),
    (torch._C._VariableFunctions.tensordot, (torch.randn(2, 3, 4), torch.randn(4, 5, 3), [2, 1], [0, 2])),
    (torch._C._VariableFunctions.tensordot, (torch.arange(6).reshape(2, 3), torch.arange(6).reshape(3, 2), [0], [1])),
    (torch.inner, (torch.randn(2, 3), torch.randn(4, 3))), (torch.kron, (torch.randn(2, 1, 3), torch.randn(3, 2))),
    (torch.trace, (torch.arange(12).reshape(3, 4),)), (torch.trace, (torch.randn(4, 3, dtype=torch.float64),)),
    (torch.addr, (torch.randn(3, 2).bfloat16(), torch.randn(3).bfloat16(), torch.randn(2).bfloat16()),
     dict(beta=0.2, alpha=0.6)),
    (torch.addr, (torch.tensor([[NAN]]), torch.ones(1), torch.ones(1)), dict(beta=0)),
]


@pytest.mark.parametrize("fn, args, kwargs", [(f, a, *(k or ({},))) for f, a, *k in EDGES],
                         ids=[f"{getattr(f, '__name__', f)}-{k}" for k, (f, *_) in enumerate(EDGES)])
def test_decomposition_on_special_values(fn, args, kwargs):
    tol = _TOL.get(next(a for a in args if isinstance(a, torch.Tensor)).dtype, {})
    trace = check_op(fn, *args, **kwargs, **tol)
    sym = trace.bound_symbols[-1].sym
    assert sym.decomposition is not None and trace.bound_symbols[-1].subsymbols, f"{sym.id} ran whole"


def test_complex_calls_run_whole():
    z = torch.tensor([1 + 2j, -3j, 0j])
    for fn in (torch.sgn, torch.angle, torch.conj_physical, torch.resolve_conj, torch.sinc):
        trace = check_op(fn, z)
        assert not trace.bound_symbols[-1].subsymbols, fn
    assert not check_op(torch.logaddexp, z, z).bound_symbols[-1].subsymbols


def test_a_declined_call_keeps_eagers_error():
    check_error_like_eager(torch.deg2rad, torch.tensor([1j]), match="not supported for complex")
    check_error_like_eager(torch.isclose, torch.ones(2), torch.ones(2, dtype=torch.float64), match="did not match")
    # (torch's meta does not check this one: the kernel, run whole, raises it)
    with pytest.raises(RuntimeError, match="different dtypes"):
        tc.jit(torch.heaviside)(torch.ones(2), torch.ones(2, dtype=torch.int64))


def test_real_conj_is_the_input_itself():
    x = torch.randn(3)
    jf = tc.jit(lambda t: (torch.conj(t), t.conj_physical(), t.resolve_conj()))
    assert all(o is x for o in jf(x))


# ---------------------------------------------------------------- gradients at the edges

def _grads(fn, *args):
    ins = [a.clone().requires_grad_(True) for a in args]
    out = fn(*ins)
    return torch.autograd.grad(out.sum(), ins, allow_unused=True)


GRAD_EDGES = [
    (torch.xlogy, torch.tensor([0.0, 0.0, 1.0, 2.0, 0.0], dtype=torch.float64),
     torch.tensor([2.0, -1.0, 3.0, 0.5, 0.0], dtype=torch.float64)),
    (torch.special.xlog1py, torch.tensor([0.0, 0.0, 1.0], dtype=torch.float64),
     torch.tensor([2.0, -1.5, 3.0], dtype=torch.float64)),
    (torch.fmax, torch.tensor([1.0, 2.0, NAN, 3.0], dtype=torch.float64),
     torch.tensor([1.0, NAN, 2.0, 4.0], dtype=torch.float64)),
    (torch.fmin, torch.tensor([1.0, 2.0, NAN, 3.0], dtype=torch.float64),
     torch.tensor([1.0, NAN, 2.0, 4.0], dtype=torch.float64)),
    (torch.logit, torch.tensor([-0.5, 0.25, 0.5, 1.5], dtype=torch.float64)),
    (lambda x: torch.logit(x, 0.3), torch.tensor([0.1, 0.25, 0.5, 0.9], dtype=torch.float64)),
    (torch.logaddexp, torch.tensor([INF, 1.0, -INF], dtype=torch.float64), torch.tensor([INF, 1.0, -INF], dtype=torch.float64)),
    (torch.logaddexp2, torch.tensor([0.0, 1.0, 5.0], dtype=torch.float64), torch.tensor([0.0, 3.0, -5.0], dtype=torch.float64)),
    (torch.special.entr, torch.tensor([0.0, 0.5, 2.0], dtype=torch.float64)),
    (torch.sinc, torch.tensor([0.0, 0.5, -2.5], dtype=torch.float64)),
    (torch.angle, torch.tensor([-1.0, 0.0, NAN], dtype=torch.float64)),
]


@pytest.mark.parametrize("case", GRAD_EDGES, ids=[f"{getattr(c[0], '__name__', 'logit_eps')}-{k}"
                                                  for k, c in enumerate(GRAD_EDGES)])
def test_gradients_at_edge_points_match_eager(case):
    fn, *args = case
    expected = _grads(fn, *args)
    got = _grads(tc.jit(fn), *args)
    for g, e in zip(got, expected):
        torch.testing.assert_close(g, e, equal_nan=True)
