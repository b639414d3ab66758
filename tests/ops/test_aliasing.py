"""Aliasing through tc.jit is eager's: an op returns its input object only where eager does
(``contiguous``, ``to``), a new view where eager makes one (``permute(0, 1)``,
``reshape`` to the same shape), and a fresh tensor where eager does (``roll(x, 0)``,
``repeat(1, 1)``), so writing into a result changes the input exactly when it does in eager.
The mechanism is each op's declared aliasing trait (registry.own_outputs); these samples are
the cases where a decomposition would otherwise return its input or a view of it.
"""

from __future__ import annotations

import pytest
import torch

import thunder_core as tc

pytest.importorskip("thunder_executor_torch")

CASES = [
    ("permute identity", lambda x: x.permute(0, 1)),
    ("transpose same dim", lambda x: x.transpose(0, 0)),
    ("view_as itself", lambda x: x.view_as(x)),
    ("unflatten to one dim", lambda x: x.unflatten(0, (2,))),
    ("expand_as itself", lambda x: x.expand_as(x)),
    ("reshape same shape", lambda x: x.reshape(2, 3)),
    ("squeeze nothing", lambda x: x.squeeze(0)),
    ("t of 1-d", lambda x: x[0].t()),
    ("getitem ...", lambda x: x[...]),
    ("roll by 0", lambda x: torch.roll(x, 0)),
    ("roll by the size", lambda x: torch.roll(x, 3, 1)),
    ("roll of an empty tensor", lambda x: torch.roll(x[:0], 1, 0)),
    ("repeat ones", lambda x: x.repeat(1, 1)),
    ("tile ones", lambda x: x.tile((1,))),
    ("repeat_interleave 1", lambda x: x.repeat_interleave(1, 0)),
    ("contiguous (returns x)", lambda x: x.contiguous()),
    ("to same dtype (returns x)", lambda x: x.to(torch.float32)),
    ("float() (returns x)", lambda x: x.float()),
    ("positive (returns x)", lambda x: +x),
    ("dropout in eval (returns x)", lambda x: torch.nn.functional.dropout(x, training=False)),
    ("flatten of 1-d (returns x)", lambda x: x[0].flatten()),
]


def _relation(x, y):
    if y is x:
        return "is"
    return "view" if y.untyped_storage().data_ptr() == x.untyped_storage().data_ptr() else "fresh"


@pytest.mark.parametrize("grad", [False, True], ids=["no-grad", "grad"])
@pytest.mark.parametrize("name,fn", CASES, ids=[c[0] for c in CASES])
def test_aliasing_like_eager(name, fn, grad):
    x = torch.randn(2, 3, requires_grad=grad)
    base = x.detach().clone()
    expected = fn(base)
    inp = x.clone() if grad else x  # a non-leaf, so in-place writes are allowed
    got = tc.jit(fn)(inp)
    assert _relation(inp, got) == _relation(base, expected)
    if got.numel():  # a write into the result reaches the input exactly when it does in eager
        with torch.no_grad():
            got.view(-1)[0] = 100.0
            expected.view(-1)[0] = 100.0
        assert (inp.detach().view(-1)[0] == 100.0) == (base.view(-1)[0] == 100.0)


def _identities(x):
    y = x * 2
    r = y.add_(1)  # eager returns the tensor written into
    s = torch.relu_(r)
    u = torch.nn.functional.relu(s, inplace=True)
    return y * (r is y) * (s is y) * (u is y), (r is y, s is y, u is y)


@pytest.mark.parametrize("grad", [False, True], ids=["no-grad", "grad"])
def test_an_inplace_op_returns_the_tensor_it_wrote_into_while_tracing(grad):
    # (it returned a new proxy: `x.add_(1) is x` was False while tracing, True in eager)
    x = torch.randn(2, 3, requires_grad=grad)
    got, want = tc.jit(_identities)(x), _identities(x)
    assert got[1] == want[1] == (True, True, True)
    torch.testing.assert_close(got[0], want[0])


def _reshaped_in_place(x):
    y = x * 1
    y.unsqueeze_(0)  # y's shape changes in place
    z = torch.cat([y, y], 0)
    return z * 2, z.shape


def test_calls_after_an_inplace_shape_change_see_the_new_shape():
    # (they took the tensor's old proxy: the cat was recorded as 1-d, (6,), and its shape said so)
    x = torch.randn(3)
    got, want = tc.jit(_reshaped_in_place)(x), _reshaped_in_place(x)
    assert got[1] == want[1] == (2, 3)
    torch.testing.assert_close(got[0], want[0])


def _reads_after_inplace_shape_change(x):
    y = x.clone()
    y.unsqueeze_(0)
    # the program's own reads of y's shape (not only later ops) see the new shape
    return y.shape[0] * y.sum(dim=y.dim() - 1), y.size(), y.ndim, len(y.shape)


