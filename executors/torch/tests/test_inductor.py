"""The inductor executor: fused regions compiled by inductor, chosen by cost, compiled in the
background while they run op by op (tiered execution) unless wait_for_compile=True."""

import pytest
import torch

import thunder_core as tc
from thunder_core.examples.models import GPTBlock

pytest.importorskip("torch._inductor")


def chain(x, w, b):
    y = torch.nn.functional.gelu(x) * w + b
    mu = y.mean(-1, keepdim=True)
    var = ((y - mu) ** 2).mean(-1, keepdim=True)
    return (y - mu) * torch.rsqrt(var + 1e-5)


def test_large_elementwise_chain_is_one_fused_region_and_matches_eager():
    x, w, b = torch.randn(256, 512), torch.randn(512), torch.randn(512)
    jf = tc.jit(chain, executors=["inductor", "torch"], wait_for_compile=True)
    torch.testing.assert_close(jf(x, w, b), chain(x, w, b), atol=1e-4, rtol=1e-4)
    final = tc.last_traces(jf)[-1]
    assert [b.sym.id.split(".")[0] for b in final.bound_symbols] == ["inductor"]
    assert "-> inductor" in tc.explain(jf)
    (t,) = jf._last.tiered
    assert t.state == "compiled" and t.per_op_calls == 0


def test_tiny_tensors_stay_with_torch_when_cheaper():
    x, w, b = torch.randn(2, 4), torch.randn(4), torch.randn(4)
    jf = tc.jit(lambda x, w, b: x * w + b, executors=["inductor", "torch"])
    jf(x, w, b)
    assert set(jf._last.executors_used.values()) == {"torch"}


def test_identical_layer_regions_compile_once_and_gradients_match(monkeypatch):
    import dataclasses

    from thunder_core.extend import registry
    from thunder_executor_torch import inductor

    # fuse even these small layers (this test is about reuse)
    cheap = dataclasses.replace(registry().executors["inductor"], dispatch_us=1.0)
    monkeypatch.setattr(inductor, "COMPILE_AMORTIZED_US", 0.0)
    torch.manual_seed(0)
    blocks = torch.nn.Sequential(GPTBlock(64, 4), GPTBlock(64, 4))
    ref = torch.nn.Sequential(GPTBlock(64, 4), GPTBlock(64, 4))
    ref.load_state_dict(blocks.state_dict())
    x = torch.randn(2, 32, 64)
    jm = tc.jit(blocks, executors=[cheap, "torch"], wait_for_compile=True)
    before = len(inductor._COMPILED)
    out = jm(x)
    torch.testing.assert_close(out, ref(x), atol=1e-4, rtol=1e-4)
    executed = (tc.last_traces(jm)[-1], tc.last_backward_traces(jm)[-1])
    regions = [b for t in executed for b in t.bound_symbols if b.sym.id.startswith("inductor.")]
    assert len(regions) >= 4
    # layer 2 reuses layer 1's compiled regions, forward and backward; the regions at each end
    # of the forward and of the backward may differ (the model's input does not require grad,
    # the first backward region starts from the given cotangent, the last one ends the chain)
    assert len(inductor._COMPILED) - before <= len(regions) // 2 + 4
    out.sum().backward()
    ref(x).sum().backward()
    for p, q in zip(blocks.parameters(), ref.parameters()):
        torch.testing.assert_close(p.grad, q.grad, atol=1e-4, rtol=1e-4)


def test_background_compile_swaps_in_while_every_call_equals_eager():
    """The default: the first call does not wait for inductor; calls run op by op until the
    compile is ready, then compiled; each call, forward and gradients, equals eager."""
    torch.manual_seed(0)
    x, w, b = torch.randn(64, 128), torch.randn(128), torch.randn(128)
    jf = tc.jit(chain, executors=["inductor", "torch"])
    for i in range(8):
        xs, ws, bs = (t.clone().requires_grad_() for t in (x, w, b))
        xe, we, be = (t.clone().requires_grad_() for t in (x, w, b))
        out, ref = jf(xs, ws, bs), chain(xe, we, be)
        torch.testing.assert_close(out, ref, atol=1e-4, rtol=1e-4)
        out.sum().backward()
        ref.sum().backward()
        for got, want in ((xs.grad, xe.grad), (ws.grad, we.grad), (bs.grad, be.grad)):
            torch.testing.assert_close(got, want, atol=1e-4, rtol=1e-4)
        if i == 0:
            assert all(t.state == "compiling" for t in jf._last.tiered) and jf._last.tiered
        if i == 3:
            assert tc.wait_for_compiles(300)
    assert all(t.state == "compiled" for t in jf._last.tiered), tc.explain(jf)
    assert all(t.name in tc.explain(jf) for t in jf._last.tiered)


