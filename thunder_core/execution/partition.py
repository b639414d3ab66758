"""The partitioner: the cheapest cover of a trace by executors' claims.

Dynamic programming over the top-level bound symbols: at each position, take a claim that
starts there (a symbol alone, or a region), or replace the symbol by its decomposition and
partition that recursively (claims "at any level of a symbol's decomposition"). The total
estimated cost is minimised; on equal cost the executor named earlier in ``executors=[...]``
wins. Linear in the number of bound symbols times claims per position.

``partition`` returns the execution trace, the implementation table and an ``Explanation``
(every position's competing claims with their costs and the winner) for ``tc.explain``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..ir import BoundSymbol, Trace, flat_proxies
from .claims import Claim, region_boundary  # noqa: F401 (Claim re-exported)
from .cost import CostModel


class LoweringError(RuntimeError):
    pass


@dataclass
class Decision:
    where: str                   # the bound symbols covered, as printed
    winner: str                  # executor (or "decomposed")
    cost_us: float
    candidates: list = field(default_factory=list)   # [(executor, kind, cost_us)]


@dataclass
class Explanation:
    decisions: list = field(default_factory=list)
    total_us: float = 0.0

    def __str__(self):
        lines = [f"estimated total: {self.total_us:.1f} us (claims show the estimated time from there to the end)"]
        for d in self.decisions:
            cands = ", ".join(f"{ex} {kind} {c:.1f}us" for ex, kind, c in d.candidates)
            lines.append(f"  {d.where}\n    -> {d.winner} ({d.cost_us:.1f} us itself); claims: {cands}")
        return "\n".join(lines)


def last_use_of(bsyms, outputs_after) -> dict:
    """id(proxy) -> the last position in ``bsyms`` reading it; ``len(bsyms)`` for what is
    needed after the list (``outputs_after``)."""
    last = {}
    for i, b in enumerate(bsyms):
        for p in b.flat_args:
            last[id(p)] = i
    for p in outputs_after:
        last[id(p)] = len(bsyms)
    return last


def _label(bsyms) -> str:
    names = [b.sym.id for b in bsyms]
    return names[0] if len(names) == 1 else f"{names[0]} .. {names[-1]} ({len(names)} symbols)"


def partition(trace: Trace, executors, model: CostModel | None = None):
    """(execution trace, {symbol id: impl}, {symbol id: executor}, Explanation)."""
    model = model or CostModel()
    tables = [(rank, ex, ex.implementations()) for rank, ex in enumerate(executors)]
    impls, owner = {}, {}
    explanation = Explanation()

    def solve(bsyms, outputs_after):
        """best[i] = (cost, rank sum, step, options) for bsyms[i:]; a step is
        (kind, what, impl, start, end, cost) and the next step starts at ``end``."""
        n = len(bsyms)
        last_use = last_use_of(bsyms, outputs_after)
        region_claims = {}
        for rank, ex, _ in tables:
            if ex.claim is not None:
                for c in ex.claim(bsyms, model, last_use):
                    region_claims.setdefault(c.start, []).append((rank, c))
        best = [None] * (n + 1)
        best[n] = (0.0, 0, None, ())
        for i in range(n - 1, -1, -1):
            b, nxt = bsyms[i], best[i + 1]
            options = []
            for rank, ex, table in tables:
                if b.sym.id in table:
                    cost = model.symbol_us(b, model.dispatch(ex))
                    options.append((cost + nxt[0], rank + nxt[1], ("symbol", ex, table[b.sym.id], i, i + 1, cost)))
            for rank, c in region_claims.get(i, ()):
                if c.end <= n:
                    after = best[c.end]
                    options.append((c.cost_us + after[0], rank + after[1], ("region", c, None, i, c.end, c.cost_us)))
            if b.subsymbols and b.sym.decomposition is not None:
                try:
                    sub = solve(list(b.subsymbols), list(b.flat_outs))
                except LoweringError:
                    sub = None
                if sub is not None:
                    options.append((sub[0][0] + nxt[0], sub[0][1] + nxt[1],
                                    ("decomposed", sub, None, i, i + 1, sub[0][0])))
            if not options:
                src = f" (from {b.source[0]}:{b.source[1]}: {b.source[2]})" if b.source else ""
                raise LoweringError(f"No executor among {[ex.name for _, ex, _ in tables]} implements {b.sym.id}"
                                    f"{src}, and it has no decomposition. Add an executor that implements it "
                                    "(e.g. executors=[..., 'torch']).")
            choice = min(options, key=lambda o: (round(o[0], 9), o[1]))
            best[i] = (choice[0], choice[1], choice[2], options)
        best.append(last_use)  # for emit: region boundaries
        return best

    def emit(bsyms, best, out):
        i, last_use = 0, best[-1]
        while i < len(bsyms):
            _, _, step, options = best[i]
            kind, what, impl, start, end, cost = step
            # each option's estimated total from this position to the end of the list
            cands = [(o[2][1].name if o[2][0] == "symbol" else o[2][1].executor if o[2][0] == "region" else "-",
                      o[2][0], o[0]) for o in options]
            covered = bsyms[start:end]
            if kind == "symbol":
                impls[covered[0].sym.id], owner[covered[0].sym.id] = impl, what.name
                out.append(covered[0])
                explanation.decisions.append(Decision(_label(covered), what.name, cost, cands))
            elif kind == "region":
                inputs, outputs = region_boundary(covered, end, last_use)
                sym, fn = what.lower(covered, inputs, outputs)
                impls[sym.id], owner[sym.id] = fn, what.executor
                out.append(BoundSymbol(sym, tuple(inputs), {}, tuple(outputs), tuple(covered)))
                explanation.decisions.append(Decision(_label(covered), what.executor, cost, cands))
            else:
                explanation.decisions.append(Decision(_label(covered), "decomposed", cost, cands))
                emit(list(covered[0].subsymbols), what, out)
            i = end

    top = list(trace.bound_symbols)
    best = solve(top, flat_proxies(trace.output))
    out: list = []
    emit(top, best, out)
    explanation.total_us = best[0][0] if top else 0.0
    return trace.derive(bound_symbols=out), impls, owner, explanation


__all__ = ["partition", "Claim", "Explanation", "LoweringError"]
