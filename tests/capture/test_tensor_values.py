"""A small integer tensor passed to the jitted function can stand for a number: a size
(``torch.zeros(n)``), ``int(n)``, ``n.item()``. Its value is read and checked on every call
(one compile per value, as for a constant); a computed or floating tensor's value is data,
refused with what to do."""

import pytest
import torch

import thunder_core as tc
from thunder_core.ir import TracingError


@pytest.mark.parametrize("f", [lambda n: torch.zeros(n), lambda n: torch.zeros(2, n), lambda n: torch.ones(int(n)),
                               lambda n: torch.ones(n.item()) * float(n), lambda n: torch.randn(4, 6).view(n, -1)],
                         ids=["size", "size2", "int", "item-float", "view"])
def test_an_integer_input_tensor_as_a_number(f):
    jf = tc.jit(f)
    for k in (3, 3, 2, 3):  # a new value compiles again; an old one is a hit
        n = torch.tensor(k)
        torch.manual_seed(0)
        want = f(n)
        torch.manual_seed(0)
        got = jf(n)
        assert got.shape == want.shape
        torch.testing.assert_close(got, want)
    assert tc.cache_misses(jf) == 2


def test_a_computed_tensor_as_a_size_is_refused_as_data():
    # (it failed deep in a primitive: "shape (n,) must be non-negative ints")
    def f(x):
        return torch.zeros(x.sum().long())

    with pytest.raises(TracingError, match="a size given as a tensor is a tensor .* whose values decide the shapes"):
        tc.jit(f)(torch.ones(3))


def test_item_of_a_computed_tensor_is_refused_as_data():
    def f(x):
        return x.sum().item()

    with pytest.raises(TracingError, match="item returns something that depends on tensor values"):
        tc.jit(f)(torch.ones(3))
