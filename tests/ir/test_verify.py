"""The verifier accepts valid traces and reports each kind of broken invariant, naming
the bound symbol and its printed line."""

import pytest
import torch

from thunder_core.ir import BoundSymbol, IRVerificationError, TensorProxy, Trace, tracing, verify

from . import toy_prims as prims
from . import toy_torch as ltorch


def T(name, shape=(2, 3), dtype=torch.float32, requires_grad=False):
    return TensorProxy(name, shape, dtype, "cpu", requires_grad)


def base() -> Trace:
    """t2 = add(t0, t1); t7 = gelu(t2) [t3..t7 in its decomposition]; t8 = mul(t7, t2)."""
    trace = Trace("f")
    x, y = trace.add_input(torch.zeros(2, 3)), trace.add_input(torch.zeros(2, 3))
    with tracing(trace):
        a = prims.add(x, y)
        trace.output = prims.mul(ltorch.gelu(a), a)
    return trace


def fails(trace, *patterns):
    with pytest.raises(IRVerificationError) as info:
        verify(trace)
    message = str(info.value)
    for p in patterns:
        assert p in message, f"{p!r} not in:\n{message}"
    return info.value


def test_valid_traces_pass():
    trace = base()
    verify(trace)
    assert [b.sym.id for b in trace.bound_symbols] == ["tprims.add", "torch.nn.functional.gelu", "tprims.mul"]
    verify(Trace("empty"))
    trace.bound_symbols[1] = trace.bound_symbols[1].replace(header="a pass was here", tags={"checked"})
    verify(trace)


def test_use_before_definition():
    trace = base()
    trace.bound_symbols[0], trace.bound_symbols[1] = trace.bound_symbols[1], trace.bound_symbols[0]
    e = fails(trace, "Trace 'f' is invalid at bound symbol 0 (torch.nn.functional.gelu), line 9 of trace.python(): "
                     "it uses t2 before it is defined.",
              "must keep or move the call defining t2 before this one",
              '>>   9 |   t7 = tltorch.gelu(t2)  # t7: "cpu f32[2, 3]"')
    assert e.bsym is trace.bound_symbols[0]


def test_decomposition_intermediates_are_not_visible_outside():
    trace = base()
    intermediate = trace.bound_symbols[1].subsymbols[2].output
    with tracing(trace):
        trace.output = prims.tanh(intermediate)
    fails(trace, "bound symbol 3 (tprims.tanh)", "it uses t5 before it is defined (it is defined, but not in this scope)")
    trace.output = intermediate
    trace.bound_symbols.pop()
    fails(trace, "its output uses t5, which is never defined at the top level of the trace")


def test_name_defined_twice():
    trace = base()
    add, gelu, mul = trace.bound_symbols
    trace.bound_symbols[2] = mul.replace(output=T("t2"))
    trace.output = trace.bound_symbols[2].output
    fails(trace, "bound symbol 2 (tprims.mul)", "it defines t2, which is already defined", "trace.make_name")
    trace.bound_symbols[2] = mul.replace(output=T("t4"))  # a name used inside gelu's decomposition
    trace.output = trace.bound_symbols[2].output
    fails(trace, "it defines t4, which is already defined")


def test_undefined_trace_output():
    trace = base()
    trace.output = (trace.output, {"extra": T("t99")})
    e = fails(trace, "Trace 'f' is invalid: its output uses t99, which is never defined",
              "updated trace.output")
    assert e.bsym is None


def test_namesake_proxy():
    trace = base()
    add = trace.bound_symbols[0]
    trace.bound_symbols[0] = add.replace(args=(T("t0"), add.args[1]))
    fails(trace, "bound symbol 0 (tprims.add)", "it uses a proxy named t0 that is not the proxy defined under that name")


@pytest.mark.parametrize("output, problem", [
    (T("t2", shape=(3, 2)), "t2 has shape (3, 2) but the rule gives (2, 3)"),
    (T("t2", dtype=torch.float16), "t2 has dtype torch.float16 but the rule gives torch.float32"),
    (T("t2", requires_grad=True), "t2 has requires_grad True but the rule gives False"),
    ((T("t2"),), "the output is a tuple of length 1 but the rule returns a tensor [2, 3] torch.float32 on cpu"),
])
def test_outputs_must_match_the_meta_function(output, problem):
    x, y = T("t0"), T("t1")
    trace = Trace("f", args=[x, y], bound_symbols=[BoundSymbol(prims.add, (x, y), {}, output)], output=output)
    fails(trace, "bound symbol 0 (tprims.add), line 8", f"its outputs do not match its meta function: {problem}")


