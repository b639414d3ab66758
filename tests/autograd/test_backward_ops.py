"""The torch-level backward ops (thunder_core/ops/ltorch_backward.py, called here in torch's
convention like any op entry): the PyTorch kernel the torch executor runs and the
decomposition other executors get compute the same gradients."""

from __future__ import annotations

import pytest
import torch

from thunder_core.ir import Trace, tracing, verify
from thunder_core.ops import ltorch_backward as B
from thunder_core.testing.opcheck import torch_impls
from thunder_core.transforms.flatten import flatten

pytest.importorskip("thunder_executor_torch")
F64 = torch.float64


def rnd(*shape, dtype=F64):
    return torch.randn(*shape, dtype=dtype)


def _run_both(op, args, kwargs):
    trace, inputs = Trace("op"), []
    with tracing(trace):
        pargs = []
        for a in args:
            if isinstance(a, torch.Tensor):
                inputs.append(a)
                pargs.append(trace.add_input(a))
            else:
                pargs.append(a)
        trace.output = op(*pargs, **kwargs)
    verify(trace)
    impls = torch_impls()
    whole = trace.python_callable(impls)(*inputs)
    assert trace.bound_symbols[0].subsymbols, f"{op.symbol.id} has no decomposition"
    flat = flatten(trace, keep=lambda s: s.is_prim or s.decomposition is None)
    verify(flat)
    return whole, flat.python_callable(impls)(*inputs)


x4, g4 = rnd(3, 4, 2, 2), rnd(3, 4, 2, 2)
w4, rm, rv = rnd(4), rnd(4), rnd(4).abs() + 0.5
x3, g3, w3 = rnd(2, 3, 5), rnd(2, 3, 5), rnd(5)
q, k, v, ga = rnd(1, 2, 4, 8), rnd(1, 2, 4, 8), rnd(1, 2, 4, 8), rnd(1, 2, 4, 8)

CASES = {
    "softmax": (B.softmax_backward, (g3, x3.softmax(-1)), {"dim": -1}),
    "log_softmax": (B.log_softmax_backward, (g3, x3.log_softmax(1)), {"dim": 1}),
    "layer_norm": (B.layer_norm_backward, (g3, x3, (5,), w3, 1e-5), {"output_mask": (True, True, True)}),
    "rms_norm": (B.rms_norm_backward, (g3, x3, (5,), w3, 1e-6), {"output_mask": (True, True)}),
    "batch_norm_train": (B.batch_norm_backward, (g4, x4, w4, rm, rv, 1e-5),
                         {"training": True, "output_mask": (True, True, True)}),
    "batch_norm_eval": (B.batch_norm_backward, (g4, x4, w4, rm, rv, 1e-5),
                        {"training": False, "output_mask": (True, True, True)}),
    "batch_norm_no_weight": (B.batch_norm_backward, (g4, x4, None, None, None, 1e-5),
                             {"training": True, "output_mask": (True, False, False)}),
    "embedding": (B.embedding_dense_backward, (rnd(2, 3, 4), torch.tensor([[0, 2, 2], [1, 0, 4]])),
                  {"num_weights": 5, "padding_idx": 2}),
    "sdpa_causal": (B.sdpa_backward, (ga, q, k, v), {"is_causal": True}),
    # a row masked entirely (left padding): the kernel's gradients are zeros there, not NaN
    "sdpa_masked_row": (B.sdpa_backward, (ga, q, k, v, torch.tensor([[False] * 4] + [[True] * 4] * 3)), {}),
    "sdpa_forward": (B.sdpa_forward, (q, k, v), {"is_causal": True}),
    "layer_norm_forward": (B.layer_norm_forward, (x3, w3, rnd(5), 1e-5), {"normalized_shape": (5,)}),
    "layer_norm_backward_stats": (B.layer_norm_backward_stats,
                                  (g3, x3, *torch.ops.aten.native_layer_norm(x3, (5,), w3, None, 1e-5)[1:], w3, rnd(5)),
                                  {"normalized_shape": (5,), "output_mask": (True, True, True)}),
    "sdpa_backward_stats": (B.sdpa_backward_stats,
                            (ga, q, k, v, *torch.ops.aten._scaled_dot_product_flash_attention_for_cpu(q, k, v, 0.0, True)),
                            {"is_causal": True}),
}
# basic indexing: the gradient zero-padded back (a copy where nothing pads)
_X = rnd(4, 6, 8)
for _k, _idx in enumerate([(slice(None), slice(1, 4)), (Ellipsis, slice(None, 4)), (Ellipsis, slice(4, None)),
                           (slice(None), None, 2), -1, (slice(-3, None), Ellipsis, None), (slice(5, 2),),
                           (None, Ellipsis, None, slice(2, 5)), (slice(0, 100),), (1, slice(2, None), -2)]):
    CASES[f"getitem_{_k}"] = (B.getitem_backward, (_X[_idx] * 0 + rnd(*_X[_idx].shape), _idx), {"shape": (4, 6, 8)})


