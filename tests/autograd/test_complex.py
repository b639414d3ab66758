"""Gradients through complex tensors equal eager's: torch's gradients of complex functions are
conjugate Wirtinger derivatives (``mul``'s is ``g * y.conj()``), which the torch-level rules,
written for real dtypes, do not give; such calls are differentiated by PyTorch itself
(``vjp.torch_vjp_rule``). HF Llama 4's rotary embedding (``view_as_complex`` times the
frequencies) gave wrong query and key gradients before."""

import pytest
import torch

import thunder_core as tc

C = torch.complex64


def _weights(out):
    return torch.linspace(-1, 1, out.numel()).view_as(out)  # a cotangent with structure, not all ones


def _grads(fn, args):
    leaves = [a.detach().clone().requires_grad_(a.requires_grad) for a in args]
    out = fn(*leaves)
    (out * _weights(out)).sum().backward()
    return [a.grad for a in leaves if a.requires_grad]


def _check(fn, *args):
    want = _grads(fn, args)
    got = _grads(tc.jit(fn, executors=["torch"]), args)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        torch.testing.assert_close(g, w, atol=1e-5, rtol=1e-5)


def z(*shape, grad=True):
    return torch.randn(*shape, dtype=C, requires_grad=grad)


@pytest.mark.parametrize("name, fn, make", [
    ("mul", lambda a, b: torch.view_as_real(a * b), lambda: (z(3, 4), z(3, 4))),
    ("div", lambda a, b: torch.view_as_real(a / b), lambda: (z(3, 4), z(3, 4))),
    ("matmul", lambda a, b: torch.view_as_real(a @ b), lambda: (z(3, 4), z(4, 2))),
    ("mul by a constant", lambda a, b: torch.view_as_real(a * b), lambda: (z(3, 4), z(3, 4, grad=False))),
    ("exp and abs", lambda a, b: (a * b).exp().abs(), lambda: (z(3, 4), z(3, 4))),
    ("add, sum, reshape", lambda a, b: torch.view_as_real((a + b).sum(0).reshape(2, 2)), lambda: (z(3, 4), z(3, 4))),
])
def test_complex_gradients_like_eager(name, fn, make):
    torch.manual_seed(0)
    _check(fn, *make())


def test_rotary_embedding_through_complex_numbers():
    # Llama 4's apply_rotary_emb, then attention scores: the query and key gradients
    inv = 1.0 / (10000 ** (torch.arange(0, 8, 2).float() / 8))
    freqs = torch.arange(5)[:, None].float() * inv
    cis = torch.polar(torch.ones_like(freqs), freqs)

    def f(h, wq, wk):
        xq, xk = (h @ wq).view(2, 5, 4, 8), (h @ wk).view(2, 5, 4, 8)
        q = torch.view_as_real(torch.view_as_complex(xq.reshape(2, 5, 4, 4, 2)) * cis[None, :, None, :]).flatten(3)
        k = torch.view_as_real(torch.view_as_complex(xk.reshape(2, 5, 4, 4, 2)) * cis[None, :, None, :]).flatten(3)
        return q.transpose(1, 2) @ k.transpose(1, 2).transpose(-1, -2)

    torch.manual_seed(0)
    _check(f, torch.randn(2, 5, 16), torch.randn(16, 32, requires_grad=True), torch.randn(16, 32, requires_grad=True))