def test_a_compile_on_another_thread_leaves_the_random_stream_and_nn_module_alone():
    """What inductor does to the whole process while it compiles (torch.fx's patches of
    nn.Module.__call__, restoring the default generator's state at the end) happens to the
    compiling thread only: the main thread's random stream goes on as if nothing compiled."""
    import threading

    import torch.fx._symbolic_trace as st
    from torch._dynamo.utils import preserve_rng_state  # noqa: F401 - the name inductor calls

    from thunder_executor_torch import inductor

    original_call = torch.nn.Module.__call__
    inside, leave, seen = threading.Event(), threading.Event(), {}

    def compiling():
        import torch._dynamo.utils as dynamo_utils

        with inductor._thread_local_effects(), dynamo_utils.preserve_rng_state(), st._new_patcher() as patcher:
            patcher.patch_method(torch.nn.Module, "__call__", lambda *a, **k: None, deduplicate=False)
            seen["patched here"] = torch.nn.Module.__call__ is not original_call
            inside.set()
            leave.wait(30)

    torch.manual_seed(0)
    want = torch.rand(6)
    torch.manual_seed(0)
    got = [torch.rand(2)]
    t = threading.Thread(target=compiling)
    t.start()
    assert inside.wait(30)
    assert torch.nn.Module.__call__ is original_call and seen["patched here"] is False
    got.append(torch.rand(2))
    leave.set()
    t.join(30)
    got.append(torch.rand(2))  # a restored state would repeat the draws made meanwhile
    assert torch.equal(torch.cat(got), want)


def _ran_op_by_op(fn, *args):
    """Whether a call ran aten::sin itself (op by op) rather than inductor's kernel."""
    with torch.profiler.profile() as prof:
        out = fn(*args)
    return out, "aten::sin" in {e.name for e in prof.events()}


@pytest.fixture
def cheap_inductor(monkeypatch):
    import dataclasses

    from thunder_core.extend import registry
    from thunder_executor_torch import inductor

    monkeypatch.setattr(inductor, "COMPILE_AMORTIZED_US", 0.0)
    return dataclasses.replace(registry().executors["inductor"], dispatch_us=1.0)


def test_a_region_taking_a_number_drawn_on_every_call_compiles_once(cheap_inductor):
    # x * random.random(): the number is an input of the region that changes on every call;
    # baking it in would run every later call op by op (issue 21). Compiled without dynamo,
    # whose save and restore of the random streams on the compile thread rewound the program's.
    import random

    import torch._dynamo.utils as dynamo_utils

    def f(x):
        return (x * random.random()).sin() + 1

    x = torch.randn(64)
    jf = tc.jit(f, executors=[cheap_inductor, "torch"])
    before = dynamo_utils.counters["stats"]["unique_graphs"]
    random.seed(0)
    got = [jf(x) for _ in range(2)]
    assert tc.wait_for_compiles(300)
    for _ in range(3):
        out, op_by_op = _ran_op_by_op(jf, x)
        got.append(out)
        assert not op_by_op
    random.seed(0)
    for g in got:
        torch.testing.assert_close(g, f(x))
    assert "-> inductor" in tc.explain(jf) and tc.cache_misses(jf) == 1
    assert dynamo_utils.counters["stats"]["unique_graphs"] == before


def test_a_region_taking_symbolic_ints_checks_what_its_compile_assumed(cheap_inductor):
    # b is a SymInt input of the compiled region; the reshape made the compile assume things
    # about b (48 % b == 0, ...): a call breaking them runs op by op, never the wrong kernel
    def g(x, s, b):
        return (x * s + s).reshape(b, -1).sin() + 1

    x = torch.randn(8, 6)
    jg = tc.jit(g, executors=[cheap_inductor, "torch"], cache="symbolic values")
    jg(x, 2.5, 4)
    assert tc.wait_for_compiles(300)
    ran = {}
    for s, b in [(2.5, 4), (1.0, 2), (-3.0, 8), (0.5, 3), (2.0, 6), (0.25, 12)]:
        out, ran[b] = _ran_op_by_op(jg, x, s, b)
        torch.testing.assert_close(out, g(x, s, b))
    # (b == 8 keeps the shape: the program's own trace tells it apart, a second cache entry)
    assert tc.cache_misses(jg) <= 2 and not ran[4] and not ran[2] and ran[3], ran


