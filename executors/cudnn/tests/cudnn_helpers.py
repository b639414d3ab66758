"""Shared by the cudnn executor's tests: fake CUDA inputs, plans, and reading artifacts back."""

import json
import math

import torch
from torch._subclasses.fake_tensor import FakeTensorMode

import thunder_core as tc
from thunder_core.extend import profile
from thunder_executor_cudnn.plugin import CUDNN


def fake(*shapes, dtype=torch.bfloat16, requires_grad=False):
    with FakeTensorMode():
        out = [torch.randn(*s, device="cuda").to(dtype) for s in shapes]
    return [t.requires_grad_() if requires_grad else t for t in out]


def cheap_cudnn(name="h100"):
    """The target's profile with cuDNN's overhead measured as 0 and eager's as 1 ms: cuDNN
    wins every claim it makes (tests of what it builds, not of its cost)."""
    return profile(name).replace(dispatch_us={"cudnn": 0.0, "torch": 1000.0})


def plan(fn, *args, target="h100"):
    return tc.plan(fn, *args, target=target, executors=[CUDNN, "torch"])


def cudnn_regions(p):
    return {name: region for name, (ex, region) in p.regions.items() if ex == "cudnn"}


def graphs_of(p, name):
    """The JSON of each cudnn-graph artifact of region ``name``."""
    return [json.loads(a.content) for a in p.artifacts[name] if a.kind == "cudnn-graph"]


def row_major(shape):
    return [math.prod(shape[i + 1:]) for i in range(len(shape))]


def tensor(graph, role, constant=False):
    """(dims, strides, dtype name) of the graph tensor playing ``role`` (a baked-in scalar,
    named by its role, with ``constant``)."""
    roles = {**graph["roles"]["inputs"], **graph["roles"]["outputs"]}
    t = graph["graph"]["tensors"][role if constant else roles[role]]
    return list(t["dim"]), list(t["stride"]), t["dtype"].removeprefix("data_type.")


CUDNN_DTYPE = {torch.bfloat16: "BFLOAT16", torch.float16: "HALF", torch.float32: "FLOAT"}
