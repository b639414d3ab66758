"""End to end: real models through tc.jit give eager's outputs and gradients."""

import pytest
import torch

import thunder_core as tc

from thunder_core.examples.models import CNN, GPT, MLP, GPTBlock, LlamaBlock


def _check(model, *inputs, atol=1e-5, rtol=1e-5, train=False):
    torch.manual_seed(0)
    model.train(train)
    jm = tc.jit(model)
    expected = model(*inputs)
    got = jm(*inputs)
    torch.testing.assert_close(got, expected, atol=atol, rtol=rtol)
    got2 = jm(*inputs)
    torch.testing.assert_close(got2, expected, atol=atol, rtol=rtol)
    assert tc.cache_hits(jm) >= 1
    return jm


def test_mlp():
    torch.manual_seed(0)
    _check(MLP(), torch.randn(8, 32))


def test_cnn_eval_and_train_batchnorm_running_stats():
    torch.manual_seed(0)
    m, x = CNN(), torch.randn(2, 3, 16, 16)
    _check(m, x)
    # training mode updates BatchNorm running stats in place, as in eager
    ref = CNN()
    ref.load_state_dict(m.state_dict())
    m.train(), ref.train()
    jm = tc.jit(m)
    for _ in range(2):
        torch.testing.assert_close(jm(x), ref(x), atol=1e-5, rtol=1e-5)
    torch.testing.assert_close(m.bn1.running_mean, ref.bn1.running_mean)
    torch.testing.assert_close(m.bn1.running_var, ref.bn1.running_var)
    assert m.bn1.num_batches_tracked.item() == ref.bn1.num_batches_tracked.item() == 2


def test_gpt2_style_model_and_loss():
    torch.manual_seed(0)
    m = GPT()
    idx = torch.randint(0, 128, (2, 16))
    _check(m, idx, atol=1e-4, rtol=1e-4)
    jm = tc.jit(m)
    logits, loss = jm(idx, idx)
    elogits, eloss = m(idx, idx)
    torch.testing.assert_close(loss, eloss, atol=1e-5, rtol=1e-5)


def test_gpt_block_and_llama_block():
    torch.manual_seed(0)
    _check(GPTBlock(), torch.randn(2, 16, 64), atol=1e-4, rtol=1e-4)
    _check(LlamaBlock(), torch.randn(2, 16, 64), atol=1e-4, rtol=1e-4)


def test_dropout_respects_manual_seed_and_is_fresh_each_call():
    m = GPT(dropout=0.1)
    idx = torch.randint(0, 128, (2, 8))
    m.train()
    jm = tc.jit(m)
    torch.manual_seed(3)
    a = jm(idx)
    b = jm(idx)
    torch.manual_seed(3)
    e1 = m(idx)
    e2 = m(idx)
    torch.testing.assert_close(a, e1)
    torch.testing.assert_close(b, e2)
    assert not torch.equal(a, b)


def test_gradients_match_eager():
    torch.manual_seed(0)
    m = MLP()
    ref = MLP()
    ref.load_state_dict(m.state_dict())
    x = torch.randn(4, 32)
    tc.jit(m)(x).sum().backward()
    ref(x).sum().backward()
    for (n, p), (_, q) in zip(m.named_parameters(), ref.named_parameters()):
        torch.testing.assert_close(p.grad, q.grad, msg=n)


def test_module_shares_parameters_and_sees_updates():
    torch.manual_seed(0)
    m = MLP()
    jm = tc.jit(m)
    assert isinstance(jm, torch.nn.Module)
    assert {id(p) for p in jm.parameters()} == {id(p) for p in m.parameters()}
    x = torch.randn(4, 32)
    jm(x)
    opt = torch.optim.SGD(jm.parameters(), lr=0.1)
    jm(x).sum().backward()
    opt.step()
    torch.testing.assert_close(jm(x), m(x))                      # optimizer step seen
    sd = {k: torch.zeros_like(v) for k, v in m.state_dict().items()}
    jm.load_state_dict(sd)
    assert jm(x).abs().sum().item() == 0                         # load_state_dict seen
    m.double()
    assert jm(x.double()).dtype == torch.float64                 # .to(dtype) seen (a recompile)
    assert "head" in jm.state_dict().__repr__() or "head.weight" in jm.state_dict()


def test_train_eval_switch_recompiles():
    m = GPT(dropout=0.5)
    idx = torch.randint(0, 128, (1, 8))
    jm = tc.jit(m)
    m.eval()
    torch.testing.assert_close(jm(idx), m(idx), atol=1e-5, rtol=1e-5)
    m.train()
    jm(idx)
    assert tc.cache_misses(jm) == 2
