"""Shared by the nvfuser executor's tests: planning with fake CUDA tensors, regions, leaves."""

import dataclasses

import torch
from torch._subclasses.fake_tensor import FakeTensorMode

import thunder_core as tc
from thunder_executor_nvfuser.plugin import NVFUSER

#: no per-call overhead, so its regions win even alone (each sample's symbol must be claimed)
NVFUSER_FREE = dataclasses.replace(NVFUSER, dispatch_us={"cuda": 0.0})
#: claims only, without nvfuser_direct: no artifacts, plans wherever the core runs
NVFUSER_CLAIMS = dataclasses.replace(NVFUSER_FREE, can_plan=None, artifacts=None)


def fake(*specs):
    """Fake CUDA tensors from (shape, dtype) or (shape, dtype, requires_grad) specs."""
    out = []
    with FakeTensorMode():
        for spec in specs:
            shape, dtype, *grad = spec
            if dtype.is_floating_point:
                t = torch.randn(shape, dtype=dtype, device="cuda")
            elif dtype == torch.bool:
                t = torch.randn(shape, device="cuda") > 0
            else:
                t = torch.randint(0, 8, shape, dtype=dtype, device="cuda")
            out.append(t.requires_grad_(bool(grad and grad[0])))
    return out


def plan(fn, *specs, executor=NVFUSER_FREE, target="h100"):
    return tc.plan(fn, *fake(*specs), target=target, executors=[executor, "torch"])


def regions(p, name="nvfuser"):
    return {k: region for k, (ex, region) in p.regions.items() if ex == name}


def leaf_ids(bsym) -> set:
    """Symbol ids of what ``bsym`` runs, down to primitives (and leaves without decomposition)."""
    if bsym.sym.id.startswith("prims.") or not bsym.subsymbols:
        return {bsym.sym.id}
    return set().union(*(leaf_ids(s) for s in bsym.subsymbols))


def region_leaves(region) -> set:
    return set().union(*(leaf_ids(b) for b in region.bsyms))
