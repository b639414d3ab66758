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
symbolic numbers known equal. Two symbolic sizes are the same class when they are the same
proxy, or when the region's own primitives recorded that they are equal (``prims.py_eq(a, b)``
whose outcome was True while tracing, or ``py_ne`` that was False: how shape checks in the ops' metas record that a
weight's ``w_0`` equals the input's ``x_1``). A size equal to a constant that way becomes the
constant. The launcher checks these equalities on every call (a clear error, never a wrong
result, if a call breaks one); the prologue's guards normally make that impossible.

Nothing here compares proxies with ``==`` (outside a trace that would answer from this call's
hints, unguarded): equality is structural.
"""

from __future__ import annotations

import math

from thunder_core.extend import NumberProxy, TensorProxy

from .ops import Unsupported


def _symbolic(x) -> bool:
    return type(x) is NumberProxy and x.value is None


class Dims:
    """The sizes and symbolic numbers of one region: keys, kernel expressions, launch values."""

    def __init__(self, region, leaf_list):
        self.region = region
        self._parent: dict = {}    # id(proxy) -> id(parent proxy)
        self._proxy: dict = {}     # id -> proxy
        self._const: dict = {}     # id(root) -> the static int its class equals
        self._made = {id(b.flat_outs[0]): b for b in leaf_list if b.sym.id.startswith("prims.py_") and b.flat_outs}
        self.names: dict = {}      # id(root) -> argument name, in order of first use
        self._exprs: dict = {}     # (function, keys of its operands) -> id(root): one class per computation
        for b in leaf_list:  # a == b that held (True), or a != b that did not (False)
            outcome = getattr(b.flat_outs[0], "hint", None) if b.flat_outs else None
            if (b.sym.id, outcome) in (("prims.py_eq", True), ("prims.py_ne", False)):
                self._union(*b.args[:2])

    # ---------------------------------------------------------------- classes of equal sizes

    def _find(self, p) -> int:
        i = id(p)
        self._proxy.setdefault(i, p)
        while self._parent.get(i, i) != i:
            i = self._parent[i]
        return i

    def _union(self, a, b) -> None:
        if not (_symbolic(a) or _symbolic(b)):
            return
        if not _symbolic(a):
            a, b = b, a
        ra = self._find(a)
        if _symbolic(b):
            rb = self._find(b)
            if ra != rb:
                self._parent[rb] = ra
                if rb in self._const:
                    self._const.setdefault(ra, self._const[rb])
        elif isinstance(b, int) and not isinstance(b, bool):
            self._const.setdefault(ra, int(b))
        elif type(b) is NumberProxy and isinstance(b.value, int):
            self._const.setdefault(ra, b.value)

    def key(self, d):
        """The comparable key of a size or number: its int, or its symbolic class. Two numbers
        computed by the same function from the same sizes (``B * T`` recorded twice) are one
        class."""
        if type(d) is NumberProxy:
            if d.value is not None:
                return d.value
            root = self._find(d)
            if d.expr is not None and root == id(d) and root not in self._const:
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
            return self._const.get(root, ("s", root))
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
        ``inputs`` (its ``region.inputs`` at run time), checking on every call the
        equalities the kernel relies on. Raises Unsupported if an argument cannot be computed
        from the region's inputs."""
        inputs = self.region.inputs
        where: dict = {}
        for k, p in enumerate(inputs):
            if type(p) is NumberProxy:
                where.setdefault(id(p), lambda xs, k=k: xs[k])
            elif isinstance(p, TensorProxy):
                for d, s in enumerate(p.shape):
                    if type(s) is NumberProxy:
                        where.setdefault(id(s), lambda xs, k=k, d=d: xs[k].shape[d])

        def source(p, seen=()):
            if not _symbolic(p):
                return (lambda xs, v=p.value if type(p) is NumberProxy else p: v)
            if id(p) in where:
                return where[id(p)]
            if id(p) in seen:
                return None
            made = self._made.get(id(p))
            if made is not None and made.sym.id == "prims.py_dim_size":
                t, d = made.args[0], made.kwargs.get("dim", made.args[1] if len(made.args) > 1 else None)
                get = source_of_dim(t, d)
            elif p.expr is not None:
                fn, args = p.expr
                getters = [source(a, (*seen, id(p))) if type(a) is NumberProxy else (lambda xs, a=a: a) for a in args]
                get = None if None in getters else (lambda xs, fn=fn, gs=getters: fn(*(g(xs) for g in gs)))
            else:
                get = None
            if get is not None:
                where[id(p)] = get
            return get

        def source_of_dim(t, d):
            for k, p in enumerate(inputs):
                if p is t:
                    return lambda xs, k=k, d=d: xs[k].shape[d]
            return None

        members: dict = {}
        for p in list(self._proxy.values()):
            members.setdefault(self._find(p), []).append(p)
        getters, checks = [], []   # checks: (what it must equal, its getter, the proxy, its getter)
        for root, name in self.names.items():
            found = [(p, g) for p in members.get(root, [self._proxy[root]]) if (g := source(p)) is not None]
            if not found:
                raise Unsupported(f"the size {self._proxy[root].name} cannot be computed from the region's inputs")
            (p0, g0), rest = found[0], found[1:]
            getters.append((name, g0))
            checks += [(p0.name, g0, p.name, g) for p, g in rest]
        for root, const in self._const.items():
            for p in members.get(root, []):
                if (g := source(p)) is not None:
                    checks.append((str(const), lambda xs, c=const: c, p.name, g))

        def resolve(xs) -> dict:
            sizes = {name: g(xs) for name, g in getters}
            for what, expected, name, g in checks:
                if g(xs) != expected(xs):
                    raise RuntimeError(f"the Triton kernel of this region assumed {name} == {what} (recorded while "
                                       f"tracing), but this call has {g(xs)} and {expected(xs)}")
            return sizes

        return resolve