@pytest.mark.parametrize("idx", [(torch.tensor([0, 2, 2]),), (slice(None, None, 2),), ([0, 1],)])
def test_getitem_backward_of_other_indices_is_the_op_whole(idx):
    g = rnd(*_X[idx].shape)
    tensors = [e for e in idx if isinstance(e, torch.Tensor)]
    trace = Trace("op")
    with tracing(trace):
        pg, *pt = (trace.add_input(t) for t in (g, *tensors))
        pidx = tuple(pt.pop(0) if isinstance(e, torch.Tensor) else e for e in idx)
        trace.output = B.getitem_backward(pg, pidx, shape=(4, 6, 8))
    assert not trace.bound_symbols[0].subsymbols
    want = torch.zeros(4, 6, 8, dtype=F64, requires_grad=True)
    torch.testing.assert_close(trace.python_callable(torch_impls())(g, *tensors),
                               torch.autograd.grad(want[idx], want, g)[0])


@pytest.mark.parametrize("name", sorted(CASES))
def test_kernel_and_decomposition_agree(name):
    op, args, kwargs = CASES[name]
    whole, flat = _run_both(op, args, kwargs)
    torch.testing.assert_close(flat, whole)


def test_batch_norm_backward_matches_eager_autograd():
    x, w, b = (t.clone().requires_grad_() for t in (x4, w4, rnd(4)))
    out = torch.nn.functional.batch_norm(x, None, None, w, b, training=True)
    want = torch.autograd.grad(out, (x, w, b), g4)
    got, _ = _run_both(B.batch_norm_backward, (g4, x4, w4, None, None, 1e-5),
                       {"training": True, "output_mask": (True, True, True)})
    for a, e in zip(got, want):
        torch.testing.assert_close(a, e)


def test_training_attention_saves_its_statistics_instead_of_recomputing():
    import thunder_core as tc

    q, k, v = (torch.randn(2, 2, 8, 16, requires_grad=True) for _ in range(3))
    jfn = tc.jit(lambda q, k, v: torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True))
    jfn(q, k, v).sum().backward()
    assert "sdpa_forward" in str(tc.last_traces(jfn)[-1])
    assert "sdpa_backward_stats" in str(tc.last_backward_traces(jfn)[0])  # (executors may still decompose it)
    with torch.no_grad():  # inference keeps the plain op
        jfn(q, k, v)
    assert "scaled_dot_product_attention(" in str(tc.last_traces(jfn)[-1])


def test_rotary_style_slices_have_pads_for_gradients_under_symbolic_sizes():
    # x[..., :h] / x[..., h:] on a static last dim and x[:, :, None] on symbolic ones (Llama's
    # rotate_half and repeat_kv): their gradients are pads that fusing executors can take
    import thunder_core as tc

    w = torch.randn(6, 8, requires_grad=True)

    def f(x):
        q = x @ w  # (a static last dim, as a projection's)
        a, b = q[..., :4], q[..., 4:]
        return (torch.cat((-b, a), dim=-1) * q[:, :, None].sum(2)).sum()

    jf = tc.jit(f)
    for n in (3, 5):
        x = torch.randn(2, n, 6, requires_grad=True)
        jf(x).backward()
        got, x.grad = (x.grad, w.grad), None
        w.grad = None
        f(x).backward()
        torch.testing.assert_close(got, (x.grad, w.grad))
        w.grad = None
    assert tc.cache_misses(jf) == 1
    ids = [b.sym.id for b in tc.last_backward_traces(jf)[0].bound_symbols]
    # the VJP records the padding itself (zeros joined on), beside the ops around them
    assert "ltorch.getitem_backward" not in ids and ids.count("ltorch.cat") >= 2, ids


def test_training_attention_with_a_boolean_mask_saves_its_statistics_too():
    # eager makes a boolean mask additive before choosing the kernel; training records the same,
    # so the backward does not run the attention forward again (HF Llama's causal mask)
    import thunder_core as tc

    q, k, v = (torch.randn(2, 2, 8, 16, requires_grad=True) for _ in range(3))
    mask = torch.ones(8, 8, dtype=torch.bool).tril()
    mask[3] = False  # a row masked entirely: eager's kernel gives zeros there
    fn = lambda q, k, v, m: torch.nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=m)  # noqa: E731
    jfn = tc.jit(fn)
    g = torch.randn(2, 2, 8, 16)
    for _ in range(2):  # the op-by-op call, then (after tiered compiles) the compiled one
        got = jfn(q, k, v, mask)
        got_grads = torch.autograd.grad(got, (q, k, v), g)
        tc.wait_for_compiles()
    want = fn(q, k, v, mask)
    torch.testing.assert_close(got, want)
    for a, e in zip(got_grads, torch.autograd.grad(want, (q, k, v), g)):
        torch.testing.assert_close(a, e)
    assert "sdpa_forward" in str(tc.last_traces(jfn)[-1])
    bwd = tc.last_backward_traces(jfn)[0]
    assert "sdpa_backward_stats" in str(bwd) and "sdpa_forward" not in str(bwd)


