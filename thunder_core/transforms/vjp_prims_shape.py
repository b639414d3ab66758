"""VJP rules of the shape and indexing primitives (imported by ``vjp_prims.py``; see
``vjp.py`` for the rule contract). All are linear, so they hold for complex dtypes too."""

from __future__ import annotations

from ..ir import TensorProxy
from ..ops import prims
from .vjp import vjp


def rg(x) -> bool:
    """Whether ``x`` is a tensor that wants a gradient (numbers and int tensors don't)."""
    return isinstance(x, TensorProxy) and x.requires_grad


def zeros_like(g, shape):
    return prims.full(0, shape=tuple(shape), dtype=g.dtype, device=g.device)


@vjp("prims.broadcast_in_dim")
def _broadcast_in_dim(b, g):
    a, dims = b.args[0], b.kwargs["broadcast_dimensions"]
    kept = {d: i for i, d in enumerate(dims)}
    summed = tuple(d for d in range(g.ndim) if d not in kept or (a.shape[kept[d]] == 1 and g.shape[d] != 1))
    if summed:
        g = prims.sum(g, dims=summed)
    return (g if tuple(g.shape) == tuple(a.shape) else prims.reshape(g, shape=a.shape),)


@vjp("prims.reshape", "prims.squeeze")
def _reshape(b, g):
    return (prims.reshape(g, shape=b.args[0].shape),)


@vjp("prims.transpose")
def _transpose(b, g):
    perm = b.kwargs["permutation"]
    inverse = [0] * len(perm)
    for i, p in enumerate(perm):
        inverse[p] = i
    return (prims.transpose(g, permutation=tuple(inverse)),)


@vjp("prims.slice")
def _slice(b, g):
    # scatter back with zeros: pad `lo` before, `stride - 1` between, the rest after
    a, kw = b.args[0], b.kwargs
    strides = kw.get("strides") or (1,) * a.ndim
    config = []
    for lo, n, m, st in zip(kw["start_indices"], a.shape, g.shape, strides):
        used = (m - 1) * st + 1 if m else 0
        config.append((lo, n - lo - used, st - 1))
    if all(c == (0, 0, 0) for c in config):
        return (g,)
    return (prims.pad(g, 0, padding_config=tuple(config)),)


@vjp("prims.pad")
def _pad(b, g):
    # Undo the cropping of negative lo/hi with zeros, then take every (interior + 1)-th
    # element from where `a` starts. The padding value is a number: no gradient.
    a, config = b.args[0], b.kwargs["padding_config"]
    uncrop = tuple((max(-lo, 0), max(-hi, 0), 0) for lo, hi, _ in config)
    if any(c != (0, 0, 0) for c in uncrop):
        g = prims.pad(g, 0, padding_config=uncrop)
    starts = [max(lo, 0) for lo, _, _ in config]
    steps = [interior + 1 for _, _, interior in config]
    ends = [s + ((n - 1) * st + 1 if n else 0) for s, st, n in zip(starts, steps, a.shape)]
    if tuple(g.shape) != tuple(a.shape) or any(st != 1 for st in steps):
        g = prims.slice(g, start_indices=tuple(starts), end_indices=tuple(ends), strides=tuple(steps))
    return g, None


@vjp("prims.cat")
def _cat(b, g):
    tensors, dim = b.args[0], b.kwargs["dim"]
    grads, offset = [], 0
    for t in tensors:
        if rg(t):
            lo = [0] * g.ndim
            hi = list(g.shape)
            lo[dim], hi[dim] = offset, offset + t.shape[dim]
            grads.append(g if tuple(t.shape) == tuple(g.shape) else
                         prims.slice(g, start_indices=tuple(lo), end_indices=tuple(hi)))
        else:
            grads.append(None)
        offset += t.shape[dim]
    return (grads,)


@vjp("prims.flip")
def _flip(b, g):
    return (prims.flip(g, dims=b.kwargs["dims"]),)


@vjp("prims.take")
def _take(b, g):
    # index_select's adjoint is index_add: a scatter_add of g along dim at index (repeated
    # indices accumulate)
    a, index = b.args
    dim = b.kwargs["dim"]
    idx = prims.broadcast_in_dim(index, shape=g.shape, broadcast_dimensions=(dim,))
    return prims.scatter_add(zeros_like(g, a.shape), idx, g, dim=dim), None


@vjp("prims.gather")
def _gather(b, g):
    a, index = b.args
    return prims.scatter_add(zeros_like(g, a.shape), index, g, dim=b.kwargs["dim"]), None


@vjp("prims.scatter_add")
def _scatter_add(b, g):
    a, index, src = b.args
    gsrc = None
    if rg(src):
        # src elements outside index's extent are never read: zero gradient there
        gsrc = prims.gather(g, index, dim=b.kwargs["dim"])
        if tuple(gsrc.shape) != tuple(src.shape):
            gsrc = prims.pad(gsrc, 0, padding_config=tuple((0, s - i, 0) for s, i in zip(src.shape, index.shape)))
    return (g if rg(a) else None), None, gsrc
