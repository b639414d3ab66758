"""More products and distances: ``addr``, ``vdot``, ``inner``, ``tensordot``,
``kron``, ``trace``, ``dist``, ``linalg.vecdot`` (decomposed), and ``addbmm``, ``cdist``,
``cross``, ``linalg.cross``, ``linalg.multi_dot``, ``matrix_power`` (run whole).

The decompositions follow torch's implementations: ``tensordot`` permutes the free dims of the
first operand first and the contracted ones last (the second: contracted first), reshapes
both to matrices, multiplies with ``mm`` and reshapes back; ``kron`` multiplies views of the
operands with interleaved size-1 dims and reshapes; ``trace`` sums the diagonal accumulating
in float64 (float32 for half precision, int64 for integers), as torch's kernel does; ``addr``
is ``beta * input + (alpha * vec1) outer vec2`` with ``alpha``/``beta`` in the tensors' dtype. Calls outside what a decomposition covers
(dtype mismatches eager rejects, complex conjugation, bool ``addr``) run whole.

Traits: ``"matmul"`` for the products (as ``outer``/``addmm`` in ``ltorch_linalg``),
``"reduction"`` for ``trace``, ``dist``, ``cdist`` and ``vecdot`` (distances and sums of
products, like ``cosine_similarity``); ``cross`` has none (each output reads the other two
components along ``dim``: a library kernel, see tests/ops/test_traits.py's NO_TRAIT).
"""

from __future__ import annotations

import math

import torch

from ..ir import TensorProxy
from ..ir.traits import MATMUL, REDUCTION
from .ltorch_reduction import vector_norm
from .prims_shape import canonical_dim
from .registry import T, torch_op, whole_op

__all__ = ["CALLABLES"]

#: Every torch callable registered by this module.
CALLABLES: list = []


def _define(fn, *fns, methods=(), **options):
    fns = (*fns, *(getattr(torch.Tensor, m) for m in methods))
    CALLABLES.extend(fns)
    return torch_op(*fns, method=tuple(methods), **options)(fn)


def _whole(name, params, *fns, methods=(), **options):
    fns = (*fns, *(getattr(torch.Tensor, m) for m in methods))
    CALLABLES.extend(fns)
    return whole_op(name, params, *fns, method=tuple(methods), **options)


def _same_dtype(*ts) -> bool:
    return all(isinstance(t, TensorProxy) for t in ts) and len({t.dtype for t in ts}) == 1


# ---------------------------------------------------------------- products

def addr(input, vec1, vec2, *, beta=1, alpha=1):
    """``beta * input + (alpha * vec1) outer vec2``, the kernel's order of operations."""
    if not _same_dtype(input, vec1, vec2) or input.dtype is torch.bool or vec1.ndim != 1 or vec2.ndim != 1:
        return NotImplemented
    if not (input.dtype.is_floating_point or input.dtype.is_complex) and \
            any(isinstance(v, (float, complex)) for v in (beta, alpha)):
        return NotImplemented  # (eager's error: no float alpha/beta for integer tensors)
    # the kernel multiplies by alpha and beta cast to the tensors' dtype, rounding after each op
    beta, alpha = (torch.tensor(v, dtype=input.dtype).item() for v in (beta, alpha))
    product = T.outer(vec1 if alpha == 1 else T.mul(vec1, alpha), vec2)
    if beta == 0:  # the input is ignored (NaN in it does not propagate), as in torch
        return product
    return T.add(input if beta == 1 else T.mul(input, beta), product)


def vdot(input, other):
    """``dot`` of real vectors (complex ones, conjugating ``input``, run whole)."""
    if not _same_dtype(input, other) or input.dtype.is_complex:
        return NotImplemented
    return T.dot(input, other)


def tensordot(input, other, dims_self, dims_other):
    """Contract ``dims_self`` of ``input`` with ``dims_other`` of ``other`` (the torch.tensordot
    the Python ``torch.tensordot`` calls, with the dims as lists)."""
    if not _same_dtype(input, other) or len(dims_self) != len(dims_other):
        return NotImplemented
    d1 = [canonical_dim(input.ndim, d) for d in dims_self]
    d2 = [canonical_dim(other.ndim, d) for d in dims_other]
    if any(input.shape[a] != other.shape[b] for a, b in zip(d1, d2)) or len(set(d1)) != len(d1) \
            or len(set(d2)) != len(d2):
        return NotImplemented  # (size-1 broadcasting of contracted dims, and eager's errors)
    free1 = [d for d in range(input.ndim) if d not in d1]
    free2 = [d for d in range(other.ndim) if d not in d2]
    k = math.prod(input.shape[d] for d in d1)
    m, n = math.prod(input.shape[d] for d in free1), math.prod(other.shape[d] for d in free2)
    a = T.reshape(T.permute(input, free1 + d1), (m, k))
    b = T.reshape(T.permute(other, d2 + free2), (k, n))
    return T.reshape(T.mm(a, b), [input.shape[d] for d in free1] + [other.shape[d] for d in free2])


