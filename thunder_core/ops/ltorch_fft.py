"""``torch.fft``: the discrete Fourier transforms (run whole: torch's FFT library kernels are
their definition) and ``fftshift``/``ifftshift`` (decomposed into ``roll``, as torch does).

One table row per transform; they share three signatures (one dim with ``n``, two dims with
``s``, any dims with ``s``). The transforms have no trait (library kernels: see
tests/ops/test_traits.py's NO_TRAIT); the shifts are ``"shape"`` ops. Gradients of the
transforms come from PyTorch's autograd for the op alone (``autograd.torch_vjp``).
"""

from __future__ import annotations

import torch

from ..ir.traits import SHAPE
from .prims_shape import canonical_dims
from .registry import T, torch_op, whole_op

__all__ = ["CALLABLES", "LIBRARY"]

#: Every torch callable registered by this module.
CALLABLES: list = []
#: ids of the transforms (library kernels, no trait)
LIBRARY: list = []

_SIGNATURES = {"": "input, n=None, dim=-1, norm=None", "2": "input, s=None, dim=(-2, -1), norm=None",
               "n": "input, s=None, dim=None, norm=None"}

for _kind in ("fft", "ifft", "rfft", "irfft", "hfft", "ihfft"):
    for _suffix, _params in _SIGNATURES.items():
        _fn = getattr(torch.fft, _kind + _suffix)
        LIBRARY.append(whole_op(f"fft_{_kind}{_suffix}", _params, _fn, tags=(),
                                doc=f"``torch.fft.{_kind}{_suffix}``: a library kernel, run whole.").symbol.id)
        CALLABLES.append(_fn)


def _shift(input, dim, rounding: int):
    if input.ndim == 0:
        return NotImplemented  # (eager's error)
    dims = list(range(input.ndim)) if dim is None else \
        list(canonical_dims(input.ndim, dim if isinstance(dim, (tuple, list)) else (dim,)))
    return T.roll(input, [(input.shape[d] + rounding) // 2 for d in dims], dims)


def fft_fftshift(input, dim=None):
    """``roll`` by half of each size along ``dim`` (every dim when None): the zero frequency to the centre."""
    return _shift(input, dim, 0)


def fft_ifftshift(input, dim=None):
    """The inverse of ``fftshift``: ``roll`` by half of each size, rounded up."""
    return _shift(input, dim, 1)


fft_fftshift = torch_op(torch.fft.fftshift, tags=(SHAPE,))(fft_fftshift)
fft_ifftshift = torch_op(torch.fft.ifftshift, tags=(SHAPE,))(fft_ifftshift)
CALLABLES += [torch.fft.fftshift, torch.fft.ifftshift]

del _kind, _suffix, _params, _fn
