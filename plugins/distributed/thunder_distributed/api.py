"""``torch.distributed``'s collectives as the jit traces them.

Each function here has the signature of the ``torch.distributed`` function it replaces (the
plugin's lookasides interpret it in place of that function) and does what eager does up to
the ``ProcessGroup`` call, which it replaces by a call of the eager function in :mod:`.ops`
that the trace records as a symbol. Being interpreted, what it reads of the process group
(``group.group_name``, the rank) and of the reduction (``op.name``) is guarded like any read
of outside state. With ``async_op=True`` it returns a :class:`Work` whose ``wait()`` records
``ltorch.wait_tensor``.
"""

from __future__ import annotations

import torch
import torch.distributed as dist
from torch.distributed import distributed_c10d as c10d

from . import ops


class Work:
    """What an ``async_op=True`` collective returns to traced code, in place of
    ``torch.distributed.Work``: ``wait()`` waits for the tensors the collective writes (the
    trace records ``ltorch.wait_tensor``); other Work methods are not supported inside a
    jitted function."""

    def __init__(self, tensors):
        self._tensors = tensors

    def wait(self, timeout=None):
        for t in self._tensors:
            torch.ops._c10d_functional.wait_tensor(t)
        return True

    def __getattr__(self, name):
        raise AttributeError(
            f"torch.distributed.Work.{name} is not supported inside a jitted function: an async collective's handle "
            f"there supports wait() only (recorded as ltorch.wait_tensor). Call wait(), or use {name} outside the "
            f"jitted function.")


def op_name(op) -> str:
    """The trace's name of reduction ``op`` (``dist.ReduceOp.SUM`` -> ``"sum"``)."""
    if not isinstance(op, dist.ReduceOp.RedOpType):
        raise NotImplementedError(
            f"reduction {op!r}: inside a jitted function the reductions of dist.ReduceOp (SUM, AVG, PRODUCT, MIN, MAX, "
            f"BAND, BOR, BXOR) are supported; a ReduceOp object such as PREMUL_SUM's is not.")
    name = op.name.lower()
    if name not in ops.REDUCE_OPS:
        raise NotImplementedError(f"reduction dist.ReduceOp.{op.name} is not supported inside a jitted function.")
    return name


def _group(group, what):
    """(process group, its name) for the collective ``what``, or None when this rank is not in it."""
    group = c10d._group_or_default_group(group)
    if c10d._rank_not_in_group(group):
        c10d._warn_not_in_group(what)
        return None
    return group, group.group_name


def _done(written, async_op):
    return Work(written) if async_op else None


def all_reduce(tensor, op=dist.ReduceOp.SUM, group=None, async_op=False):
    found = _group(group, "all_reduce")
    if found is None:
        return None
    if tensor.is_complex():
        tensor = torch.view_as_real(tensor)
    ops.all_reduce_(tensor, op_name(op), found[1], async_op)
    return _done((tensor,), async_op)


def broadcast(tensor, src=None, group=None, async_op=False, group_src=None):
    group = c10d._group_or_default_group(group)
    group_src = c10d._canonicalize_group_rank(group, src, group_src, return_global=False)
    if c10d._rank_not_in_group(group):
        c10d._warn_not_in_group("broadcast")
        return None
    if tensor.is_complex():
        tensor = torch.view_as_real(tensor)
    ops.broadcast_(tensor, group_src, group.group_name, async_op)
    return _done((tensor,), async_op)


def all_gather_into_tensor(output_tensor, input_tensor, group=None, async_op=False):
    found = _group(group, "all_gather_into_tensor")
    if found is None:
        return None
    if output_tensor.is_complex():
        output_tensor, input_tensor = torch.view_as_real(output_tensor), torch.view_as_real(input_tensor)
    ops.all_gather_into_tensor_(output_tensor, input_tensor, found[1], async_op)
    return _done((output_tensor,), async_op)


def reduce_scatter_tensor(output, input, op=dist.ReduceOp.SUM, group=None, async_op=False):
    found = _group(group, "reduce_scatter_tensor")
    if found is None:
        return None
    ops.reduce_scatter_tensor_(output, input, op_name(op), found[1], async_op)
    return _done((output,), async_op)


def all_to_all_single(output, input, output_split_sizes=None, input_split_sizes=None, group=None, async_op=False):
    found = _group(group, "all_to_all_single")
    if found is None:
        return None
    if output.is_complex():
        output, input = torch.view_as_real(output), torch.view_as_real(input)
    out_splits = None if output_split_sizes is None else list(output_split_sizes)
    in_splits = None if input_split_sizes is None else list(input_split_sizes)
    ops.all_to_all_single_(output, input, out_splits, in_splits, found[1], async_op)
    return _done((output,), async_op)


def barrier(group=None, async_op=False, device_ids=None, timeout=None):
    if async_op or device_ids is not None or timeout is not None:
        raise NotImplementedError("dist.barrier inside a jitted function takes only group= (not async_op, "
                                  "device_ids or timeout).")
    found = _group(group, "barrier")
    if found is not None:
        ops.barrier(found[1])


def broadcast_coalesced(process_group, tensors, buffer_size, authoritative_rank=0):
    """``dist._broadcast_coalesced`` (DDP's buffer sync): one in-place broadcast per tensor (the
    same values: a broadcast is a copy), so each stays a write into its own tensor."""
    for t in tensors:
        ops.broadcast_(t, authoritative_rank, process_group.group_name, False)


#: torch.distributed function -> its traced replacement above
REPLACEMENTS = {dist.all_reduce: all_reduce, dist.broadcast: broadcast,
                dist.all_gather_into_tensor: all_gather_into_tensor,
                dist.reduce_scatter_tensor: reduce_scatter_tensor, dist.all_to_all_single: all_to_all_single,
                dist.barrier: barrier, dist._broadcast_coalesced: broadcast_coalesced}
for _name, _replacement in (("all_gather_single", all_gather_into_tensor), ("reduce_scatter_single",
                                                                            reduce_scatter_tensor)):
    if hasattr(dist, _name):  # torch 2.13's names of the two above
        REPLACEMENTS[getattr(dist, _name)] = _replacement
