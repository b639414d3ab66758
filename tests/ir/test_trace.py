"""Traces: recording, printing as runnable Python, and running the printed source."""

import functools
import traceback

import pytest
import torch
from torch.testing import assert_close

from thunder_core.ir import NumberProxy, Trace, current_trace, tracing, verify

from . import toy_prims as prims
from . import toy_torch as ltorch
from .helpers import IMPLS, trace_function


def test_import():
    import thunder_core.ir as ir

    for name in ir.__all__:
        assert getattr(ir, name) is not None


def model(x, y, *, scale, gelu=torch.nn.functional.gelu):
    h = x * y + scale
    return gelu(h).mean(dim=1), h[0, ..., 1:]


def traced_model(*args, **kwargs):
    return trace_function(functools.partial(model, gelu=ltorch.gelu), *args, name="model", **kwargs)


GOLDEN = '''\
# thunder_core trace 'model'
import torch
import tests.ir.toy_torch as tltorch
import tests.ir.toy_prims as tprims

def model(t0, t1, *, scale):
  # t0: "cpu f32[2, 3, 4]"
  # t1: "cpu f32[2, 3, 4] requires_grad"
  # scale: "float 2.0"
  t2 = tprims.mul(t0, t1)  # t2: "cpu f32[2, 3, 4] requires_grad"
  t3 = tltorch.add(t2, scale)  # t3: "cpu f32[2, 3, 4] requires_grad"
  t8 = tltorch.gelu(t3)  # t8: "cpu f32[2, 3, 4] requires_grad"
  t10 = tltorch.mean(t8, dim=1)  # t10: "cpu f32[2, 4] requires_grad"
  t11 = tprims.getitem(t3, (0, ..., slice(1, None, None)))  # t11: "cpu f32[3, 3] requires_grad"
  return (t10, t11)
'''


def inputs():
    torch.manual_seed(0)
    return torch.randn(2, 3, 4), torch.randn(2, 3, 4, requires_grad=True)


def test_printed_trace_is_golden_and_valid_python():
    trace = traced_model(*inputs(), scale=2.0)
    assert trace.python() == str(trace) == GOLDEN
    compile(trace.python(), "<trace>", "exec")
    compile(trace.python(print_subsymbols=True), "<trace>", "exec")
    verify(trace)


def test_subsymbols_print_as_nested_comments():
    text = traced_model(*inputs(), scale=2.0).python(print_subsymbols=True)
    assert '''\
  t8 = tltorch.gelu(t3)  # t8: "cpu f32[2, 3, 4] requires_grad"
    # t4 = tprims.mul(t3, 0.5)  # t4: "cpu f32[2, 3, 4] requires_grad"
    # t5 = tprims.div(t3, 1.4142135623730951)  # t5: "cpu f32[2, 3, 4] requires_grad"
    # t6 = tprims.erf(t5)  # t6: "cpu f32[2, 3, 4] requires_grad"
    # t7 = tltorch.add(t6, 1.0)  # t7: "cpu f32[2, 3, 4] requires_grad"
      # t7 = tprims.add(t6, 1.0)  # t7: "cpu f32[2, 3, 4] requires_grad"
    # t8 = tprims.mul(t4, t7)  # t8: "cpu f32[2, 3, 4] requires_grad"
  t10 = tltorch.mean(t8, dim=1)''' in text


def test_running_the_printed_trace_matches_eager():
    x, y = inputs()
    fn = traced_model(x, y, scale=2.0).python_callable(IMPLS)
    assert fn.__name__ == "model"
    expected = model(x, y, scale=2.0)
    actual = fn(x, y, scale=2.0)
    assert_close(actual, expected)
    actual[0].sum().backward()  # the implementations are eager torch, so autograd works through them
    assert y.grad is not None


def test_only_prims_run_the_same_numbers():
    # a hand-written "executor" that provides implementations for prims only runs the
    # decompositions: flatten the trace to prims, then run it
    x, y = inputs()
    trace = traced_model(x, y, scale=-0.5)
    flat = trace.derive(bound_symbols=_prims_only(trace.bound_symbols))
    verify(flat)
    assert all(b.sym.is_prim for b in flat.bound_symbols) and "tltorch" not in flat.python()
    assert_close(flat.python_callable(prims.IMPLS)(x, y, scale=-0.5), model(x, y, scale=-0.5))


def _prims_only(bsyms):
    return [p for b in bsyms for p in ([b] if b.sym.is_prim else _prims_only(b.subsymbols))]


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.int64])
def test_more_ops_match_eager(dtype):
    def f(a, n, sum_dims):
        b, c = sum_dims(a)
        return (a.to(dtype=torch.float32) * n - 1).tanh(), b, c, 3, None, {"k": [a]}

    a = torch.arange(12, dtype=dtype).reshape(3, 4)
    trace = trace_function(lambda a, n: f(a, n, lambda a: prims.chunk2(prims.sum(a, dims=(0,), keepdim=True), dim=1)),
                           a, 3, name="f")
    verify(trace)
    assert isinstance(trace.args[1], NumberProxy) and trace.args[1].name == "i0"
    assert trace.python().endswith(f"  return (t{6 + (dtype != torch.float32)}, t2, t3, 3, None, {{'k': [t0]}})\n")
    assert ("tltorch.to(t0, dtype=torch.float32)" in trace.python()) == (dtype != torch.float32)
    eager = f(a, 3, lambda a: torch.chunk(torch.sum(a, (0,), keepdim=True), 2, 1))
    assert_close(trace.python_callable(IMPLS)(a, 3), eager)


