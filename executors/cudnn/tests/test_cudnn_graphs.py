"""Differential: the cuDNN graphs a plan builds against what the trace asked for.

Each test plans a function on fake CUDA tensors for a GPU target with cuDNN's overhead made
free (so it wins every claim it makes), then reads the claimed region's bound symbol and
the graphs' JSON back from ``plan.artifacts``: dims, strides and dtypes of every graph
tensor, the causal flag, the scale, the mask and eps, and what validation passed.
"""

import json
import math

import pytest
import torch
import torch.nn.functional as F

from cudnn_helpers import CUDNN_DTYPE, cheap_cudnn, cudnn_regions, fake, graphs_of, plan, row_major, tensor

pytestmark = pytest.mark.needs_cudnn

ATTENTION_CASES = [  # (dtype, causal, mask ndim or None, (b, h, s_q, s_kv, d, d_v), scale)
    (torch.bfloat16, True, None, (2, 4, 128, 128, 64, 64), None),
    (torch.float16, False, None, (2, 4, 96, 160, 128, 128), 0.3),
    (torch.bfloat16, False, 4, (2, 4, 64, 64, 64, 64), None),
    (torch.float16, False, 2, (1, 8, 64, 32, 256, 256), None),
    (torch.bfloat16, False, None, (2, 2, 64, 64, 8, 8), None),
    (torch.bfloat16, True, None, (2, 2, 64, 64, 64, 128), 0.125),
]
IDS = ["bf16-causal-d64", "fp16-cross-d128-scale", "bf16-mask4d", "fp16-mask2d-d256", "bf16-d8",
       "bf16-causal-dv128"]


def _inputs(case, requires_grad):
    dtype, causal, mask_ndim, (b, h, s_q, s_kv, d, d_v), scale = case
    q, k, v = fake((b, h, s_q, d), (b, h, s_kv, d), (b, h, s_kv, d_v), dtype=dtype, requires_grad=requires_grad)
    mask = None
    if mask_ndim == 4:
        (mask,) = fake((b, 1, s_q, s_kv), dtype=dtype)
    elif mask_ndim == 2:
        (mask,) = fake((s_q, s_kv), dtype=dtype)
    return q, k, v, mask


def _attention(causal, scale):
    def f(q, k, v, mask):
        return F.scaled_dot_product_attention(q, k, v, attn_mask=mask, is_causal=causal, scale=scale)
    return f


def _check_tensor(graph, role, proxy_or_shape, dtype, strides=None):
    shape = list(proxy_or_shape) if isinstance(proxy_or_shape, tuple) else list(proxy_or_shape.shape)
    strides = row_major(shape) if strides is None else list(strides)
    assert tensor(graph, role) == (shape, strides, CUDNN_DTYPE[dtype]), (role, tensor(graph, role))


def _validated(graph):
    """validate() passed, and libcudnn lowered the graph from the target's device description
    (no GPU) and built its operation graph; plans and support checks were not run."""
    checked = graph["checked"]
    assert checked["validate"] == "passed", checked
    assert checked["build_operation_graph"].startswith(
        "passed: libcudnn lowered the graph, with the target's device description"), checked
    assert checked["execution_plans"].startswith("not run") and checked["check_support"].startswith("not run")


@pytest.mark.parametrize("case", ATTENTION_CASES, ids=IDS)
def test_attention_forward_graph_matches_the_trace(case):
    dtype, causal, mask_ndim, _, scale = case
    q, k, v, mask = _inputs(case, requires_grad=False)
    p = plan(_attention(causal, scale), q, k, v, mask, target=cheap_cudnn())
    ((name, region),) = cudnn_regions(p).items()
    (b,) = region.bsyms
    assert b.sym.id == "ltorch.scaled_dot_product_attention"
    (g,) = graphs_of(p, name)
    tq, tk, tv = b.args[:3]
    for role, proxy in (("q", tq), ("k", tk), ("v", tv), ("o", b.flat_outs[0])):
        _check_tensor(g, role, proxy, dtype)
    (node,) = g["graph"]["nodes"]
    assert node["type"] == "SDPA"
    expected_scale = 1 / math.sqrt(tq.shape[-1]) if scale is None else scale
    assert node["params"] == {"generate_stats": False, "attn_scale": pytest.approx(expected_scale),
                              "use_causal_mask": causal}
    if mask is None:
        assert "bias" not in node["inputs"]
    else:
        _check_tensor(g, "bias", (1,) * (4 - mask.ndim) + tuple(mask.shape), dtype)
        assert node["inputs"]["bias"] == g["roles"]["inputs"]["bias"]
    assert g["sm_version"] == 90
    _validated(g)
    assert "validate, build_operation_graph passed" in p.artifacts[name][0].note
    assert "not checked without a device: execution_plans, check_support" in p.artifacts[name][0].note


