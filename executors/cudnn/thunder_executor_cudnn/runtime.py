"""Running a claimed symbol on a GPU: its graphs built once, executed per call.

**Not verified**: this needs a CUDA device and its driver; the machines this package was
written on have neither (see README). It follows the frontend's documented sequence: one
``build()`` per graph (validate, operation graph, execution plans, support check, plans),
then ``execute({tensor: data}, workspace, handle=...)`` with the handle on torch's current
stream.
"""

from __future__ import annotations

import threading

import torch

from thunder_core.extend import RegionNumbers

from .graphs import steps
from .library import cudnn, sm_of_device
from .specs import Attention, spec_of

_HANDLES = threading.local()  # (device index) -> cudnn handle: one per thread and device, as cuDNN requires


def _handle(device: torch.device):
    c = cudnn()
    by_device = getattr(_HANDLES, "by_device", None)
    if by_device is None:
        by_device = _HANDLES.by_device = {}
    h = by_device.get(device.index)
    if h is None:
        with torch.cuda.device(device):
            h = by_device[device.index] = c.create_handle()
    c.set_stream(handle=h, stream=torch.cuda.current_stream(device).cuda_stream)
    return h


def _run(step, bound: dict, device: torch.device) -> None:
    """Execute one graph with torch tensors bound to its roles (outputs preallocated)."""
    c = cudnn()
    handle = _handle(device)
    if not step.built:
        step.graph.build([c.heur_mode.A, c.heur_mode.FALLBACK])
        step.built = True
    workspace = torch.empty(step.graph.get_workspace_size(), dtype=torch.uint8, device=device)
    pack = {t: bound[role] for role, t in (*step.inputs.items(), *step.outputs.items())}
    step.graph.execute(pack, workspace, handle=handle)


def _empty(shape, dtype, device):
    return torch.empty(shape, dtype=dtype, device=device)


def _head_dim_unit(t: torch.Tensor) -> torch.Tensor:
    return t if t.stride(-1) == 1 else t.contiguous()


def run_attention(spec: Attention, q, k, v, mask=None, grad=None, out=None, lse=None):
    """(output,) of the forward, (output, logsumexp) of training's forward (``spec.saved``), or
    (dq, dk, dv) of the backward (``out`` and ``lse``: what training's forward saved)."""
    device = q.device
    q, k, v = map(_head_dim_unit, (q, k, v))
    bound = {"q": q, "k": k, "v": v}
    if spec.mask is not None:
        bound["bias"] = _head_dim_unit(mask.reshape(spec.mask))
    if grad is not None:
        bound["dO"] = _head_dim_unit(grad)
    if out is not None:  # (b, h, s_q) logsumexp -> cuDNN's (b, h, s_q, 1) stats
        bound["o"], bound["stats"] = _head_dim_unit(out), lse.contiguous().reshape(spec.stats)
    strides = {role: tuple(t.stride()) for role, t in bound.items()}
    graphs = steps(spec, sm_of_device(device), strides)
    if spec.saved and spec.backward:
        bound.update(dQ=_empty(spec.q, spec.dtype, device), dK=_empty(spec.k, spec.dtype, device),
                     dV=_empty(spec.v, spec.dtype, device))
        _run(graphs[0], bound, device)
        return bound["dQ"], bound["dK"], bound["dV"]
    bound["o"] = _empty(spec.o, spec.dtype, device)
    if not spec.backward and not spec.saved:
        _run(graphs[0], bound, device)
        return (bound["o"],)
    bound["stats"] = _empty(spec.stats, torch.float32, device)
    _run(graphs[0], bound, device)
    if not spec.backward:
        return bound["o"], bound["stats"].reshape(spec.stats[:3])
    bound.update(dQ=_empty(spec.q, spec.dtype, device), dK=_empty(spec.k, spec.dtype, device),
                 dV=_empty(spec.v, spec.dtype, device))
    _run(graphs[1], bound, device)
    return bound["dQ"], bound["dK"], bound["dV"]


