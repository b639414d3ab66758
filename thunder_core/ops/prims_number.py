"""Python number primitives: arithmetic and comparisons on symbolic numbers.

Under ``cache="symbolic values"`` an int/float/bool argument (and each dimension of an
argument tensor) is a symbolic :class:`~thunder_core.ir.NumberProxy`; ``n * 2``, ``n > 5``
or ``math.floor(n)`` in the program record ``prims.py_mul(n, 2)``, ``prims.py_gt(n, 5)``,
``prims.py_floor(n)`` (the proxy's operators dispatch through ``NUMBER_METHODS``), so the
trace computes them from the call's numbers. Each result is symbolic too: its ``hint`` is the
value this call gives it, and its ``expr`` lets the prologue evaluate it again when a guard
depends on it.

What is known for every call is not recorded (:func:`simplified`): identities (``n * 1``,
``n + 0``, ``n // 1``, ``b == True``) give the operand, constant factors of an int are
folded (``(n * 4) * 16`` is ``n * 64``, ``(n * 64) // 64`` is ``n``, ``(n * 64) % 64`` is 0:
what reshape's checks of a numel compute), and comparisons decided by a lower bound (a
symbolic dimension is at least 2, so ``d >= 0`` is True and ``d == -1`` False) give the
constant, so shape checks in meta functions add no guards they do not need (each guard is
computed again on every call).

Semantics are Python's (the implementation is the ``operator``/``math`` function itself);
the result's type is the type Python gives (``int / int`` is a float, ``n > 5`` a bool). The
prims carry no op trait: they are host computations, run by the executor that implements
them (the torch executor), never fused into device kernels.
"""

from __future__ import annotations

from ..ir.proxies import NUMBER_FUNCTIONS, NUMBER_METHODS, NUMBER_PREFIXES, NumberProxy, number_proxy
from ..ir.trace import current_equalities
from .registry import prim

__all__ = ["NUMBER_OPS", "simplified", "lower_bound"]

#: prim name (without ``py_``) -> the Python function it stands for.
NUMBER_OPS = NUMBER_FUNCTIONS
_NONE = object()
_ADD, _SUB = NUMBER_FUNCTIONS["add"], NUMBER_FUNCTIONS["sub"]


def _hint(x):
    if isinstance(x, NumberProxy):
        return x.hint if x.value is None else x.value
    return x


def lower_bound(x):
    """A lower bound of ``x`` on every call (a constant is its own), or None."""
    if type(x) is NumberProxy:
        return x.value if x.value is not None else x.lower
    return x if type(x) in (int, float) else None


def _is_const(x, v) -> bool:
    return type(x) is type(v) and x == v


def same(a, b, eqs=None) -> bool:
    """True if ``a`` and ``b`` are the same number on every call: one proxy (or one class of
    ``eqs``, sizes unified by guards), equal constants, or the same operation on the same
    operands."""
    if a is b:
        return True
    if eqs:
        ra, rb = eqs.find(a), eqs.find(b)
        if ra is rb or (type(ra) is type(rb) and type(ra) in NUMBER_PREFIXES and ra == rb):
            return True
    if type(a) is not NumberProxy or type(b) is not NumberProxy:
        return type(a) is type(b) and type(a) in NUMBER_PREFIXES and a == b
    if a.expr is None or b.expr is None or a.expr[0] is not b.expr[0] or len(a.expr[1]) != len(b.expr[1]):
        return False
    return all(same(x, y, eqs) for x, y in zip(a.expr[1], b.expr[1]))


def _offset(x):
    """``(base, k)`` with ``x == base + k`` for an int proxy made by adding/subtracting constants."""
    k = 0
    while type(x) is NumberProxy and x.expr is not None and x.expr[0] in (_ADD, _SUB) and type(x.expr[1][1]) is int \
            and type(x.expr[1][0]) is NumberProxy:
        k += x.expr[1][1] if x.expr[0] is _ADD else -x.expr[1][1]
        x = x.expr[1][0]
    return x, k


_MUL = NUMBER_FUNCTIONS["mul"]


def _scaled(x):
    """``(base, c)`` with ``x == base * c`` for an int proxy made by multiplying by constants."""
    c = 1
    while type(x) is NumberProxy and x.expr is not None and x.expr[0] is _MUL:
        a, b = x.expr[1]
        if type(b) is int and type(a) is NumberProxy:
            c, x = c * b, a
        elif type(a) is int and type(b) is NumberProxy:
            c, x = c * a, b
        else:
            break
    return x, c


def _int_proxy(x) -> bool:
    return type(x) is NumberProxy and x.python_type is int


