"""An in-place write into a tensor that cannot require grad (an integer tensor: T5's
relative-position buckets, ``buckets += ...`` on int64) does not turn the compiled backward
off: the compile is split (a backward trace exists) and values and gradients match eager's."""

from __future__ import annotations

import pytest
import torch

import thunder_core as tc

pytest.importorskip("thunder_executor_torch")


def t5_buckets(x, n):
    ctx = torch.arange(n, dtype=torch.long)[:, None]
    mem = torch.arange(n, dtype=torch.long)[None, :]
    rel = mem - ctx
    buckets = (rel > 0).to(torch.long) * 4
    rel = torch.abs(rel)
    buckets += torch.where(rel < 2, rel, torch.full_like(rel, 2))  # rel (buckets' base) is read again below
    return x * buckets + rel


def view_read_later(x, idx):
    buckets = idx.clone()
    flat = buckets.view(-1)
    buckets += 1
    return x * buckets + flat.sum()


def int_input(x, counts):
    counts += 1  # writes into an input, as eager does
    return x * counts


def int_setitem(x, idx):
    b = idx * 2
    b[0] = 7
    return x[b % 4]


CASES = [(t5_buckets, lambda: 4), (view_read_later, lambda: torch.arange(16).view(4, 4)),
         (int_input, lambda: torch.arange(16).view(4, 4)), (int_setitem, lambda: torch.arange(4))]


@pytest.mark.parametrize("fn,arg", CASES, ids=[c[0].__name__ for c in CASES])
def test_split_with_integer_inplace(fn, arg):
    xe = torch.randn(4, 4, dtype=torch.float64, requires_grad=True)
    xj = xe.detach().clone().requires_grad_()
    ae, aj = arg(), arg()
    jfn = tc.jit(fn)
    out_e, out_j = fn(xe, ae), jfn(xj, aj)
    torch.testing.assert_close(out_j, out_e)
    if isinstance(ae, torch.Tensor):
        torch.testing.assert_close(aj, ae)  # the write into the input happened, once
    assert tc.last_backward_traces(jfn), tc.explain(jfn)
    w = torch.randn_like(out_e)
    (out_e * w).sum().backward()
    (out_j * w).sum().backward()
    torch.testing.assert_close(xj.grad, xe.grad)
