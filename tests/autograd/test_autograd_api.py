"""Training through tc.jit behaves as eager autograd: .backward(), autograd.grad, .grad
accumulation, retain_graph, grad_outputs, outputs that do not require grad, multiple
outputs, double backward, and the cache key (grad mode, which inputs require grad)."""

from __future__ import annotations

import pytest
import torch

import thunder_core as tc

pytest.importorskip("thunder_executor_torch")


def leaves(*shapes, requires_grad=True, dtype=torch.float32):
    torch.manual_seed(0)
    return [torch.randn(*s, dtype=dtype, requires_grad=requires_grad) for s in shapes]


def grads_of(fn, inputs, reduce=lambda out: out.sum()):
    xs = [x.detach().clone().requires_grad_(x.requires_grad) for x in inputs]
    reduce(fn(*xs)).backward()
    return [x.grad for x in xs]


def chain(x, w, b):
    h = torch.nn.functional.gelu(x @ w + b)
    return torch.nn.functional.layer_norm(h, h.shape[-1:]) * 2


def test_backward_matches_eager_and_uses_a_backward_trace():
    x, w, b = leaves((4, 8), (8, 8), (8,))
    jf = tc.jit(chain)
    for got, want in zip(grads_of(jf, [x, w, b]), grads_of(chain, [x, w, b])):
        torch.testing.assert_close(got, want)
    bwd = tc.last_backward_traces(jf)
    assert len(bwd) == 2 and bwd[0].name == "backward"
    assert "def backward(" in str(bwd[-1])
    assert "backward:" in tc.explain(jf)


def test_grad_accumulates_into_leaves_across_calls():
    x, w, b = leaves((4, 8), (8, 8), (8,))
    jf = tc.jit(chain)
    jf(x, w, b).sum().backward()
    jf(x, w, b).sum().backward()
    x2, w2, b2 = (t.detach().clone().requires_grad_() for t in (x, w, b))
    chain(x2, w2, b2).sum().backward()
    chain(x2, w2, b2).sum().backward()
    for got, want in zip((x.grad, w.grad, b.grad), (x2.grad, w2.grad, b2.grad)):
        torch.testing.assert_close(got, want)
    assert tc.cache_misses(jf) == 1


def test_autograd_grad_with_grad_outputs_and_multiple_outputs():
    def f(x, y):
        return x * y, (x.sin() + y).sum(0), x.exp()

    x, y = leaves((3, 5), (3, 5))
    jf = tc.jit(f)
    a, s, e = jf(x, y)
    ga, gs = torch.randn(3, 5), torch.randn(5)
    got = torch.autograd.grad((a, s), (x, y), (ga, gs))
    want = torch.autograd.grad(f(x, y)[:2], (x, y), (ga, gs))
    for g, w in zip(got, want):
        torch.testing.assert_close(g, w)
    assert e.requires_grad  # an output nobody differentiated still carries grad


def test_retain_graph_like_eager():
    x, = leaves((3, 3))
    jf = tc.jit(lambda x: (x.tanh() * x).sum())
    out = jf(x)
    out.backward(retain_graph=True)
    out.backward()
    x2 = x.detach().clone().requires_grad_()
    ref = (x2.tanh() * x2).sum()
    ref.backward(retain_graph=True)
    ref.backward()
    torch.testing.assert_close(x.grad, x2.grad)
    out = jf(x)
    out.backward()
    with pytest.raises(RuntimeError, match="second time|freed"):
        out.backward()


def test_outputs_that_do_not_require_grad_and_non_tensor_outputs():
    def f(x, w):
        y = x @ w
        return y, y.argmax(-1), y.detach() * 2, x.shape[0], (y > 0)

    x, w = leaves((4, 3), (3, 5))
    got, want = tc.jit(f)(x, w), f(x, w)
    assert [getattr(t, "requires_grad", None) for t in got] == [getattr(t, "requires_grad", None) for t in want]
    assert got[3] == 4
    torch.testing.assert_close(got[1], want[1])
    got[0].sum().backward()
    assert w.grad is not None and x.grad is not None


