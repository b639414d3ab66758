"""cache="symbolic values": sizes of argument tensors stay symbolic. Each test runs the
jitted function and eager on several shapes and counts the compiles."""

from __future__ import annotations

import pytest
import torch

import thunder_core as tc
from thunder_core.examples.models import GPT, GPTBlock


def jit(fn, **kw):
    return tc.jit(fn, cache="symbolic values", **kw)


def test_reshape_with_a_symbolic_batch_is_one_trace():
    f = lambda t, b: t.reshape(b, -1) * 2  # noqa: E731
    jf = jit(f)
    t = torch.randn(12, 4)
    for b in (2, 3, 4, 6):
        torch.testing.assert_close(jf(t, b), f(t, b))
    assert tc.cache_misses(jf) == 1
    assert "t: \"cpu f32[t_0, t_1]\"" in str(tc.last_traces(jf)[0])


def test_split_with_symbolic_sections_is_one_trace():
    def f(a, d0, d1):
        x, y, z = torch.split(a, (d0, d1, a.size(2) - d0 - d1), dim=2)
        return x.sum(2) + y.sum(2) * z.sum(2)

    jf = jit(f)
    a = torch.randn(2, 3, 10)
    for d0, d1 in ((2, 3), (4, 4), (1, 5), (3, 2)):
        torch.testing.assert_close(jf(a, d0, d1), f(a, d0, d1))
    assert tc.cache_misses(jf) == 1


def test_sizes_of_one_specialise_and_sizes_that_must_agree_are_guarded():
    f = lambda x, y: x + y  # noqa: E731
    jf = jit(f)
    for n in (3, 5, 7):
        x, y = torch.randn(n, 4), torch.randn(n, 4)
        torch.testing.assert_close(jf(x, y), f(x, y))
    assert tc.cache_misses(jf) == 1
    assert "y_0 == x_0 is True" in tc.last_prologue_traces(jf)[-1]
    x, y = torch.randn(1, 4), torch.randn(3, 4)  # size 1 broadcasts: a trace of its own
    torch.testing.assert_close(jf(x, y), f(x, y))
    assert tc.cache_misses(jf) == 2
    with pytest.raises(RuntimeError):  # sizes that do not broadcast fail as in eager
        jf(torch.randn(3, 4), torch.randn(5, 4))


def test_gpt_forward_over_ten_sequence_lengths_is_one_trace():
    torch.manual_seed(0)
    m = GPT()
    jm = tc.jit(m, cache="symbolic values")
    with torch.no_grad():
        for t in range(20, 30):
            x = torch.randint(0, 128, (2, t))
            torch.testing.assert_close(jm(x), m(x))
    assert tc.cache_misses(jm) == 1


def test_gpt_training_step_over_sequence_lengths_is_one_trace():
    torch.manual_seed(0)
    m = GPT()
    jm = tc.jit(m, cache="symbolic values")
    for t in (20, 23, 26):
        x, y = torch.randint(0, 128, (2, t)), torch.randint(0, 128, (2, t))
        _, loss = jm(x, y)
        loss.backward()
        got = {n: p.grad.clone() for n, p in m.named_parameters()}
        m.zero_grad()
        _, want = m(x, y)
        want.backward()
        torch.testing.assert_close(loss, want)
        for n, p in m.named_parameters():
            torch.testing.assert_close(got[n], p.grad, atol=1e-5, rtol=1e-4)
        m.zero_grad()
    assert tc.cache_misses(jm) == 1


@pytest.mark.parametrize("executors", [None, ["torch"]])
def test_gpt_block_default_and_torch_executors(executors):
    torch.manual_seed(0)
    m = GPTBlock(64, 4)
    jm = tc.jit(m, cache="symbolic values", executors=executors)
    with torch.no_grad():
        for t in (8, 9, 12):
            x = torch.randn(2, t, 64)
            torch.testing.assert_close(jm(x), m(x))
    assert tc.cache_misses(jm) == 1


def test_parameters_keep_static_shapes():
    m = torch.nn.Linear(4, 3)
    jm = tc.jit(m, cache="symbolic values")
    with torch.no_grad():
        jm(torch.randn(5, 4))
    trace = str(tc.last_traces(jm)[0])
    assert "f32[3, 4]" in trace and "f32[input_0, 4]" in trace, trace  # input_1 == 4 by the matmul: one size
    assert "input_1 != 4 is False" in tc.last_prologue_traces(jm)[-1]


