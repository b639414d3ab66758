"""Training end to end: gradients of the example models and a 20-step AdamW loop through
tc.jit match eager, and every one of those compiles was split into forward and backward
traces (not left to PyTorch's autograd)."""

from __future__ import annotations

import copy

import pytest
import torch

import thunder_core as tc
from thunder_core.examples.models import CNN, GPT, MLP, GPTBlock, LlamaBlock

pytest.importorskip("thunder_executor_torch")


def _grads_match(model, *inputs, loss=lambda out: out.float().pow(2).mean(), atol=1e-5, rtol=1e-4):
    torch.manual_seed(0)
    ref = copy.deepcopy(model)
    jm = tc.jit(model)
    loss(jm(*inputs)).backward()
    loss(ref(*inputs)).backward()
    assert tc.last_backward_traces(jm), tc.explain(jm)
    for (name, p), q in zip(model.named_parameters(), ref.parameters()):
        assert p.grad is not None, name
        torch.testing.assert_close(p.grad, q.grad, atol=atol, rtol=rtol, msg=lambda m: f"{name}: {m}")
    return jm


@pytest.mark.parametrize("model, make_input", [
    (MLP, lambda: torch.randn(8, 32)),
    (CNN, lambda: torch.randn(2, 3, 16, 16)),
    (GPTBlock, lambda: torch.randn(2, 16, 64)),
    (LlamaBlock, lambda: torch.randn(2, 16, 64)),
], ids=["mlp", "cnn", "gpt_block", "llama_block"])
def test_model_gradients_match_eager(model, make_input):
    torch.manual_seed(0)
    m = model()
    m.train()
    _grads_match(m, make_input())


def test_cnn_batchnorm_running_stats_and_eval_mode_under_training():
    torch.manual_seed(0)
    m, x = CNN().train(), torch.randn(4, 3, 16, 16)
    ref = copy.deepcopy(m)
    jm = _grads_match(m, x)
    ref(x)  # (the reference's first step ran inside _grads_match on a copy made before it)
    torch.testing.assert_close(m.bn1.running_mean, ref.bn1.running_mean)
    torch.testing.assert_close(m.bn1.running_var, ref.bn1.running_var)
    assert m.bn1.num_batches_tracked.item() == 1
    m.eval()
    for p in m.parameters():
        p.grad = None
    _grads_match(m, x)
    assert tc.cache_misses(jm) >= 1


def test_gpt_loss_gradients_match_eager():
    torch.manual_seed(0)
    idx = torch.randint(0, 128, (2, 16))
    _grads_match(GPT(), idx, idx, loss=lambda out: out[1])


def test_adamw_training_loop_losses_match_eager():
    torch.manual_seed(0)
    model = GPT(n_layer=2, n_embd=32, n_head=4, vocab=64, block_size=32)
    ref = copy.deepcopy(model)
    jm = tc.jit(model)
    opt = torch.optim.AdamW(model.parameters(), lr=3e-3)
    ref_opt = torch.optim.AdamW(ref.parameters(), lr=3e-3)
    gen = torch.Generator().manual_seed(1)
    losses, ref_losses = [], []
    for _ in range(20):
        idx = torch.randint(0, 64, (4, 16), generator=gen)
        tgt = torch.roll(idx, -1, dims=1)
        for m, o, out in ((jm, opt, losses), (ref, ref_opt, ref_losses)):
            o.zero_grad()
            _, loss = m(idx, tgt)
            loss.backward()
            o.step()
            out.append(loss.item())
    assert tc.last_backward_traces(jm)
    assert tc.cache_misses(jm) == 1
    torch.testing.assert_close(torch.tensor(losses), torch.tensor(ref_losses), atol=1e-4, rtol=1e-4)
    assert losses[-1] < losses[0] - 0.3  # it actually learned something