def test_inputs_without_grad_and_unused_inputs():
    def f(x, w, unused):
        return (x * w).sum()

    x, = leaves((2, 3), requires_grad=False)
    w, u = leaves((2, 3), (2,))
    tc.jit(f)(x, w, u).backward()
    torch.testing.assert_close(w.grad, x)
    assert u.grad is None  # as in eager: an input that does not affect the output gets no grad


def test_returning_an_input_and_duplicate_outputs():
    def f(x):
        y = x * 3
        return x, y, y

    x, = leaves((2, 2))
    a, b, c = tc.jit(f)(x)
    assert a.requires_grad and b.requires_grad
    (a.sum() + b.sum() + 2 * c.sum()).backward()
    torch.testing.assert_close(x.grad, torch.full((2, 2), 10.0))


def test_grad_mode_and_requires_grad_are_part_of_the_cache_key():
    x, w, b = leaves((4, 8), (8, 8), (8,))
    jf = tc.jit(chain)
    with torch.no_grad():
        out = jf(x, w, b)
    assert not out.requires_grad and tc.last_backward_traces(jf) == []
    out = jf(x, w, b)
    assert out.requires_grad and tc.last_backward_traces(jf)
    out = jf(x.detach(), w.detach(), b.detach())
    assert not out.requires_grad
    out = jf(x.detach(), w, b)  # only the weights require grad
    out.sum().backward()
    assert x.grad is None and w.grad is not None
    assert tc.cache_misses(jf) == 4
    jf(x, w, b)
    assert tc.cache_misses(jf) == 4


def test_inference_mode():
    x, w, b = leaves((4, 8), (8, 8), (8,))
    jf = tc.jit(chain)
    with torch.inference_mode():
        out = jf(x, w, b)
        torch.testing.assert_close(out, chain(x, w, b))
    assert not out.requires_grad and out.is_inference()
    with torch.no_grad():  # grad off too, but not inference mode: its own cache entry
        out = jf(x, w, b)
    assert not out.is_inference() and tc.cache_misses(jf) == 2


def test_double_backward_matches_eager():
    def f(x, w):
        return (torch.tanh(x @ w) ** 2).sum()

    x, w = leaves((3, 4), (4, 2), dtype=torch.float64)
    jf = tc.jit(f)
    for fn in (jf, f):
        g, = torch.autograd.grad(fn(x, w), x, create_graph=True)
        gg, = torch.autograd.grad(g.sum(), w)
        if fn is jf:
            got = (g, gg)
    torch.testing.assert_close(got[0], g)
    torch.testing.assert_close(got[1], gg)
    assert torch.autograd.gradgradcheck(jf, (x, w))


def test_inplace_on_an_intermediate_is_split_and_correct():
    def f(x, w):
        y = x * 2
        y.add_(w)
        y.relu_()
        return torch.nn.functional.gelu(y).sum(), y

    x, w = leaves((3, 4), (4,))
    jf = tc.jit(f)
    got = grads_of(jf, [x, w], lambda o: o[0] + o[1].sum())
    want = grads_of(f, [x, w], lambda o: o[0] + o[1].sum())
    for g, e in zip(got, want):
        torch.testing.assert_close(g, e)
    assert tc.last_backward_traces(jf)
    assert not any(b.sym.id.endswith("_") for b in tc.last_traces(jf)[-1].bound_symbols)


def test_inplace_through_a_view_read_later_falls_back_to_torch_autograd_correctly():
    def f(x):
        y = x * 1
        v = y[0]
        v.mul_(3)  # writes into y through the view
        return (y * y).sum()

    x, = leaves((2, 3))
    jf = tc.jit(f)
    torch.testing.assert_close(grads_of(jf, [x])[0], grads_of(f, [x])[0])
    assert tc.last_backward_traces(jf) == []
    assert "without a backward trace, because" in tc.explain(jf)


def test_inplace_on_a_non_leaf_input():
    def f(x):
        x.mul_(2)
        return x.sin()

    base, = leaves((3,))

    def run(fn):
        b = base.detach().clone().requires_grad_()
        x = b * 1
        out = fn(x)
        out.sum().backward()
        return out, x, b.grad

    got, want = run(tc.jit(f)), run(f)
    for g, e in zip(got, want):
        torch.testing.assert_close(g, e)


