"""Differential tests of the elementwise ops and conversions (thunder_core.ops.ltorch_elementwise,
ltorch_conversions) against eager.

Every torch callable the module registers is run on samples (shapes incl. 0-size and 0-dim,
broadcasting, transposed and sliced inputs, float/int/bool/low-precision/complex dtypes,
tensor-number mixes): through the torch executor whole and decomposed into prims (check_op),
or, for in-place ops and Python operators, through :func:`check_traced`, which also compares
the mutated inputs. Where eager raises, tracing or running must raise the same kind of error.
"""

from __future__ import annotations

import itertools
import operator
from dataclasses import dataclass

import pytest
import torch

from thunder_core.ir import Trace, TensorProxy, tracing, verify
from thunder_core.ir.proxies import OPERATORS, TENSOR_METHODS
from thunder_core.ops import TORCH_CALLS
from thunder_core.ops import ltorch_conversions as LC
from thunder_core.ops import ltorch_elementwise as L
from thunder_core.ops.ltorch_elementwise import result_dtype
from thunder_core.testing.opcheck import _compare, check_op, torch_impls
from thunder_core.transforms.flatten import flatten

pytest.importorskip("thunder_executor_torch")

F32, F64, F16, BF16 = torch.float32, torch.float64, torch.float16, torch.bfloat16
I64, I32, U8, B, C64 = torch.int64, torch.int32, torch.uint8, torch.bool, torch.complex64
_SHORT = {F32: "f32", F64: "f64", F16: "f16", BF16: "bf16", I64: "i64", I32: "i32", U8: "u8", B: "b", C64: "c64"}


@dataclass(frozen=True)
class A:
    """A tensor argument of a sample: ``layout`` "" (contiguous), "t" (transposed) or "s"
    (sliced); ``low``/``high`` bound float values; ``nz`` excludes zeros (divisors); ``values``
    gives the elements of a 1-d tensor instead."""
    shape: tuple = (2, 3)
    dtype: torch.dtype = F32
    layout: str = ""
    low: float | None = None
    high: float | None = None
    nz: bool = False
    values: tuple | None = None

    def make(self) -> torch.Tensor:
        if self.values is not None:
            return torch.tensor(self.values, dtype=self.dtype)
        shape = self.shape[::-1] if self.layout == "t" else (*self.shape[:-1], 2 * self.shape[-1]) \
            if self.layout == "s" else self.shape
        bounds = dict(low=self.low, high=self.high) if self.dtype.is_floating_point else {}
        t = torch.testing.make_tensor(shape, dtype=self.dtype, device="cpu", exclude_zero=self.nz, **bounds)
        return t.mT if self.layout == "t" else t[..., ::2] if self.layout == "s" else t

    def __repr__(self):
        shape = list(self.values) if self.values is not None else list(self.shape)
        return f"{_SHORT.get(self.dtype, self.dtype)}{shape}{self.layout}"


def build(x):
    """A sample's spec with every ``A`` made into a tensor."""
    if isinstance(x, A):
        return x.make()
    if isinstance(x, (tuple, list)):
        return type(x)(build(y) for y in x)
    if isinstance(x, dict):
        return {k: build(v) for k, v in x.items()}
    return x


def _clone(x):
    return x.clone() if isinstance(x, torch.Tensor) else type(x)(map(_clone, x)) if isinstance(x, (tuple, list)) \
        else {k: _clone(v) for k, v in x.items()} if isinstance(x, dict) else x


def _tolerance(args) -> dict:
    low = any(isinstance(a, torch.Tensor) and a.dtype in (F16, BF16) for a in [*args[0], *args[1].values()])
    return dict(atol=2e-2, rtol=2e-2) if low else {}


