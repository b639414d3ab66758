"""Symbols record bound symbols into the current trace; bound symbols are frozen records."""

import dataclasses

import pytest
import torch

from thunder_core.ir import BoundSymbol, Symbol, TensorProxy, Trace, TracingError, tensor_proxy, tracing

from . import toy_prims as prims
from . import toy_torch as ltorch


@pytest.fixture
def trace():
    trace = Trace("f")
    trace.add_input(torch.zeros(2, 3))
    trace.add_input(torch.zeros(2, 3, dtype=torch.float64, requires_grad=True))
    with tracing(trace):
        yield trace


def test_calling_outside_a_trace_is_an_error():
    t = TensorProxy("t0", (2,), torch.float32, "cpu")
    with pytest.raises(TracingError, match=r"Symbol tprims.add was called outside of a trace.*tracing\(trace\)"):
        prims.add(t, t)


def test_call_records_a_bound_symbol(trace):
    t0, t1 = trace.args
    out = prims.sum(prims.add(t0, t1), dims=(1,), keepdim=True)
    add, sum_ = trace.bound_symbols
    assert add.sym is prims.add and add.args == (t0, t1) and dict(add.kwargs) == {}
    assert sum_.kwargs["dims"] == (1,) and sum_.output is out
    assert (out.name, out.shape, out.dtype, out.requires_grad) == ("t3", (2, 1), torch.float64, True)
    assert add.flat_args == (t0, t1) and add.flat_outs == (sum_.args[0],) and sum_.subsymbols == ()
    with pytest.raises(TypeError):
        sum_.kwargs["dims"] = (0,)  # kwargs are read-only
    with pytest.raises(dataclasses.FrozenInstanceError):
        sum_.output = None
    assert repr(add) == 't2 = tprims.add(t0, t1)  # t2: "cpu f64[2, 3] requires_grad"'


def test_multiple_outputs(trace):
    a, b = prims.chunk2(trace.args[0], dim=1)
    (bsym,) = trace.bound_symbols
    assert bsym.output[0] is a and bsym.output[1] is b and bsym.flat_outs[1] is b
    assert a.shape == (2, 2) and b.shape == (2, 1)
    assert bsym.python().startswith("(t2, t3) = tprims.chunk2(t0, dim=1)  # t2: ")


def test_decomposition_becomes_subsymbols(trace):
    t0, _ = trace.args
    out = ltorch.gelu(t0)
    (gelu,) = trace.bound_symbols
    assert gelu.sym is ltorch.gelu and gelu.output is out
    assert [s.sym.id for s in gelu.subsymbols] == ["tprims.mul", "tprims.div", "tprims.erf", "tltorch.add",
                                                    "tprims.mul"]
    assert gelu.subsymbols[-1].output is out  # the decomposition computes the outer output
    nested = gelu.subsymbols[3]
    assert [s.sym.id for s in nested.subsymbols] == ["tprims.add"] and nested.subsymbols[0].output is nested.output


def test_no_op_decomposition_records_nothing(trace):
    t0, _ = trace.args
    assert ltorch.to(t0, dtype=torch.float32) is t0
    assert trace.bound_symbols == []
    assert ltorch.to(t0, dtype=torch.float16).dtype is torch.float16
    assert [b.sym.id for b in trace.bound_symbols] == ["tltorch.to"]


def test_rules_must_return_fresh_proxies(trace):
    t0, _ = trace.args
    identity = Symbol("identity", meta=lambda a: a, id="test.identity", is_prim=True)
    with pytest.raises(TracingError, match="Symbol test.identity returned its input t0 as an output"):
        identity(t0)
    constant = Symbol("constant", meta=lambda a: 3, id="test.constant")
    with pytest.raises(TracingError, match=r"returned 3 \(a int\) from its meta function"):
        constant(t0)
    assert trace.bound_symbols == []


def test_decomposition_errors_leave_the_scope(trace):
    with pytest.raises(NotImplementedError, match="approximate='tanh'"):
        ltorch.gelu(trace.args[0], approximate="tanh")
    prims.erf(trace.args[0])  # records at the top level again
    assert [b.sym.id for b in trace.bound_symbols] == ["tprims.erf"]


