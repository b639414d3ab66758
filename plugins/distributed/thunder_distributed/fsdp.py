"""``tc.jit`` of a model sharded with FSDP2's ``fully_shard``: FSDP's parameter all-gather and
gradient reduce-scatter inside the traces.

Eager FSDP2 keeps each parameter as a DTensor holding this rank's shard (dim 0, padded to an
even size). Its forward pre-hook all-gathers the unit's shards into full parameters and
swaps them into the modules; its post-hook swaps the shards back; in the backward, hooks
reduce-scatter the full gradients into the shards' gradients (averaged over the ranks). Those
hooks move tensors between storages, swap parameters and register autograd hooks: no trace
can hold them. So the plugin looks aside FSDP's forward hooks and writes what they do into
the trace, per FSDP unit, where FSDP does it:

* pre-forward (``FSDPState._pre_forward``): for each parameter of the unit,
  ``local = ltorch.dtensor_to_local(param)`` (the trace's input is the DTensor parameter
  itself), padded to FSDP's padded shard size, ``ltorch.fsdp_all_gather`` of it over the
  unit's process group, sliced to the parameter's size; while the module runs its forward,
  reads of the parameter give that full tensor (``thunder_core.extend.substitute``), as they
  give FSDP's unsharded parameter in eager;
* post-forward (``FSDPState._post_forward``): reads give the DTensor again;
* backward, by the VJP rules: ``fsdp_all_gather``'s is FSDP's reduce-scatter (its reduction
  and divide factors, from FSDP's own ``_get_gradient_divide_factors``); ``dtensor_to_local``'s
  makes the DTensor gradient (``DTensor.from_local`` with the parameter's mesh and
  placements), which PyTorch accumulates into ``param.grad`` as FSDP does.

Results equal eager FSDP2's (forward, gradients, optimizer steps on the DTensor parameters).
Differences: the gathered parameters are kept for the backward rather than gathered again
(FSDP's ``reshard_after_forward`` saves that memory); FSDP's prefetching and stream overlap
do not apply. Refused with the reason (read on every call, so changing them compiles again):
mixed precision, CPU offload, HSDP and other multi-dimensional meshes, sharding on a dim
other than 0, parameters that were already DTensors (tensor parallel), all-gather extensions,
custom reduce-scatter or all-reduce hooks, ``set_requires_gradient_sync(False)``, and
``fully_shard`` of several modules as one group.
"""

from __future__ import annotations

import weakref

import torch
from torch.distributed.fsdp._fully_shard import _fsdp_collectives as collectives
from torch.distributed.fsdp._fully_shard._fsdp_common import FSDPMeshInfo
from torch.distributed.fsdp._fully_shard._fsdp_state import FSDPState
from torch.distributed.tensor import DTensor, Shard
from thunder_core.extend import read_state, substitute, tensor_proxy

from .api import op_name


#: interpreter -> stack of [(parameter, what its reads gave before)] per running FSDP unit
_SWAPPED: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
ENTRIES: dict = {}


# ---------------------------------------------------------------- eager functions of the symbols

def dtensor_to_local(param, local_shape=()):
    """``param.to_local()``: this rank's shard of a DTensor (``local_shape``: its shape, for the meta)."""
    return param.to_local()


def dtensor_from_local(local, like):
    """A DTensor with ``like``'s mesh, placements, shape and strides holding ``local``."""
    return DTensor.from_local(local, like.device_mesh, like.placements, run_check=False, shape=like.shape,
                              stride=like.stride())


def fsdp_all_gather(shard, group_size=1, group_name="0", reduce_op="avg", predivide=None, postdivide=None):
    """Every rank's ``shard`` stacked along dim 0 (FSDP2's all-gather). The other arguments say
    how the backward reduce-scatters the gradient, as FSDP's: ``reduce_op``, and the factors
    the gradient is divided by before and after (None: no division)."""
    out = torch.ops._c10d_functional.all_gather_into_tensor(shard.contiguous(), group_size, group_name)
    return torch.ops._c10d_functional.wait_tensor(out)


def define_symbols():
    """``ltorch.dtensor_to_local``, ``ltorch.dtensor_from_local``, ``ltorch.fsdp_all_gather``."""
    from thunder_core.extend import torch_op  # (the op language, which calls this while it loads)

    def to_local_meta(param, local_shape=()):
        return tensor_proxy(local_shape, param.dtype, param.device, param.requires_grad)

    def from_local_meta(local, like):
        return tensor_proxy(like.shape, local.dtype, local.device, local.requires_grad)

    def gather_meta(shard, group_size=1, group_name="0", reduce_op="avg", predivide=None, postdivide=None):
        return tensor_proxy((shard.shape[0] * group_size, *shard.shape[1:]), shard.dtype, shard.device,
                            shard.requires_grad)

    @torch_op(dtensor_to_local, inputs=("param",), meta=to_local_meta, tags=("view",), name="dtensor_to_local")
    def to_local(param, local_shape=()):
        """This rank's shard of a DTensor parameter."""

    @torch_op(dtensor_from_local, inputs=("local", "like"), meta=from_local_meta, name="dtensor_from_local")
    def from_local(local, like):
        """A DTensor shaped like ``like`` from this rank's shard."""

    @torch_op(fsdp_all_gather, inputs=("shard",), meta=gather_meta, tags=("effect",), name="fsdp_all_gather")
    def all_gather(shard, group_size=1, group_name="0", reduce_op="avg", predivide=None, postdivide=None):
        """FSDP2's all-gather of a parameter's padded shards."""

    ENTRIES.update(to_local=to_local, from_local=from_local, all_gather=all_gather)


# ---------------------------------------------------------------- the hooks, looked aside

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


# ---------------------------------------------------------------- VJP rules

def _to_local_vjp(b, g):
    (param,) = b.args
    return (ENTRIES["from_local"](g, param),)


def _all_gather_vjp(b, g):
    (shard,) = b.args
    kw = {"group_size": 1, "group_name": "0", "reduce_op": "avg", "predivide": None, "postdivide": None, **b.kwargs}
    if kw["predivide"] is not None:
        g = g / kw["predivide"]
    from .symbols import ENTRIES as C

    out = C["wait_tensor"](C["reduce_scatter_tensor"](g, kw["reduce_op"], kw["group_size"], kw["group_name"]))
    if kw["postdivide"] is not None:
        out = out / kw["postdivide"]
    return (out,)


RULES = {"ltorch.dtensor_to_local": _to_local_vjp, "ltorch.fsdp_all_gather": _all_gather_vjp}
