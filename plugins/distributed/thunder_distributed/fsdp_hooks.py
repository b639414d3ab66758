"""FSDP2's forward hooks, looked aside (see fsdp.py for what they write into the trace).
Imported only once the program has imported FSDP2 (``fully_shard``): plugin.py's lookaside
table names these hooks only then."""

from __future__ import annotations

import weakref

import torch
from torch.distributed.fsdp._fully_shard import _fsdp_collectives as collectives
from torch.distributed.fsdp._fully_shard._fsdp_common import FSDPMeshInfo
from torch.distributed.fsdp._fully_shard._fsdp_state import FSDPState
from torch.distributed.tensor import Shard
from thunder_core.extend import read_state, substitute

from .api import op_name
from .fsdp import ENTRIES

#: interpreter -> stack of [(parameter, what its reads gave before)] per running FSDP unit
_SWAPPED: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _refusal(state, group) -> str | None:
    """Why the plugin cannot write this FSDP unit's hooks into a trace, or None: what
    ``fully_shard`` fixed (checked while tracing)."""
    mp = state._mp_policy
    if mp.param_dtype is not None or mp.reduce_dtype is not None or mp.output_dtype is not None:
        return f"mixed precision ({mp})"
    if len(state._modules) != 1:
        return "fully_shard of several modules as one group"
    if type(group.mesh_info) is not FSDPMeshInfo:
        return f"a {type(group.mesh_info).__name__} (HSDP or another multi-dimensional mesh)"
    for fp in group.fsdp_params:
        if fp.offload_to_cpu:
            return "CPU offload"
        if fp.is_dtensor:
            return f"the parameter {fp._module_info.param_name}, already a DTensor (tensor parallel)"
        if fp.fsdp_placement != Shard(0):
            return f"sharding {fp._module_info.param_name} as {fp.fsdp_placement} (only Shard(0) is supported)"
        if hasattr(fp._sharded_local_tensor, "fsdp_pre_all_gather"):
            return f"an all-gather extension on {fp._module_info.param_name}"
    return None


def _config(state):
    """What the trace depends on of what FSDP lets a user change between iterations, per param
    group: read again on every call (``read_state``), so a change compiles again."""
    return tuple((g.reduce_grads, g.all_reduce_grads, g.gradient_divide_factor, g.force_sum_reduction_for_comms,
                  g._all_reduce_hook is None, type(g._reduce_scatter_comm) is collectives.DefaultReduceScatter)
                 for g in state._fsdp_param_groups)


def _refuse(module, reason):
    raise NotImplementedError(
        f"tc.jit of an FSDP2 model ({type(module).__name__}) does not support {reason}. Supported: fully_shard on a 1-D "
        f"mesh with the default MixedPrecisionPolicy and OffloadPolicy; or run that model without tc.jit.")


def _path(root, param) -> list[str]:
    for name, p in root.named_parameters(remove_duplicate=False):
        if p is param:
            return name.split(".")
    raise NotImplementedError(f"FSDP: a parameter of the unit {type(root).__name__} is not one of its module's "
                              f"parameters, so tc.jit cannot read it.")


def _pre_forward(interpreter, args, kwargs):
    from thunder_core.extend import F

    state, module, fwd_args, fwd_kwargs = args
    if state._is_root is None:
        state._lazy_init()  # FSDP's one-time set-up of the first forward (dtypes, the root), made on the first call
    for group, (reduce, all_reduce, _, _, no_hook, default_comm) in zip(state._fsdp_param_groups,
                                                                        read_state(interpreter, _config, state)):
        reason = _refusal(state, group) or (
            None if reduce and all_reduce else "set_requires_gradient_sync(False) (accumulation without reduce-scatter)")
        if reason is None and not (no_hook and default_comm):
            reason = "a custom reduce-scatter or all-reduce hook"
        if reason is not None:
            _refuse(module, reason)
    swapped = []
    for group in state._fsdp_param_groups:
        rs_group = group._reduce_scatter_process_group
        size = read_state(interpreter, rs_group.size)
        for fp in group.fsdp_params:
            param = module
            for name in _path(module, fp.sharded_param):  # read along its path: the trace's input, fetched each call
                param = interpreter.call(getattr, (param, name))
            pre, post, op, _ = collectives._get_gradient_divide_factors(
                rs_group, None, param.dtype, param.device.type, group.gradient_divide_factor,
                group.force_sum_reduction_for_comms)
            local = ENTRIES["to_local"](param, local_shape=tuple(fp.sharded_size))
            pad = fp.padded_sharded_param_size[0] - fp.sharded_size[0]
            if pad:
                local = F.pad(local, [0, 0] * (local.ndim - 1) + [0, pad])
            if not isinstance(op, torch.distributed.ReduceOp.RedOpType):
                _refuse(module, f"a gradient divide factor other than the world size ({group.gradient_divide_factor})")
            gathered = ENTRIES["all_gather"](local, size, rs_group.group_name, op_name(op), pre, post)
            full = gathered[: fp._orig_size[0]] if gathered.shape[0] != fp._orig_size[0] else gathered
            swapped.append((fp.sharded_param, substitute(interpreter, fp.sharded_param, full)))
    _SWAPPED.setdefault(interpreter, []).append(swapped)
    return fwd_args, fwd_kwargs


def _post_forward(interpreter, args, kwargs):
    state, module, fwd_input, output = args
    stack = _SWAPPED.get(interpreter)
    if stack:
        for param, before in reversed(stack.pop()):
            substitute(interpreter, param, before)
    return output


def lookasides():
    return {FSDPState._pre_forward: _pre_forward, FSDPState._post_forward: _post_forward}
