"""cuDNN frontend graphs for a spec: built once per structure.

A claimed symbol becomes one or two graphs (:class:`Step`), run in order:

* attention forward: ``sdpa`` (q, k, v[, bias]) -> o, without statistics;
* attention backward (``ltorch.sdpa_backward``, which gets no saved statistics from the
  forward): ``sdpa`` with ``generate_stats`` (q, k, v[, bias]) -> o, stats, then
  ``sdpa_backward`` (q, k, v, o, dO, stats[, bias]) -> dQ, dK, dV;
* training's pair (``ltorch.sdpa_forward`` / ``ltorch.sdpa_backward_stats``, the statistics
  saved between them): the first graph alone, then the second alone;
* layer_norm / rms_norm forward: ``layernorm`` / ``rmsnorm`` in the INFERENCE phase
  (x, scale[, bias]) -> y, eps baked in as a pass-by-value scalar;
* their backward (the statistics are recomputed, as the core's symbols do):
  ``layernorm`` / ``rmsnorm`` in the TRAINING phase -> y (discarded), mean, inv_variance,
  then ``layernorm_backward`` / ``rmsnorm_backward`` -> dX, dScale[, dBias].

Roles (``"q"``, ``"dO"``, ``"mean"``...) name each graph's non-virtual tensors; the run-time
lowering binds torch tensors to them. Strides default to the row-major ones of the spec's
shapes; the run-time lowering passes the strides of the tensors it is given (attention
inputs need a unit stride on the head dim only).

Graphs built ahead of time (``aot=True``, for ``tc.plan``) carry the target's device
description (:mod:`.devices`), so libcudnn can lower them without a GPU; graphs built at
run time lower on the current device's cuDNN handle.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass, field

from . import devices
from .library import cudnn, data_type
from .specs import Attention, Norm


@dataclass
class Step:
    """One cuDNN graph and its non-virtual tensors by role."""

    name: str
    graph: object
    inputs: dict = field(default_factory=dict)
    outputs: dict = field(default_factory=dict)
    constants: dict = field(default_factory=dict)  # role -> value of scalars baked in (eps)
    built: bool = False  # execution plans built (at run time, on a GPU)
    checked: dict | None = None  # what aot.check found (once per graph)
    lowering: str = "a cuDNN handle on the current device"  # what libcudnn lowers the graph with


def row_major(shape) -> tuple:
    return tuple(math.prod(shape[i + 1:]) for i in range(len(shape)))


class _Maker:
    """Declares a graph's tensors with their roles, dims, strides and dtypes."""

    def __init__(self, name, dtype, target, strides):
        sm, aot = target
        c, extra, lowering = cudnn(), {}, Step.lowering
        if aot:
            device, why = devices.properties(sm)
            if device is not None:
                extra = {"device_property": device}
                lowering = f"the target's device description ({devices.description(sm)['deviceName']}, no device)"
            else:
                lowering = f"a cuDNN handle (no device description could be made: {why})"
        graph = c.pygraph(name=name, io_data_type=data_type(dtype), intermediate_data_type=c.data_type.FLOAT,
                          compute_data_type=c.data_type.FLOAT, sm_version=sm, **extra)
        self.step = Step(name, graph, lowering=lowering)
        self.dtype, self.strides = dtype, strides or {}

    def input(self, role, shape, dtype=None):
        g = self.step.graph
        t = g.tensor(name=role, dim=list(shape), stride=list(self.strides.get(role, row_major(shape))),
                     data_type=data_type(dtype or self.dtype))
        self.step.inputs[role] = t
        return t

    def constant(self, role, value: float):
        """A float32 scalar held by the graph (pass-by-value: the frontend passes it at every
        execution; never bound by the caller)."""
        self.step.constants[role] = value
        c = cudnn()
        return self.step.graph.tensor_scalar(float(value), c.scalar_type.RUNTIME_PARAM, name=role).set_data_type(
            c.data_type.FLOAT)  # what libcudnn gets for a Python float; the IR would show the io dtype

    def output(self, role, t, shape, dtype=None):
        t.set_output(True).set_dim(list(shape)).set_stride(list(self.strides.get(role, row_major(shape))))
        t.set_data_type(data_type(dtype or self.dtype))
        self.step.outputs[role] = t
        return t


# ---------------------------------------------------------------- attention

def _sdpa_forward(spec: Attention, target, strides, stats: bool) -> Step:
    import torch

    m = _Maker("sdpa_forward_stats" if stats else "sdpa_forward", spec.dtype, target, strides)
    q, k, v = m.input("q", spec.q), m.input("k", spec.k), m.input("v", spec.v)
    bias = m.input("bias", spec.mask) if spec.mask is not None else None
    o, s = m.step.graph.sdpa(name="sdpa", q=q, k=k, v=v, bias=bias, generate_stats=stats, attn_scale=spec.scale,
                             use_causal_mask=spec.causal)
    m.output("o", o, spec.o)
    if stats:
        m.output("stats", s, spec.stats, torch.float32)
    return m.step


