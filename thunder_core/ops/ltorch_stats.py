"""Torch-level statistics, scans and searches beyond ``ltorch_reduction``: ``aminmax``,
``count_nonzero``, ``nansum``/``nanmean``, ``msort``, ``isin`` (decomposed into other symbols), and run
whole: ``cummax``/``cummin``/``logcumsumexp``, ``median``/``nanmedian``, ``mode``,
``kthvalue``, ``quantile``/``nanquantile``, the histograms, the trapezoid rules, ``diff`` and
``gradient``, ``renorm``, ``hash_tensor``, and the searches ``bucketize``/``searchsorted``.

Traits: ``"reduction"`` (scans and order statistics included, as in ``ltorch_reduction``);
``renorm`` is a ``"normalization"`` (it rescales slices by their norms); ``diff``/``gradient``
(stencils: each output reads its neighbours along a dim, like ``glu`` not elementwise) and the
binary searches (an access that depends on the sorted values) have no trait (see
tests/ops/test_traits.py's NO_TRAIT). Ops run whole are differentiated by PyTorch's autograd
for the op alone (``autograd.torch_vjp``); the decomposed ones through their decomposition.
"""

from __future__ import annotations

import torch

from ..ir import TENSOR_METHODS, TensorProxy, tensor_proxy
from ..ir.traits import NORMALIZATION, REDUCTION
from .registry import TORCH_CALLS, T, torch_op, whole_op

__all__ = ["CALLABLES"]

#: Every torch callable registered by this module.
CALLABLES: list = []
R = (REDUCTION,)


def _define(name, params, fns, methods=(), inputs=("input",), tags=R, **options):
    """An op run whole (see ``registry.whole_op``) for ``fns`` and the torch.Tensor ``methods``."""
    fns = (*fns, *(getattr(torch.Tensor, m) for m in methods))
    entry = whole_op(name, params, *fns, inputs=inputs, method=tuple(methods), tags=tags, **options)
    CALLABLES.extend(fns)
    return entry


def _decomposed(fn, *fns, methods=(), **options):
    """``torch_op`` on a signature function with a decomposition, recording the callables."""
    fns = (*fns, *(getattr(torch.Tensor, m) for m in methods))
    CALLABLES.extend(fns)
    return torch_op(*fns, method=tuple(methods), **options)(fn)


# ---------------------------------------------------------------- decomposed

def aminmax(input, *, dim=None, keepdim=False):
    """``(amin, amax)`` over ``dim`` (every dim when None)."""
    if dim is None:
        lo, hi = T.amin(input), T.amax(input)
        if keepdim:
            ones = (1,) * input.ndim
            lo, hi = T.reshape(lo, ones), T.reshape(hi, ones)
        return lo, hi
    return T.amin(input, dim, keepdim), T.amax(input, dim, keepdim)


def count_nonzero(input, dim=None):
    """``sum(input != 0)`` over ``dim`` (int64)."""
    zero = False if input.dtype is torch.bool else 0
    nonzero = T.ne(input, zero)
    return T.sum(nonzero) if dim is None else T.sum(nonzero, dim)


def nansum(input, dim=None, keepdim=False, *, dtype=None):
    """The sum with NaNs counted as zero."""
    if input.dtype.is_complex:
        return NotImplemented  # (eager's error)
    x = T.where(T.isnan(input), 0, input) if input.dtype.is_floating_point else input
    return T.sum(x, dim, keepdim, dtype=dtype)


def nanmean(input, dim=None, keepdim=False, *, dtype=None):
    """``nansum / (number of non-NaN elements)``, as torch computes it."""
    if not input.dtype.is_floating_point:
        return NotImplemented  # (eager's error: floating point only; complex nansum is unsupported)
    count = T.sum(T.logical_not(T.isnan(input)), dim, keepdim)
    return T.div(T.nansum(input, dim, keepdim, dtype=dtype), count)


def msort(input):
    """``sort(input, dim=0).values``."""
    return T.sort(input, 0)[0]


def isin(elements, test_elements, *, assume_unique=False, invert=False):
    """Whether each element equals one of ``test_elements``: ``any(elements[..., None] ==
    test_elements.flatten(), -1)``, torch's own brute-force algorithm, used where torch uses it
    (few test elements); larger test sets run whole (torch sorts them)."""
    if not (isinstance(elements, TensorProxy) and isinstance(test_elements, TensorProxy)) or \
            test_elements.numel() >= int(10.0 * max(elements.numel(), 1) ** 0.145):
        return NotImplemented
    found = T.any(T.eq(T.unsqueeze(elements, -1), T.reshape(test_elements, (-1,))), -1)
    return T.logical_not(found) if invert else found


aminmax = _decomposed(aminmax, torch.aminmax, methods=("aminmax",), returns=torch.return_types.aminmax,
                      impl=lambda args, kwargs: tuple(torch.aminmax(*args, **kwargs)), tags=R)
count_nonzero = _decomposed(count_nonzero, torch.count_nonzero, methods=("count_nonzero",), tags=R)
nansum = _decomposed(nansum, torch.nansum, methods=("nansum",), tags=R)
nanmean = _decomposed(nanmean, torch.nanmean, methods=("nanmean",), tags=R)
msort = _decomposed(msort, torch.msort, methods=("msort",), tags=R)
isin = _decomposed(isin, torch.isin, inputs=("elements", "test_elements"), tags=R)


# ---------------------------------------------------------------- scans and order statistics, run whole

