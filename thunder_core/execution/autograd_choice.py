"""Split or not: how a trace that needs gradients runs.

Such a trace normally runs split (transforms/autograd.py): a forward trace and a backward trace,
each partitioned among the executors, run as one autograd node (autograd_runtime.py). That
lets executors fuse the backward and decide what is saved, but the node itself has a fixed
host cost per call (``DEFAULT_SPLIT_US``: the Python ``autograd.Function`` and its backward), which on
a small trace is most of the step: two 8x8 tensors' ``a * b + a`` took 47 µs per training step
split with the torch executor, 27 µs in eager PyTorch.

The alternative is what eager does: run the trace's ops one by one under PyTorch's autograd,
which records a node per differentiable op (``DEFAULT_GRAD_NODE_US`` each, forward and
backward together) and runs their backward in C++. Only executors whose implementations PyTorch's
autograd records (``Executor.differentiable``, the torch executor) can run it that way.

:func:`op_by_op_us` estimates that alternative; the lowering (``execution.lowering.lower``) takes it when it
is cheaper than the split's estimate (its partitions' cost plus the split's price). Because each
op adds its price, only traces of fewer than (split price / op price) differentiable ops can
qualify, so it is never considered for a model of any size. The prices are measured by
``python -m thunder_core calibrate`` (``DeviceProfile.autograd_us``), else the defaults below.
``tc.explain`` says which was chosen and the two estimates; ``tc.last_backward_traces`` is empty then (PyTorch's autograd
made the gradients, as in eager).
"""

from __future__ import annotations

import os

from .. import plugins
from ..ir import TensorProxy
from ..ir.trace import subtraces
from ..ops.registry import OPDEFS
from ..transforms import vjp
from .claims import _decline_reason

#: host µs per call of running a trace split, beyond its ops: the forward's autograd.Function
#: and the Python backward around the backward trace (measured on the 2-core CPU, torch 2.13,
#: two 8x8 tensors' ``a * b + a``: 47 µs per training step split with the torch executor, 27 µs
#: eager; the same time is host time on a GPU)
DEFAULT_SPLIT_US = 20.0
#: host µs PyTorch's autograd adds per differentiable op: recording its node in the forward
#: and running it in the engine in backward (a chain of n multiplications of 8x8 or 64x64
#: tensors: the split took 19.5 - 1.3 n µs more per step than op by op for n = 2..32, crossing
#: at n = 16)
DEFAULT_GRAD_NODE_US = 1.3
#: the split's price when set, over the device profile's (``calibrate`` measures both prices,
#: ``DeviceProfile.autograd_us``) and the defaults: ``THUNDER_CORE_SPLIT_US`` sets it (``0``:
#: always split, as the test suites do, whose tiny tensors would otherwise leave VJP rules and
#: backward claims unused)
SPLIT_US = float(os.environ["THUNDER_CORE_SPLIT_US"]) if os.environ.get("THUNDER_CORE_SPLIT_US") else None


def prices(model) -> tuple[float, float]:
    """(split µs per call, µs per differentiable op run under PyTorch's autograd) on ``model``'s
    device: ``SPLIT_US`` if set, else what ``calibrate`` measured, else the defaults above."""
    measured = model.profile.autograd_us
    split = SPLIT_US if SPLIT_US is not None else measured.get("split", DEFAULT_SPLIT_US)
    return split, measured.get("grad_node", DEFAULT_GRAD_NODE_US)


def differentiable(executors) -> list:
    """The executors PyTorch's autograd can differentiate through (``Executor.differentiable``)."""
    return [ex for ex in executors if ex.differentiable]


def _core_defined(sid: str) -> bool:
    """Is ``sid`` the core's own symbol, with its own VJP rule if any? A plugin's symbol may be
    implemented by a kernel PyTorch cannot differentiate, and its VJP rule (or one a plugin
    gives a core symbol without a rule of its own) must be the gradient used."""
    d = OPDEFS.get(sid)
    if d is not None and not (d.module or "").startswith("thunder_core."):
        return False
    return sid in vjp.VJP or sid not in plugins.registry().vjp_rules  # (the split loaded vjp.VJP)


def op_by_op_us(trace, backward, executors, model) -> float | None:
    """The estimated cost of running ``trace`` op by op under PyTorch's autograd, its gradients
    included (``backward``: the split's backward trace, costed op by op as PyTorch's derivative
    formulas would run it), or None when that cannot be cheaper than a split of it (as many
    differentiable ops as ``SPLIT_US`` pays for) or cannot run that way (a symbol no
    differentiable executor implements, or a higher-order symbol: a checkpoint must keep its
    recomputation, a custom autograd.Function its backward; a plugin's symbol, or a VJP rule
    from a plugin)."""
    tables = [(ex, ex.implementations(), model.dispatch(ex)) for ex in differentiable(executors)]
    if not tables:
        return None
    split_us, node_us = prices(model)
    total, nodes = 0.0, 0
    for b in trace.bound_symbols:
        if subtraces(b) or not _core_defined(b.sym.id):
            return None
        costs = [model.symbol_us(b, d) for ex, table, d in tables
                 if b.sym.id in table and _decline_reason(ex, b) is None]
        if not costs:
            return None
        total += min(costs)
        if any(isinstance(p, TensorProxy) and p.requires_grad for p in b.flat_outs):
            nodes += 1
            if nodes * node_us >= split_us:
                return None
    dispatch = min(d for _, _, d in tables)
    total += sum(model.symbol_us(b, dispatch) for b in backward.bound_symbols)
    return total + nodes * node_us


def why(op_by_op: float, split: float, split_us: float) -> str:
    """tc.explain's reason for running op by op under PyTorch's autograd."""
    return (f"running its ops one by one under PyTorch's autograd is estimated to cost less ({op_by_op:.1f} us per "
            f"training step) than a forward and a backward trace ({split:.1f} us, of which {split_us:.0f} us is the "
            f"fixed cost of running them as one autograd node)")


__all__ = ["DEFAULT_SPLIT_US", "DEFAULT_GRAD_NODE_US", "SPLIT_US", "differentiable", "op_by_op_us", "prices", "why"]
