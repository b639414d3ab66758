"""The partitioner: the cheapest cover of a trace by executors' claims.

Dynamic programming over the top-level bound symbols: at each position, take a claim that
starts there (a symbol alone, or a region), or replace the symbol by its decomposition and
partition that recursively (claims "at any level of a symbol's decomposition"). The total
estimated cost is minimised; on equal cost the executor named earlier in ``executors=[...]``
wins. Linear in the number of bound symbols times claims per position.

Executors' checkers are consulted for every single-symbol claim and every symbol of a
region claim; declined claims are left out and recorded with their reasons.

A higher-order bound symbol (``higher_order.cond``...) is claimed like any symbol (the torch
executor runs its control flow; fusing executors leave it alone), after each of its
sub-traces has been partitioned on its own, with the same executors, so executors claim and
fuse inside branches and loop bodies; its estimated cost is one run of each sub-trace.

``partition`` returns a :class:`Partition`: the execution trace, the implementation table,
which executor owns each symbol, the regions, and an :class:`Explanation` (every position's
competing claims with their costs, the winner and the declined claims) for ``tc.explain``.
"""

from __future__ import annotations

import itertools
import math
import re
from dataclasses import dataclass, field
from typing import Literal

from ..ir import BoundSymbol, NumberProxy, TensorProxy, Trace, flat_proxies
from ..ir.trace import current_equalities, subtraces
from .claims import (Claim, ClaimContext, Declined, Region, _decline_reason, region_boundary, region_callable,
                     region_key, region_symbol)
from .cost import CostModel
from .reuse import reuse_buffers
from .tiered import TieredRegion
from ..transforms.numbers import materialize_numbers
from ..transforms.remat import size_estimate


class LoweringError(RuntimeError):
    pass


@dataclass(frozen=True)
class Step:
    """One way to cover ``bsyms[start:end]``: a symbol by one executor, a region claim, or
    the symbol's decomposition partitioned on its own (``sub``)."""

    kind: Literal["symbol", "region", "decomposed"]
    start: int
    end: int
    cost_us: float
    executor: object = None      # the Executor (symbol steps)
    impl: object = None          # its implementation (symbol steps)
    claim: Claim | None = None   # region steps
    sub: "Solution | None" = None  # decomposed steps

    @property
    def executor_name(self) -> str:
        return self.executor.name if self.kind == "symbol" else self.claim.executor if self.kind == "region" else "-"


@dataclass(frozen=True)
class Option:
    """A step and the estimated total from its position to the end of the list."""

    total_us: float
    rank: int                    # sum of the executors' ranks: ties go to earlier executors
    step: Step


@dataclass
class Solution:
    """The cheapest cover of one list of bound symbols: ``best[i]`` is the chosen Option
    for ``bsyms[i:]`` and ``options[i]`` every Option considered there."""

    bsyms: list
    last_use: dict
    best: list
    options: list
    declined: dict               # position -> [Declined]

    @property
    def total_us(self) -> float:
        return self.best[0].total_us if self.bsyms else 0.0


@dataclass
class Decision:
    where: str                   # the bound symbols covered, as printed
    winner: str                  # executor (or "decomposed")
    cost_us: float
    candidates: list = field(default_factory=list)   # [(executor, kind, total_us)]
    declined: list = field(default_factory=list)     # [Declined]


@dataclass
class Explanation:
    decisions: list = field(default_factory=list)
    total_us: float = 0.0
    target: str = "cpu"

    def __str__(self):
        lines = [f"estimated total on {self.target}: {self.total_us:.1f} us (claims show the estimated time from "
                 f"there to the end)"]
        for d in self.decisions:
            cands = ", ".join(f"{ex} {kind} {c:.1f}us" for ex, kind, c in d.candidates)
            lines.append(f"  {d.where}\n    -> {d.winner} ({d.cost_us:.1f} us itself); claims: {cands}")
            for x in d.declined:
                lines.append(f"    declined: {x.executor} ({x.where}): {x.reason}")
        return "\n".join(lines)


