"""cache="symbolic values": Triton regions with symbolic sizes take the sizes as kernel
arguments, so new sizes reuse the trace and the compiled kernel; a row kernel whose row
length crosses what one program holds switches to its looped variant behind the executor's
own cache. Under Triton's interpreter, against eager."""

import pytest
import torch
import torch.nn.functional as F

import thunder_core as tc
from thunder_core.examples.models import GPT
from thunder_core.extend import NumberProxy, profile, region_of
import thunder_executor_triton.kernels as kernels
from triton_helpers import TRITON_HERE, close, triton_regions


def _symbolic(region) -> bool:
    return any(type(d) is NumberProxy and d.value is None for p in region.args for d in getattr(p, "shape", ()))


def test_gpt_training_over_sequence_lengths_is_one_trace_with_triton_kernels():
    torch.manual_seed(15)
    model = GPT(vocab=64, block_size=32, n_layer=1, n_embd=32, n_head=2)
    jm = tc.jit(model, executors=[TRITON_HERE, "torch"], cache="symbolic values")
    compiled = None
    for T in (9, 12, 17):
        idx, tgt = torch.randint(0, 64, (2, T)), torch.randint(0, 64, (2, T))
        logits, loss = jm(idx, tgt)
        loss.backward()
        ours = {n: p.grad.clone() for n, p in model.named_parameters()}
        model.zero_grad()
        e_logits, e_loss = model(idx, tgt)
        e_loss.backward()
        torch.testing.assert_close(logits, e_logits, rtol=1e-5, atol=1e-5)
        torch.testing.assert_close(loss, e_loss, rtol=1e-5, atol=1e-5)
        for n, p in model.named_parameters():
            torch.testing.assert_close(ours[n], p.grad, rtol=1e-4, atol=1e-5, msg=n)
        model.zero_grad()
        if compiled is None:
            compiled = len(kernels._JIT)
    assert tc.cache_misses(jm) == 1
    assert len(kernels._JIT) == compiled  # the kernels compiled for length 9 served 12 and 17
    forward, backward = tc.last_traces(jm)[-1], tc.last_backward_traces(jm)[-1]
    claimed = triton_regions(forward) + triton_regions(backward)
    assert len(triton_regions(forward)) >= 4 and len(triton_regions(backward)) >= 8, (forward, backward)
    assert sum(_symbolic(r) for r in claimed) >= 10
    ops = {s.sym.id for r in claimed for s in r.subsymbols}
    assert {"ltorch.layer_norm_forward", "ltorch.gelu", "ltorch.log_softmax", "ltorch.nll_loss",
            "ltorch.gelu_backward", "ltorch.log_softmax_backward"} <= ops, ops


def test_a_row_length_crossing_the_program_size_switches_to_the_looped_variant(monkeypatch):
    import thunder_executor_triton.tuning as tuning

    monkeypatch.setitem(tuning.WHOLE_ROW, "cpu", 16)
    monkeypatch.setitem(tuning.CHUNK, "cpu", 8)

    def fn(x, w):
        return F.layer_norm(x, (x.shape[-1],), w[:x.shape[-1]]).softmax(-1)

    jf = tc.jit(fn, executors=[TRITON_HERE, "torch"], cache="symbolic values")
    w = torch.randn(64)
    sizes = []
    for cols in (10, 13, 40, 23):  # whole rows, whole, looped, looped
        x = torch.randn(3, cols)
        close(jf(x, w), fn(x, w), torch.float32)
        sizes.append(len(kernels._JIT))
    assert tc.cache_misses(jf) == 1
    (region,) = triton_regions(tc.last_traces(jf)[-1])
    assert _symbolic(region)
    # one kernel for the whole rows of 10 and 13, one more (the looped variant) for 40 and 23
    assert sizes[1] == sizes[0] and sizes[2] == sizes[1] + 1 and sizes[3] == sizes[2], sizes