def test_dropout_mask_is_the_forwards():
    def f(x):
        return torch.nn.functional.dropout(x, 0.5, training=True) * 3

    x, = leaves((64,))
    torch.manual_seed(1)
    out = tc.jit(f)(x)
    out.sum().backward()
    # the gradient is 3/(1-p) exactly where the forward kept the element, else 0
    torch.testing.assert_close(x.grad, (out != 0).float() * 6)


def test_a_dropout_whose_result_nothing_reads_still_draws_as_in_eager():
    # (PegasusX: the last layer's dropouts of its global tokens are dead; the split's forward
    # left them out, and every mask drawn after them, and the generator after the call, differed)
    def f(x, w):
        h, g = x @ w, x.cos() @ w
        for _ in range(2):
            h = torch.nn.functional.dropout(h, 0.3) + h
            g = torch.nn.functional.dropout(g, 0.3) + h.sum()  # the last one is dead
            h = torch.nn.functional.dropout(h, 0.3)
        return h

    x, w = torch.randn(4, 4, requires_grad=True), torch.randn(4, 4, requires_grad=True)
    jf = tc.jit(f)
    for _ in range(2):
        torch.manual_seed(0)
        want, want_next = f(x, w), torch.rand(3)
        torch.manual_seed(0)
        got, got_next = jf(x, w), torch.rand(3)
        torch.testing.assert_close(got, want)
        torch.testing.assert_close(got_next, want_next)
        assert torch.autograd.grad(got.sum(), w)[0].equal(torch.autograd.grad(want.sum(), w)[0])
    assert tc.last_backward_traces(jf)


def test_module_parameters_get_gradients_and_optimizer_step_works():
    torch.manual_seed(0)
    m = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.GELU(), torch.nn.Linear(16, 4))
    ref = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.GELU(), torch.nn.Linear(16, 4))
    ref.load_state_dict(m.state_dict())
    jm = tc.jit(m)
    x = torch.randn(5, 8)
    jm(x).pow(2).mean().backward()
    ref(x).pow(2).mean().backward()
    for p, q in zip(m.parameters(), ref.parameters()):
        torch.testing.assert_close(p.grad, q.grad)
    assert tc.last_backward_traces(jm)


def test_opaque_ops_are_differentiated_by_pytorch_autograd_for_that_op():
    def f(x, y):  # (aten operators called directly are outside the op language: opaque)
        return torch.ops.aten._cdist_forward.default(x, y, 2.0, None).sum() + torch.ops.aten.special_i0e(x).sum()

    x, y = leaves((3, 4), (5, 4), dtype=torch.float64)
    jf = tc.jit(f)
    assert torch.autograd.gradcheck(jf, (x, y))
    bwd = str(tc.last_backward_traces(jf)[-1])
    assert bwd.count("autograd.torch_vjp(") == 2 and bwd.count("vjp_of='opaque.") == 2, bwd


def test_library_ops_run_whole_are_differentiated_by_pytorch_autograd_for_that_op():
    def f(x, y):
        return torch.cdist(x, y).sum() + torch.linalg.det(x[:, :3]) + torch.special.i1(x).sum()

    x, y = leaves((3, 4), (5, 4), dtype=torch.float64)
    jf = tc.jit(f)
    assert torch.autograd.gradcheck(jf, (x, y))
    bwd = str(tc.last_backward_traces(jf)[-1])
    assert all(f"vjp_of='ltorch.{n}'" in bwd for n in ("cdist", "linalg_det", "special_i1")), bwd
    assert "opaque" not in str(tc.last_traces(jf)[0])


def test_a_plugin_rule_is_used_while_registered():
    from thunder_core import plugins
    from thunder_core.ops.registry import T

    calls = []

    def sinh_rule(b, g):   # ltorch.sinh has no built-in rule: it is differentiated through its decomposition
        calls.append(b.sym.id)
        return (g * T.cosh(b.args[0]),)

    class SinhRule:
        @tc.hookimpl
        def thunder_core_vjp_rules(self):
            return {"ltorch.sinh": sinh_rule}

    def f(x):
        return torch.sinh(x) * 2

    x, = leaves((4,))
    plugins.register(SinhRule(), "test-sinh-rule")
    try:
        tc.jit(f)(x).sum().backward()
    finally:
        plugins.unregister("test-sinh-rule")
    torch.testing.assert_close(x.grad, 2 * x.detach().cosh())
    assert calls == ["ltorch.sinh"]
    x.grad = None
    tc.jit(f)(x).sum().backward()   # unregistered: the decomposition again
    torch.testing.assert_close(x.grad, 2 * x.detach().cosh())
    assert calls == ["ltorch.sinh"]


