"""Matrix decompositions, solvers, inverses and determinants (``torch.linalg`` and the older
``torch`` names): torch-level symbols that run whole, one table row per op, since LAPACK /
cuSOLVER kernels are their definition. Their metadata comes from torch under fake tensors,
their gradients from PyTorch's autograd for the op alone (``autograd.torch_vjp``), and they
have no trait (library kernels: tests/ops/test_traits.py's NO_TRAIT); those returning several
tensors give torch's named tuple (``torch.return_types.linalg_qr``...).

Decomposed: ``linalg.diagonal`` (a ``diagonal`` view), ``linalg.matrix_norm`` for the
Frobenius norm and ``ord=+-1, +-inf`` (``vector_norm`` and ``amax``/``amin`` of row or column
sums, as torch computes them; the spectral and nuclear norms need an SVD and run whole) and
``linalg.norm`` (``vector_norm`` or ``matrix_norm`` by its arguments, as torch dispatches).
"""

from __future__ import annotations

import math

import torch

from ..ir.traits import REDUCTION, VIEW
from .ltorch_reduction import vector_norm
from .prims_shape import canonical_dim
from .registry import T, torch_op, whole_op

__all__ = ["CALLABLES", "LIBRARY"]

#: Every torch callable registered by this module.
CALLABLES: list = []
#: ids of the symbols defined from the table (library kernels, no trait)
LIBRARY: list = []

L = torch.linalg
#: (symbol name, torch's parameters, torch callables (the first runs), torch.Tensor methods, inputs)
_TABLE = [
    ("cholesky", "input, upper=False", (torch.cholesky,), ("cholesky",), ("input",)),
    ("cholesky_inverse", "input, upper=False", (torch.cholesky_inverse,), ("cholesky_inverse",), ("input",)),
    ("cholesky_solve", "input, input2, upper=False", (torch.cholesky_solve,), ("cholesky_solve",), ("input", "input2")),
    ("geqrf", "input", (torch.geqrf,), ("geqrf",), ("input",)),
    ("ormqr", "input, input2, input3, left=True, transpose=False", (torch.ormqr,), ("ormqr",),
     ("input", "input2", "input3")),
    ("qr", "input, some=True", (torch.qr,), ("qr",), ("input",)),
    ("svd", "input, some=True, compute_uv=True", (torch.svd,), ("svd",), ("input",)),
    ("pinverse", "input, rcond=1e-15", (torch.pinverse,), ("pinverse",), ("input",)),
    ("triangular_solve", "input, A, upper=True, transpose=False, unitriangular=False", (torch.triangular_solve,),
     ("triangular_solve",), ("input", "A")),
    ("logdet", "input", (torch.logdet,), ("logdet",), ("input",)),
    ("slogdet", "input", (torch.slogdet,), ("slogdet",), ("input",)),
    ("matrix_exp", "input", (torch.matrix_exp,), ("matrix_exp",), ("input",)),
    ("lu_solve", "input, LU_data, LU_pivots", (torch.lu_solve,), ("lu_solve",), ("input", "LU_data", "LU_pivots")),
    ("lu_unpack", "LU_data, LU_pivots, unpack_data=True, unpack_pivots=True", (torch.lu_unpack,), (),
     ("LU_data", "LU_pivots")),
    ("lu_with_info", "input, pivot=True, check_errors=True", (torch._lu_with_info,), (), ("input",)),
    ("linalg_cholesky", "A, *, upper=False", (L.cholesky,), (), ("A",)),
    ("linalg_cholesky_ex", "A, *, upper=False, check_errors=False", (L.cholesky_ex,), (), ("A",)),
    ("linalg_cond", "A, p=None", (L.cond,), (), ("A",)),
    ("linalg_det", "A", (L.det, torch.det), ("det",), ("A",)),
    ("linalg_slogdet", "A", (L.slogdet,), (), ("A",)),
    ("linalg_eig", "A", (L.eig,), (), ("A",)),
    ("linalg_eigvals", "A", (L.eigvals,), (), ("A",)),
    ("linalg_eigh", "A, UPLO='L'", (L.eigh,), (), ("A",)),
    ("linalg_eigvalsh", "A, UPLO='L'", (L.eigvalsh,), (), ("A",)),
    ("linalg_householder_product", "input, tau", (L.householder_product, torch.orgqr), ("orgqr",), ("input", "tau")),
    ("linalg_inv", "A", (L.inv, torch.inverse), ("inverse",), ("A",)),
    ("linalg_inv_ex", "A, *, check_errors=False", (L.inv_ex,), (), ("A",)),
    ("linalg_ldl_factor", "A, *, hermitian=False", (L.ldl_factor,), (), ("A",)),
    ("linalg_ldl_factor_ex", "A, *, hermitian=False, check_errors=False", (L.ldl_factor_ex,), (), ("A",)),
    ("linalg_ldl_solve", "LD, pivots, B, *, hermitian=False", (L.ldl_solve,), (), ("LD", "pivots", "B")),
    ("linalg_lu", "A, *, pivot=True", (L.lu,), (), ("A",)),
    ("linalg_lu_factor", "A, *, pivot=True", (L.lu_factor,), (), ("A",)),
    ("linalg_lu_factor_ex", "A, *, pivot=True, check_errors=False", (L.lu_factor_ex,), (), ("A",)),
    ("linalg_lu_solve", "LU, pivots, B, *, left=True, adjoint=False", (L.lu_solve,), (), ("LU", "pivots", "B")),
    ("linalg_matrix_exp", "A", (L.matrix_exp,), (), ("A",)),
    ("linalg_qr", "A, mode='reduced'", (L.qr,), (), ("A",)),
    ("linalg_solve", "A, B, *, left=True", (L.solve,), (), ("A", "B")),
    ("linalg_solve_ex", "A, B, *, left=True, check_errors=False", (L.solve_ex,), (), ("A", "B")),
    ("linalg_solve_triangular", "input, B, *, upper, left=True, unitriangular=False", (L.solve_triangular,), (),
     ("input", "B")),
    ("linalg_svd", "A, full_matrices=True, *, driver=None", (L.svd,), (), ("A",)),
    ("linalg_svdvals", "A, *, driver=None", (L.svdvals,), (), ("A",)),
    ("linalg_tensorinv", "A, ind=2", (L.tensorinv,), (), ("A",)),
    ("linalg_tensorsolve", "A, B, dims=None", (L.tensorsolve,), (), ("A", "B")),
    ("linalg_vander", "x, N=None", (L.vander,), (), ("x",)),
]