def check_traced(fn, *args, atol=None, rtol=None, **kwargs):
    """Like check_op for any Python callable ``fn`` (operators, in-place ops): trace it on
    proxies, verify, run it (whole, then flattened to prims) and eager on fresh copies of the
    inputs, and compare the outputs and the inputs afterwards (in-place ops mutate them)."""
    trace, inputs = Trace("fn"), []

    def proxify(x):
        if isinstance(x, torch.Tensor):
            inputs.append(x)
            return trace.add_input(x)
        return type(x)(map(proxify, x)) if isinstance(x, (tuple, list)) else x

    pargs, pkwargs = proxify(list(args)), {k: proxify(v) for k, v in kwargs.items()}
    with tracing(trace):
        out = TORCH_CALLS[fn](*pargs, **pkwargs) if fn in TORCH_CALLS else fn(*pargs, **pkwargs)
    trace.output = (out, *[p for p in trace.args])
    verify(trace)
    eager_args, eager_kwargs = _clone((list(args), kwargs))
    expected = (fn(*eager_args, **eager_kwargs), *[a for a in _flat_tensors(eager_args, eager_kwargs)])
    tol = {} if atol is None else dict(atol=atol, rtol=rtol or 0)
    traces = [trace]
    if any(b.subsymbols for b in trace.bound_symbols):
        traces.append(flatten(trace, keep=lambda s: s.is_prim or s.decomposition is None))
        verify(traces[-1])
    for t in traces:
        got = t.python_callable(torch_impls())(*_clone(inputs))
        _compare(got, expected, f"{getattr(fn, '__name__', fn)} ({'flattened' if t is not trace else 'whole'})",
                 True, **tol)
    return trace


def _flat_tensors(*xs):
    for x in xs:
        if isinstance(x, torch.Tensor):
            yield x
        elif isinstance(x, (tuple, list)):
            yield from _flat_tensors(*x)
        elif isinstance(x, dict):
            yield from _flat_tensors(*x.values())


def run_sample(fn, spec, inplace: bool, loose: bool = False):
    """Build the sample, then check ``fn`` on it. If eager raises, ours must raise an exception
    of the same class (any RuntimeError for torch's RuntimeError/NotImplementedError, which fake
    tensors do not tell apart; any exception if ``loose``)."""
    torch.manual_seed(0)
    args, kwargs = build(spec)
    inplace = inplace or kwargs.get("inplace", False)
    tol = _tolerance((args, kwargs))
    try:
        fn(*_clone(args), **_clone(kwargs))
    except Exception as e:  # noqa: BLE001 - eager refuses the sample: so must we, with the same kind of error
        with pytest.raises(Exception if loose else RuntimeError if isinstance(e, RuntimeError) else type(e)):
            (check_traced if inplace else check_op)(fn, *args, **kwargs)
        return
    (check_traced if inplace else check_op)(fn, *args, **tol, **kwargs)


# ---------------------------------------------------------------- samples

def S(*args, **kwargs):
    """A sample: the call's arguments (``A`` specs for tensors) and keywords."""
    return args, kwargs


def unary(low=None, high=None):
    """Samples of a unary op: shapes, layouts, dtypes (values in [low, high] for floats)."""
    def a(shape=(2, 3), dtype=F32, layout=""):
        return A(shape, dtype, layout, low, high)
    return [S(t) for t in (a(), a(()), a((0, 3)), a((3, 4), layout="t"), a((4, 3), layout="s"), a((5,), F64),
                           a((5,), BF16), a((5,), F16), a((5,), I64), a((5,), U8), a((5,), B), a((5,), C64))]


def binary(nz=False, numbers=(2, 2.5, True), dtypes=(F64, I64, B, BF16, C64)):
    """Samples of a binary op: broadcasting, layouts, dtype pairs, tensor-number mixes; ``nz``
    keeps divisors nonzero."""
    def b(shape=(2, 3), dtype=F32, layout=""):
        return A(shape, dtype, layout, nz=nz)
    pairs = [(A(), b()), (A(), b((3,))), (A((4, 1)), b((1, 5))), (A(), b(())), (A(()), b((2, 3))),
             (A((0, 3)), b((1, 3))), (A((3, 2), layout="t"), b((3, 2), layout="s")), (A((5,), I64), b((5,))),
             (A((5,), F32), b((), F64)), (A((5,), I64), b((), F64)), (A((5,), I64, low=0, high=3), b((5,), I64))]
    pairs += [(A((5,), d), b((5,), d)) for d in dtypes]
    pairs += [(A((5,), d), n) for d in (F32, I64, B, F16) for n in numbers]
    return [S(*p) for p in pairs]