def test_modifying_a_saved_tensor_before_backward_is_an_error_as_in_eager():
    def f(x, w):
        return (x * w).sum()  # saves x and w

    x, w = leaves((3,), (3,))
    for fn in (f, tc.jit(f)):
        out = fn(x, w)
        with torch.no_grad():
            x.add_(1)  # a leaf that requires grad, modified outside autograd
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            out.backward()


def test_backward_frees_saved_activations_as_it_goes():
    # the boxed backward empties its input list: after the call nothing outside holds them
    from thunder_core.ir import Trace, tracing
    from thunder_core.ir.trace import render
    from thunder_core.testing.opcheck import torch_impls

    t = Trace("bwd")
    a, b = t.add_input(torch.randn(4)), t.add_input(torch.randn(4))
    with tracing(t):
        t.output = (a * 2, b * 3)
    args = [torch.ones(4), torch.ones(4)]
    out = t.python_callable(torch_impls(), boxed=True)(args)
    assert args == [] and out[0].tolist() == [2.0] * 4
    assert "  del t0" in render(t, free=True, boxed=True)[0]  # each input dropped after its last use


@pytest.mark.parametrize("use_both", [False, True])
def test_an_output_also_used_inside_gets_its_cotangent_added_only_when_given(use_both):
    def f(x):
        logits = x * 3
        return logits, (logits ** 2).sum()

    x, = leaves((4, 5))
    jf = tc.jit(f)
    grads = []
    for fn in (jf, f):
        x.grad = None
        logits, loss = fn(x)
        (loss + logits.sum() if use_both else loss).backward()
        grads.append(x.grad)
    torch.testing.assert_close(grads[0], grads[1])
    assert "autograd.add_cotangent(" in str(tc.last_backward_traces(jf)[-1])


def test_saved_tensors_hooks_see_the_saved_activations():
    def f(x, w):
        return torch.tanh(torch.sin(x) @ w).sum()

    x, w = leaves((8, 16), (16, 4))
    for fn in (f, tc.jit(f)):
        packed = []

        def pack(t):
            packed.append(t.shape)
            return t.clone()  # e.g. an offload: the backward must use what unpack returns

        with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
            out = fn(x, w)
        x.grad = w.grad = None
        out.backward()
        assert torch.Size([8, 4]) in packed or torch.Size([8, 16]) in packed  # an activation went through pack
        grads = (x.grad.clone(), w.grad.clone())
        if fn is f:
            want = grads
    for g, e in zip(grads, want):
        torch.testing.assert_close(g, e)


class _ScaledGrad(torch.autograd.Function):
    """A custom gradient that is deliberately not the derivative: scale * (the true one)."""

    @staticmethod
    def forward(ctx, x, w, scale):
        ctx.save_for_backward(x, w)
        ctx.scale = scale
        return x * w, x.sum()

    @staticmethod
    def backward(ctx, g, g_sum):
        x, w = ctx.saved_tensors
        return ctx.scale * (g * w + g_sum), ctx.scale * (g * x), None


def test_custom_autograd_function_keeps_its_own_backward():
    def f(x, w):
        y, s = _ScaledGrad.apply(x.sin(), w, 3.0)
        return (y * 2).sum() + s

    x, w = leaves((4, 5), (4, 5))
    jf = tc.jit(f)
    got = grads_of(jf, [x, w], lambda out: out)
    want = grads_of(f, [x, w], lambda out: out)
    for g, e in zip(got, want):
        torch.testing.assert_close(g, e)
    # forward and backward traced: one higher-order call, the user's backward in the backward trace
    assert "name='_ScaledGrad'" in str(tc.last_traces(jf)[-1])
    assert "ctx.scale * (g * w + g_sum)" in str(tc.last_backward_traces(jf)[-1])
    with torch.no_grad():
        torch.testing.assert_close(jf(x, w), f(x, w))


