"""Torch-level reductions, scans and sorting: sum, mean, var/std (and their ``_mean``
forms), amax/amin, max/min, argmax/argmin, prod, all/any, cumsum/cumprod, logsumexp,
norm/vector_norm, topk, sort and argsort.

Decompositions reduce with the primitives of ``prims_reduction`` and restore ``keepdim``
dims with one ``prims.reshape``. ``dim`` follows torch: None or an empty sequence reduces
every dim, and a 0-d tensor accepts dim 0 or -1. Integer and bool inputs of sum, prod and the
scans accumulate in int64, as in torch.

``torch.max``/``torch.min`` have three overloads that are three symbols: ``max`` (all
elements), ``max_dim`` (``(values, indices)`` along a dim) and the elementwise ``maximum``;
the entry registered for ``torch.max`` picks one from the arguments. Ops that return
``(values, indices)`` give a ``torch.return_types`` named tuple to user code, as torch does.
Every op here has the trait ``"reduction"`` (scans and sorts included: each of their outputs
along ``dim`` depends on many inputs along it).
"""

from __future__ import annotations

import math

import torch

from ..ir import TENSOR_METHODS, TensorProxy
from ..ir.traits import REDUCTION
from . import prims
from .ltorch_shape import reshaped
from .prims_shape import canonical_dim, canonical_dims
from .registry import NUMPY_NAMES, TORCH_CALLS, T, numpy_names, torch_op


# ---------------------------------------------------------------- helpers

def reduction_dims(a: TensorProxy, dim) -> tuple[int, ...]:
    """Canonical dims to reduce: all for None or an empty sequence (none for a 0-d tensor)."""
    if dim is None or (isinstance(dim, (tuple, list)) and len(dim) == 0):
        return tuple(range(a.ndim))
    dims = canonical_dims(a.ndim, dim if isinstance(dim, (tuple, list)) else (dim,))
    return dims if a.ndim else ()


def _kept(out, a, dims, keepdim):
    return reshaped(out, [1 if d in dims else s for d, s in enumerate(a.shape)]) if keepdim else out


def _converted(a, dtype):
    return a if a.dtype == dtype else prims.convert_element_type(a, dtype=dtype)


def _accumulation_dtype(a, dtype):
    """``dtype`` if given, else int64 for integer/bool inputs (torch's sum/prod/cumsum rule)."""
    if dtype is not None:
        return dtype
    return a.dtype if a.dtype.is_floating_point or a.dtype.is_complex else torch.int64


def _count(a, dims) -> int:
    return math.prod(a.shape[d] for d in dims)


def _nonempty(a, dims, what):
    for d in dims:
        if a.shape[d] == 0:
            raise IndexError(f"{what}(): Expected reduction dim {d} to have non-zero size.")


def _reduce(prim, a, dim, keepdim, dtype=None):
    dims = reduction_dims(a, dim)
    a = _converted(a, dtype) if dtype is not None else a
    return _kept(prim(a, dims=dims), a, dims, keepdim)


def _register(fn, *torch_fns, method=None):
    """Register ``fn`` (a dispatching or result-wrapping entry) for torch callables and a method."""
    for f in torch_fns:
        TORCH_CALLS[f] = fn
    if method:
        TENSOR_METHODS[method] = fn
    return fn


# ---------------------------------------------------------------- sums and means

@torch_op(torch.sum, torch.Tensor.sum, method="sum", name="sum", tags=(REDUCTION,))
def sum_(input, dim=None, keepdim=False, *, dtype=None):
    return _reduce(prims.sum, input, dim, keepdim, _accumulation_dtype(input, dtype))


@torch_op(torch.prod, torch.Tensor.prod, method="prod", tags=(REDUCTION,))
def prod(input, dim=None, keepdim=False, *, dtype=None):
    return _reduce(prims.prod, input, dim, keepdim, _accumulation_dtype(input, dtype))


@torch_op(torch.mean, torch.Tensor.mean, method="mean", tags=(REDUCTION,))
def mean(input, dim=None, keepdim=False, *, dtype=None):
    """``sum / count``, as torch computes it on CPU (half precision sums in float32)."""
    out_dtype = dtype or input.dtype
    if not (out_dtype.is_floating_point or out_dtype.is_complex):
        raise RuntimeError(f"mean(): could not infer output dtype. Input dtype must be either a floating point or "
                           f"complex dtype. Got: {input.dtype}")
    wide = torch.float32 if out_dtype in (torch.float16, torch.bfloat16) else out_dtype
    dims = reduction_dims(input, dim)
    out = sum_(input, dims, keepdim, dtype=wide) / _count(input, dims)
    return _converted(out, out_dtype)


