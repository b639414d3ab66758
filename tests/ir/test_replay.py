"""Decompositions recorded once per call structure and copied for later calls (ir/replay.py):
the copy is the same calls with fresh names, and anything that changes the structure records
anew. (tests/capture/test_replay_models.py: a jitted model's traces with and without replay.)"""

import re

import pytest
import torch

from thunder_core.ir import Symbol, Trace, flat_proxies, replay, tracing, verify

from . import toy_prims as prims
from . import toy_torch as ltorch

RUNS = []


def _counted(a, *, approximate="none"):
    RUNS.append(a.name)
    return ltorch.gelu(a, approximate=approximate)


counted = Symbol("counted", meta=None, id="test.counted_gelu", decomposition=_counted, module="tltorch")


@pytest.fixture
def trace():
    RUNS.clear()
    t = Trace("f")
    for shape, dtype in (((2, 3), torch.float32), ((2, 3), torch.float32), ((2, 3), torch.float64), ((4,), torch.float32)):
        t.add_input(torch.zeros(shape, dtype=dtype))
    t.decompositions = {}
    with tracing(t):
        yield t


def _structure(bsym):
    """A bound symbol's calls, nested, with proxies named by order of appearance."""
    names: dict = {}
    text = "\n".join(b.python() for b in _walk(bsym))
    return re.sub(r"\bt\d+\b", lambda m: names.setdefault(m.group(0), f"p{len(names)}"), text)


def _walk(b):
    yield b
    for s in b.subsymbols:
        yield from _walk(s)


def test_a_second_call_of_the_same_structure_is_a_copy_with_fresh_names(trace):
    a, b, _, _ = trace.args
    out_a = counted(a)
    out_b = counted(b)
    assert RUNS == [a.name]  # the decomposition ran once
    first, second = trace.bound_symbols
    assert _structure(first).replace(a.name, "X") == _structure(second).replace(b.name, "X")
    assert second.args == (b,) and second.output is out_b and out_b is not out_a
    defined = [{p.name for s in _walk(x) for p in s.flat_outs} for x in (first, second)]
    assert defined[0] and not defined[0] & defined[1]
    for copied in _walk(second):  # its argument lists are those of its arguments (renamed from the template's)
        assert copied.flat_args == tuple(flat_proxies((copied.args, copied.kwargs)))
        assert copied.flat_outs == tuple(flat_proxies(copied.output))
    trace.output = (out_a, out_b)
    verify(trace)


def test_the_copy_runs_like_the_recording(trace):
    a, b, _, _ = trace.args
    trace.output = (counted(a), counted(b))
    impls = {**prims.IMPLS, **ltorch.IMPLS, counted.id: lambda x, approximate="none": torch.nn.functional.gelu(x)}
    fn = trace.python_callable(impls)
    x, y = torch.randn(2, 3), torch.randn(2, 3)
    got = fn(x, y, torch.zeros(2, 3, dtype=torch.float64), torch.zeros(4))
    torch.testing.assert_close(got, (torch.nn.functional.gelu(x), torch.nn.functional.gelu(y)))


def test_other_metadata_or_constants_record_anew(trace):
    a, b, c, d = trace.args
    counted(a)
    counted(c)                       # float64
    counted(d)                       # another shape
    counted(b)                       # the same as the first: a copy
    assert RUNS == [a.name, c.name, d.name]


def test_the_same_proxy_twice_is_another_structure(trace):
    a, b, _, _ = trace.args
    ltorch.add(a, b)
    ltorch.add(a, a)  # (a decomposition may tell "the same tensor" apart)
    first, second = trace.bound_symbols
    assert replay.call_key(ltorch.add, (a, b), {}, None) != replay.call_key(ltorch.add, (a, a), {}, None)
    assert second.subsymbols[0].args == (a, a)


def test_random_and_in_place_decompositions_are_recorded_every_time():
    class Sym:
        def __init__(self, tags, subs=()):
            self.sym = type("S", (), {"tags": frozenset(tags)})()
            self.subsymbols, self.flat_outs, self.kwargs = subs, (), {}

    assert replay.replayable(Sym({"elementwise"}, (Sym({"elementwise"}),)))
    assert not replay.replayable(Sym({"elementwise"}, (Sym({"random"}),)))
    assert not replay.replayable(Sym({"inplace"}))
    # attention may draw (dropout_p > 0): a recording that did not is copied, one that did is not
    assert replay.replayable(Sym({"matmul", "random"}, (Sym({"matmul"}),)))
    assert not replay.replayable(Sym({"matmul", "random"}, (Sym({"matmul"}), Sym({"elementwise"}, (Sym({"random"}),)))))


def test_arguments_the_key_cannot_describe_are_not_replayed(trace):
    a, _, _, _ = trace.args
    assert replay.call_key(counted, (a,), {"approximate": object()}, None) is None
