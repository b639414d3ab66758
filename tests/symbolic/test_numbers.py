"""cache="symbolic values": numbers passed to the jitted function stay symbolic. Each test
runs the jitted function and eager on several values and counts the compiles."""

from __future__ import annotations

import math

import pytest
import torch

import thunder_core as tc

X = torch.randn(4, 5)


def jit(fn, **kw):
    return tc.jit(fn, cache="symbolic values", **kw)


def check(fn, calls, *, traces, **kw):
    """Run ``fn`` jitted and eagerly on each argument tuple; assert equal results and the
    number of compiles."""
    jf = jit(fn, **kw)
    for args in calls:
        got, want = jf(*args), fn(*args)
        torch.testing.assert_close(got, want)
        assert type(got) is type(want)
    assert jf.misses == traces, (jf.misses, traces)
    return jf


def prologue(jf) -> str:
    return tc.last_prologue_traces(jf)[-1]


def test_a_branch_guards_its_predicate_not_the_value():
    def f(x, flag):
        if flag > 5:
            return torch.ones_like(x)
        return torch.zeros_like(x)

    jf = check(f, [(X, 6), (X, 0), (X, 7), (X, -3)], traces=2)
    assert "flag > 5 is False" in prologue(jf) or "flag > 5 is True" in prologue(jf)
    # the predicate is a guard, not a computation: it is not in the computation trace
    assert "py_gt" not in str(tc.last_traces(jf)[-1])


def test_arithmetic_with_a_number_is_one_trace():
    jf = check(lambda x, s: x * s + s, [(X, 1.5), (X, 2.0), (X, -3.0), (X, 7.25)], traces=1)
    assert "s: \"float ?\"" in str(tc.last_traces(jf)[0])


def test_number_arithmetic_is_recorded_and_returned():
    def f(x, s, t):
        y = (x * s).exp() + t * 2
        return y.sum() * (s - t), s * t + 1, s // 2, -t, abs(s), t / 4

    for executors in (None, ["torch"]):
        check(f, [(X, 1.5, 2), (X, 0.5, 3), (X, -1.0, 7)], traces=1, executors=executors)


@pytest.mark.parametrize("op", [math.floor, math.ceil, math.trunc, round])
def test_rounding_is_recorded(op):
    check(lambda x, s: x * op(s), [(X, 1.5), (X, 2.7), (X, -1.2)], traces=1)


def test_int_and_range_specialise_with_a_visible_guard():
    def f(x, n):
        m = int(n) + 1
        for i in range(n):
            x = x + i
        return x * m

    jf = check(f, [(X, 2), (X, 3), (X, 2), (X, 3)], traces=2)
    assert "n == 3" in prologue(jf)


def test_min_max_and_while_guard_predicates():
    def f(x, n, lo):
        k = 0
        while k < min(n, 3):
            k += 1
        return x * max(lo, 0.5) + k

    # n >= 3 and lo >= 0.5 behave alike: only the branch outcomes matter
    check(f, [(X, 5, 1.0), (X, 7, 2.0), (X, 9, 0.75)], traces=1)
    check(f, [(X, 5, 1.0), (X, 1, 1.0), (X, 5, 0.1)], traces=3)


def test_type_and_isinstance_see_the_numbers_type():
    def f(x, n):
        assert isinstance(n, int) and type(n) is int and not isinstance(n, float)
        return x + n

    check(f, [(X, 1), (X, 2)], traces=1)


def test_a_float_after_an_int_is_a_new_trace():
    jf = check(lambda x, n: x * n, [(X, 2), (X, 2.5), (X, 3), (X, 3.5)], traces=2)
    assert "type int" in prologue(jf) or "type float" in prologue(jf)


def test_bool_arguments_are_constants():
    # flags are tested by identity in library code (`unbiased is False`): a bool stays a value
    check(lambda x, b: x + 1 if b else x - 1, [(X, True), (X, False), (X, True)], traces=2)
    jf = check(lambda x, u: torch.var_mean(x, u), [(X, True), (X, False)], traces=2)
    assert "equals False" in prologue(jf)


def test_keyword_and_list_items_are_symbolic_module_attributes_are_not():
    class M(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.scale = 2.0

        def forward(self, x, coeffs, *, bias=0.0):
            return x * self.scale * coeffs[0] + coeffs[1] + bias

    m = M()
    jm = tc.jit(m, cache="symbolic values")
    for c, b in (([1.0, 2.0], 0.5), ([3.0, -1.0], 1.5)):
        torch.testing.assert_close(jm(X, c, bias=b), m(X, c, bias=b))
    assert tc.cache_misses(jm) == 1
    m.scale = 3.0  # an attribute is a constant of the trace: changing it retraces
    torch.testing.assert_close(jm(X, [1.0, 2.0], bias=0.5), m(X, [1.0, 2.0], bias=0.5))
    assert tc.cache_misses(jm) == 2
    assert "scale == 3.0" in prologue(jm) or "equals 3.0" in prologue(jm)


def test_str_and_format_of_a_number_specialise():
    def f(x, n):
        return x.reshape(-1)[: int(f"{n}")] + float(str(n))

    jf = check(f, [(X, 3), (X, 4), (X, 3)], traces=2)
    assert "n == 3" in prologue(jf)  # the last call's entry


def test_gradients_with_symbolic_scalars():
    def loss(x, s):
        return (torch.tanh(x * s) * s).sum()

    x = torch.randn(4, 5, requires_grad=True)
    jl = jit(loss)
    for s in (0.5, 2.0, 3.0):
        (g,) = torch.autograd.grad(jl(x, s), x)
        (want,) = torch.autograd.grad(loss(x, s), x)
        torch.testing.assert_close(g, want)
    assert jl.misses == 1


def test_a_number_computed_from_tensor_values_in_a_branch_is_an_error():
    def f(x):  # (of a tensor drawn at random: a cheap predicate of inputs alone is guarded)
        if (x + torch.rand_like(x)).sum() > 0:
            return x
        return -x

    with pytest.raises(TypeError, match="truth value of a tensor"):
        jit(f)(X)


def test_a_number_as_a_dict_key_is_its_value_guarded():
    table = {2: 10.0, 3: 20.0}

    def f(x, n):
        return x * table.get(n, -1.0)

    jf = check(f, [(X, 2), (X, 3), (X, 2), (X, 4)], traces=3)
    assert "n == 4" in prologue(jf)


def test_numbers_in_tensor_data_and_list_indices_stay_symbolic():
    # the data's numbers are read when the op runs; the result's dtype and shape depend on their
    # types only (issue 21: torch.tensor(random.random()) is one trace)
    def f(x, n):
        return x[[n, 0]] + torch.tensor([n, 1.0])

    x = torch.randn(5, 2)
    jf = check(f, [(x, 1), (x, 3), (x, 1)], traces=1)
    assert "n ==" not in prologue(jf)
