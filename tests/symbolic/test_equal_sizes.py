"""Sizes made equal by a guard are one symbol from the guard on (thunder_core/ir/equalities.py):
the trace shows one size, each relation is guarded once, a size guarded equal to a constant is
that constant, and executors' regions see equal sizes as equal. Every test runs the jitted
function against eager on several shapes (the default cache, "symbolic values")."""

from __future__ import annotations

import torch
import torch.nn.functional as F

import thunder_core as tc
from thunder_core.examples.models import GPT
from thunder_core.extend import Region, RegionNumbers, TensorProxy


def _predicates(jf) -> list:
    return [ln.split("# ")[-1] for ln in tc.last_prologue_traces(jf)[-1].splitlines()
            if ln.endswith(" is True") or ln.endswith(" is False")]


def test_sizes_an_op_checks_equal_are_one_symbol_and_one_guard():
    f = lambda x, y: (x + y) * y - x  # noqa: E731  (three ops compare x's and y's sizes)
    jf = tc.jit(f)
    for n, m in ((3, 4), (5, 6), (7, 2)):
        x, y = torch.randn(n, m), torch.randn(n, m)
        torch.testing.assert_close(jf(x, y), f(x, y))
    assert tc.cache_misses(jf) == 1
    trace = tc.last_traces(jf)[0]
    x, y = (a for a in trace.args if isinstance(a, TensorProxy))
    assert y.shape[0] is x.shape[0] and y.shape[1] is x.shape[1]
    assert all(b.flat_outs[0].shape[0] is x.shape[0] for b in trace.bound_symbols)
    assert sorted(_predicates(jf)) == ["y_0 == x_0 is True", "y_1 == x_1 is True"]  # once each
    jf(torch.randn(3, 4), torch.randn(1, 4))  # size 1 broadcasts: its own trace
    assert tc.cache_misses(jf) == 2


def test_a_relation_that_breaks_is_a_miss_and_the_other_branch_is_right():
    def f(x, y):
        if x.shape[0] == y.shape[0]:
            return x * y.sum()
        return x - y.mean()

    jf = tc.jit(f)
    for n, m in ((3, 3), (5, 5), (4, 6), (6, 4), (2, 2)):
        x, y = torch.randn(n), torch.randn(m)
        torch.testing.assert_close(jf(x, y), f(x, y))
    assert tc.cache_misses(jf) == 2  # equal sizes: one trace (one symbol); different: another


def test_a_size_checked_equal_to_a_constant_is_that_constant():
    m = torch.nn.Linear(4, 3)
    jm = tc.jit(m)
    with torch.no_grad():
        for b in (5, 3, 8):  # a batch of 3 (the layer's width) is no special case
            x = torch.randn(b, 4)
            torch.testing.assert_close(jm(x), m(x))
    assert tc.cache_misses(jm) == 1
    trace = str(tc.last_traces(jm)[0])
    assert 'input: "cpu f32[input_0, 4]"' in trace, trace
    assert _predicates(jm) == ["input_1 != 4 is False"]


def test_reshape_arithmetic_leaves_no_guards_in_a_gpt_training_step():
    torch.manual_seed(0)
    model = GPT()
    jm = tc.jit(model)
    for t in (12, 17):
        idx = torch.randint(0, 128, (2, t))
        _, loss = jm(idx, idx)
        loss.backward()
    assert tc.cache_misses(jm) == 1
    assert _predicates(jm) == []  # (n * 64) // 64 is n, (n * 64) % 64 is 0: nothing to check per call


def test_the_loss_backward_sees_targets_and_logits_rows_as_one_size():
    logits = torch.randn(6, 5, requires_grad=True)
    target = torch.randint(0, 5, (6,))
    f = lambda x, t: F.cross_entropy(x, t)  # noqa: E731
    jf = tc.jit(f)
    jf(logits, target).backward()
    backward = tc.last_backward_traces(jf)[0]
    loss_grad = next(b for b in backward.bound_symbols if b.sym.id == "ltorch.nll_loss_backward")
    rows = [a.shape[0] for a in loss_grad.flat_args if isinstance(a, TensorProxy) and a.ndim]
    assert len(rows) >= 2 and all(r is rows[0] for r in rows)
    # the region an executor would get: one symbol for the rows, computed from either input
    region = Region((loss_grad,), tuple(a for a in loss_grad.flat_args), tuple(loss_grad.flat_outs))
    numbers = RegionNumbers(region)
    assert rows[0] in numbers.symbols and numbers.getter(rows[0]) is not None