# ---------------------------------------------------------------- variance and standard deviation

def _correction(dim, unbiased, correction):
    """torch's (dim, unbiased, correction) overloads -> (dim, correction)."""
    if isinstance(dim, bool):  # var(x, False): the legacy `unbiased` positional
        dim, unbiased = None, dim
    if correction is not None and unbiased is not None:
        raise RuntimeError("var(): Cannot specify both unbiased and correction")
    if correction is None:
        correction = 0 if unbiased is False else 1
    return dim, correction


def _var(a, dim, unbiased, keepdim, correction):
    dim, c = _correction(dim, unbiased, correction)
    if not a.dtype.is_floating_point:
        raise RuntimeError("std and var only support floating point and complex dtypes" if not a.dtype.is_complex
                           else "var/std of complex tensors is not supported by thunder_core yet")
    dims = reduction_dims(a, dim)
    return _kept(prims.var(a, dims=dims, correction=c), a, dims, keepdim), dim


def _var_impl(fn):
    def call(args, kwargs):
        a, dim, unbiased, keepdim = args
        dim, c = _correction(dim, unbiased, kwargs.get("correction"))
        return fn(a, dim, correction=c, keepdim=keepdim)
    return call


@torch_op(torch.var, torch.Tensor.var, method="var", impl=_var_impl(torch.var), tags=(REDUCTION,))
def var(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    return _var(input, dim, unbiased, keepdim, correction)[0]


@torch_op(torch.std, torch.Tensor.std, method="std", impl=_var_impl(torch.std), tags=(REDUCTION,))
def std(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    return T.sqrt(_var(input, dim, unbiased, keepdim, correction)[0])


@torch_op(torch.var_mean, impl=_var_impl(torch.var_mean), tags=(REDUCTION,))
def var_mean(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    v, dim = _var(input, dim, unbiased, keepdim, correction)
    return v, mean(input, dim, keepdim)


@torch_op(torch.std_mean, impl=_var_impl(torch.std_mean), tags=(REDUCTION,))
def std_mean(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    v, dim = _var(input, dim, unbiased, keepdim, correction)
    return T.sqrt(v), mean(input, dim, keepdim)


# ---------------------------------------------------------------- extrema

def _extremum(prim, what, a, dim, keepdim):
    dims = reduction_dims(a, dim)
    _nonempty(a, dims, what)
    return _kept(prim(a, dims=dims), a, dims, keepdim)


@torch_op(torch.amax, torch.Tensor.amax, method="amax", tags=(REDUCTION,))
def amax(input, dim=(), keepdim=False):
    return _extremum(prims.amax, "amax", input, dim, keepdim)


@torch_op(torch.amin, torch.Tensor.amin, method="amin", tags=(REDUCTION,))
def amin(input, dim=(), keepdim=False):
    return _extremum(prims.amin, "amin", input, dim, keepdim)


def _arg(prim, what, a, dim, keepdim):
    if a.dtype is torch.bool:
        raise RuntimeError(f"{what}(): does not support bool input")
    if dim is None:
        if a.numel() == 0:
            raise IndexError(f"{what}(): Expected reduction dim to be specified for input.numel() == 0.")
        out = prim(reshaped(a, (a.numel(),)), dim=0)
        return reshaped(out, (1,) * a.ndim) if keepdim else out
    d = canonical_dim(a.ndim, dim)
    if a.ndim == 0:
        return prim(a, dim=0)
    _nonempty(a, (d,), what)
    return _kept(prim(a, dim=d), a, (d,), keepdim)


@torch_op(torch.argmax, torch.Tensor.argmax, method="argmax", tags=(REDUCTION,))
def argmax(input, dim=None, keepdim=False):
    return _arg(prims.argmax, "argmax", input, dim, keepdim)


@torch_op(torch.argmin, torch.Tensor.argmin, method="argmin", tags=(REDUCTION,))
def argmin(input, dim=None, keepdim=False):
    return _arg(prims.argmin, "argmin", input, dim, keepdim)


def _all_of(prim, what, a):
    if a.numel() == 0:
        raise RuntimeError(f"{what}(): Expected reduction dim to be specified for input.numel() == 0. Specify the "
                           "reduction dim with the 'dim' argument.")
    return prim(a, dims=tuple(range(a.ndim)))


def _along(extreme, arg, what, a, dim, keepdim):
    """(values, indices) along ``dim``; bools are ranked as 0/1 (argmax itself rejects them)."""
    d = canonical_dim(a.ndim, dim)
    if a.ndim:
        _nonempty(a, (d,), what)
    ranks = _converted(a, torch.uint8) if a.dtype is torch.bool else a
    return extreme(a, d, keepdim), arg(ranks, d, keepdim)


@torch_op(name="max", impl=lambda args, kwargs: torch.max(*args), tags=(REDUCTION,))
def max_(input):
    """``torch.max(x)``: the largest element."""
    return _all_of(prims.amax, "max", input)


@torch_op(name="max_dim", impl=lambda args, kwargs: tuple(torch.max(*args, **kwargs)), tags=(REDUCTION,))
def max_dim(input, dim, keepdim=False):
    """``torch.max(x, dim)``: ``(values, indices)`` of the largest elements along ``dim``."""
    return _along(amax, argmax, "max", input, dim, keepdim)


@torch_op(name="min", impl=lambda args, kwargs: torch.min(*args), tags=(REDUCTION,))
def min_(input):
    """``torch.min(x)``: the smallest element."""
    return _all_of(prims.amin, "min", input)


@torch_op(name="min_dim", impl=lambda args, kwargs: tuple(torch.min(*args, **kwargs)), tags=(REDUCTION,))
def min_dim(input, dim, keepdim=False):
    """``torch.min(x, dim)``: ``(values, indices)`` of the smallest elements along ``dim``."""
    return _along(amin, argmin, "min", input, dim, keepdim)


def _overloads(name, whole, along, rtype, binary):
    def entry(input=None, *args, **kwargs):
        if kwargs and not NUMPY_NAMES.keys().isdisjoint(kwargs):  # torch.max(x, axis=1)
            kwargs = numpy_names(kwargs, ("input", "dim", "keepdim", "other"))
            input = kwargs.pop("input", input)
        if input is None:
            raise TypeError(f"torch.{name}() missing 1 required positional argument: 'input'")
        other = kwargs.pop("other", args[0] if args and isinstance(args[0], (TensorProxy, torch.Tensor)) else None)
        if other is not None:
            return getattr(T, binary)(input, other, *args[1:], **kwargs)
        if args or "dim" in kwargs:
            return rtype(along(input, *args, **kwargs))
        return whole(input)
    entry.__name__ = entry.__qualname__ = name
    entry.__doc__ = f"``torch.{name}``: all elements, ``(values, indices)`` along a dim, or ``torch.{binary}``."
    return entry


max_overloads = _register(_overloads("max", max_, max_dim, torch.return_types.max, "maximum"),
                          torch.max, torch.Tensor.max, method="max")
min_overloads = _register(_overloads("min", min_, min_dim, torch.return_types.min, "minimum"),
                          torch.min, torch.Tensor.min, method="min")


# ---------------------------------------------------------------- logical reductions

def _logical(a, dim, keepdim, lower):
    """all (``lower``: every element true, the minimum of the truth values) or any (the maximum)."""
    b = a if a.dtype is torch.bool else a != 0
    dims = reduction_dims(a, dim)
    if any(a.shape[d] == 0 for d in dims):  # an empty all() is True, an empty any() False
        shape = [s for d, s in enumerate(a.shape) if d not in dims]
        out = prims.full(lower, shape=shape, dtype=torch.bool, device=a.device)
    else:
        out = (prims.amin if lower else prims.amax)(b, dims=dims)
    return _converted(_kept(out, a, dims, keepdim), torch.uint8 if a.dtype is torch.uint8 else torch.bool)


@torch_op(torch.all, torch.Tensor.all, method="all", name="all", tags=(REDUCTION,))
def all_(input, dim=None, keepdim=False):
    return _logical(input, dim, keepdim, True)


@torch_op(torch.any, torch.Tensor.any, method="any", name="any", tags=(REDUCTION,))
def any_(input, dim=None, keepdim=False):
    return _logical(input, dim, keepdim, False)


# ---------------------------------------------------------------- scans

@torch_op(torch.cumsum, torch.Tensor.cumsum, method="cumsum", tags=(REDUCTION,))
def cumsum(input, dim, *, dtype=None):
    return prims.cumsum(_converted(input, _accumulation_dtype(input, dtype)), dim=canonical_dim(input.ndim, dim))


@torch_op(torch.cumprod, torch.Tensor.cumprod, method="cumprod", tags=(REDUCTION,))
def cumprod(input, dim, *, dtype=None):
    return prims.cumprod(_converted(input, _accumulation_dtype(input, dtype)), dim=canonical_dim(input.ndim, dim))


# ---------------------------------------------------------------- logsumexp and norms

@torch_op(torch.logsumexp, torch.Tensor.logsumexp, method="logsumexp", tags=(REDUCTION,))
def logsumexp(input, dim, keepdim=False):
    """``log(sum(exp(x - m))) + m`` with ``m`` the maximum (0 where it is infinite), as torch."""
    a = input if input.dtype.is_floating_point else _converted(input, torch.get_default_dtype())
    dims = reduction_dims(a, dim)
    if _count(a, dims) == 0 or a.numel() == 0:
        return T.log(sum_(T.exp(a), dims, keepdim))
    m = _kept(prims.amax(a, dims=dims), a, dims, True)
    m = T.where(T.abs(m) == math.inf, 0.0, m)
    out = T.log(sum_(T.exp(a - m), dims, keepdim))
    return out + (m if keepdim else reshaped(m, out.shape))


@torch_op(torch.linalg.vector_norm, inputs=("x",), tags=(REDUCTION,))
def vector_norm(x, ord=2, dim=None, keepdim=False, *, dtype=None):
    if not (x.dtype.is_floating_point or x.dtype.is_complex):
        raise RuntimeError(f"linalg.vector_norm: Expected a floating point or complex tensor as input. Got {x.dtype}")
    a = _converted(x, dtype) if dtype is not None else x
    dims = reduction_dims(a, dim)
    if math.isinf(ord):
        if _count(a, dims) == 0:
            raise RuntimeError(f"linalg.vector_norm cannot compute the {ord} norm on an empty tensor because the "
                               "operation does not have an identity")
        return _kept((prims.amax if ord > 0 else prims.amin)(T.abs(a), dims=dims), a, dims, keepdim)
    if ord == 0:  # the count of non-zeros; 0 is taken from |a| so the result tracks grad as in eager
        return sum_(T.where(a != 0, 1.0, T.abs(a)), dims, keepdim)
    if ord == 1:
        return sum_(T.abs(a), dims, keepdim)
    if ord == 2:
        absa = T.abs(a)
        return T.sqrt(sum_(absa * absa, dims, keepdim))
    return T.pow(sum_(T.pow(T.abs(a), ord), dims, keepdim), 1.0 / ord)


@torch_op(torch.norm, torch.Tensor.norm, method="norm", tags=(REDUCTION,))
def norm(input, p="fro", dim=None, keepdim=False, dtype=None):
    """Vector norms and the Frobenius norm (``p="nuc"``, the nuclear norm, needs an SVD and is not supported)."""
    if p == "nuc":
        raise NotImplementedError("torch.norm(p='nuc') needs a singular value decomposition, which thunder_core does "
                                  "not support yet; use torch.linalg.matrix_norm outside the jitted function.")
    return vector_norm(input, 2 if p == "fro" or p is None else p, dim, keepdim, dtype=dtype)


# ---------------------------------------------------------------- sorting

@torch_op(torch.topk, torch.Tensor.topk, method="topk", name="topk",
          impl=lambda args, kwargs: tuple(torch.topk(*args, **kwargs)), returns=torch.return_types.topk,
          tags=(REDUCTION,))
def topk(input, k, dim=-1, largest=True, sorted=True):
    """The ``k`` largest (``largest``) or smallest elements along ``dim`` and their positions."""
    d = canonical_dim(input.ndim, dim)
    n = input.shape[d] if input.ndim else 1
    if not 0 <= k <= n:
        raise RuntimeError("selected index k out of range")
    return prims.topk(input, k=k, dim=d, largest=largest, sorted=sorted)


@torch_op(torch.sort, torch.Tensor.sort, method="sort", name="sort",
          impl=lambda args, kwargs: tuple(torch.sort(args[0], dim=args[1], descending=args[2], **kwargs)),
          returns=torch.return_types.sort, tags=(REDUCTION,))
def sort(input, dim=-1, descending=False, *, stable=False):
    """``input`` sorted along ``dim`` and the positions the values came from."""
    return prims.sort(input, dim=canonical_dim(input.ndim, dim), descending=descending, stable=stable)




@torch_op(torch.argsort, torch.Tensor.argsort, method="argsort", tags=(REDUCTION,))
def argsort(input, dim=-1, descending=False, *, stable=False):
    return prims.sort(input, dim=canonical_dim(input.ndim, dim), descending=descending, stable=stable)[1]
