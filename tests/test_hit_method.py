"""The cache hit as one generated method (api.JittedFunction._ran, guards/prologue.hit_method):
each jitted function is the only instance of its own class, whose ``__call__`` is the hit
method of the entry that ran last. These tests compare with eager and check what the
machinery must keep: the jitted function inlined when called inside another trace, hits and
introspection following the entry that really ran, exceptions not retried, bound methods,
and computations that take only the inputs they read."""

import random

import pytest
import torch

import thunder_core as tc
from thunder_core.api import SWITCH_AFTER, JittedFunction


def test_each_jitted_function_has_its_own_class_and_is_still_a_jitted_function():
    a, b = tc.jit(lambda x: x + 1), tc.jit(lambda x: x + 2)
    assert type(a) is not type(b) and isinstance(a, JittedFunction) and isinstance(b, JittedFunction)
    x = torch.randn(3)
    a(x)
    a(x)
    b(x)
    torch.testing.assert_close(a(x), x + 1)
    torch.testing.assert_close(b(x), x + 2)
    assert (tc.cache_misses(a), tc.cache_hits(a)) == (1, 2)
    assert (tc.cache_misses(b), tc.cache_hits(b)) == (1, 1)
    assert type(a).__call__ is not JittedFunction.__call__  # its entry's hit method


def test_a_jitted_function_with_a_hit_method_is_traced_inline_inside_another():
    def inner(x):
        return torch.sin(x) * 2

    jin = tc.jit(inner)
    x = torch.randn(4)
    jin(x)
    jin(x)  # its hit method is now its __call__
    before = (tc.cache_misses(jin), tc.cache_hits(jin))

    def outer(x):
        return jin(x) + 1

    jout = tc.jit(outer)
    torch.testing.assert_close(jout(x), inner(x) + 1)
    torch.testing.assert_close(jout(x), inner(x) + 1)
    # traced inline: the outer trace holds the inner ops, and the inner jit was not called
    assert "sin" in str(tc.last_traces(jout)[0])
    assert (tc.cache_misses(jin), tc.cache_hits(jin)) == before


def test_an_exception_while_compiling_after_a_missed_hit_is_raised_once():
    """The hit method calls the slow path outside its checks' ``try``: what compiling raises
    propagates (and is not taken for a failed check, which would compile again)."""
    def f(x, n):
        if n > 2:
            raise ValueError("n too large")
        return x * n

    jf = tc.jit(f)
    x = torch.ones(2)
    jf(x, 1)
    jf(x, 1)
    with pytest.raises(ValueError, match="n too large") as info:
        jf(x, 3)
    assert info.value.__context__ is None  # no exception of the checks behind it
    assert tc.cache_misses(jf) == 2  # one compile for n=3, which raised


def test_alternating_entries_run_the_right_one_and_introspection_follows():
    def f(x, flag):
        if flag:
            return torch.cos(x)
        return torch.exp(x)

    jf = tc.jit(f)
    x = torch.randn(5)
    rng = random.Random(0)
    flags = [True, False] + [rng.random() < 0.5 for _ in range(40)] + [False] * (SWITCH_AFTER + 2) + [True]
    for i, flag in enumerate(flags):
        torch.testing.assert_close(jf(x, flag), f(x, flag))
        # the entry that ran last is the one tc.last_traces shows, whichever path took the call
        assert ("cos" if flag else "exp") in str(tc.last_traces(jf)[-1]), i
    assert (tc.cache_misses(jf), tc.cache_hits(jf)) == (2, len(flags) - 2)


def test_after_enough_calls_in_a_row_the_other_entry_is_tried_first():
    def f(x, flag):
        return x + 1 if flag else x - 1

    jf = tc.jit(f)
    x = torch.randn(3)
    jf(x, True)
    jf(x, False)  # compiled last: its hit method is installed
    hit_false = type(jf).__call__
    for _ in range(SWITCH_AFTER):
        jf(x, True)
    assert type(jf).__call__ is not hit_false  # True's entry, after SWITCH_AFTER calls in a row
    jf(x, False)
    assert type(jf).__call__ is not hit_false  # one call does not switch back


def test_a_jitted_bound_method_hits_and_sees_its_object_change():
    class Scale:
        def __init__(self):
            self.k = 2.0

        def apply(self, x):
            return x * self.k

    s = Scale()
    jf = tc.jit(s.apply)
    x = torch.randn(3)
    for _ in range(3):
        torch.testing.assert_close(jf(x), x * 2.0)
    assert (tc.cache_misses(jf), tc.cache_hits(jf)) == (1, 2)
    s.k = 3.0
    torch.testing.assert_close(jf(x), x * 3.0)
    torch.testing.assert_close(jf(x), x * 3.0)


def test_the_computation_takes_only_the_inputs_it_reads():
    """Symbolic sizes a torch-run trace does not use are not parameters of the computation
    (execution/lowering._drop_unused_inputs); the prologue still checks them, and other sizes still work."""
    def f(a, b):
        return a * b + a

    jf = tc.jit(f, executors=["torch"])
    for n in (8, 8, 5, 8, 1):
        a, b = torch.randn(n, n), torch.randn(n, n)
        torch.testing.assert_close(jf(a, b), f(a, b))
    jf(torch.randn(8, 8), torch.randn(8, 8))
    assert "def computation(a, b):" in str(tc.last_traces(jf)[-1])

    def g(a):
        return a.reshape(a.shape[0] * a.shape[1])  # reads its sizes: they stay parameters

    jg = tc.jit(g, executors=["torch"])
    for n in (4, 6):
        a = torch.randn(n, 3)
        torch.testing.assert_close(jg(a), g(a))
    signature = next(ln for ln in str(tc.last_traces(jg)[-1]).splitlines() if ln.startswith("def computation"))
    assert "a_0" in signature and "a_1" in signature, signature