def inner(input, other):
    """``input * other`` when either is 0-d, else ``tensordot`` over the last dims."""
    if input.ndim == 0 or other.ndim == 0:
        return T.mul(input, other)
    return tensordot(input, other, [-1], [-1])  # (the entry defined below)


def kron(input, other):
    """The Kronecker product: views with interleaved size-1 dims, multiplied and reshaped."""
    nd = max(input.ndim, other.ndim)
    a_shape, b_shape, out_shape = [], [], []
    for i in range(nd):
        sa = input.shape[i - (nd - input.ndim)] if i >= nd - input.ndim else 1
        sb = other.shape[i - (nd - other.ndim)] if i >= nd - other.ndim else 1
        a_shape += [sa, 1]
        b_shape += [1, sb]
        out_shape.append(sa * sb)
    return T.reshape(T.mul(T.reshape(input, a_shape), T.reshape(other, b_shape)), out_shape)


_TRACE_ACC = {torch.float16: torch.float32, torch.bfloat16: torch.float32, torch.float32: torch.float64,
              torch.complex64: torch.complex128}


def trace(input):
    """The sum of the diagonal of a matrix, accumulated as torch's kernel does."""
    if input.ndim != 2 or input.dtype is torch.bool:
        return NotImplemented  # (eager's errors)
    if input.dtype.is_floating_point or input.dtype.is_complex:
        acc = _TRACE_ACC.get(input.dtype, input.dtype)
        return T.sum(T.diagonal(input), dtype=acc).to(input.dtype)
    return T.sum(T.diagonal(input), dtype=torch.int64)


def dist(input, other, p=2):
    """``vector_norm(input - other, p)`` over every element."""
    if not (_same_dtype(input, other) and input.dtype.is_floating_point):
        return NotImplemented
    return vector_norm(T.sub(input, other), p)


def linalg_vecdot(x, y, *, dim=-1):
    """``sum(x * y, dim)`` for real tensors (complex ones, conjugating ``x``, run whole)."""
    if not (_same_dtype(x, y) and x.dtype.is_floating_point):
        return NotImplemented
    return T.sum(T.mul(x, y), dim)


addr = _define(addr, torch.addr, methods=("addr",), inputs=("input", "vec1", "vec2", "beta", "alpha"), tags=(MATMUL,))
vdot = _define(vdot, torch.vdot, methods=("vdot",), inputs=("input", "other"), tags=(MATMUL,))
tensordot = _define(tensordot, torch._C._VariableFunctions.tensordot, inputs=("input", "other"), tags=(MATMUL,))
inner = _define(inner, torch.inner, methods=("inner",), inputs=("input", "other"), tags=(MATMUL,))
kron = _define(kron, torch.kron, methods=("kron",), inputs=("input", "other"), tags=(MATMUL,))
trace = _define(trace, torch.trace, methods=("trace",), tags=(REDUCTION,))
dist = _define(dist, torch.dist, methods=("dist",), inputs=("input", "other"), tags=(REDUCTION,))
linalg_vecdot = _define(linalg_vecdot, torch.linalg.vecdot, inputs=("x", "y"), tags=(REDUCTION,))

# ---------------------------------------------------------------- run whole

addbmm = _whole("addbmm", "input, batch1, batch2, *, beta=1, alpha=1", torch.addbmm, methods=("addbmm",),
                inputs=("input", "batch1", "batch2", "beta", "alpha"), tags=(MATMUL,),
                doc="``beta * input + alpha * sum_b batch1[b] @ batch2[b]``, run whole: torch accumulates batch by "
                "batch with ``addmm_``, which a sum of ``bmm`` would round differently.")
cdist = _whole("cdist", "x1, x2, p=2.0, compute_mode=None", torch._C._VariableFunctions.cdist, inputs=("x1", "x2"),
               tags=(REDUCTION,), doc="``torch.cdist``: the p-norm distance between each pair of rows, run whole "
               "(torch picks a matmul-based algorithm for large inputs).")
cross = _whole("cross", "input, other, dim=None", torch.cross, methods=("cross",), inputs=("input", "other"), tags=())
linalg_cross = _whole("linalg_cross", "input, other, *, dim=-1", torch.linalg.cross, inputs=("input", "other"),
                      tags=())
linalg_multi_dot = _whole("linalg_multi_dot", "tensors", torch.linalg.multi_dot, inputs=("tensors",),
                          tags=(MATMUL,), doc="``torch.linalg.multi_dot``: torch picks the cheapest order of the "
                          "products, run whole.")
linalg_matrix_power = _whole("linalg_matrix_power", "A, n", torch.linalg.matrix_power, inputs=("A",), tags=(MATMUL,))
matrix_power = _whole("matrix_power", "input, n", torch.matrix_power, methods=("matrix_power",), tags=(MATMUL,))
