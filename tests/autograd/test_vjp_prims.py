"""The VJP rules of the primitives (thunder_core/transforms/vjp_prims*.py) against PyTorch's
autograd on each prim's torch implementation, in float64, with random cotangents.

Each sample is one trace whose only bound symbol is the prim; it is split (forward and
backward traces), both run with the torch executor's implementations, and the backward's
gradients are compared with ``torch.autograd.grad`` of the eager prim. Samples cover the
edge cases where eager makes a choice (ties, zeros, number operands, broadcast batch dims).
"""

from __future__ import annotations

import pytest
import torch

from thunder_core.ops.prims_number import NUMBER_OPS

from thunder_core.ir import Trace, tracing, verify
from thunder_core.ops.registry import PRIMS
from thunder_core.transforms import vjp as V
from thunder_core.transforms.autograd import split

pytest.importorskip("thunder_executor_torch")
from thunder_executor_torch import implementations  # noqa: E402
from thunder_executor_torch.prims import IMPLS  # noqa: E402

F64, I64 = torch.float64, torch.int64
_GEN = torch.Generator().manual_seed(0)


def r(*shape, low=-2.0, high=2.0, dtype=F64):
    return (torch.rand(*shape, generator=_GEN, dtype=dtype) * (high - low) + low).requires_grad_()


def pos(*shape):
    return r(*shape, low=0.5, high=2.0)


def t(values, dtype=F64):
    return torch.tensor(values, dtype=dtype).requires_grad_()


def idx(values):
    return torch.tensor(values, dtype=I64)


def S(pid, *args, fallback=False, marks=(), **kwargs):
    """A sample of ``prims.<pid>``; ``fallback``: the rule hands this case to torch_vjp (complex)."""
    return pytest.param(f"prims.{pid}", args, kwargs, fallback, id=pid, marks=marks)


#: torch 2.10's autograd has no derivative for nextafter (NotImplementedError), so the rule
#: cannot be compared with it there; torch 2.13 has one
_NO_NEXTAFTER_GRAD = (pytest.mark.xfail(reason="torch 2.10's autograd has no derivative for nextafter "
                                               "(NotImplementedError): nothing to compare the rule with",
                                        raises=NotImplementedError, strict=True)
                      if torch.__version__.startswith("2.10.") else ())


_DOMAIN = {"log log1p log2 log10 sqrt rsqrt reciprocal lgamma digamma": pos,
           "asin acos atanh erfinv": lambda *s: r(*s, low=-0.9, high=0.9),
           "acosh": lambda *s: r(*s, low=1.2, high=3.0)}
_UNARY = ("exp exp2 expm1 log log1p log2 log10 sqrt rsqrt sin cos tan asin acos atan sinh cosh tanh asinh acosh atanh "
          "sigmoid reciprocal erf erfc erfinv lgamma digamma abs neg sign floor ceil round trunc").split()


def _make(name):
    for names, make in _DOMAIN.items():
        if name in names.split():
            return make
    return r


