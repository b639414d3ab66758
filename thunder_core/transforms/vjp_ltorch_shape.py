"""VJP rules of shape ops, indexing and reductions (see ``vjp.py`` for the contract). Views
get views back (``g.reshape``, ``g.transpose``...), so these backward ops cost nothing."""

from __future__ import annotations

from ..ops import ltorch_backward as B
from ..ops.ltorch_reduction import _correction, reduction_dims
from ..ops.prims_shape import canonical_dim, canonical_dims
from ..ops.registry import T
from .vjp import sum_to, vjp, zeros_for

# ---------------------------------------------------------------- views and reshapes


@vjp("ltorch.reshape", "ltorch.view", "ltorch.flatten", "ltorch.unflatten", "ltorch.unsqueeze", "ltorch.squeeze")
def _(b, g):
    return (g.reshape(b.args[0].shape),)


@vjp("ltorch.view_as", "ltorch.reshape_as")
def _(b, g):
    return g.reshape(b.args[0].shape), None


@vjp("ltorch.transpose", "ltorch.swapaxes", "ltorch.swapdims")
def _(b, g):
    d0, d1 = b.kwargs.values()  # (dim0, dim1) or (axis0, axis1), both required, in order
    return (g.transpose(d0, d1),)


@vjp("ltorch.t")
def _(b, g):
    return (g.t(),)


@vjp("ltorch.permute")
def _(b, g):
    dims = canonical_dims(g.ndim, b.kwargs["dims"])
    inverse = [0] * len(dims)
    for i, d in enumerate(dims):
        inverse[d] = i
    return (g.permute(inverse),)


@vjp("ltorch.movedim")
def _(b, g):
    return (g.movedim(b.kwargs["destination"], b.kwargs["source"]),)


@vjp("ltorch.expand", "ltorch.broadcast_to")
def _(b, g):
    return (sum_to(g, b.args[0].shape),)


@vjp("ltorch.expand_as")
def _(b, g):
    return sum_to(g, b.args[0].shape), None


# ---------------------------------------------------------------- joining and splitting

@vjp("ltorch.cat")
def _(b, g):
    tensors = list(b.args[0])
    d = canonical_dim(g.ndim, b.kwargs.get("dim", 0))
    skipped = [t.ndim == 1 and t.shape[0] == 0 and g.ndim > 1 for t in tensors]  # torch's legacy rule
    parts = iter(T.split(g, [t.shape[d] for t, s in zip(tensors, skipped) if not s], d))
    return ([zeros_for(t) if s else next(parts) for t, s in zip(tensors, skipped)],)


@vjp("ltorch.stack")
def _(b, g):
    return (list(T.unbind(g, canonical_dim(g.ndim, b.kwargs.get("dim", 0)))),)


def _filled(b, cts):
    return [c if c is not None else zeros_for(o) for c, o in zip(cts, b.flat_outs)]


@vjp("ltorch.split", "ltorch.split_with_sizes", "ltorch.chunk")
def _(b, *cts):
    x = b.args[0]
    d = canonical_dim(x.ndim, b.kwargs.get("dim", 0))
    return (T.cat(_filled(b, cts), d),)


@vjp("ltorch.unbind")
def _(b, *cts):
    x = b.args[0]
    return (T.stack(_filled(b, cts), canonical_dim(x.ndim, b.kwargs.get("dim", 0))),)


# ---------------------------------------------------------------- indexing

def _placed(g, x, index):
    out = B.basic_index_backward(g, index, tuple(x.shape))  # (a pad next to the ops around it)
    return B.getitem_backward(g, index, shape=tuple(x.shape)) if out is NotImplemented else out


@vjp("ltorch.getitem")
def _(b, g):
    x, index = b.args
    return _placed(g, x, index), None


@vjp("ltorch.select")
def _(b, g):
    x = b.args[0]
    d = canonical_dim(x.ndim, b.kwargs["dim"])
    return (_placed(g, x, (slice(None),) * d + (b.kwargs["index"],)),)


@vjp("ltorch.narrow")
def _(b, g):
    x = b.args[0]
    d = canonical_dim(x.ndim, b.kwargs["dim"])
    start = b.kwargs["start"] % x.shape[d] if b.kwargs["start"] < 0 else b.kwargs["start"]
    return (_placed(g, x, (slice(None),) * d + (slice(start, start + b.kwargs["length"]),)),)


