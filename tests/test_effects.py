"""Globals, closures and nonlocals under tc.jit: CPython's results on every call, writes to
outside state replayed by the epilogue, nested jit."""

import pytest
import torch

import thunder_core as tc

LOG = []
COUNT = 0
BIAS = 1.0


def test_nonlocal_counter_incremented_on_every_call():
    def make():
        count = 0

        def f(x):
            nonlocal count
            count += 1
            return x * count
        return f

    f = make()
    jf = tc.jit(make())
    x = torch.ones(2)
    for _ in range(3):
        torch.testing.assert_close(jf(x), f(x))
    assert [jf.fn.__closure__[0].cell_contents, f.__closure__[0].cell_contents] == [3, 3]


def test_append_to_global_list_happens_on_every_cached_call():
    LOG.clear()

    def f(x):
        LOG.append("called")
        LOG.append(x.sum())
        return x * 2

    jf = tc.jit(f)
    x = torch.arange(3.0)
    for _ in range(3):
        torch.testing.assert_close(jf(x), x * 2)
    assert tc.cache_hits(jf) == 2 and tc.cache_misses(jf) == 1
    assert LOG[0::2] == ["called"] * 3
    assert all(isinstance(t, torch.Tensor) and t.item() == 3.0 for t in LOG[1::2])  # real tensors, not proxies
    LOG.clear()


def test_global_write_replayed_and_seen_by_the_next_call():
    global COUNT
    COUNT = 0

    def f(x):
        global COUNT
        COUNT = COUNT + 1
        return x + COUNT

    jf = tc.jit(f)
    outs = [jf(torch.zeros(1)).item() for _ in range(3)]
    assert outs == [1.0, 2.0, 3.0] and COUNT == 3
    COUNT = 0


def test_writes_to_module_attributes_and_dict_items():
    class M(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.calls = 0
            self.stats = {}

        def forward(self, x):
            self.calls = self.calls + 1
            self.stats["last"] = x.mean()
            return x * 2

    m = M()
    jm = tc.jit(m)
    for k in range(1, 4):
        jm(torch.full((2,), float(k)))
        assert m.calls == k
        assert m.stats["last"].item() == float(k)


def test_del_through_nonlocal_raises_cpythons_error_on_the_next_call():
    def make():
        v = 1

        def f(x):
            nonlocal v
            del v
            return x
        return f

    native, jitted = make(), tc.jit(make())
    x = torch.ones(1)
    native(x), jitted(x)
    with pytest.raises(NameError) as a:
        native(x)
    with pytest.raises(NameError) as b:
        jitted(x)
    assert str(a.value) == str(b.value)


def test_closure_created_inside_is_local_state():
    def f(x):
        acc = []

        def add(v):
            acc.append(v)
        add(x)
        add(x * 2)
        return acc[0] + acc[1]

    jf = tc.jit(f, sharp_edges="error")
    torch.testing.assert_close(jf(torch.ones(2)), torch.full((2,), 3.0))


def test_nested_jit_with_nonlocal_list():
    def make():
        items = []

        @tc.jit
        def inner(x):
            items.append(1)
            return x * len(items)

        @tc.jit
        def outer(x):
            return inner(x) + inner(x)
        return outer, items

    def make_native():
        items = []

        def inner(x):
            items.append(1)
            return x * len(items)

        def outer(x):
            return inner(x) + inner(x)
        return outer, items

    (jo, jitems), (no, nitems) = make(), make_native()
    x = torch.ones(2)
    for _ in range(2):
        torch.testing.assert_close(jo(x), no(x))
    assert jitems == nitems == [1, 1, 1, 1]


def test_object_created_inside_and_written_outside_is_made_again_on_every_call():
    class Box:
        def __init__(self, t):
            self.t = t
            self.tag = "box"

    def f(x):
        b = Box(x * 2)
        LOG.append(b)
        return x, b

    jf = tc.jit(f)
    outs = [jf(torch.full((2,), float(k))) for k in range(3)]
    assert tc.cache_hits(jf) == 2
    assert [type(b) for b in LOG] == [Box] * 3 and len({id(b) for b in LOG}) == 3  # a new Box per call
    assert [b.t.tolist() for b in LOG] == [[0.0, 0.0], [2.0, 2.0], [4.0, 4.0]] and LOG[2].tag == "box"
    assert all(out[1] is b for out, b in zip(outs, LOG))  # the returned Box is the one written, as in eager
    LOG.clear()


def test_unreplayable_write_is_a_clear_error():
    import threading

    def f(x):
        LOG.append(threading.Lock())
        return x

    with pytest.raises(NotImplementedError, match="created inside it"):
        tc.jit(f)(torch.ones(1))
    assert LOG == []  # the trace's own write was undone