TIES = t([1.0, 2.0, 3.0, 0.0, -1.0])
SAMPLES = [
    *[S(n, _make(n)(2, 3)) for n in _UNARY],
    S("abs", t([0.0, -1.5, 2.0])),  # eager: 0 at 0
    S("add", r(2, 3), r(2, 3)), S("add", r(2, 3), 2.5),
    S("sub", r(2, 3), r(2, 3)), S("sub", 1.5, r(2, 3)),
    S("mul", r(2, 3), r(2, 3)), S("mul", r(2, 3), 3.0),
    S("mul", torch.randn(2, 3, dtype=torch.complex128, requires_grad=True),
      torch.randn(2, 3, dtype=torch.complex128, requires_grad=True), fallback=True),
    S("div", r(2, 3), pos(2, 3)), S("div", 2.0, pos(2, 3)), S("div", r(2, 3), 4.0),
    S("pow", pos(2, 3), r(2, 3)), S("pow", r(2, 3), 3), S("pow", pos(2, 3), 0.5), S("pow", r(2, 3), 0),
    S("pow", 2.0, r(2, 3)), S("pow", 0.0, t([2.0, 0.0, -1.0])),
    S("pow", t([0.0, 0.0, 2.0, 0.0]), t([0.0, 2.0, 0.0, -1.0])),  # eager's zeros at x == 0 / y == 0
    S("maximum", TIES, t([1.0, 5.0, 0.0, 0.0, 2.0])), S("maximum", r(2, 3), 0.0),  # ties split equally
    S("minimum", TIES, t([1.0, 5.0, 0.0, 0.0, 2.0])), S("minimum", 0.5, r(2, 3)),
    S("atan2", r(2, 3), r(2, 3)), S("hypot", r(2, 3), r(2, 3)),
    S("copysign", t([0.0, -1.0, 2.0, 3.0]), t([1.0, 1.0, -2.0, 0.0])),
    S("nextafter", t([1.0, 2.0, -1.0, 0.0]), t([1.0, 3.0, -2.0, 0.0]), marks=_NO_NEXTAFTER_GRAD),
    S("fmod", r(2, 3), t([[0.7, -0.6, 1.5], [1.1, -2.0, 0.3]])), S("fmod", r(2, 3), 0.7),
    S("remainder", r(2, 3), t([[0.7, -0.6, 1.5], [1.1, -2.0, 0.3]])), S("remainder", r(2, 3), -0.7),
    S("where", torch.tensor([[True, False, True], [False, False, True]]), r(2, 3), r(2, 3)),
    S("where", torch.tensor([True, False]), r(2), 0.0),
    S("convert_element_type", r(2, 3, dtype=torch.float32), dtype=F64),
    S("convert_element_type", r(2, 3), dtype=torch.float32),
    S("convert_element_type", r(2, 3), dtype=torch.complex128),
    S("device_put", r(2, 3), device=torch.device("cpu")),
    S("broadcast_in_dim", r(3), shape=(2, 3), broadcast_dimensions=(1,)),
    S("broadcast_in_dim", r(2, 1), shape=(2, 4, 3), broadcast_dimensions=(0, 2)),
    S("broadcast_in_dim", r(1, 3), shape=(1, 3), broadcast_dimensions=(0, 1)),
    S("reshape", r(2, 3), shape=(3, 2)), S("squeeze", r(2, 1, 3), dims=(1,)),
    S("transpose", r(2, 3, 4), permutation=(2, 0, 1)),
    S("slice", r(5, 6), start_indices=(1, 0), end_indices=(4, 6), strides=(2, 4)),
    S("slice", r(4, 3), start_indices=(1, 1), end_indices=(3, 3)),
    S("pad", r(3, 4), 0.5, padding_config=((1, 2, 1), (-1, 0, 0))),
    S("pad", r(3, 4), 0.0, padding_config=((0, -2, 2), (2, -1, 0))),
    S("cat", [r(2, 3), r(1, 3), r(3, 3).detach()], dim=0),
    S("flip", r(2, 3, 2), dims=(0, 2)),
    S("take", r(4, 3), idx([0, 2, 2]), dim=0), S("take", r(2, 3), idx([1, 1, 0, 2]), dim=1),
    S("gather", r(3, 4), idx([[0, 1, 2, 0], [2, 2, 0, 1]]), dim=0),
    S("scatter_add", r(3, 4), idx([[0, 1, 2], [2, 1, 0]]), r(2, 3), dim=0),
    S("scatter_reduce", r(3, 4), idx([[0, 1, 2], [0, 1, 0]]), r(2, 3), dim=0, reduce="amax"),
    S("scatter_reduce", r(2, 4), idx([[0, 0, 3], [1, 3, 3]]), r(2, 3), dim=1, reduce="amin"),
    # ties: an element of the target equal to the maximum, and two equal sources: the gradient is shared
    S("scatter_reduce", t([[2.0, 1.0, 0.0]]), idx([[0, 0, 1, 1]]), t([[2.0, -1.0, 3.0, 3.0]]), dim=1, reduce="amax"),
    S("scatter_reduce", r(3, 4), idx([[0, 1, 2], [0, 1, 0]]), r(2, 3), dim=0, reduce="prod"),
    # products with zeros: one zero in a slot (its gradient is the product of the others), two, one in the target
    S("scatter_reduce", t([[1.5, 0.0, 2.0]]), idx([[0, 0, 1, 2, 2]]), t([[0.0, 3.0, 2.0, 0.0, 0.0]]), dim=1,
      reduce="prod"),
    S("sum", r(2, 3, 4), dims=(0, 2)), S("sum", r(2, 3), dims=()), S("sum", r(2, 3), dims=(0, 1)),
    S("prod", t([[1.5, 0.0, 2.0], [0.0, -1.0, 0.0], [0.5, 2.0, -3.0]]), dims=(1,)),  # one zero, two zeros, none
    S("prod", t([[1.5, 0.0, 2.0], [3.0, -1.0, 0.5]]), dims=(0, 1)), S("prod", r(2, 3), dims=(0,)),
    S("amax", t([[1.0, 3.0, 3.0], [2.0, -1.0, 0.0]]), dims=(1,)),  # ties share the gradient
    S("amin", t([[1.0, 1.0, 1.0], [2.0, -1.0, 0.0]]), dims=(0, 1)),
    S("var", r(3, 4), dims=(1,), correction=1), S("var", r(3, 4), dims=(0, 1), correction=0),
    S("cumsum", r(3, 4), dim=1), S("cumsum", t(1.5), dim=0),
    S("cumprod", r(3, 4), dim=0), S("cumprod", t([[1.0, 0.0, 2.0, 0.0, 3.0], [0.5, 2.0, 0.0, 1.5, -1.0]]), dim=1),
    S("topk", r(3, 5), k=2, dim=1, largest=True, sorted=True),
    S("topk", r(4, 3), k=3, dim=0, largest=False, sorted=False),
    S("sort", r(3, 4), dim=0, descending=False, stable=True), S("sort", r(5), dim=0, descending=True, stable=False),
    S("matmul", r(2, 3), r(3, 4)), S("matmul", r(3), r(3, 4)), S("matmul", r(2, 3), r(3)), S("matmul", r(3), r(3)),
    S("matmul", r(2, 2, 3), r(3, 4)), S("matmul", r(2, 3), r(4, 3, 5)), S("matmul", r(5, 1, 2, 3), r(4, 3, 2)),
    S("matmul", r(3), r(2, 3, 4)), S("matmul", r(2, 4, 3), r(3)),
    S("convolution", r(1, 2, 5, 5), r(3, 2, 3, 3), r(3), stride=(2, 1), padding=(1, 0), dilation=(1, 2),
      transposed=False, output_padding=(0, 0), groups=1),
    S("convolution", r(2, 4, 6), r(6, 2, 3), None, stride=(1,), padding=(1,), dilation=(1,), transposed=False,
      output_padding=(0,), groups=2),
    S("convolution", r(1, 2, 3, 3), r(2, 3, 2, 2), r(3), stride=(2, 2), padding=(0, 1), dilation=(1, 1),
      transposed=True, output_padding=(1, 0), groups=1),
]