def test_greedy_decoding_with_a_kv_cache_compiles_prefill_and_decode_once_each():
    hf = pytest.importorskip("thunder_core.examples.transformers_models")
    pytest.importorskip("transformers")
    model = hf.build("gpt2").eval()
    kw = hf.inputs("gpt2")
    jm = tc.jit(model, cache="symbolic values")
    with torch.no_grad():
        tokens = jm.generate(**kw, max_new_tokens=8, do_sample=False)
        want = model.generate(**kw, max_new_tokens=8, do_sample=False)
    assert torch.equal(tokens, want)
    assert tc.cache_misses(jm) == 2  # the prompt (length >= 2), then every one-token step


def test_a_tensor_value_in_a_branch_is_an_error_naming_the_line():
    def f(x):
        if x.sum().item() > 0:
            return x
        return -x

    with pytest.raises(Exception) as info:
        jit(f)(torch.randn(3, 4))
    text = str(info.value) + "".join(getattr(info.value, "__notes__", []))
    assert "test_shapes.py" in text and ("torch.where" in text or "torch.cond" in text), text


def test_the_tensor_guard_of_symbolic_sizes_checks_rank_dtype_and_sizes_of_two_or_more():
    """Symbolic tensors are checked by the same C++ TensorGuards as static ones (sizes and
    strides left free) plus a Python check that each symbolic size is still 2 or more."""
    def f(x):
        return x * 2 + 1

    jf = tc.jit(f)
    for x in (torch.randn(3, 4), torch.randn(5, 2), torch.randn(4, 3).t()):  # any sizes, any strides: hits
        torch.testing.assert_close(jf(x), f(x))
    assert (tc.cache_misses(jf), tc.cache_hits(jf)) == (1, 2)
    assert ".check(" in tc.last_prologue_traces(jf)[-1] and "< 2" in tc.last_prologue_traces(jf)[-1]
    for x in (torch.randn(3, 1), torch.randn(3, 4, 2), torch.randn(3, 4, dtype=torch.float64),
              torch.randn(3, 4, requires_grad=True)):  # a size of 1, another rank, dtype, requires_grad: misses
        misses = tc.cache_misses(jf)
        torch.testing.assert_close(jf(x), f(x))
        assert tc.cache_misses(jf) == misses + 1
    with pytest.raises(TypeError):
        jf([[1.0, 2.0], [3.0, 4.0]])  # not a tensor: a miss, and eager's error from the new trace


def test_a_stride_query_of_a_computed_tensor_is_its_symbolic_size():
    def f(x):
        return x * (x * 2).stride()[0]

    jf = tc.jit(f)
    for n in (2, 3, 5):
        x = torch.randn(4, n)
        torch.testing.assert_close(jf(x), f(x))
    assert tc.cache_misses(jf) == 1
    assert "opaque." not in str(tc.last_traces(jf)[-1])  # the query recorded nothing: x_1 is the stride


def test_the_prologue_computes_each_subexpression_of_its_size_checks_once():
    # Reshapes by computed sizes guard products and quotients of the sizes, nested; the
    # prologue computes a repeated subexpression once (into a local), and its checks still
    # tell calls apart.
    def f(x, k):
        n = x.shape[0] * x.shape[1]
        y = x.reshape(n // k, k)
        z = y.reshape(n // k // 2, 2 * k)
        return z.sum(0) + n * k

    jf = tc.jit(f)
    for shape, k in (((4, 6), 2), ((6, 4), 3), ((8, 2), 4)):
        x = torch.randn(shape)
        torch.testing.assert_close(jf(x, k), f(x, k))
    assert tc.cache_misses(jf) == 1
    src = tc.last_prologue_traces(jf)[-1]
    rhs = [ln.split("#")[0].split(" = ", 1)[1].strip() for ln in src.splitlines()
           if ln.strip().startswith("n") and " = " in ln.split("#")[0]]
    assert rhs, src
    assert len(rhs) == len(set(rhs)), src  # each subexpression once
    for shape, k in (((6, 5), 5), ((3, 4), 2), ((6, 5), 3)):  # other sizes: hits or new compiles, right either way
        x = torch.randn(shape)
        torch.testing.assert_close(jf(x, k), f(x, k))
    with pytest.raises(RuntimeError):  # 5 // 2 * 2 != 5: eager's error
        jf(torch.randn(5, 1), 1)
