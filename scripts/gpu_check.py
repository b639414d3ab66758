"""Run the executors for real on a CUDA GPU: results against eager, which executor ran what, timings.

Usage, on a machine with an NVIDIA GPU and thunder_core with its executors installed::

    python scripts/gpu_check.py [--out DIR] [--only NAME,...] [--executors default,torch,...] [--compile]

For every workload (elementwise chain, norms, attention, a GPT block, an MLP, small Hugging Face
models; float32 and bfloat16) and mode (forward under ``torch.no_grad()``, or a training step:
loss, ``.backward()``), and for every executor set (the default one, then each executor alone in
front of ``torch``), it checks:

- the outputs and every gradient (of a weighted sum of the outputs) against eager PyTorch on the
  same GPU: the largest difference relative to the largest eager value (``rel``), float32 within
  1e-4 forward and 1e-3 for gradients. Low-precision workloads are judged against the same
  workload in float64 (fused kernels keep float32 intermediates that eager rounds): each result
  within twice eager's own error (``rel_eager``) plus one bfloat16 step of the largest value;
- which executors ran the execution traces (forward and backward): symbols per executor (a row
  where the executor under test claimed nothing says so in its note);
- the first call's time (trace, compile, run: ``wait_for_compile=True``) and the per-call time
  (median of 5 timed blocks, synchronized) beside eager's (and torch.compile's with ``--compile``).

Each row is printed when done and appended to ``DIR/gpu_check.jsonl``; the explanations of the
default executors' plans go to ``DIR/gpu_explain.txt``. A row that raises is reported (``error``)
and the run goes on. Exit status 1 when a row mismatches or raises.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
import traceback

import torch
import torch.nn.functional as F

#: float32 tolerances (forward, gradients) relative to the largest eager value (see _judge)
TOL = (1e-4, 1e-3)


# ---------------------------------------------------------------- workloads: name -> builder(device) -> (fn, args, kwargs, params, dtype, loss)

def norms(x, w, b):
    a = F.layer_norm(x, x.shape[-1:], w, b)
    r = F.rms_norm(x, x.shape[-1:], w, 1e-6)
    return torch.softmax(a + r, dim=-1)


def attention(q, k, v):
    return F.scaled_dot_product_attention(q, k, v, is_causal=True)


def cross_entropy(logits, target):
    return F.cross_entropy(logits, target)


def _leaf(*shape, dtype, device, train):
    return torch.randn(*shape, device=device, dtype=dtype).requires_grad_(train)


# A builder's ``as_dtype`` (float64) makes the same workload with the same values in that
# dtype: the reference a low-precision result is judged against (see check).

def _fn_setup(fn, shapes, dtype):
    def build(device, train, as_dtype=None):
        torch.manual_seed(0)
        args = [_leaf(*s, dtype=dtype, device=device, train=False) for s in shapes]
        args = [a.to(as_dtype or dtype).requires_grad_(train) for a in args]
        return fn, args, {}, args if train else [], dtype, _sum_loss
    return build


def _ce_setup(dtype):
    def build(device, train, as_dtype=None):
        torch.manual_seed(0)
        logits = _leaf(4096, 32000, dtype=dtype, device=device, train=False).to(as_dtype or dtype).requires_grad_(train)
        target = torch.randint(0, 32000, (4096,), device=device)
        return cross_entropy, [logits, target], {}, [logits] if train else [], dtype, _sum_loss
    return build


def _module_setup(make, inputs, dtype):
    def build(device, train, as_dtype=None):
        torch.manual_seed(0)
        m = make().to(device=device, dtype=dtype).train(train)
        args = inputs(device)
        if as_dtype is not None:
            m = m.to(as_dtype)
            args = [a.to(as_dtype) if a.is_floating_point() else a for a in args]
        return m, args, {}, list(m.parameters()) if train else [], dtype, _sum_loss
    return build


def _hf_setup(name):
    def build(device, train, as_dtype=None):
        from benchmarks import hf_workloads as hw

        s = hw.build(name, False, train)
        s.fn.to(device)
        kw = {k: v.to(device) if isinstance(v, torch.Tensor) else v for k, v in s.kwargs.items()}
        return s.fn, [], kw, list(s.fn.parameters()) if train else [], torch.float32, \
            (hw._model_loss if train else _sum_loss)
    return build


def _sum_loss(out):
    """A weighted sum of the outputs (fixed weights: a plain sum has no gradient through softmax)."""
    return sum((t.double() * _weights(t)).sum() for t in _tensors(out) if t.is_floating_point())


def _weights(t):
    return torch.cos(torch.arange(t.numel(), device=t.device, dtype=torch.float64)).view(t.shape)


def workloads():
    from benchmarks.workloads import norm_chain  # (the side-by-side suite's elementwise workload)
    from thunder_core.examples.models import GPT, MLP, GPTBlock

    f32, bf16 = torch.float32, torch.bfloat16
    return {  # in order of what matters most when a budget cuts a run short
        "gpt_block-bf16": _module_setup(lambda: GPTBlock(1024, 16),
                                        lambda d: [torch.randn(4, 1024, 1024, device=d, dtype=bf16)], bf16),
        "hf-llama": _hf_setup("llama"),
        "attention-bf16": _fn_setup(attention, [(4, 16, 1024, 64)] * 3, bf16),
        "attention-f32": _fn_setup(attention, [(4, 16, 1000, 64)] * 3, f32),
        "norms-bf16": _fn_setup(norms, [(8192, 1024), (1024,), (1024,)], bf16),
        "norm_chain-f32": _fn_setup(norm_chain, [(4096, 4096), (4096,), (4096,)], f32),
        "cross_entropy-f32": _ce_setup(f32),
        "hf-gpt2": _hf_setup("gpt2"),
        "gpt-f32": _module_setup(lambda: GPT(vocab=4096, block_size=256, n_layer=4, n_embd=512, n_head=8),
                                 lambda d: [torch.randint(0, 4096, (4, 256), device=d)], f32),
        "mlp-f32": _module_setup(lambda: MLP(d_in=1024, hidden=4096, d_out=1024, depth=2),
                                 lambda d: [torch.randn(256, 1024, device=d)], f32),
        "hf-bert": _hf_setup("bert"),
        "hf-t5": _hf_setup("t5"),
        "norm_chain-bf16": _fn_setup(norm_chain, [(4096, 4096), (4096,), (4096,)], bf16),
        "attention-f16-d128": _fn_setup(attention, [(2, 8, 2048, 128)] * 3, torch.float16),
        "gpt_block-f32": _module_setup(lambda: GPTBlock(512, 8),
                                       lambda d: [torch.randn(4, 256, 512, device=d)], f32),
    }


# ---------------------------------------------------------------- checking and timing

def _tensors(out):
    from torch.utils._pytree import tree_leaves

    if hasattr(out, "to_tuple"):  # a transformers ModelOutput
        out = out.to_tuple()
    return [t for t in tree_leaves(out) if isinstance(t, torch.Tensor)]


def _rel(got, exp):
    got, exp = got.detach().double(), exp.detach().double()
    if got.shape != exp.shape:
        return float("inf")
    if exp.numel() == 0:
        return 0.0
    both_nan = torch.isnan(got) & torch.isnan(exp)
    d = (got - exp).abs().masked_fill(both_nan, 0).max().item()
    return d / max(exp.abs().masked_fill(torch.isnan(exp), 0).max().item(), 1e-6)


def _step(fn, args, kw, params, loss, train):
    for p in params:
        p.grad = None
    if not train:
        with torch.no_grad():
            return fn(*args, **kw), []
    out = fn(*args, **kw)
    loss(out).backward()
    return out, [p.grad for p in params]


def _judge(got, exp, ref, tol):
    """(largest relative difference, within tolerance?): against eager for float32; for low
    precision against float64 (``ref``), each result within twice eager's own error plus one
    bfloat16 rounding step (2**-8) of the largest value."""
    if ref is None:
        rels = [_rel(g, e) for g, e in zip(got, exp)]
        return max(rels, default=0.0), all(r <= tol for r in rels)
    pairs = [(_rel(g, r), _rel(e, r)) for g, e, r in zip(got, exp, ref)]
    return max((p[0] for p in pairs), default=0.0), all(t <= 2 * e + 2 ** -8 for t, e in pairs)


_sync = torch.cuda.synchronize  # (main replaces it for --device cpu, a dry run of the script)


def _per_call_ms(call):
    call()
    _sync()
    t = time.perf_counter()
    call()
    _sync()
    one = max(time.perf_counter() - t, 1e-6)
    n = max(1, min(200, int(0.05 / one)))
    blocks = []
    for _ in range(5):
        _sync()
        t = time.perf_counter()
        for _ in range(n):
            call()
        _sync()
        blocks.append((time.perf_counter() - t) / n * 1e3)
    return statistics.median(blocks)


def _owners(jfn, train):
    import thunder_core as tc
    from thunder_core.api import _last

    used = _last(jfn).executors_used
    count: dict = {}
    traces = [tc.last_traces(jfn)[-1]] + ([tc.last_backward_traces(jfn)[-1]] if train and
                                          tc.last_backward_traces(jfn) else [])
    from thunder_core.extend import region_of

    for t in traces:
        for b in t.bound_symbols:
            owner = used.get(b.sym.id)
            if owner is None:
                continue
            region = region_of(b)
            count[owner] = count.get(owner, 0) + (len(region.bsyms) if region is not None else 1)
    return count


def check(name, build, mode, executors, device, compile_too):
    import thunder_core as tc

    train = mode == "train"
    row = {"workload": name, "mode": mode, "executors": executors}
    fn, args, kw, params, dtype, loss = build(device, train)
    tol = TOL[1 if train else 0]
    exp_out, exp_grads = _step(fn, args, kw, params, loss, train)
    exp = _tensors(exp_out) + exp_grads
    exp = [e.detach().clone() for e in exp if e is not None]
    ref = None
    if dtype != torch.float32:  # low precision: judged against float64, beside eager's own error
        f64 = build(device, train, torch.float64)
        ref_out, ref_grads = _step(*f64[:4], loss, train)
        ref = [r.detach() for r in _tensors(ref_out) + ref_grads if r is not None]
        row["rel_eager"] = max((_rel(e, r) for e, r in zip(exp, ref)), default=0.0)
        del f64
    eager_ms = _per_call_ms(lambda: _step(fn, args, kw, params, loss, train))
    row["eager_ms"] = round(eager_ms, 4)

    jfn = tc.jit(fn, executors=None if executors == "default" else [executors, "torch"], wait_for_compile=True)
    _sync()
    t = time.perf_counter()
    got_out, got_grads = _step(jfn, args, kw, params, loss, train)
    _sync()
    row["first_s"] = round(time.perf_counter() - t, 3)
    got = [g for g in _tensors(got_out) + got_grads if g is not None]
    row["rel"], row["ok"] = _judge(got, exp, ref, tol)
    row["ok"] = row["ok"] and len(got) == len(exp)
    if len(got) != len(exp):
        row["note"] = f"{len(got)} results, eager gave {len(exp)}"
    row["ran"] = _owners(jfn, train)
    if executors not in ("default", "torch") and not row["ran"].get(executors):
        row["note"] = f"{executors} ran nothing (it claimed nothing here)"
    # a second call (the cache hit) must give the same results
    got_out2, got_grads2 = _step(jfn, args, kw, params, loss, train)
    got2 = [g for g in _tensors(got_out2) + got_grads2 if g is not None]
    rel2, ok2 = _judge(got2, exp, ref, tol)
    if not ok2:
        row["ok"] = False
        row["note"] = f"the second call differs: {rel2:.2e}"
    row["tc_ms"] = round(_per_call_ms(lambda: _step(jfn, args, kw, params, loss, train)), 4)
    row["vs_eager"] = round(row["tc_ms"] / eager_ms, 3)
    if compile_too and executors == "default":
        cfn = torch.compile(fn)
        t = time.perf_counter()
        _step(cfn, args, kw, params, loss, train)
        _sync()
        row["compile_first_s"] = round(time.perf_counter() - t, 2)
        row["compile_ms"] = round(_per_call_ms(lambda: _step(cfn, args, kw, params, loss, train)), 4)
        row["vs_compile"] = round(row["tc_ms"] / row["compile_ms"], 3)
    explain = tc.explain(jfn) if executors == "default" else None
    return row, explain


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=os.environ.get("OUT", "."))
    ap.add_argument("--only", default=None, help="comma-separated workload names (prefixes)")
    ap.add_argument("--modes", default="forward,train")
    ap.add_argument("--executors", default="default,torch,inductor,triton,cudnn,nvfuser")
    ap.add_argument("--compile", action="store_true", help="time torch.compile too (default executors' rows)")
    ap.add_argument("--device", default="cuda")
    ap.add_argument("--budget", type=float, default=None, help="seconds: no row starts after this (the rest are listed)")
    a = ap.parse_args(argv)

    import thunder_core as tc
    from thunder_core.plugins import registry

    if a.device == "cuda" and not torch.cuda.is_available():
        print("no CUDA device: this script runs the executors on a GPU", file=sys.stderr)
        return 2
    global _sync
    if a.device != "cuda":
        _sync = lambda: None  # noqa: E731
    installed = registry().executors
    header = {"torch": torch.__version__, "cuda": torch.version.cuda,
              "torch_cudnn": torch.backends.cudnn.version() if a.device == "cuda" else None, "device": torch.cuda.get_device_name() if a.device == "cuda" else "cpu",
              "executors": {n: (e.unavailable() or "available") for n, e in installed.items()}}
    for mod in ("triton", "cudnn", "nvfuser_direct", "transformers"):
        try:
            m = __import__(mod)
            header[mod] = getattr(m, "__version__", "?") + (f" (libcudnn {m.backend_version()})" if mod == "cudnn" else "")
        except Exception as e:  # noqa: BLE001
            header[mod] = f"not importable: {type(e).__name__}: {str(e)[:120]}"
    print(json.dumps(header, indent=1), flush=True)
    os.makedirs(a.out, exist_ok=True)
    log = open(os.path.join(a.out, "gpu_check.jsonl"), "a")
    log.write(json.dumps({"header": header}) + "\n")
    explain = open(os.path.join(a.out, "gpu_explain.txt"), "a")
    names = [n for n in workloads() if a.only is None or any(n.startswith(p) for p in a.only.split(","))]
    sets = [e for e in a.executors.split(",") if e == "default" or
            (e in installed and installed[e].unavailable() is None)]
    failed, start, skipped = 0, time.perf_counter(), []
    for name in names:
        build = workloads()[name]
        for mode in a.modes.split(","):
            for ex in sets:
                t = time.perf_counter()
                if a.budget is not None and t - start > a.budget:
                    skipped.append(f"{name}/{mode}/{ex}")
                    continue
                try:
                    row, text = check(name, build, mode, ex, a.device, a.compile)
                except Exception as e:  # noqa: BLE001 - reported, the run goes on
                    row, text = {"workload": name, "mode": mode, "executors": ex, "ok": False,
                                 "error": f"{type(e).__name__}: {str(e)[:2000]}",
                                 "where": traceback.format_exc()[-3000:]}, None
                row["check_s"] = round(time.perf_counter() - t, 1)
                failed += not row["ok"]
                log.write(json.dumps(row) + "\n")
                log.flush()
                if text:
                    explain.write(f"==== {name} {mode}\n{text}\n\n")
                    explain.flush()
                brief = {k: v for k, v in row.items() if k not in ("where", "workload", "mode", "executors")}
                print(f"{name:20} {mode:8} {ex:9} {json.dumps(brief)}", flush=True)
                if "error" in row:
                    print(row["where"], flush=True)
                if a.compile:
                    torch._dynamo.reset()
                tc.wait_for_compiles(timeout=60)
    if skipped:
        print(f"not run (over the {a.budget:.0f} s budget): {', '.join(skipped)}", flush=True)
    print(f"{failed} rows failed", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    sys.exit(main())