def _proxify(trace, x, inputs):
    if isinstance(x, torch.Tensor):
        inputs.append(x)
        return trace.add_input(x)
    if isinstance(x, (list, tuple)):
        return type(x)(_proxify(trace, y, inputs) for y in x)
    return x


def _swap(x, it):
    if isinstance(x, torch.Tensor):
        return next(it)
    if isinstance(x, (list, tuple)):
        return type(x)(_swap(y, it) for y in x)
    return x


def _flat(x):
    if isinstance(x, torch.Tensor):
        return [x]
    if isinstance(x, (list, tuple)):
        return [t for y in x for t in _flat(y)]
    return []


def split_prim(pid, args, kwargs):
    """(split, real inputs) for a trace calling the prim once."""
    trace = Trace("prim")
    inputs: list = []
    with tracing(trace):
        pargs = _proxify(trace, list(args), inputs)
        trace.output = PRIMS[pid](*pargs, **kwargs)
    s = split(trace)
    verify(s.forward)
    verify(s.backward)
    return s, inputs


def run_split(s, inputs, cotangents):
    impls = implementations()
    _, saved = s.forward.python_callable(impls)(*inputs)
    return s.backward.python_callable(impls)(*saved, *cotangents)


@pytest.mark.parametrize("pid, args, kwargs, fallback", SAMPLES)
def test_rule_matches_torch_autograd(pid, args, kwargs, fallback):
    assert V.rule_for(pid) is not None, f"{pid} has no VJP rule"
    s, inputs = split_prim(pid, args, kwargs)
    if not fallback:
        assert "autograd.torch_vjp" not in str(s.backward), f"{pid}'s rule was not used:\n{s.backward}"
    cotangents = [torch.randn(p.shape, dtype=p.dtype, generator=_GEN) for p in s.cotangent_of]
    got = run_split(s, inputs, cotangents)

    leaves = [x.detach().requires_grad_(x.requires_grad) for x in inputs]
    out = IMPLS[pid](*_swap(list(args), iter(leaves)), **kwargs)
    outs = [o for o in _flat(out) if o.requires_grad]
    wanted = [x for x in leaves if x.requires_grad]
    expected = iter(torch.autograd.grad(outs, wanted, cotangents, allow_unused=True))
    assert len(got) == len(inputs)
    for k, (x, g) in enumerate(zip(leaves, got)):
        if not x.requires_grad:
            assert g is None, f"input {k} does not require grad but got a gradient"
            continue
        e = next(expected)
        e = torch.zeros_like(x) if e is None else e
        assert g is not None, f"input {k}: no gradient, eager has {e}"
        assert g.dtype == x.dtype and g.shape == x.shape, \
            f"input {k}: {g.dtype}{list(g.shape)} vs {x.dtype}{list(x.shape)}"
        torch.testing.assert_close(g, e, equal_nan=True, msg=lambda m: f"{pid} input {k}: {m}")


