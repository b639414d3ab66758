"""Special functions no primitive computes: Bessel and related functions, the normal
distribution's ``ndtr``/``ndtri``/``log_ndtr``, ``erfcx``, ``i0``, the incomplete gamma
functions, Hurwitz ``zeta``, the orthogonal polynomials, ``polygamma`` and ``mvlgamma``.

Each is a torch-level symbol without a decomposition (torch's kernel is its definition, run
whole by the torch executor and inside a fused region by the inductor executor), with the
traits ``"elementwise"`` and ``"transcendental"``: one table row per op. Gradients: the
rules of ``transforms/vjp_math.py`` where PyTorch's formula is written in other symbols
(``i0``, ``i0e``, ``ndtri``, ``log_ndtr``, ``erfcx``, ``polygamma``, ``mvlgamma``); the rest by
PyTorch's autograd for the op alone (``autograd.torch_vjp``), which raises where eager has no
derivative (the Bessel functions, the polynomials).
"""

from __future__ import annotations

import torch
from torch import special

from .ltorch_elementwise import ET, inplace_variant, op, register_front
from .registry import signature_function

__all__ = ["CALLABLES"]

#: Every torch callable registered by this module.
CALLABLES: list = []


def _sig(name, params, what):
    return signature_function(name, params, f"{what}: run whole (torch's kernel defines it).")


#: (op name, torch callables, parameters, inputs, what) - the torch.Tensor methods and in-place
#: variants of the first name are found by name (``i0``, ``Tensor.i0_``)
_UNARY = "input"
_BINARY = "input, other"
_POLY = "input, n"
_TABLE = [
    ("i0", (torch.i0, special.i0), _UNARY, "the modified Bessel function of the first kind, order 0"),
    ("special_i0e", (special.i0e,), _UNARY, "exponentially scaled i0"),
    ("special_i1", (special.i1,), _UNARY, "the modified Bessel function of the first kind, order 1"),
    ("special_i1e", (special.i1e,), _UNARY, "exponentially scaled i1"),
    ("special_ndtr", (special.ndtr,), _UNARY, "the standard normal cumulative distribution function"),
    ("special_ndtri", (special.ndtri,), _UNARY, "the inverse of ndtr"),
    ("special_log_ndtr", (special.log_ndtr,), _UNARY, "log(ndtr(x))"),
    ("special_erfcx", (special.erfcx,), _UNARY, "the scaled complementary error function exp(x**2) * erfc(x)"),
    ("special_airy_ai", (special.airy_ai,), _UNARY, "the Airy function Ai"),
    ("special_bessel_j0", (special.bessel_j0,), _UNARY, "the Bessel function of the first kind, order 0"),
    ("special_bessel_j1", (special.bessel_j1,), _UNARY, "the Bessel function of the first kind, order 1"),
    ("special_bessel_y0", (special.bessel_y0,), _UNARY, "the Bessel function of the second kind, order 0"),
    ("special_bessel_y1", (special.bessel_y1,), _UNARY, "the Bessel function of the second kind, order 1"),
    ("special_modified_bessel_i0", (special.modified_bessel_i0,), _UNARY, "the modified Bessel function I0"),
    ("special_modified_bessel_i1", (special.modified_bessel_i1,), _UNARY, "the modified Bessel function I1"),
    ("special_modified_bessel_k0", (special.modified_bessel_k0,), _UNARY, "the modified Bessel function K0"),
    ("special_modified_bessel_k1", (special.modified_bessel_k1,), _UNARY, "the modified Bessel function K1"),
    ("special_scaled_modified_bessel_k0", (special.scaled_modified_bessel_k0,), _UNARY, "exp(x) * K0(x)"),
    ("special_scaled_modified_bessel_k1", (special.scaled_modified_bessel_k1,), _UNARY, "exp(x) * K1(x)"),
    ("special_spherical_bessel_j0", (special.spherical_bessel_j0,), _UNARY, "the spherical Bessel function j0"),
    ("igamma", (torch.igamma, special.gammainc), _BINARY, "the regularized lower incomplete gamma function"),
    ("igammac", (torch.igammac, special.gammaincc), _BINARY, "the regularized upper incomplete gamma function"),
    ("special_zeta", (special.zeta,), _BINARY, "the Hurwitz zeta function"),
    *((f"special_{n}", (getattr(special, n),), _POLY, f"the {n.replace('_', ' ')} of degree n")
      for n in ("chebyshev_polynomial_t", "chebyshev_polynomial_u", "chebyshev_polynomial_v", "chebyshev_polynomial_w",
                "shifted_chebyshev_polynomial_t", "shifted_chebyshev_polynomial_u", "shifted_chebyshev_polynomial_v",
                "shifted_chebyshev_polynomial_w", "hermite_polynomial_h", "hermite_polynomial_he",
                "laguerre_polynomial_l", "legendre_polynomial_p")),
]

for _name, _fns, _params, _what in _TABLE:
    _methods = [_name] if callable(getattr(torch.Tensor, _name, None)) else []
    _inputs = tuple(p.strip() for p in _params.split(","))
    op(_name, inputs=_inputs, fns=[*_fns, *(getattr(torch.Tensor, m) for m in _methods)], methods=_methods,
       inplace=bool(_methods), tags=ET, callables=CALLABLES)(_sig(_name, _params, _what))


@op("mvlgamma", inputs=("input",), extra=(special.multigammaln,), tags=ET, callables=CALLABLES)
def mvlgamma(input, p):
    """The multivariate log-gamma function of dimension ``p``: run whole (eager checks every
    element is above ``(p - 1) / 2``, which reads the values)."""


# polygamma(n, input) takes its static order first; the method takes it after self
_POLYGAMMA_SIG = _sig("polygamma", "n, input", "the n-th derivative of digamma")
polygamma = op("polygamma", fns=(torch.polygamma, special.polygamma), methods=(), inplace=False, tags=ET,
               callables=CALLABLES)(_POLYGAMMA_SIG)


def _polygamma_method(self, n):
    """``Tensor.polygamma(n)``: ``torch.polygamma(n, self)``."""
    return polygamma(n, self)


_polygamma_method.__name__ = "polygamma"
register_front(_polygamma_method, [torch.Tensor.polygamma], ["polygamma"], callables=CALLABLES)
inplace_variant("polygamma_", _sig("polygamma_", "input, n", "in place"), ("input",), [torch.Tensor.polygamma_],
                ["polygamma_"], callables=CALLABLES, traits=ET)

del _name, _fns, _params, _what, _methods, _inputs
