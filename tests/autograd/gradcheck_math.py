"""Gradcheck cases of the math, special, statistics, product, FFT and linear-algebra symbols
(ops/ltorch_math.py ... ltorch_linalg_library.py), for test_gradcheck_symbols.py: domains of
the elementwise ones the generic loop samples, cases of the others, and the symbols eager
does not differentiate."""

from __future__ import annotations

import torch

F64 = torch.float64

#: elementwise symbol -> (low, high) of its generic sample's values
DOMAINS = {"logit": (0.1, 0.9), "special_ndtri": (0.1, 0.9), "special_entr": (0.2, 2.0), "special_log_ndtr": (-2, 2),
           "xlogy": (0.2, 2.0), "special_xlog1py": (0.2, 2.0)}

#: elementwise symbols with a case below instead of the generic one
OWN = set("""ldexp polar conj_physical resolve_conj resolve_neg mvlgamma polygamma igamma igammac special_zeta
complex""".split())

_BESSEL = ("airy_ai bessel_j0 bessel_j1 bessel_y0 bessel_y1 modified_bessel_i0 modified_bessel_i1 modified_bessel_k0 "
           "modified_bessel_k1 scaled_modified_bessel_k0 scaled_modified_bessel_k1 spherical_bessel_j0").split()
_POLYNOMIALS = ("chebyshev_polynomial_t chebyshev_polynomial_u chebyshev_polynomial_v chebyshev_polynomial_w "
                "shifted_chebyshev_polynomial_t shifted_chebyshev_polynomial_u shifted_chebyshev_polynomial_v "
                "shifted_chebyshev_polynomial_w hermite_polynomial_h hermite_polynomial_he laguerre_polynomial_l "
                "legendre_polynomial_p").split()

#: symbol id -> why it has no case although it takes floating-point tensors
NOT_DIFFERENTIABLE = {
    **{f"ltorch.special_{n}": "eager has no derivative of this special function ('not implemented')"
       for n in (*_BESSEL, *_POLYNOMIALS)},
    "ltorch.heaviside": "eager raises 'the derivative for heaviside is not implemented'",
    "ltorch.histogram": "eager raises 'derivative for aten::histogram is not implemented'",
    "ltorch.histogramdd": "eager raises 'derivative for aten::_histogramdd_from_bin_cts is not implemented'",
    "ltorch.geqrf": "eager raises 'the derivative for geqrf is not implemented'",
    "ltorch.linalg_ldl_factor": "eager raises 'derivative for aten::linalg_ldl_factor_ex is not implemented'",
    "ltorch.linalg_ldl_factor_ex": "eager raises 'derivative for aten::linalg_ldl_factor_ex is not implemented'",
    "ltorch.linalg_ldl_solve": "eager raises 'derivative for aten::linalg_ldl_solve is not implemented'",
}