@pytest.mark.parametrize("dtype,queries,mask,expected", [
    (torch.bfloat16, 100, False, ("flash", [2, 4, 100])),
    (torch.float16, 64, False, ("flash", [2, 4, 64])),
    (torch.float32, 100, False, ("efficient", [2, 4, 100])),  # (the kernel's padded buffer, viewed)
    (torch.bfloat16, 100, True, (None, None)),  # a mask on CUDA: the plain op, forward recomputed
])
def test_training_attention_on_cuda_records_the_kernel_that_saves_statistics(dtype, queries, mask, expected):
    """Planned for an H100 with fake CUDA tensors (no GPU here: the kernels' execution is
    checked by scripts/gpu_check.py on a GPU): training records sdpa_forward with the
    logsumexp layout of the CUDA kernel eager would pick (ops/attention_kernels.py)."""
    from torch._subclasses.fake_tensor import FakeTensorMode

    import thunder_core as tc
    from thunder_core.ops import attention_kernels

    with FakeTensorMode():
        q = torch.randn(2, 4, queries, 64, device="cuda", dtype=dtype, requires_grad=True)
        m = torch.zeros(queries, queries, device="cuda", dtype=dtype) if mask else None
    assert attention_kernels.kernel(q, q, q, m, False) == expected[0]

    def f(q, k, v, m):
        return torch.nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=m, is_causal=m is None)

    plan = tc.plan(f, q, q, q, m, target="h100", executors=["torch"])
    fwd = [b for b in plan.traces[-1].bound_symbols if b.sym.id == "ltorch.sdpa_forward"]
    bwd = [b.sym.id for b in plan.backward_traces[-1].bound_symbols]
    if expected[0] is None:
        assert not fwd and "ltorch.sdpa_backward" in bwd, bwd
        return
    (b,) = fwd
    assert list(b.flat_outs[1].shape) == expected[1] and b.flat_outs[1].dtype == torch.float32
    assert "ltorch.sdpa_backward_stats" in bwd and "ltorch.sdpa_backward" not in bwd, bwd


def test_the_efficient_kernels_padded_logsumexp_round_trips():
    """The CUDA memory-efficient kernel pads its logsumexp to 32 queries; forward returns the
    (batch, heads, queries) view and backward hands the kernel the padded buffer again: the
    same memory when given that view, a padded copy otherwise (a decomposition's logsumexp)."""
    from thunder_core.ops.attention_kernels import _padded

    buf = torch.randn(2, 3, 64)
    view = buf[..., :40]
    again = _padded(view)
    assert again.shape == (2, 3, 64) and again.data_ptr() == buf.data_ptr() and torch.equal(again, buf)
    copy = _padded(view.contiguous())
    assert copy.shape == (2, 3, 64) and torch.equal(copy[..., :40], view)
    full = torch.randn(2, 3, 32)
    assert _padded(full) is full


def test_the_cuda_kernels_rng_placeholders_are_not_cached_while_a_compiler_traces():
    """Inductor traces a region holding sdpa_backward_stats with fake tensors: the placeholders
    made then must not be cached for the real calls that follow (seen on an H100: a later
    torch-executor backward got a fake tensor)."""
    from torch._subclasses.fake_tensor import FakeTensorMode

    from thunder_core.ops import attention_kernels

    attention_kernels._cached_rng.cache_clear()
    with FakeTensorMode():
        q = torch.randn(2, 4, 64, 64, device="cuda", dtype=torch.bfloat16)
        out, lse = attention_kernels.forward(q, q, q, None, None, True)
        grads = attention_kernels.backward(out, q, q, q, out, lse, None, None, True)
    assert [tuple(g.shape) for g in grads] == [(2, 4, 64, 64)] * 3 and tuple(lse.shape) == (2, 4, 64)
    assert attention_kernels._cached_rng.cache_info().currsize == 0


def test_a_backend_switch_turned_after_tracing_does_not_change_the_traced_kernel(monkeypatch):
    """The switches (torch.backends.cuda.enable_flash_sdp) pick the kernel while tracing; running
    what was traced uses that kernel even if a switch was turned since (it would otherwise fall
    to the CPU kernel with CUDA tensors)."""
    from torch._subclasses.fake_tensor import FakeTensorMode

    from thunder_core.ops import attention_kernels

    class NoCpuKernel:  # the CPU kernel must not be reached with CUDA tensors
        def __getattr__(self, name):
            assert "for_cpu" not in name, name
            return getattr(torch.ops.aten, name)

    monkeypatch.setattr(attention_kernels, "aten", NoCpuKernel())
    with FakeTensorMode():
        q = torch.randn(2, 4, 64, 64, device="cuda", dtype=torch.bfloat16)
        assert attention_kernels.kernel(q, q, q, None, False) == "flash"
        monkeypatch.setattr(torch.backends.cuda, "flash_sdp_enabled", lambda: False)
        assert attention_kernels.kernel(q, q, q, None, False) is None  # a new trace records the plain op
        out, lse = attention_kernels.forward(q, q, q, None, None, True)  # a traced one still runs flash
    assert tuple(lse.shape) == (2, 4, 64) and lse.device.type == "cuda"
