"""Symbolic numbers in a region: which ones it has, their values on each call, the region
made concrete.

Under ``cache="symbolic values"`` (the default) a region's shapes hold symbolic sizes
(``NumberProxy`` with ``value=None``: ``x_0``, or what arithmetic made of sizes, ``i7 = x_0 *
x_1``) and its arguments may hold symbolic numbers. An executor either takes them as run-time
arguments (a kernel with size arguments, a fusion definition with symbolic extents) or
specialises per concrete shape behind its own cache (a library graph built for fixed dims).
:class:`RegionNumbers` serves both, the same way for every executor:

* ``symbols``: the region's symbolic numbers, each once (its inputs' sizes, its arguments,
  the sizes of what it computes);
* ``resolver()``: a function of a call's inputs (``region.inputs`` at run time) giving their
  values: a number passed in, the size of an input tensor's dim, or the number's recorded
  computation (``expr``) on those;
* ``hints()``: their values in the trace (the example's: for planning, costs and
  ahead-of-time artifacts);
* ``concrete(values)``: the region with those values in place of the symbols (static shapes
  and constant arguments; its number primitives dropped), for an executor whose code path
  takes static shapes: spec it, build its graph, key its cache with ``values``.

Never compare, ``int()`` or format a symbolic number in an executor: outside a trace that
answers from this trace's hint, with no guard, and the next call may have other sizes.
"""

from __future__ import annotations

from typing import Callable, Sequence

from ..ir import BoundSymbol, NumberProxy, TensorProxy
from .claims import Region

__all__ = ["RegionNumbers"]


def _symbolic(x) -> bool:
    """A number with a value per call and a hint (a number known only at run time, from
    ``t.item()``, is neither: it stays a proxy, an input the executor gets per call)."""
    return type(x) is NumberProxy and x.value is None and x.hint is not None


