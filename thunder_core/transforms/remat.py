"""Which forward values the backward gets saved, and which it recomputes: a min-cut.

The backward reads some forward values. Saving all of them holds every activation until the
backward runs; eager PyTorch does exactly that. But an elementwise op is cheaper to run again
in the backward than its output is to keep: ``gelu(h)`` can be recomputed from ``h``, and if
the backward needs ``h`` anyway, saving ``gelu(h)`` as well wastes its bytes.

The choice is a minimum cut (the method of AOTAutograd's min-cut rematerialisation). Each
forward tensor ``v`` becomes an edge ``v_in -> v_out`` whose capacity is what saving it costs
(its bytes; next to nothing for forward inputs and outputs, which stay alive anyway). Values
that cannot be recomputed (produced by matmuls, reductions, random or opaque ops...: the ops'
traits decide, see :func:`recomputable`) hang from the source; a recomputable op's output
hangs from its inputs' ``v_out``; values the backward reads hang into the sink. Every
source-to-sink path is a way for the backward to obtain a value, so a cut is a set of values
to save from which everything needed can be recomputed, and the minimum cut saves the fewest
bytes.
"""

from __future__ import annotations

import math
from collections import deque

from ..ir import TensorProxy, flat_proxies
from ..ir.traits import (ELEMENTWISE, INPLACE, NORMALIZATION, RANDOM, REDUCTION, SHAPE, TRANSCENDENTAL, VIEW,
                         has_trait)

__all__ = ["choose_saved", "recomputable", "fusible", "saved_bytes"]

#: neither recomputed nor fused: random draws, writes, opaque calls
_UNFUSIBLE = frozenset({RANDOM, INPLACE, "opaque"})
#: never recomputed: those, and transcendental math (on a CPU, recomputing it over a large
#: tensor costs more time than reading its saved output back, unlike +, *, where and conversions)
_NEVER = _UNFUSIBLE | {TRANSCENDENTAL}
#: recomputed in a *fused* backward, where a recomputed op costs no memory traffic of its own
_CHEAP = frozenset({ELEMENTWISE, SHAPE})
#: what a fusing executor can compute inside a fused kernel (not a library kernel: matmuls...)
_FUSIBLE = frozenset({ELEMENTWISE, SHAPE, VIEW, REDUCTION, NORMALIZATION})
#: plain copies of their input, never worth recomputing: a policy for these two ops, not a
#: trait (other shape ops, cat or flip, are recomputed)
_COPIES = frozenset({"ltorch.contiguous", "ltorch.clone"})
_INF = 1 << 62


def recomputable(bsym, fusing: bool = True) -> bool:
    """May the backward run ``bsym`` again instead of getting its output saved? Decided by
    the op's traits: views always; elementwise (not transcendental) and shape ops only when
    an executor fuses the backward (``fusing``): op by op, a recomputed elementwise op is a
    full extra pass over memory, slower than eager."""
    tags = bsym.sym.tags
    if tags & _NEVER or bsym.sym.id in _COPIES:
        return False
    if VIEW in tags:
        return True
    return fusing and not tags.isdisjoint(_CHEAP)


def size_estimate(s) -> int:
    """A size for estimates: a symbolic size counts as this trace's value (its hint; 2 when
    known only at run time). Never what runs: plain arithmetic, no number ops recorded or guarded."""
    return s if type(s) is int else (s.hint if s.hint is not None else 2)


def numel(p) -> int:
    """Elements of the tensor proxy ``p`` for estimates (see :func:`size_estimate`)."""
    return math.prod(map(size_estimate, p.shape))


def nbytes(p) -> int:
    return numel(p) * p.dtype.itemsize if isinstance(p, TensorProxy) else 0


def saved_bytes(saved) -> int:
    return sum(nbytes(p) for p in saved)


def fusible(bsym) -> bool:
    """Could a fusing executor compute ``bsym`` inside a fused kernel (as opposed to a library
    kernel such as a matmul, which reads its inputs from memory)? Elementwise, shape, view,
    reduction and normalization ops can, unless random, in-place or opaque."""
    tags = bsym.sym.tags
    return not tags.isdisjoint(_FUSIBLE) and tags.isdisjoint(_UNFUSIBLE)


def materialized(backward, producer) -> set:
    """Ids of the values the backward ``backward`` hands to non-fusible ops (matmuls...),
    following views back to what they view: these exist in memory whatever happens, so
    recomputing them would only add a pass over memory (AOTAutograd bans it too)."""
    made_in_backward = {id(o): b for b in backward for o in b.flat_outs}
    stack = [p for b in backward if not fusible(b) for p in b.flat_args if isinstance(p, TensorProxy)]
    out = set()
    while stack:
        p = stack.pop()
        if id(p) in out:
            continue
        out.add(id(p))
        b = made_in_backward.get(id(p)) or producer.get(id(p))
        if b is not None and has_trait(b, VIEW):
            stack += [a for a in b.flat_args if isinstance(a, TensorProxy)]
    return out


