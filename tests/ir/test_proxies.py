"""Proxies: metadata queries, names from the trace, and dispatch through TENSOR_METHODS."""

import dataclasses

import pytest
import torch

from thunder_core.ir import (TENSOR_METHODS, NumberProxy, TensorProxy, Trace, flat_proxies, number_proxy, proxy,
                             tensor_proxy, tracing)


def make(name="t0", shape=(2, 3), dtype=torch.float32, device="cpu", requires_grad=False):
    return TensorProxy(name, shape, dtype, device, requires_grad)


def test_metadata_queries():
    t = make(shape=(2, 3, 4))
    assert t.shape == (2, 3, 4) and t.shape == torch.Size([2, 3, 4])
    assert (t.ndim, t.dim(), t.numel(), len(t)) == (3, 3, 24, 2)
    assert t.size() == (2, 3, 4) and t.size(1) == 3 and t.size(-1) == 4
    assert t.dtype is torch.float32 and t.device == torch.device("cpu") and t.requires_grad is False
    assert t.is_floating_point() and not t.is_complex()
    assert not make(dtype=torch.int64).is_floating_point()
    assert make(shape=()).numel() == 1
    with pytest.raises(IndexError, match="Dimension 3 is out of range for t0"):
        t.size(3)
    with pytest.raises(TypeError, match="len\\(\\) of a 0-d tensor"):
        len(make(shape=()))


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16, torch.int64, torch.bool, torch.complex64])
def test_storage_metadata_is_eager_s(dtype):
    # what allocation-minded library code reads (FSDP2's pre-forward hook reads itemsize)
    real = torch.empty((3, 5), dtype=dtype)
    t = make(shape=(3, 5), dtype=dtype)
    assert (t.itemsize, t.element_size(), t.nbytes, t.nelement()) == \
        (real.itemsize, real.element_size(), real.nbytes, real.nelement())


def test_print_hash_and_frozen():
    a, b = make("t0"), make("t1")
    assert str(a) == repr(a) == "t0"
    assert {a: 1, b: 2}[a] == 1 and hash(a) != hash(make("t0"))  # identity, not name
    with pytest.raises(dataclasses.FrozenInstanceError):
        a.shape = (1,)


def test_validation():
    with pytest.raises(ValueError, match="not a valid Python identifier"):
        make(name="0t")
    with pytest.raises(ValueError, match="not a valid Python identifier"):
        make(name="lambda")
    with pytest.raises(TypeError, match="shape must be a sequence of ints"):
        make(shape=(2.5,))
    with pytest.raises(ValueError, match="negative dimension"):
        make(shape=(-1,))
    with pytest.raises(TypeError, match="dtype must be a torch.dtype"):
        make(dtype="float32")
    with pytest.raises(TypeError, match="python_type must be one of"):
        NumberProxy("n0", str, "x")
    with pytest.raises(TypeError, match="value 1.5 is a float, but python_type is int"):
        NumberProxy("i0", int, 1.5)
    assert make(shape=[torch.tensor(2).item(), 3]).shape == (2, 3)


def test_truth_value_is_an_error():
    with pytest.raises(TypeError, match=r"truth value of a tensor computed inside the jitted function \(t0 in the trace\) is not known"):
        bool(make())
    with pytest.raises(TypeError, match=r"truth value of a number computed inside the jitted function \(i0 in the trace\)"):
        bool(NumberProxy("i0", int))
    assert bool(NumberProxy("i1", int, 1)) is True  # a number known while tracing is a constant


def test_names_come_from_the_current_trace():
    trace = Trace("f")
    with tracing(trace):
        t0, t1 = tensor_proxy((2,), torch.float32, "cpu"), tensor_proxy((2,), torch.float32, "cpu")
        i0, f0 = number_proxy(int, 3), number_proxy(float)
        named = tensor_proxy((1,), torch.int64, "cpu", name="weight")
        with pytest.raises(ValueError, match="already used in trace 'f'"):
            tensor_proxy((1,), torch.int64, "cpu", name="weight")
    assert [p.name for p in (t0, t1, i0, f0, named)] == ["t0", "t1", "i0", "f0", "weight"]
    assert i0.value == 3 and f0.value is None and f0.python_type is float
    assert trace.make_name("t") == "t2"
    with pytest.raises(RuntimeError, match="created outside of a trace"):
        tensor_proxy((2,), torch.float32, "cpu")
    assert tensor_proxy((2,), torch.float32, "cpu", name="x").name == "x"