def test_direct_calls_give_what_the_wrapper_gives_and_survive_a_cache_hit():
    # A region's compile is called through inductor's generated `call` (no AOT autograd
    # wrapper) when that is the same call. A second compile of the same graph is a cache hit in
    # AOT autograd's cache, which would hide that call: it must be found again.
    from torch.fx.experimental.proxy_tensor import make_fx

    from thunder_executor_torch import inductor

    def region(x, y):
        s = (x * y).sin()
        return s, s.t(), x.t(), (x + 1).view(-1)

    x, y = torch.randn(4, 6), torch.randn(4, 6)
    gm = make_fx(region, tracing_mode="fake")(x, y)
    for _ in range(2):
        compiled, direct = inductor._compile_fx(gm, [x, y], 4)
        assert direct is not None
        got, want = direct([x, y]), compiled(x, y)
        for g, w, e in zip(got, want, region(x, y)):
            torch.testing.assert_close(g, e)
            assert g.shape == w.shape and g.stride() == w.stride()
        # the view of an input is a view of the caller's tensor, as eager and the wrapper make it
        assert got[2]._base is x and got[2].data_ptr() == x.data_ptr()
        v = x._version
        got[2].mul_(1)
        assert x._version > v
        assert got[1].data_ptr() == got[0].data_ptr()  # views of one buffer made in the region


def test_regions_of_a_symbolic_values_program_are_called_directly(cheap_inductor, monkeypatch):
    from thunder_executor_torch import inductor

    found = []
    real = inductor._direct_call
    monkeypatch.setattr(inductor, "_direct_call", lambda *a: found.append(real(*a)) or found[-1])

    def g(x, n):
        return (x.reshape(n, -1).sin() * 2).t()

    jg = tc.jit(g, executors=[cheap_inductor, "torch"], cache="symbolic values", wait_for_compile=True)
    x = torch.randn(8, 6)
    jg(x, 4)  # (compiles: the profiler would see the fake tensors' aten::sin)
    for n in (2, 4, 2):  # (what the compile assumed holds for these: 8 % n == 0, n != 8...)
        out, op_by_op = _ran_op_by_op(jg, x, n)
        torch.testing.assert_close(out, g(x, n))
        assert not op_by_op
    assert found and all(d is not None for d in found), found
    assert tc.cache_misses(jg) == 1


