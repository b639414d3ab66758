"""The eager functions the plugin's in-place collective symbols stand for.

Each is what the torch executor runs for its symbol (``ltorch.dist_all_reduce_`` runs
:func:`all_reduce_`), and what a trace calls it with: tensors positional, everything else a
printable constant (a reduction by name, a process group by ``group_name``, resolved again
on every call). They make the same ``torch.distributed`` call eager code makes, so results
are eager's bit for bit. With ``async_op=True`` the Work is registered on the tensor the
collective writes, and ``torch.ops._c10d_functional.wait_tensor`` of that tensor (the
``ltorch.wait_tensor`` symbol a traced ``work.wait()`` records) waits for it.
"""

from __future__ import annotations

import torch
import torch.distributed as dist
from torch.distributed import distributed_c10d as c10d

#: reduction name in a trace -> torch.distributed.ReduceOp
REDUCE_OPS = {"sum": dist.ReduceOp.SUM, "avg": dist.ReduceOp.AVG, "product": dist.ReduceOp.PRODUCT,
              "min": dist.ReduceOp.MIN, "max": dist.ReduceOp.MAX, "band": dist.ReduceOp.BAND,
              "bor": dist.ReduceOp.BOR, "bxor": dist.ReduceOp.BXOR}


def group(group_name: str):
    """The process group named ``group_name`` (``ProcessGroup.group_name``) in this process."""
    return c10d._resolve_process_group(group_name)


def _issued(work, tensor, async_op):
    if async_op:
        torch._C._distributed_c10d._register_work(tensor, work)
    return tensor


def all_reduce_(tensor, reduce_op: str = "sum", group_name: str = "0", async_op: bool = False):
    """``dist.all_reduce(tensor, op, group, async_op)``: reduces ``tensor`` in place, returns it."""
    work = dist.all_reduce(tensor, op=REDUCE_OPS[reduce_op], group=group(group_name), async_op=async_op)
    return _issued(work, tensor, async_op)


def broadcast_(tensor, group_src: int = 0, group_name: str = "0", async_op: bool = False):
    """``dist.broadcast(tensor, group_src=..., group=...)``: ``tensor`` in place, returned."""
    work = dist.broadcast(tensor, group=group(group_name), async_op=async_op, group_src=group_src)
    return _issued(work, tensor, async_op)


# torch 2.13 renamed them (the old names warn and call these); torch 2.10 has the old ones only
_ALL_GATHER = getattr(dist, "all_gather_single", None) or dist.all_gather_into_tensor
_REDUCE_SCATTER = getattr(dist, "reduce_scatter_single", None) or dist.reduce_scatter_tensor


def all_gather_into_tensor_(output, input, group_name: str = "0", async_op: bool = False):
    """``dist.all_gather_into_tensor(output, input, group)`` (``all_gather_single``): writes
    ``output``, returns it."""
    work = _ALL_GATHER(output, input, group=group(group_name), async_op=async_op)
    return _issued(work, output, async_op)


def reduce_scatter_tensor_(output, input, reduce_op: str = "sum", group_name: str = "0", async_op: bool = False):
    """``dist.reduce_scatter_tensor(output, input, op, group)`` (``reduce_scatter_single``):
    writes ``output``, returns it."""
    work = _REDUCE_SCATTER(output, input, op=REDUCE_OPS[reduce_op], group=group(group_name), async_op=async_op)
    return _issued(work, output, async_op)


def all_to_all_single_(output, input, output_split_sizes=None, input_split_sizes=None, group_name: str = "0",
                       async_op: bool = False):
    """``dist.all_to_all_single(output, input, ...)``: writes ``output``, returns it."""
    work = dist.all_to_all_single(output, input, output_split_sizes, input_split_sizes, group=group(group_name),
                                  async_op=async_op)
    return _issued(work, output, async_op)


def barrier(group_name: str = "0"):
    """``dist.barrier(group)``."""
    dist.barrier(group=group(group_name))
