"""Primitives of the NN and linear-algebra family: what their torch-level ops decompose into
beyond elementwise, shape and reduction primitives.

* ``matmul(a, b)``: ``torch.matmul`` semantics, exactly (1-D operands are promoted and the
  added dimension removed again; batch dimensions broadcast). Both operands have one dtype
  and device: convert first. The stricter ``mm``/``bmm``/``mv``/``dot`` are torch-level ops
  that check their shapes and decompose into this one.
* ``convolution(a, weight, bias, *, stride, padding, dilation, transposed, output_padding,
  groups)``: ``torch.convolution``: batched input ``(N, C, *spatial)``; every geometry
  argument a tuple with one int per spatial dimension (``padding`` symmetric, no strings);
  ``bias`` a tensor or None.
* ``bernoulli_noise(a, p, *, shape=None)``: a new tensor of ones (probability ``p``) and
  zeros with ``a``'s dtype and device; with ``a``'s shape *and memory layout* when ``shape``
  is None, else contiguous of ``shape`` (``a``'s values are not read). Drawn from torch's
  default generator exactly as eager dropout draws its noise (``torch.empty_like(a).bernoulli_(p)``,
  ``torch.empty(shape, ...).bernoulli_(p)``; the CPU generator fills in memory order, so the
  layout matters), hence traced dropout drops the same elements as eager under
  ``torch.manual_seed``. Traits ``"creation"`` and ``"random"``.

``matmul`` and ``convolution`` have the trait ``"matmul"``.
"""

from __future__ import annotations


from ..ir import TensorProxy, tensor_proxy
from ..ir.traits import CREATION, MATMUL, RANDOM
from .prims_shape import broadcast_shapes
from .registry import prim


def _same_kind(name: str, *tensors: TensorProxy) -> None:
    first = tensors[0]
    for t in tensors[1:]:
        if t.dtype != first.dtype or t.device != first.device:
            raise ValueError(f"prims.{name}: operands must share one dtype and device (convert them first); got "
                             f"{first.name}: {first.dtype} on {first.device} and {t.name}: {t.dtype} on {t.device}.")


def _broadcast(name: str, a: tuple, b: tuple) -> tuple:
    try:
        return broadcast_shapes(a, b)
    except RuntimeError:
        raise ValueError(f"prims.{name}: batch dimensions {list(a)} and {list(b)} do not broadcast.") from None


@prim(tags=(MATMUL,))
def matmul(a, b):
    """``torch.matmul`` of two tensors of one dtype and device."""
    if a.ndim == 0 or b.ndim == 0:
        raise ValueError(f"prims.matmul: both operands need at least one dimension, got shapes {list(a.shape)} and "
                         f"{list(b.shape)}; multiply by a 0-d tensor with `*` instead.")
    _same_kind("matmul", a, b)
    k_a = a.shape[-1]
    k_b = b.shape[0] if b.ndim == 1 else b.shape[-2]
    if k_a != k_b:
        raise ValueError(f"prims.matmul: shapes {list(a.shape)} and {list(b.shape)} cannot be multiplied (the "
                         f"contracted sizes {k_a} and {k_b} differ).")
    batch = _broadcast("matmul", a.shape[:-2], b.shape[:-2])
    rows = (a.shape[-2],) if a.ndim >= 2 else ()
    cols = (b.shape[-1],) if b.ndim >= 2 else ()
    return tensor_proxy(batch + rows + cols, a.dtype, a.device, a.requires_grad or b.requires_grad)


def _conv_output_size(i, size, k, stride, pad, dil, transposed, out_pad):
    if transposed:
        return (size - 1) * stride[i] - 2 * pad[i] + dil[i] * (k - 1) + out_pad[i] + 1
    return (size + 2 * pad[i] - dil[i] * (k - 1) - 1) // stride[i] + 1


@prim(tags=(MATMUL,))
def convolution(a, weight, bias, *, stride, padding, dilation, transposed, output_padding, groups):
    """``torch.convolution`` of a batched input, geometry given as per-dimension int tuples."""
    n = a.ndim - 2
    if n < 1 or weight.ndim != a.ndim:
        raise ValueError(f"prims.convolution: expected a batched input (N, C, *spatial) and a weight with as many "
                         f"dimensions; got shapes {list(a.shape)} and {list(weight.shape)}.")
    geometry = dict(stride=stride, padding=padding, dilation=dilation, output_padding=output_padding)
    for key, value in geometry.items():
        if not isinstance(value, tuple) or len(value) != n or not all(isinstance(v, int) for v in value):
            raise ValueError(f"prims.convolution: {key} must be a tuple of {n} ints (one per spatial dimension), "
                             f"got {value!r}.")
    if min(stride + dilation) < 1 or min(padding + output_padding) < 0 or groups < 1:
        raise ValueError(f"prims.convolution: stride and dilation must be positive, padding non-negative and groups "
                         f"at least 1; got {geometry} and groups={groups}.")
    _same_kind("convolution", a, weight, *([bias] if bias is not None else []))
    c_in = a.shape[1]
    if transposed:
        expected_c_in, c_out = weight.shape[0], weight.shape[1] * groups
    else:
        expected_c_in, c_out = weight.shape[1] * groups, weight.shape[0]
    if c_in != expected_c_in or (c_out % groups) or (c_in % groups):
        raise ValueError(f"prims.convolution: input with {c_in} channels does not fit weight of shape "
                         f"{list(weight.shape)} with groups={groups} (transposed={transposed}).")
    if bias is not None and bias.shape != (c_out,):
        raise ValueError(f"prims.convolution: bias must have shape [{c_out}], got {list(bias.shape)}.")
    spatial = tuple(_conv_output_size(i, s, k, stride, padding, dilation, transposed, output_padding)
                    for i, (s, k) in enumerate(zip(a.shape[2:], weight.shape[2:])))
    if min(spatial) < 1:
        raise ValueError(f"prims.convolution: the output would have spatial size {list(spatial)} for input "
                         f"{list(a.shape)} and kernel {list(weight.shape[2:])}: the kernel is too large for the input.")
    rg = a.requires_grad or weight.requires_grad or (bias is not None and bias.requires_grad)
    return tensor_proxy((a.shape[0], c_out) + spatial, a.dtype, a.device, rg)


@prim(tags=(CREATION, RANDOM))
def bernoulli_noise(a, p, *, shape=None):
    """Ones with probability ``p``, else zeros, drawn like eager dropout's noise (see above)."""
    if not 0 <= p <= 1:
        raise ValueError(f"prims.bernoulli_noise: p must be a probability in [0, 1], got {p}.")
    return tensor_proxy(a.shape if shape is None else tuple(shape), a.dtype, a.device)
