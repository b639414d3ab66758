"""Torch-level symbols for the IR tests, printed as ``tltorch.<name>``, defined by
decompositions into ``toy_prims``. ``IMPLS`` maps their ids to eager torch."""

import math

import torch

from thunder_core.ir import Symbol

from . import toy_prims as prims
from .toy_prims import meta_from_torch

IMPLS = {}


def _add(a, b, *, alpha=1):
    return prims.add(a, b if alpha == 1 else prims.mul(b, alpha))


def _gelu(a, *, approximate="none"):
    if approximate != "none":
        raise NotImplementedError(f"gelu(approximate={approximate!r}) is not supported by the toy ops")
    return prims.mul(prims.mul(a, 0.5), add(prims.erf(prims.div(a, math.sqrt(2.0))), 1.0))


def _to(a, *, dtype):
    return a if a.dtype == dtype else prims.convert_element_type(a, dtype=dtype)


def _mean(a, *, dim, keepdim=False):
    return prims.div(prims.sum(a, dims=(dim,), keepdim=keepdim), a.shape[dim])


def _torch_add(a, b, *, alpha=1):
    return a + b * alpha


# add has both a meta function and a decomposition; the others only a decomposition.
add = Symbol("add", meta=meta_from_torch(_torch_add), id="tltorch.add", decomposition=_add, module="tltorch")
gelu = Symbol("gelu", meta=None, id="torch.nn.functional.gelu", decomposition=_gelu, module="tltorch")
to = Symbol("to", meta=None, id="tltorch.to", decomposition=_to, module="tltorch")
mean = Symbol("mean", meta=None, id="tltorch.mean", decomposition=_mean, module="tltorch")

IMPLS.update({
    add.id: _torch_add,
    gelu.id: torch.nn.functional.gelu,
    to.id: lambda a, *, dtype: a.to(dtype),
    mean.id: lambda a, *, dim, keepdim=False: torch.mean(a, dim, keepdim=keepdim),
})