@pytest.mark.parametrize("method", ["register_hook", "retain_grad"])
def test_hooks_on_traced_tensors_are_refused_not_silently_ignored(method):
    def f(x):
        y = x * 2
        getattr(y, method)(*([lambda g: g * 10] if method == "register_hook" else []))
        return y.sum()

    x, = leaves((3,))
    with pytest.raises(NotImplementedError, match=f"Tensor.{method}"):
        tc.jit(f)(x)


@pytest.mark.parametrize("use_reentrant", [True, False])
def test_activation_checkpointing_is_traced_inline(use_reentrant):
    from torch.utils.checkpoint import checkpoint

    def block(x, w, *, scale=1.0):
        return torch.tanh(x @ w) * scale

    def f(x, w):
        kw = {} if use_reentrant else {"scale": 2.0}  # (the reentrant variant takes no keywords)
        return checkpoint(block, x, w, use_reentrant=use_reentrant, **kw).sum()

    x, w = leaves((3, 4), (4, 5))
    jf = tc.jit(f)
    for g, e in zip(grads_of(jf, [x, w], lambda o: o), grads_of(f, [x, w], lambda o: o)):
        torch.testing.assert_close(g, e)
    assert "ltorch.tanh" in str(tc.last_traces(jf)[0])


@pytest.mark.parametrize("case", ["int", "slice_from_input", "mask"])
def test_setitem_on_an_intermediate_is_split_and_correct(case):
    def f(x):
        y = x.sin() * 2
        if case == "int":
            y[0] = 0
        elif case == "slice_from_input":
            y[1:3] = x[:2] * 5
        else:
            y[y > 0.5] = 0.5
        return (y * x).sum()

    x, = leaves((4,))
    jf = tc.jit(f)
    torch.testing.assert_close(grads_of(jf, [x], lambda o: o)[0], grads_of(f, [x], lambda o: o)[0])
    assert "setitem_out" in str(tc.last_traces(jf)[-1])


@pytest.mark.parametrize("how", ["factory", "requires_grad_"])
def test_a_leaf_made_inside_gets_its_gradient_as_in_eager(how):
    # The split differentiates with respect to the inputs: a tensor made requiring grad inside
    # the function used to leave what was computed from it without grad_fn (silently no
    # gradient); such traces run op by op under PyTorch's autograd (tc.explain says why).
    def f(x):
        w = torch.ones(3, requires_grad=True) if how == "factory" else (x * 0 + 2).detach().requires_grad_()
        y = (x * w).sin()
        return y, w

    jf = tc.jit(f)
    x = torch.randn(3)
    for _ in range(2):
        (y, w), (ye, we) = jf(x), f(x)
        assert y.requires_grad and ye.requires_grad and w.is_leaf
        torch.testing.assert_close(y, ye)
        y.sum().backward()
        ye.sum().backward()
        torch.testing.assert_close(w.grad, we.grad)
    assert "makes a new tensor requiring grad" in tc.explain(jf)


def test_a_leaf_made_inside_that_nothing_outside_sees_is_split_as_in_eager():
    # wav2vec2's (and HuBERT's, WavLM's...) feature encoder sets `requires_grad = True` on a
    # slice of its input in training: that leaf's gradient is computed for no one, and every
    # output requiring grad also depends on the parameters, so the split gives eager's
    # gradients (it ran op by op); an output computed only from the leaf still runs op by op
    conv = torch.nn.Conv1d(1, 4, 3)

    def encoder(x):
        h = x[:, None]
        h.requires_grad = True
        return conv(h).relu().sum(), h.shape[-1]

    def only_from_the_leaf(x):
        h = x * 1
        h.requires_grad_()
        return conv(x[:, None]).sum(), h * 2

    def factories(x):  # leaves made by factories stay in the trace (they write into no argument)
        w = torch.ones(6, requires_grad=True) * 2
        v = torch.full((6,), 3.0, requires_grad=True)
        return (conv(x[:, None]) * w * v).sin().sum(), 0

    x = torch.randn(2, 8)
    for f, splits in ((encoder, True), (only_from_the_leaf, False), (factories, True)):
        jf = tc.jit(f)
        for _ in range(2):
            conv.zero_grad(set_to_none=True)
            got = jf(x)
            sum(t.sum() for t in got if isinstance(t, torch.Tensor)).backward()
            want_grads = [p.grad.clone() for p in conv.parameters()]
            conv.zero_grad(set_to_none=True)
            want = f(x)
            sum(t.sum() for t in want if isinstance(t, torch.Tensor)).backward()
            torch.testing.assert_close(got, want)
            for g, p in zip(want_grads, conv.parameters()):
                torch.testing.assert_close(g, p.grad)
        assert bool(tc.last_backward_traces(jf)) == splits, tc.explain(jf)


