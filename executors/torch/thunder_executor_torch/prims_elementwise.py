"""Torch implementations of the elementwise primitives."""

import torch

from .prims import impl


@impl("prims.add")
def add(a, b):
    return torch.add(a, b)


@impl("prims.mul")
def mul(a, b):
    return torch.mul(a, b)
