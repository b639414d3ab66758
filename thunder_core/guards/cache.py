"""Cache entries and the dispatch key: what ``tc.jit`` keeps per compile and how a call finds it.

A call computes :func:`dispatch_key` (the argument types: cheap), probes a dict of lists of
:class:`Entry`, and runs each candidate's prologue until one accepts the arguments.
"""

from __future__ import annotations

from dataclasses import dataclass

from .prologue import Prologue
from .record import Capture


@dataclass
class Entry:
    """One compile of a jitted function: its guards (prologue), what runs, and what it was made from."""

    capture: Capture
    prologue: Prologue
    unchecked: Prologue | None
    computation: object
    traces: list
    executors_used: dict
    epilogue: object = None          # replays writes to outside state, returns the output; None when not needed
    epilogue_source: str = ""
    explanation: object = None       # the partitioner's decisions (tc.explain)
    backward_traces: list = None     # [backward, its execution trace] when the compile split for autograd
    tiered: list = ()                # TieredRegions: compiling executors' regions (execution/tiered.py)
    hit: object = None               # key, checks and run in one: the jitted function's __call__ (prologue.hit_method)

    def run(self, inputs, args, kwargs):
        if self.epilogue is None:
            return self.computation(*inputs)
        return self.epilogue(args, kwargs, self.computation(*inputs))


class EntryWithDraws(Entry):
    """An entry whose epilogue uses fresh objects the prologue drew (a generator's item that is
    printed or returned): the prologue returns them after the computation's inputs."""

    def run(self, inputs, args, kwargs):
        return self.epilogue(args, kwargs, self.computation(*inputs[:-1]), inputs[-1])


def dispatch_key(args, kwargs):
    # Types only: cheap to compute. Shapes and everything else are the prologue's checks.
    if kwargs:
        return (*map(type, args), *kwargs)
    return tuple(map(type, args))
