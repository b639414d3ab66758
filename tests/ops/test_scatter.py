"""The in-place scatters (thunder_core/ops/ltorch_scatter.py: ``x.index_add_(...)``,
``scatter_``, ``index_put_``...) through tc.jit against eager: the result, the write into the
target (the result is the target itself, as eager's), gradients through autograd's functional
form, and no opaque call. The out-of-place scatters are checked by PyTorch's OpInfo samples
(tests/ops/test_opdb.py) and gradcheck (tests/autograd/test_gradcheck_symbols.py)."""

from __future__ import annotations

import warnings

import pytest
import torch

import thunder_core as tc

pytest.importorskip("thunder_executor_torch")

_I = torch.tensor([2, 0])
_R = torch.tensor([[0, 0], [2, 1]])
#: name -> the write of an (2, 3) target y from a (2, 3) source s
WRITES = {
    "index_add_": lambda y, s: y.index_add_(1, _I, s[:, :2], alpha=2),
    "index_copy_": lambda y, s: y.index_copy_(1, _I, s[:, :2]),
    "index_fill_": lambda y, s: y.index_fill_(1, _I, 0.5),
    "index_reduce_": lambda y, s: y.index_reduce_(1, torch.tensor([2, 0, 2]), s, "prod", include_self=False),
    "scatter_reduce_": lambda y, s: y.scatter_reduce_(1, _R, s[:, :2], "mean"),
    "masked_scatter_": lambda y, s: y.masked_scatter_(torch.tensor([True, False, True]), s),
    "put_": lambda y, s: y.put_(torch.tensor([1, 4, 1]), s[0], accumulate=True),
    "index_put_": lambda y, s: y.index_put_((torch.tensor([1, 0]),), s[0]),
    "scatter_": lambda y, s: y.scatter_(0, torch.tensor([[1, 0, 1]]), s[:1]),
    "scatter_add_": lambda y, s: y.scatter_add_(1, _R, s[:, :2]),
}


def _program(write):
    def f(x, s):
        y = x * 1  # an intermediate: writing into it needs no input of the jitted function to change
        out = write(y, s)
        return y * 2, out, y
    return f


def _grads(outs, leaves):
    return torch.autograd.grad(outs[0].sum() + outs[1].sum(), leaves, allow_unused=True)


@pytest.mark.parametrize("name", sorted(WRITES))
def test_inplace_scatter(name):
    f = _program(WRITES[name])
    g = torch.Generator().manual_seed(0)
    x, s = (torch.randn(2, 3, dtype=torch.float64, generator=g).requires_grad_() for _ in range(2))
    jf = tc.jit(f, executors=["torch"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # index_reduce is in beta
        got, expected = jf(x, s), f(x, s)
    torch.testing.assert_close(got[:2], expected[:2])
    assert got[1] is got[2] and expected[1] is expected[2]  # the write returns its target
    for a, b in zip(_grads(got, (x, s)), _grads(expected, (x, s))):
        assert (a is None) == (b is None)
        if a is not None:
            torch.testing.assert_close(a, b)
    assert tc.last_backward_traces(jf), tc.explain(jf)
    bsyms = tc.last_traces(jf)[0].bound_symbols
    assert f"ltorch.{name}" in {b.sym.id for b in bsyms}
    assert not [b.sym.id for b in bsyms if "opaque" in b.sym.tags]


def test_inplace_scatter_writes_an_input():
    """Written into an argument of the jitted function (no gradient needed), as eager does."""
    x, jx = torch.zeros(2, 3), torch.zeros(2, 3)
    src = torch.arange(6.0).reshape(2, 3)
    f = lambda t, s: t.scatter_add_(1, _R, s[:, :2])  # noqa: E731
    out = tc.jit(f, executors=["torch"])(jx, src)
    assert out is jx
    torch.testing.assert_close(jx, f(x, src))