_POSITIVE, _UNIT = (0.1, 5.0), (-0.95, 0.95)
_DOMAINS = {"log": _POSITIVE, "log2": _POSITIVE, "log10": _POSITIVE, "sqrt": _POSITIVE, "rsqrt": _POSITIVE,
            "lgamma": _POSITIVE, "digamma": _POSITIVE, "log1p": (-0.9, 5.0), "asin": _UNIT, "acos": _UNIT,
            "atanh": _UNIT, "erfinv": _UNIT, "acosh": (1.05, 5.0)}
I5, B5, BF5, F64_5 = A((5,), I64), A((5,), B), A((5,), BF16), A((5,), F64)
SAMPLES = {name.split()[0]: unary(*_DOMAINS.get(name.split()[0], (-3.0, 3.0))) for name, *_ in L._UNARY}
SAMPLES.update({n: unary() for n in ("real", "positive", "frac", "square")})
SAMPLES["round"] = unary() + [S(A(high=100), decimals=2), S(A((5,), BF16, high=100), decimals=1),
                              S(A(low=-1e4, high=1e4), decimals=-2), S(I5, decimals=1)]
SAMPLES.update({name.split()[0]: binary() for name, *_ in L._BINARY})
SAMPLES.update({n: binary(nz=True) for n in ("floor_divide", "remainder", "fmod")})
SAMPLES["bitwise_left_shift"] = SAMPLES["bitwise_right_shift"] = [
    S(A((6,), I64, low=-50, high=50), A((6,), I64, low=0, high=8)), S(A((2, 3), U8), A((3,), U8, low=0, high=7)),
    S(A((6,), I32), 3), S(A((6,), I64, low=-8, high=8), A((), I64, low=0, high=4)), S(A(), 1)]
SAMPLES["add"] = binary() + [S(A(), A(), alpha=2), S(I5, I5, alpha=3), S(BF5, BF5, alpha=0.3), S(I5, 2, alpha=-2),
                             S(I5, I5, alpha=0.5), S(B5, B5, alpha=2), S(2, A()), S(2, A(), alpha=3)]
SAMPLES["sub"] = SAMPLES["add"] + [S(B5, B5)]
SAMPLES["rsub"] = [S(A(), A((3,))), S(I5, 2.5), S(A(), 2, alpha=3)]
SAMPLES["div"] = binary(nz=True) + [S(A(), A(nz=True), rounding_mode=m) for m in ("trunc", "floor", "up")] + [
    S(A((5,), I64, low=-9, high=9), A((5,), I64, nz=True), rounding_mode=m) for m in ("trunc", "floor")] + [
    S(A((5,), F16, high=50), A((5,), F16, nz=True), rounding_mode="trunc"), S(2, A(nz=True)),
    S(2.5, A((5,), I64, nz=True))]
SAMPLES["pow"] = [S(A(low=0.1, high=3), A(low=-2, high=2)), S(A(), 2), S(A(), 0.5), S(A((5,), I64, low=-4, high=4), 3),
                  S(I5, -1), S(I5, 2.5), S(A((4, 1), I64, low=0, high=4), A((1, 3), I64, low=0, high=4)), S(B5, 2),
                  S(A((5,), BF16, low=0.1, high=2), A((5,), BF16, low=-2, high=2)), S(2, A()), S(A((5,), C64), 2),
                  S(A(), A((), F64))]
SAMPLES["float_power"] = [S(A(low=0.1), A()), S(I5, 2), S(A(), 2j), S(BF5, 1.5)]
SAMPLES["where"] = [S(A(dtype=B), A(), A()), S(A((3,), B), A((2, 1)), A(())), S(A(dtype=B), A(dtype=I64), 2.5),
                    S(A(dtype=B), 1.0, 0), S(A(dtype=B), True, False), S(A(dtype=B), A(), A(dtype=F64)),
                    S(A(dtype=I64), A(), A()), S(A((0, 3), B), 1, A((3,)))]
