"""``out=`` on torch functions: the result is written into the given tensor(s), which the call
returns, as in eager (it failed with "unexpected keyword argument 'out'")."""

import pytest
import torch

import thunder_core as tc
from thunder_core.ir import TracingError


def test_out_made_inside_is_written_and_returned():
    def f(x):
        y = torch.empty(3, 4)
        r = torch.add(x, 1, out=y)
        return y * 2, r is y

    x = torch.randn(3, 4)
    (got, same), (want, same_e) = tc.jit(f)(x), f(x)
    torch.testing.assert_close(got, want)
    assert same and same_e


def test_out_given_as_an_argument_is_written_like_eager():
    def g(x, o):
        torch.mul(x, 3, out=o)
        return o + 1

    x = torch.randn(3, 4)
    o_e, o_j = torch.zeros(3, 4), torch.zeros(3, 4)
    jg = tc.jit(g)
    for _ in range(2):  # and through the cache hit
        torch.testing.assert_close(jg(x, o_j), g(x, o_e))
        torch.testing.assert_close(o_j, o_e)


def test_out_tuple_for_an_op_with_two_results():
    def h(x):
        v, i = torch.empty(3), torch.empty(3, dtype=torch.long)
        torch.max(x, 1, out=(v, i))
        return v, i

    x = torch.randn(3, 4)
    for a, b in zip(tc.jit(h)(x), h(x)):
        torch.testing.assert_close(a, b)


def test_out_of_a_dtype_the_result_cannot_be_cast_to_raises_as_eager():
    def bad(x):
        return torch.add(x, 1, out=torch.empty(3, 4, dtype=torch.long))

    x = torch.randn(3, 4)
    with pytest.raises(RuntimeError, match="can't be cast to the desired output type Long") as eager:
        bad(x)
    with pytest.raises(RuntimeError, match=str(eager.value)):
        tc.jit(bad)(x)


def test_out_of_another_shape_says_what_to_do():
    def resized(x):
        return torch.add(x, 1, out=torch.empty(0))

    with pytest.raises(TracingError, match=r"out= has shape \(0,\) where the result has \(3, 4\).*Pass an out="):
        tc.jit(resized)(torch.randn(3, 4))
