"""Gradients of layer_norm / rms_norm through tc.jit against eager when ``normalized_shape``
covers the whole input (no batch dims to sum the weight and bias gradients over: torch's
``sum(())`` would sum every dim and give a 0-d gradient, which autograd rejects)."""

from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F

import thunder_core as tc

pytest.importorskip("thunder_executor_torch")

CASES = [
    ("layer_norm whole", lambda x, w, b: F.layer_norm(x, x.shape, w, b), (1, 2, 3), (1, 2, 3)),
    ("layer_norm 1-d", lambda x, w, b: F.layer_norm(x, x.shape, w, b), (5,), (5,)),
    ("layer_norm batch", lambda x, w, b: F.layer_norm(x, (3,), w, b), (2, 3), (3,)),
    ("layer_norm eps", lambda x, w, b: F.layer_norm(x, (3,), w, b, eps=0.5), (2, 3), (3,)),
    ("layer_norm whole eps", lambda x, w, b: F.layer_norm(x, x.shape, w, b, eps=0.5), (1, 2, 3), (1, 2, 3)),
    ("rms_norm whole", lambda x, w, b: F.rms_norm(x, x.shape, w) + b, (1, 2, 3), (1, 2, 3)),
    ("rms_norm 1-d", lambda x, w, b: F.rms_norm(x, (4,), w) + b, (4,), (4,)),
]


@pytest.mark.parametrize("name,fn,xs,ws", CASES, ids=[c[0] for c in CASES])
def test_affine_grads_like_eager(name, fn, xs, ws):
    def leaves():
        g = torch.Generator().manual_seed(0)
        return [torch.randn(s, generator=g, dtype=torch.float64, requires_grad=True) for s in (xs, ws, ws)]

    e, j = leaves(), leaves()
    out_e, out_j = fn(*e), tc.jit(fn)(*j)
    torch.testing.assert_close(out_j, out_e)
    w = torch.randn(out_e.shape, dtype=torch.float64)
    ge = torch.autograd.grad((out_e * w).sum(), e)
    gj = torch.autograd.grad((out_j * w).sum(), j)
    for a, b in zip(gj, ge):
        assert a.shape == b.shape
        torch.testing.assert_close(a, b)
