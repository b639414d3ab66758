"""Cross-entropy forward and backward under Triton's interpreter, against eager PyTorch:
log_softmax and nll_loss in one row kernel (the target logit gathered along the row, the mean
over rows combined across programs), its gradient in one row kernel (the one-hot scatter and
log_softmax's backward); over vocabularies longer than a program holds, the rows are looped
over in chunks with an online softmax."""

import pytest
import torch
import torch.nn.functional as F

import thunder_core as tc
from thunder_core.extend import region_of
from thunder_executor_triton.codegen import generate
from triton_helpers import close, jit, no_worse_than_eager, triton_regions


def _run(fn, logits, target, dtype):
    ours = logits.detach().clone().requires_grad_()
    ref = logits.detach().clone().requires_grad_()
    jf = jit(fn)
    out, expected = jf(ours, target), fn(ref, target)
    close(out, expected, dtype)
    g = torch.randn_like(expected)
    out.backward(g)
    expected.backward(g)
    if dtype == torch.float32:
        close(ours.grad, ref.grad, dtype)
    else:
        exact = logits.detach().float().requires_grad_()
        fn(exact, target).backward(g.float())
        no_worse_than_eager(ours.grad, ref.grad, exact.grad, slack=1e-2)
    return jf


def _symbols(regions) -> set:
    return {s.sym.id for r in regions for s in r.subsymbols}


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.bfloat16], ids=str)
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_cross_entropy_forward_and_backward(reduction, dtype):
    torch.manual_seed(11)
    logits = torch.randn(45, 37, dtype=dtype)
    target = torch.randint(0, 37, (45,))
    target[[3, 17]] = -1  # ignored

    def fn(x, t):
        return F.cross_entropy(x, t, ignore_index=-1, reduction=reduction)

    jf = _run(fn, logits, target, dtype)
    forward = triton_regions(tc.last_traces(jf)[-1])
    assert len(forward) == 1 and {"ltorch.log_softmax", "ltorch.nll_loss"} <= _symbols(forward), forward
    backward = triton_regions(tc.last_backward_traces(jf)[-1])
    assert {"ltorch.nll_loss_backward", "ltorch.log_softmax_backward"} <= _symbols(backward), \
        tc.last_backward_traces(jf)[-1]


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16], ids=str)
def test_cross_entropy_over_a_vocabulary_longer_than_a_program_holds(dtype):
    """40,000 classes (more than the 32,768 one interpreted program holds): looped in 8,192
    element chunks, an online softmax (max and sum of exponentials in one pass)."""
    torch.manual_seed(12)
    logits = torch.randn(3, 40_000, dtype=dtype) * 3
    target = torch.tensor([5, 39_999, 20_000])
    jf = _run(lambda x, t: F.cross_entropy(x, t), logits, target, dtype)
    (region,) = triton_regions(tc.last_traces(jf)[-1])
    kernel = generate(region_of(region), "cpu")
    assert "looped over chunks" in kernel.describe and "online" in kernel.source


def test_label_smoothing_and_class_weights():
    torch.manual_seed(13)
    logits, target, weight = torch.randn(30, 21), torch.randint(0, 21, (30,)), torch.rand(21) + 0.5
    for fn in (lambda x, t: F.cross_entropy(x, t, label_smoothing=0.1),
               lambda x, t: F.cross_entropy(x, t, weight=weight)):
        jf = _run(fn, logits, target, torch.float32)
        assert triton_regions(tc.last_traces(jf)[-1]), tc.explain(jf)
