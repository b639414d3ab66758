"""Triton templates of the primitives the code generator emits, keyed by symbol id.

A value in a kernel is ``(expression, kind)``: kind ``"f"`` (float32), ``"b"`` (int1, a
bool) or ``"i"`` (an integer: int64 or int32 tensors, int sizes and numbers). Float math
computes in float32 whatever the tensors' dtype (half inputs are converted after the load and
results converted back at the store, as GPU kernels do; it is also the only way to get right
bf16 results from Triton's CPU interpreter, whose bf16 arithmetic is wrong). Integers stay
integers where torch's op keeps them integers (``+ - *``, negation, ``abs``, min/max,
comparisons, ``where``); other math on an integer is float math on its conversion, which is
what the primitive's float output asks for. Torch-level symbols are never templated here: the
code generator inlines their decompositions down to these primitives, so any torch-level op
whose decomposition reaches only these primitives (``gelu``, ``silu``, ``gelu_backward``...)
becomes a Triton kernel without a line of its own.
"""

from __future__ import annotations

import math


class Unsupported(Exception):
    """The code generator cannot emit this; the message says why (tc.explain shows it)."""


def _is_literal(expr: str) -> bool:
    return expr.lstrip("-").replace(".", "", 1).replace("e-", "", 1).replace("e+", "", 1).isdigit()


def _f(v):
    """``v`` as a float32 expression."""
    expr, kind = v
    if kind == "f":
        return expr
    if kind == "i" and _is_literal(expr):
        return f"{float(expr)!r}"
    if expr in ("True", "False"):
        return "1.0" if expr == "True" else "0.0"
    return f"{expr}.to(tl.float32)"


def _b(v):
    expr, kind = v
    return expr if kind == "b" else f"({expr} != 0)"


def _ints(*vs) -> bool:
    """Do these values compute as integers (integers, or bools among integers)?"""
    return all(k in ("i", "b") for _, k in vs) and any(k == "i" for _, k in vs)


def _unary(fmt, int_fmt=None):
    def template(a):
        if int_fmt is not None and a[1] == "i":
            return int_fmt.format(a[0]), "i"
        return fmt.format(_f(a)), "f"
    return template


def _binary(fmt, int_ok=False):
    def template(a, b):
        if int_ok and _ints(a, b):
            return fmt.format(a[0], b[0]), "i"
        return fmt.format(_f(a), _f(b)), "f"
    return template


def _compare(op):
    def template(a, b):
        if _ints(a, b) or (a[1] == "b" and b[1] == "b"):
            return f"({a[0]} {op} {b[0]})", "b"
        return f"({_f(a)} {op} {_f(b)})", "b"
    return template


def _where(c, a, b):
    if _ints(a, b):
        return f"tl.where({_b(c)}, {a[0]}, {b[0]})", "i"
    if a[1] == "b" and b[1] == "b":
        return f"tl.where({_b(c)}, {a[0]}, {b[0]})", "b"
    return f"tl.where({_b(c)}, {_f(a)}, {_f(b)})", "f"


def _extremum(fn):
    def template(a, b):
        if _ints(a, b):
            return f"{fn}({a[0]}, {b[0]})", "i"
        return f"{fn}({_f(a)}, {_f(b)}, propagate_nan=tl.PropagateNan.ALL)", "f"
    return template


def _bitwise(op):
    def template(a, b):
        if a[1] == "b" and b[1] == "b":
            return f"({a[0]} {op} {b[0]})", "b"
        if not _ints(a, b):
            raise Unsupported("bitwise operations on floats")
        return f"({a[0]} {op} {b[0]})", "i"
    return template


def _bitwise_not(a):
    if a[1] == "b":
        return f"({a[0]} == 0)", "b"
    if a[1] != "i":
        raise Unsupported("bitwise operations on floats")
    return f"(~{a[0]})", "i"


def _pow(a, b):
    expr = b[0]
    if not _is_literal(expr):
        raise Unsupported("pow with a tensor exponent (only constant exponents -1, 0.5, -0.5, 1, 2, 3)")
    e = float(expr)
    x = _f(a)
    forms = {1.0: "{x}", 2.0: "({x} * {x})", 3.0: "({x} * {x} * {x})", 0.5: "tl.sqrt({x})",
             -0.5: "tl.rsqrt({x})", -1.0: "(1.0 / {x})", 0.0: "({x} * 0.0 + 1.0)"}
    if e not in forms:
        raise Unsupported(f"pow with the exponent {e} (only -1, 0, 0.5, -0.5, 1, 2, 3)")
    return forms[e].format(x=x), "f"