@pytest.mark.parametrize("case", ATTENTION_CASES, ids=IDS)
def test_attention_backward_graphs_match_the_trace(case):
    """Training without a mask, on the CUDA flash kernel's terms (ops/attention_kernels.py),
    records the pair with saved statistics: cuDNN's forward graph returns them, its backward
    graph takes them (no forward recomputed). Otherwise the backward symbol recomputes them."""
    dtype, causal, mask_ndim, (b_, h, s_q, s_kv, d, d_v), scale = case
    q, k, v, mask = _inputs(case, requires_grad=True)
    p = plan(_attention(causal, scale), q, k, v, mask, target=cheap_cudnn())
    saved = mask is None and d == d_v
    ids = {r.bsyms[0].sym.id: n for n, r in cudnn_regions(p).items()}
    if saved:
        assert set(ids) == {"ltorch.sdpa_forward", "ltorch.sdpa_backward_stats"}, ids
        (f,) = cudnn_regions(p)[ids["ltorch.sdpa_forward"]].bsyms
        (b,) = cudnn_regions(p)[ids["ltorch.sdpa_backward_stats"]].bsyms
        g_out, tq, tk, tv, saved_out, lse = b.args[:6]
        assert list(lse.shape) == [b_, h, s_q] and list(f.flat_outs[1].shape) == [b_, h, s_q]
        (fwd,), (bwd,) = graphs_of(p, ids["ltorch.sdpa_forward"]), graphs_of(p, ids["ltorch.sdpa_backward_stats"])
        assert (fwd["name"], bwd["name"]) == ("sdpa_forward_stats", "sdpa_backward")
        _check_tensor(fwd, "o", f.flat_outs[0], dtype)
    else:
        assert set(ids) == {"ltorch.scaled_dot_product_attention", "ltorch.sdpa_backward"}, ids
        (b,) = cudnn_regions(p)[ids["ltorch.sdpa_backward"]].bsyms
        g_out, tq, tk, tv = b.args[:4]
        fwd, bwd = graphs_of(p, ids["ltorch.sdpa_backward"])
        assert (fwd["name"], bwd["name"]) == ("sdpa_forward_stats", "sdpa_backward")
        _check_tensor(fwd, "o", g_out, dtype)
    stats = (b_, h, s_q, 1)
    for role, proxy in (("q", tq), ("k", tk), ("v", tv)):
        _check_tensor(fwd, role, proxy, dtype)
    _check_tensor(fwd, "stats", stats, torch.float32)
    for role, proxy in (("q", tq), ("k", tk), ("v", tv), ("o", g_out), ("dO", g_out)):
        _check_tensor(bwd, role, proxy, dtype)
    _check_tensor(bwd, "stats", stats, torch.float32)
    for role, proxy in zip(("dQ", "dK", "dV"), b.flat_outs):
        _check_tensor(bwd, role, proxy, dtype)
    expected_scale = 1 / math.sqrt(d) if scale is None else scale
    (fnode,), (bnode,) = fwd["graph"]["nodes"], bwd["graph"]["nodes"]
    assert fnode["params"] == {"generate_stats": True, "attn_scale": pytest.approx(expected_scale),
                               "use_causal_mask": causal}
    assert bnode["type"] == "SDPA_BWD"
    assert bnode["params"] == {"attn_scale": pytest.approx(expected_scale), "use_causal_mask": causal}
    assert ("bias" in bnode["inputs"]) == (mask is not None) == ("bias" in fnode["inputs"])
    for graph in (fwd, bwd):
        _validated(graph)


def test_non_contiguous_attention_strides_reach_the_graph():
    """The run-time lowering builds graphs with the tensors' own strides (a BSHD layout, as
    after ``view(B, T, H, D).transpose(1, 2)``); such a graph validates too."""
    from thunder_executor_cudnn.aot import check
    from thunder_executor_cudnn.graphs import describe, steps
    from thunder_executor_cudnn.specs import Attention

    spec = Attention(False, 2, 4, 128, 128, 64, 64, torch.bfloat16, True, 0.125)
    bshd = (128 * 4 * 64, 64, 4 * 64, 1)  # (b, h, s, d) dims over (b, s, h, d) memory
    (step,) = steps(spec, 90, {"q": bshd, "k": bshd, "v": bshd}, aot=True)
    g = describe(step)
    for role in "qkv":
        assert tensor(g, role)[1] == list(bshd)
    assert tensor(g, "o")[1] == row_major(spec.o)
    _validated({"checked": check(step)})
    assert steps(spec, 90, {"q": bshd, "k": bshd, "v": bshd}, aot=True)[0] is step  # cached by structure
    assert steps(spec, 90, aot=True)[0] is not step
    assert steps(spec, 90, {"q": bshd, "k": bshd, "v": bshd})[0] is not step  # run time: for the current device