cummax = _define("cummax", "input, dim", (torch.cummax,), ("cummax",))
cummin = _define("cummin", "input, dim", (torch.cummin,), ("cummin",))
logcumsumexp = _define("logcumsumexp", "input, dim", (torch.logcumsumexp,), ("logcumsumexp",))
kthvalue = _define("kthvalue", "input, k, dim=-1, keepdim=False", (torch.kthvalue,), ("kthvalue",))
mode = _define("mode", "input, dim=-1, keepdim=False", (torch.mode,), ("mode",))


def _quantile_meta(input, q, dim=None, keepdim=False, *, interpolation="linear"):
    """Shape rule of ``quantile``/``nanquantile`` (a q of n values puts a dim of n first), from
    metadata alone: torch's own checks of q's values read tensor data (fake tensors of torch
    2.10 refuse them), and run in the kernel on every call anyway."""
    if not input.dtype.is_floating_point:
        raise RuntimeError(f"quantile() input tensor must be either float or double dtype, not {input.dtype}")
    if isinstance(q, TensorProxy):
        if q.ndim > 1:
            raise RuntimeError("quantile() q must be a scalar or 1D tensor")
        if q.dtype != input.dtype:
            raise RuntimeError("quantile() q tensor must be same dtype as the input tensor")
        lead = tuple(q.shape)
    elif isinstance(q, (list, tuple)):
        lead = (len(q),)
    else:
        lead = ()
    if dim is None:
        reduced = (1,) * input.ndim if keepdim else ()
    else:
        d = dim % max(input.ndim, 1)
        reduced = tuple(1 if k == d else n for k, n in enumerate(input.shape) if keepdim or k != d)
    return tensor_proxy((*lead, *reduced), input.dtype, input.device, input.requires_grad)


quantile = _define("quantile", "input, q, dim=None, keepdim=False, *, interpolation='linear'", (torch.quantile,),
                   ("quantile",), inputs=("input", "q"), meta=_quantile_meta)
nanquantile = _define("nanquantile", "input, q, dim=None, keepdim=False, *, interpolation='linear'",
                      (torch.nanquantile,), ("nanquantile",), inputs=("input", "q"), meta=_quantile_meta)

# median(x) is the lower median of all elements; median(x, dim) gives (values, indices) along dim
median = whole_op("median", "input", torch.median, tags=R, returns=None,
                  impl=lambda args, kwargs: torch.median(*args))
median_dim = whole_op("median_dim", "input, dim, keepdim=False", torch.median, tags=R,
                      returns=torch.return_types.median)
nanmedian = whole_op("nanmedian", "input", torch.nanmedian, tags=R, returns=None,
                     impl=lambda args, kwargs: torch.nanmedian(*args))
nanmedian_dim = whole_op("nanmedian_dim", "input, dim, keepdim=False", torch.nanmedian, tags=R,
                         returns=torch.return_types.nanmedian)


def _median_overloads(name, whole, along):
    def entry(input, *args, **kwargs):
        return along(input, *args, **kwargs) if args or kwargs else whole(input)
    entry.__name__ = entry.__qualname__ = name
    entry.__doc__ = f"``torch.{name}``: of all elements, or ``(values, indices)`` along a dim."
    fns = (getattr(torch, name), getattr(torch.Tensor, name))
    for f in fns:
        TORCH_CALLS[f] = entry
    TENSOR_METHODS[name] = entry
    CALLABLES.extend(fns)


_median_overloads("median", median, median_dim)
_median_overloads("nanmedian", nanmedian, nanmedian_dim)

# ---------------------------------------------------------------- histograms

histc = _define("histc", "input, bins=100, min=0, max=0", (torch.histc,), ("histc",), inputs=("input", "min", "max"))
histogram = _define("histogram", "input, bins, *, range=None, weight=None, density=False", (torch.histogram,),
                    ("histogram",), inputs=("input", "bins", "weight"))
histogramdd = _define("histogramdd", "input, bins, *, range=None, weight=None, density=False", (torch.histogramdd,),
                      inputs=("input", "bins", "weight"))
hash_tensor = _define("hash_tensor", "input, dim=(), *, keepdim=False, mode=0", (torch.hash_tensor,),
                      ("hash_tensor",))

# ---------------------------------------------------------------- integrals and differences

_TRAPEZOID = "y, x=None, *, dx=None, dim=-1"
trapezoid = _define("trapezoid", _TRAPEZOID, (torch.trapezoid,), inputs=("y", "x"))
trapz = _define("trapz", _TRAPEZOID, (torch.trapz,), inputs=("y", "x"))
cumulative_trapezoid = _define("cumulative_trapezoid", _TRAPEZOID, (torch.cumulative_trapezoid,), inputs=("y", "x"))
diff = _define("diff", "input, n=1, dim=-1, prepend=None, append=None", (torch.diff,), ("diff",),
               inputs=("input", "prepend", "append"), tags=())
gradient = _define("gradient", "input, *, spacing=1, dim=None, edge_order=1", (torch.gradient,),
                   inputs=("input", "spacing"), tags=(), returns=None,
                   impl=lambda args, kwargs: tuple(torch.gradient(*args, **kwargs)))
renorm = _define("renorm", "input, p, dim, maxnorm", (torch.renorm,), ("renorm",), inputs=("input", "p", "maxnorm"),
                 tags=(NORMALIZATION,))

# ---------------------------------------------------------------- searches in sorted tensors

bucketize = _define("bucketize", "input, boundaries, *, out_int32=False, right=False", (torch.bucketize,),
                    inputs=("input", "boundaries"), tags=())
searchsorted = _define("searchsorted", "sorted_sequence, input, *, out_int32=False, right=False, side=None, "
                       "sorter=None", (torch.searchsorted,), inputs=("sorted_sequence", "input", "sorter"), tags=())
