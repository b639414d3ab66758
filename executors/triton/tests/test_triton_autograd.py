"""Backward traces are partitioned too: elementwise backward ops run in Triton kernels."""

import pytest
import torch
import torch.nn.functional as F

import thunder_core as tc
from triton_helpers import close, jit, no_worse_than_eager, triton_regions


def fn(x, w, b):
    return torch.tanh(F.gelu(x * w + b, approximate="tanh")) * x


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.bfloat16], ids=str)
def test_forward_and_backward_kernels_match_eager_gradients(dtype):
    torch.manual_seed(3)
    shapes = [(6, 45), (6, 45), (45,)]
    ours = [torch.randn(s, dtype=dtype).requires_grad_() for s in shapes]
    ref = [t.detach().clone().requires_grad_() for t in ours]
    jf = jit(fn)
    out = jf(*ours)
    expected = fn(*ref)
    close(out, expected, dtype)
    g = torch.randn_like(expected)
    out.backward(g)
    expected.backward(g)
    exact = [t.detach().float().requires_grad_() for t in ours]
    fn(*exact).backward(g.float())
    for a, e, x in zip(ours, ref, exact):
        if dtype == torch.float32:
            close(a.grad, e.grad, dtype)
        else:
            no_worse_than_eager(a.grad, e.grad, x.grad)
    assert triton_regions(tc.last_traces(jf)[-1])
    backward = tc.last_backward_traces(jf)[-1]
    regions = triton_regions(backward)
    assert regions, backward.python()
    covered = {s.sym.id for r in regions for s in r.subsymbols}
    assert "ltorch.gelu_backward" in covered, covered
