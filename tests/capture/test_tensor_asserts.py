"""An ``assert`` on tensor contents (``assert not x.isnan().any(), "NaN"``) only decides
whether the program raises: it is checked on every call, where the program made it, with the
program's AssertionError and message, and the trace goes on as if it held. Before, it was
refused as a data-dependent branch (HF I-BERT's training step: ``assert x_max.isnan().sum()
== 0 and x_min.isnan().sum() == 0, "NaN detected..."``). A branch whose other side does
anything else than raise an AssertionError stays refused."""

import pytest
import torch

import thunder_core as tc

from .asserting_code import (comparison, either, in_training, message_of_the_tensor, nan_check, negation,
                             raises_value_error)


def _outcome(fn, *args):
    try:
        return fn(*args)
    except AssertionError as e:
        return e


def _same(fn, jf, *args):
    want, got = _outcome(fn, *args), _outcome(jf, *args)
    assert type(got) is type(want)
    if isinstance(want, AssertionError):
        assert got.args == want.args
    else:
        torch.testing.assert_close(got, want, equal_nan=True)
    return got


@pytest.mark.parametrize("fn", [nan_check, negation, comparison])
def test_a_tensor_assert_is_checked_on_every_call(fn):
    jf = tc.jit(fn)
    _same(fn, jf, torch.ones(3))
    for bad in (torch.tensor([1.0, float("nan"), 2.0]), torch.tensor([-1000.0, 1.0, 2.0]),
                torch.tensor([-5.0, 1.0, 2.0]), torch.ones(3)):
        _same(fn, jf, bad)  # a cached call raises as eager does, or not
    assert tc.cache_misses(jf) == 1
    raised = _outcome(jf, torch.tensor([float("nan"), -1000.0, -5.0]))
    assert isinstance(raised, AssertionError) and "asserting_code.py" in "".join(raised.__notes__)


def test_the_check_runs_where_the_program_made_it_in_training():
    lin = torch.nn.Linear(8, 8)

    f = in_training(lin)
    jf = tc.jit(f)
    x = torch.randn(4, 8)
    jf(x).backward()
    got = lin.weight.grad.clone()
    lin.zero_grad()
    f(x).backward()
    torch.testing.assert_close(got, lin.weight.grad)
    with pytest.raises(AssertionError, match="not finite"):
        jf(torch.full((4, 8), float("inf")))


def test_other_branches_on_tensor_contents_stay_refused():
    # (on a tensor drawn at random: a cheap predicate of inputs alone is decided and guarded,
    # tests/capture/test_input_predicates.py)
    for fn in (raises_value_error, message_of_the_tensor, either):
        def drawn(x):
            return fn(x + torch.rand_like(x))

        with pytest.raises(TypeError, match="truth value of a tensor computed inside the jitted function"):
            tc.jit(drawn)(torch.ones(3))
