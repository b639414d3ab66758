"""Reduction, scan and sorting primitives.

Reductions (sum, prod, amax, amin, var) take canonical ``dims`` (non-negative, distinct)
and remove them: there is no ``keepdim`` here, torch-level ops reshape afterwards. They
compute in the input's dtype (torch-level ops convert first: ``sum`` of ints accumulates in
int64). ``argmax``/``argmin`` reduce one dim to int64 positions; scans (cumsum, cumprod)
keep the shape; ``topk`` and ``sort`` return ``(values, int64 indices)``. Every primitive
here has the trait ``"reduction"``.
"""

from __future__ import annotations

import torch

from ..ir.traits import REDUCTION
from .prims_shape import _check_dims, _check_tensor, result
from .registry import prim


def _reduced(name: str, a, dims, *, nonempty: bool = False):
    _check_tensor(name, a)
    dims = _check_dims(name, a, dims)
    if nonempty and any(a.shape[d] == 0 for d in dims):
        raise ValueError(f"prims.{name}: cannot reduce the size-0 dims {[d for d in dims if a.shape[d] == 0]} of "
                         f"{a.name} (shape {list(a.shape)}): the reduction has no identity.")
    return [s for d, s in enumerate(a.shape) if d not in dims]


@prim(tags=(REDUCTION,))
def sum_(a, *, dims):
    """The sum over ``dims``, in ``a``'s dtype."""
    return result(_reduced("sum", a, dims), a.dtype, a.device, a)


@prim(tags=(REDUCTION,))
def prod(a, *, dims):
    """The product over ``dims``, in ``a``'s dtype."""
    return result(_reduced("prod", a, dims), a.dtype, a.device, a)


@prim(tags=(REDUCTION,))
def amax(a, *, dims):
    """The maximum over ``dims`` (NaN if any element is NaN); ``dims`` must not have size 0."""
    return result(_reduced("amax", a, dims, nonempty=True), a.dtype, a.device, a)


@prim(tags=(REDUCTION,))
def amin(a, *, dims):
    """The minimum over ``dims`` (NaN if any element is NaN); ``dims`` must not have size 0."""
    return result(_reduced("amin", a, dims, nonempty=True), a.dtype, a.device, a)


@prim(tags=(REDUCTION,))
def var(a, *, dims, correction):
    """The variance over ``dims``: ``sum((a - mean)**2) / (N - correction)``, N the number of
    elements reduced. Floating-point ``a`` only."""
    shape = _reduced("var", a, dims)
    if not a.dtype.is_floating_point:
        raise TypeError(f"prims.var: {a.name} must have a floating-point dtype, not {a.dtype}.")
    return result(shape, a.dtype, a.device, a)


def _arg_reduced(name, a, dim):
    _check_tensor(name, a)
    if a.ndim == 0:
        if dim != 0:
            raise ValueError(f"prims.{name}: dim of the 0-d tensor {a.name} must be 0, got {dim}.")
        return ()
    return _reduced(name, a, (dim,), nonempty=True)


@prim(tags=(REDUCTION,))
def argmax(a, *, dim):
    """The int64 position of the first maximum along ``dim`` (a 0-d ``a`` takes ``dim=0``)."""
    return result(_arg_reduced("argmax", a, dim), torch.int64, a.device)


@prim(tags=(REDUCTION,))
def argmin(a, *, dim):
    """The int64 position of the first minimum along ``dim`` (a 0-d ``a`` takes ``dim=0``)."""
    return result(_arg_reduced("argmin", a, dim), torch.int64, a.device)


def _scan(name, a, dim):
    _check_tensor(name, a)
    if a.ndim == 0 and dim == 0:
        return result((), a.dtype, a.device, a)
    _check_dims(name, a, (dim,))
    return result(a.shape, a.dtype, a.device, a)


@prim(tags=(REDUCTION,))
def cumsum(a, *, dim):
    """Running sums along ``dim``, in ``a``'s dtype."""
    return _scan("cumsum", a, dim)


@prim(tags=(REDUCTION,))
def cumprod(a, *, dim):
    """Running products along ``dim``, in ``a``'s dtype."""
    return _scan("cumprod", a, dim)


def _sorted_pair(name, a, dim, size):
    _check_tensor(name, a)
    if a.ndim == 0 and dim == 0:
        shape = ()
    else:
        _check_dims(name, a, (dim,))
        shape = list(a.shape)
        shape[dim] = size if size is not None else a.shape[dim]
    return result(shape, a.dtype, a.device, a), result(shape, torch.int64, a.device)


@prim(tags=(REDUCTION,))
def topk(a, *, k, dim, largest, sorted):
    """``(values, indices)`` of the ``k`` largest (``largest``) or smallest elements along
    ``dim``, in order when ``sorted``."""
    n = 1 if a.ndim == 0 else a.shape[dim] if isinstance(dim, int) and 0 <= dim < a.ndim else None
    if n is not None and not 0 <= k <= n:
        raise ValueError(f"prims.topk: k ({k}) must be in [0, {n}] for dim {dim} of {a.name}.")
    return _sorted_pair("topk", a, dim, k)


@prim(tags=(REDUCTION,))
def sort(a, *, dim, descending, stable):
    """``(values, indices)`` of ``a`` sorted along ``dim``; ``stable`` keeps equal elements in order."""
    return _sorted_pair("sort", a, dim, None)
