"""Claims: an executor's offer to run part of a trace, at an estimated cost.

The partitioner hands a region executor's :class:`ClaimFn` a list of bound symbols (the top
level of a trace, or one symbol's decomposition) and a :class:`ClaimContext`; the executor
returns :class:`Claim` objects, each covering a contiguous range ``[start, end)`` of the
list. A contiguous range of a topologically ordered list is convex (no path can leave it and
come back), so running it as one call cannot create a cycle. When a claim wins, the
partitioner calls ``claim.lower(region)`` with the :class:`Region` (its bound symbols, the
proxies it reads from outside, the proxies used after it) and puts one bound symbol in the
execution trace that calls what ``lower`` returned: ``fn(*region.inputs) ->
tuple(region.outputs)``.

Every executor with an implementation table also claims each symbol it implements alone;
its checkers (``Executor.checkers``/``check``) can decline single symbols, and are
consulted for every symbol of a region claim as well.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Iterable, Protocol, Sequence

#: ``checker(bound_symbol) -> None | reason``: None accepts the call, a string declines it
#: and says why (``"float64 is not supported"``); tc.explain shows the reason.
Checker = Callable[[object], "str | None"]


@dataclass(frozen=True)
class Region:
    """A contiguous run of bound symbols as one unit.

    :param bsyms: the bound symbols, in trace order.
    :param inputs: proxies read by the region but defined before it (first-use order): the
        positional arguments of the lowered callable.
    :param outputs: proxies defined in the region and used after it: what the callable returns
        (a tuple, in this order).
    :param name: the region's name in the execution trace (set when it is emitted).
    :param example_inputs: for an executor that declares ``compiles``: tensors like those of
        the region's first call (same shapes, strides, dtypes, devices and requires_grad;
        zero-filled), and its other inputs, in ``inputs`` order, so a compile can specialise on
        them; None otherwise.
    :param recompile: for an executor that declares ``compiles``, set by tiered execution:
        ``recompile(*args)`` asks for another compile of the region for the metadata of these
        arguments, made like the first (in the background, or at once under
        ``wait_for_compile=True``); its callable replaces the current one when ready. For a call
        the compile cannot serve, e.g. other strides: an upstream region's compiled code may lay
        out its outputs unlike the per-op run the first call's examples came from. Repeated
        requests for the same metadata, and those beyond a few per region, are ignored. None
        where nothing compiles later (``tc.plan``, a direct ``lower``).
    """

    bsyms: tuple
    inputs: tuple
    outputs: tuple
    name: str = ""
    example_inputs: tuple | None = field(default=None, compare=False, repr=False)
    recompile: Callable | None = field(default=None, compare=False, repr=False)


@dataclass(frozen=True)
class Claim:
    """An executor's offer for ``bsyms[start:end]`` of the list its ClaimFn was given.

    :param executor: the claiming executor's name.
    :param cost_us: the estimated time of running the region as one call (µs), overheads
        included; compared with every other way to cover the same symbols.
    :param lower: ``lower(region: Region) -> callable`` taking ``region.inputs`` positionally
        and returning the tuple of ``region.outputs``; called only if the claim wins (and not
        at all by ``tc.plan``).
    :param note: a few words shown by ``tc.explain`` (``"5 fused symbols"``).
    """

    executor: str
    start: int
    end: int
    cost_us: float
    lower: Callable[[Region], Callable] | None = None
    note: str = ""


@dataclass(frozen=True)
class Artifact:
    """Something an executor produced ahead of time for a region (``tc.plan``).

    :param kind: ``"ptx"``, ``"cubin"``, ``"cudnn-graph"``, ``"nvfuser-fusion"``, ``"source"``...
    :param content: the artifact (text or bytes).
    :param note: a few words (target architecture, what was validated).
    """

    kind: str
    content: str | bytes
    note: str = ""


@dataclass
class Declined:
    """A claim an executor's checker turned down: where, and why."""

    executor: str
    where: str
    reason: str


class ClaimContext:
    """What a :class:`ClaimFn` gets besides the bound symbols: the cost model on the target
    device, the executor's own overhead there, region boundaries, and its checkers.

    :ivar model: the :class:`~thunder_core.execution.cost.CostModel` (``model.profile`` is the
        target :class:`~thunder_core.execution.profiles.DeviceProfile`).
    :ivar dispatch_us: this executor's per-call overhead on the target.
    """

    def __init__(self, executor, bsyms: Sequence, last_use: dict, model, declined: list):
        self.executor, self.bsyms, self.last_use, self.model = executor, bsyms, last_use, model
        self.profile = model.profile
        self.dispatch_us = model.dispatch(executor)
        self._declined = declined
        self._checked: dict = {}

    def region(self, start: int, end: int) -> Region:
        """The :class:`Region` of ``bsyms[start:end]``."""
        inputs, outputs = region_boundary(self.bsyms[start:end], end, self.last_use)
        return Region(tuple(self.bsyms[start:end]), tuple(inputs), tuple(outputs))

    def region_us(self, region: Region) -> float:
        """The cost model's estimate for running ``region`` fused, as one call of this
        executor: bytes crossing its boundary, its FLOPs, one launch, the overhead."""
        return self.model.region_us(region.bsyms, (*region.inputs, *region.outputs), self.dispatch_us)

    def check(self, bsym) -> str | None:
        """This executor's checkers on ``bsym``: None if it may run it, else the reason
        (recorded once for tc.explain)."""
        key = id(bsym)
        if key in self._checked:
            return self._checked[key]
        reason = _decline_reason(self.executor, bsym)
        self._checked[key] = reason
        if reason is not None:
            self._declined.append((key, Declined(self.executor.name, bsym.sym.id, reason)))
        return reason

    def decline(self, start: int, end: int, reason: str) -> None:
        """Record that this executor does not claim ``bsyms[start:end]`` and why (a reason
        about the region as a whole, not one symbol: "outputs of different shapes", "a
        reduction over a middle dim"); ``tc.explain`` shows it at ``bsyms[start]``."""
        b = self.bsyms[start]
        where = b.sym.id if end - start <= 1 else f"{b.sym.id} .. {self.bsyms[end - 1].sym.id}"
        self._declined.append((id(b), Declined(self.executor.name, where, reason)))

    def claim(self, start: int, end: int, cost_us: float, lower, note: str = "") -> Claim:
        """A :class:`Claim` by this executor (a shorthand for ClaimFns)."""
        return Claim(self.executor.name, start, end, cost_us, lower, note)


