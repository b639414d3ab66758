"""Torch-level neural-network ops that run as library kernels: grid sampling
(``torch.grid_sampler``, which ``F.grid_sample`` calls, and its 2-D/3-D kernels), ATen's
anti-aliased bilinear upsampling, ``torch.embedding_bag`` (which ``F.embedding_bag`` calls),
``torch.segment_reduce``, the short-time Fourier transform kernel ``torch.stft`` calls
(``torch._VF.stft``), and ``F.linear_cross_entropy``.

The kernels have no decomposition: each reads its input at positions computed from the
values of another tensor (the grid's coordinates, the indices and offsets of bags and
segments) or combines a window of neighbours with weights (anti-aliasing, the FFT), which
only the kernel does exactly as eager (their gradients are PyTorch's).
``F.linear_cross_entropy`` is ``cross_entropy(linear(input, linear_weight, linear_bias),
target, ...)``: eager's ``options`` choose how it is chunked to save memory, not its value,
and are dropped from the traced call.

Traits: ``linear_cross_entropy`` is ``"matmul"`` and ``"reduction"``; the kernels have none.
"""

from __future__ import annotations

import torch
import torch.nn.functional as _F

from ..ir.traits import MATMUL, REDUCTION
from .ltorch_nn import torch_alias
from .registry import F, torch_op


@torch_op(torch.grid_sampler, inputs=("input", "grid"))
def grid_sampler(input, grid, interpolation_mode, padding_mode, align_corners):
    """``input`` sampled at the normalised coordinates of ``grid`` (bilinear, nearest or bicubic)."""


@torch_op(torch.grid_sampler_2d, inputs=("input", "grid"))
def grid_sampler_2d(input, grid, interpolation_mode, padding_mode, align_corners):
    """``grid_sampler`` of a 4-D input."""


@torch_op(torch.grid_sampler_3d, inputs=("input", "grid"))
def grid_sampler_3d(input, grid, interpolation_mode, padding_mode, align_corners):
    """``grid_sampler`` of a 5-D input."""


_aa = torch.ops.aten._upsample_bilinear2d_aa


@torch_op(_aa, impl=lambda a, k: _aa(*a, **k))
def _upsample_bilinear2d_aa(input, output_size=None, align_corners=False, *, scales_h=None, scales_w=None,
                            scale_factors=None):
    """Bilinear resampling of the last two dims with an anti-aliasing filter when shrinking."""


@torch_op(torch.embedding_bag, inputs=("weight", "indices", "offsets", "per_sample_weights"))
def embedding_bag(weight, indices, offsets, scale_grad_by_freq=False, mode=0, sparse=False, per_sample_weights=None,
                  include_last_offset=False, padding_idx=None):
    """Sums, means or maxima (``mode`` 0, 1, 2) of the rows of ``weight`` at ``indices``, one per
    bag (bags start at ``offsets``), with the kernel's bookkeeping outputs."""


@torch_op(torch.segment_reduce, inputs=("data", "lengths", "indices", "offsets"))
def segment_reduce(data, reduce, *, lengths=None, indices=None, offsets=None, axis=0, unsafe=False, initial=None):
    """``reduce`` over consecutive segments of ``data`` along ``axis`` (segments given by
    ``lengths`` or ``offsets``)."""


@torch_op(torch._VF.stft, name="stft", inputs=("input", "window"), impl=lambda a, k: torch._VF.stft(*a, **k))
def stft(input, n_fft, hop_length=None, win_length=None, window=None, normalized=False, onesided=None,
         return_complex=None, align_to_window=None):
    """The FFTs of the windowed frames of ``input`` (``torch.stft`` after its centre padding; by
    position, as ``torch.stft`` calls it: with keywords the binding would pick the overload that
    pads again)."""


if hasattr(_F, "linear_cross_entropy"):  # (torch 2.13; not in torch 2.10)
    @torch_op(name="linear_cross_entropy", inputs=("input", "linear_weight", "target", "linear_bias", "weight"),
              impl=lambda a, k: _F.linear_cross_entropy(*a[:3], linear_bias=a[3], weight=a[4], **k),
              tags=(MATMUL, REDUCTION))
    def linear_cross_entropy(input, linear_weight, target, linear_bias=None, weight=None, *, reduction="mean",
                             ignore_index=None, label_smoothing=0.0):
        """``cross_entropy(linear(input, linear_weight, linear_bias), target, weight, ...)``; a
        ``linear_weight`` of shape (C, *out, in) gives logits (N, C, *out)."""
        if input.ndim not in (1, 2):
            raise RuntimeError(f"expected input with dimensionality 1 or 2, got {input.ndim}")
        if linear_weight.ndim < 2:
            raise RuntimeError(f"expected linear_weight with dimensionality at least 2, got {linear_weight.ndim}")
        classes, out, inner = linear_weight.shape[0], tuple(linear_weight.shape[1:-1]), linear_weight.shape[-1]
        if input.shape[-1] != inner:
            raise RuntimeError(f"expected equal input and linear_weight last dimensions (in_features), got "
                               f"{input.shape[-1]} and {inner}, respectively")
        w = linear_weight.reshape(-1, inner)
        b = None if linear_bias is None else linear_bias.reshape(-1)
        logits = F.linear(input, w, b)
        if out:
            logits = logits.reshape(*input.shape[:-1], classes, *out)
        return F.cross_entropy(logits, target, weight, ignore_index=-100 if ignore_index is None else ignore_index,
                               reduction=reduction, label_smoothing=label_smoothing)


    @torch_alias(_F.linear_cross_entropy, of=linear_cross_entropy)
    def _linear_cross_entropy(input, linear_weight, target, *, linear_bias=None, weight=None, reduction="mean",
                              ignore_index=None, label_smoothing=0.0, options=None):
        if ignore_index is not None and tuple(target.shape) == tuple(input.shape[:-1]) + (linear_weight.shape[0],) + \
                tuple(linear_weight.shape[1:-1]):
            raise RuntimeError("ignore_index cannot be specified when target contains probabilities")
        return linear_cross_entropy(input, linear_weight, target, linear_bias, weight, reduction=reduction,
                                    ignore_index=ignore_index, label_smoothing=label_smoothing)