SAMPLES["clamp"] = [S(A(), -0.5, 0.5), S(A(), min=0.0), S(A(), max=0), S(I5, 0.5), S(A(), A((3,)), A((2, 1))),
                    S(A(), 2.0, 1.0), S(BF5, -1, 1), S(A()), S(I5, -2, 3), S(A(layout="t"), A((), F64))]
SAMPLES["masked_fill"] = [S(A(), A(dtype=B), 1.5), S(A((3,)), A((2, 3), B), -1.0), S(I5, B5, -1.5), S(B5, B5, 2),
                          S(A(), A((3,), B), A((), F64)), S(A(), A(dtype=B), A((1,))), S(A(), A(dtype=I64), 1.0),
                          S(BF5, B5, 1e9)]
SAMPLES["lerp"] = [S(A(), A(), 0.3), S(A(), A(), 0.7), S(A((3,)), A((2, 3)), A((2, 1))), S(BF5, BF5, 0.8),
                   S(A(), A(dtype=F64), 0.5), S(I5, I5, 0.5), S(A(), A(), A((), F64)),
                   S(F64_5, F64_5, A((5,), F64, low=-1, high=2))]
SAMPLES["addcmul"] = [S(A(), A(), A((3,))), S(A(), A(), A(), value=0.5), S(I5, I5, I5, value=0.5),
                      S(I5, A((5,)), A((5,))), S(BF5, BF5, BF5, value=-2)]
SAMPLES["addcdiv"] = [S(A(), A(), A((3,), nz=True)), S(A(), A(), A(nz=True), value=0.5),
                      S(I5, A((5,)), A((5,), nz=True)), S(A(), I5, A((5,), I64, nz=True)),
                      S(BF5, BF5, A((5,), BF16, nz=True), value=-2)]
_SPECIAL = (float("nan"), float("inf"), -float("inf"), 1.5, -2.0)
SAMPLES["nan_to_num"] = [S(A(values=_SPECIAL)), S(A(dtype=BF16, values=_SPECIAL)), S(I5), S(B5), S(A()),
                         S(A(values=_SPECIAL), nan=1.0, posinf=2.0, neginf=-3),
                         S(A(dtype=F64, values=_SPECIAL), posinf=1e300)]
SAMPLES["to"] = [S(A(), F16), S(A(), F32), S(I5, F32, copy=True), S(A(), "cpu"), S(A(), torch.device("cpu"), F64),
                 S(A(), dtype=BF16), S(I5, A((), F64)), S(A(), F32, copy=True), S(A(), dtype=F64, non_blocking=True),
                 S(A(layout="t"), B), S(A(), F16, memory_format=torch.channels_last)]
SAMPLES.update({m: [S(A()), S(I5), S(BF5)] for m in LC._CONVERSIONS})
SAMPLES["type_as"] = [S(I5, A((2,))), S(A(), A(()))]
SAMPLES["clamp_min"] = SAMPLES["clamp_max"] = [S(A(), 0.0), S(I5, 0.5), S(A(), A((3,)))]
#: Fronts whose argument forms differ from the op they record.
FRONT_SAMPLES = {torch.Tensor.where: [S(A(), A(dtype=B), A()), S(I5, B5, 2.5)]}


def op_name(fn) -> str:
    """The op a callable records (its torch name for fronts such as Tensor.to)."""
    entry = TORCH_CALLS[fn]
    return entry.symbol.name if hasattr(entry, "symbol") else entry.__name__


def cases(callables, samples, fronts, inplace_names=()):
    """(id, callable, sample spec, in-place?) for every callable: ``fronts[fn]`` if given, else
    the op's first callable gets all its samples, the others (methods, aliases, in-place
    variants) the first few with a tensor first."""
    out, seen = [], set()
    for fn in callables:
        name = op_name(fn)
        inplace = name.endswith("_") and name[:-1] in samples or name in inplace_names
        base = name[:-1] if name.endswith("_") and name[:-1] in samples else name
        specs = fronts.get(fn) or samples.get(base, [])
        if fn in fronts or (base not in seen and not inplace):
            seen.add(base)
        else:
            specs = [s for s in specs if isinstance(s[0][0], (A, torch.Tensor))][:4 if inplace else 2]
        qual = f"{getattr(fn, '__module__', None) or 'Tensor'}.{fn.__name__}".replace("torch._C._", "")
        out += [pytest.param(fn, s, inplace, id=f"{qual}-{i}-{s[0]}-{s[1] or ''}") for i, s in enumerate(specs)]
    return out


