"""Scatter primitives beyond ``scatter_add`` (``prims_shape.py``): ``scatter_reduce``, which
combines the elements of ``src`` into a copy of ``a`` at positions held in an index tensor
with a product, maximum or minimum.

Traits: none (the positions written are the values of an index tensor; see
``thunder_core.ir.traits``): consumers treat it as a library kernel.
"""

from __future__ import annotations

from .prims_shape import _check_dims, _check_index, _check_scatter_src, _check_tensor, result
from .registry import prim

#: the reductions of prims.scatter_reduce (sums are prims.scatter_add)
SCATTER_REDUCTIONS = ("prod", "amax", "amin")


@prim()
def scatter_reduce(a, index, src, *, dim, reduce):
    """A copy of ``a`` where each ``src[i][j]`` (for ``dim=0``) is combined into position
    ``[index[i][j]][j]`` with ``reduce`` (``"prod"``, ``"amax"``, ``"amin"``), the element of
    ``a`` included: ``torch.scatter_reduce(..., include_self=True)``."""
    for t in (a, src):
        _check_tensor("scatter_reduce", t)
    _check_index("scatter_reduce", index)
    _check_dims("scatter_reduce", a, (dim,))
    if reduce not in SCATTER_REDUCTIONS:
        raise ValueError(f"prims.scatter_reduce: reduce must be one of {SCATTER_REDUCTIONS}, got {reduce!r}.")
    _check_scatter_src("scatter_reduce", a, index, src, dim)
    return result(a.shape, a.dtype, a.device, a, src)
