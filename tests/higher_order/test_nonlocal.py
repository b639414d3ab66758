"""Writes through a value the same call rebinds (issue 18): a jitted function that rebinds a
nonlocal and mutates it, alone and called from another jitted function, gives CPython's
results on the first and later calls; and the epilogue reaches the object each path named
when the call began (a swap, a write through the old binding)."""

import pytest
import torch

import thunder_core as tc


def make_counter():
    lst = None

    def g(x):
        nonlocal lst
        if lst is None:
            lst = []
        lst.append("#")
        return x * len(lst)

    return g, lambda: lst


def outer_of(inner):
    def outer(x):
        return inner(x) + 1

    return outer


@pytest.mark.parametrize("how", ["alone", "inside a jitted function"])
def test_rebound_nonlocal_then_mutated(how):
    eager, eager_state = make_counter()
    jitted, jitted_state = make_counter()
    if how == "alone":
        run_eager, run_jitted = eager, tc.jit(jitted)
    else:
        run_eager, run_jitted = outer_of(eager), tc.jit(outer_of(tc.jit(jitted)))
    for _ in range(4):  # the first call and later ones
        x = torch.randn(2)
        torch.testing.assert_close(run_jitted(x), run_eager(x))
        assert jitted_state() == eager_state()
    assert jitted_state() == ["#"] * 4


def make_old_binding_writer():
    lst = [0]

    def g(x):
        nonlocal lst
        old = lst
        lst = [1]
        old.append("#")  # the object bound when the call began
        lst.append("$")  # the new one
        return x + 1, old

    return g, lambda: lst


def test_write_through_the_old_binding():
    eager, eager_state = make_old_binding_writer()
    jitted, jitted_state = make_old_binding_writer()
    jg = tc.jit(jitted)
    for _ in range(3):
        x = torch.randn(2)
        (a, old_a), (b, old_b) = jg(x), eager(x)
        torch.testing.assert_close(a, b)
        assert jitted_state() == eager_state() and old_a == old_b
        assert old_a is not jitted_state()


class Pair:
    def __init__(self):
        self.a, self.b = [1], [2]


def test_swap():
    def swap(x, p):
        p.a, p.b = p.b, p.a
        return x * 2

    pe, pj = Pair(), Pair()
    jf = tc.jit(swap)
    for _ in range(3):
        x = torch.randn(2)
        torch.testing.assert_close(jf(x, pj), swap(x, pe))
        assert (pj.a, pj.b) == (pe.a, pe.b)