NORM_CASES = [  # (op, dtype, input shape, normalized_shape, eps): both ops in every dtype the checker takes
    ("layer_norm", torch.bfloat16, (4, 32, 64), (64,), 1e-5),
    ("layer_norm", torch.float32, (6, 48), (48,), 1e-3),
    ("layer_norm", torch.float16, (2, 3, 4, 8), (4, 8), 1e-5),
    ("rms_norm", torch.bfloat16, (4, 32, 64), (64,), 1e-6),
    ("rms_norm", torch.float16, (8, 128), (128,), None),
    ("rms_norm", torch.float32, (3, 5, 2, 24), (2, 24), 1e-5),
]


def _norm(op, shape, eps):
    if op == "layer_norm":
        return lambda x, w, b: F.layer_norm(x, shape, w, b, eps)
    return lambda x, w, b: F.rms_norm(x, shape, w, eps)


@pytest.mark.parametrize("case", NORM_CASES, ids=[f"{c[0]}-{c[1]}-{len(c[2])}d" for c in NORM_CASES])
@pytest.mark.parametrize("requires_grad", [False, True], ids=["forward", "backward"])
def test_norm_graphs_match_the_trace(case, requires_grad):
    op, dtype, shape, nshape, eps = case
    (x,) = fake(shape, dtype=dtype, requires_grad=requires_grad)
    w, bias = fake(nshape, nshape, dtype=dtype, requires_grad=requires_grad)
    p = plan(_norm(op, nshape, eps), x, w, bias, target=cheap_cudnn())
    wanted = f"ltorch.{op}_backward" if requires_grad else f"ltorch.{op}"
    ((name, region),) = [(n, r) for n, r in cudnn_regions(p).items() if r.bsyms[0].sym.id == wanted]
    (b,) = region.bsyms
    c = math.prod(nshape)
    n = math.prod(shape) // c
    # cuDNN's normalization layout: the rows as (n, c, 1, 1) with strides (c, 1, c, c) (the
    # same memory as the row-major input), the weight (1, c, 1, 1), statistics (n, 1, 1, 1)
    rows, weight, stats = (n, c, 1, 1), (1, c, 1, 1), (n, 1, 1, 1)
    st = {rows: (c, 1, c, c), weight: (c, 1, c, c), stats: (1, 1, 1, 1)}
    expected_eps = eps if eps is not None else torch.finfo(torch.float32).eps
    graphs = graphs_of(p, name)
    kind = op.replace("_", "")
    if not requires_grad:
        (g,) = graphs
        assert g["name"] == f"{kind}_inference"
        _check_tensor(g, "x", rows, dtype, st[rows])
        _check_tensor(g, "scale", weight, dtype, st[weight])
        _check_tensor(g, "y", rows, dtype, st[rows])
        assert ("bias" in g["roles"]["inputs"]) == (op == "layer_norm")
        assert str(g["graph"]["nodes"][0]["params"]["norm_forward_phase"]).endswith("INFERENCE")
        assert list(b.flat_outs[0].shape) == list(shape)
    else:
        fwd, bwd = graphs
        assert (fwd["name"], bwd["name"]) == (f"{kind}_training", f"{kind}_backward")
        assert str(fwd["graph"]["nodes"][0]["params"]["norm_forward_phase"]).endswith("TRAINING")
        _check_tensor(fwd, "inv_variance", stats, torch.float32, st[stats])
        for role, sh in (("dy", rows), ("x", rows), ("scale", weight), ("dx", rows), ("dscale", weight)):
            _check_tensor(bwd, role, sh, dtype, st[sh])
        _check_tensor(bwd, "inv_variance", stats, torch.float32, st[stats])
        assert ("dbias" in bwd["roles"]["outputs"]) == ("mean" in bwd["roles"]["inputs"]) == (op == "layer_norm")
        assert [list(o.shape) for o in b.flat_outs] == [list(shape), list(nshape)] + [list(nshape)] * (op == "layer_norm")
        g = fwd
    assert g["roles"]["constants"] == {"eps": pytest.approx(expected_eps)}
    assert g["graph"]["nodes"][0]["inputs"]["epsilon"] == "eps"
    assert tensor(g, "eps", constant=True) == ([1, 1, 1, 1], [1, 1, 1, 1], "FLOAT")
    for graph in graphs:
        _validated(graph)