class RegionNumbers:
    """The symbolic numbers of ``region`` (a :class:`Region`, or one bound symbol standing
    for the region of itself); see the module docstring.

    :ivar symbols: the distinct symbolic ``NumberProxy`` s the region refers to, in order of
        first appearance (inputs first). Empty for a region with static shapes.

    Example (an executor that compiles per concrete shape)::

        def lower(region):
            numbers = RegionNumbers(region)
            values_of = numbers.resolver()   # raises ValueError if a size cannot be computed
            compiled = {}

            def run(*inputs):
                values = values_of(inputs)   # e.g. (4096, 50257): this call's sizes
                fn = compiled.get(values)
                if fn is None:
                    fn = compiled[values] = build(numbers.concrete(values))
                return fn(*inputs)
            return run
    """

    def __init__(self, region):
        if isinstance(region, BoundSymbol):
            seen, inputs = set(), []
            for p in region.flat_args:
                if id(p) not in seen:
                    seen.add(id(p))
                    inputs.append(p)
            region = Region((region,), tuple(inputs), region.flat_outs)
        self.region = region
        found: dict = {}
        made: dict = {}  # id(number) -> the number primitive computing it in the region

        def add(ps):
            for p in ps:
                if _symbolic(p):
                    found.setdefault(id(p), p)
                elif type(p) is TensorProxy:
                    for s in p.shape:
                        if _symbolic(s):
                            found.setdefault(id(s), s)

        add(region.inputs)
        stack = list(reversed(region.bsyms))
        while stack:
            b = stack.pop()
            add(b.flat_args)
            add(b.flat_outs)
            if b.sym.id.startswith("prims.py_"):
                made.update((id(o), b) for o in b.flat_outs)
            stack += reversed(b.subsymbols)
        add(region.outputs)
        self.symbols: tuple = tuple(found.values())
        self._made = made

    def hints(self) -> tuple:
        """The symbols' values in the trace (the example's)."""
        return tuple(p.hint for p in self.symbols)

    def getter(self, p) -> Callable[[Sequence], object] | None:
        """``get(inputs) -> value`` of the number ``p`` on a call with ``inputs`` (the
        region's inputs, in order), or None when it cannot be computed from them."""
        return self._getters().get(id(p)) if _symbolic(p) else (lambda xs, v=getattr(p, "value", p): v)

    def resolver(self) -> Callable[[Sequence], tuple]:
        """``values(inputs) -> tuple``: every symbol's value on a call (in ``symbols``'
        order). Raises ValueError, naming the number, if one cannot be computed from the
        region's inputs."""
        getters = self._getters()
        missing = [p.name for p in self.symbols if id(p) not in getters]
        if missing:
            raise ValueError(f"the symbolic number(s) {', '.join(missing)} cannot be computed from the region's inputs")
        gets = tuple(getters[id(p)] for p in self.symbols)
        return lambda xs: tuple(g(xs) for g in gets)

    def _getters(self) -> dict:
        cached = self.__dict__.get("_cache")
        if cached is not None:
            return cached
        inputs = self.region.inputs
        where: dict = {}
        for k, p in enumerate(inputs):
            if type(p) is NumberProxy:
                where.setdefault(id(p), lambda xs, k=k: xs[k])
            elif type(p) is TensorProxy:
                for d, s in enumerate(p.shape):
                    if type(s) is NumberProxy:
                        where.setdefault(id(s), lambda xs, k=k, d=d: xs[k].shape[d])
        position = {id(p): k for k, p in enumerate(inputs)}

        def source(p, seen):
            if not _symbolic(p):
                return lambda xs, v=p.value if type(p) is NumberProxy else p: v
            if id(p) in where:
                return where[id(p)]
            if id(p) in seen:
                return None
            b = self._made.get(id(p))
            get = None
            if b is not None and b.sym.id == "prims.py_dim_size":  # the size of a tensor the region reads
                t, d = b.args[0], b.kwargs.get("dim", b.args[1] if len(b.args) > 1 else None)
                if id(t) in position:
                    get = lambda xs, k=position[id(t)], d=d: xs[k].shape[d]  # noqa: E731
            elif p.expr is not None:
                fn, args = p.expr
                parts = [source(a, (*seen, id(p))) if type(a) is NumberProxy else (lambda xs, a=a: a) for a in args]
                if None not in parts:
                    get = lambda xs, fn=fn, parts=parts: fn(*(g(xs) for g in parts))  # noqa: E731
            if get is not None:
                where[id(p)] = get
            return get

        for p in self.symbols:
            source(p, ())
        self.__dict__["_cache"] = where
        return where

    def concrete(self, values: Sequence | None = None):
        """The region (or bound symbol) with ``values`` (one per symbol; None: the hints) in
        place of the symbols: static shapes, constant number arguments, its number
        primitives dropped. Its inputs keep their positions (a symbolic number input becomes a
        constant ``NumberProxy`` of the same name)."""
        values = self.hints() if values is None else tuple(values)
        if len(values) != len(self.symbols):
            raise ValueError(f"{len(values)} values for {len(self.symbols)} symbolic numbers")
        if not self.symbols:
            return self.region
        env = {id(p): p.python_type(v) for p, v in zip(self.symbols, values)}
        memo: dict = {}

        def sub(x, as_proxy=False):
            t = type(x)
            if t is NumberProxy:
                if id(x) not in env:
                    return x
                if not as_proxy:
                    return env[id(x)]
                if id(x) not in memo:
                    memo[id(x)] = NumberProxy(x.name, x.python_type, env[id(x)])
                return memo[id(x)]
            if t is TensorProxy:
                if id(x) not in memo:
                    shape = tuple(sub(s) for s in x.shape)
                    memo[id(x)] = x.replace(shape=shape) if any(a is not b for a, b in zip(shape, x.shape)) else x
                return memo[id(x)]
            if t in (tuple, list):
                return t(sub(y, as_proxy) for y in x)
            if t is dict:
                return {k: sub(v, as_proxy) for k, v in x.items()}
            return x

        def bsyms(bs):
            return tuple(b.replace(args=sub(b.args), kwargs=sub(dict(b.kwargs)), output=sub(b.output, True),
                                   subsymbols=bsyms(b.subsymbols))
                         for b in bs if not b.sym.id.startswith("prims.py_"))

        region = self.region
        return Region(bsyms(region.bsyms), tuple(sub(p, True) for p in region.inputs),
                      tuple(sub(p, True) for p in region.outputs), region.name)

    def concrete_bsym(self, values: Sequence | None = None) -> BoundSymbol:
        """For a ``RegionNumbers`` of one bound symbol: that symbol made concrete."""
        (b,) = self.concrete(values).bsyms
        return b

