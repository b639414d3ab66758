"""Items that come out of iterating outside data (for loops, unpacking, C functions that
iterate: enumerate, zip, map, reversed, dict views...) carry the shortest path to them, and
callables handed to C functions are interpreted. Differential: results equal CPython's."""

import collections
import functools
import itertools

import pytest

from thunder_core.frontend import events as ev, interpret
from thunder_core.frontend.provenance import ITEM, ITER


class Box:
    def __init__(self, n):
        self.n = n


BOXES = [Box(1), Box(2), Box(3)]
TABLE = {"a": Box(10), "b": Box(20)}
ODICT = collections.OrderedDict([("x", Box(7)), ("y", Box(8))])


class Seq:
    """A Python sequence (no __iter__): iteration and reversed() use __len__/__getitem__."""

    def __init__(self, items):
        self.items = items

    def __len__(self):
        return len(self.items)

    def __getitem__(self, i):
        return self.items[i]


SEQ = Seq(BOXES)


def run(fn):
    out = []
    r = interpret(fn, interpreter_out=out)()
    return r, out[0]


def path(I, obj):
    return repr(I.provenance(obj))


CASES = {
    "enumerate": (lambda: [(i, b) for i, b in enumerate(BOXES)], lambda r: [b for _, b in r]),
    "zip": (lambda: list(zip(BOXES, "abc")), lambda r: [b for b, _ in r]),
    "map": (lambda: list(map(lambda b: b, BOXES)), lambda r: r),
    "filter": (lambda: list(filter(lambda b: b.n > 1, BOXES)), lambda r: r),
    "reversed": (lambda: list(reversed(BOXES)), lambda r: r),
    "sorted": (lambda: sorted(BOXES, key=lambda b: -b.n), lambda r: r),
    "iter-next": (lambda: [next(iter(BOXES)), next(iter(BOXES), None)], lambda r: r),
    "list": (lambda: list(BOXES), lambda r: r),
    "tuple": (lambda: tuple(BOXES), lambda r: list(r)),
    "chain": (lambda: list(itertools.chain(BOXES, BOXES)), lambda r: r),
    "unpack": (lambda: (lambda a, b, c: [a, b, c])(*BOXES), lambda r: r),
    "unpack-star": (lambda: (lambda L: L)([*BOXES]), lambda r: r),
    "values": (lambda: list(TABLE.values()), lambda r: r),
    "items": (lambda: [v for _, v in TABLE.items()], lambda r: r),
    "dict": (lambda: list(dict(TABLE).values()), lambda r: r),
    "odict-values": (lambda: list(ODICT.values()), lambda r: r),
    "seq-reversed": (lambda: list(reversed(SEQ)), lambda r: r),
    "getattr": (lambda: [getattr(BOXES[0], "n"), getattr(BOXES[0], "missing", None)], lambda r: []),
}


@pytest.mark.parametrize("name", list(CASES))
def test_items_keep_their_path(name):
    fn, boxes_of = CASES[name]
    r, I = run(fn)
    assert r == fn()
    for b in boxes_of(r):
        p = I.provenance(b)
        assert p is not None, f"{name}: {b.n} has no provenance"
        assert p.kind == ITEM and "iter(" not in repr(p), repr(p)


def test_item_paths_are_indexes_and_keys():
    _, I = run(lambda: list(reversed(BOXES)) + list(TABLE.values()))
    assert [path(I, b) for b in BOXES] == [f"globals({__name__})['BOXES'][{i}]" for i in range(3)]
    assert path(I, TABLE["b"]) == f"globals({__name__})['TABLE']['b']"


def test_iterated_containers_are_recorded_for_length_guards():
    _, I = run(lambda: [b.n for b in BOXES] + [k for k in TABLE])
    assert {p.key for p in I.iterated} == {"BOXES", "TABLE"}


def test_callables_given_to_c_functions_are_interpreted():
    seen = []

    def key(b):
        seen.append(b.n)  # an outside write: logged only if the key function is interpreted
        return b.n

    def f():
        return [max(BOXES, key=key).n, functools.reduce(lambda a, b: a + b.n, BOXES, 0)]

    r, I = run(f)
    assert r == [3, 6]
    assert [e.key for e in I.events if e.kind == ev.MUTATE] == ["append"] * 3


def test_membership_of_outside_container_is_a_read():
    _, I = run(lambda: ("a" in TABLE, TABLE.get("b").n, TABLE.get("zz", 0)))
    reads = [e for e in I.events if e.kind == ev.READ_ITEM]
    keys = {e.prov.key for e in reads if e.prov.kind == "call"}
    assert {("__contains__", ("a",)), ("get", ("b",)), ("get", ("zz", 0))} <= keys


def test_read_back_of_own_write_is_not_an_outside_read():
    b = Box(1)

    def f():
        b.extra = [1]
        return b.extra

    r, I = run(f)
    assert r == [1] and I.provenance(r) is None
    assert not [e for e in I.events if e.kind == ev.READ_ATTR and e.key == "extra"]


def test_an_outside_iterator_advances_as_in_cpython():
    # next() of, and a loop over, an iterator from outside: its items are fresh on every call
    # (Interpreter.draw), and it is left where CPython leaves it
    import itertools

    from thunder_core.frontend import interpret

    def f(it, gen):
        first = next(it)
        rest = [v for v, _ in zip(gen, range(2))]
        return first, rest, next(gen, "end")

    def run(fn):
        it, gen = itertools.count(5), (i * i for i in range(4))
        return fn(it, gen), fn(it, gen), next(it)

    assert run(interpret(f)) == run(f)


PROXY = __import__("types").MappingProxyType({"p": Box(5), "q": Box(6)})


def test_items_of_an_outside_mappingproxy():
    # (its views are dict views: their items come from the proxy itself, not dict.items)
    def f():
        return [(k, b.n) for k, b in PROXY.items()], [b.n for b in PROXY.values()], list(PROXY.keys())

    assert run(f)[0] == f()
