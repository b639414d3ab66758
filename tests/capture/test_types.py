"""Inside a jitted function a tensor answers every type query as in eager: type(), __class__,
isinstance, issubclass, torch.is_tensor, torch.overrides' checks, functools.singledispatch,
and nn.Parameter for parameters. Differential: each query's answer is returned as a Python
value (baked into the trace) and compared with eager's."""

import functools

import pytest
import torch
import torch.overrides

import thunder_core as tc


@functools.singledispatch
def kind(x):
    return "other"


@kind.register
def _(x: torch.Tensor):
    return "tensor"


QUERIES = {
    "type-is": lambda t: type(t) is torch.Tensor,
    "type-name": lambda t: type(t).__name__,
    "class": lambda t: t.__class__ is torch.Tensor,
    "class-name": lambda t: t.__class__.__name__,
    "type-in-set": lambda t: type(t) in {torch.Tensor, int},
    "issubclass": lambda t: issubclass(type(t), torch.Tensor),
    "isinstance": lambda t: isinstance(t, torch.Tensor),
    "isinstance-tuple": lambda t: isinstance(t, (int, torch.Tensor)),
    "is-tensor": lambda t: torch.is_tensor(t),
    "tensor-like": lambda t: torch.overrides.is_tensor_like(t),
    "singledispatch": lambda t: kind(t),
    "is-parameter": lambda t: isinstance(t, torch.nn.Parameter),
    "type-is-parameter": lambda t: type(t) is torch.nn.Parameter,
}


@pytest.mark.parametrize("name", list(QUERIES))
@pytest.mark.parametrize("which", ["argument", "computed", "parameter", "parameter-used"])
def test_type_queries_answer_as_eager(name, which):
    q = QUERIES[name]
    lin = torch.nn.Linear(2, 2)

    def f(x):
        t = {"argument": x, "computed": x * 2, "parameter": lin.weight, "parameter-used": lin.weight + 0}[which]
        return q(t), t + 1

    expected = f(torch.ones(2))[0]
    got = tc.jit(f)(torch.ones(2))[0]
    assert got == expected and type(got) is type(expected)


def test_type_of_tensor_is_not_silently_wrong():
    def f(x):
        return x * 2 if type(x) is torch.Tensor else x

    torch.testing.assert_close(tc.jit(f)(torch.ones(2)), torch.ones(2) * 2)


CACHE = {}


def test_library_keying_a_cache_by_type_writes_the_real_type():
    def f(x):
        CACHE.setdefault(type(x), 0)
        return x + 1

    tc.jit(f)(torch.ones(2))
    assert list(CACHE) == [torch.Tensor]
    CACHE.clear()


def test_metadata_properties_answer_as_eager():
    lin = torch.nn.Linear(2, 2)

    def f(x):
        y = x * 2
        flags = (y.is_nested, y.is_sparse, y.is_quantized, y.is_mkldnn, y.layout, lin.weight.is_leaf,
                 None if y.requires_grad else (x.is_leaf, y.is_leaf))
        return flags, y + 1

    for x in (torch.ones(2), torch.ones(2, requires_grad=True)):
        assert tc.jit(f)(x)[0] == f(x)[0]


def test_is_leaf_of_a_tensor_requiring_grad_is_refused_by_name():
    with pytest.raises(AttributeError, match="is_leaf of x, a tensor that requires grad, is not known"):
        tc.jit(lambda x: x * 2 if x.is_leaf else x)(torch.ones(2, requires_grad=True))


def test_builtin_modules_checking_nested_tensors_and_weakrefs():
    # nn.MultiheadAttention checks `query.is_nested`; nn.LSTM compares weakrefs of its weights
    torch.manual_seed(0)
    mha, lstm = torch.nn.MultiheadAttention(8, 2, batch_first=True), torch.nn.LSTM(8, 8, batch_first=True)
    x = torch.randn(2, 3, 8)
    for m, args in ((mha, (x, x, x)), (lstm, (x,))):
        got, want = tc.jit(m)(*args), m(*args)
        torch.testing.assert_close(got[0], want[0])


def test_setting_requires_grad_of_a_traced_tensor_is_requires_grad_():
    # HF wav2vec2's feature encoder: `hidden_states.requires_grad = True` on a view of the input
    import thunder_core as tc

    def f(x, w):
        h = x[:, None]
        h.requires_grad = True
        return (h * w).sum()

    # (values and gradients; like requires_grad_() on a proxy, the set is recorded as a call whose
    # result is a new proxy, so `h.requires_grad` read back while tracing is still False: the
    # general in-place identity deviation in docs/design-notes.md)
    x, w = torch.randn(3, 4), torch.randn(4, requires_grad=True)
    got, want = tc.jit(f)(x, w), f(x, w)
    torch.testing.assert_close(got, want)
    got.backward()
    grad, w.grad = w.grad, None
    want.backward()
    torch.testing.assert_close(grad, w.grad)


def test_setting_another_attribute_of_a_traced_tensor_says_what_to_do():
    import dataclasses

    import pytest

    import thunder_core as tc

    def f(x):
        x.note = "seen"
        return x

    with pytest.raises(dataclasses.FrozenInstanceError, match="Cannot set `.note` of the traced tensor"):
        tc.jit(f)(torch.ones(2))
