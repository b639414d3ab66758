"""VJP rules of torch-level symbols (transforms/vjp_ltorch*.py): gradients through
tc.jit(executors=["torch"]) equal eager's (float32, and gradcheck in float64), and the rule
is what runs: the symbol stays whole in the forward trace and the backward has no
``autograd.torch_vjp``. Plus the example models end to end."""

from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F

import thunder_core as tc

pytest.importorskip("thunder_executor_torch")


def rnd(*shape, pos=False):
    t = torch.randn(*shape, dtype=torch.float64)
    return t.abs() + 0.5 if pos else t


def ints(high, *shape):
    return torch.randint(0, high, shape)


# (case id, symbol id whose rule is checked, function, inputs maker)
CASES = [
    ("add_broadcast_alpha", "ltorch.add", lambda a, b: torch.add(a, b, alpha=2.5), lambda: [rnd(3, 4), rnd(4)]),
    ("add_number", "ltorch.add", lambda a: a + 2, lambda: [rnd(3, 4)]),
    ("add_noncontiguous", "ltorch.add", lambda a, b: a.t() + b, lambda: [rnd(4, 3), rnd(3, 1)]),
    ("sub_alpha", "ltorch.sub", lambda a, b: torch.sub(a, b, alpha=3), lambda: [rnd(2, 3, 4), rnd(3, 1)]),
    ("rsub_number", "ltorch.sub", lambda a: 2 - a, lambda: [rnd(3)]),
    ("rsub", "ltorch.rsub", lambda a, b: torch.rsub(a, b, alpha=2), lambda: [rnd(3, 4), rnd(4)]),
    ("mul_broadcast", "ltorch.mul", lambda a, b: a * b, lambda: [rnd(2, 1, 4), rnd(3, 1)]),
    ("mul_number_noncontig", "ltorch.mul", lambda a: a.transpose(0, 1) * 3, lambda: [rnd(3, 5)]),
    ("div", "ltorch.div", lambda a, b: a / b, lambda: [rnd(3, 4), rnd(4, pos=True)]),
    ("div_number_first", "ltorch.div", lambda b: 2 / b, lambda: [rnd(3, 4, pos=True)]),
    ("div_by_number", "ltorch.div", lambda a: a / 3, lambda: [rnd(3, 4)]),
    ("neg", "ltorch.neg", lambda a: -a, lambda: [rnd(5)]),
    ("pow_number", "ltorch.pow", lambda a: a ** 3, lambda: [rnd(3, 4)]),
    ("pow_square", "ltorch.pow", lambda a: a.pow(2), lambda: [rnd(3, 4)]),
    ("pow_tensor", "ltorch.pow", lambda a, b: a ** b, lambda: [rnd(3, 4, pos=True), rnd(4)]),
    ("pow_number_base", "ltorch.pow", lambda b: 2.0 ** b, lambda: [rnd(4)]),
    ("exp", "ltorch.exp", torch.exp, lambda: [rnd(3, 4)]),
    ("log", "ltorch.log", torch.log, lambda: [rnd(3, 4, pos=True)]),
    ("sqrt", "ltorch.sqrt", torch.sqrt, lambda: [rnd(3, 4, pos=True)]),
    ("rsqrt", "ltorch.rsqrt", torch.rsqrt, lambda: [rnd(3, 4, pos=True)]),
    ("tanh", "ltorch.tanh", torch.tanh, lambda: [rnd(3, 4)]),
    ("sigmoid", "ltorch.sigmoid", torch.sigmoid, lambda: [rnd(3, 4)]),
    ("relu", "ltorch.relu", F.relu, lambda: [rnd(3, 4)]),
    ("gelu", "ltorch.gelu", F.gelu, lambda: [rnd(3, 4)]),
    ("gelu_tanh", "ltorch.gelu", lambda a: F.gelu(a, approximate="tanh"), lambda: [rnd(3, 4)]),
    ("silu", "ltorch.silu", F.silu, lambda: [rnd(3, 4)]),
    ("softmax", "ltorch.softmax", lambda a: torch.softmax(a, -1), lambda: [rnd(3, 5)]),
    ("softmax_dim0", "ltorch.softmax", lambda a: F.softmax(a, dim=0), lambda: [rnd(3, 5)]),
    ("log_softmax", "ltorch.log_softmax", lambda a: F.log_softmax(a, dim=1), lambda: [rnd(2, 5, 3)]),
    ("where", "ltorch.where", lambda a, b: torch.where(a > 0, a, b), lambda: [rnd(3, 4), rnd(4)]),
    ("where_number", "ltorch.where", lambda a: torch.where(a > 0, a, 0.5), lambda: [rnd(3, 4)]),
    ("masked_fill", "ltorch.masked_fill", lambda a: a.masked_fill(a < 0, 1.0), lambda: [rnd(3, 4)]),
    ("clamp", "ltorch.clamp", lambda a: a.clamp(-0.5, 0.5), lambda: [rnd(3, 4)]),
    ("to_dtype", "ltorch.to", lambda a: a.to(torch.float64) * 2, lambda: [rnd(3, 4)]),
    ("contiguous", "ltorch.contiguous", lambda a: a.t().contiguous() * 2, lambda: [rnd(3, 4)]),
    ("clone", "ltorch.clone", lambda a: a.clone() * 2, lambda: [rnd(3, 4)]),
    # products
    ("matmul_1d_1d", "ltorch.matmul", torch.matmul, lambda: [rnd(4), rnd(4)]),
    ("matmul_1d_3d", "ltorch.matmul", torch.matmul, lambda: [rnd(4), rnd(2, 4, 3)]),
    ("matmul_3d_1d", "ltorch.matmul", torch.matmul, lambda: [rnd(2, 3, 4), rnd(4)]),
    ("matmul_2d_2d", "ltorch.matmul", torch.matmul, lambda: [rnd(3, 4), rnd(4, 5)]),
    ("matmul_3d_2d", "ltorch.matmul", torch.matmul, lambda: [rnd(2, 3, 4), rnd(4, 5)]),
    ("matmul_2d_3d", "ltorch.matmul", torch.matmul, lambda: [rnd(3, 4), rnd(2, 4, 5)]),
    ("matmul_broadcast", "ltorch.matmul", torch.matmul, lambda: [rnd(1, 3, 4), rnd(2, 1, 4, 5)]),
    ("matmul_noncontig", "ltorch.matmul", lambda a, b: a.transpose(-2, -1) @ b, lambda: [rnd(2, 4, 3), rnd(2, 4, 5)]),
    ("mm", "ltorch.mm", torch.mm, lambda: [rnd(3, 4), rnd(4, 5)]),
    ("bmm", "ltorch.bmm", torch.bmm, lambda: [rnd(2, 3, 4), rnd(2, 4, 5)]),
    ("addmm", "ltorch.addmm", lambda i, a, b: torch.addmm(i, a, b, beta=0.5, alpha=2), lambda: [rnd(5), rnd(3, 4), rnd(4, 5)]),
    ("baddbmm", "ltorch.baddbmm", lambda i, a, b: torch.baddbmm(i, a, b, alpha=0.5), lambda: [rnd(2, 3, 5), rnd(2, 3, 4), rnd(2, 4, 5)]),
    ("linear", "ltorch.linear", F.linear, lambda: [rnd(2, 3, 4), rnd(5, 4), rnd(5)]),
    ("linear_no_bias", "ltorch.linear", F.linear, lambda: [rnd(3, 4), rnd(5, 4)]),
    ("linear_1d", "ltorch.linear", F.linear, lambda: [rnd(4), rnd(5, 4), rnd(5)]),
    ("linear_noncontig", "ltorch.linear", lambda x, w: F.linear(x.transpose(0, 1), w), lambda: [rnd(4, 3), rnd(5, 4)]),
    # norms
    ("layer_norm", "ltorch.layer_norm", lambda x, w, b: F.layer_norm(x, (4,), w, b), lambda: [rnd(2, 3, 4), rnd(4), rnd(4)]),
    ("layer_norm_plain_eps", "ltorch.layer_norm", lambda x: F.layer_norm(x, (3, 4), eps=1e-3), lambda: [rnd(2, 3, 4)]),
    ("layer_norm_bias_only", "ltorch.layer_norm", lambda x, b: F.layer_norm(x, (4,), None, b), lambda: [rnd(3, 4), rnd(4)]),
    ("layer_norm_weight_only", "ltorch.layer_norm", lambda x, w: F.layer_norm(x, (4,), w), lambda: [rnd(3, 4), rnd(4)]),
    ("rms_norm", "ltorch.rms_norm", lambda x, w: F.rms_norm(x, (4,), w, 1e-5), lambda: [rnd(2, 3, 4), rnd(4)]),
    ("rms_norm_plain", "ltorch.rms_norm", lambda x: F.rms_norm(x, (4,)), lambda: [rnd(3, 4)]),
    # nn
    ("embedding", "ltorch.embedding", lambda w, i: F.embedding(i, w), lambda: [rnd(10, 4), ints(10, 2, 5)]),
    ("embedding_padding", "ltorch.embedding", lambda w, i: F.embedding(i, w, padding_idx=-2),
     lambda: [rnd(10, 4), torch.tensor([[1, 8, 8], [3, 1, 0]])]),
    ("embedding_freq", "ltorch.embedding", lambda w, i: F.embedding(i, w, scale_grad_by_freq=True),
     lambda: [rnd(10, 4), torch.tensor([[1, 8, 8], [3, 1, 1]])]),
    ("sdpa_causal", "ltorch.scaled_dot_product_attention",
     lambda q, k, v: F.scaled_dot_product_attention(q, k, v, is_causal=True), lambda: [rnd(2, 2, 5, 4), rnd(2, 2, 5, 4), rnd(2, 2, 5, 4)]),
    ("sdpa_float_mask_scale", "ltorch.scaled_dot_product_attention",
     lambda q, k, v: F.scaled_dot_product_attention(
         q, k, v, attn_mask=torch.linspace(-1, 1, 30, dtype=q.dtype).reshape(5, 6), scale=0.3),
     lambda: [rnd(2, 2, 5, 4), rnd(2, 2, 6, 4), rnd(2, 2, 6, 3)]),
    ("sdpa_mask_requiring_grad_through_its_decomposition", "ltorch.scaled_dot_product_attention",
     lambda q, k, v, m: F.scaled_dot_product_attention(q, k, v, attn_mask=m),
     lambda: [rnd(2, 5, 4), rnd(2, 6, 4), rnd(2, 6, 3), rnd(5, 6)]),
    ("sdpa_bool_mask", "ltorch.scaled_dot_product_attention",
     lambda q, k, v: F.scaled_dot_product_attention(q, k, v, attn_mask=torch.ones(5, 6, dtype=torch.bool).tril()),
     lambda: [rnd(2, 5, 4), rnd(2, 6, 4), rnd(2, 6, 4)]),
    ("sdpa_gqa", "ltorch.scaled_dot_product_attention",
     lambda q, k, v: F.scaled_dot_product_attention(q, k, v, is_causal=True, enable_gqa=True),
     lambda: [rnd(1, 4, 5, 4), rnd(1, 2, 5, 4), rnd(1, 2, 5, 4)]),
    ("conv2d", "ltorch.conv2d", lambda x, w, b: F.conv2d(x, w, b, stride=2, padding=1),
     lambda: [rnd(2, 3, 6, 6), rnd(4, 3, 3, 3), rnd(4)]),
    ("conv2d_groups_nobias", "ltorch.conv2d", lambda x, w: F.conv2d(x, w, padding="valid", groups=2, dilation=2),
     lambda: [rnd(1, 4, 7, 7), rnd(4, 2, 2, 2)]),
    ("conv1d_unbatched", "ltorch.conv1d", lambda x, w: F.conv1d(x, w, padding=1), lambda: [rnd(3, 8), rnd(2, 3, 3)]),
    # losses
    ("cross_entropy", "ltorch.cross_entropy", lambda x, t: F.cross_entropy(x, t), lambda: [rnd(6, 5), ints(5, 6)]),
    ("cross_entropy_ignore_sum", "ltorch.cross_entropy", lambda x, t: F.cross_entropy(x, t, ignore_index=1, reduction="sum"),
     lambda: [rnd(6, 5), torch.tensor([0, 1, 2, 1, 4, 3])]),
    ("cross_entropy_none_smooth", "ltorch.cross_entropy",
     lambda x, t: F.cross_entropy(x, t, reduction="none", label_smoothing=0.2, ignore_index=2),
     lambda: [rnd(6, 5), torch.tensor([0, 1, 2, 1, 4, 3])]),
    ("cross_entropy_weight_smooth", "ltorch.cross_entropy",
     lambda x, t: F.cross_entropy(x, t, torch.linspace(0.5, 1.5, 5, dtype=x.dtype), label_smoothing=0.1,
                                  ignore_index=0),
     lambda: [rnd(6, 5), torch.tensor([0, 1, 2, 1, 4, 3])]),
    ("cross_entropy_spatial", "ltorch.cross_entropy", lambda x, t: F.cross_entropy(x, t), lambda: [rnd(2, 4, 3), ints(4, 2, 3)]),
    ("cross_entropy_1d", "ltorch.cross_entropy", lambda x, t: F.cross_entropy(x, t), lambda: [rnd(5), torch.tensor(3)]),
    ("cross_entropy_probs", "ltorch.cross_entropy", lambda x, p: F.cross_entropy(x, p.softmax(-1), label_smoothing=0.1),
     lambda: [rnd(4, 5), rnd(4, 5)]),
    ("nll_loss", "ltorch.nll_loss", lambda x, t: F.nll_loss(x, t, ignore_index=2), lambda: [rnd(6, 5), torch.tensor([0, 1, 2, 1, 4, 3])]),
    ("mse_loss", "ltorch.mse_loss", F.mse_loss, lambda: [rnd(3, 4), rnd(3, 4)]),
    ("mse_loss_sum", "ltorch.mse_loss", lambda a, b: F.mse_loss(a, b, reduction="sum"), lambda: [rnd(3, 4), rnd(3, 4)]),
    # reductions
    ("sum_all", "ltorch.sum", lambda a: a.sum() * a, lambda: [rnd(3, 4)]),
    ("sum_dims", "ltorch.sum", lambda a: a.sum((0, 2)), lambda: [rnd(2, 3, 4)]),
    ("sum_keepdim", "ltorch.sum", lambda a: a.sum(-1, keepdim=True) * a, lambda: [rnd(3, 4)]),
    ("mean", "ltorch.mean", lambda a: a.mean(1), lambda: [rnd(2, 3, 4)]),
    ("mean_keepdim", "ltorch.mean", lambda a: a.mean(-1, keepdim=True), lambda: [rnd(3, 4)]),
    ("var", "ltorch.var", lambda a: a.var(1), lambda: [rnd(3, 4)]),
    ("var_keepdim_biased", "ltorch.var", lambda a: a.var(-1, keepdim=True, correction=0), lambda: [rnd(3, 4)]),
    ("std", "ltorch.std", lambda a: a.std(), lambda: [rnd(3, 4)]),
    # shapes
    ("reshape", "ltorch.reshape", lambda a: a.reshape(4, -1), lambda: [rnd(2, 3, 4)]),
    ("view", "ltorch.view", lambda a: a.view(6, 4), lambda: [rnd(2, 3, 4)]),
    ("flatten", "ltorch.flatten", lambda a: a.flatten(1), lambda: [rnd(2, 3, 4)]),
    ("transpose", "ltorch.transpose", lambda a: a.transpose(0, 2) * 1, lambda: [rnd(2, 3, 4)]),
    ("permute", "ltorch.permute", lambda a: a.permute(2, 0, 1) * 1, lambda: [rnd(2, 3, 4)]),
    ("t", "ltorch.t", lambda a: a.t() * 1, lambda: [rnd(3, 4)]),
    ("expand", "ltorch.expand", lambda a: a.expand(2, 3, 4) * 1, lambda: [rnd(3, 1)]),
    ("unsqueeze", "ltorch.unsqueeze", lambda a: a.unsqueeze(1) * 1, lambda: [rnd(3, 4)]),
    ("squeeze", "ltorch.squeeze", lambda a: a.squeeze(1) * 1, lambda: [rnd(3, 1, 4)]),
    ("cat", "ltorch.cat", lambda a, b: torch.cat([a, b, a], 1), lambda: [rnd(2, 3), rnd(2, 4)]),
    ("stack", "ltorch.stack", lambda a, b: torch.stack([a, b], -1), lambda: [rnd(2, 3), rnd(2, 3)]),
    ("split_partly_used", "ltorch.split", lambda a: a.split([1, 3], 1)[1] * 2, lambda: [rnd(2, 4)]),
    ("chunk", "ltorch.chunk", lambda a: [c * i for i, c in enumerate(a.chunk(3, 0))], lambda: [rnd(6, 2)]),
    ("unbind", "ltorch.unbind", lambda a: [c * i for i, c in enumerate(a.unbind(1))], lambda: [rnd(2, 3)]),
    ("getitem_basic", "ltorch.getitem", lambda a: a[1:, ::2, None, -1], lambda: [rnd(3, 5, 4)]),
    ("getitem_ellipsis", "ltorch.getitem", lambda a: a[..., 1::2], lambda: [rnd(3, 5, 4)]),
    ("getitem_int", "ltorch.getitem", lambda a: a[1], lambda: [rnd(3, 4)]),
    ("getitem_advanced_repeats", "ltorch.getitem", lambda a, i: a[i], lambda: [rnd(5, 3), torch.tensor([0, 2, 2, 4])]),
    ("select", "ltorch.select", lambda a: a.select(1, -1), lambda: [rnd(3, 4)]),
    ("narrow", "ltorch.narrow", lambda a: a.narrow(1, 1, 2), lambda: [rnd(3, 4)]),
    ("index_select", "ltorch.index_select", lambda a, i: a.index_select(1, i), lambda: [rnd(3, 5), torch.tensor([0, 4, 0])]),
    ("gather", "ltorch.gather", lambda a, i: a.gather(1, i), lambda: [rnd(3, 5), torch.tensor([[0, 4], [1, 1], [3, 2]])]),
]


