"""Provenance, the event log, lookasides and tracebacks, tested directly."""

import traceback

import pytest

from thunder_core.frontend import Interpreter, events as ev, interpret
from thunder_core.frontend.provenance import ARG, ATTR, CELL, GLOBAL, ITEM

G_NUM = 5
G_LIST = []
G_DICT = {"a": [1, 2]}
G_COUNTER = 0


def run(fn, *args, **kw):
    out = []
    r = interpret(fn, interpreter_out=out, **kw)(*args)
    return r, out[0]


def of_kind(I, kind):
    return [e for e in I.events if e.kind == kind]


def test_global_read_has_name_value_and_site():
    def f(x):
        return x + G_NUM

    r, I = run(f, 1)
    assert r == 6
    (e,) = [e for e in of_kind(I, ev.READ_GLOBAL) if e.key == "G_NUM"]
    assert e.value == 5 and e.prov.kind == GLOBAL and e.prov.ref is globals()
    assert e.site[0] == __file__ and e.site[1] == f.__code__.co_firstlineno + 1
    assert "test_events.py" in e.where


def test_outside_closure_read_is_a_cell_read():
    def make():
        y = 3

        def f(x):
            return x + y
        return f

    r, I = run(make(), 1)
    assert r == 4
    (e,) = of_kind(I, ev.READ_CELL)
    assert e.key == "y" and e.value == 3 and e.prov.kind == CELL


def test_closure_created_inside_the_call_is_not_an_outside_read():
    def f(x):
        def g():
            return x * 2
        return g()

    r, I = run(f, 4)
    assert r == 8
    assert of_kind(I, ev.READ_CELL) == [] and of_kind(I, ev.WRITE_CELL) == []


def test_nonlocal_write_to_outside_cell_is_recorded_and_performed():
    def make():
        c = 0

        def inc(k):
            nonlocal c
            c += k
            return c
        return inc

    inc = make()
    assert run(inc, 2)[0] == 2
    r, I = run(inc, 3)
    assert r == 5 and inc.__closure__[0].cell_contents == 5
    (w,) = of_kind(I, ev.WRITE_CELL)
    assert w.key == "c" and w.value == 5 and w.prov.kind == CELL


def test_append_to_global_list_is_a_mutation_of_that_global():
    G_LIST.clear()

    def f(x):
        G_LIST.append(x)
        return len(G_LIST)

    assert run(f, "a")[0] == 1
    r, I = run(f, "b")
    assert r == 2 and G_LIST == ["a", "b"]
    (m,) = of_kind(I, ev.MUTATE)
    assert m.key == "append" and m.value == ("b",)
    assert m.prov.kind == GLOBAL and m.prov.key == "G_LIST"


def test_mutations_through_items_and_inplace_ops_of_globals():
    G_DICT["a"] = [1, 2]

    def f():
        G_DICT["a"] += [3]
        G_DICT["b"] = 1
        del G_DICT["b"]

    _, I = run(f)
    kinds = [(e.kind, repr(e.prov), e.key) for e in I.events if e.kind in ev.WRITES]
    assert kinds == [
        (ev.MUTATE, "globals(tests.frontend.test_events)['G_DICT']['a']", "+="),
        (ev.WRITE_ITEM, "globals(tests.frontend.test_events)['G_DICT']", "a"),
        (ev.WRITE_ITEM, "globals(tests.frontend.test_events)['G_DICT']", "b"),
        (ev.DELETE_ITEM, "globals(tests.frontend.test_events)['G_DICT']", "b"),
    ]
    assert G_DICT == {"a": [1, 2, 3]}


def test_global_store_and_delete():
    global G_COUNTER
    G_COUNTER = 0

    def f():
        global G_COUNTER
        G_COUNTER += 1

    _, I = run(f)
    assert G_COUNTER == 1
    (w,) = of_kind(I, ev.WRITE_GLOBAL)
    assert w.key == "G_COUNTER" and w.value == 1


def test_writes_to_objects_created_inside_are_not_effects():
    def f():
        d = {}
        d["k"] = [1]
        d["k"].append(2)
        o = type("O", (), {})()
        o.x = 1
        return d, o.x

    r, I = run(f)
    assert r[0] == {"k": [1, 2]}
    assert [e for e in I.events if e.kind in ev.WRITES] == []


class Layer:
    def __init__(self, w):
        self.w = w


class Model:
    def __init__(self):
        self.layers = [Layer([1.0]), Layer([2.0])]
        self.flag = True