def attention_block(x, w, p):
    # positions made in the program (creation ops), attention without dropout, a copy to a
    # contiguous layout: all inside one region now (each cut a region before)
    b, s, c = x.shape
    pos = torch.arange(s, device=x.device).unsqueeze(0).float()
    q = (x @ w + pos.unsqueeze(-1)).view(b, s, 2, c // 2).transpose(1, 2)
    a = torch.nn.functional.scaled_dot_product_attention(q, q, q, dropout_p=p)
    return a.transpose(1, 2).contiguous().view(b, s, c).sin()


@pytest.mark.parametrize("p", [0.0, 0.3])
def test_attention_that_draws_nothing_creation_ops_and_contiguous_join_a_region(cheap_inductor, p):
    from thunder_core.extend import draws_random

    x, w = torch.randn(2, 8, 16), torch.randn(16, 16)
    jf = tc.jit(attention_block, executors=[cheap_inductor, "torch"], wait_for_compile=True)
    torch.manual_seed(0)
    out = jf(x, w, p)
    torch.manual_seed(0)
    want = attention_block(x, w, p)
    if p == 0.0:
        torch.testing.assert_close(out, want)
        assert out.is_contiguous()
    final = tc.last_traces(jf)[-1]
    ids = [b.sym.id for b in final.bound_symbols]
    sdpa = [b for b in tc.last_traces(jf)[0].bound_symbols if b.sym.id.endswith("scaled_dot_product_attention")]
    assert len(sdpa) == 1 and draws_random(sdpa[0]) == (p > 0)
    if p == 0.0:  # the attention, the arange and the contiguous copy are inside inductor's regions
        assert not any(i.endswith(("scaled_dot_product_attention", "arange", "contiguous")) for i in ids), ids
    else:  # an attention that draws stays with torch: a compiled region never draws
        assert any(i.endswith("scaled_dot_product_attention") for i in ids), ids


def test_a_region_called_with_other_strides_compiles_for_them_and_keeps_both(cheap_inductor):
    # The examples of a region's compile come from its first call. A later call with other
    # strides (here the caller's; in models an upstream region's compiled code laying out its
    # outputs unlike the per-op run) ran op by op on every call; now it asks for a compile of
    # its own, and both layouts run compiled after.
    def f(x):
        return ((x.sin() * 2 + 1).cos() * x).exp()

    jf = tc.jit(f, executors=[cheap_inductor, "torch"])
    a, b = torch.randn(16, 32), torch.randn(32, 16).t()  # same shape, transposed strides
    jf(a)
    assert tc.wait_for_compiles(300)
    out, op_by_op = _ran_op_by_op(jf, b)  # runs op by op once, and asks for a compile
    torch.testing.assert_close(out, f(b))
    assert op_by_op
    assert tc.wait_for_compiles(300)
    for x in (b, a, b, a):
        out, op_by_op = _ran_op_by_op(jf, x)
        torch.testing.assert_close(out, f(x))
        assert not op_by_op
    assert tc.cache_misses(jf) == 1
    assert "compiled again for other inputs' layouts 1 time(s)" in tc.explain(jf)


def test_direct_calls_with_an_input_returned_and_items_of_multi_output_ops():
    from torch.fx.experimental.proxy_tensor import make_fx

    from thunder_executor_torch import inductor

    def region(x, w):
        a, b = x.split(3, dim=1)  # items of a view op: views of the input x
        y = torch.nn.functional.layer_norm(x * 2, (6,), w)
        m, i = (y + 1).max(dim=1)  # items of an op making new tensors
        return w, a, b, y, m, i

    x, w = torch.randn(4, 6), torch.randn(6)
    gm = make_fx(region, tracing_mode="fake")(x, w)
    compiled, direct = inductor._compile_fx(gm, [x, w], 6)
    assert direct is not None
    got = direct([x, w])
    for g, e in zip(got, region(x, w)):
        torch.testing.assert_close(g, e)
    assert got[0] is w  # the input itself, as eager returns it
    assert got[1]._base is x and got[2]._base is x  # true views of the caller's tensor
    assert got[2].storage_offset() == 3


@pytest.mark.parametrize("cache", ["symbolic values", "constant values"])
def test_matmul_after_a_cat_with_an_empty_cache_compiles(cheap_inductor, cache):
    # HF T5's attention: keys viewed and transposed, joined to an empty cache, multiplied. The
    # region is traced to aten with inductor's own decompositions, so matmul's view-or-copy
    # choice sees the layout inductor's trace sees (its cat of one non-empty tensor keeps the
    # transposed strides); traced without them, the compile failed and the region ran op by op.
    def attn(q, x):
        k = x.view(2, 8, 4, 8).transpose(1, 2)
        k = torch.cat([torch.tensor([]), k], dim=-2)
        return torch.matmul(q, k.transpose(-2, -1) * 1.0).softmax(-1)

    q, x = torch.randn(2, 4, 8, 8), torch.randn(2, 8, 32)
    jf = tc.jit(attn, executors=[cheap_inductor, "torch"], cache=cache, wait_for_compile=True)
    torch.testing.assert_close(jf(q, x), attn(q, x))
    tiers = jf._last.tiered
    assert tiers and all(t.state == "compiled" for t in tiers), [t.state for t in tiers]


def test_a_region_of_symbolic_ints_only_compiles(cheap_inductor):
    # GPT-2's position ids: arange(n) + past, unsqueezed, a region whose only inputs are SymInts
    # (the embedding after it is not fused). Its compile must read back its output strides
    # in the ShapeEnv of those ints (it failed with int('s16') and ran op by op).
    def pos(ids, w):
        p = (torch.arange(ids.shape[1]) + 0).unsqueeze(0)
        return torch.nn.functional.embedding(p, w)

    ids, w = torch.randint(0, 9, (2, 16)), torch.randn(32, 4)
    jf = tc.jit(pos, executors=[cheap_inductor, "torch"], wait_for_compile=True)
    torch.testing.assert_close(jf(ids, w), pos(ids, w))
    tiers = jf._last.tiered
    assert tiers and all(t.state == "compiled" for t in tiers), [(t.region.name, t.state) for t in tiers]
    ids = torch.randint(0, 9, (2, 11))
    torch.testing.assert_close(jf(ids, w), pos(ids, w))


def test_the_cotangent_of_an_output_also_used_inside_joins_a_backward_region(cheap_inductor):
    # HF models return key/value tensors they also use: the backward adds the cotangent it got for
    # such an output (a zero view when nothing differentiated it) to the gradient from inside.
    # autograd.add_cotangent is elementwise: inductor takes it into the region around it.
    def f(x, w):
        h = torch.tanh(x @ w)
        k = h * 2
        return (k * h).sum(), k

    x, w = torch.randn(8, 16), torch.randn(16, 16)
    jf = tc.jit(f, executors=[cheap_inductor, "torch"], wait_for_compile=True)
    for both in (False, True, False):  # the zero view, a real cotangent, the zero view again
        xs = [t.clone().requires_grad_() for t in (x, w)]
        xe = [t.clone().requires_grad_() for t in (x, w)]
        (loss, k), (le, ke) = jf(*xs), f(*xe)
        ((loss + k.sum()) if both else loss).backward()
        ((le + ke.sum()) if both else le).backward()
        for a, b in zip(xs, xe):
            torch.testing.assert_close(a.grad, b.grad)
    backward = tc.last_backward_traces(jf)[-1]
    in_regions = [s.sym.id for b in backward.bound_symbols if b.sym.id.startswith("inductor.") for s in b.subsymbols]
    assert "autograd.add_cotangent" in in_regions, backward
    assert not [b for b in backward.bound_symbols if b.sym.id == "autograd.add_cotangent"], backward


def test_a_head_count_read_between_fusible_ops_keeps_them_one_region(cheap_inductor):
    # HF Llama's repeat_kv reads a size that a view(-1) made (the key's head count) between two
    # fusible stretches: computed from the input sizes at the start, it no longer cuts the run
    def f(x):
        b, s, _ = x.shape
        k = (x * 2).view(b, s, -1, 4).transpose(1, 2)
        batch, heads, slen, dim = k.shape
        k = k[:, :, None].expand(batch, heads, 2, slen, dim).reshape(batch, heads * 2, slen, dim)
        return (k.sin() + 1).sum(-1)

    jf = tc.jit(f, executors=[cheap_inductor, "torch"], wait_for_compile=True)
    for n in (6, 6, 9):
        x = torch.randn(2, n, 16)
        torch.testing.assert_close(jf(x), f(x))
    final = tc.last_traces(jf)[-1]
    tensor_ops = [b.sym.id for b in final.bound_symbols if not b.sym.id.startswith("prims.py_")]
    assert len(tensor_ops) == 1 and tensor_ops[0].startswith("inductor."), final


def test_gathers_and_the_loss_gradient_scatter_join_the_regions(cheap_inductor):
    # "indexing" ops (embedding, gather, nll_loss_backward, embedding_dense_backward) are
    # indirect loads and stores for inductor: a language model's step is one region each way
    def f(ids, emb, w, target, pick):
        h = torch.tanh(emb.index_select(0, ids.flatten()).view(2, 5, 16) * 2 + torch.nn.functional.embedding(ids, emb))
        logits = h @ w
        return torch.nn.functional.cross_entropy(logits.flatten(0, 1), target) + logits.gather(-1, pick).sum()

    ids, target, pick = torch.randint(0, 10, (2, 5)), torch.randint(0, 7, (10,)), torch.randint(0, 7, (2, 5, 3))
    emb, w = torch.randn(10, 16), torch.randn(16, 7)
    jf = tc.jit(f, executors=[cheap_inductor, "torch"], wait_for_compile=True)
    for _ in range(2):
        xs = [t.clone().requires_grad_() for t in (emb, w)]
        xe = [t.clone().requires_grad_() for t in (emb, w)]
        got, want = jf(ids, *xs, target, pick), f(ids, *xe, target, pick)
        torch.testing.assert_close(got, want)
        got.backward(), want.backward()
        for a, b in zip(xs, xe):
            torch.testing.assert_close(a.grad, b.grad)
    for trace in (tc.last_traces(jf)[-1], tc.last_backward_traces(jf)[-1]):
        top = [b.sym.id for b in trace.bound_symbols if not b.sym.id.startswith("prims.py_")]
        inside = {s.sym.id for b in trace.bound_symbols if b.sym.id.startswith("inductor.") for s in b.subsymbols}
        assert len(top) == 1 and top[0].startswith("inductor."), trace
    assert {"ltorch.embedding_dense_backward", "ltorch.nll_loss_backward"} <= inside, inside
    with pytest.raises((IndexError, RuntimeError), match="index"):  # out of range: the compiled kernel checks too
        jf(torch.full((2, 5), 10), emb, w, target, pick)