@dataclass
class Partition:
    """What :func:`partition` returns."""

    trace: Trace                 # the execution trace
    impls: dict                  # symbol id -> callable (empty for regions when not lowered)
    owner: dict                  # symbol id -> executor name
    regions: dict                # region symbol id -> (executor name, Region)
    explanation: Explanation
    tiered: list = field(default_factory=list)   # TieredRegions of compiling executors' regions

    def callable(self, boxed: bool = False):
        """The execution trace as a Python function running ``impls``; regions of compiling
        executors are swapped into it when their background compile is ready (tiered.py)."""
        fn = self.trace.python_callable(self.impls, boxed=boxed)
        for t in self.tiered:
            t.bind(fn.__globals__)
        return fn


def _size_hints(b) -> tuple:
    """The estimates (``remat.size_estimate``) of the symbolic numbers ``b`` reads or makes:
    its tensors' sizes and its number arguments, in order."""
    return tuple(size_estimate(s) for p in (*b.flat_args, *b.flat_outs)
                 for s in (p.shape if isinstance(p, TensorProxy) else (p,) if type(p) is NumberProxy else ())
                 if type(s) is NumberProxy)


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


def _declined_at(sol: Solution, start: int, end: int, inner: bool) -> list:
    """Claims declined for ``sol.bsyms[start:end]``; with ``inner``, also those declined inside
    the decompositions considered there (a decomposition that lost hides its declines
    otherwise), each (executor, where, reason) once."""
    found = [d for k in range(start, end) for d in sol.declined.get(k, ())]
    if inner:
        stack = [o.step.sub for k in range(start, end) for o in sol.options[k] if o.step.kind == "decomposed"]
        while stack:
            sub = stack.pop()
            found += [d for ds in sub.declined.values() for d in ds]
            stack += [o.step.sub for opts in sub.options for o in opts or () if o.step.kind == "decomposed"]
    seen, out = set(), []
    for d in found:
        if (d.executor, d.where, d.reason) not in seen:
            seen.add((d.executor, d.where, d.reason))
            out.append(d)
    return out


def _label(bsyms) -> str:
    names = [b.sym.id for b in bsyms]
    return names[0] if len(names) == 1 else f"{names[0]} .. {names[-1]} ({len(names)} symbols)"


