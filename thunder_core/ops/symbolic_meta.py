"""Fake-tensor meta functions on symbolic shapes: torch's own ShapeEnv.

An op whose meta is a fake-tensor run (``registry.fake_meta``: ops without a decomposition,
opaque torch calls) would need concrete sizes. Under ``cache="symbolic values"`` its inputs'
symbolic sizes (and symbolic int arguments) become SymInts of a fresh
``torch.fx.experimental.symbolic_shapes.ShapeEnv``, the op runs on fake tensors with those
sizes, and the results come back into the trace:

* each output size is a sympy expression over the inputs' symbols, rebuilt as number
  arithmetic on the proxies (``s0 * 3`` -> ``prims.py_mul(x_0, 3)``);
* each guard torch recorded while running (``Eq(s0, s1)``, ``s0 > 5``, a specialisation
  ``Eq(s0, 7)``) becomes a predicate on the proxies, guarded like the program's own branches.

What does not translate (an expression kind not in :data:`_FUNCS`, a data-dependent size)
raises :class:`Untranslatable`; the caller falls back to concrete sizes, guarded.
"""

from __future__ import annotations

import operator

from ..ir.proxies import NumberProxy, TensorProxy, flat_proxies

__all__ = ["Untranslatable", "has_symbolic", "symbolic_fake_run"]


class Untranslatable(Exception):
    """A symbolic result or guard torch produced that thunder_core cannot express."""


def has_symbolic(x) -> bool:
    for p in flat_proxies(x):
        if type(p) is NumberProxy and p.symbolic:
            return True
        if type(p) is TensorProxy and any(type(s) is NumberProxy for s in p.shape):
            return True
    return False


def _env():
    from torch._subclasses.fake_tensor import FakeTensorMode
    from torch.fx.experimental.symbolic_shapes import ShapeEnv

    env = ShapeEnv()
    return env, FakeTensorMode(shape_env=env, allow_non_fake_inputs=True)


class _Symbols:
    """Proxy <-> sympy symbol for one run."""

    def __init__(self, env):
        self.env, self.of_proxy, self.of_symbol = env, {}, {}

    def symint(self, p: NumberProxy, size: bool):
        hit = self.of_proxy.get(id(p))
        if hit is None:
            from torch._dynamo.source import ConstantSource
            from torch.fx.experimental.symbolic_shapes import DimDynamic

            sym = self.env.create_symbol(p.hint, source=ConstantSource(p.name), dynamic_dim=DimDynamic.DYNAMIC,
                                         positive=True if size else None)
            hit = self.of_proxy[id(p)] = self.env.create_symintnode(sym, hint=p.hint)
            self.of_symbol[sym] = p
        return hit


_FUNCS = {
    "Add": lambda *a: _fold(operator.add, a), "Mul": lambda *a: _fold(operator.mul, a),
    "FloorDiv": operator.floordiv, "PythonMod": operator.mod, "Mod": operator.mod,
    "CleanDiv": operator.floordiv, "IntTrueDiv": operator.truediv,
    "Max": lambda *a: _fold(max, a), "Min": lambda *a: _fold(min, a),
    "Equality": operator.eq, "Unequality": operator.ne, "StrictLessThan": operator.lt, "LessThan": operator.le,
    "StrictGreaterThan": operator.gt, "GreaterThan": operator.ge,
    "Not": operator.not_,
}


def _fold(fn, args):
    out = args[0]
    for a in args[1:]:
        out = fn(out, a)
    return out


def _number(expr, syms):
    """A sympy expression over the run's symbols as arithmetic on the proxies (recorded)."""
    import sympy  # (here: ~0.2 s to import, needed only once torch's symbolic shapes ran, which imported it)

    if isinstance(expr, sympy.Symbol):
        p = syms.of_symbol.get(expr)
        if p is None:
            raise Untranslatable(f"an unknown symbol {expr} (a data-dependent size)")
        return p
    if expr is sympy.true or expr is sympy.false:
        return bool(expr)
    if isinstance(expr, sympy.Integer):
        return int(expr)
    if isinstance(expr, sympy.Pow) and isinstance(expr.exp, sympy.Integer) and expr.exp >= 0:
        return _fold(operator.mul, [_number(expr.base, syms)] * int(expr.exp)) if expr.exp else 1
    if isinstance(expr, (sympy.And, sympy.Or)):
        raise Untranslatable(f"a boolean combination {expr}")
    fn = _FUNCS.get(type(expr).__name__)
    if fn is None:
        raise Untranslatable(f"{type(expr).__name__} ({expr})")
    return fn(*(_number(a, syms) for a in expr.args))


def _size(s, env, syms):
    if isinstance(s, int):
        return s
    expr = env.replace(s.node.expr)
    return _number(expr, syms)


def symbolic_fake_run(call, pos, kw, named: bool):
    """``call(fake pos, fake kw)`` on symbolic fake tensors; see the module docstring."""
    from .registry import fake_args, from_fake

    env, mode = _env()
    syms = _Symbols(env)

    def number(p, size):  # symbolic ints (sizes and numbers) become the run's SymInts
        return syms.symint(p, size) if p.symbolic and p.python_type is int else p.specialize()

    fpos, fkw, swap = fake_args(pos, kw, mode, number)
    with mode:
        out = call(fpos, fkw)
    result = from_fake(out, named, swap, size=lambda s: _size(s, env, syms))
    # what torch assumed about the sizes, as predicates on the proxies (guarded by bool())
    for g in env.guards:
        cond = _number(g.expr, syms)
        if type(cond) is not bool and not bool(cond):
            raise Untranslatable(f"the guard {g.expr} does not hold for this call")
    for sym, value in env.replacements.items():
        p = syms.of_symbol.get(sym)
        if p is not None:
            v = _number(value, syms)
            if v is not p and not bool(p == v):
                raise Untranslatable(f"the replacement {sym} -> {value} does not hold for this call")
    return result