@pytest.mark.parametrize("name", ["pointwise", "column", "middle"])
def test_pointwise_and_reduction_kernels_take_sizes_as_arguments(name):
    fns = {"pointwise": lambda x, b: torch.tanh(x * b + 1),
           "column": lambda x, b: (x * b).sum(0),
           "middle": lambda x, b: (x * b).sum(1, keepdim=True) * 2}
    fn = fns[name]
    jf = tc.jit(fn, executors=[TRITON_HERE, "torch"], cache="symbolic values")
    for shape in [(5, 6, 7), (9, 4, 7), (3, 11, 7)]:
        x, b = torch.randn(shape), torch.randn(7)
        close(jf(x, b), fn(x, b), torch.float32)
    assert tc.cache_misses(jf) == 1
    (region,) = triton_regions(tc.last_traces(jf)[-1])
    assert _symbolic(region)


def test_one_cubin_serves_every_size_of_a_symbolic_region():
    """The ahead-of-time compile of a symbolic region: sizes are i32 kernel arguments."""
    jf = tc.jit(lambda x: torch.softmax(x * 2, -1), executors=[TRITON_HERE, "torch"], cache="symbolic values")
    jf(torch.randn(6, 50))
    (region,) = triton_regions(tc.last_traces(jf)[-1])
    arts = {a.kind: a for a in kernels.artifacts(region_of(region), profile("h100"))}
    assert arts["cubin"].content[:4] == b"\x7fELF"
    assert "sizes as arguments" in arts["cubin"].note
    assert ".param .u32" in arts["ptx"].content  # the sizes are parameters of the kernel


def test_numbers_passed_in_are_kernel_arguments():
    fn = lambda x, t, s: torch.tanh(x * t + s) * s  # noqa: E731
    jf = tc.jit(fn, executors=[TRITON_HERE, "torch"], cache="symbolic values")
    for s in (0.5, 1.5, -2.0):
        x, t = torch.randn(5, 7), torch.randn(7)
        close(jf(x, t, s), fn(x, t, s), torch.float32)
    assert tc.cache_misses(jf) == 1
    (region,) = triton_regions(tc.last_traces(jf)[-1])
    assert any(type(a) is NumberProxy for a in region.args)


def test_sizes_needing_a_variant_the_generator_declines_run_with_torch(monkeypatch):
    """A norm's backward reduces over all rows, which looped rows cannot do in one kernel: with
    a symbolic row length the region is claimed for the rows it can hold, and a call with longer
    rows runs that region with torch's kernels (same trace, eager's gradients)."""
    import thunder_executor_triton.tuning as tuning

    monkeypatch.setitem(tuning.WHOLE_ROW, "cpu", 16)
    monkeypatch.setitem(tuning.CHUNK, "cpu", 8)

    def fn(x, w, b):
        return F.layer_norm(x, (x.shape[-1],), w, b)

    fallbacks = []
    made = kernels.region_callable
    monkeypatch.setattr(kernels, "region_callable", lambda region, impls: fallbacks.append(region) or
                        made(region, impls))
    jf = tc.jit(fn, executors=[TRITON_HERE, "torch"])
    for cols in (12, 40, 9, 41):  # whole rows, too long for the kernel's layout, whole, too long
        ours = [torch.randn(s).requires_grad_() for s in ((3, cols), (cols,), (cols,))]
        ref = [t.detach().clone().requires_grad_() for t in ours]
        close(jf(*ours), fn(*ref), torch.float32)
        g = torch.randn(3, cols)
        jf(*ours).backward(g)
        fn(*ref).backward(g)
        for a, e in zip(ours, ref):
            torch.testing.assert_close(a.grad, e.grad, rtol=1e-4, atol=1e-4)
        assert len(fallbacks) == (0 if cols == 12 else 1)  # made once, for the first long rows
    assert tc.cache_misses(jf) == 1
    backward = tc.last_backward_traces(jf)[-1]
    (norm,) = [r for r in triton_regions(backward) if len(r.flat_outs) >= 2]
    assert _symbolic(norm)
    assert "calls needing another variant run with torch" in str(tc.explain(jf))
    assert [b.sym.id for b in fallbacks[0].bsyms] == [b.sym.id for b in norm.subsymbols]
