"""What a plugin's lookaside may do besides recording symbols (thunder_core.extend):
record_effect (a call made on every call of the compiled function), read_state (process
state the prologue checks on every call), substitute (reads of an outside tensor give a
value of the trace). Each through a plugin registered at run time, as a library's would be."""

import pytest
import torch

import thunder_core as tc
from thunder_core import extend as tx

LOG = []
STATE = {"rank": 0}


def bump(tag, t=None):
    """A library's bookkeeping: it must happen on every call, with this call's tensor."""
    LOG.append((tag, None if t is None else t.clone()))


def current_rank():
    return STATE["rank"]


class Swapped(torch.nn.Module):
    """A module whose weight a library replaces while it runs (as FSDP2 swaps in the full
    parameter): ``swap_in(self)`` before the forward, ``swap_out(self)`` after."""

    def __init__(self):
        super().__init__()
        self.weight = torch.nn.Parameter(torch.ones(3))

    def forward(self, x):
        swap_in(self)
        y = x * self.weight
        swap_out(self)
        return y + self.weight  # the module's own weight again


def swap_in(module):
    pass


def swap_out(module):
    pass


def swap_unread():
    pass


UNREAD = torch.ones(2)


class Plugin:
    saved = []

    @staticmethod
    def _bump(interpreter, args, kwargs):
        tx.record_effect(interpreter, bump, *args, **kwargs)

    @staticmethod
    def _rank(interpreter, args, kwargs):
        return tx.read_state(interpreter, current_rank)

    @staticmethod
    def _swap_in(interpreter, args, kwargs):
        (module,) = args
        weight = interpreter.call(getattr, (module, "weight"))  # its input proxy, read along its path
        Plugin.saved.append((module.weight, tx.substitute(interpreter, module.weight, weight * 10)))

    @staticmethod
    def _swap_out(interpreter, args, kwargs):
        param, before = Plugin.saved.pop()
        tx.substitute(interpreter, param, before)

    @staticmethod
    def _swap_unread(interpreter, args, kwargs):
        tx.substitute(interpreter, UNREAD, None)

    @tx.hookimpl
    def thunder_core_lookasides(self):
        return {bump: self._bump, current_rank: self._rank, swap_in: self._swap_in, swap_out: self._swap_out,
                swap_unread: self._swap_unread}


@pytest.fixture(autouse=True)
def plugin():
    tx.register(Plugin(), "lookaside-tools-test")
    LOG.clear()
    yield
    tx.unregister("lookaside-tools-test")


def test_an_effect_is_made_on_every_call_in_order_with_the_computed_tensor():
    def f(x):
        bump("first")
        y = x * 2
        bump("second", y)
        return y + 1

    jf = tc.jit(f)
    for i in range(3):
        torch.testing.assert_close(jf(torch.full((2,), float(i))), torch.full((2,), 2.0 * i + 1))
    assert [tag for tag, _ in LOG] == ["first", "second"] * 3
    assert [t.tolist() for tag, t in LOG if tag == "second"] == [[0.0, 0.0], [2.0, 2.0], [4.0, 4.0]]
    assert tc.cache_misses(jf) == 1


def test_process_state_is_checked_on_every_call():
    def f(x):
        return x + current_rank()

    jf = tc.jit(f)
    STATE["rank"] = 0
    torch.testing.assert_close(jf(torch.zeros(2)), torch.zeros(2))
    STATE["rank"] = 1
    torch.testing.assert_close(jf(torch.zeros(2)), torch.ones(2))  # not the cached 0
    STATE["rank"] = 0
    torch.testing.assert_close(jf(torch.zeros(2)), torch.zeros(2))
    assert (tc.cache_misses(jf), tc.cache_hits(jf)) == (2, 1)
    assert "current_rank()" in tc.last_prologue_traces(jf)[0]


def test_reads_of_a_substituted_tensor_give_the_traces_value():
    m = Swapped()
    jm = tc.jit(m)
    x = torch.arange(3.0)
    expected = x * 10 + 1
    torch.testing.assert_close(jm(x), expected)
    torch.testing.assert_close(jm(x), expected)  # cached
    m.weight.data.fill_(2.0)
    torch.testing.assert_close(jm(x), x * 20 + 2)  # the weight is still fetched on every call
    assert tc.cache_misses(jm) == 1


def test_substituting_a_tensor_never_read_is_an_error():
    with pytest.raises(ValueError, match="the tensor was not read while tracing"):
        tc.jit(lambda x: swap_unread() or x)(torch.ones(1))