def test_scatter_add_src_larger_than_index():
    # eager refuses this backward (its gradient has index's shape); the elements of src that
    # are never read get zero gradient
    a, src, index = r(3, 4), r(2, 4), idx([[0, 1, 2], [2, 1, 0]])
    s, inputs = split_prim("prims.scatter_add", (a, index, src), {"dim": 0})
    g = torch.randn(3, 4, dtype=F64, generator=_GEN)
    ga, _, gsrc = run_split(s, inputs, [g])
    torch.testing.assert_close(ga, g)
    want = torch.zeros(2, 4, dtype=F64)
    want[:, :3] = g.gather(0, index)
    torch.testing.assert_close(gsrc, want)


def test_unused_output_of_topk_gets_no_cotangent():
    s, inputs = split_prim("prims.topk", (r(3, 5),), dict(k=2, dim=1, largest=True, sorted=True))
    assert len(s.cotangent_of) == 1 and s.cotangent_of[0].dtype == F64  # the indices are not differentiable


#: prims that have no rule, and why (a new prim must be added to a rule or here)
NO_RULE = {
    **{f"prims.{n}": "not differentiable: bool output" for n in
       "eq ne lt le gt ge logical_and logical_or logical_xor logical_not isnan isinf isfinite signbit".split()},
    **{f"prims.{n}": "integer-only" for n in
       "bitwise_and bitwise_or bitwise_xor bitwise_not bitwise_left_shift bitwise_right_shift".split()},
    "prims.argmax": "int64 output", "prims.argmin": "int64 output",
    **{f"prims.{n}": "creation: no tensor input" for n in "iota full empty uniform normal randint".split()},
    "prims.bernoulli_noise": "random noise: eager's mask has no gradient either",
    "prims.floor_divide": "eager raises 'derivative for aten::floor_divide is not implemented'; so does the fallback",
    "prims.real": "complex: the PyTorch fallback", "prims.imag": "complex: the PyTorch fallback",
    **{f"prims.py_{n}": "Python numbers: no gradient flows through them" for n in NUMBER_OPS},
    "prims.py_dim_size": "a tensor's size: an int, no gradient",
}


def test_every_prim_has_a_rule_or_a_reason():
    V.rule_for("prims.add")  # loads the tables
    missing = {p for p in PRIMS if V.rule_for(p) is None}
    assert missing == set(NO_RULE), (f"prims without a rule and without a reason: {sorted(missing - set(NO_RULE))}; "
                                     f"listed but having a rule: {sorted(set(NO_RULE) - missing)}")
    tested = {p.values[0] for p in SAMPLES}
    assert tested == set(PRIMS) - set(NO_RULE), f"rules without samples: {sorted(set(PRIMS) - set(NO_RULE) - tested)}"


def test_real_and_imag_use_the_fallback_and_match_eager():
    z = torch.randn(2, 3, dtype=torch.complex128, requires_grad=True)
    for pid in ("prims.real", "prims.imag"):
        s, inputs = split_prim(pid, (z,), {})
        assert "autograd.torch_vjp" in str(s.backward)
        g = torch.randn(2, 3, dtype=F64, generator=_GEN)
        got, = run_split(s, inputs, [g])
        want, = torch.autograd.grad(IMPLS[pid](z), z, g)
        torch.testing.assert_close(got, want)