def test_the_program_reads_the_shape_an_inplace_write_gave():
    # (they read y's old proxy: y.dim() - 1 was 1, summing the wrong dim, silently)
    x = torch.randn(3, 4)
    got, want = tc.jit(_reads_after_inplace_shape_change)(x), _reads_after_inplace_shape_change(x)
    torch.testing.assert_close(got[0], want[0])
    assert got[1:] == want[1:] == (torch.Size([1, 3, 4]), 3, 3)


def test_data_is_the_tensor_without_autograd_and_writes_through():
    # (x.data failed: "not a plain value (FakeTensor)")
    def f(x, w):
        d = w.data
        d.mul_(2)  # reaches w, as in eager
        return x * w.data, d.requires_grad

    x = torch.randn(3)
    w_e, w_j = torch.randn(3, requires_grad=True), None
    w_j = w_e.detach().clone().requires_grad_()
    want, got = f(x, w_e), tc.jit(f)(x, w_j)
    torch.testing.assert_close(got[0], want[0])
    assert got[1] is want[1] is False
    torch.testing.assert_close(w_j, w_e)


def _sets_data(x, y):
    z = x * 2
    z.data = y * 3  # z takes y * 3's values, shape, dtype and storage, and keeps requires_grad False
    w = z  # the same object
    z.add_(1)  # reaches y * 3 too
    return z * 1, w.shape, w.dtype, z.requires_grad, z.data * 1


def _data_of_a_stored_tensor(holder, y):
    z = torch.zeros(2)
    holder.t = z
    z.data = y * 3  # the object holder.t holds changes too
    return z + 1


def test_setting_data_gives_the_tensor_the_new_value_without_autograd():
    # (`z.data = v` raised FrozenInstanceError: a proxy's fields are its recorded metadata)
    x, y = torch.randn(3), torch.arange(4)
    got, want = tc.jit(_sets_data)(x, y), _sets_data(x, y)
    assert got[1:4] == want[1:4] == (torch.Size([4]), torch.int64, False)
    torch.testing.assert_close(got[0], want[0])
    torch.testing.assert_close(got[4], want[4])
    y = torch.randn(4, requires_grad=True)
    h_e, h_j = type("H", (), {})(), type("H", (), {})()
    got, want = tc.jit(_data_of_a_stored_tensor)(h_j, y), _data_of_a_stored_tensor(h_e, y)
    torch.testing.assert_close(got, want)
    torch.testing.assert_close(h_j.t, h_e.t)
    assert h_j.t.requires_grad is h_e.t.requires_grad is False


class _Router(torch.nn.Module):
    def __init__(self, dtype):
        super().__init__()
        self.dtype = dtype
        self.classifier = torch.nn.Linear(4, 3)

    def forward(self, x):
        # HF switch_transformers' router: nn.Module.to sets `param.data = param.to(dtype)`, which
        # is `param.data = param` when the dtype is the parameter's already
        self.classifier = self.classifier.to(self.dtype)
        return self.classifier(x.to(self.dtype)).softmax(-1)


def test_module_to_its_own_dtype_inside_forward_is_a_no_op():
    torch.manual_seed(0)
    m_e = _Router(torch.float32)
    m_j = _Router(torch.float32)
    m_j.load_state_dict(m_e.state_dict())
    x = torch.randn(2, 4)
    jm = tc.jit(m_j)
    for _ in range(2):  # a cache hit too
        got, want = jm(x), m_e(x)
        torch.testing.assert_close(got, want)
        got[:, 0].sum().backward()
        want[:, 0].sum().backward()
    for p_j, p_e in zip(m_j.parameters(), m_e.parameters()):
        torch.testing.assert_close(p_j.grad, p_e.grad)


def test_setting_data_is_refused_where_the_trace_cannot_record_it():
    with pytest.raises(NotImplementedError, match="from outside the function.*module.to"):
        tc.jit(_Router(torch.float64))(torch.randn(2, 4))  # eager converts the caller's parameters

    def requires_grad(x):
        z = x * 2
        z.data = x + 1  # eager: z keeps its grad_fn under the new value
        return z

    with pytest.raises(NotImplementedError, match="requires grad"):
        tc.jit(requires_grad)(torch.randn(3, requires_grad=True))

    def not_a_tensor(x):
        z = x * 2
        z.data = 3
        return z

    with pytest.raises(TypeError, match="has to be a tensor, but got int") as got:
        tc.jit(not_a_tensor)(torch.randn(3))
    with pytest.raises(TypeError) as want:
        not_a_tensor(torch.randn(3))
    assert str(got.value).splitlines()[0] == str(want.value)