CALLABLES = L.CALLABLES + LC.CALLABLES


@pytest.mark.parametrize("fn, spec, inplace", cases(CALLABLES, SAMPLES, FRONT_SAMPLES))
def test_op(fn, spec, inplace):
    run_sample(fn, spec, inplace)


def test_every_registered_callable_has_samples():
    covered = {p.values[0] for p in cases(CALLABLES, SAMPLES, FRONT_SAMPLES)}
    missing = [f"{getattr(f, '__qualname__', f)} (op {op_name(f)})" for f in CALLABLES if f not in covered]
    assert not missing, f"registered torch callables without samples: {missing}"
    assert len(CALLABLES) > 250


# ---------------------------------------------------------------- operators on proxies

_MINE = {k for k, (key, _, _) in OPERATORS.items() if key not in ("matmul", "__getitem__", "__setitem__")}
_INT_KEYS = ("bitwise", "floor_divide", "remainder")


def _operator_cases():
    out = []
    for dunder in sorted(_MINE):
        key, kind, _ = OPERATORS[dunder]
        dtype = I64 if key.startswith(_INT_KEYS) else F32
        if kind == "unary":
            fn = getattr(operator, dunder)
            specs = [(A(dtype=d),) for d in (F32, I64, B)]
        elif kind == "reflected":
            fwd = getattr(operator, dunder.replace("__r", "__", 1))
            fn = (lambda f: lambda a, b: f(b, a))(fwd)  # `b <op> a` with a number b: Python calls a.__r<op>__(b)
            specs = [(A(dtype=dtype, nz=True), 3), (A((5,), F16, nz=True), 2.5), (A((), I64, nz=True), 2)]
        else:
            fn = getattr(operator, dunder)
            specs = [(A(dtype=dtype), A((3,), dtype, nz=True)), (A(dtype=dtype), 2),
                     (A((5,), I64), A((5,), I64, nz=True)), (A((5,), B), A((5,), B))]
        out += [pytest.param(fn, s, id=f"{dunder}-{s}") for s in specs]
    return out


@pytest.mark.parametrize("fn, args", _operator_cases())
def test_operator(fn, args):
    # loose: an operator raises what its op raises, while torch's dunders sometimes differ (`~` on
    # floats is a TypeError in eager, torch.bitwise_not on floats a NotImplementedError)
    run_sample(fn, (args, {}), inplace=True, loose=True)


def test_every_operator_has_an_op():
    assert {k for k, (key, _, _) in OPERATORS.items() if key in TENSOR_METHODS} >= _MINE


def test_reflected_operators_record_number_first():
    trace = Trace("fn")
    t = trace.add_input(torch.ones(2))
    with tracing(trace):
        out = 2 - t
    assert trace.bound_symbols[-1].args[0] == 2 and trace.bound_symbols[-1].sym.id == "ltorch.sub"
    assert isinstance(out, TensorProxy)


# ---------------------------------------------------------------- type promotion

_DTYPES = [B, U8, I32, I64, F16, BF16, F32, F64, C64]


@pytest.mark.parametrize("a, b", list(itertools.product(_DTYPES, [*_DTYPES, True, 3, 2.5, 1j])))
def test_result_dtype_matches_torch(a, b):
    trace = Trace("fn")
    for shape_a, shape_b in [((2,), (2,)), ((), (2,)), ((2,), ())]:
        x = torch.zeros(shape_a, dtype=a)
        y = torch.zeros(shape_b, dtype=b) if isinstance(b, torch.dtype) else b
        px = trace.add_input(x)
        py = trace.add_input(y) if isinstance(y, torch.Tensor) else y
        assert result_dtype(px, py) == torch.result_type(x, y), (x.shape, y)


