"""Differential tests of the activation functions (thunder_core.ops.ltorch_activations) against
eager: every registered callable, whole and decomposed into prims, over shapes, layouts and
dtypes; ``F.<act>(..., inplace=True)`` through the in-place ops, comparing mutated inputs."""

from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F

from thunder_core.ops import TORCH_CALLS
from thunder_core.ops import ltorch_activations as LA

from .test_elementwise import B, BF16, F16, F64, I64, A, cases, check_traced, run_sample

pytest.importorskip("thunder_executor_torch")

_INPUTS = [A(), A(()), A((0, 3)), A((3, 4), layout="t"), A((4, 3), layout="s"), A((5,), F64), A((5,), BF16),
           A((5,), F16), A((5,), I64), A((5,), B), A((2, 3), low=-30, high=30)]
_PLAIN = [((a,), {}) for a in _INPUTS]

SAMPLES = {name: _PLAIN for name in ("relu", "relu6", "selu", "silu", "mish", "softsign", "hardsigmoid", "hardswish",
                                     "logsigmoid")}
SAMPLES.update({
    "hardtanh": _PLAIN + [((A(), -0.5, 0.5), {}), ((A((5,), I64), -2.5, 2.5), {}), ((A(),), dict(max_val=2.0))],
    "threshold": [((A(), 0.1, 20.0), {}), ((A((5,), I64), 1.5, 5.5), {}), ((A((5,), I64), -1.5, 5), {}),
                  ((A((5,), BF16), 0.5, -1.0), {}), ((A(()), 0.0, 1.0), {})],
    "leaky_relu": _PLAIN + [((A(), 0.2), {}), ((A(),), dict(negative_slope=-1.5))],
    "elu": _PLAIN + [((A(), 0.5), {})],
    "celu": _PLAIN + [((A(),), dict(alpha=2.0)), ((A((5,), BF16),), dict(alpha=0.5))],
    "gelu": _PLAIN + [((a,), dict(approximate="tanh")) for a in _INPUTS] + [((A(),), dict(approximate="exact"))],
    "softplus": _PLAIN + [((A(), 3.0, 5.0), {}), ((A(),), dict(beta=0.5)), ((A((5,), BF16), 2.0, 4.0), {})],
    "glu": [((A((4, 6)),), {}), ((A((4, 6)), 0), {}), ((A((4, 5)),), {}), ((A((2, 4), BF16),), {})],
    "hardshrink": [((A(),), {}), ((A(), 0.3), {}), ((A((5,), BF16),), {}), ((A(()),), dict(lambd=0.0)),
                   ((A((5,), values=(float("nan"), 0.5, -0.5, 0.7, -0.7)),), {})],
    "softshrink": [((A(),), {}), ((A(), 0.3), {}), ((A((5,), BF16),), {}), ((A((0, 3)),), {}),
                   ((A((5,), values=(float("nan"), 0.5, -0.5, 0.7, -0.7)),), {})],
    "prelu": [((A((2, 3)), A((3,))), {}), ((A((4, 3, 2), layout="t"), A((3,))), {}), ((A(), A(())), {}),
              ((A((5,)), A((1,))), {}), ((A((2, 3), BF16), A((3,), BF16)), {}), ((A((2, 3)), A((2,))), {})],
    "rrelu": [((A(),), {}), ((A(), 0.1, 0.3), {}), ((A((5,), BF16),), dict(training=False))],
})
#: F functions with an `inplace` flag: all samples, then in-place runs of the first three.
FRONTS = {f: [*SAMPLES[e.__name__], *[(args, {**kw, "inplace": True}) for args, kw in SAMPLES[e.__name__][:3]]]
          for f, e in ((f, TORCH_CALLS[f]) for f in LA.CALLABLES) if not hasattr(e, "symbol")}


@pytest.mark.parametrize("fn, spec, inplace", cases(LA.CALLABLES, SAMPLES, FRONTS))
def test_activation(fn, spec, inplace):
    run_sample(fn, spec, inplace)


def test_every_registered_callable_has_samples():
    covered = {p.values[0] for p in cases(LA.CALLABLES, SAMPLES, FRONTS)}
    missing = [getattr(f, "__qualname__", f) for f in LA.CALLABLES if f not in covered]
    assert not missing, f"registered torch callables without samples: {missing}"
    assert {TORCH_CALLS[f].__name__ for f in FRONTS} == {"relu", "relu6", "hardtanh", "threshold", "leaky_relu", "elu",
                                                          "selu", "celu", "silu", "mish", "hardsigmoid", "hardswish"}


def test_inplace_flag_records_the_inplace_op():
    trace = check_traced(F.silu, torch.randn(3), inplace=True)
    (bsym,) = trace.bound_symbols
    assert bsym.sym.id == "ltorch.silu_" and "inplace" in bsym.sym.tags and bsym.sym.decomposition is None


def test_gelu_decomposes_to_prims_only():
    trace = check_traced(F.gelu, torch.randn(4), approximate="tanh")
    (bsym,) = trace.bound_symbols
    assert bsym.subsymbols and bsym.sym.id == "ltorch.gelu"