def test_source_is_recorded(trace):
    with trace.at_source(("/home/u/model.py", 12, "    return gelu(x)\n")):
        ltorch.gelu(trace.args[0])
    prims.erf(trace.args[0])
    gelu, erf = trace.bound_symbols
    assert gelu.source == ("/home/u/model.py", 12, "    return gelu(x)\n") and erf.source is None
    assert all(s.source == gelu.source for s in gelu.subsymbols)


def test_replace_returns_the_same_object_when_nothing_changes(trace):
    t0, t1 = trace.args
    prims.sum(t0, dims=(1,))
    (bsym,) = trace.bound_symbols
    assert bsym.replace() is bsym
    assert bsym.replace(args=(t0,), kwargs={"dims": (1,)}, output=bsym.output, tags=frozenset()) is bsym
    assert bsym.replace(args=[t0]) is bsym  # normalized like the constructor does
    assert bsym.replace(kwargs={"dims": [1]}) is not bsym  # a list is not a tuple
    assert bsym.replace(kwargs={"dims": (True,)}) is not bsym  # True is not 1
    new = bsym.replace(args=(t1,), tags={"recomputed"})
    assert new is not bsym and new.args == (t1,) and new.tags == {"recomputed"} and new.flat_args == (t1,)
    assert bsym.args == (t0,) and {bsym: "a", new: "b"}[bsym] == "a"  # hashable: side tables key by it


def test_replace_recomputes_what_depends_on_a_changed_field(trace):
    t0, t1 = trace.args
    prims.sum(t0, dims=(1,))
    (bsym,) = trace.bound_symbols
    flat_args, flat_outs = bsym.flat_args, bsym.flat_outs  # computed (and cached) before the copies
    assert bsym.replace(args=(t1,)).flat_args == (t1,) and bsym.replace(args=(t1,)).flat_outs is flat_outs
    other = TensorProxy("t9", (2,), torch.float32, "cpu")
    renamed = bsym.replace(output=other)
    assert renamed.flat_outs == (other,) and renamed.flat_args is flat_args
    noted = bsym.replace(header="a note")
    assert noted.header == "a note" and noted.flat_args is flat_args and noted.flat_outs is flat_outs
    assert bsym.replace(kwargs={"dims": (0,)}).kwargs == {"dims": (0,)}
    with pytest.raises(TypeError, match="no field 'flat_args'"):
        bsym.replace(flat_args=())


def test_bound_symbols_can_be_built_by_hand():
    t0 = TensorProxy("t0", (2,), torch.float32, "cpu")
    t1 = TensorProxy("t1", (2,), torch.float32, "cpu")
    bsym = BoundSymbol(prims.tanh, [t0], {}, t1, header="from a pass")
    assert bsym.args == (t0,) and bsym.kwargs == {} and bsym.subsymbols == () and bsym.header == "from a pass"


def test_symbol_validation():
    with pytest.raises(ValueError, match="neither a meta function nor a decomposition"):
        Symbol("f", meta=None, id="test.f")
    with pytest.raises(ValueError, match="is marked is_prim"):
        Symbol("f", meta=lambda a: a, id="test.f", is_prim=True, decomposition=lambda a: a)
    with pytest.raises(ValueError, match="python_name 'not valid' is not a valid Python identifier"):
        Symbol("f", meta=lambda a: a, id="test.f", python_name="not valid")
    with pytest.raises(ValueError, match="module alias 'a.b' is not a Python identifier"):
        Symbol("f", meta=lambda a: a, id="test.f", module="a.b")
    sym = Symbol("gelu", meta=lambda a: tensor_proxy(a.shape, a.dtype, a.device), id="test.gelu", tags={"x"})
    assert sym.printed_name == "gelu" and sym.tags == frozenset({"x"}) and repr(sym) == "<Symbol test.gelu>"
    assert ltorch.gelu.printed_name == "tltorch.gelu"
