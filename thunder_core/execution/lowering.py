"""Lowering: a captured trace partitioned among executors, split for autograd first when its
outputs need gradients (``lower``), or run op by op under PyTorch's autograd where that is
estimated cheaper (execution/autograd_choice.py). Used by ``tc.jit`` (api.py) and ``tc.plan``
(planning.py)."""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import torch

from ..ir import Trace, flat_proxies
from ..transforms.grad_regions import restoring_grad_mode, with_grad_regions
from . import autograd_choice
from .partition import partition
from .profiles import profile_for_device


@dataclass
class Lowered:
    """A trace partitioned among executors: unsplit (``trace``/``computation``), or split for
    autograd (``split``, and the forward and backward Partitions)."""
    explanation: object
    owner: dict
    trace: Trace | None = None
    computation: object = None
    split: object = None
    forward: object = None
    backward: object = None
    partitions: tuple = ()
    used: tuple | None = None  # positions of the trace's inputs that ``computation`` takes (None: all)


def lower(trace, executors, model, *, compile: bool = True, wait_for_compile: bool = False) -> Lowered:
    """Partition ``trace`` (split into forward and backward first when its outputs need
    gradients and grad mode is on). ``compile=False`` (tc.plan) lowers nothing;
    ``wait_for_compile``: compiling executors' regions compile on their first call instead of
    in the background (execution/tiered.py)."""
    from ..transforms import autograd

    reason = s = None
    if torch.is_grad_enabled() and autograd.needs_grad(trace):
        try:
            s = autograd.split(trace, fusing=any(ex.fuses for ex in executors))
        except autograd.NotSplittable as e:
            reason = str(e)
        else:
            reason = _op_by_op_reason(trace, s, executors, model)
        if reason is None:
            names = itertools.count()
            fwd = partition(s.forward, executors, model, lower=compile, names=names, wait_for_compile=wait_for_compile)
            bwd = partition(s.backward, executors, model, lower=compile, names=names, wait_for_compile=wait_for_compile)
            fwd.trace.name, bwd.trace.name = "forward", "backward"
            return Lowered(Explained(fwd.explanation, bwd.explanation, None), {**fwd.owner, **bwd.owner},
                           split=s, forward=fwd, backward=bwd, partitions=(fwd, bwd))
    if reason is not None and s is not None:  # op by op under PyTorch's autograd: executors it can differentiate
        executors = autograd_choice.differentiable(executors)
    regions = False
    if reason is not None:  # op by op: what the program ran under torch.no_grad() runs without grad
        marked = with_grad_regions(trace)
        regions, trace = marked is not trace, marked
    p = partition(trace, executors, model, lower=compile, wait_for_compile=wait_for_compile)
    p.trace.name = "computation"
    used = _drop_unused_inputs(p.trace)
    explanation = p.explanation if reason is None else Explained(p.explanation, None, reason)
    fn = p.callable() if compile else None
    return Lowered(explanation, p.owner, p.trace, restoring_grad_mode(fn) if regions and fn else fn, partitions=(p,),
                   used=used)


def _drop_unused_inputs(trace) -> tuple | None:
    """Take out of ``trace``'s inputs those it never reads (symbolic sizes a torch-run trace
    does not need: every size is checked by the prologue all the same), so a call passes only
    what the computation uses (~0.03 us per argument of a cache hit). Returns the positions
    kept, None when all are."""
    if trace.kwargs:
        return None
    read = {id(p) for b in trace.bound_symbols for p in b.flat_args}
    read.update(id(p) for p in flat_proxies(trace.output))
    used = tuple(i for i, a in enumerate(trace.args) if id(a) in read)
    if len(used) == len(trace.args):
        return None
    trace.args = [trace.args[i] for i in used]
    return used


def _op_by_op_reason(trace, s, executors, model) -> str | None:
    """Why ``trace`` runs op by op under PyTorch's autograd rather than split into ``s``'s
    forward and backward, or None (execution/autograd_choice.py). The split is priced by
    planning its partitions (nothing lowered): only small traces get this far."""
    estimate = autograd_choice.op_by_op_us(trace, s.backward, executors, model)
    if estimate is None:
        return None
    split_us = autograd_choice.prices(model)[0]
    split = split_us + sum(partition(t, executors, model, lower=False).explanation.total_us
                           for t in (s.forward, s.backward))
    return autograd_choice.why(estimate, split, split_us) if estimate < split else None


def target_of(trace):
    """The device profile a trace runs on: that of its first tensor input's device."""
    from ..ir import TensorProxy

    dev = next((a.device for a in trace.args if isinstance(a, TensorProxy)), None)
    return profile_for_device(dev)


@dataclass
class Explained:
    """tc.explain's text for a compile: forward (or the whole computation), backward, and why
    the computation was not split when it needed gradients."""
    forward: object
    backward: object
    not_split: str | None

    def __str__(self):
        if self.not_split is not None:
            return (f"{self.forward}\n(gradients come from PyTorch's autograd through the executed ops, without a "
                    f"backward trace, because {self.not_split})")
        return f"forward:\n{self.forward}\n\nbackward:\n{self.backward}"
