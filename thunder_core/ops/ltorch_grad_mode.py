"""Grad mode inside a trace that runs op by op under PyTorch's autograd.

A trace that cannot be split into forward and backward runs its ops under PyTorch's autograd,
in the caller's grad mode. The ops the program ran under ``torch.no_grad()`` must run without
grad there too: else what they compute from tensors requiring grad gets a ``grad_fn`` eager's
does not have (a backward through it reaches parameters eager's does not), and an optimizer
step's in-place write into a parameter fails ("a leaf Variable that requires grad is being used
in an in-place operation"). ``transforms/grad_regions.py`` brackets them with
``ltorch.set_grad_enabled``, an effect with no outputs that stays where it is recorded.
"""

from __future__ import annotations

import torch

from .registry import torch_op


def _no_output(*args, **kwargs):
    return None


def _set_grad_enabled(mode):
    # (a function of its own: registering torch's would record the program's own torch.no_grad())
    torch._C._set_grad_enabled(mode)


@torch_op(_set_grad_enabled, inputs=("mode",), meta=_no_output, tags=("effect",))
def set_grad_enabled(mode):
    """Turn grad mode on or off for the ops after it (an effect: no outputs)."""
