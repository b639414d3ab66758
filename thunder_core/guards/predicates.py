"""Symbolic numbers as Python expressions: how a guard on a symbolic number reads and how the
prologue computes it again from the call's arguments.

A symbolic :class:`~thunder_core.ir.NumberProxy` is an input (``expr is None``) or the result
of a number primitive (``expr = (function, args)``, see ``ops/prims_number.py``).
:func:`render` writes it as an expression over its inputs: ``leaf(input_proxy)`` names each
input (the proxy's name in messages, the prologue's local variable in the prologue), operators
print as operators and other functions as ``call(function)`` (a constant of the prologue).
"""

from __future__ import annotations

import operator
from typing import Callable

from ..ir.proxies import NumberProxy

#: Python function -> its infix operator (binary) or prefix (unary).
INFIX = {operator.add: "+", operator.sub: "-", operator.mul: "*", operator.truediv: "/", operator.floordiv: "//",
         operator.mod: "%", operator.pow: "**", operator.lshift: "<<", operator.rshift: ">>", operator.and_: "&",
         operator.or_: "|", operator.xor: "^", operator.lt: "<", operator.le: "<=", operator.gt: ">",
         operator.ge: ">=", operator.eq: "==", operator.ne: "!="}
PREFIX = {operator.neg: "-", operator.pos: "+", operator.invert: "~"}


def render(x, leaf: Callable[[NumberProxy], str], call: Callable[[Callable], str], literal: Callable = repr,
           share: Callable[[str], str] | None = None) -> str:
    """``x`` (a number or symbolic NumberProxy) as a Python expression; see the module docstring.
    ``share(source) -> source``, when given, is applied to each computed subexpression (not to
    ``x`` itself): the prologue computes each one once into a local and names it there."""
    if not isinstance(x, NumberProxy):
        return literal(x)
    if x.value is not None:
        return literal(x.value)
    if x.expr is None:
        return leaf(x)
    fn, args = x.expr
    parts = [render(a, leaf, call, literal, share) for a in args]
    if share is not None:
        parts = [share(s) if isinstance(a, NumberProxy) and a.value is None and a.expr is not None else s
                 for s, a in zip(parts, args)]
    if fn in INFIX and len(parts) == 2:
        return f"({parts[0]} {INFIX[fn]} {parts[1]})"
    if fn in PREFIX and len(parts) == 1:
        return f"({PREFIX[fn]}{parts[0]})"
    return f"{call(fn)}({', '.join(parts)})"


def inputs_of(x) -> list[NumberProxy]:
    """The input proxies ``x`` is computed from (with repeats)."""
    if not isinstance(x, NumberProxy) or x.value is not None:
        return []
    if x.expr is None:
        return [x]
    return [p for a in x.expr[1] for p in inputs_of(a)]


def describe(p: NumberProxy, kind: str, value) -> str:
    """A predicate guard in words: ``n > 5 is True``, ``n * 2 == 12``."""
    text = render(p, lambda q: q.name, lambda fn: getattr(fn, "__name__", "f"))
    if text.startswith("(") and text.endswith(")"):
        text = text[1:-1]
    return f"{text} is {value}" if kind == "truth" else f"{text} == {value!r}"
