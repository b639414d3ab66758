"""The higher-order symbol kind in the IR: bound symbols holding closed sub-traces, printed as
functions of the trace's module (runnable, and recordable again), checked by the verifier."""

import pytest
import torch

import thunder_core as tc
from thunder_core.extend import subtraces
from thunder_core.ir import IRVerificationError, NumberProxy, Trace, tracing, verify
from thunder_core.ir.proxies import number_proxy, tensor_proxy
from thunder_core.ops import higher_order as ho
from thunder_core.ops.registry import T


def f(x, w):
    return torch.cond(x.sum() > 0, lambda x: (x * w).sin(), lambda x: x.cos() * 2, (x,))


def test_printed_trace_records_again():
    jf = tc.jit(f)
    jf(torch.randn(3), torch.randn(3))
    trace = tc.last_traces(jf)[0]
    (hop,) = [b for b in trace.bound_symbols if subtraces(b)]
    assert set(subtraces(hop)) == {"true_fn", "false_fn"}
    # exec'd without implementations, the printed source records the same program again
    again = Trace("again")
    with tracing(again):  # the same signature: symbolic sizes (x_0, ...) and the tensors that have them
        new = {}
        for a in trace.args:
            new[a.name] = again.add_input(
                number_proxy(int, name=a.name, hint=a.hint, lower=2) if isinstance(a, NumberProxy) else
                tensor_proxy([new[d.name] if isinstance(d, NumberProxy) else d for d in a.shape], a.dtype, a.device,
                             name=a.name))
        again.output = trace.python_callable()(*new.values())
    verify(again)
    assert [b.sym.id for b in again.bound_symbols] == [b.sym.id for b in trace.bound_symbols]
    assert subtraces(again.bound_symbols[-1])["true_fn"] is subtraces(hop)["true_fn"]


def _branch(name, body):
    t = Trace(name)
    x = t.add_input(torch.randn(3), name=f"{name}_x")
    with tracing(t):
        t.output = (body(x),)
    return t


def test_verifier_checks_sub_traces():
    outer = Trace("outer")
    x = outer.add_input(torch.randn(3), name="x")
    pred = outer.add_input(torch.tensor(True), name="p")
    good = _branch("good_t", lambda a: a * 2)
    with tracing(outer):
        # a branch reading the enclosing trace's x instead of its own input: not closed
        leaky = _branch("leaky_f", lambda a: a * 2)
        leaky.bound_symbols = [leaky.bound_symbols[0].replace(args=(x, 2))]
        leaky.output = (leaky.bound_symbols[0].output,)
        outer.output = ho.cond(pred, (x,), true_fn=good, false_fn=leaky)
    with pytest.raises(IRVerificationError, match="sub-trace false_fn=leaky_f is invalid") as e:
        verify(outer)
    assert "uses x before it is defined" in str(e.value)


def test_two_sub_traces_with_one_name_do_not_print():
    outer = Trace("outer")
    x = outer.add_input(torch.randn(3), name="x")
    pred = outer.add_input(torch.tensor(True), name="p")
    with tracing(outer):
        a = ho.cond(pred, (x,), true_fn=_branch("same", lambda a: a + 1), false_fn=_branch("other", T.neg))
        outer.output = ho.cond(pred, a, true_fn=_branch("same", lambda a: a - 1), false_fn=_branch("other2", T.neg))
    with pytest.raises(IRVerificationError, match="two different sub-traces named 'same'"):
        verify(outer)


def test_a_transform_that_rewrites_sub_traces():
    """What the docs tell transform authors: rewrite each sub-trace as a trace of its own (here:
    a header comment on every call, inside branches too), or leave it alone."""

    def annotate(trace):
        out = []
        for b in trace.bound_symbols:
            subs = subtraces(b)
            if subs:
                b = b.replace(kwargs={**b.kwargs, **{k: annotate(s) for k, s in subs.items()}})
            out.append(b.replace(header=f"seen by annotate: {b.sym.id}"))
        return trace.derive(bound_symbols=out)

    jf = tc.jit(f, transforms=[annotate])
    x, w = torch.rand(3) + 0.1, torch.randn(3)
    torch.testing.assert_close(jf(x, w), f(x, w))
    printed = str(tc.last_traces(jf)[1])
    assert "# seen by annotate: ltorch.sin" in printed and "# seen by annotate: higher_order.cond" in printed
    verify(tc.last_traces(jf)[1])


def test_explain_shows_claims_inside_branches():
    jf = tc.jit(f)
    jf(torch.randn(3), torch.randn(3))
    text = tc.explain(jf)
    assert "higher_order.cond" in text and "cond_true0: ltorch.mul" in text and "cond_false0: ltorch.cos" in text