def add_cases(C, r, pos, probs):
    """Register the cases with ``C(name, fn, *inputs)``; ``r``/``pos``/``probs`` make float64
    inputs requiring grad (values in [-2, 2], [0.5, 2], [0.1, 0.9])."""
    eye = torch.eye(3, dtype=F64)

    def spd(a):  # a symmetric positive definite matrix from any square one
        return a @ a.mT + 3 * eye

    # ---- elementwise with static arguments or a constant operand
    C("ldexp", lambda x: torch.ldexp(x, torch.tensor([1, -2, 3])), r(2, 3))
    C("polar", torch.polar, pos(2, 3), r(2, 3))
    C("complex", lambda a, b: torch.complex(a, b) * 2, r(2, 3), r(2, 3))
    C("conj", lambda x: torch.conj(torch.complex(x, 2 * x)) * 2, r(2, 3))
    C("conj_physical", lambda x: torch.conj_physical(torch.complex(x, 2 * x)), r(2, 3))
    C("resolve_conj", lambda x: torch.resolve_conj(torch.complex(x, 2 * x).conj()), r(2, 3))
    C("resolve_neg", lambda x: torch.resolve_neg(torch.complex(x, 2 * x)), r(2, 3))
    C("view_as_complex", lambda x: torch.view_as_complex(x) * 2, r(3, 2))
    C("mvlgamma", lambda x: torch.mvlgamma(x, 3), r(2, 3, low=1.5, high=3.0))
    C("polygamma", lambda x: torch.polygamma(2, x), pos(2, 3))
    C("igamma", lambda y: torch.igamma(torch.tensor([0.5, 1.0, 2.0], dtype=F64), y), pos(2, 3))
    C("igammac", lambda y: torch.igammac(torch.tensor([0.5, 1.0, 2.0], dtype=F64), y), pos(2, 3))
    C("special_zeta", lambda q: torch.special.zeta(torch.tensor([2.0, 3.0, 4.5], dtype=F64), q), pos(2, 3))

    # ---- statistics and scans
    C("aminmax", lambda x: torch.aminmax(x, dim=1), r(2, 3))
    C("nansum", lambda x: torch.nansum(x, 1), r(2, 3))
    C("nanmean", lambda x: torch.nanmean(x, 0), r(2, 3))
    C("msort", torch.msort, r(3, 2))
    C("cummax", lambda x: torch.cummax(x, 1), r(2, 3))
    C("cummin", lambda x: torch.cummin(x, 0), r(2, 3))
    C("logcumsumexp", lambda x: torch.logcumsumexp(x, 1), r(2, 3))
    C("kthvalue", lambda x: torch.kthvalue(x, 2, 1), r(2, 3))
    C("mode", lambda x: torch.mode(x, 1), r(2, 3))
    C("quantile", lambda x: torch.quantile(x, 0.3, 1), r(2, 4))
    C("nanquantile", lambda x: torch.nanquantile(x, torch.tensor([0.2, 0.7], dtype=F64)), r(2, 4))
    C("median", torch.median, r(2, 3))
    C("median_dim", lambda x: torch.median(x, 1), r(2, 3))
    C("nanmedian", torch.nanmedian, r(2, 3))
    C("nanmedian_dim", lambda x: torch.nanmedian(x, 0, keepdim=True), r(3, 2))
    C("trapezoid", lambda y, x: torch.trapezoid(y, x), r(2, 3), r(3))
    C("trapz", lambda y: torch.trapz(y, dx=0.5), r(2, 3))
    C("cumulative_trapezoid", torch.cumulative_trapezoid, r(2, 3))
    C("diff", lambda x, p: torch.diff(x, 2, 1, prepend=p), r(2, 3), r(2, 1))
    C("gradient", lambda x: torch.gradient(x, spacing=2.0, dim=1), r(2, 4))
    C("renorm", lambda x: torch.renorm(x, 2, 0, 1.0), r(3, 2))
    # (integer or bool outputs: skipped as not differentiable, after checking eager agrees)
    C("count_nonzero", torch.count_nonzero, r(2, 3))
    C("histc", lambda x: torch.histc(x, 4), r(2, 3))
    C("isin", torch.isin, r(2, 3), r(2))
    C("hash_tensor", torch.hash_tensor, r(2, 3))
    C("bucketize", lambda x: torch.bucketize(x, torch.tensor([-1.0, 0.0, 1.0], dtype=F64)), r(2, 3))
    C("searchsorted", lambda s, x: torch.searchsorted(s, x), r(4), r(2, 3))
    C("linalg_matrix_rank", torch.linalg.matrix_rank, r(3, 3))

    # ---- products and distances
    C("addr", lambda i, a, b: torch.addr(i, a, b, beta=0.5, alpha=2), r(2, 3), r(2), r(3))
    C("addbmm", torch.addbmm, r(2, 2), r(3, 2, 3), r(3, 3, 2))
    C("vdot", torch.vdot, r(3), r(3))
    C("tensordot", lambda a, b: torch.tensordot(a, b, ([1, 0], [0, 2])), r(2, 3, 2), r(3, 2, 2))
    C("inner", torch.inner, r(2, 3), r(4, 3))
    C("kron", torch.kron, r(2, 1), r(2, 3))
    C("trace", torch.trace, r(3, 4))
    C("dist", lambda a, b: torch.dist(a, b, 3), r(2, 3), r(3))
    C("linalg_vecdot", torch.linalg.vecdot, r(2, 3), r(3))
    C("cdist", torch.cdist, r(2, 3), r(4, 3))
    C("cross", lambda a, b: torch.cross(a, b, dim=1), r(2, 3), r(2, 3))
    C("linalg_cross", torch.linalg.cross, r(2, 3), r(1, 3))
    C("linalg_multi_dot", lambda a, b, c: torch.linalg.multi_dot([a, b, c]), r(2, 3), r(3, 4), r(4))
    C("linalg_matrix_power", lambda a: torch.linalg.matrix_power(a, 3), r(3, 3))
    C("matrix_power", lambda a: torch.matrix_power(a, -2), r(3, 3, low=0.5, high=1.0) + 2 * eye)

    # ---- Fourier transforms
    for name in ("fft", "ifft", "rfft", "ihfft", "fft2", "ifft2", "rfft2", "ihfft2", "fftn", "ifftn", "rfftn",
                 "ihfftn"):
        C(f"fft_{name}", lambda x, _f=getattr(torch.fft, name): _f(x, norm="ortho"), r(2, 4))
    for name in ("irfft", "hfft", "irfft2", "hfft2", "irfftn", "hfftn"):
        C(f"fft_{name}", lambda x, y, _f=getattr(torch.fft, name): _f(torch.complex(x, y)), r(2, 3), r(2, 3))
    C("fft_fftshift", lambda x: torch.fft.fftshift(x, 1), r(2, 3))
    C("fft_ifftshift", torch.fft.ifftshift, r(2, 3))

    # ---- linear algebra (gauge-invariant functions of decompositions whose factors are defined up to signs)
    C("cholesky", lambda a: torch.cholesky(spd(a)), r(3, 3))
    C("cholesky_inverse", lambda a: torch.cholesky_inverse(torch.linalg.cholesky(spd(a))), r(3, 3))
    C("cholesky_solve", lambda b, a: torch.cholesky_solve(b, torch.linalg.cholesky(spd(a))), r(3, 2), r(3, 3))
    C("ormqr", torch.ormqr, r(3, 3), r(3), r(3, 2))
    C("qr", lambda a: torch.qr(a).R.abs(), r(3, 3))
    C("svd", lambda a: torch.svd(a).S, r(3, 2))
    C("pinverse", torch.pinverse, r(3, 2))
    C("triangular_solve", lambda b, a: torch.triangular_solve(b, a.triu() + 3 * eye), r(3, 2), r(3, 3))
    C("logdet", lambda a: torch.logdet(spd(a)), r(3, 3))
    C("slogdet", lambda a: torch.slogdet(a).logabsdet, r(3, 3))
    C("matrix_exp", torch.matrix_exp, r(3, 3))
    C("linalg_matrix_exp", torch.linalg.matrix_exp, r(3, 3))
    C("lu_solve", lambda b, a: torch.lu_solve(b, *torch.linalg.lu_factor(a + 3 * eye)), r(3, 2), r(3, 3))
    C("lu_unpack", lambda a: torch.lu_unpack(a, torch.tensor([1, 2, 3], dtype=torch.int32))[1:], r(3, 3))
    C("lu_with_info", lambda a: torch.lu(a)[0], r(3, 3))
    C("linalg_cholesky", lambda a: torch.linalg.cholesky(spd(a), upper=True), r(3, 3))
    C("linalg_cholesky_ex", lambda a: torch.linalg.cholesky_ex(spd(a)).L, r(3, 3))
    C("linalg_cond", torch.linalg.cond, r(3, 3))
    C("linalg_det", torch.linalg.det, r(3, 3))
    C("linalg_slogdet", lambda a: torch.linalg.slogdet(a).logabsdet, r(3, 3))
    C("linalg_eig", lambda a: torch.linalg.eig(spd(a)).eigenvalues, r(3, 3))
    C("linalg_eigvals", lambda a: torch.linalg.eigvals(spd(a)), r(3, 3))
    C("linalg_eigh", lambda a: torch.linalg.eigh(spd(a)).eigenvalues, r(3, 3))
    C("linalg_eigvalsh", lambda a: torch.linalg.eigvalsh(spd(a), UPLO="U"), r(3, 3))
    C("linalg_householder_product", torch.linalg.householder_product, r(3, 2), r(2))
    C("linalg_inv", torch.linalg.inv, r(3, 3) + 3 * eye)
    C("linalg_inv_ex", lambda a: torch.linalg.inv_ex(a + 3 * eye).inverse, r(3, 3))
    C("linalg_lu", lambda a: torch.linalg.lu(a).U, r(3, 3))
    C("linalg_lu_factor", lambda a: torch.linalg.lu_factor(a).LU, r(3, 3))
    C("linalg_lu_factor_ex", lambda a: torch.linalg.lu_factor_ex(a).LU, r(3, 3))
    C("linalg_lu_solve", lambda a, b: torch.linalg.lu_solve(*torch.linalg.lu_factor(a + 3 * eye), b), r(3, 3),
      r(3, 2))
    C("linalg_qr", lambda a: torch.linalg.qr(a).R.abs(), r(3, 2))
    C("linalg_solve", torch.linalg.solve, r(3, 3) + 3 * eye, r(3, 2))
    C("linalg_solve_ex", lambda a, b: torch.linalg.solve_ex(a + 3 * eye, b, left=False).result, r(3, 3), r(2, 3))
    C("linalg_solve_triangular", lambda a, b: torch.linalg.solve_triangular(a.triu() + 3 * eye, b, upper=True),
      r(3, 3), r(3, 2))
    C("linalg_svd", lambda a: torch.linalg.svd(a, full_matrices=False).S, r(3, 2))
    C("linalg_svdvals", torch.linalg.svdvals, r(2, 3))
    C("linalg_tensorinv", lambda a: torch.linalg.tensorinv(a + torch.eye(4, dtype=F64).reshape(4, 2, 2) * 3, ind=1),
      r(4, 2, 2))
    C("linalg_tensorsolve", lambda a, b: torch.linalg.tensorsolve(a + torch.eye(6, dtype=F64).reshape(6, 2, 3) * 3, b),
      r(6, 2, 3), r(6))
    C("linalg_vander", lambda x: torch.linalg.vander(x, N=4), r(3))
    C("linalg_pinv", lambda a: torch.linalg.pinv(a, hermitian=False), r(3, 2))
    C("linalg_diagonal", lambda a: torch.linalg.diagonal(a, offset=1) * 2, r(2, 3, 3))
    C("linalg_matrix_norm", lambda a: torch.linalg.matrix_norm(a, 1), r(2, 3))
    C("linalg_norm", lambda a: torch.linalg.norm(a, dim=1), r(2, 3))