def test_provenance_paths_of_arguments_and_their_attributes():
    m = Model()

    def f(model, scale=1):
        w = model.layers[1].w
        return w

    out = []
    w = interpret(f, interpreter_out=out)(m, scale=2)
    I = out[0]
    assert w is m.layers[1].w
    assert repr(I.provenance(w)) == "args[0].layers[1].w"
    assert I.provenance(m).kind == ARG
    kw = [e for e in I.events if e.kind == ev.READ_ARG and e.prov.key == "scale"]
    assert kw and kw[0].value == 2


def test_attribute_and_item_reads_of_outside_objects_are_events():
    m = Model()

    def f(model):
        if model.flag:
            return [layer.w[0] for layer in model.layers]

    r, I = run(f, m)
    assert r == [1.0, 2.0]
    reads = [repr(e.prov) for e in I.events if e.kind in (ev.READ_ATTR, ev.READ_ITEM)]
    assert "args[0].flag" in reads
    assert "args[0].layers[0].w[0]" in reads and "args[0].layers[1].w[0]" in reads


def test_attribute_write_on_argument_is_recorded():
    m = Model()

    def f(model):
        model.flag = False
        model.layers[0].w.append(9.0)

    _, I = run(f, m)
    assert m.flag is False and m.layers[0].w == [1.0, 9.0]
    writes = [(e.kind, repr(e.prov), e.key) for e in I.events if e.kind in ev.WRITES]
    assert writes == [(ev.WRITE_ATTR, "args[0]", "flag"), (ev.MUTATE, "args[0].layers[0].w", "append")]


def test_opaque_calls_are_logged_on_request():
    import math

    def f(x):
        return math.sqrt(x) + len([1, 2])

    _, I = run(f, 16.0, record_opaque_calls=True)
    called = [e.key for e in of_kind(I, ev.OPAQUE_CALL)]
    assert math.sqrt in called and len in called
    _, I = run(f, 16.0)
    assert of_kind(I, ev.OPAQUE_CALL) == []


def test_on_enter_can_replace_outside_values():
    class Marker:
        pass

    def f(x):
        return G_NUM * x

    seen = []

    def on_enter(interp, value, prov):
        seen.append(repr(prov))
        return 100 if value == G_NUM and prov.kind == GLOBAL else value

    assert interpret(f, on_enter=on_enter)(2) == 200
    assert "args[0]" in seen


def helper_double(x):
    return 2 * x


def test_lookaside_replaces_a_call_and_can_reenter_the_interpreter():
    calls = []

    def fake_double(I, args, kwargs):
        calls.append(args)
        return I.call(lambda v: v + 1000, args)  # re-enters: the lambda is interpreted

    def f(x):
        return helper_double(x) + helper_double(x + 1)

    assert interpret(f, lookasides={helper_double: fake_double})(1) == 2003
    assert calls == [(1,), (2,)]


def test_nested_interpret_inside_interpreted_code():
    inner = interpret(lambda x: [i * x for i in range(3)])

    def outer(x):
        return inner(x) + inner(x + 1)

    assert interpret(outer)(2) == [0, 2, 4, 0, 3, 6]


def _user_raiser(x):
    return {}[x]  # the KeyError is raised on this line


def _user_caller(x):
    y = x + 1
    return _user_raiser(y)


def test_traceback_points_at_user_frames_only():
    with pytest.raises(KeyError) as info:
        interpret(_user_caller)(1)
    frames = traceback.extract_tb(info.value.__traceback__)
    names = [(fr.name, fr.lineno) for fr in frames]
    assert ("_user_caller", _user_caller.__code__.co_firstlineno + 2) in names
    assert ("_user_raiser", _user_raiser.__code__.co_firstlineno + 1) in names
    assert not any("thunder_core/frontend/" in fr.filename and fr.name != "run" for fr in frames), names
    assert frames[-1].line == "return {}[x]  # the KeyError is raised on this line"


def test_exception_types_and_messages_match_cpython():
    def f(a):
        return a.missing_attribute

    with pytest.raises(AttributeError, match="'int' object has no attribute 'missing_attribute'"):
        interpret(f)(1)


def test_interpreter_state_after_exception_is_clean():
    I = Interpreter()

    def bad():
        raise ValueError("x")

    with pytest.raises(ValueError):
        I.run(bad, (), {})
    assert I.frames == [] and I.topmost_exception() is None
    assert I.run(lambda: 3, (), {}) == 3
