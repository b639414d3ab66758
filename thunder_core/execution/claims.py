"""Claims: an executor's offer to run part of a trace, at an estimated cost.

A :class:`Claim` covers a contiguous range ``[start, end)`` of a trace's top-level bound
symbols (a contiguous range of a topologically ordered trace is convex: no path can leave
it and come back, so fusing it cannot create a cycle). ``lower(bsyms, inputs, outputs)``
returns the ``(symbol, implementation)`` that runs the region as one call: ``inputs`` are
the proxies the region reads from outside, ``outputs`` those used after it; helpers below
build a region symbol (``region_symbol``) and a runnable function (``region_callable``).

Every executor with an implementation table also claims each symbol it implements, alone
(``Executor.dispatch_us`` per op); region claims come from ``Executor.claim``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable


@dataclass(frozen=True)
class Claim:
    executor: str
    start: int
    end: int
    cost_us: float
    lower: Callable | None = None   # region claims: lower(bsyms, inputs, outputs) -> (Symbol, impl)
    note: str = ""


def region_boundary(bsyms, end: int, last_use: dict):
    """(inputs, outputs) of the region ``bsyms`` ending at position ``end``: proxies read but
    not defined inside, in first-use order; proxies defined inside and read at or after
    ``end`` (``last_use``: id -> last reading position, as the partitioner passes it)."""
    defined, inputs, seen = set(), [], set()
    for b in bsyms:
        for p in b.flat_args:
            if id(p) not in defined and id(p) not in seen:
                seen.add(id(p))
                inputs.append(p)
        for p in b.flat_outs:
            defined.add(id(p))
    outputs = [p for b in bsyms for p in b.flat_outs if last_use.get(id(p), -1) >= end]
    return inputs, outputs


def region_symbol(executor: str, bsyms, inputs, outputs):
    """A symbol standing for a fused region. Its decomposition replays the region's bound
    symbols on new inputs (so traces print, verify and re-trace like any other symbol)."""
    from ..ir import Proxy, Symbol

    def decomposition(*args):
        env = {id(p): a for p, a in zip(inputs, args)}

        def sub(x):
            if isinstance(x, Proxy):
                return env.get(id(x), x)
            if isinstance(x, (tuple, list)):
                return type(x)(sub(y) for y in x)
            if isinstance(x, dict):
                return {k: sub(v) for k, v in x.items()}
            return x

        for b in bsyms:
            out = b.sym(*sub(b.args), **sub(dict(b.kwargs)))
            old, new = b.flat_outs, flat_outs(out)
            env.update({id(o): n for o, n in zip(old, new)})
        return tuple(env[id(p)] for p in outputs)

    global _REGIONS
    _REGIONS += 1
    name = f"{executor}_region{_REGIONS}"
    return Symbol(name, None, f"{executor}.{name}", decomposition=decomposition, tags=frozenset({"region"}))


def flat_outs(out):
    from ..ir import flat_proxies

    return flat_proxies(out)


def region_callable(bsyms, inputs, outputs, impls):
    """A Python function running the region's bound symbols with ``impls`` (symbol id ->
    callable): ``fn(*inputs) -> tuple(outputs)``. Executors that fuse compile this."""
    from ..ir import Trace

    t = Trace("region", args=list(inputs), bound_symbols=list(bsyms), output=tuple(outputs))
    return t.python_callable(impls)


_REGIONS = 0
