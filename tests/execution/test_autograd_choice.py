"""Split or not (execution/autograd_choice.py): a small trace that needs gradients runs op by op
under PyTorch's autograd when the split's fixed cost would be most of its step; larger traces,
higher-order ops and executors PyTorch cannot differentiate through keep the split. Gradients
are compared with eager's in every case.

The suite's conftest prices the split's fixed cost at 0 (so that the VJP rules are what its tiny
tensors exercise); these tests put the real price back."""

import pytest
import torch

import thunder_core as tc
from thunder_core.execution import autograd_choice
from thunder_core.extend import Executor

pytest.importorskip("thunder_executor_torch")


@pytest.fixture(autouse=True)
def _as_users_get_it(real_split_price):
    pass


def _leaves(*shapes):
    torch.manual_seed(0)
    return [torch.randn(*s, requires_grad=True) for s in shapes]


def _same_grads(f, jf, *shapes, rtol=0.0, atol=0.0):
    xs, ys = _leaves(*shapes), _leaves(*shapes)
    out, want = jf(*xs), f(*ys)
    torch.testing.assert_close(out, want, rtol=rtol, atol=atol)
    out.sum().backward()
    want.sum().backward()
    for x, y in zip(xs, ys):
        torch.testing.assert_close(x.grad, y.grad, rtol=rtol, atol=atol)


def tiny(a, b):
    return a * b + a


@pytest.mark.parametrize("executors", [["torch"], None])
def test_a_small_trace_runs_op_by_op_under_pytorch_autograd(executors):
    jf = tc.jit(tiny, executors=executors)
    for _ in range(3):  # the compile, then hits
        _same_grads(tiny, jf, (8, 8), (8, 8))
    assert tc.last_backward_traces(jf) == []
    text = tc.explain(jf)
    assert "PyTorch's autograd" in text and "fixed cost" in text
    assert tc.cache_misses(jf) == 1


def test_the_split_wins_without_its_fixed_cost(monkeypatch):
    monkeypatch.setattr(autograd_choice, "SPLIT_US", 0.0)  # (THUNDER_CORE_SPLIT_US=0)
    jf = tc.jit(tiny, executors=["torch"])
    _same_grads(tiny, jf, (8, 8), (8, 8))
    assert tc.last_backward_traces(jf)


def test_a_trace_of_many_differentiable_ops_keeps_the_split():
    def chain(x, w):
        for _ in range(12):
            x = (x * w).tanh() + x
        return x

    jf = tc.jit(chain, executors=["torch"])
    _same_grads(chain, jf, (4, 4), (4, 4), rtol=1e-6, atol=1e-6)
    assert tc.last_backward_traces(jf)


def test_estimate_is_none_without_a_differentiable_executor():
    from thunder_core.execution.cost import CostModel
    from thunder_core.transforms import autograd

    a, b = _leaves((8, 8), (8, 8))
    jf = tc.jit(tiny, executors=["torch"])
    jf(a, b)
    trace = tc.last_traces(jf)[0]
    s = autograd.split(trace)
    torch_ex = next(ex for ex in tc.jit(tiny)._executors if ex.name == "torch")
    opaque = Executor("opaque-torch", torch_ex.implementations)  # the same table, not declared differentiable
    model = CostModel()
    assert autograd_choice.op_by_op_us(trace, s.backward, [opaque], model) is None
    estimate = autograd_choice.op_by_op_us(trace, s.backward, [torch_ex], model)
    assert estimate is not None and estimate < autograd_choice.prices(model)[0]


def test_a_higher_order_op_keeps_the_split():
    def f(a, b):
        return torch.cond(a.sum() > 0, lambda a, b: a * b, lambda a, b: a + b, (a, b))

    jf = tc.jit(f, executors=["torch"])
    _same_grads(f, jf, (8, 8), (8, 8))
    assert "higher_order.cond" in str(tc.last_traces(jf)[0])
    assert tc.last_backward_traces(jf)


def test_an_intermediate_autograd_saved_is_not_written_by_buffer_reuse():
    # t does not require grad, but w * t saves it for w's gradient: writing t + 1 into t (buffer
    # reuse) would make that gradient wrong (or autograd's version check fail)
    def f(x, w):
        t = x.detach() * 2
        y = w * t
        z = t + 1
        return y * z

    jf = tc.jit(f, executors=["torch"])
    _same_grads(f, jf, (8, 8), (8, 8))
    assert tc.last_backward_traces(jf) == []
    assert "add_(" not in str(tc.last_traces(jf)[-1])


