"""torch.cond under tc.jit, against eager: Python and constant predicates pick a branch with a
guard; a tensor predicate traces both branches into one higher_order.cond, decided on every
call without tracing again, differentiable on both sides."""

import pytest
import torch

import thunder_core as tc
from thunder_core.ir import TracingError, verify

from .helpers import assert_same


def sin_branch(x, y):
    return (x * y).sin() + 1


def cos_branch(x, y):
    return x.cos() * y


def by_shape(x, y):
    # functions passed as arguments; the predicate is a shape test (a Python bool)
    return torch.cond(x.shape[0] > 2, sin_branch, cos_branch, (x, y))


def test_shape_predicate_picks_a_branch_with_a_guard():
    jf = tc.jit(by_shape)
    for n in (3, 2, 4, 1, 5):
        x, y = torch.randn(n), torch.randn(n)
        assert_same(jf, by_shape, [x, y], grad=(0, 1))
    assert "higher_order.cond" not in str(tc.last_traces(jf)[-1])  # one branch, inline
    assert "higher_order" not in str(tc.last_backward_traces(jf)[-1])
    # one compile per outcome of the guarded predicate `x_0 > 2` (3, then 2; 4 and 5 reuse the
    # first), and one for size 1, which stays a constant (it broadcasts)
    assert tc.cache_misses(jf) == 3


def by_value(x, w):
    h = x * 2  # read inside the branches: becomes an input of both

    def true_fn(x):
        return (x * w).sin() + h

    def false_fn(x):
        return x.cos() - h

    return torch.cond(x.sum() > 0, true_fn, false_fn, (x,))


def test_tensor_predicate_runs_either_branch_without_tracing_again():
    jf = tc.jit(by_value)
    x, w = torch.rand(5) + 0.1, torch.randn(5)
    for sign in (1, -1, 1, -1):
        assert_same(jf, by_value, [x * sign, w], grad=(0, 1))  # values and both gradients
    assert tc.cache_misses(jf) == 1 and tc.cache_hits(jf) == 3
    forward = tc.last_traces(jf)[-1]
    assert "higher_order.cond(" in str(forward) and "def cond_true0(" in str(forward)
    backward = str(tc.last_backward_traces(jf)[-1])
    assert "higher_order.cond(" in backward and "def cond_true_vjp0(" in backward  # a cond of the branch VJPs
    for t in (*tc.last_traces(jf), *tc.last_backward_traces(jf)):
        verify(t)


def test_tensor_predicate_without_gradients():
    jf = tc.jit(by_value)
    with torch.no_grad():
        for sign in (1, -1):
            x = (torch.rand(4) + 0.1) * sign
            torch.testing.assert_close(jf(x, torch.ones(4)), by_value(x, torch.ones(4)))
    assert tc.cache_misses(jf) == 1


