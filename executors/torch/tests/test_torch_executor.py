"""The ``torch`` executor (per-op eager, the fallback): it implements every symbol, declares
what the README says, and its primitive implementations agree with eager PyTorch, called
alone and through the decompositions of torch-level ops."""

import dataclasses

import pytest
import torch

import thunder_core as tc
from thunder_core.extend import API_VERSION, profile, prims, symbols
from thunder_executor_torch.plugin import thunder_core_executors

EXECUTORS = {ex.name: ex for ex in thunder_core_executors()}
TORCH = EXECUTORS["torch"]
IMPLS = TORCH.implementations()


def test_every_symbol_and_primitive_has_an_implementation():
    assert prims() and symbols()
    assert sorted(set(prims()) - set(IMPLS)) == []
    assert sorted(set(symbols()) - set(IMPLS)) == []
    assert {"autograd.torch_vjp", "autograd.add_cotangent"} <= set(IMPLS)


def test_declared_contract():
    assert TORCH.fallback and not TORCH.fuses and TORCH.claim is None and TORCH.api_version == API_VERSION
    assert [TORCH.overhead_us(profile(p)) for p in ("cpu", "a100", "h100", "b200")] == [1.0, 8.0, 8.0, 8.0]
    inductor = EXECUTORS["inductor"]
    assert inductor.fuses and inductor.compiles and not inductor.fallback and inductor.claim is not None
    assert not TORCH.compiles
    assert dict(inductor.implementations()) == {}
    assert [inductor.overhead_us(profile(p)) for p in ("cpu", "h100")] == [1.0, 8.0]


def _ints(*shape):
    return torch.randint(-20, 20, shape)


a, b, v = torch.randn(3, 4), torch.randn(3, 4), torch.randn(4)
i, j = _ints(3, 4), _ints(3, 4).clamp(min=1)
CASES = {  # prim call -> what eager computes
    "add": (lambda: IMPLS["prims.add"](a, b), lambda: a + b),
    "sub, a number first": (lambda: IMPLS["prims.sub"](2.0, a), lambda: 2.0 - a),
    "div of floats": (lambda: IMPLS["prims.div"](a, b), lambda: a / b),
    "div of integers truncates": (lambda: IMPLS["prims.div"](i, j), lambda: torch.div(i, j, rounding_mode="trunc")),
    "floor_divide": (lambda: IMPLS["prims.floor_divide"](i, j), lambda: i // j),
    "where": (lambda: IMPLS["prims.where"](a > 0, a, b), lambda: torch.where(a > 0, a, b)),
    "convert_element_type": (lambda: IMPLS["prims.convert_element_type"](a, dtype=torch.float16), lambda: a.half()),
    "broadcast_in_dim": (lambda: IMPLS["prims.broadcast_in_dim"](v, shape=(3, 4), broadcast_dimensions=(1,)),
                         lambda: v.expand(3, 4)),
    "sum": (lambda: IMPLS["prims.sum"](a, dims=(1,)), lambda: a.sum(1)),
    "var": (lambda: IMPLS["prims.var"](a, dims=(0,), correction=1), lambda: a.var(0)),
    "amax": (lambda: IMPLS["prims.amax"](a, dims=(0,)), lambda: a.amax(0)),
    "cumsum": (lambda: IMPLS["prims.cumsum"](a, dim=1), lambda: a.cumsum(1)),
    "transpose": (lambda: IMPLS["prims.transpose"](a, permutation=(1, 0)), lambda: a.t()),
    "reshape": (lambda: IMPLS["prims.reshape"](a, shape=(2, 6)), lambda: a.reshape(2, 6)),
    "slice": (lambda: IMPLS["prims.slice"](a, start_indices=(0, 1), end_indices=(3, 4), strides=(2, 1)),
              lambda: a[0:3:2, 1:4]),
    "cat": (lambda: IMPLS["prims.cat"]([a, b], dim=0), lambda: torch.cat([a, b], 0)),
    "flip": (lambda: IMPLS["prims.flip"](a, dims=(0,)), lambda: a.flip(0)),
    "matmul": (lambda: IMPLS["prims.matmul"](a, b.t()), lambda: a @ b.t()),
}


@pytest.mark.parametrize("case", CASES)
def test_primitives_match_eager(case):
    got, want = CASES[case]
    out, expected = got(), want()
    assert out.dtype == expected.dtype and out.shape == expected.shape
    torch.testing.assert_close(out, expected, rtol=0, atol=0)


def test_convert_element_type_copies_even_to_the_same_dtype():
    out = IMPLS["prims.convert_element_type"](a, dtype=a.dtype)
    assert torch.equal(out, a) and out.data_ptr() != a.data_ptr()


#: the torch executor with only its primitives (and the autograd symbols): every torch-level
#: op must be decomposed, so these functions run on prims alone
PRIMS_ONLY = dataclasses.replace(TORCH, name="torch-prims", implementations=lambda: {
    k: f for k, f in IMPLS.items() if not k.startswith("ltorch.")})
F = torch.nn.functional
THROUGH_PRIMS = {
    "gelu": lambda x: F.gelu(x),
    "silu * tanh": lambda x: F.silu(x) * torch.tanh(x),
    "softmax": lambda x: torch.softmax(x, -1),
    "layer_norm": lambda x: F.layer_norm(x, (x.shape[-1],)),
    "mean, var": lambda x: (x.mean(0), x.var(1)),
    "where, clamp": lambda x: torch.where(x > 0, x.clamp(max=0.5), -x),
    "shape ops": lambda x: x.t().reshape(-1, 2)[1:, :].flip(0),
    "integer floor division": lambda x: (x * 10).to(torch.int64) // 3,
    "matmul": lambda x: x @ x.t(),
    "cat, cumsum": lambda x: torch.cat([x, x.cumsum(1)], 0),
}


@pytest.mark.parametrize("name", THROUGH_PRIMS)
def test_decompositions_run_on_the_primitive_implementations_like_eager(name):
    fn = THROUGH_PRIMS[name]
    x = torch.randn(6, 8)
    jf = tc.jit(fn, executors=[PRIMS_ONLY])
    torch.testing.assert_close(jf(x), fn(x))
    assert {b.sym.id.split(".")[0] for b in tc.last_traces(jf)[-1].bound_symbols} == {"prims"}


def test_gradients_through_the_primitive_implementations_match_eager():
    def fn(x, w):
        return (F.gelu(x @ w) * torch.sigmoid(x @ w)).sum()

    x, w = torch.randn(4, 8, requires_grad=True), torch.randn(8, 8, requires_grad=True)
    xe, we = (t.detach().clone().requires_grad_() for t in (x, w))
    jf = tc.jit(fn, executors=[PRIMS_ONLY])
    jf(x, w).backward()
    fn(xe, we).backward()
    torch.testing.assert_close(x.grad, xe.grad)
    torch.testing.assert_close(w.grad, we.grad)


def test_tc_jit_with_the_torch_executor_matches_eager():
    def fn(x, w, b):
        return F.layer_norm(F.gelu(x @ w + b), (8,)).softmax(-1)

    x, w, b = torch.randn(4, 8), torch.randn(8, 8), torch.randn(8)
    jf = tc.jit(fn, executors=["torch"])
    torch.testing.assert_close(jf(x, w, b), fn(x, w, b))
    assert set(jf._last.executors_used.values()) == {"torch"}
