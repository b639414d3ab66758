"""Python number primitives: arithmetic and comparisons on symbolic numbers.

Under ``cache="symbolic values"`` an int/float/bool argument is a symbolic
:class:`~thunder_core.ir.NumberProxy`; ``n * 2``, ``n > 5`` or ``math.floor(n)`` in the
program record ``prims.py_mul(n, 2)``, ``prims.py_gt(n, 5)``, ``prims.py_floor(n)`` (the
proxy's operators dispatch through ``NUMBER_METHODS``), so the trace computes them from the
call's numbers. Each result is symbolic too: its ``hint`` is the value this call gives it,
and its ``expr`` lets the prologue evaluate it again when a guard depends on it.

Semantics are Python's (the implementation is the ``operator``/``math`` function itself);
the result's type is the type Python gives (``int / int`` is a float, ``n > 5`` a bool). The
prims carry no op trait: they are host computations, run by the executor that implements
them (the torch executor), never fused into device kernels.
"""

from __future__ import annotations

import math
import operator

from ..ir.proxies import NUMBER_METHODS, NUMBER_PREFIXES, NumberProxy, number_proxy
from .registry import prim

__all__ = ["NUMBER_OPS"]

#: prim name (without ``py_``) -> the Python function it stands for.
NUMBER_OPS = {
    "add": operator.add, "sub": operator.sub, "mul": operator.mul, "truediv": operator.truediv,
    "floordiv": operator.floordiv, "mod": operator.mod, "pow": operator.pow, "lshift": operator.lshift,
    "rshift": operator.rshift, "and": operator.and_, "or": operator.or_, "xor": operator.xor,
    "lt": operator.lt, "le": operator.le, "gt": operator.gt, "ge": operator.ge, "eq": operator.eq, "ne": operator.ne,
    "neg": operator.neg, "pos": operator.pos, "abs": operator.abs, "invert": operator.invert,
    "floor": math.floor, "ceil": math.ceil, "trunc": math.trunc, "round": round,
}


def _hint(x):
    if isinstance(x, NumberProxy):
        return x.hint if x.value is None else x.value
    return x


def _define(name: str, fn):
    def meta(*args):
        for a in args:
            if not (type(a) in NUMBER_PREFIXES or isinstance(a, NumberProxy)):
                raise TypeError(f"prims.py_{name} takes Python numbers, got {a!r} ({type(a).__name__}).")
        hint = fn(*map(_hint, args))  # raises what Python raises for these values (1 // 0)
        if type(hint) not in NUMBER_PREFIXES:
            raise TypeError(f"prims.py_{name}{tuple(map(_hint, args))} gave a {type(hint).__name__}, not a number.")
        return number_proxy(type(hint), hint=hint, expr=(fn, args))

    meta.__name__ = meta.__qualname__ = f"py_{name}"
    meta.__doc__ = f"``{fn.__module__}.{fn.__name__}`` of Python numbers, recorded (see the module docstring)."
    return prim(f"py_{name}")(meta)


for _name, _fn in NUMBER_OPS.items():
    NUMBER_METHODS[_name] = _define(_name, _fn)
del _name, _fn
