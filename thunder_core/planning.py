"""``tc.plan``: trace and partition for a device this machine may lack, running nothing.

``tc.plan(fn, *example_args, target="h100", executors=None, **kwargs)`` traces ``fn`` with the
example arguments exactly as ``tc.jit`` would, partitions the trace among the executors that
compile for the target's device type (whether or not they can run here), with the target's
device profile in the cost model, and asks each executor that can produce ahead-of-time
artifacts for its regions (PTX, cubin, validated cuDNN graphs, nvFuser fusion definitions).
Nothing is compiled by ``torch.compile`` and no kernel runs.

Example arguments for a GPU target may be fake tensors on ``"cuda"``
(``torch._subclasses.fake_tensor.FakeTensorMode``, which works on a CPU-only build of torch).
Real tensors, and a module's parameters and buffers, on another device are replaced by fake
tensors of the same shape, dtype and requires_grad on the target's device; the module itself
is left untouched.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field

import torch
import torch.utils._pytree as pytree

from .api import CACHE_MODES, DEFAULT_CACHE, JittedFunction, _call_module, executor_named
from .execution.lowering import lower
from .execution.claims import Region
from .execution.cost import CostModel
from .execution.profiles import DeviceProfile, profile
from .ir.trace import guarding

__all__ = ["Plan", "plan"]


@dataclass
class Plan:
    """What ``tc.plan`` returns.

    :ivar target: the :class:`DeviceProfile` planned for.
    :ivar executors: the executors' names, in preference order.
    :ivar traces: computation traces, first (as captured) to the execution traces (for a
        function whose outputs need gradients: the joint, forward and final forward trace).
    :ivar backward_traces: the backward trace and its execution trace ([] without autograd).
    :ivar regions: region name -> (executor name, :class:`Region`) for every region claimed.
    :ivar owner: symbol id -> executor name, for everything in the execution traces.
    :ivar artifacts: region name -> [:class:`Artifact`] from the executors that produce them
        ahead of time (single symbols claimed by such an executor count as one-symbol
        regions, named after their output).
    """

    target: DeviceProfile
    executors: list
    traces: list
    backward_traces: list
    regions: dict
    owner: dict
    artifacts: dict = field(default_factory=dict)
    _explanation: object = None

    def explain(self) -> str:
        """Which executor claimed which region, the competing claims with their estimated
        costs on the target, and the declined claims with their reasons."""
        return str(self._explanation)

    def __repr__(self):
        arts = sum(len(v) for v in self.artifacts.values())
        return (f"<Plan for {self.target.name}: {len(self.regions)} regions, {arts} artifacts, executors "
                f"{', '.join(self.executors)}>")


def _for_target(executors, target: DeviceProfile) -> list:
    """The executors that compile for ``target`` (installed ones for ``None``), fallbacks last."""
    from . import plugins

    installed = plugins.registry().executors
    if executors is None:
        chosen = [ex for ex in installed.values() if ex.supports(target) is None]
    else:
        chosen = []
        for item in executors:
            item = executor_named(item, installed)
            reason = item.supports(target)
            if reason is not None:
                raise ValueError(f"Executor {item.name!r} cannot plan for {target.name}: it {reason}.")
            chosen.append(item)
    chosen.sort(key=lambda ex: ex.fallback)
    if not chosen:
        raise RuntimeError(f"No installed executor compiles for {target.name} ({target.device_type}).")
    return chosen


def _faker(target: DeviceProfile):
    """A function giving, for a tensor not on the target's device type, a fake tensor like it
    on that device (and leaving everything else alone)."""
    from torch._subclasses.fake_tensor import FakeTensor, FakeTensorMode

    mode = FakeTensorMode(allow_non_fake_inputs=True)
    device = torch.device(target.device_type)

    def fake(t):
        if not isinstance(t, torch.Tensor) or t.device.type == device.type:
            return t
        # (tracing never computes with them: tensors of different fake modes may meet in a plan)
        with t.fake_mode if isinstance(t, FakeTensor) else mode:
            out = torch.empty_strided(t.shape, t.stride(), dtype=t.dtype, device=device)
        if isinstance(t, torch.nn.Parameter):
            return torch.nn.Parameter(out, requires_grad=t.requires_grad)
        return out.requires_grad_(t.requires_grad) if t.requires_grad else out

    return fake


def _fake_module(module: torch.nn.Module, fake) -> torch.nn.Module:
    """A copy of ``module`` sharing nothing with it, its parameters and buffers faked."""
    memo = {id(t): fake(t) for m in module.modules()
            for t in (*m._parameters.values(), *m._buffers.values()) if t is not None}
    return copy.deepcopy(module, memo)


def plan(fn, *example_args, target: str | DeviceProfile = "h100", executors=None, cache=DEFAULT_CACHE,
         **kwargs) -> Plan:
    """Trace ``fn`` (a function or an ``nn.Module``) with ``example_args``/``kwargs`` and
    partition it for ``target`` without running anything; see the module docstring.

    :param target: a device profile name (``"cpu"``, ``"a100"``, ``"h100"``, ``"b200"``) or a
        :class:`~thunder_core.execution.profiles.DeviceProfile`.
    :param executors: None (every installed executor that compiles for the target) or a list
        of names/Executor objects, earlier preferred on ties.
    :param cache: as ``tc.jit``'s: ``"symbolic values"`` (the default) plans what ``tc.jit``
        runs, sizes of 2 or more symbolic (executors make their artifacts for the example's
        sizes where they specialise per shape); ``"constant values"`` plans for the example's
        shapes and numbers only.
    :return: a :class:`Plan`.
    """
    if cache not in CACHE_MODES:
        raise ValueError(f"cache={cache!r} is not one of {', '.join(map(repr, CACHE_MODES))}.")
    target = profile(target)
    chosen = _for_target(executors, target)
    fake = _faker(target)
    args, kwargs = pytree.tree_map(fake, (example_args, kwargs))
    if isinstance(fn, torch.nn.Module):
        module = _fake_module(fn, fake)
        jfn = JittedFunction(_call_module, executors=[], cache=cache)  # (tracing only: executors come below)
        args = (module, *args)
    else:
        jfn = JittedFunction(fn, executors=[], cache=cache)
    cap, traces, _, _ = jfn._trace(args, kwargs)
    with guarding(cap.specialize, cap.equalities):  # what lowering specialises is guarded, as in tc.jit
        lowered = lower(traces[-1], chosen, CostModel(target), compile=False)
    if lowered.forward is None:
        traces, backward = [*traces, lowered.trace], []
    else:
        s = lowered.split
        traces, backward = [*traces, s.joint, s.forward, lowered.forward.trace], [s.backward, lowered.backward.trace]
    regions, owner = {}, dict(lowered.owner)
    by_name = {ex.name: ex for ex in chosen}
    out = Plan(target, [ex.name for ex in chosen], traces, backward, regions, owner, {}, lowered.explanation)
    for part in lowered.partitions:
        for b in part.trace.bound_symbols:
            found = part.regions.get(b.sym.id)
            if found is not None:
                name, region = b.sym.name, found[1]
            else:
                name, region = b.sym.id if not b.flat_outs else b.flat_outs[0].name, Region((b,), b.flat_args,
                                                                                             b.flat_outs, "")
            ex = by_name.get(part.owner.get(b.sym.id))
            if found is not None:
                regions[name] = (ex.name, region)
            if ex is not None and ex.artifacts is not None:
                try:
                    made = list(ex.artifacts(region, target))
                except Exception as e:
                    raise RuntimeError(f"executor {ex.name!r} failed to produce ahead-of-time artifacts for {name} "
                                       f"({', '.join(x.sym.id for x in region.bsyms)}) on {target.name}: "
                                       f"{type(e).__name__}: {e}") from e
                if made:
                    out.artifacts[name] = made
    return out