def simplified(key: str, args, eqs=None):
    """What ``key(*args)`` is without recording it (an operand, a constant or a simpler
    recorded op), or ``_NONE``. ``eqs``: the capture's sizes unified by guards."""
    if len(args) == 1:
        (a,) = args
        if key == "abs" and type(a) is NumberProxy and (lower_bound(a) or -1) >= 0:
            return a
        return _NONE
    a, b = args
    if key == "mul" and type(a) is int and _int_proxy(b):
        a, b = b, a  # (the constant factor on the right)
    if key in ("mul", "floordiv", "mod") and type(b) is int and b != 0 and _int_proxy(a):
        base, c = _scaled(a)
        if key == "mul" and c != 1:  # (n * 4) * 16 is n * 64
            return NUMBER_METHODS["mul"](base, c * b)
        if key == "floordiv" and b > 0 and c % b == 0 and base is not a:  # (n * 64) // 16 is n * 4
            return base if c == b else NUMBER_METHODS["mul"](base, c // b)
        if key == "mod" and c % b == 0:  # (n * 64) % 16 is 0
            return 0
    if key in ("add", "sub") and type(b) is int and type(a) is NumberProxy and a.python_type is int:
        base, k = _offset(a)  # (x + 1) - 1 is x
        if base is not a:
            k += b if key == "add" else -b
            return base if k == 0 else NUMBER_METHODS["add" if k > 0 else "sub"](base, abs(k))
    if key in ("lt", "le", "gt", "ge", "eq", "ne") and same(a, b, eqs):
        return key in ("le", "ge", "eq")
    if key in ("add", "sub", "or", "xor") and _is_const(b, 0) and type(a) is NumberProxy and a.python_type is int:
        return a
    if key == "add" and _is_const(a, 0) and type(b) is NumberProxy and b.python_type is int:
        return b
    if key in ("mul", "floordiv") and _is_const(b, 1) and type(a) is NumberProxy and a.python_type is int:
        return a
    if key == "mul" and _is_const(a, 1) and type(b) is NumberProxy and b.python_type is int:
        return b
    if key == "mod" and _is_const(b, 1) and type(a) is NumberProxy and a.python_type is int:
        return 0
    if key in ("eq", "ne") and type(b) is bool and type(a) is NumberProxy and a.python_type is bool:
        return a if (key == "eq") == b else _NONE
    if key in ("lt", "le", "gt", "ge", "eq", "ne"):
        la, lb = lower_bound(a), lower_bound(b)
        if type(b) is NumberProxy or la is None:  # decided only for (bounded proxy, constant)
            if type(a) is NumberProxy or lb is None:
                return _NONE
            # constant on the left: mirror it
            return simplified({"lt": "gt", "le": "ge", "gt": "lt", "ge": "le"}.get(key, key), (b, a))
        if type(b) not in (int, float):
            return _NONE
        if la > b:
            return {"gt": True, "ge": True, "ne": True, "lt": False, "le": False, "eq": False}[key]
        if la == b:
            return {"ge": True, "lt": False}.get(key, _NONE)
    return _NONE


def _bound(key, args):
    """The lower bound of the result, from its operands' (sums and products of non-negative
    bounds, floor division by a positive constant)."""
    bounds = [lower_bound(a) for a in args]
    if None in bounds or any(lb < 0 for lb in bounds):
        return None
    if key == "add":
        return bounds[0] + bounds[1]
    if key == "mul":
        return bounds[0] * bounds[1]
    if key == "floordiv" and type(args[1]) is int and args[1] > 0:
        return bounds[0] // args[1]
    return None


def _sub_bound(args):
    a, b = args
    la = lower_bound(a)
    return la - b if la is not None and type(b) is int else None


def _define(name: str, fn):
    def meta(*args):
        for a in args:
            if not (type(a) in NUMBER_PREFIXES or isinstance(a, NumberProxy)):
                raise TypeError(f"prims.py_{name} takes Python numbers, got {a!r} ({type(a).__name__}).")
        hint = fn(*map(_hint, args))  # raises what Python raises for these values (1 // 0)
        if type(hint) not in NUMBER_PREFIXES:
            raise TypeError(f"prims.py_{name}{tuple(map(_hint, args))} gave a {type(hint).__name__}, not a number.")
        lower = _sub_bound(args) if name == "sub" else _bound(name, args) if name in ("add", "mul", "floordiv") \
            else lower_bound(args[0]) if name == "abs" else None
        return number_proxy(type(hint), hint=hint, expr=(fn, args), lower=lower)

    meta.__name__ = meta.__qualname__ = f"py_{name}"
    meta.__doc__ = f"``{fn.__module__}.{fn.__name__}`` of Python numbers, recorded (see the module docstring)."
    sym = prim(f"py_{name}")(meta)

    def method(*args):
        eqs = current_equalities()
        if eqs is not None:
            args = eqs.canonical(args)  # sizes unified by guards: one symbol
            if not any(type(a) is NumberProxy for a in args):
                return fn(*args)  # constants now (a size guarded equal to one)
        out = simplified(name, args, eqs)
        if out is not _NONE:
            return out
        if eqs is None:
            return sym(*args)
        key = (name, tuple(id(a) if type(a) is NumberProxy else (type(a), repr(a)) for a in args))
        made = eqs.made.get(key)  # the same operation on the same numbers: the number made the first time
        if made is None:
            made = eqs.made[key] = sym(*args)
        return made

    return method


for _name, _fn in NUMBER_OPS.items():
    NUMBER_METHODS[_name] = _define(_name, _fn)
del _name, _fn


def _dim_size(t, dim):
    return t.shape[dim]


@prim()
def py_dim_size(a, *, dim):
    """The size of dimension ``dim`` of tensor ``a`` as a Python int (where a trace needs a
    symbolic size it has no other way to compute: a backward reading an input's size)."""
    s = a.shape[dim]
    return s if type(s) is NumberProxy else number_proxy(int, hint=s)


#: host primitives -> their Python implementation (``thunder_core.extend.python_impls``)
PYTHON_IMPLS = {**{f"prims.py_{name}": fn for name, fn in NUMBER_OPS.items()}, "prims.py_dim_size": _dim_size}