def _leaves(inputs, dtype):
    return [t.to(dtype).detach().requires_grad_(True) if t.is_floating_point() else t for t in inputs]


def _grads(fn, inputs, seed=0):
    outs = fn(*inputs)
    outs = [outs] if isinstance(outs, torch.Tensor) else list(outs)
    torch.manual_seed(seed)
    cts = [torch.randn_like(o) for o in outs]
    diff = [x for x in inputs if isinstance(x, torch.Tensor) and x.requires_grad]
    return torch.autograd.grad(outs, diff, cts, allow_unused=True)


def _ids(trace):
    return {b.sym.id for b in trace.bound_symbols}


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_rule_matches_eager_and_is_used(case):
    _, sid, fn, make = case
    torch.manual_seed(0)
    inputs = make()
    jfn = tc.jit(fn, executors=["torch"])
    got = _grads(jfn, _leaves(inputs, torch.float32))
    want = _grads(fn, _leaves(inputs, torch.float32))
    for g, w in zip(got, want):
        torch.testing.assert_close(g, w, atol=1e-5, rtol=1.3e-6 * 10)
    # the split's forward (before executors choose how to run it) keeps the symbol, or its
    # training forward (vjp.FORWARD: attention with its statistics)
    split_fwd = next(t for t in tc.last_traces(jfn) if t.name == "forward")
    from thunder_core.transforms.vjp import forward_of
    assert sid in _ids(split_fwd) or forward_of(sid) is not None, f"{sid} was expanded:\n{split_fwd}"
    bwd = tc.last_backward_traces(jfn)[-1]
    assert ("autograd.torch_vjp" in _ids(bwd)) == ("falls_back" in case[0]), str(bwd)


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_rule_gradcheck_float64(case):
    name, _, fn, make = case
    if name in ("embedding_padding", "embedding_freq"):
        pytest.skip("eager's gradient is not the derivative here (by design), so finite differences disagree")
    torch.manual_seed(0)
    inputs = _leaves(make(), torch.float64)
    jfn = tc.jit(fn, executors=["torch"])
    assert torch.autograd.gradcheck(jfn, inputs, eps=1e-6, atol=1e-5, rtol=1e-4)


