"""Symbolic numbers known equal: sizes unified by the guards a trace relies on.

Under ``cache="symbolic values"`` every input size is its own symbol. When the program (or an
op's shape check) needs ``x_0 == t_0`` and the guard recorded for it says it holds
(``x_0 == t_0 is True``, or ``x_0 != t_0 is False``; ``int(n)`` guarding ``n == 3``), the two
are the same number on every call the trace serves. :class:`Equalities` records that in a
union-find, *when the guard is recorded*, and from then on the trace sees one symbol:

* every tensor proxy made during the capture and its lowering whose shape holds the merged
  symbol (inputs, outputs of recorded calls, decompositions included) has its shape rewritten
  in place to the class's representative, and tensor proxies made later get it when they are
  created (``TensorProxy.__post_init__``);
* the numbers every recorded call takes (``reshape(t, shape=(t_0, 64))``) are rewritten in
  place the same way, and a symbol called later gets representatives (``Symbol.__call__``);
* number operations take the representative of each operand (``canonical``), so a later
  ``x_0 == t_0``, ``t_0 > x_0`` or ``t_0 * 2`` is decided or shared instead of guarded or
  computed again;
* the same operation on the same (representative) operands gives the proxy recorded the first
  time (``made``): ``B * T`` computed by two ops is one number.

An index of which tensor proxies and calls use each symbol (:meth:`Equalities.track`, filled as
they are made) keeps a merge proportional to the uses of the symbol that joins. So regions see
equal sizes as equal (an executor compares sizes by identity) and duplicate guards disappear.
The representative of a class is a constant if the class has one, else the
input of the trace that comes first in its signature, else the first operand that joined. The
guards themselves keep the proxies they were recorded with (the prologue checks the relation
between the inputs as they arrive), and numbers already computed from a member keep their
expression (it computes the same value).
"""

from __future__ import annotations

import operator

from .proxies import NumberProxy, TensorProxy, flat_proxies
from .size import Size

__all__ = ["Equalities"]


def _symbolic(x) -> bool:
    return type(x) is NumberProxy and x.value is None and x.hint is not None