def test_proxy_of_real_values():
    with tracing(Trace()):
        t = proxy(torch.zeros(2, 5, dtype=torch.float64, requires_grad=True))
        n, b = proxy(7), proxy(True)
        assert proxy(t) is t
        with pytest.raises(TypeError, match="Cannot make a proxy for a str"):
            proxy("x")
    assert (t.shape, t.dtype, t.requires_grad) == ((2, 5), torch.float64, True)
    assert (n.name, n.python_type, n.value) == ("i0", int, 7) and (b.name, b.python_type) == ("b0", bool)


@pytest.fixture
def calls(monkeypatch):
    """Replace the table with recorders: each entry returns (key, args, kwargs)."""
    for key in ["add", "add_", "sub", "mul", "div", "pow", "matmul", "neg", "abs", "bitwise_not", "eq", "lt",
                "__getitem__", "__setitem__", "sum"]:
        monkeypatch.setitem(TENSOR_METHODS, key, lambda *a, _k=key, **kw: (_k, a, kw))
    log = []
    monkeypatch.setitem(TENSOR_METHODS, "__setitem__", lambda *a: log.append(("__setitem__", a)))
    return log


def test_operators_dispatch_through_the_table(calls):
    t, u = make("t0"), make("t1")
    assert t + u == ("add", (t, u), {})
    assert 2 - t == ("sub", (2, t), {})  # reflected operators swap operands
    assert 3 * t == ("mul", (3, t), {})
    assert t / 2 == ("div", (t, 2), {})
    assert 2 ** t == ("pow", (2, t), {})
    assert u @ t == ("matmul", (u, t), {})
    assert -t == ("neg", (t,), {}) and abs(t) == ("abs", (t,), {}) and ~t == ("bitwise_not", (t,), {})
    assert (t == u) == ("eq", (t, u), {}) and (t < 1) == ("lt", (t, 1), {})
    assert t[0, ..., None] == ("__getitem__", (t, (0, ..., None)), {})
    assert t.sum(dim=1) == ("sum", (t,), {"dim": 1})
    v = t
    v += u
    assert v == ("add_", (t, u), {})  # in-place operators use the trailing-underscore method
    t[0] = u
    assert calls == [("__setitem__", (t, 0, u))]
    assert [x[1][1] for x in make("t2", shape=(3,))] == [0, 1, 2]  # iteration indexes dimension 0


def test_missing_table_entries_are_named(monkeypatch):
    from thunder_core.ir import proxies

    monkeypatch.setattr(proxies, "MISSING_METHOD", None)  # the ops package's opaque fallback
    monkeypatch.setattr(proxies, "MISSING_PROPERTY", None)  # and its metadata properties
    monkeypatch.delitem(TENSOR_METHODS, "mul", raising=False)
    monkeypatch.delitem(TENSOR_METHODS, "softmax", raising=False)
    monkeypatch.delitem(TENSOR_METHODS, "mul_", raising=False)
    t = make()
    with pytest.raises(AttributeError, match=r"TensorProxy t0 has no method or attribute 'softmax'.*TENSOR_METHODS"):
        t.softmax
    with pytest.raises(NotImplementedError, match=r"`\*` on TensorProxy t0 dispatches to TENSOR_METHODS\['mul'\]"):
        t * 2
    with pytest.raises(NotImplementedError, match=r"`\*=` on TensorProxy t0 dispatches to TENSOR_METHODS\['mul_'\]"):
        t *= 2
    with pytest.raises(AttributeError):
        t.__array__  # protocol probes fail fast and quietly


def test_flat_proxies():
    a, b, c = make("t0"), make("t1"), NumberProxy("i0", int, 1)
    assert flat_proxies((a, [1, {"k": b, "j": (c, a)}], "s", None)) == [a, b, c, a]
    assert flat_proxies(3) == []
