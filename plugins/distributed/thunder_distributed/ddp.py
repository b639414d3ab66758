"""``tc.jit(DistributedDataParallel(model))``: DDP's forward traced, its reducer left to work.

DDP averages gradients with its C++ reducer: at construction it hooks every parameter's
gradient accumulator, and each forward tells it an iteration is coming
(``reducer.prepare_for_forward()`` before, ``reducer.prepare_for_backward(...)`` after). In the
backward, as the jitted function's autograd node hands each parameter its gradient, the
accumulator's hook marks it ready and the reducer all-reduces full buckets, exactly as in
eager DDP (its buckets, its bucket rebuild after the first iteration, its gradient division).
The compiled function's backward gives every parameter its gradient at once, when its last
op has run, so the all-reduces overlap no backward computation of the jitted part
(benchmarks/distributed_ddp.py measures it).

What tracing does with DDP's forward (``DistributedDataParallel.forward``, interpreted):

* the reducer's and logger's host-side calls (``prepare_for_forward``, ``_rebuild_buckets``,
  ``prepare_for_backward``, ``set_runtime_stats_and_log``, ``_set_forward_pass_work_handle``)
  are effects: recorded while tracing and made on every call of the compiled function, after
  its computation (before the caller can run the backward), in DDP's order; never once while
  tracing. ``_rebuild_buckets()`` answers False while tracing (DDP only logs its answer);
* buffers DDP broadcasts before or after the forward (``broadcast_buffers=True`` with a module
  that has buffers) are ``ltorch.dist_broadcast_`` symbols in the computation, where DDP makes
  them;
* ``_inside_ddp_forward`` (a marker for torch.compile's DDPOptimizer, a class attribute) and
  ``record_function`` (a profiler range) are left out: the module's forward is called directly;
* the first call runs DDP's one-time ``_lazy_init`` natively, as eager's first forward does.

Refused, with the reason: ``find_unused_parameters=True`` and ``static_graph=True`` (DDP
looks for the parameters an iteration used by walking the autograd graph from the outputs,
where the jitted function is one node holding every parameter), DDP's Python reducer
(compiled autograd) and ``_delay_all_reduce_all_params``. ``DDP(tc.jit(model))`` needs none of
this: DDP's own forward runs eagerly around the jitted module.
"""

from __future__ import annotations

import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel
from thunder_core.extend import record_effect

# DDP's host-side calls that change the reducer's or the logger's state: effects
_EFFECTS = (dist.Reducer.prepare_for_forward, dist.Reducer.prepare_for_backward,
            dist.Reducer._set_forward_pass_work_handle, dist.Logger.set_runtime_stats_and_log)
_REFUSED = (("find_unused_parameters", "find_unused_parameters=True"), ("static_graph", "static_graph=True"),
            ("_use_python_reducer", "DDP's Python reducer (compiled autograd)"),
            ("_delay_all_reduce_all_params", "delayed all-reduce of all parameters"))


def _native(fn):
    return getattr(fn, "__func__", fn)


def forward(self, *inputs, **kwargs):
    """``DistributedDataParallel.forward`` as traced (see the module docstring)."""
    inputs, kwargs = self._pre_forward(*inputs, **kwargs)
    output = self.module(*inputs, **kwargs)
    return self._post_forward(output)


def _forward(interpreter, args, kwargs):
    ddp = args[0]
    for attr, what in _REFUSED:
        if getattr(ddp, attr, False):
            raise NotImplementedError(
                f"tc.jit(DistributedDataParallel(...)) does not support {what}: DDP finds the parameters an iteration "
                f"used by walking the autograd graph from its outputs (or runs its own reducer), and the jitted "
                f"function is one autograd node holding every parameter. Use DistributedDataParallel(tc.jit(model)) "
                f"instead (DDP then runs eagerly around the compiled module).")
    if not ddp._lazy_init_ran:
        ddp._lazy_init()  # one-time set-up of eager's first forward, made on the first call
    return interpreter.call(forward, args, kwargs)


def _effect(fn):
    native = _native(fn)

    def lookaside(interpreter, args, kwargs):
        record_effect(interpreter, native, *args, **kwargs)
    return lookaside


def _rebuild_buckets(interpreter, args, kwargs):
    record_effect(interpreter, _native(dist.Reducer._rebuild_buckets), *args, **kwargs)
    return False


LOOKASIDES = {_native(fn): _effect(fn) for fn in _EFFECTS}
LOOKASIDES[_native(dist.Reducer._rebuild_buckets)] = _rebuild_buckets
LOOKASIDES[DistributedDataParallel.forward] = _forward
