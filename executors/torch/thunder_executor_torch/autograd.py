"""The torch implementation of ``autograd.torch_vjp``: the backward of an op that has no VJP
rule and no decomposition, computed by PyTorch's autograd on that one op
(``autograd.add_cotangent`` is elementwise, in ``thunder_core.extend.torch_impls()``)."""

from __future__ import annotations

import torch
from thunder_core.extend import tensor_leaves, torch_impls, with_tensors


def torch_vjp(inputs, cotangents, *, vjp_of, wrt, **kwargs):
    from .prims import IMPLS

    fn = torch_impls().get(vjp_of) or IMPLS[vjp_of]
    leaves = [x.detach().requires_grad_(True) if k in wrt else x for k, x in enumerate(tensor_leaves(inputs))]
    with torch.enable_grad():
        out = fn(*with_tensors(inputs, iter(leaves)), **kwargs)
        outs = [o for o in tensor_leaves(out) if o.requires_grad]
        wanted = [leaves[k] for k in wrt]
        grads = torch.autograd.grad(outs, wanted, list(cotangents), allow_unused=True)
    return tuple(torch.zeros_like(x) if g is None else g for x, g in zip(wanted, grads))

