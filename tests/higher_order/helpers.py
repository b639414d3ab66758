"""Differential helpers: a jitted function against eager on the same inputs, values and gradients."""

import torch
import torch.utils._pytree as pytree


def copies(inputs, grad=()):
    """Fresh leaf copies of ``inputs``; those at positions in ``grad`` require grad."""
    return [x.detach().clone().requires_grad_(i in grad) if isinstance(x, torch.Tensor) else x
            for i, x in enumerate(inputs)]


def run(fn, inputs, grad=()):
    """(outputs, gradients of the positions in ``grad``) of ``fn`` on copies of ``inputs``; the
    loss weighs every floating output with fixed random weights."""
    xs = copies(inputs, grad)
    out = fn(*xs)
    if grad:
        g = torch.Generator().manual_seed(1)
        leaves = [o for o in pytree.tree_leaves(out) if isinstance(o, torch.Tensor) and o.requires_grad]
        loss = sum((o * torch.randn(o.shape, generator=g, dtype=o.dtype)).sum() for o in leaves)
        loss.backward()
    return out, [xs[i].grad for i in grad]


def assert_same(jitted, eager, inputs, grad=()):
    """``jitted`` gives ``eager``'s outputs and gradients on ``inputs``."""
    got, gg = run(jitted, inputs, grad)
    want, gw = run(eager, inputs, grad)
    torch.testing.assert_close(pytree.tree_leaves(got), pytree.tree_leaves(want))
    for a, b in zip(gg, gw):
        torch.testing.assert_close(a, b)
