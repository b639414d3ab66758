"""Mutating methods of outside containers that return what they take (``L.pop()``,
``d.pop(k)``, ``d.setdefault(k, default)``): the result is read where it was before the call
(guarded), what it depended on (``k in d``, ``len(L)``) is guarded, and the mutation is replayed
on every call."""

import torch

import thunder_core as tc

D = {}
L = []
STATS = {"scale": 3.0}


def test_setdefault_then_append_as_in_eager():
    D.clear()

    def f(x):
        seen = D.setdefault("k", [])
        seen.append(1)
        return x * len(seen)

    jf = tc.jit(f)
    outs = [jf(torch.ones(1)).item() for _ in range(3)]
    assert outs == [1.0, 2.0, 3.0] and D == {"k": [1, 1, 1]}
    D.clear()


def test_list_pop_takes_the_last_element_on_every_call():
    L[:] = [1.0, 2.0, 3.0, 4.0]

    def f(x):
        return x * L.pop()

    jf = tc.jit(f)
    outs = [jf(torch.ones(1)).item() for _ in range(3)]
    assert outs == [4.0, 3.0, 2.0] and L == [1.0]


def test_dict_pop_with_default_guards_membership():
    def f(x):
        return x * STATS.pop("scale", 1.0)

    jf = tc.jit(f)
    assert jf(torch.ones(1)).item() == 3.0 and "scale" not in STATS
    assert jf(torch.ones(1)).item() == 1.0  # key gone: the other case
    STATS["scale"] = 5.0
    assert jf(torch.ones(1)).item() == 5.0 and "scale" not in STATS
    STATS["scale"] = 3.0


def test_popped_tensor_is_an_input():
    T = [torch.ones(2), torch.full((2,), 2.0)]

    def f(x):
        return x + T.pop()

    jf = tc.jit(f)
    torch.testing.assert_close(jf(torch.zeros(2)), torch.full((2,), 2.0))
    torch.testing.assert_close(jf(torch.zeros(2)), torch.ones(2))
    assert T == []