def partition(trace: Trace, executors, model: CostModel | None = None, *, lower: bool = True,
              names=None, wait_for_compile: bool = False) -> Partition:
    """Cover ``trace`` with the executors' claims at the least estimated cost on ``model``'s
    device. ``lower=False`` chooses without lowering regions (``tc.plan``): nothing is
    compiled and region implementations are left out of ``impls``. ``names``: an iterator of
    numbers for region names, shared by the partitions of one compile (forward and backward)
    so their regions' names differ. Regions of executors that declare ``compiles`` run op by
    op (the fallback executor's implementations) until their compile, in the background, is
    ready; ``wait_for_compile`` compiles them on their first call instead (tiered.py)."""
    model = model or CostModel()
    eqs = current_equalities()
    if eqs:  # sizes guards made equal after this trace was built (by the autograd split): one symbol
        eqs.rewrite(trace)
    trace = materialize_numbers(trace)  # symbolic numbers used at the top level are computed there
    ranked = [(rank, ex, ex.implementations()) for rank, ex in enumerate(executors)]
    dispatch = {ex.name: model.dispatch(ex) for ex in executors}
    out = Partition(None, {}, {}, {}, Explanation(target=model.profile.name))
    names = names if names is not None else itertools.count()
    by_name = {ex.name: ex for ex in executors}
    fallback = next((ex for ex in executors if ex.fallback), None)

    per_op_fns: dict = {}  # region_key -> the fallback's function for regions of that structure (one per layer)

    def _lowered(c, region, ex):
        if not ex.compiles:
            return c.lower(region)
        table = fallback.implementations() if fallback is not None else {}
        per_op = all(b.sym.id in table for b in region.bsyms)
        fn = None
        if per_op:
            key = region_key(region)
            fn = per_op_fns.get(key) or per_op_fns.setdefault(key, region_callable(region, table))
        t = TieredRegion(region.name, ex.name, c.lower, region, fn, fallback.name if per_op else None,
                         wait_for_compile or not per_op)
        out.tiered.append(t)
        return t

    inner: dict = {}  # id(higher-order bound symbol) -> partitions of its sub-traces

    def with_partitioned_subtraces(b):
        parts = {k: partition(sub, executors, model, lower=lower, names=names, wait_for_compile=wait_for_compile)
                 for k, sub in subtraces(b).items()}
        new = b.replace(kwargs={**b.kwargs, **{k: part.trace for k, part in parts.items()}})
        inner[id(new)] = (new, list(parts.values()))
        return new

    def solve(bsyms, outputs_after) -> Solution:
        n = len(bsyms)
        for i, b in enumerate(bsyms):
            if subtraces(b):
                bsyms[i] = with_partitioned_subtraces(b)
        last_use = last_use_of(bsyms, outputs_after)
        declined: dict = {}      # position -> [Declined]
        region_claims: dict = {}
        position = {id(b): i for i, b in enumerate(bsyms)}
        for rank, ex, _ in ranked:
            if ex.claim is None:
                continue
            found: list = []       # (id(bsym), Declined) from the ClaimFn's checks
            ctx = ClaimContext(ex, bsyms, last_use, model, found)
            for c in ex.claim(bsyms, ctx):
                if not 0 <= c.start < c.end <= n:
                    raise LoweringError(f"executor {ex.name!r} claimed [{c.start}, {c.end}) of a list of {n} symbols")
                if any(ctx.check(b) is not None for b in bsyms[c.start:c.end]):
                    continue  # the ClaimFn did not honour its checkers: the decline is recorded
                region_claims.setdefault(c.start, []).append((rank, c))
            for key, d in found:
                declined.setdefault(position[key], []).append(d)
        best: list = [None] * (n + 1)
        best[n] = Option(0.0, 0, None)
        uncovered: dict = {}     # position -> why no claim covers it alone
        options_at: list = [None] * n
        for i in range(n - 1, -1, -1):
            b, nxt = bsyms[i], best[i + 1]
            options = []
            for rank, ex, table in ranked:
                impl = table.get(b.sym.id)
                if impl is None:
                    continue
                reason = _decline_reason(ex, b)
                if reason is not None:
                    here = declined.setdefault(i, [])
                    if not any(d.executor == ex.name for d in here):  # its ClaimFn may have recorded it
                        here.append(Declined(ex.name, b.sym.id, reason))
                    continue
                cost = model.symbol_us(b, dispatch[ex.name])
                if id(b) in inner:
                    cost += sum(part.explanation.total_us for part in inner[id(b)][1])
                options.append(Option(cost + nxt.total_us, rank + nxt.rank,
                                      Step("symbol", i, i + 1, cost, executor=ex, impl=impl)))
            for rank, c in region_claims.get(i, ()):
                after = best[c.end]
                options.append(Option(c.cost_us + after.total_us, rank + after.rank,
                                      Step("region", i, c.end, c.cost_us, claim=c)))
            if b.subsymbols and b.sym.decomposition is not None:
                sub = solve_decomposition(b)
                if sub is not None:
                    options.append(Option(sub.total_us + nxt.total_us, sub.best[0].rank + nxt.rank,
                                          Step("decomposed", i, i + 1, sub.total_us, sub=sub)))
            options = [o for o in options if o.total_us != math.inf]
            if not options:  # only a region starting earlier can cover this symbol
                src = f" (from {b.source[0]}:{b.source[1]}: {b.source[2]})" if b.source else ""
                why = "".join(f"; {d.executor} declined it: {d.reason}" for d in declined.get(i, ()))
                fallbacks = [ex.name for _, ex, _ in ranked if ex.fallback]
                hint = (f"Add an executor that implements it, e.g. a fallback executor such as {fallbacks[0]!r}"
                        if fallbacks else "Add an executor that implements it (a fallback executor implements "
                        "every symbol)")
                uncovered.setdefault(i, f"No executor among {[ex.name for _, ex, _ in ranked]} implements "
                                        f"{b.sym.id}{src}, and it has no decomposition{why}. {hint}.")
                best[i] = Option(math.inf, 0, None)
                options_at[i] = []
                continue
            best[i] = min(options, key=lambda o: (round(o.total_us, 9), o.rank))
            options_at[i] = options
        if n and best[0].total_us == math.inf:  # name a symbol nothing covers (everything after it is)
            raise LoweringError(uncovered[max((k for k in uncovered if best[k + 1].total_us != math.inf),
                                              default=min(uncovered))])
        return Solution(bsyms, last_use, best, options_at, declined)

    solved: dict = {}  # structure of a bound symbol -> its decomposition's Solution (or None)

    def solve_decomposition(b):
        """The cheapest cover of ``b``'s decomposition; one computed for a structurally equal
        symbol (same op, argument metadata and static arguments: one per transformer layer)
        is reused for the choice, and solved again for ``b`` only if it is emitted. Symbolic
        sizes count with this call's values (their hints): the structure is the same for a
        T5 encoder's and decoder's projections, but their costs are not."""
        key = (region_key(Region((b,), tuple({id(p): p for p in flat_proxies(b.args)}.values()), tuple(b.flat_outs))),
               _size_hints(b))
        if key in solved:
            return solved[key]
        try:
            sub = solve(list(b.subsymbols), list(b.flat_outs))
        except LoweringError:
            sub = None
        solved[key] = sub
        return sub

    def emit(sol: Solution, trace_out: list):
        i, bsyms = 0, sol.bsyms
        while i < len(bsyms):
            step = sol.best[i].step
            cands = [(o.step.executor_name, o.step.kind, o.total_us) for o in sol.options[i]]
            covered = bsyms[step.start:step.end]
            declined = _declined_at(sol, step.start, step.end, inner=step.kind != "decomposed")
            label = _label(covered)
            if step.kind == "symbol":
                sid = covered[0].sym.id
                out.impls[sid], out.owner[sid] = step.impl, step.executor.name
                trace_out.append(covered[0])
                out.explanation.decisions.append(Decision(label, step.executor.name, step.cost_us, cands, declined))
                for part in inner.get(id(covered[0]), (None, ()))[1]:
                    out.impls.update(part.impls)
                    out.owner.update(part.owner)
                    out.regions.update(part.regions)
                    out.tiered.extend(part.tiered)  # sub-traces run in the same generated module's globals
                    for d in part.explanation.decisions:
                        out.explanation.decisions.append(Decision(f"{part.trace.name}: {d.where}", d.winner, d.cost_us,
                                                                  d.candidates, d.declined))
            elif step.kind == "region":
                c = step.claim
                inputs, outputs = region_boundary(covered, step.end, sol.last_use)
                # (printed as a Python name: "my-exec" regions are my_exec_region3)
                name = f"{re.sub(r'[^0-9a-zA-Z_]', '_', c.executor)}_region{next(names)}"
                region = Region(tuple(covered), tuple(inputs), tuple(outputs), name)
                sym = region_symbol(c.executor, name, region)
                if lower:
                    out.impls[sym.id] = _lowered(c, region, by_name[c.executor])
                out.owner[sym.id] = c.executor
                out.regions[sym.id] = (c.executor, region)
                trace_out.append(BoundSymbol(sym, tuple(inputs), {}, tuple(outputs), tuple(covered)))
                note = f" [{c.note}]" if c.note else ""
                out.explanation.decisions.append(Decision(label + note, c.executor, step.cost_us, cands, declined))
            else:
                out.explanation.decisions.append(Decision(label, "decomposed", step.cost_us, cands, declined))
                sub, b = step.sub, covered[0]
                if sub.bsyms[0] is not b.subsymbols[0]:  # chosen from an equal symbol's solution
                    sub = solve(list(b.subsymbols), list(b.flat_outs))
                emit(sub, trace_out)
            i = step.end

    top = list(trace.bound_symbols)
    sol = solve(top, flat_proxies(trace.output))
    emitted: list = []
    emit(sol, emitted)
    out.explanation.total_us = sol.total_us
    out.trace = materialize_numbers(trace.derive(bound_symbols=emitted))  # numbers regions read
    for b in out.trace.bound_symbols:  # numbers it added: the first executor implementing them runs them
        if b.sym.id not in out.impls:
            for _, ex, impls in ranked:
                if b.sym.id in impls:
                    out.impls[b.sym.id], out.owner[b.sym.id] = impls[b.sym.id], ex.name
                    break
    if lower:  # dead intermediates' buffers written again instead of allocating (reuse.py)
        last = last_use_of(out.trace.bound_symbols, flat_proxies(out.trace.output))
        reuse_buffers(out.trace, last, out.impls, out.owner, {ex.name: table for _, ex, table in ranked})
    return out


__all__ = ["partition", "Partition", "Step", "Option", "Solution", "Decision", "Explanation", "LoweringError",
           "last_use_of"]