class Gate(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.up = torch.nn.Linear(4, 4)
        self.down = torch.nn.Linear(4, 4)

    def forward(self, x):
        # branches close over the module: its parameters are inputs of the branches
        return torch.cond(x.mean() > 0, lambda x: self.up(x).relu(), lambda x: self.down(x).tanh(), (x,))


def test_module_parameters_get_gradients_on_both_sides():
    torch.manual_seed(0)
    m = Gate()
    jm = tc.jit(m)
    for sign in (1, -1, 1):
        x = (torch.rand(3, 4) + 0.1) * sign
        out = jm(x)
        out.sum().backward()
        got = [p.grad.clone() for p in m.parameters()]
        m.zero_grad()
        m(x).sum().backward()
        torch.testing.assert_close(out, m(x))
        for g, p in zip(got, m.parameters()):
            torch.testing.assert_close(g, p.grad)
        m.zero_grad()
    assert tc.cache_misses(jm) == 1


def pytree_cond(p, d):
    return torch.cond(p, lambda d: {"a": d["x"] + d["y"][0], "b": (d["y"][1] * 2,)},
                      lambda d: {"a": d["x"] - 1, "b": (d["y"][1].neg(),)}, (d,))


def test_nested_operands_and_outputs():
    jf = tc.jit(pytree_cond)
    d = {"x": torch.randn(3), "y": [torch.randn(3), torch.randn(2)]}
    for p in (torch.tensor(True), torch.tensor(False)):
        got, want = jf(p, d), pytree_cond(p, d)
        assert got.keys() == want.keys() and isinstance(got["b"], tuple)
        torch.testing.assert_close(got, want)
    assert tc.cache_misses(jf) == 1


def test_symbolic_number_predicate_is_a_guard():
    def f(x, n):
        return torch.cond(n > 3, lambda x: x.sin(), lambda x: x.cos(), (x,))

    jf = tc.jit(f, cache="symbolic values")
    x = torch.randn(3)
    for n in (5, 6, 1, 2, 7):
        torch.testing.assert_close(jf(x, n), f(x, n))
    assert tc.cache_misses(jf) == 2  # one per outcome of n > 3, not one per n
    assert "n > 3" in tc.last_prologue_traces(jf)[0]


def test_tensor_predicate_with_symbolic_shapes():
    def f(x):
        return torch.cond(x.sum() > 0, lambda x: x.sin() * x.shape[0], lambda x: x.cos().reshape(x.shape[0], 1).sum(1),
                          (x,))

    jf = tc.jit(f, cache="symbolic values")
    for n in (3, 4, 6):
        for sign in (1, -1):
            x = (torch.rand(n) + 0.1) * sign
            torch.testing.assert_close(jf(x), f(x))
    assert tc.cache_misses(jf) == 1


def mismatched(x):
    return torch.cond(x.sum() > 0, lambda x: x.sum(0), lambda x: x * 2, (x,))


def test_branches_must_agree_naming_both():
    with pytest.raises(TracingError) as e:
        tc.jit(mismatched)(torch.randn(2, 3))
    text = str(e.value)
    # sizes are symbolic (x's dims are x_0 and x_1): the shapes say which dims they come from
    assert "true_fn" in text and "false_fn" in text and "[x_1]" in text and "[x_0, x_1]" in text
    assert text.count("test_cond.py:") == 2  # both branches' lines
    # (eager refuses it too, from inside torch.compile; not run here: a failed torch.compile
    # leaves state behind that changes how later tests' models copy their configs)


@pytest.mark.parametrize("branch, match", [
    (lambda x: x, "returns one of its inputs"),
    (lambda x: x.add_(1), "writes into its input"),
])
def test_branches_that_eager_refuses_are_refused(branch, match):
    def f(x):
        return torch.cond(x.sum() > 0, branch, lambda x: x * 2, (x,))

    with pytest.raises(TracingError, match=match):
        tc.jit(f)(torch.randn(3))


LOG = []


def test_branch_writing_outside_state_is_refused():
    def noisy(x):
        LOG.append(1)
        return x * 2

    def f(x):
        return torch.cond(x.sum() > 0, noisy, lambda x: x + 1, (x,))

    with pytest.raises(TracingError, match="changes state outside"):
        tc.jit(f)(torch.randn(3))
    assert LOG == []  # the write traced was undone


def test_cond_inside_a_loop_body_and_nested_cond():
    def f(x):
        def outer_true(x):
            return torch.cond(x.max() > 1, lambda x: x - 1, lambda x: x + 1, (x,))
        return torch.cond(x.sum() > 0, outer_true, lambda x: x * 0.5, (x,))

    jf = tc.jit(f)
    for x in (torch.tensor([2.0, 0.5]), torch.tensor([0.3, 0.5]), torch.tensor([-2.0, 0.5])):
        assert_same(jf, f, [x], grad=(0,))
    assert tc.cache_misses(jf) == 1


def test_default_executors(monkeypatch):
    """With the executors users get by default (inductor fuses inside the branches)."""
    monkeypatch.delenv("THUNDER_CORE_EXECUTORS", raising=False)
    jf = tc.jit(by_value)
    x, w = torch.rand(5) + 0.1, torch.randn(5)
    for sign in (1, -1):
        assert_same(jf, by_value, [x * sign, w], grad=(0, 1))
    assert tc.cache_misses(jf) == 1
