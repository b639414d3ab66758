"""The min-cut choice of saved vs recomputed values (thunder_core/transforms/remat.py)."""

from __future__ import annotations

import pytest
import torch

import thunder_core as tc
from thunder_core.ir import TensorProxy
from thunder_core.ir.trace import guarding
from thunder_core.transforms import autograd
from thunder_core.transforms.remat import saved_bytes

pytest.importorskip("thunder_executor_torch")


def _split(fn, *shapes, fusing):
    args = [torch.randn(*s, requires_grad=True) for s in shapes]
    jf = tc.jit(fn, executors=["torch"])
    jf(*args)
    cap = jf._last.capture  # split as tc.jit does: what it specialises is guarded like the capture's reads
    with guarding(cap.specialize, cap.equalities):
        s = autograd.split(tc.last_traces(jf)[0], fusing=fusing)
    recomputed = [b.sym.id for b in s.backward.bound_symbols if "recomputed" in b.tags]
    return s, recomputed


def _cheap_chain(x):
    return ((x * 2 + 1) * x).sum()


def test_cheap_elementwise_is_recomputed_from_the_input_when_the_backward_is_fused():
    s, recomputed = _split(_cheap_chain, (64, 64), fusing=True)
    # only x (and its sizes, symbolic numbers): everything else comes back from it
    assert [p.name for p in s.saved if isinstance(p, TensorProxy)] == ["x"]
    assert "ltorch.mul" in recomputed and "ltorch.add" in recomputed


def test_without_fusion_only_views_are_recomputed():
    s, recomputed = _split(_cheap_chain, (64, 64), fusing=False)
    assert not recomputed
    assert saved_bytes(s.saved) > 64 * 64 * 4  # an intermediate is saved, not recomputed op by op
    s, recomputed = _split(lambda x, w: (x.reshape(4, 16, 64).transpose(1, 2) * w).sum(), (64, 64), (64, 1),
                           fusing=False)
    assert set(recomputed) <= {"ltorch.reshape", "ltorch.transpose"}


def test_values_handed_to_a_matmul_are_saved_not_recomputed():
    # the backward of `h @ w2` needs h in memory anyway: recomputing it would only add a pass
    # (bytes alone would recompute h from the smaller x @ w1)
    s, recomputed = _split(lambda x, w1, w2: ((x @ w1).repeat(1, 2) * 2 @ w2).sum(), (8, 16), (16, 32), (64, 4),
                           fusing=True)
    assert "ltorch.mul" not in recomputed
    assert any(p.shape == (8, 64) for p in s.saved)


def test_transcendental_ops_are_not_recomputed():
    s, recomputed = _split(lambda x: torch.tanh(torch.exp(x) * 2).sum(), (64, 64), fusing=True)
    assert not {"ltorch.exp", "ltorch.tanh"} & set(recomputed)


@pytest.mark.parametrize("fusing", [True, False])
def test_split_traces_verify_and_compute_the_gradient(fusing):
    from thunder_core.ir import verify
    from thunder_core.testing.opcheck import torch_impls

    x = torch.randn(32, 32, dtype=torch.float64, requires_grad=True)
    s, _ = _split(lambda x: (torch.sin(x) * 3 + x).sum(), (32, 32), fusing=fusing)
    verify(s.forward), verify(s.backward)
    impls = torch_impls()
    with torch.no_grad():
        out, saved = s.forward.python_callable(impls)(*x.shape, x.float())  # (x_0, x_1, x): sizes are inputs
        *sizes, gx = s.backward.python_callable(impls)(*saved, torch.ones(()))
    assert sizes == [None, None]
    torch.testing.assert_close(gx, (torch.cos(x) * 3 + 1).float())


def test_recomputed_ops_are_placed_just_before_their_first_use():
    # a fusing executor claims contiguous runs: recomputation all at the start would be cut off
    # from the ops it feeds by the first op it cannot fuse (a loss's backward)
    def f(x, w, y, t):
        h = x * 2 + 1  # y's gradient: recomputed from x
        return torch.nn.functional.cross_entropy(x @ w, t) + (h * y).sum()

    args = [torch.randn(8, 16, requires_grad=True), torch.randn(16, 5, requires_grad=True),
            torch.randn(8, 16, requires_grad=True), torch.randint(0, 5, (8,))]
    jf = tc.jit(f, executors=["torch"])
    jf(*args)
    cap = jf._last.capture
    with guarding(cap.specialize, cap.equalities):
        s = autograd.split(tc.last_traces(jf)[0], fusing=True)
    bsyms = s.backward.bound_symbols
    defined_at = {id(o): i for i, b in enumerate(bsyms) for o in b.flat_outs}
    for i, b in enumerate(bsyms):
        if "recomputed" in b.tags:
            users = [j for j, c in enumerate(bsyms) if any(id(a) in {id(o) for o in b.flat_outs} for a in c.flat_args)]
            assert users, b
            # nothing but other recomputed ops between it and its first user
            assert all("recomputed" in bsyms[j].tags for j in range(i + 1, min(users))), (i, min(users))
    assert any("recomputed" in b.tags for b in bsyms) and defined_at
    # and the gradient is still right
    got = torch.autograd.grad(jf(*args), args[:3])
    want = torch.autograd.grad(f(*args), args[:3])
    torch.testing.assert_close(got, want)
