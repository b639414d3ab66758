"""Grad mode, inference mode and the default dtype: what a cached trace depends on, checked by
its prologue only where the trace depends on it (each read costs every cache hit), and the
same results as eager in every mode either way."""

import pytest
import torch

import thunder_core as tc


def _prologue(jf) -> str:
    return "\n".join(tc.last_prologue_traces(jf))


def _same(a, b):
    torch.testing.assert_close(a, b)
    assert a.requires_grad == b.requires_grad and a.is_inference() == b.is_inference()


def test_no_tensor_requiring_grad_is_one_entry_for_both_grad_modes():
    def f(a, b):
        return a * b + a

    jf = tc.jit(f)
    a, b = torch.randn(3, 4), torch.randn(3, 4)
    _same(jf(a, b), f(a, b))
    with torch.no_grad():
        _same(jf(a, b), f(a, b))
    _same(jf(a, b), f(a, b))
    assert (tc.cache_misses(jf), tc.cache_hits(jf)) == (1, 2)
    assert "grad_enabled" not in _prologue(jf)


def test_an_input_requiring_grad_makes_grad_mode_part_of_the_key():
    def f(a, w):
        return a * w

    jf = tc.jit(f)
    a, w = torch.randn(3), torch.randn(3, requires_grad=True)
    _same(jf(a, w), f(a, w))
    with torch.no_grad():
        _same(jf(a, w), f(a, w))
    _same(jf(a, w), f(a, w))
    assert tc.cache_misses(jf) == 2


def test_a_tensor_made_requiring_grad_inside_makes_grad_mode_part_of_the_key():
    def f(a):
        w = torch.ones(3, requires_grad=True)
        return a * w

    jf = tc.jit(f)
    a = torch.randn(3)
    with torch.no_grad():
        _same(jf(a), f(a))
    _same(jf(a), f(a))  # requires grad in grad mode only, as in eager
    with torch.no_grad():
        _same(jf(a), f(a))
    assert tc.cache_misses(jf) == 2


@pytest.mark.parametrize("how", ["is_grad_enabled", "grad_mode", "set_grad_enabled"])
def test_a_program_reading_grad_mode_is_keyed_on_it(how):
    def f(a):
        if how == "is_grad_enabled":
            on = torch.is_grad_enabled()
        elif how == "grad_mode":
            on = torch.autograd.grad_mode.torch.is_grad_enabled()
        else:
            with torch.no_grad():  # restores the caller's mode on exit: read then
                a = a + 1
            on = torch.is_grad_enabled()
        return a * 2 if on else a * 3

    jf = tc.jit(f)
    a = torch.randn(3)
    for mode in (True, False, True, False):
        with torch.set_grad_enabled(mode):
            _same(jf(a), f(a))
    assert (tc.cache_misses(jf), tc.cache_hits(jf)) == (2, 2)


def test_inference_mode_is_a_miss_through_the_tensor_check():
    def f(a):
        return a * 2

    jf = tc.jit(f)
    a = torch.randn(3)
    _same(jf(a), f(a))
    with torch.inference_mode():
        _same(jf(a), f(a))  # an inference tensor, as in eager
    _same(jf(a), f(a))
    assert tc.cache_misses(jf) == 2
    assert "inference_mode" not in _prologue(jf)


def test_inference_mode_without_tensor_inputs_is_read():
    def f(n):
        return torch.arange(n) * 2

    jf = tc.jit(f, cache="constant values")
    _same(jf(3), f(3))
    with torch.inference_mode():
        _same(jf(3), f(3))
    _same(jf(3), f(3))
    assert tc.cache_misses(jf) == 2


def test_a_program_reading_inference_mode_is_keyed_on_it():
    def f(a):
        return a * 2 if torch.is_inference_mode_enabled() else a * 3

    jf = tc.jit(f)
    a = torch.randn(3)
    for mode in (False, True, False, True):
        with torch.inference_mode(mode):
            torch.testing.assert_close(jf(a), f(a))
    assert (tc.cache_misses(jf), tc.cache_hits(jf)) == (2, 2)


def test_default_dtype_is_part_of_the_key():
    def f(a):
        return a + torch.ones(2)

    jf = tc.jit(f)
    a = torch.ones(2, dtype=torch.float64)
    _same(jf(a), f(a))
    old = torch.get_default_dtype()
    torch.set_default_dtype(torch.float64)
    try:
        _same(jf(a), f(a))
    finally:
        torch.set_default_dtype(old)
    assert tc.cache_misses(jf) == 2