@vjp("ltorch.diagonal")
def _(b, g):
    # a rule of its own keeps the forward's diagonal whole: a view, as in eager (its
    # decomposition gathers into a new tensor)
    x, k = b.args[0], b.kwargs
    zeros = T.zeros(x.shape, dtype=g.dtype, device=g.device)
    return (T.diagonal_scatter(zeros, g, k.get("offset", 0), k.get("dim1", 0), k.get("dim2", 1)),)


def _scattered(g, x, d, index):
    return T.scatter_add(T.zeros(x.shape, dtype=g.dtype, device=g.device), d, index, g)


@vjp("ltorch.index_select")
def _(b, g):
    x, idx = b.args
    if x.ndim == 0:
        return g.reshape(()), None
    d = canonical_dim(x.ndim, b.kwargs["dim"])
    full = idx.reshape([-1 if i == d else 1 for i in range(x.ndim)]).expand(g.shape)
    return _scattered(g, x, d, full), None


@vjp("ltorch.gather")
def _(b, g):
    x, idx = b.args
    if idx.ndim != x.ndim or x.ndim == 0:  # (torch lets 0-d and 1-d tensors mix here)
        flat = _scattered(g.reshape(-1), x.reshape(-1), 0, idx.reshape(-1))
        return flat.reshape(x.shape), None
    return _scattered(g, x, canonical_dim(x.ndim, b.kwargs["dim"]), idx), None


# ---------------------------------------------------------------- reductions

def _unreduced(g, x, dims, keepdim):
    """``g`` (the cotangent of a reduction of ``x`` over ``dims``) broadcast back to ``x``'s shape."""
    if not keepdim:
        g = g.reshape([1 if d in dims else s for d, s in enumerate(x.shape)])
    return g.expand(x.shape)


def _count(x, dims):
    n = 1
    for d in dims:
        n *= x.shape[d]
    return n


@vjp("ltorch.sum")
def _(b, g):
    x = b.args[0]
    dims = reduction_dims(x, b.kwargs.get("dim"))
    return (_unreduced(g, x, dims, b.kwargs.get("keepdim", False)),)


@vjp("ltorch.mean")
def _(b, g):
    x = b.args[0]
    dims = reduction_dims(x, b.kwargs.get("dim"))
    return (_unreduced(g / _count(x, dims), x, dims, b.kwargs.get("keepdim", False)),)


def _var_grad(b, g):
    x, kw = b.args[0], b.kwargs
    dim, c = _correction(kw.get("dim"), kw.get("unbiased"), kw.get("correction"))
    dims = reduction_dims(x, dim)
    centered = x - T.mean(x, dims, keepdim=True)
    return _unreduced(g, x, dims, kw.get("keepdim", False)) * centered * _inverse(_count(x, dims) - c, 2)


def _inverse(n, k):
    return k / n if n else float("inf")  # (eager: inf/nan gradients with no degrees of freedom)


@vjp("ltorch.var")
def _(b, g):
    return (_var_grad(b, g),)


@vjp("ltorch.std")
def _(b, g):
    return (_var_grad(b, g / (b.output * 2)),)


@vjp("ltorch.vector_norm")
def _(b, g):
    """PyTorch's ``norm_backward``: its subgradient 0 where the norm is 0 (the decomposition's
    ``sqrt`` would give NaN there), ``sgn(x)`` for ``ord=1``, the maxima sharing the cotangent
    for ``ord=+-inf``."""
    x, kw = b.args[0], b.kwargs
    p = kw.get("ord", 2)
    if p == 0:  # the count of non-zeros: eager's LinalgVectorNormBackward gives no gradient (None), not zeros
        return (None,)
    dims = reduction_dims(x, kw.get("dim"))
    norm = b.output
    if not kw.get("keepdim", False) and x.ndim:
        kept = [1 if d in dims else s for d, s in enumerate(x.shape)]
        g, norm = g.reshape(kept), norm.reshape(kept)
    if p == 1:
        out = T.sgn(x) * g
    elif p == 2:
        out = g * T.where(norm == 0, 0.0, x / norm)
    elif p in (float("inf"), float("-inf")):
        a = T.abs(x)
        mask = T.logical_or(a == norm, T.isnan(a))
        out = T.sgn(x) * ((g / T.sum(mask, dims, keepdim=True)) * mask)
    elif p < 1:
        out = T.sgn(x) * T.where(x == 0, 0.0, T.pow(T.abs(x), p - 1)) * g * T.pow(norm, 1 - p)
    else:
        scaled = T.sgn(x) * T.pow(T.abs(x), p - 1) if p < 2 else x * T.pow(T.abs(x), p - 2)
        out = scaled * T.where(norm == 0, 0.0, g / T.pow(norm, p - 1))
    return (out if out.dtype == x.dtype else out.to(x.dtype),)