class ClaimFn(Protocol):
    """``claim(bsyms, ctx) -> iterable of Claim``: offer regions of ``bsyms``.

    Called once per list the partitioner solves (the trace's top level, and the
    decomposition of each symbol it considers decomposing), for the forward and for the
    backward trace alike. Return any number of claims; overlapping ones compete. Use
    ``ctx.check(bsym)`` to honour your checkers while growing a region (the partitioner
    checks every symbol of a claimed region again and drops a claim covering a declined one),
    ``ctx.region(start, end)`` for a region's boundary, ``ctx.region_us(region)`` for its
    estimated cost, and ``ctx.decline(start, end, reason)`` to say why a run is not claimed.

    Example (fuse every run of two or more elementwise symbols)::

        def claim(bsyms, ctx):
            i = 0
            while i < len(bsyms):
                j = i
                while j < len(bsyms) and has_trait(bsyms[j], "elementwise") and ctx.check(bsyms[j]) is None:
                    j += 1
                if j - i >= 2:
                    region = ctx.region(i, j)
                    yield ctx.claim(i, j, ctx.region_us(region), lower, f"{j - i} fused symbols")
                i = max(j, i + 1)
    """

    def __call__(self, bsyms: Sequence, ctx: ClaimContext) -> Iterable[Claim]: ...


def _decline_reason(executor, bsym) -> str | None:
    if executor.check is not None:
        reason = executor.check(bsym)
        if reason is not None:
            return reason
    checker = executor.checkers().get(bsym.sym.id)
    return checker(bsym) if checker is not None else None


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


def region_symbol(executor: str, name: str, region: Region):
    """The symbol standing for a fused region in an execution trace. Its decomposition
    replays the region's bound symbols on new inputs (so traces print, verify and re-trace
    like any other symbol)."""
    from ..ir import Proxy, Symbol, flat_proxies

    bsyms, inputs, outputs = region.bsyms, region.inputs, region.outputs

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
            env.update({id(o): n for o, n in zip(b.flat_outs, flat_proxies(out))})
        return tuple(env[id(p)] for p in outputs)

    return Symbol(name, None, f"{executor}.{name}", decomposition=decomposition, tags=frozenset({"region"}))


def region_of(bsym) -> Region | None:
    """The :class:`Region` a region bound symbol of an execution trace stands for (its bound
    symbols, inputs, outputs and name), or None for any other bound symbol."""
    if "region" not in bsym.sym.tags:
        return None
    return Region(tuple(bsym.subsymbols), tuple(bsym.args), tuple(bsym.flat_outs), bsym.sym.name)


def region_callable(region: Region, impls) -> Callable:
    """A Python function running the region's bound symbols with ``impls`` (symbol id ->
    callable): ``fn(*region.inputs) -> tuple(region.outputs)``. Fusing executors compile it
    (``torch.compile(region_callable(region, torch_impls()))``) or read its source."""
    from ..ir import Trace

    t = Trace("region", args=list(region.inputs), bound_symbols=list(region.bsyms), output=tuple(region.outputs))
    return t.python_callable(impls)


def region_key(region: Region):
    """A hashable key of a region's structure and metadata, independent of proxy names:
    equal for two regions that compute the same thing on inputs of the same shapes, dtypes,
    devices and requires_grad (e.g. one per transformer layer). Symbolic sizes
    (``cache="symbolic values"``) are keyed by which of them are the same, not by name. Key an
    executor's compile cache with it so such regions compile once."""
    from ..ir import NumberProxy, Proxy, TensorProxy

    index = {id(p): k for k, p in enumerate(region.inputs)}
    sizes: dict = {}  # symbolic size -> its number in order of first appearance (names differ per compile)

    def dim(s):
        return ("S", sizes.setdefault(id(s), len(sizes))) if type(s) is NumberProxy else s

    def enc(x):
        if isinstance(x, TensorProxy):
            return ("T", index.get(id(x)), tuple(map(dim, x.shape)), x.dtype, x.device, x.requires_grad)
        if isinstance(x, Proxy):
            return ("P", index.get(id(x)))
        if isinstance(x, (tuple, list)):
            return (type(x).__name__, tuple(enc(y) for y in x))
        if isinstance(x, dict):
            return ("dict", tuple((k, enc(v)) for k, v in x.items()))
        return ("C", repr(x))

    parts = []
    for b in region.bsyms:
        for p in b.flat_outs:
            index.setdefault(id(p), len(index))
        parts.append((b.sym.id, enc(b.args), enc(dict(b.kwargs)), enc(b.output)))
    return (tuple(parts), tuple(index[id(p)] for p in region.outputs))


__all__ = ["Checker", "Region", "Claim", "Artifact", "Declined", "ClaimContext", "ClaimFn", "region_boundary",
           "region_symbol", "region_of", "region_callable", "region_key"]