def test_cross_entropy_probability_target_gets_a_gradient():
    x, p = rnd(4, 5).requires_grad_(), rnd(4, 5).softmax(-1).requires_grad_()
    fn = lambda x, p: F.cross_entropy(x, p, label_smoothing=0.1, reduction="sum")  # noqa: E731
    assert torch.autograd.gradcheck(tc.jit(fn), (x, p))


def test_sdpa_with_dropout_is_differentiated_through_its_decomposition():
    # the rule does not apply (the fused op hides its mask): the decomposition draws the mask
    # in the forward, and the backward reuses it, so a finite-difference check holds for one draw
    q, k, v = (torch.randn(1, 2, 4, 4, dtype=torch.float64, requires_grad=True) for _ in range(3))
    jfn = tc.jit(lambda q, k, v: F.scaled_dot_product_attention(q, k, v, dropout_p=0.5))
    out = jfn(q, k, v)
    fwd, bwd = tc.last_traces(jfn)[-1], tc.last_backward_traces(jfn)[-1]
    assert "bernoulli_noise" in str(fwd) and "bernoulli" not in str(bwd) and "torch_vjp" not in str(bwd)
    (out * torch.arange(out.numel(), dtype=out.dtype).reshape(out.shape)).sum().backward()
    assert q.grad is not None and k.grad is not None and v.grad is not None