#: primitive id -> template(*values) -> value; values are (expression, kind)
TEMPLATES = {
    "prims.neg": _unary("(-{})", "(-{})"),
    "prims.abs": _unary("tl.abs({})", "tl.abs({})"),
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
    "prims.floor": _unary("tl.floor({})", "{}"),
    "prims.ceil": _unary("tl.ceil({})", "{}"),
    "prims.sign": _unary("tl.where({0} > 0, 1.0, tl.where({0} < 0, -1.0, {0} * 0.0))",
                         "tl.where({0} > 0, 1, tl.where({0} < 0, -1, 0))"),
    "prims.add": _binary("({} + {})", int_ok=True),
    "prims.sub": _binary("({} - {})", int_ok=True),
    "prims.mul": _binary("({} * {})", int_ok=True),
    "prims.div": _binary("({} / {})"),
    "prims.maximum": _extremum("tl.maximum"),
    "prims.minimum": _extremum("tl.minimum"),
    "prims.pow": _pow,
    "prims.eq": _compare("=="), "prims.ne": _compare("!="), "prims.lt": _compare("<"),
    "prims.le": _compare("<="), "prims.gt": _compare(">"), "prims.ge": _compare(">="),
    "prims.isnan": lambda a: (f"({_f(a)} != {_f(a)})", "b") if a[1] == "f" else ("False", "b"),
    "prims.logical_not": lambda a: (f"({_b(a)} == 0)", "b"),
    "prims.logical_and": lambda a, b: (f"({_b(a)} & {_b(b)})", "b"),
    "prims.logical_or": lambda a, b: (f"({_b(a)} | {_b(b)})", "b"),
    "prims.logical_xor": lambda a, b: (f"({_b(a)} ^ {_b(b)})", "b"),
    "prims.where": _where,
    "prims.bitwise_and": _bitwise("&"), "prims.bitwise_or": _bitwise("|"), "prims.bitwise_xor": _bitwise("^"),
    "prims.bitwise_not": _bitwise_not,
}

#: primitives whose result may be an integer tensor (the others make floats or bools; an
#: integer result of another primitive, such as an integer division, is declined)
INT_RESULTS = frozenset({"prims.neg", "prims.abs", "prims.floor", "prims.ceil", "prims.sign", "prims.add",
                         "prims.sub", "prims.mul", "prims.maximum", "prims.minimum", "prims.where",
                         "prims.bitwise_and", "prims.bitwise_or", "prims.bitwise_xor", "prims.bitwise_not"})

#: view primitives the code generator handles itself (no data moves in a fused kernel)
VIEWS = frozenset({"prims.broadcast_in_dim", "prims.reshape", "prims.squeeze", "prims.convert_element_type"})

#: reductions over dims, and how each is computed: (neutral element, combine)
REDUCTIONS = {"prims.sum": ("0.0", "sum"), "prims.amax": ('-float("inf")', "max"),
              "prims.amin": ('float("inf")', "min"), "prims.var": ("0.0", "var")}

#: primitives that move values by an index tensor along the last dim of a row kernel (one
#: index per row), and the creation of constant tensors
INDEXING = frozenset({"prims.gather", "prims.scatter_add"})
CREATION = frozenset({"prims.full"})


def literal(x):
    """A Python number as a kernel value."""
    if isinstance(x, bool):
        return ("True" if x else "False"), "b"
    if isinstance(x, int):
        if not -(2 ** 31) <= x < 2 ** 31:
            raise Unsupported(f"the integer constant {x} (beyond int32: kernels embed constants as literals)")
        return f"{x}", "i"
    if isinstance(x, float):
        if math.isnan(x):
            return 'float("nan")', "f"
        if math.isinf(x):
            return ('float("inf")' if x > 0 else '-float("inf")'), "f"
        return f"{x!r}", "f"
    raise Unsupported(f"a {type(x).__name__} argument ({x!r})")