def choose_saved(joint, needed, fusing: bool = True, backward=()) -> tuple[list, list]:
    """(values to save, forward bound symbols to recompute at the start of the backward)
    such that the backward can obtain every value in ``needed``; ``fusing``: see recomputable;
    ``backward``: the backward's bound symbols (values they hand to library kernels are saved
    rather than recomputed)."""
    producer = {}
    for b in joint.bound_symbols:
        for o in b.flat_outs:
            producer[id(o)] = b
    banned = materialized(backward, producer) if fusing else set()
    alive = {id(p) for p in (*joint.args, *joint.kwargs.values())}
    alive |= {id(p) for p in flat_proxies(joint.output)}
    tensors = {}  # id -> proxy, every tensor value the cut may choose
    order = []

    def add(p):
        if id(p) not in tensors:
            tensors[id(p)] = p
            order.append(p)

    for p in (*joint.args, *joint.kwargs.values()):
        if isinstance(p, TensorProxy):
            add(p)
    for b in joint.bound_symbols:
        for o in b.flat_outs:
            if isinstance(o, TensorProxy):
                add(o)
    index = {id(p): k for k, p in enumerate(order)}
    g = _Graph(2 * len(order) + 2)
    src, sink = 2 * len(order), 2 * len(order) + 1
    for k, p in enumerate(order):
        # keeping an input or an output costs (almost) nothing: it is alive anyway
        cost = 1 if id(p) in alive else nbytes(p) + 1
        g.edge(2 * k, 2 * k + 1, cost)
        b = producer.get(id(p))
        if b is None or not recomputable(b, fusing) or (id(p) in banned and not has_trait(b, VIEW)) or any(
                not isinstance(a, TensorProxy) and id(a) in producer for a in b.flat_args):
            g.edge(src, 2 * k, _INF)
        else:
            for a in b.flat_args:
                if isinstance(a, TensorProxy):
                    g.edge(2 * index[id(a)] + 1, 2 * k, _INF)
    others = []
    for p in needed:
        if id(p) in index:
            g.edge(2 * index[id(p)] + 1, sink, _INF)
        else:
            others.append(p)  # numbers
    side = g.source_side(src, sink)
    saved = [p for k, p in enumerate(order) if side[2 * k] and not side[2 * k + 1]]
    saved_ids = {id(p) for p in saved}

    recompute, seen = [], set()

    def obtain(p):
        # numbers are not recomputed: they come from the forward (below), so a size the forward
        # computed from a tensor (prims.py_dim_size) never pulls that tensor's producer in
        if id(p) in saved_ids or id(p) not in producer or not isinstance(p, TensorProxy):
            return
        b = producer[id(p)]
        if id(b) in seen:
            return
        seen.add(id(b))
        for a in b.flat_args:
            obtain(a)
        recompute.append(b)

    for p in needed:
        obtain(p)
    position = {id(b): i for i, b in enumerate(joint.bound_symbols)}
    recompute.sort(key=lambda b: position[id(b)])
    defined = {id(o) for b in recompute for o in b.flat_outs}
    for b in recompute:  # numbers the recomputed ops read come from the forward too
        others += [a for a in b.flat_args if not isinstance(a, TensorProxy) and id(a) not in defined]
    recompute = [b.replace(tags=b.tags | {"recomputed"}) for b in recompute]
    extra, seen_ids = [], set(saved_ids)
    for p in others:
        if id(p) not in seen_ids:
            seen_ids.add(id(p))
            extra.append(p)
    return saved + extra, recompute


class _Graph:
    """A flow network with Dinic's max-flow; ``source_side`` gives the minimum cut."""

    def __init__(self, n):
        self.n, self.head = n, [[] for _ in range(n)]
        self.to, self.cap = [], []

    def edge(self, u, v, c):
        self.head[u].append(len(self.to))
        self.to.append(v)
        self.cap.append(c)
        self.head[v].append(len(self.to))
        self.to.append(u)
        self.cap.append(0)

    def _levels(self, s, t):
        level = [-1] * self.n
        level[s] = 0
        q = deque([s])
        while q:
            u = q.popleft()
            for e in self.head[u]:
                if self.cap[e] > 0 and level[self.to[e]] < 0:
                    level[self.to[e]] = level[u] + 1
                    q.append(self.to[e])
        return level

    def source_side(self, s, t) -> list[bool]:
        to, cap, head = self.to, self.cap, self.head
        while True:
            level = self._levels(s, t)
            if level[t] < 0:
                return [lv >= 0 for lv in level]
            it = [0] * self.n
            while True:  # blocking flow by iterative DFS
                pushed = self._push(s, t, level, it)
                if not pushed:
                    break

    def _push(self, s, t, level, it):
        to, cap, head = self.to, self.cap, self.head
        path, u = [], s
        while u != t:
            edges = head[u]
            while it[u] < len(edges):
                e = edges[it[u]]
                if cap[e] > 0 and level[to[e]] == level[u] + 1:
                    break
                it[u] += 1
            else:
                if not path:
                    return 0
                level[u] = -1  # dead end: retreat
                e = path.pop()
                u = to[e ^ 1]
                it[u] += 1
                continue
            path.append(e)
            u = to[e]
        f = min(cap[e] for e in path)
        for e in path:
            cap[e] -= f
            cap[e ^ 1] += f
        return f
