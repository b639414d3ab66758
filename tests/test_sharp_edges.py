"""Sharp-edge checkers: what is flagged, what is not, and the levels."""

import pytest
import torch

import thunder_core as tc

LIMIT = 3.0
TABLE = [1.0, 2.0]


def helper(x):
    return x * 2


def reads_global(x):
    return x * LIMIT


def test_outside_global_read_is_flagged_under_warn_and_error_only():
    x = torch.ones(2)
    tc.jit(reads_global)(x)  # default: allow
    with pytest.warns(tc.SharpEdgeWarning, match=r"test_sharp_edges.py:\d+ in reads_global: reads global 'LIMIT' \(float\).*argument"):
        tc.jit(reads_global, sharp_edges="warn")(x)
    with pytest.raises(tc.SharpEdgeError, match=r"\[outside-value\].*'LIMIT'"):
        tc.jit(reads_global, sharp_edges={"outside-value": "error"})(x)


def test_outside_closure_read_is_flagged():
    scale = 4.0

    def f(x):
        return x * scale

    with pytest.raises(tc.SharpEdgeError, match="closure variable 'scale'"):
        tc.jit(f, sharp_edges="error")(torch.ones(2))


def test_closures_created_inside_and_functions_and_modules_are_not_flagged():
    F = torch.nn.functional

    def f(x):
        def inner():
            return x + 1
        return F.relu(helper(inner())) + torch.zeros(2) + x.shape[0]

    tc.jit(f, sharp_edges="error")(torch.ones(2))


def test_module_attribute_reads_are_not_flagged():
    m = torch.nn.Linear(2, 2)
    tc.jit(m, sharp_edges="error")(torch.ones(1, 2))


def test_outside_write_is_flagged():
    def f(x):
        TABLE.append(1.0)
        return x

    try:
        with pytest.raises(tc.SharpEdgeError, match=r"\[outside-write\].*mutate 'append'"):
            tc.jit(f, sharp_edges={"outside-write": "error"})(torch.ones(2))
    finally:
        del TABLE[2:]


def test_opaque_call_is_flagged():
    import os

    def f(x):
        return x * len(os.urandom(4))

    with pytest.warns(tc.SharpEdgeWarning, match=r"os.urandom\(...\) gives a new value on every call, a bytes"):
        tc.jit(f, sharp_edges={"opaque-call": "warn"})(torch.ones(2))


def test_fresh_values_that_cannot_be_inputs_are_refused_by_default_and_frozen_visibly_when_allowed():
    import time

    def f(x):
        return x + len(time.ctime()) // 100

    with pytest.raises(tc.SharpEdgeError, match=r"test_sharp_edges.py:\d+: time.ctime\(...\) gives a new value"):
        tc.jit(f)(torch.ones(1))
    jf = tc.jit(f, sharp_edges={"opaque-call": "allow"})
    first = jf(torch.ones(1))
    assert torch.equal(jf(torch.ones(1)), first) and tc.cache_hits(jf) == 1
    assert "time.ctime(...) = '" in tc.explain(jf)


def test_numbers_drawn_from_random_objects_are_inputs_not_sharp_edges():
    import random

    rng, twin = random.Random(0), random.Random(0)

    def f(x):
        return x * rng.random()

    jf = tc.jit(f, sharp_edges={"opaque-call": "error"})
    assert [jf(torch.ones(2)).tolist() for _ in range(2)] == [(torch.ones(2) * twin.random()).tolist() for _ in range(2)]


def test_unknown_checker_or_level_is_an_error():
    with pytest.raises(ValueError, match="unknown checker"):
        tc.jit(reads_global, sharp_edges={"nope": "warn"})
    with pytest.raises(ValueError, match="level"):
        tc.jit(reads_global, sharp_edges="loud")


def test_an_inplace_write_into_a_reshape_is_flagged_only_when_the_original_is_used_after():
    # eager writes through to x only when reshape returned a view (here it does; after a
    # transpose it would not): that decides the result only where x is read after the write
    def reads_after(x):
        y = x * 1
        z = y.reshape(-1)
        z.add_(1)
        return y.sum()

    def original_is_an_input(x):
        x.flatten().mul_(2)
        return x

    def nothing_reads_it(x):  # MobileNet: in-place dropout on flatten(pooled), then a linear
        y = torch.flatten(x * 2, 1)
        torch.nn.functional.dropout(y, 0.5, training=False, inplace=True)
        return y.relu_() + 1

    def batch_norm_of_a_reshape(x, rm, rv):  # LeViT: it writes its running statistics, not its input
        return torch.nn.functional.batch_norm(x.flatten(0, 1), rm, rv, training=True).reshape_as(x)

    x = torch.randn(2, 3, 4)
    for f in (reads_after, original_is_an_input):
        with pytest.raises(tc.SharpEdgeError, match=r"\[reshape-inplace\].*test_sharp_edges.py:\d+: in-place \w+ on "
                                                    r"the output of (reshape|flatten).*used afterwards"):
            tc.jit(f)(x.clone())
    torch.testing.assert_close(tc.jit(nothing_reads_it)(x), nothing_reads_it(x))
    rm, rv = torch.zeros(4), torch.ones(4)
    got = tc.jit(batch_norm_of_a_reshape)(x, rm, rv)
    rm2, rv2 = torch.zeros(4), torch.ones(4)
    torch.testing.assert_close(got, batch_norm_of_a_reshape(x, rm2, rv2))
    torch.testing.assert_close((rm, rv), (rm2, rv2))
