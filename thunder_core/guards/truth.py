"""The truth of a cheap predicate of input tensors (``if not mask.any():``), decided while
tracing and guarded on every call.

A tensor's truth value is unknown while tracing, except where the tensor is computed only
from trace inputs (arguments, parameters, buffers: tensors the prologue fetches) by a few
pure, cheap ops on small tensors. Then :func:`truth_check` cuts that computation out of the
trace (a sub-trace from those inputs to the tensor), runs it on the real inputs now, and
returns a :class:`Truth`: the capture records it as a ``TRUTH`` guard, the prologue runs the
same sub-trace on every call's inputs and misses when its truth differs (so the other outcome
compiles an entry of its own), and the program goes on along the branch it took.

Everything else (a tensor drawn from random ops, made by a matmul or from large inputs, or
from inputs written in place earlier in the trace) keeps the refusal of ``Proxy.__bool__``.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

from ..frontend.provenance import FRESH
from ..ir.proxies import NumberProxy, TensorProxy
from ..ir.traits import has_trait, writes_into

#: at most this many recorded calls between the inputs and the tested tensor
MAX_CALLS = 16
#: at most this many elements in the inputs together (and in each intermediate tensor)
MAX_NUMEL = 2 ** 20
#: symbol tags that make a call unfit to run again in the prologue
_UNFIT_TAGS = frozenset({"random", "inplace", "effect", "opaque"})


@dataclass(eq=False)
class Truth:
    """``bool(fn(*inputs))`` was ``value`` while tracing. ``provs``: where the prologue
    fetches each input; ``source``: the sub-trace, printed (for the prologue's comment and
    ``tc.explain``); ``fn``: runs it with torch, returning the bool."""

    provs: tuple
    fn: object
    value: bool
    source: str

    def __eq__(self, other):  # the same predicate with the same outcome (api._what_changed)
        return isinstance(other, Truth) and (other.source, other.value) == (self.source, self.value)

    __hash__ = object.__hash__

    def describe(self) -> str:
        out = self.source.rsplit("; ", 1)[-1].split(" = ")[0]
        return f"bool({out}) is {self.value}: {self.source}"


def _numel(p) -> int:
    n = 1
    for s in p.shape:
        n *= int(s.hint if isinstance(s, NumberProxy) else s)
    return n


def truth_check(trace, p: TensorProxy, input_of: dict) -> Truth | None:
    """The :class:`Truth` of ``p`` (in ``trace``, being recorded), or None where it is not a
    cheap predicate of inputs. ``input_of``: id(input proxy) -> (tensor or number, provenance)."""
    needed, leaves, chosen = {id(p)}, {}, []
    bsyms = trace.bound_symbols
    for b in reversed(bsyms):
        if not needed:
            break
        if not any(id(o) in needed for o in b.flat_outs):
            continue
        if len(chosen) == MAX_CALLS or _UNFIT_TAGS & (b.sym.tags | b.tags) or has_trait(b, "matmul"):
            return None
        if any(_numel(o) > MAX_NUMEL for o in b.flat_outs if isinstance(o, TensorProxy)):
            return None
        chosen.append(b)
        needed.difference_update(id(o) for o in b.flat_outs)
        for a in b.flat_args:  # (symbolic sizes are inputs too: `zeros(x.shape)` under symbolic sizes)
            if id(a) in input_of:
                leaves[id(a)] = a
            else:
                needed.add(id(a))
    if id(p) in input_of:  # `if x:` on an input itself
        leaves[id(p)] = p
        needed.discard(id(p))
    if needed or not leaves:
        return None  # made from something that is not an input (or from nothing: a constant)
    values = [input_of[i][0] for i in leaves]
    provs = tuple(input_of[i][1] for i in leaves)
    if sum(v.numel() for v in values if isinstance(v, torch.Tensor)) > MAX_NUMEL or any(prov.root.kind == FRESH for prov in provs):
        return None
    if _written(bsyms, set(leaves)):
        return None  # the inputs' values changed since the call began: the prologue would see others
    chosen.reverse()
    sub = trace.derive(name="truth", args=list(leaves.values()), kwargs={}, bound_symbols=chosen, output=p)
    from ..ops.registry import TORCH_IMPLS

    try:
        run = sub.python_callable(TORCH_IMPLS)
    except LookupError:
        return None

    def fn(*tensors):
        with torch.no_grad():
            return bool(run(*tensors))

    try:
        value = fn(*values)
    except Exception:  # noqa: BLE001 - whatever it is, the refusal says what to do
        return None
    return Truth(provs, fn, value, _printed(sub))


def _written(bsyms, leaves: set) -> bool:
    """Does a recorded call write into one of the inputs ``leaves`` (ids), or into a view of one?"""
    aliases = set(leaves)
    for b in bsyms:
        if has_trait(b, "view") and b.args and id(b.args[0]) in aliases:
            aliases.update(id(o) for o in b.flat_outs)
        if any(id(t) in aliases for t in writes_into(b)):
            return True
    return False


def _printed(sub) -> str:
    """The sub-trace's calls on one line: ``t1 = ltorch.eq(input_ids, 1); t2 = ltorch.any(t1)``."""
    lines = [b.python().split("  #")[0] for b in sub.bound_symbols]
    return "; ".join(lines) or sub.args[0].name
