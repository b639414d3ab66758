"""What native calls mean for provenance: a result nothing else refers to is the call's own
(local), an existing object is named where it lives, the items of a new container of outside
objects too; mutators that take an element read it where it was."""

import copy

from thunder_core.frontend import events as ev, interpret
from thunder_core.frontend.provenance import ATTR, ITEM


class Box:
    def __init__(self, n):
        self.n = n


TABLE = {"a": Box(1), "b": Box(2)}
CONFIG = Box(3)


def run(fn):
    out = []
    r = interpret(fn, interpreter_out=out)()
    return r, out[0]


def test_copy_is_local_but_its_items_keep_their_paths():
    r, I = run(lambda: dict.copy(TABLE))
    assert I.provenance(r) is None
    assert repr(I.provenance(r["a"])).endswith("['TABLE']['a']")


def test_existing_object_returned_by_native_code_is_named_where_it_lives():
    r, I = run(lambda: dict.get(TABLE, "b"))
    assert r is TABLE["b"]
    p = I.provenance(r)
    assert p.kind == "call" and p.key == ("get", ("b",))  # a guarded query the prologue calls again


def test_object_made_by_new_is_local():
    r, I = run(lambda: object.__new__(Box))
    assert I.provenance(r) is None


def test_deepcopy_reads_the_original_through_paths():
    r, I = run(lambda: copy.deepcopy(CONFIG).n)
    assert r == 3
    reads = [e for e in I.events if e.kind == ev.READ_ITEM and e.key == "n"]
    assert reads and repr(reads[0].prov).endswith("['CONFIG'].__dict__['n']")
    assert reads[0].prov.parent.kind == ATTR and reads[0].prov.kind == ITEM


L = [Box(7), Box(8)]


def test_pop_reads_the_element_where_it_was():
    r, I = run(lambda: L.pop())
    L.append(r)
    assert repr(I.provenance(r)).endswith("['L'][1]")
    assert [e.key for e in I.events if e.kind == ev.MUTATE] == ["pop"]
