"""The torch implementations of the ``autograd`` symbols: ``torch_vjp`` (the backward of an op
that has no VJP rule and no decomposition, computed by PyTorch's autograd on that one op) and
``add_cotangent``."""

from __future__ import annotations

import torch


def _swap(x, tensors):
    if isinstance(x, torch.Tensor):
        return tensors.pop(0)
    if type(x) in (tuple, list):
        return type(x)(_swap(y, tensors) for y in x)
    return x


def _flat(x, out):
    if isinstance(x, torch.Tensor):
        out.append(x)
    elif type(x) in (tuple, list):
        for y in x:
            _flat(y, out)
    return out


def torch_vjp(inputs, cotangents, *, vjp_of, wrt, **kwargs):
    from thunder_core.ops import TORCH_IMPLS

    from .prims import IMPLS

    fn = TORCH_IMPLS.get(vjp_of) or IMPLS[vjp_of]
    flat = _flat(inputs, [])
    leaves = [x.detach().requires_grad_(True) if k in wrt else x for k, x in enumerate(flat)]
    with torch.enable_grad():
        out = fn(*_swap(inputs, list(leaves)), **kwargs)
        outs = [o for o in _flat(out, []) if o.requires_grad]
        wanted = [leaves[k] for k in wrt]
        grads = torch.autograd.grad(outs, wanted, list(cotangents), allow_unused=True)
    return tuple(torch.zeros_like(x) if g is None else g for x, g in zip(wanted, grads))


def add_cotangent(cotangent, grad):
    # the runtime marks the zero views it passes for outputs nothing differentiated
    return grad if getattr(cotangent, "_tc_zero_cotangent", False) else cotangent + grad