class Equalities:
    """The classes of equal symbolic numbers of one capture (see the module docstring)."""

    def __init__(self, trace=None):
        self.trace = trace        # the capture's trace: its inputs rank representatives, its shapes are rewritten
        self._parent: dict = {}   # id(proxy) -> the proxy or constant it was merged into
        self._keep: dict = {}     # id -> proxy (ids stay unique while the capture lives)
        self.made: dict = {}      # (operation key, operands) -> the proxy computing it
        self._uses: dict = {}     # id(symbol) -> [tensor proxies and bound symbols holding it]

    def __bool__(self):
        return bool(self._parent)

    def find(self, x):
        """The representative of ``x`` (itself when it was never merged)."""
        parent = self._parent
        if type(x) is not NumberProxy or id(x) not in parent:
            return x
        root = x
        while type(root) is NumberProxy and id(root) in parent:
            root = parent[id(root)]
        while x is not root:  # path compression
            nxt = parent[id(x)]
            parent[id(x)] = root
            x = nxt
        return root

    def canonical(self, args):
        """``args`` with each symbolic number replaced by its representative."""
        if not self._parent:
            return args
        return tuple(self.find(a) if type(a) is NumberProxy else a for a in args)

    def canonical_value(self, x):
        """``x`` (nested tuples, lists, dicts and slices) with each merged number replaced by its
        representative; ``x`` itself when nothing changes."""
        t = type(x)
        if t is NumberProxy:
            return self.find(x)
        if t is tuple or t is list:
            out = t(self.canonical_value(y) for y in x)
            return x if all(a is b for a, b in zip(out, x)) else out
        if t is dict:
            out = {k: self.canonical_value(v) for k, v in x.items()}
            return x if all(out[k] is v for k, v in x.items()) else out
        if t is slice:
            parts = (x.start, x.stop, x.step)
            new = self.canonical_value(parts)
            return x if new is parts else slice(*new)
        return x

    def learn(self, p: NumberProxy, kind: str, value) -> None:
        """A guard was recorded: ``bool(p) is value`` (``kind="truth"``) or ``p == value``
        (``"equals"``). Merge what it makes equal."""
        if kind == "equals":
            if p.python_type is int and type(value) is int:
                self.union(p, value)
            return
        if p.expr is None:
            return
        fn, args = p.expr
        if len(args) == 2 and ((fn is operator.eq and value) or (fn is operator.ne and not value)):
            a, b = args
            kinds = {getattr(x, "python_type", type(x)) for x in (a, b)}
            if kinds == {int}:
                self.union(a, b)

    def track(self, obj, numbers) -> None:
        """Remember that ``obj`` (a tensor proxy, by its shape, or a bound symbol, by its
        arguments) holds the symbolic ``numbers``: a merge rewrites it."""
        uses = self._uses
        for n in numbers:
            if type(n) is NumberProxy and n.value is None:
                found = uses.get(id(n))
                if found is None:
                    uses[id(n)] = [obj]
                elif found[-1] is not obj:
                    found.append(obj)

    def union(self, a, b) -> None:
        a, b = (x.value if type(x) is NumberProxy and x.value is not None else x for x in map(self.find, (a, b)))
        if a is b or not (_symbolic(a) or _symbolic(b)):
            return
        if not _symbolic(b) or (_symbolic(a) and self._rank(b) < self._rank(a)):
            a, b = b, a
        # a represents the class (a constant, or the earlier input), b joins it
        self._parent[id(b)], self._keep[id(b)] = a, b
        for obj in self._uses.pop(id(b), ()):
            self._fix(obj)

    def _fix(self, obj) -> None:
        """Rewrite ``obj`` in place to representatives (in place: the program, the recorder and
        the traces hold the same objects) and index it under them."""
        if type(obj) is TensorProxy:
            shape = self.shape(obj.shape)
            if any(x is not y for x, y in zip(shape, obj.shape)):
                object.__setattr__(obj, "shape", Size(shape))  # frozen for users; this pass refines it
            self.track(obj, shape)
            return
        args, kwargs = self.canonical_value(obj.args), self.canonical_value(dict(obj.kwargs))
        object.__setattr__(obj, "args", args)
        object.__setattr__(obj, "kwargs", type(obj.kwargs)(kwargs))
        obj.__dict__.pop("flat_args", None)  # (a cached property of the old arguments)
        self.track(obj, obj.flat_args)

    def _rank(self, p: NumberProxy) -> tuple:
        """Which of two symbols represents their class: an input of the program before a
        computed number, earlier inputs of the capture first."""
        if p.expr is not None:
            return (2, 0)
        if self.trace is not None:
            for k, q in enumerate(flat_proxies((self.trace.args, self.trace.kwargs))):
                if q is p:
                    return (0, k)
        return (1, 0)

    def rewrite(self, trace) -> None:
        """Rewrite every tensor proxy and call of ``trace`` (decompositions included) that still
        holds a merged symbol: for calls a pass built directly (``BoundSymbol(...)``), which
        :meth:`track` did not see; ``partition`` runs it on each trace it gets."""
        if trace is None or not self._parent:
            return
        parent, seen = self._parent, set()
        merged = parent.keys()  # (ids of merged symbols: another live object's id never equals one)
        stack = [*trace.bound_symbols, *(b for scope in getattr(trace, "_scopes", ()) for b in scope)]
        for p in flat_proxies((trace.args, trace.kwargs, trace.output)):
            if type(p) is TensorProxy and not merged.isdisjoint(map(id, p.shape)):
                self._fix(p)
        while stack:  # (hot: every proxy of every call and decomposition; C-level set tests)
            b = stack.pop()
            for ps in (b.flat_args, b.flat_outs):
                for p in ps:
                    if type(p) is TensorProxy and id(p) not in seen:
                        seen.add(id(p))
                        if not merged.isdisjoint(map(id, p.shape)):
                            self._fix(p)
            if not merged.isdisjoint(map(id, b.flat_args)):
                self._fix(b)
            stack += b.subsymbols

    def shape(self, shape) -> tuple:
        """``shape`` with each symbolic size replaced by its representative."""
        return tuple(self.find(s) if type(s) is NumberProxy else s for s in shape)