def test_libcudnn_rejects_a_norm_graph_the_frontend_accepts():
    """build_operation_graph() is libcudnn's own check, not a formality: a scale of one value
    per row instead of per column passes the frontend's validate() and is refused there."""
    import cudnn

    from thunder_executor_cudnn.devices import properties

    device, why = properties(90)
    assert device is not None, why
    f32, bf16 = cudnn.data_type.FLOAT, cudnn.data_type.BFLOAT16
    g = cudnn.pygraph(io_data_type=bf16, intermediate_data_type=f32, compute_data_type=f32, sm_version=90,
                      device_property=device)
    x = g.tensor(name="x", dim=[8, 64, 1, 1], stride=[64, 1, 64, 64], data_type=bf16)
    w = g.tensor(name="w", dim=[8, 64, 1, 1], stride=[64, 1, 64, 64], data_type=bf16)  # should be (1, 64, 1, 1)
    y, _ = g.rmsnorm(name="rms", norm_forward_phase=cudnn.norm_forward_phase.INFERENCE, input=x, scale=w, bias=None,
                     epsilon=g.tensor_scalar(1e-5, cudnn.scalar_type.RUNTIME_PARAM))
    y.set_output(True)
    g.validate()
    with pytest.raises(RuntimeError, match="CUDNN_STATUS_NOT_SUPPORTED"):
        g.build_operation_graph()


def test_device_descriptions_load_without_a_driver():
    """The pinned libcudnn makes every target's device description here (no GPU, no driver),
    and reads back what it was given."""
    from thunder_executor_cudnn.devices import DEVICES, properties

    for sm, description in DEVICES.items():
        device, why = properties(sm)
        assert device is not None, f"sm_{sm}: {why}"
        assert json.loads(device.serialize()) == description


@pytest.mark.parametrize("target,sm", [("a100", 80), ("b200", 100)])
def test_graphs_are_built_for_the_target_architecture(target, sm):
    from thunder_executor_cudnn.devices import DEVICES

    q, k, v = fake((2, 4, 64, 64), (2, 4, 64, 64), (2, 4, 64, 64), requires_grad=True)
    x, w, bias = fake((4, 16, 64), (64,), (64,), requires_grad=True)

    def f(q, k, v, x, w, bias):
        return F.scaled_dot_product_attention(q, k, v, is_causal=True), F.layer_norm(x, (64,), w, bias), \
            F.rms_norm(x, (64,), w)

    p = plan(f, q, k, v, x, w, bias, target=cheap_cudnn(target))
    ids = sorted(r.bsyms[0].sym.id for r in cudnn_regions(p).values())
    # (training's attention: the pair with saved statistics, ops/attention_kernels.py)
    assert ids == sorted(f"ltorch.{s}" for s in ("sdpa_forward", "sdpa_backward_stats", "layer_norm",
                                                  "layer_norm_backward", "rms_norm", "rms_norm_backward")), ids
    for name in cudnn_regions(p):
        for g, artifact in zip(graphs_of(p, name), p.artifacts[name]):
            assert g["sm_version"] == sm and f"for sm_{sm}" in artifact.note
            assert DEVICES[sm]["deviceName"] in g["checked"]["build_operation_graph"]
            _validated(g)


def test_without_a_device_description_the_record_says_why(monkeypatch):
    """With a libcudnn that makes no device description here (9.27+ without a driver), the
    graphs lower on a cuDNN handle, which needs the driver: the record says what ran and why
    the rest did not, instead of failing the plan."""
    import cudnn

    from thunder_executor_cudnn import devices, graphs
    from thunder_executor_cudnn.aot import check
    from thunder_executor_cudnn.specs import Attention, Norm

    try:
        cudnn.create_handle()
        pytest.skip("this machine has the NVIDIA driver: graphs lower on a handle")
    except RuntimeError:
        pass
    monkeypatch.setattr(devices, "properties", lambda sm: (None, "libcudnn 9.28.1 cannot load ... (test)"))
    graphs._steps.cache_clear()
    try:
        (norm,) = graphs.steps(Norm("rms_norm", False, 8, 64, torch.bfloat16, 1e-5), 90, aot=True)
        (attention,) = graphs.steps(Attention(False, 2, 4, 64, 64, 64, 64, torch.bfloat16, True, 0.125), 90, aot=True)
        for step, validated in ((norm, "partly: the frontend's shape inference"), (attention, "passed (the frontend")):
            checked = check(step)
            assert checked["validate"].startswith(validated), checked
            assert checked["build_operation_graph"].startswith("not run: lowering to libcudnn with a cuDNN handle (no "
                                                               "device description could be made: libcudnn 9.28.1"), checked
            assert "needs the NVIDIA driver" in checked["build_operation_graph"]
    finally:
        graphs._steps.cache_clear()  # the next tests' graphs carry device descriptions again