def test_a_parameter_only_an_unused_output_reads_gets_no_gradient():
    # (a pooler whose output the loss ignores: eager leaves its .grad None; the split gave
    # zeros, which AdamW would decay and move)
    lin, head = torch.nn.Linear(4, 4), torch.nn.Linear(4, 2)

    def f(x):
        h = lin(x).tanh()
        return h, head(h[:, 0:4])

    x = torch.randn(3, 4)
    for fn in (f, tc.jit(f)):
        lin.zero_grad(), head.zero_grad()
        h, pooled = fn(x)
        h.square().sum().backward()
        assert head.weight.grad is None and head.bias.grad is None
        assert lin.weight.grad is not None
    want = torch.autograd.grad(f(x)[0].square().sum(), lin.weight)[0]
    torch.testing.assert_close(lin.weight.grad, want)
    # and both used: every gradient, as in eager
    lin.zero_grad(), head.zero_grad()
    h, pooled = tc.jit(f)(x)
    (h.sum() + pooled.sum()).backward()
    got = head.weight.grad.clone()
    lin.zero_grad(), head.zero_grad()
    h, pooled = f(x)
    (h.sum() + pooled.sum()).backward()
    torch.testing.assert_close(got, head.weight.grad)


def test_what_runs_under_no_grad_runs_without_grad_when_the_trace_runs_op_by_op():
    # A trace that cannot be split (here: it returns a leaf it made) runs its ops under
    # PyTorch's autograd in the caller's grad mode: a value the program computed under
    # torch.no_grad() had a grad_fn, so a backward through it reached w (silently 3x the
    # gradient), and an optimizer step inside (a write into a parameter) failed to run
    lin = torch.nn.Linear(3, 3)

    def f(x, w):
        y = x @ w
        with torch.no_grad():
            z = (x @ w) * 2
        return y, z, (x * 1).requires_grad_()

    def sgd_step(m, x):
        loss = m(x).square().sum()
        with torch.no_grad():
            for p in m.parameters():
                p.sub_(0.1 * p)
        return loss

    x, w = torch.randn(2, 3), torch.randn(3, 3, requires_grad=True)
    jf = tc.jit(f)
    for _ in range(2):
        (y, z, _), (ye, ze, _) = jf(x, w), f(x, w)
        assert not z.requires_grad and not ze.requires_grad
        assert torch.autograd.grad((y + z).sum(), w)[0].equal(torch.autograd.grad((ye + ze).sum(), w)[0])
    assert not tc.last_backward_traces(jf) and "set_grad_enabled(False)" in str(tc.last_traces(jf)[-1])

    ref = torch.nn.Linear(3, 3)
    ref.load_state_dict(lin.state_dict())
    js = tc.jit(sgd_step)
    for _ in range(2):
        torch.testing.assert_close(js(lin, x), sgd_step(ref, x))
        torch.testing.assert_close(dict(lin.named_parameters()), dict(ref.named_parameters()))
    assert not tc.last_backward_traces(js) and torch.is_grad_enabled()


def test_grad_mode_comes_back_when_a_no_grad_region_raises():
    def f(x, w, idx):
        with torch.no_grad():
            picked = (x @ w).index_select(0, idx)
            w.mul_(1)  # (a write into a parameter: op by op)
        return x @ w, picked

    x, w = torch.randn(2, 3), torch.randn(3, 3, requires_grad=True)
    jf = tc.jit(f)
    jf(x, w, torch.tensor([1]))
    with pytest.raises(IndexError):
        jf(x, w, torch.tensor([5]))  # (eager's error, raised inside the region)
    assert torch.is_grad_enabled()
