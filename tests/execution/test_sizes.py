"""extend.RegionNumbers: a region's symbolic numbers, their values on each call computed from
the region's inputs, their hints, and the region made concrete (what executors that compile
per shape use). Regions come from real traces of tc.jit (default cache: symbolic values)."""

import pytest
import torch

import thunder_core as tc
from thunder_core.extend import NumberProxy, Region, RegionNumbers, TensorProxy


def _region(fn, *args, sid):
    jf = tc.jit(fn, executors=["torch"])
    jf(*args)
    trace = tc.last_traces(jf)[0]
    b = next(b for b in trace.bound_symbols if b.sym.id == sid)
    return b, Region((b,), tuple(dict.fromkeys(b.flat_args)), tuple(b.flat_outs))


def test_values_per_call_hints_and_the_concrete_region():
    def f(x):
        return x.mean((0, 2), keepdim=True)  # divides by x_0 * x_2, made inside its decomposition

    b, region = _region(f, torch.randn(4, 3, 5), sid="ltorch.mean")
    numbers = RegionNumbers(region)
    names = [p.name for p in numbers.symbols]
    assert names[:3] == ["x_0", "x_1", "x_2"] and len(names) == 4  # and the divisor, a computed number
    assert numbers.hints() == (4, 3, 5, 20)
    values = numbers.resolver()
    assert values((torch.randn(6, 3, 7),)) == (6, 3, 7, 42)  # another call's sizes, from its input
    concrete = numbers.concrete((6, 3, 7, 42))
    (c,) = concrete.bsyms
    assert tuple(c.flat_outs[0].shape) == (1, 3, 1) and tuple(concrete.inputs[0].shape) == (6, 3, 7)
    leaves = [s for s in c.subsymbols]
    assert not any(s.sym.id.startswith("prims.py_") for s in leaves)  # computed: constants now
    assert 42 in [a for s in leaves for a in s.args if type(a) is int]  # the divisor, baked in
    assert numbers.concrete().bsyms[0].flat_outs[0].shape[1] == 3  # None: the trace's own sizes
    assert numbers.concrete_bsym() is not b and RegionNumbers(c).symbols == ()


def test_number_inputs_keep_their_positions_as_constants():
    def f(x, s):
        return x * s

    b, region = _region(f, torch.randn(3, 2), 1.5, sid="ltorch.mul")
    numbers = RegionNumbers(region)
    s = next(p for p in region.inputs if type(p) is NumberProxy)
    assert s in numbers.symbols and numbers.getter(s)(tuple(region.inputs)) is s
    concrete = numbers.concrete(tuple(2.5 if p is s else 3 for p in numbers.symbols))
    k = next(i for i, p in enumerate(region.inputs) if p is s)
    assert type(concrete.inputs[k]) is NumberProxy and concrete.inputs[k].value == 2.5
    assert concrete.bsyms[0].args[1] == 2.5 and isinstance(concrete.bsyms[0].args[0], TensorProxy)


def test_a_number_the_inputs_cannot_give_is_named():
    b, region = _region(lambda x: x.reshape(-1), torch.randn(3, 4), sid="ltorch.reshape")
    orphan = Region(region.bsyms, (), region.outputs)  # no inputs to compute the sizes from
    with pytest.raises(ValueError, match="x_0.*cannot be computed from the region's inputs"):
        RegionNumbers(orphan).resolver()
    assert RegionNumbers(region).resolver()((torch.randn(5, 2),))[:2] == (5, 2)