def run_norm(spec, x, weight, bias=None, grad=None):
    """(y,) of the forward, or the gradients ``spec.output_mask`` asks for."""
    device, shape, wshape = x.device, x.shape, weight.shape
    n, c = spec.n, spec.c
    bound = {"x": x.contiguous().reshape(n, c, 1, 1), "scale": weight.contiguous().reshape(1, c, 1, 1)}
    graphs = steps(spec, sm_of_device(device))
    bound["y"] = _empty((n, c, 1, 1), spec.dtype, device)
    if not spec.backward:
        if spec.kind == "layer_norm":
            bound["bias"] = bias.contiguous().reshape(1, c, 1, 1)
        _run(graphs[0], bound, device)
        return (bound["y"].reshape(shape),)
    if spec.kind == "layer_norm":  # the statistics do not depend on the bias: a zero one
        bound["bias"] = torch.zeros(1, c, 1, 1, dtype=weight.dtype, device=device)
        bound["mean"] = _empty((n, 1, 1, 1), torch.float32, device)
    bound["inv_variance"] = _empty((n, 1, 1, 1), torch.float32, device)
    _run(graphs[0], bound, device)
    bound.update(dy=grad.contiguous().reshape(n, c, 1, 1), dx=_empty((n, c, 1, 1), spec.dtype, device),
                 dscale=_empty((1, c, 1, 1), weight.dtype, device))
    if spec.kind == "layer_norm":
        bound["dbias"] = _empty((1, c, 1, 1), weight.dtype, device)
    _run(graphs[1], bound, device)
    grads = (bound["dx"].reshape(shape), bound["dscale"].reshape(wshape))
    if spec.kind == "layer_norm":
        grads += (bound["dbias"].reshape(wshape),)
    return tuple(g for g, wanted in zip(grads, spec.output_mask) if wanted)


def lower(region):
    """The callable running the region's one symbol with cuDNN: takes ``region.inputs``,
    returns the tuple of ``region.outputs``. With symbolic sizes (``cache="symbolic
    values"``) it specialises per call: each call's sizes (``RegionNumbers.resolver``) key a
    cache of callables lowered for the region made concrete, whose graphs are built once per
    spec (:func:`.graphs.steps`)."""
    numbers = RegionNumbers(region)
    if not numbers.symbols:
        return _lowered(region)
    values_of, by_values = numbers.resolver(), {}

    def run(*values):
        sizes = values_of(values)
        fn = by_values.get(sizes)
        if fn is None:
            fn = by_values[sizes] = _lowered(numbers.concrete(sizes))
        return fn(*values)

    run.__name__ = f"cudnn_{region.bsyms[0].sym.name}"
    return run


def _lowered(region):
    """:func:`lower` for a region with static shapes."""
    (b,) = region.bsyms
    spec = spec_of(b)
    args = list(b.args)
    positions = {id(p): k for k, p in enumerate(region.inputs)}
    outs = b.flat_outs

    def arg(values, i):
        p = args[i] if i < len(args) else None
        return values[positions[id(p)]] if p is not None and id(p) in positions else None

    if isinstance(spec, Attention) and spec.saved and spec.backward:
        def call(values):  # (g, q, k, v, out, lse, mask, scale)
            return run_attention(spec, arg(values, 1), arg(values, 2), arg(values, 3), arg(values, 6), arg(values, 0),
                                 arg(values, 4), arg(values, 5))
    elif isinstance(spec, Attention):
        def call(values):  # forward args (q, k, v, mask, ...); backward (g, q, k, v, mask, ...)
            o = 1 if spec.backward else 0
            return run_attention(spec, arg(values, o), arg(values, o + 1), arg(values, o + 2), arg(values, o + 3),
                                 arg(values, 0) if spec.backward else None)
    elif not spec.backward:
        def call(values):  # layer_norm (x, weight, bias, eps); rms_norm (x, weight, eps)
            return run_norm(spec, arg(values, 0), arg(values, 1), arg(values, 2) if spec.kind == "layer_norm" else None)
    else:
        def call(values):  # (grad_output, input, weight, eps)
            return run_norm(spec, arg(values, 1), arg(values, 2), grad=arg(values, 0))

    def run(*values):
        results = dict(zip((id(p) for p in outs), call(values)))
        return tuple(results[id(p)] for p in region.outputs)

    run.__name__ = f"cudnn_{b.sym.name}"
    return run