@pytest.mark.parametrize("case", ["create_graph", "retain_graph twice", "one input needs grad", "view output",
                                  "tuple with an integer output", "then under no_grad"])
def test_op_by_op_behaves_as_eager(case):
    def f(a, b):
        return a * b + a

    def views(a, b):
        return (a * b).view(-1)

    def pair(a, b):
        return a * b, (a > 0).sum()

    fn = {"view output": views, "tuple with an integer output": pair}.get(case, f)
    jf = tc.jit(fn, executors=["torch"])
    xs, ys = _leaves((4, 4), (4, 4)), _leaves((4, 4), (4, 4))
    if case == "one input needs grad":
        xs[1].requires_grad_(False)
        ys[1].requires_grad_(False)
    got, want = jf(*xs), fn(*ys)
    assert tc.last_backward_traces(jf) == []
    if case == "tuple with an integer output":
        assert got[1].requires_grad is False and torch.equal(got[1], want[1])
        got, want = got[0], want[0]
    if case == "view output":
        assert got._base is not None and want._base is not None
    if case == "create_graph":
        (g1,) = torch.autograd.grad(got.sum(), xs[0], create_graph=True)
        (w1,) = torch.autograd.grad(want.sum(), ys[0], create_graph=True)
        torch.testing.assert_close(torch.autograd.grad(g1.sum(), xs[1]), torch.autograd.grad(w1.sum(), ys[1]))
        return
    if case == "retain_graph twice":
        got.sum().backward(retain_graph=True)
        want.sum().backward(retain_graph=True)
    got.sum().backward()
    want.sum().backward()
    for x, y in zip(xs, ys):
        assert (x.grad is None) == (y.grad is None)
        if x.grad is not None:
            torch.testing.assert_close(x.grad, y.grad, rtol=0, atol=0)
    if case == "then under no_grad":
        with torch.no_grad():
            out = jf(*xs)
        assert not out.requires_grad and tc.cache_misses(jf) == 2
        torch.testing.assert_close(out, fn(*ys).detach(), rtol=0, atol=0)


def test_a_small_module_trains_op_by_op_like_eager():
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(8, 8), torch.nn.BatchNorm1d(8), torch.nn.ReLU())
    ref = __import__("copy").deepcopy(model)
    jm = tc.jit(model, executors=["torch"])
    opts = [torch.optim.SGD(m.parameters(), lr=0.1) for m in (model, ref)]
    for step in range(3):
        x = torch.randn(16, 8)
        for m, opt in ((jm, opts[0]), (ref, opts[1])):
            opt.zero_grad()
            m(x).pow(2).mean().backward()
            opt.step()
        assert tc.last_backward_traces(jm) == []
        for (n, p), q in zip(model.state_dict().items(), ref.state_dict().values()):
            torch.testing.assert_close(p, q, rtol=1e-6, atol=1e-6, msg=lambda m: f"step {step}, {n}: {m}")
    assert tc.cache_misses(jm) == 1


def test_dropout_op_by_op_draws_what_eager_draws():
    import torch.nn.functional as F

    def f(x, w):
        return F.dropout(x * w, 0.5, training=True) + x

    jf = tc.jit(f, executors=["torch"])
    for seed in range(3):
        xs, ys = _leaves((8, 8), (8, 8)), _leaves((8, 8), (8, 8))
        torch.manual_seed(seed)
        got = jf(*xs)
        torch.manual_seed(seed)
        want = f(*ys)
        assert torch.equal(got, want)
        got.sum().backward()
        want.sum().backward()
        assert all(torch.equal(x.grad, y.grad) for x, y in zip(xs, ys))
    assert tc.last_backward_traces(jf) == [] and tc.cache_misses(jf) == 1


def test_calibrated_prices_decide(tmp_path, monkeypatch):
    """The prices calibrate stores (DeviceProfile.autograd_us) are the ones the choice uses."""
    import json

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    (tmp_path / "thunder_core").mkdir()
    path = tmp_path / "thunder_core" / "machine.json"
    for split, node, op_by_op in ((20.0, 1.3, True), (0.5, 1.3, False), (20.0, 25.0, False)):
        path.write_text(json.dumps({"profiles": {"cpu": {"autograd_us": {"split": split, "grad_node": node}}}}))
        jf = tc.jit(tiny, executors=["torch"])
        _same_grads(tiny, jf, (8, 8), (8, 8))
        assert (tc.last_backward_traces(jf) == []) == op_by_op, (split, node)
        if op_by_op:
            assert f"of which {split:.0f} us is the fixed cost" in tc.explain(jf)
