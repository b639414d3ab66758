"""torch.autocast (mixed precision) through tc.jit: the trace records autocast's casts, so
dtypes, values and gradients are eager's; the cache is keyed on autocast's state and dtype.
(On CPU: bfloat16 and float16 autocast, CPU's op lists.)"""

import pytest
import torch

import thunder_core as tc


def _close(a, b, **tol):
    assert a.dtype == b.dtype, (a.dtype, b.dtype)
    torch.testing.assert_close(a, b, **tol)


class _Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.l1, self.norm, self.l2 = torch.nn.Linear(8, 16), torch.nn.LayerNorm(16), torch.nn.Linear(16, 4)

    def forward(self, x, target):
        h = self.norm(torch.nn.functional.gelu(self.l1(x)))
        logits = self.l2(h)  # bfloat16 (a linear)
        return logits, torch.nn.functional.cross_entropy(logits, target)  # float32 (on CPU's float32 list)


def _amp_step(model, x, t, dtype):
    model.zero_grad()
    with torch.autocast("cpu", dtype=dtype):
        logits, loss = model(x, t)
    loss.backward()
    return logits, loss, [p.grad.clone() for p in model.parameters()]


@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16])
def test_a_training_step_under_autocast_is_eagers(dtype):
    # (it failed in the backward: "expected m1 and m2 to have the same dtype", the trace's
    # dtypes being float32 where autocast had made the tensors lower precision)
    torch.manual_seed(0)
    model, x, t = _Net(), torch.randn(5, 8), torch.tensor([0, 1, 2, 3, 0])
    want = _amp_step(model, x, t, dtype)
    jm = tc.jit(model)
    for _ in range(2):  # the first call and a cache hit
        got = _amp_step(jm, x, t, dtype)
        _close(got[0], want[0])
        _close(got[1], want[1])
        for g, w in zip(got[2], want[2]):
            _close(g, w)
    assert want[0].dtype == dtype and want[1].dtype == torch.float32


def test_autocast_entered_inside_the_function():
    # (ignored before: the matmul ran in float32 where eager's gives bfloat16)
    def f(x, w):
        with torch.autocast("cpu", dtype=torch.bfloat16):
            y = x @ w
            z = torch.cat([y, x])  # promoted to the widest: float32
        return y, z, x @ w

    x, w = torch.randn(4, 4), torch.randn(4, 4)
    for g, e in zip(tc.jit(f)(x, w), f(x, w)):
        _close(g, e)


def test_autocast_turned_off_inside_under_the_callers_autocast():
    # HF's rotary embeddings compute in float32 with autocast off inside the caller's autocast
    def f(x, w):
        with torch.autocast("cpu", enabled=False):
            freqs = x.float() @ w.float()
        return freqs.cos(), x @ w

    x, w = torch.randn(4, 4), torch.randn(4, 4)
    jf = tc.jit(f)
    with torch.autocast("cpu", dtype=torch.bfloat16):
        want = f(x, w)
        for _ in range(2):
            for g, e in zip(jf(x, w), want):
                _close(g, e)
    assert [t.dtype for t in want] == [torch.float32, torch.bfloat16]


def test_autocast_state_and_dtype_are_part_of_the_key():
    def f(x, w):
        return x @ w

    x, w = torch.randn(4, 4), torch.randn(4, 4)
    jf = tc.jit(f)
    for dtype in (None, torch.bfloat16, torch.float16, torch.bfloat16, None):
        if dtype is None:
            _close(jf(x, w), f(x, w))
        else:
            with torch.autocast("cpu", dtype=dtype):
                _close(jf(x, w), f(x, w))
    assert (tc.cache_misses(jf), tc.cache_hits(jf)) == (3, 2)


def test_autocast_without_tensor_arguments_is_checked_too():
    def f(n):
        return torch.ones(n, n) @ torch.ones(n, n)

    jf = tc.jit(f, cache="constant values")
    _close(jf(3), f(3))
    with torch.autocast("cpu", dtype=torch.bfloat16):
        _close(jf(3), f(3))
    _close(jf(3), f(3))
    assert tc.cache_misses(jf) == 2


def test_an_autocast_op_casts_its_inputs_and_its_body_runs_without_autocast():
    # einsum is not an autocast op, but ATen makes this one of bmm, which is: cast (as in
    # eager); one without a summed shared index is a product: not cast. cdist is a float32 op
    # on CPU: the matmul in its decomposition is not cast again to bfloat16
    def f(x, w, b):
        return (torch.einsum("ij,jk->ik", x, w), torch.einsum("ij,ij->ij", x, w), torch.nn.functional.linear(x, w, b),
                torch.cdist(x, w))

    x, w, b = torch.randn(4, 4), torch.randn(4, 4), torch.randn(4)
    jf = tc.jit(f)
    with torch.autocast("cpu", dtype=torch.bfloat16):
        want = f(x, w, b)
        for g, e in zip(jf(x, w, b), want):
            _close(g, e)
    assert [t.dtype for t in want] == [torch.bfloat16, torch.float32, torch.bfloat16, torch.float32]
    trace = str(tc.last_traces(jf)[0])
    assert trace.count("ltorch.to(") == 5, trace  # x, w for the einsum; x, w, b for linear


def test_a_transformers_model_trains_under_autocast_as_in_eager():
    pytest.importorskip("transformers")
    from thunder_core.examples import transformers_models as tm

    model = tm.build("llama").train()
    kw = tm.inputs("llama")

    def step(m):
        m.zero_grad()
        with torch.autocast("cpu", dtype=torch.bfloat16):
            out = m(**kw, labels=kw["input_ids"])
        out.loss.backward()
        return out.logits, out.loss, {n: p.grad.clone() for n, p in m.named_parameters()}

    want = step(model)
    got = step(tc.jit(model))
    _close(got[0], want[0])
    _close(got[1], want[1])
    for n, g in want[2].items():
        _close(got[2][n], g, atol=1e-5, rtol=1e-3)