def test_source_lines_become_comments():
    trace = Trace("f")
    x = trace.add_input(torch.zeros(2))
    with tracing(trace):
        with trace.at_source(("/home/u/model.py", 12, "        y = x * 2\n")):
            y = x * 2
            z = y * 3
        with trace.at_source(("/home/u/model.py", 13, "return y.tanh()")):
            trace.output = z.tanh()
    text = trace.python()
    assert '''\
  # model.py:12: \ty = x * 2
  t1 = tprims.mul(t0, 2)  # t1: "cpu f32[2]"
  t2 = tprims.mul(t1, 3)  # t2: "cpu f32[2]"
  # model.py:13: \treturn y.tanh()
  t3 = tprims.tanh(t2)  # t3: "cpu f32[2]"
  return t3''' in text
    trace.bound_symbols[0] = trace.bound_symbols[0].replace(header="inserted by a pass\nsecond line")
    assert "  # inserted by a pass\n  # second line\n  # model.py:12:" in trace.python()


def test_printed_trace_retraces_to_itself():
    x, y = inputs()
    trace = traced_model(x, y, scale=2.0)
    namespace = {}
    exec(trace.python(), namespace)  # the imports resolve the symbols themselves
    retraced = trace_function(namespace["model"], x, y, name="model", scale=2.0)
    assert retraced.python(print_subsymbols=True) == trace.python(print_subsymbols=True)
    again = trace_function(trace.python_callable(), x, y, name="model", scale=2.0)
    assert again.python() == trace.python()


def test_missing_and_ambiguous_implementations():
    trace = traced_model(*inputs(), scale=2.0)
    with pytest.raises(LookupError, match=r"no implementation for tltorch.add \(printed as tltorch.add\), "
                                          r"tltorch.mean .*torch.nn.functional.gelu \(printed as tltorch.gelu\)"):
        trace.python_callable(prims.IMPLS)
    impostor = prims.erf.__class__("mul", meta=prims.mul.meta, id="other.mul", module="tprims")
    with tracing(trace):
        trace.output = impostor(trace.args[0], trace.args[1])
    with pytest.raises(ValueError, match="two different symbols that both print as tprims.mul"):
        trace.python_callable(IMPLS)


def test_tracebacks_show_the_printed_trace():
    x, y = inputs()
    broken = {**IMPLS, "tltorch.mean": lambda a, *, dim: (_ for _ in ()).throw(RuntimeError("boom"))}
    fn = traced_model(x, y, scale=2.0).python_callable(broken)
    with pytest.raises(RuntimeError, match="boom") as info:
        fn(x, y, scale=2.0)
    frames = traceback.extract_tb(info.value.__traceback__)
    frame = next(f for f in frames if f.filename.startswith("<thunder_core trace model"))
    assert frame.line == "t10 = tltorch.mean(t8, dim=1)  # t10: \"cpu f32[2, 4] requires_grad\""


def test_names_and_inputs():
    trace = Trace("f")
    assert trace.add_input(torch.zeros(1), keyword="t1").name == "t1"  # keyword inputs take their name
    assert trace.add_input(torch.zeros(1)).name == "t0"
    assert trace.add_input(torch.zeros(1)).name == "t2"  # t1 is taken
    assert trace.add_input(1.5, keyword="torch").name == "f0"  # names the printed source needs are avoided
    assert trace.python().splitlines()[3:6] == ["def f(t0, t2, *, t1, torch):", '  # t0: "cpu f32[1]"',
                                                '  # t2: "cpu f32[1]"']
    assert "  f0 = torch\n" in trace.python()
    with pytest.raises(ValueError, match="already has a keyword input 't1'"):
        trace.add_input(1, keyword="t1")
    with pytest.raises(ValueError, match="'class' cannot name a proxy"):
        trace.reserve_name("class")
    with pytest.raises(ValueError, match="not a valid Python identifier"):
        Trace("my trace")
    derived = trace.derive(bound_symbols=[])
    assert derived.make_name("t") == "t3" and trace.make_name("t") == "t3"  # independent copies of the state
    assert derived.args == trace.args and derived.args is not trace.args


def test_tracing_contexts_nest():
    outer, inner = Trace("outer"), Trace("inner")
    assert current_trace() is None
    with tracing(outer):
        with tracing(inner):
            assert current_trace() is inner
        assert current_trace() is outer
    assert current_trace() is None
