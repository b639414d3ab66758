"""Torch-level elementwise ops."""

from __future__ import annotations

import torch

from .registry import torch_op


@torch_op(torch.add, torch.Tensor.add, inputs=("input", "other", "alpha"), method="add")
def add(input, other, *, alpha=1):
    """``input + alpha * other``, with torch's type promotion and broadcasting."""