def test_dropout_mask_is_drawn_in_the_forward_and_reused():
    x = torch.randn(64, 32, requires_grad=True)
    jfn = tc.jit(lambda x: F.dropout(x, 0.4) * 1.0)
    out = jfn(x)
    out.sum().backward()
    kept = out != 0
    torch.testing.assert_close(x.grad, kept.float() / 0.6)  # the gradient drops exactly what the forward dropped
    torch.testing.assert_close(out, x.detach() * x.grad)
    fwd, bwd = tc.last_traces(jfn)[-1], tc.last_backward_traces(jfn)[-1]
    assert "prims.bernoulli_noise" in str(fwd) and "bernoulli" not in str(bwd)
    torch.manual_seed(3)
    a = jfn(x)
    torch.manual_seed(3)
    torch.testing.assert_close(a, F.dropout(x, 0.4))  # the same draw as eager under one seed


# ---------------------------------------------------------------- models

def _models():
    from thunder_core.examples import models as M

    torch.manual_seed(0)
    idx = torch.randint(0, 128, (2, 16))
    return [
        ("MLP", M.MLP(), (torch.randn(4, 32),), lambda o: o.square().mean()),
        ("CNN", M.CNN(), (torch.randn(2, 3, 16, 16),), lambda o: o.mean()),
        ("GPT", M.GPT(), (idx, idx.roll(1, 1)), lambda o: o[1]),
        ("LlamaBlock", M.LlamaBlock(), (torch.randn(2, 32, 64),), lambda o: o.square().mean()),
    ]


