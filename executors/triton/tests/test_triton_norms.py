"""Normalizations' backward as one row kernel each, under Triton's interpreter, against eager:
the input gradient row by row, the weight and bias gradients reduced over all rows across the
kernel's programs (partial sums in a workspace, combined by the last program to finish)."""

import pytest
import torch
import torch.nn.functional as F

import thunder_core as tc
from thunder_core.extend import region_of
from thunder_executor_triton.codegen import generate
from triton_helpers import close, jit, no_worse_than_eager, triton_regions

CASES = {
    "layer_norm": lambda x, w, b: F.layer_norm(x, (x.shape[-1],), w, b),
    "layer_norm_after_a_residual": lambda x, w, b: F.layer_norm(x * 2 + 1, (x.shape[-1],), w, b) * x,
    "rms_norm": lambda x, w, b: F.rms_norm(x, (x.shape[-1],), w, eps=1e-6),
}


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.bfloat16], ids=str)
@pytest.mark.parametrize("name", sorted(CASES))
def test_norm_backward_is_one_kernel_with_weight_gradients_over_programs(name, dtype):
    """[3, 200, 37]: 600 rows, blocks of 256 rows in the interpreter, so 3 programs combine
    their partial weight gradients."""
    torch.manual_seed(14)
    fn = CASES[name]
    shapes = [(3, 200, 37), (37,), (37,)]
    ours = [torch.randn(s, dtype=dtype).requires_grad_() for s in shapes]
    ref = [t.detach().clone().requires_grad_() for t in ours]
    exact = [t.detach().float().requires_grad_() for t in ours]
    jf = jit(fn)
    out, expected = jf(*ours), fn(*ref)
    close(out, expected, dtype)
    g = torch.randn_like(expected)
    out.backward(g)
    expected.backward(g)
    fn(*exact).backward(g.float())
    for a, e, x in zip(ours, ref, exact):
        if e.grad is None:
            assert a.grad is None
        elif dtype == torch.float32:
            torch.testing.assert_close(a.grad, e.grad, rtol=1e-4, atol=1e-4)
        else:
            no_worse_than_eager(a.grad, e.grad, x.grad, slack=5e-2)
    backward = tc.last_backward_traces(jf)[-1]
    # the input gradient and the weight gradients come out of one Triton kernel
    grads = {id(p) for p in backward.output if p is not None} if isinstance(backward.output, tuple) else set()
    (norm,) = [r for r in triton_regions(backward) if sum(id(p) in grads for p in r.flat_outs) >= 2]
    kernel = generate(region_of(norm), "cpu")
    assert kernel.family == "row" and "reductions over all rows" in kernel.describe, kernel.describe
    assert "tl.atomic_add(cnt" in kernel.source


def test_the_weight_gradient_of_an_empty_batch_is_zero():
    """No rows: the combining program still writes the reductions over (no) rows."""
    x = torch.randn(0, 16, requires_grad=True)
    w, b = torch.randn(16, requires_grad=True), torch.randn(16, requires_grad=True)
    jf = jit(lambda x, w, b: F.layer_norm(x, (16,), w, b))
    jf(x, w, b).sum().backward()
    assert torch.equal(w.grad, torch.zeros(16)) and torch.equal(b.grad, torch.zeros(16))
