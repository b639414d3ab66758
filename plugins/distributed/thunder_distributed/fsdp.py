"""``tc.jit`` of a model sharded with FSDP2's ``fully_shard``: FSDP's parameter all-gather and
gradient reduce-scatter inside the traces.

Eager FSDP2 keeps each parameter as a DTensor holding this rank's shard (dim 0, padded to an
even size). Its forward pre-hook all-gathers the unit's shards into full parameters and
swaps them into the modules; its post-hook swaps the shards back; in the backward, hooks
reduce-scatter the full gradients into the shards' gradients (averaged over the ranks). Those
hooks move tensors between storages, swap parameters and register autograd hooks: no trace
can hold them. So the plugin looks aside FSDP's forward hooks and writes what they do into
the trace, per FSDP unit, where FSDP does it:

* pre-forward (``FSDPState._pre_forward``, looked aside in fsdp_hooks.py): for each parameter of the unit,
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

import torch
from thunder_core.extend import tensor_proxy

# (FSDP's own modules are imported where used: importing torch.distributed.fsdp takes ~0.45 s,
# which a program not using FSDP should not pay when thunder_core loads this plugin's symbols;
# the hooks, in fsdp_hooks.py, are looked aside once the program has imported FSDP)

ENTRIES: dict = {}


# ---------------------------------------------------------------- eager functions of the symbols

def dtensor_to_local(param, local_shape=()):
    """``param.to_local()``: this rank's shard of a DTensor (``local_shape``: its shape, for the meta)."""
    return param.to_local()


def dtensor_from_local(local, like):
    """A DTensor with ``like``'s mesh, placements, shape and strides holding ``local``."""
    from torch.distributed.tensor import DTensor

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