def test_outputs_must_match_the_decomposition_when_there_is_no_meta():
    x, y = T("t0"), T("t1", shape=(2, 2))
    bsym = BoundSymbol(prims.chunk2, (x,), {"dim": 1}, (T("t1"), T("t2", shape=(2, 1))))
    fails(Trace("f", args=[x], bound_symbols=[bsym]), "t1 has shape (2, 3) but the rule gives (2, 2)")
    to = BoundSymbol(ltorch.to, (x,), {"dtype": torch.float16}, T("t1"))
    fails(Trace("f", args=[x], bound_symbols=[to]), "its outputs do not match its decomposition: t1 has dtype")


def test_meta_function_rejects_the_inputs():
    x, z = T("t0"), T("t1", shape=(4,))
    bsym = BoundSymbol(prims.add, (x, z), {}, T("t2"))
    fails(Trace("f", args=[x, z], bound_symbols=[bsym]),
          "re-running tprims.add's meta function on its inputs raised RuntimeError: ", "does not accept")


def test_subsymbols_must_compute_the_output():
    trace = base()
    gelu = trace.bound_symbols[1]
    trace.bound_symbols[1] = gelu.replace(subsymbols=gelu.subsymbols[:-1])
    fails(trace, "bound symbol 1 (torch.nn.functional.gelu)", "its subsymbols do not compute its output t7")


def test_subsymbols_are_checked_in_their_scope():
    trace = base()
    gelu = trace.bound_symbols[1]
    erf = gelu.subsymbols[2]
    subsymbols = list(gelu.subsymbols)
    subsymbols[1], subsymbols[2] = erf, subsymbols[1]
    trace.bound_symbols[1] = gelu.replace(subsymbols=subsymbols)
    fails(trace, "subsymbol 1 of bound symbol 1 (tprims.erf), line 12 of trace.python(print_subsymbols=True): "
                 "it uses t4 before it is defined", ">>  12 |     # t5 = tprims.erf(t4)")
    nested = gelu.subsymbols[3]  # tltorch.add inside gelu, itself decomposed
    bad = nested.replace(subsymbols=[nested.subsymbols[0].replace(args=(T("t42"), 1.0))])
    trace.bound_symbols[1] = gelu.replace(subsymbols=[*gelu.subsymbols[:3], bad, gelu.subsymbols[4]])
    fails(trace, "subsymbol 0 in subsymbol 3 of bound symbol 1 (tprims.add)", "it uses t42 before it is defined")


@pytest.mark.parametrize("args, kwargs, problem", [
    (("x",), {"dims": "y"}, "it passes the proxy t0 by keyword (dims=...)"),
    (("x", torch.float16), {}, "it passes the static value torch.float16 positionally"),
    (("x",), {"not valid": 1}, "its keyword argument name 'not valid' is not an identifier"),
])
def test_calling_convention(args, kwargs, problem):
    x = T("t0")
    subst = {"x": x, "y": x}
    bsym = BoundSymbol(prims.convert_element_type, [subst.get(a, a) if isinstance(a, str) else a for a in args],
                       {k: subst.get(v, v) for k, v in kwargs.items()}, T("t1", dtype=torch.float16))
    fails(Trace("f", args=[x], bound_symbols=[bsym]), problem, "tensors and numbers positional, static metadata by keyword")


def test_malformed_inputs_outputs_and_names():
    x = T("t0")
    fails(Trace("f", args=[x, 3]), "input 1 is 3 (a int), not a proxy")
    fails(Trace("f", args=[x, x]), "the input name t0 is defined twice")
    fails(Trace("f", args=[T("torch")]), "input name 'torch' cannot be a variable of the printed trace")
    with_alias = base()
    with_alias.args[0] = T("tprims")
    fails(with_alias, "input name 'tprims' cannot be a variable of the printed trace")
    fails(Trace("f", args=[x], bound_symbols=["t1 = tanh(t0)"]), "its bound symbol 0 is 't1 = tanh(t0)'")
    bsym = BoundSymbol(prims.chunk2, (x,), {"dim": 1}, (T("t1", shape=(2, 2)), 5))
    fails(Trace("f", args=[x], bound_symbols=[bsym]), "its output contains 5, which is not a proxy")
    fails(Trace("f", args=[x], output=(x, object())), "it cannot be printed as Python: Cannot print the output")
