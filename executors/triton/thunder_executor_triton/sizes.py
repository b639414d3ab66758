"""Sizes in generated kernels: constants, or arguments computed on every call.

Under ``cache="symbolic values"`` a region's shapes hold symbolic numbers (``NumberProxy``
with ``value=None``: the size of an input's dim, or what arithmetic makes of sizes), and so
may its scalar operands (``x.mean(-1)`` divides by the row length ``x_1``). A kernel generated
for such a region takes each symbolic number as an ``int``/``float`` argument (``s0``,
``s1``...) instead of baking it in, so one compiled kernel serves every size, and the
launcher computes the arguments from the call's inputs: a number passed to the region, the
size of an input tensor's dim, or the Python function the number was computed with (its
``expr``), on the values it reads. Static sizes stay literals, as in a kernel for constant
shapes.

Sizes are compared by *key*: an ``int`` for a static size, ``("s", id)`` for a class of
symbolic numbers known equal. Sizes the program's guards made equal are already one proxy
(the core unifies them when the guard is recorded, and a size guarded equal to a constant is
that constant), so two sizes are the same class when they are the same proxy, or the same
computation on the same sizes (``B * T`` recorded twice). The values of the arguments on each
call come from ``thunder_core.extend.RegionNumbers``, as for every executor; when one class
has several members the launcher checks they agree on every call (a clear error, never a
wrong result).

Nothing here compares proxies with ``==`` (outside a trace that would answer from this call's
hints, unguarded): equality is structural.
"""

from __future__ import annotations

import math

from thunder_core.extend import NumberProxy, RegionNumbers

from .ops import Unsupported


def _symbolic(x) -> bool:
    return type(x) is NumberProxy and x.value is None


class Dims:
    """The sizes and symbolic numbers of one region: keys, kernel expressions, launch values."""

    def __init__(self, region):
        self.region = region
        self._parent: dict = {}    # id(proxy) -> id(parent proxy)
        self._proxy: dict = {}     # id -> proxy
        self.names: dict = {}      # id(root) -> argument name, in order of first use
        self._exprs: dict = {}     # (function, keys of its operands) -> id(root): one class per computation

    # ---------------------------------------------------------------- classes of equal sizes

    def _find(self, p) -> int:
        i = id(p)
        self._proxy.setdefault(i, p)
        while self._parent.get(i, i) != i:
            i = self._parent[i]
        return i

    def _union(self, a, b) -> None:
        ra, rb = self._find(a), self._find(b)
        if ra != rb:
            self._parent[rb] = ra

    def key(self, d):
        """The comparable key of a size or number: its int, or its symbolic class. Two numbers
        computed by the same function from the same sizes (``B * T`` recorded twice) are one
        class."""
        if type(d) is NumberProxy:
            if d.value is not None:
                return d.value
            root = self._find(d)
            if d.expr is not None and root == id(d):
                fn, args = d.expr
                try:
                    sig = (fn, tuple(self.key(a) if type(a) is NumberProxy else ("c", type(a), a) for a in args))
                    hash(sig)
                except (TypeError, Unsupported):
                    sig = None
                if sig is not None:
                    other = self._exprs.setdefault(sig, root)
                    if other != root:
                        self._union(self._proxy[other], d)
                        root = self._find(d)
            return ("s", root)
        if isinstance(d, int):
            return int(d)
        raise Unsupported(f"the size {d!r}")

    def shape(self, p) -> tuple:
        return tuple(self.key(d) for d in p.shape)

    def show(self, keys) -> str:
        """Sizes (keys) as the user reads them: ``[x_0, 64]``."""
        return "[" + ", ".join(self._proxy[k[1]].name if isinstance(k, tuple) else str(k) for k in keys) + "]"

    @property
    def symbolic(self) -> bool:
        return bool(self.names)

    # ---------------------------------------------------------------- kernel expressions

    def text(self, key) -> str:
        """A size (a key) in kernel code: a literal, or the argument that carries it."""
        if isinstance(key, tuple):
            root = key[1]
            if root not in self.names:
                self.names[root] = f"s{len(self.names)}"
            return self.names[root]
        return str(key)

    def prod(self, keys) -> str:
        """The product of sizes in kernel code (``"64"``, ``"(s0 * 64)"``)."""
        const = math.prod(k for k in keys if not isinstance(k, tuple))
        syms = [self.text(k) for k in keys if isinstance(k, tuple)]
        if not syms:
            return str(const)
        terms = syms + ([str(const)] if const != 1 else [])
        return terms[0] if len(terms) == 1 else "(" + " * ".join(terms) + ")"

    def number(self, p) -> tuple:
        """A number operand (a NumberProxy) as a kernel value ``(expression, kind)``."""
        kind = {int: "i", float: "f", bool: "b"}.get(p.python_type)
        if kind is None:
            raise Unsupported(f"the {p.python_type.__name__} number {p.name}")
        k = self.key(p)
        if not isinstance(k, tuple):
            from .ops import literal

            return literal(p.python_type(k))
        return self.text(k), kind

    # ---------------------------------------------------------------- values on each call

    def args(self) -> list:
        """``[(name, python type)]`` of the size and number arguments, in signature order."""
        order = sorted(self.names.items(), key=lambda kv: int(kv[1][1:]))
        return [(name, self._proxy[root].python_type) for root, name in order]

    def hints(self) -> dict:
        """This trace's values of the arguments (for ahead-of-time compiles; a number known only
        at run time, such as ``t.item()``, counts as 2)."""
        return {name: self._proxy[root].hint if self._proxy[root].hint is not None else 2
                for root, name in self.names.items()}

    def estimate(self, keys) -> int:
        """The product of sizes with this trace's values (hints) for the symbolic ones: for
        heuristics and default choices only, never for what a kernel relies on."""
        return math.prod((self._proxy[k[1]].hint or 2) if isinstance(k, tuple) else k for k in keys)

    def value(self, key, sizes: dict) -> int:
        return sizes[self.names[key[1]]] if isinstance(key, tuple) else key

    def product(self, keys, sizes: dict) -> int:
        return math.prod(self.value(k, sizes) for k in keys)

    def resolver(self):
        """``resolve(inputs) -> {argument name: value}`` for a call of the region with
        ``inputs`` (its ``region.inputs`` at run time), checking on every call that the
        members of a class agree. Raises Unsupported if an argument cannot be computed from
        the region's inputs."""
        numbers = RegionNumbers(self.region)
        members: dict = {}
        for p in list(self._proxy.values()):
            members.setdefault(self._find(p), []).append(p)
        getters, checks = [], []   # checks: (name of the first member, its getter, another member, its getter)
        for root, name in self.names.items():
            found = [(p, g) for p in members.get(root, [self._proxy[root]]) if (g := numbers.getter(p)) is not None]
            if not found:
                raise Unsupported(f"the size {self._proxy[root].name} cannot be computed from the region's inputs")
            (p0, g0), rest = found[0], found[1:]
            getters.append((name, g0))
            checks += [(p0.name, g0, p.name, g) for p, g in rest]

        def resolve(xs) -> dict:
            sizes = {name: g(xs) for name, g in getters}
            for what, expected, name, g in checks:
                if g(xs) != expected(xs):
                    raise RuntimeError(f"the Triton kernel of this region assumed {name} == {what} (the same "
                                       f"computation), but this call has {g(xs)} and {expected(xs)}")
            return sizes

        return resolve
