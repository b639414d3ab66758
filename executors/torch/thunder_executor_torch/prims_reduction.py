"""Torch implementations of the reduction, scan and sorting primitives."""

import torch

from .prims import impl


def _reduction(fn):
    # A primitive reduces exactly `dims`; torch reads an empty dim list as "all dims", so
    # reducing no dim goes through a new size-1 dim instead.
    def run(a, *, dims, **kw):
        if not dims:
            return fn(a.unsqueeze(-1), (-1,), **kw)
        return fn(a, tuple(dims), **kw)
    return run


def _prod(a, dims):
    if len(dims) == a.ndim:
        return torch.prod(a)  # all dims at once, in eager's order
    for d in sorted((d % a.ndim for d in dims), reverse=True):
        a = torch.prod(a, d)
    return a


impl("prims.sum")(_reduction(torch.sum))
impl("prims.prod")(_reduction(_prod))
impl("prims.amax")(_reduction(torch.amax))
impl("prims.amin")(_reduction(torch.amin))
impl("prims.var")(_reduction(lambda a, dims, correction: torch.var(a, dims, correction=correction)))


@impl("prims.argmax")
def argmax(a, *, dim):
    return torch.argmax(a, dim)


@impl("prims.argmin")
def argmin(a, *, dim):
    return torch.argmin(a, dim)


@impl("prims.cumsum")
def cumsum(a, *, dim):
    return torch.cumsum(a, dim)


@impl("prims.cumprod")
def cumprod(a, *, dim):
    return torch.cumprod(a, dim)


@impl("prims.topk")
def topk(a, *, k, dim, largest, sorted):
    return tuple(torch.topk(a, k, dim, largest=largest, sorted=sorted))


@impl("prims.sort")
def sort(a, *, dim, descending, stable):
    return tuple(torch.sort(a, dim=dim, descending=descending, stable=stable))
