"""Torch-level broadcasting helpers: ``broadcast_tensors``, ``meshgrid``, ``cartesian_prod``,
and ``sum_to_size`` (broadcasting undone by summing).

``broadcast_tensors`` and ``meshgrid`` return views of their inputs: each input reshaped and
expanded (``prims.broadcast_in_dim``), as eager's ``expand``. ``cartesian_prod`` flattens a
``meshgrid`` and stacks it (a copy; with one tensor, eager returns that tensor itself).
``sum_to_size`` sums the dims a broadcast would have added or expanded (eager returns the
input itself when it already has the size).

Traits: ``broadcast_tensors`` and ``meshgrid`` are ``"view"``, ``cartesian_prod`` is
``"shape"``, ``sum_to_size`` is a ``"reduction"``.
"""

from __future__ import annotations

import warnings

import torch

from ..ir.traits import REDUCTION, SHAPE, VIEW
from . import prims
from .ltorch_shape import _as_tuple, expanded, reshaped
from .prims_shape import broadcast_shapes
from .registry import T, torch_op


@torch_op(torch.broadcast_tensors, inputs=("tensors",), tags=(VIEW,))
def broadcast_tensors(*tensors):
    """Each tensor expanded to the shape all of them broadcast to."""
    shape = broadcast_shapes(*(t.shape for t in tensors), name="torch.broadcast_tensors")
    return tuple(expanded(t, shape) for t in tensors)


def _grid_inputs(tensors, what):
    for t in tensors:
        if t.ndim > 1:
            raise RuntimeError(f"{what}: Expected 0D or 1D tensor in the tensor list but got: {t.ndim}-D")
    if tensors and any(t.dtype != tensors[0].dtype or t.device != tensors[0].device for t in tensors):
        raise RuntimeError(f"{what}: expects all tensors to have the same dtype and device")


@torch_op(torch.meshgrid, inputs=("tensors",), tags=(VIEW,))
def meshgrid(*tensors, indexing=None):
    """Coordinate grids: output ``i`` holds input ``i`` along dim ``i`` (``"ij"``), with the first
    two dims swapped for ``indexing="xy"``; 0-d inputs count as one element."""
    if indexing is None:
        warnings.warn("torch.meshgrid: in an upcoming release, it will be required to pass the indexing argument.",
                      UserWarning, stacklevel=3)
        indexing = "ij"
    if indexing not in ("ij", "xy"):
        raise RuntimeError(f'torch.meshgrid: indexing must be one of "xy" or "ij", but received: {indexing}')
    if not tensors:
        raise RuntimeError("torch.meshgrid expects a non-empty TensorList")
    _grid_inputs(tensors, "torch.meshgrid")
    where = list(range(len(tensors)))
    if indexing == "xy" and len(tensors) >= 2:
        where[0], where[1] = 1, 0
    sizes = [t.numel() for t in tensors]
    shape = [0] * len(tensors)
    for i, w in enumerate(where):
        shape[w] = sizes[i]
    return tuple(prims.broadcast_in_dim(reshaped(t, (sizes[i],)), shape=tuple(shape), broadcast_dimensions=(w,))
                 for i, (t, w) in enumerate(zip(tensors, where)))


@torch_op(torch.cartesian_prod, inputs=("tensors",), tags=(SHAPE, "may-return-input"))
def cartesian_prod(*tensors):
    """Every combination of one element of each 1-D tensor, as rows (``itertools.product`` order)."""
    for t in tensors:
        if t.ndim != 1:
            raise RuntimeError(f"Expect a 1D vector, but got shape {list(t.shape)}")
    if len(tensors) == 1:
        return tensors[0]
    grids = meshgrid(*tensors, indexing="ij")
    return T.stack([reshaped(g, (g.numel(),)) for g in grids], 1)


@torch_op(torch.Tensor.sum_to_size, method="sum_to_size", impl=_as_tuple(torch.Tensor.sum_to_size),
          tags=(REDUCTION, "may-return-input"))
def sum_to_size(input, *size):
    """``input`` summed down to ``size``, a shape it broadcasts from (the input itself if equal)."""
    size = tuple(size)
    lead = input.ndim - len(size)
    ok = lead >= 0 and all(s == 1 or s == n for s, n in zip(size, input.shape[lead:]))
    if not ok:
        raise RuntimeError(f"size {{{list(size)}}} is not expandable to size {{{list(input.shape)}}}.")
    if not size:  # (ATen's sum_to: a full sum, even of a 0-d tensor)
        return T.sum(input)
    if size == input.shape:
        return input
    dims = list(range(lead)) + [lead + i for i, s in enumerate(size) if s == 1 and input.shape[lead + i] != 1]
    out = T.sum(input, dims, keepdim=True) if dims else input
    return reshaped(out, size)