def _tolerance_overloads(fn):
    """An implementation for ``fn(A, rcond_or_tol, hermitian)`` and ``fn(A, *, atol, rtol,
    hermitian)`` (``linalg.pinv``, ``linalg.matrix_rank``): it passes the legacy tolerance
    positionally only when given, and ``atol``/``rtol`` only when given (each overload refuses
    a None for the other's parameters)."""
    def run(args, kwargs):
        a, tol, hermitian = (*args, *(None, None, False)[len(args):])
        kw = {k: v for k, v in kwargs.items() if v is not None}
        return fn(a, tol, hermitian, **kw) if tol is not None else fn(a, hermitian=hermitian, **kw)
    return run


#: ops whose torch function has overloads that no one parameter list binds with Nones
_OVERLOADED = [
    ("linalg_pinv", "A, rcond=None, hermitian=False, *, atol=None, rtol=None", L.pinv, ("A", "rcond", "atol", "rtol")),
    ("linalg_matrix_rank", "A, tol=None, hermitian=False, *, atol=None, rtol=None", L.matrix_rank,
     ("A", "tol", "atol", "rtol")),
]

for _name, _params, _fns, _methods, _inputs in _TABLE:
    _all = (*_fns, *(getattr(torch.Tensor, m) for m in _methods))
    LIBRARY.append(whole_op(_name, _params, *_all, inputs=_inputs, method=_methods, tags=()).symbol.id)
    CALLABLES.extend(_all)
for _name, _params, _fn, _inputs in _OVERLOADED:
    LIBRARY.append(whole_op(_name, _params, _fn, inputs=_inputs, tags=(), impl=_tolerance_overloads(_fn)).symbol.id)
    CALLABLES.append(_fn)


# ---------------------------------------------------------------- decomposed

def linalg_diagonal(A, *, offset=0, dim1=-2, dim2=-1):
    """``torch.diagonal(A, offset, dim1, dim2)`` (a view)."""
    return T.diagonal(A, offset, dim1, dim2)


def linalg_matrix_norm(A, ord="fro", dim=(-2, -1), keepdim=False, *, dtype=None):
    """The Frobenius norm (``vector_norm`` over both dims) and ``ord=+-1, +-inf`` (the largest or
    smallest absolute column or row sum) as torch computes them; the spectral (``+-2``) and
    nuclear norms, which need singular values, run whole."""
    if ord not in ("fro", 1, -1, math.inf, -math.inf) or A.ndim < 2 or not A.dtype.is_floating_point:
        return NotImplemented
    d0, d1 = (canonical_dim(A.ndim, d) for d in dim)
    if d0 == d1:
        return NotImplemented  # (eager's error)
    if ord == "fro":
        return vector_norm(A, 2, (d0, d1), keepdim, dtype=dtype)
    if any(A.shape[d] == 0 for d in (d0, d1)):
        return NotImplemented  # (eager's error: no identity for the max/min of an empty set)
    # torch: amax/amin over dim[1] of the sums of |A| over dim[0] (ord=+-1; rows for +-inf)
    sum_dim, max_dim = (d0, d1) if ord in (1, -1) else (d1, d0)
    a = T.to(A, dtype) if dtype is not None else A
    sums = vector_norm(a, 1, sum_dim, True)
    out = (T.amax if ord > 0 else T.amin)(sums, max_dim, True)
    return out if keepdim else T.squeeze(out, sorted((d0, d1), reverse=True))


def linalg_norm(input, ord=None, dim=None, keepdim=False, *, dtype=None):
    """``vector_norm`` of the flattened input (``ord`` None) or along one dim, ``matrix_norm``
    along two dims or of a matrix with an ``ord``, as torch dispatches."""
    if dim is not None and not isinstance(dim, (tuple, list)):
        dim = (dim,)
    if dim is not None and len(dim) == 2 or (dim is None and ord is not None and input.ndim == 2):
        return linalg_matrix_norm(input, "fro" if ord is None else ord, (-2, -1) if dim is None else dim, keepdim,
                                  dtype=dtype)
    if isinstance(ord, str):
        return NotImplemented  # (eager's error: a string ord needs a matrix)
    return vector_norm(input, 2 if ord is None else ord, dim, keepdim, dtype=dtype)


linalg_diagonal = torch_op(L.diagonal, inputs=("A",), tags=(VIEW,))(linalg_diagonal)
linalg_matrix_norm = torch_op(L.matrix_norm, inputs=("A",), tags=(REDUCTION,))(linalg_matrix_norm)
linalg_norm = torch_op(L.norm, tags=(REDUCTION,))(linalg_norm)
CALLABLES += [L.diagonal, L.matrix_norm, L.norm]

del _name, _params, _fns, _methods, _inputs, _all, _fn