@pytest.mark.parametrize("a, b, expected", [(A((3,), F32), 1.5, F32), (A((3,), I64), 1.5, F32), (A((3,), B), True, B),
                                            (A((3,), B), 1, I64), (A((3,), I32), 7, I32), (A((3,), F16), 0.1, F16),
                                            (A((3,), I64), A((), F64), F64), (A((3,), F16), A((), F64), F16)])
def test_weak_scalar_promotion(a, b, expected):
    torch.manual_seed(0)
    trace = check_op(torch.add, build(a), build(b))
    assert trace.output.dtype == expected


def test_default_dtype_decides_int_to_float():
    previous = torch.get_default_dtype()
    torch.set_default_dtype(torch.float64)
    try:
        assert check_op(torch.add, torch.arange(3), 1.5).output.dtype == F64
        assert check_op(torch.exp, torch.arange(3)).output.dtype == F64
    finally:
        torch.set_default_dtype(previous)


@pytest.mark.parametrize("dtype", [C64, F32])
def test_real_and_imag_are_properties(dtype):
    run_sample(lambda t: t.real, ((A((5,), dtype),), {}), inplace=True)
    run_sample(lambda t: t.imag, ((A((5,), dtype),), {}), inplace=True)


def test_where_with_only_a_condition_explains():
    with pytest.raises(NotImplementedError, match="depends on tensor values"):
        check_op(torch.where, torch.ones(3, dtype=B))


def test_inplace_ops_cannot_grow_their_input():
    with pytest.raises(RuntimeError, match="doesn't match the broadcast shape"):
        check_traced(torch.Tensor.fmod_, torch.ones(4, 1), torch.ones(1, 5))


def test_inplace_ops_are_tagged_and_have_no_decomposition():
    for name in ("add_", "clamp_", "masked_fill_", "div_", "exp_"):
        sym = L.ENTRIES[name].symbol
        assert "inplace" in sym.tags and sym.decomposition is None, name


# ---------------------------------------------------------------- devices and prim errors

def test_cpu_scalar_tensor_joins_another_device():
    # 'meta' stands in for an accelerator: torch lets 0-dim CPU tensors meet tensors on any device
    trace = check_op(torch.add, torch.ones(2, 3, device="meta"), torch.tensor(1.5, dtype=F64), random=True)
    assert [b.sym.id for b in trace.bound_symbols[0].subsymbols][0] == "prims.device_put"
    trace = check_op(torch.Tensor.to, torch.ones(2), "meta", random=True)
    assert trace.output.device == torch.device("meta")


@pytest.mark.parametrize("call, error, match", [
    (lambda p, t, u, v: p.add(t, u), ValueError, "one shape, dtype and device"),
    (lambda p, t, u, v: p.add(u, 1.5), TypeError, "promoted dtype"),
    (lambda p, t, u, v: p.exp(u), NotImplementedError, "floating-point or complex tensors"),
    (lambda p, t, u, v: p.where(t, v, v), ValueError, "one shape and device"),
    (lambda p, t, u, v: p.where(u, u, u), TypeError, "bool tensor"),
    (lambda p, t, u, v: p.broadcast_in_dim(u, shape=(3, 2, 3), broadcast_dimensions=(0, 2)), ValueError, "size 2"),
    (lambda p, t, u, v: p.broadcast_in_dim(u, shape=(3, 2), broadcast_dimensions=(1, 0)), ValueError, "increasing"),
    (lambda p, t, u, v: p.convert_element_type(u, dtype="float32"), TypeError, "torch.dtype"),
])
def test_prim_metas_explain_misuse(call, error, match):
    from thunder_core.ops import prims

    trace = Trace("fn")
    t, u, v = (trace.add_input(torch.ones(s, dtype=d)) for s, d in (((2, 3), B), ((2, 3), I64), ((3,), I64)))
    with tracing(trace), pytest.raises(error, match=match):
        call(prims, t, u, v)