def _sdpa_backward(spec: Attention, target, strides) -> Step:
    import torch

    m = _Maker("sdpa_backward", spec.dtype, target, strides)
    q, k, v = m.input("q", spec.q), m.input("k", spec.k), m.input("v", spec.v)
    o, do = m.input("o", spec.o), m.input("dO", spec.o)
    stats = m.input("stats", spec.stats, torch.float32)
    bias = m.input("bias", spec.mask) if spec.mask is not None else None
    dq, dk, dv = m.step.graph.sdpa_backward(name="sdpa_backward", q=q, k=k, v=v, o=o, dO=do, stats=stats, bias=bias,
                                            attn_scale=spec.scale, use_causal_mask=spec.causal)
    m.output("dQ", dq, spec.q)
    m.output("dK", dk, spec.k)
    m.output("dV", dv, spec.v)
    return m.step


# ---------------------------------------------------------------- normalizations

def _norm_shapes(spec: Norm):
    """(x, weight, statistics) dims and strides: x (n, c, 1, 1), weight (1, c, 1, 1)."""
    n, c = spec.n, spec.c
    return ((n, c, 1, 1), (c, 1, c, c)), ((1, c, 1, 1), (c, 1, c, c)), ((n, 1, 1, 1), (1, 1, 1, 1))


def _norm_forward(spec: Norm, target, training: bool) -> Step:
    import torch

    c = cudnn()
    (xd, xs), (wd, ws), (sd, ss) = _norm_shapes(spec)
    phase = c.norm_forward_phase.TRAINING if training else c.norm_forward_phase.INFERENCE
    name = f"{spec.kind.replace('_', '')}_{'training' if training else 'inference'}"
    m = _Maker(name, spec.dtype, target, {"x": xs, "scale": ws, "bias": ws, "y": xs, "mean": ss, "inv_variance": ss})
    x, w, eps = m.input("x", xd), m.input("scale", wd), m.constant("eps", spec.eps)
    if spec.kind == "layer_norm":
        bias = m.input("bias", wd)
        y, mean, inv_var = m.step.graph.layernorm(name="layernorm", norm_forward_phase=phase, input=x, scale=w,
                                                  bias=bias, epsilon=eps)
    else:
        y, inv_var = m.step.graph.rmsnorm(name="rmsnorm", norm_forward_phase=phase, input=x, scale=w, bias=None,
                                          epsilon=eps)
        mean = None
    m.output("y", y, xd)
    if training:
        if mean is not None:
            m.output("mean", mean, sd, torch.float32)
        m.output("inv_variance", inv_var, sd, torch.float32)
    return m.step


def _norm_backward(spec: Norm, target) -> Step:
    import torch

    (xd, xs), (wd, ws), (sd, ss) = _norm_shapes(spec)
    m = _Maker(f"{spec.kind.replace('_', '')}_backward", spec.dtype, target,
               {"dy": xs, "x": xs, "scale": ws, "mean": ss, "inv_variance": ss, "dx": xs, "dscale": ws, "dbias": ws})
    dy, x, w = m.input("dy", xd), m.input("x", xd), m.input("scale", wd)
    inv_var = m.input("inv_variance", sd, torch.float32)
    if spec.kind == "layer_norm":
        mean = m.input("mean", sd, torch.float32)
        dx, dw, db = m.step.graph.layernorm_backward(name="layernorm_backward", grad=dy, input=x, scale=w, mean=mean,
                                                     inv_variance=inv_var)
        m.output("dbias", db, wd)
    else:
        dx, dw, _ = m.step.graph.rmsnorm_backward(name="rmsnorm_backward", grad=dy, input=x, scale=w,
                                                  inv_variance=inv_var, has_dbias=False)
    m.output("dx", dx, xd)
    m.output("dscale", dw, wd)
    return m.step


# ---------------------------------------------------------------- one cache for all

@functools.lru_cache(maxsize=256)
def _steps(spec, target: tuple, strides: tuple) -> tuple:
    strides = dict(strides)
    if isinstance(spec, Attention):
        if not spec.backward:
            return (_sdpa_forward(spec, target, strides, stats=spec.saved),)
        if spec.saved:
            return (_sdpa_backward(spec, target, strides),)
        return (_sdpa_forward(spec, target, strides, stats=True), _sdpa_backward(spec, target, strides))
    if not spec.backward:
        return (_norm_forward(spec, target, training=False),)
    return (_norm_forward(spec, target, training=True), _norm_backward(spec, target))


def steps(spec, sm: int, strides: dict | None = None, *, aot: bool = False) -> tuple:
    """The graphs running ``spec`` on ``sm_<sm>``, built once per (spec, architecture,
    strides, ``aot``): every transformer layer's attention of one shape shares them.
    ``strides`` (role -> strides) override the row-major ones for attention tensors.
    ``aot``: built ahead of time with the target's device description (for ``tc.plan``)
    rather than for the current device (at run time)."""
    return _steps(spec, (sm, aot), tuple(sorted((strides or {}).items())))


def describe(step: Step) -> dict:
    """The graph as the frontend describes it (``graph.inspect()``: context, nodes with their
    inputs, outputs and parameters, tensors with dims, strides, dtypes), with the roles."""
    info = step.graph.inspect()
    for node in info.get("nodes", ()):  # parameters as plain values (enums by name: "norm_forward_phase.TRAINING")
        node["params"] = {k: v if isinstance(v, (bool, int, float, str, type(None))) else str(v)
                          for k, v in dict(node.get("params") or {}).items()}
    return {"name": step.name, "roles": {"inputs": {r: t.get_name() for r, t in step.inputs.items()},
                                         "outputs": {r: t.get_name() for r, t in step.outputs.items()},
                                         "constants": dict(step.constants)},
            "graph": info}