def _fallbacks(trace):
    return sorted({b.kwargs["vjp_of"] for b in trace.bound_symbols if b.sym.id == "autograd.torch_vjp"})


@pytest.mark.parametrize("name", ["MLP", "CNN", "GPT", "LlamaBlock"])
def test_model_gradients_match_eager(name):
    _, model, inputs, loss = next(m for m in _models() if m[0] == name)
    jm = tc.jit(model, executors=["torch"])
    loss(jm(*inputs)).backward()
    got = {n: p.grad.clone() for n, p in model.named_parameters()}
    model.zero_grad()
    loss(model(*inputs)).backward()
    for n, p in model.named_parameters():
        torch.testing.assert_close(got[n], p.grad, atol=2e-5, rtol=1e-4, msg=lambda m: f"{name}.{n}: {m}")
    fwd, bwd = tc.last_traces(jm)[-1], tc.last_backward_traces(jm)
    prims_in_fwd = sorted({b.sym.id for b in fwd.bound_symbols if b.sym.id.startswith("prims.")})
    print(f"\n{name}: forward {len(fwd.bound_symbols)} bound symbols, backward "
          f"{len(bwd[-1].bound_symbols) if bwd else 'none (not split: ' + str(tc.explain(jm)).splitlines()[-1] + ')'}; "
          f"prims in forward {prims_in_fwd}; torch_vjp fallbacks {_fallbacks(bwd[-1]) if bwd else '-'}")
    if name in ("MLP", "GPT"):  # every op these use has a torch-level rule
        assert not prims_in_fwd and not _fallbacks(bwd[-1])


@pytest.mark.parametrize("op, args, kw", [
    (torch.ops.aten.gelu_backward, (rnd(3, 4), rnd(3, 4)), {}),
    (torch.ops.aten.gelu_backward, (rnd(3, 4), rnd(3, 4)), {"approximate": "tanh"}),
    (torch.ops.aten.silu_backward, (rnd(3, 4), rnd(3, 4)), {}),
    (torch.ops.aten.tanh_backward, (rnd(3, 4), rnd(3, 4).tanh()), {}),
    (torch.ops.aten.sigmoid_backward, (rnd(3, 4), rnd(3, 4).sigmoid()), {}),
    (torch.ops.aten.threshold_backward, (rnd(3, 4), rnd(3, 4).relu(), 0), {}),
], ids=["gelu", "gelu_tanh", "silu", "tanh", "sigmoid", "threshold"])
def test_backward_op_decompositions_match_the_kernels(op, args, kw):
    from thunder_core.testing.opcheck import check_op

    check_op(op, *args, **kw)
