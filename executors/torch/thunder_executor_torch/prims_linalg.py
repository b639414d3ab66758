"""Torch implementations of the NN and linear-algebra primitives."""

import torch

from .prims import impl

impl("prims.matmul")(torch.matmul)


@impl("prims.convolution")
def convolution(a, weight, bias, *, stride, padding, dilation, transposed, output_padding, groups):
    return torch.convolution(a, weight, bias, stride, padding, dilation, transposed, output_padding, groups)


@impl("prims.bernoulli_noise")
def bernoulli_noise(a, p, *, shape=None):
    # Drawn like eager dropout's noise (`empty_like(input).bernoulli_(1 - p)`, or `empty` of the
    # feature-noise shape): same seed, same layout, same mask.
    noise = torch.empty_like(a) if shape is None else torch.empty(shape, dtype=a.dtype, device=a.device)
    return noise.bernoulli_(p)
