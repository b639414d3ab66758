"""Triton templates of the primitives the code generator emits, keyed by symbol id.

Kernels compute in float32 whatever the tensors' dtype (half inputs are converted after the
load and results converted back at the store, as GPU kernels do; it is also the only way to
get right bf16 results from Triton's CPU interpreter, whose bf16 arithmetic is wrong). A value
in a kernel is ``(expression, kind)``: kind ``"f"`` (float32) or ``"b"`` (int1, a bool).
Torch-level symbols are never templated here: the code generator inlines their
decompositions down to these primitives, so any elementwise torch-level op whose
decomposition reaches only these primitives (``gelu``, ``silu``, ``gelu_backward``...)
becomes a Triton kernel without a line of its own.
"""

from __future__ import annotations

import math


class Unsupported(Exception):
    """The code generator cannot emit this; the message says why (tc.explain shows it)."""


def _f(v):
    """``v`` as a float32 expression."""
    expr, kind = v
    return f"{expr}.to(tl.float32)" if kind == "b" else expr


def _b(v):
    expr, kind = v
    return expr if kind == "b" else f"({expr} != 0)"


def _unary(fmt):
    return lambda a: (fmt.format(_f(a)), "f")


def _binary(fmt):
    return lambda a, b: (fmt.format(_f(a), _f(b)), "f")


def _compare(op):
    return lambda a, b: (f"({_f(a)} {op} {_f(b)})", "f" if False else "b")


def _pow(a, b):
    expr, kind = b
    try:
        e = float(expr)
    except ValueError:
        raise Unsupported("pow with a tensor exponent (only constant exponents -1, 0.5, -0.5, 1, 2, 3)") from None
    x = _f(a)
    forms = {1.0: "{x}", 2.0: "({x} * {x})", 3.0: "({x} * {x} * {x})", 0.5: "tl.sqrt({x})",
             -0.5: "tl.rsqrt({x})", -1.0: "(1.0 / {x})", 0.0: "({x} * 0.0 + 1.0)"}
    if e not in forms:
        raise Unsupported(f"pow with the exponent {e} (only -1, 0, 0.5, -0.5, 1, 2, 3)")
    return forms[e].format(x=x), "f"


#: primitive id -> template(*values) -> value; values are (expression, kind)
TEMPLATES = {
    "prims.neg": _unary("(-{})"),
    "prims.abs": _unary("tl.abs({})"),
    "prims.exp": _unary("tl.exp({})"),
    "prims.exp2": _unary("tl.exp2({})"),
    "prims.log": _unary("tl.log({})"),
    "prims.log2": _unary("tl.log2({})"),
    "prims.sqrt": _unary("tl.sqrt({})"),
    "prims.rsqrt": _unary("tl.rsqrt({})"),
    "prims.sin": _unary("tl.sin({})"),
    "prims.cos": _unary("tl.cos({})"),
    "prims.erf": _unary("tl.erf({})"),
    "prims.sigmoid": _unary("tl.sigmoid({})"),
    # tanh(x) = 2 sigmoid(2x) - 1: tl has no tanh of its own outside libdevice
    "prims.tanh": _unary("(2.0 * tl.sigmoid(2.0 * {}) - 1.0)"),
    "prims.reciprocal": _unary("(1.0 / {})"),
    "prims.floor": _unary("tl.floor({})"),
    "prims.ceil": _unary("tl.ceil({})"),
    "prims.sign": _unary("tl.where({0} > 0, 1.0, tl.where({0} < 0, -1.0, {0} * 0.0))"),
    "prims.add": _binary("({} + {})"),
    "prims.sub": _binary("({} - {})"),
    "prims.mul": _binary("({} * {})"),
    "prims.div": _binary("({} / {})"),
    "prims.maximum": _binary("tl.maximum({}, {}, propagate_nan=tl.PropagateNan.ALL)"),
    "prims.minimum": _binary("tl.minimum({}, {}, propagate_nan=tl.PropagateNan.ALL)"),
    "prims.pow": _pow,
    "prims.eq": _compare("=="), "prims.ne": _compare("!="), "prims.lt": _compare("<"),
    "prims.le": _compare("<="), "prims.gt": _compare(">"), "prims.ge": _compare(">="),
    "prims.isnan": lambda a: (f"({_f(a)} != {_f(a)})", "b"),
    "prims.logical_not": lambda a: (f"({_b(a)} == 0)", "b"),
    "prims.logical_and": lambda a, b: (f"({_b(a)} & {_b(b)})", "b"),
    "prims.logical_or": lambda a, b: (f"({_b(a)} | {_b(b)})", "b"),
    "prims.logical_xor": lambda a, b: (f"({_b(a)} ^ {_b(b)})", "b"),
    "prims.where": lambda c, a, b: (f"tl.where({_b(c)}, {_f(a)}, {_f(b)})", "f"),
}

#: view primitives the code generator handles itself (no data moves in a fused kernel)
VIEWS = frozenset({"prims.broadcast_in_dim", "prims.reshape", "prims.squeeze", "prims.convert_element_type"})


def literal(x):
    """A Python number as a kernel value."""
    if isinstance(x, bool):
        return ("True" if x else "False"), "b"
    if isinstance(x, int):
        return f"{float(x)!r}", "f"
    if isinstance(x, float):
        if not math.isfinite(x):
            raise Unsupported(f"the non-finite constant {x} (kernels embed constants as literals)")
        return f"{x!r}", "f"
    raise Unsupported(f"a {type(x).__name__} argument ({x!r})")
