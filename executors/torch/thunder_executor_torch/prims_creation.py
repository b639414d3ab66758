"""Torch implementations of the creation primitives. The random ones draw from torch's
global generator exactly as torch.rand/randn/randint do, so torch.manual_seed reproduces
eager values."""

import torch

from .prims import impl


@impl("prims.iota")
def iota(length, *, start, step, dtype, device):
    # torch.arange computes each value itself; give it an end that yields exactly `length`
    # values whatever the rounding of (end - start) / step.
    if length == 0:
        end = start
    elif isinstance(start, int) and isinstance(step, int):
        end = start + length * step
    else:
        end = start + (length - 0.5) * step
    return torch.arange(start, end, step, dtype=dtype, device=device)


@impl("prims.full")
def full(fill_value, *, shape, dtype, device):
    return torch.full(shape, fill_value, dtype=dtype, device=device)


@impl("prims.empty")
def empty(*, shape, dtype, device):
    return torch.empty(shape, dtype=dtype, device=device)


@impl("prims.uniform")
def uniform(minval, maxval, *, shape, dtype, device):
    return torch.empty(shape, dtype=dtype, device=device).uniform_(minval, maxval)


@impl("prims.normal")
def normal(mean, std, *, shape, dtype, device):
    return torch.empty(shape, dtype=dtype, device=device).normal_(mean, std)


@impl("prims.randint")
def randint(low, high, *, shape, dtype, device):
    return torch.empty(shape, dtype=dtype, device=device).random_(low, high)
