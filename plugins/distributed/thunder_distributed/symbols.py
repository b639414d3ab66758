"""The collective symbols, defined when the op language loads (``thunder_core_symbols``).

Two families, both run by the ``torch`` executor (every torch-level symbol is), both tagged
``"effect"`` (a collective is communication every rank must make: dead-code elimination
never drops one whose result is unused) and carrying no op trait (no executor fuses them,
autograd never recomputes them in the backward):

* **in place**, what ``torch.distributed``'s API does (``dist.all_reduce(t)``):
  ``ltorch.dist_all_reduce_``, ``dist_broadcast_``, ``dist_all_gather_into_tensor_``,
  ``dist_reduce_scatter_tensor_``, ``dist_all_to_all_single_`` write into their first
  tensor argument (trait ``inplace``) by calling the eager function of :mod:`.ops`;
  ``dist_barrier`` has no output. Eager autograd does not see these writes (torch warns that
  ``c10d::allreduce_`` has no autograd kernel), so they have no functional form: a trace that
  needs gradients through one runs under PyTorch's autograd, as eager does.
* **functional**, the ``torch.ops._c10d_functional`` operators that
  ``torch.distributed._functional_collectives`` and DTensor are built on: ``ltorch.all_reduce``,
  ``all_gather_into_tensor``, ``reduce_scatter_tensor``, ``all_to_all_single``, ``broadcast``
  return a new tensor whose collective may still be in flight, and ``ltorch.wait_tensor``
  waits for it (or for an ``async_op=True`` in-place collective's tensor). VJP rules: vjp.py.
  ``ltorch.fsdp_all_gather`` is FSDP2's parameter all-gather (fsdp.py).

A collective's process group is printed by name (``group_name='0'``) and resolved on every
call; its reduction by name (``reduce_op='sum'``).
"""

from __future__ import annotations

import torch

from thunder_core.extend import tensor_proxy

from . import ops

#: python name -> the entry recording that symbol from torch's arguments (filled by define())
ENTRIES: dict = {}
_C = torch.ops._c10d_functional


def _first_like(tensor, *args, **kwargs):
    return tensor_proxy(tensor.shape, tensor.dtype, tensor.device, tensor.requires_grad)


def _no_output(*args, **kwargs):
    return None


def define():
    """Define every symbol of the plugin (called once, by the ``thunder_core_symbols`` hook)."""
    from thunder_core.extend import torch_op  # (the op language, which calls this while it loads)

    inplace = ("inplace", "effect")

    @torch_op(ops.all_reduce_, inputs=("tensor",), meta=_first_like, tags=inplace)
    def dist_all_reduce_(tensor, reduce_op="sum", group_name="0", async_op=False):
        """``dist.all_reduce``: ``tensor`` reduced across the group, in place."""

    @torch_op(ops.broadcast_, inputs=("tensor",), meta=_first_like, tags=inplace)
    def dist_broadcast_(tensor, group_src=0, group_name="0", async_op=False):
        """``dist.broadcast``: ``tensor`` of the group's rank ``group_src``, in place."""

    @torch_op(ops.all_gather_into_tensor_, inputs=("output", "input"), meta=_first_like, tags=inplace)
    def dist_all_gather_into_tensor_(output, input, group_name="0", async_op=False):
        """``dist.all_gather_into_tensor``: every rank's ``input`` into ``output``."""

    @torch_op(ops.reduce_scatter_tensor_, inputs=("output", "input"), meta=_first_like, tags=inplace)
    def dist_reduce_scatter_tensor_(output, input, reduce_op="sum", group_name="0", async_op=False):
        """``dist.reduce_scatter_tensor``: this rank's part of the reduced ``input`` into ``output``."""

    @torch_op(ops.all_to_all_single_, inputs=("output", "input"), meta=_first_like, tags=inplace)
    def dist_all_to_all_single_(output, input, output_split_sizes=None, input_split_sizes=None, group_name="0",
                                async_op=False):
        """``dist.all_to_all_single``: the pieces of ``input`` exchanged into ``output``."""

    @torch_op(ops.barrier, inputs=(), meta=_no_output, tags=("effect",))
    def dist_barrier(group_name="0"):
        """``dist.barrier``: every rank of the group reaches this point."""

    effect = ("effect",)

    @torch_op(_C.all_reduce, _C.all_reduce.default, inputs=("input",), tags=effect)
    def all_reduce(input, reduce_op, group_name):
        """``_c10d_functional.all_reduce``: a new tensor, reduced across the group (wait for it)."""

    @torch_op(_C.all_gather_into_tensor, _C.all_gather_into_tensor.default, inputs=("input",), tags=effect)
    def all_gather_into_tensor(input, group_size, group_name):
        """``_c10d_functional.all_gather_into_tensor``: every rank's ``input`` stacked along dim 0."""

    @torch_op(_C.reduce_scatter_tensor, _C.reduce_scatter_tensor.default, inputs=("input",), tags=effect)
    def reduce_scatter_tensor(input, reduce_op, group_size, group_name):
        """``_c10d_functional.reduce_scatter_tensor``: this rank's part of the reduced ``input``."""

    @torch_op(_C.all_to_all_single, _C.all_to_all_single.default, inputs=("input",), tags=effect)
    def all_to_all_single(input, output_split_sizes, input_split_sizes, group_name):
        """``_c10d_functional.all_to_all_single``: the pieces of ``input`` exchanged."""

    @torch_op(_C.broadcast, _C.broadcast.default, inputs=("input",), tags=effect)
    def broadcast(input, src, group_name):
        """``_c10d_functional.broadcast``: rank ``src``'s ``input``."""

    @torch_op(_C.wait_tensor, _C.wait_tensor.default, inputs=("tensor",), tags=("may-return-input", "effect"))
    def wait_tensor(tensor):
        """``_c10d_functional.wait_tensor``: ``tensor`` once the collective writing it has finished."""

    from . import fsdp

    fsdp.define_symbols()
    ENTRIES.update((e.__name__, e) for e in (
        dist_all_reduce_, dist_broadcast_, dist_all_gather_into_tensor_, dist_reduce_scatter_tensor_,
        dist_all_to_all_single_, dist_barrier, all_reduce, all_gather_into_tensor, reduce_scatter_tensor,
        all_to_all_single, broadcast, wait_tensor))
