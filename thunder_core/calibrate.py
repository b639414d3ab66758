"""``python -m thunder_core calibrate``: measure this machine for the cost model.

Measures memory bandwidth (a large copy), the matmul FLOP rate, the fixed cost of a kernel
launch, each available executor's per-op overhead and each region executor's per-region
overhead (a tiny region lowered through the executor's own claim), the two prices of the
choice between splitting a trace for autograd and running it op by op under PyTorch's autograd
(``execution/autograd_choice.py``), and stores them in a
per-user cache file (``$XDG_CACHE_HOME/thunder_core/machine.json``, default ``~/.cache/...``)
under the device's profile name (``"cpu"``; on a GPU its profile, e.g. ``"h100"``), which
``execution.profiles.profile`` applies over the built-in figures. A tool on top of the core
(it jits probes), not part of the execution layer.

``--device cuda`` measures the current GPU (not run on this project's machines, which have
none: unverified).
"""

from __future__ import annotations

import json
import statistics
import time

import torch

from .execution import autograd_choice
from .execution.profiles import cache_file, load_calibration, profile_for_device


def _median_s(fn, reps=15, sync=lambda: None):
    fn()
    sync()
    ts = []
    for _ in range(reps):
        t = time.perf_counter()
        fn()
        sync()
        ts.append(time.perf_counter() - t)
    return statistics.median(ts)


def measure(executors=None, device="cpu") -> dict:
    device = torch.device(device)
    sync = torch.cuda.synchronize if device.type == "cuda" else (lambda: None)
    big = 16 * 2**20 if device.type == "cpu" else 256 * 2**20  # floats: 64 MiB on a CPU, 1 GiB on a GPU
    src, dst = torch.empty(big, device=device), torch.empty(big, device=device)
    copy_s = _median_s(lambda: dst.copy_(src), sync=sync)
    n = 1024 if device.type == "cpu" else 8192
    a, b = torch.randn(n, n, device=device), torch.randn(n, n, device=device)
    mm_s = _median_s(lambda: torch.mm(a, b), sync=sync)
    tiny = torch.ones(8, device=device)
    launch_s = _median_s(lambda: [torch.add(tiny, tiny) for _ in range(1000)], sync=sync) / 1000
    out = {"bandwidth_gbs": 2 * src.numel() * 4 / copy_s / 1e9, "flops_g": 2 * n**3 / mm_s / 1e9,
           "launch_us": launch_s * 1e6, "dispatch_us": {}, "torch": torch.__version__,
           "threads": torch.get_num_threads()}
    if executors is None:
        from . import plugins

        executors = [ex for ex in plugins.registry().executors.values() if ex.unavailable() is None]
    for ex in executors:
        if ex.implementations():
            out["dispatch_us"][ex.name] = _executor_overhead_us(ex, tiny, launch_s * 1e6)
        elif ex.claim is not None:
            us = _region_overhead_us(ex, tiny, launch_s * 1e6)
            if us is not None:
                out["dispatch_us"][ex.name] = us
    differentiable = autograd_choice.differentiable(executors)
    if differentiable:
        out["autograd_us"] = _autograd_prices_us(differentiable[0], device, sync)
    return out


def _autograd_prices_us(ex, device, sync) -> dict:
    """The two prices of ``execution/autograd_choice.py``, from training steps of chains of n
    multiplications of 8x8 tensors, each run split and op by op under PyTorch's autograd: the
    split costs ``split - n * grad_node`` µs more per step (n = 2 and 12)."""
    from .api import jit

    def chain(n):
        def f(x, w):
            for _ in range(n):
                x = x * w
            return x
        return f

    x = torch.randn(8, 8, device=device, requires_grad=True)
    w = torch.randn(8, 8, device=device, requires_grad=True)
    extra = {}
    saved = autograd_choice.SPLIT_US
    try:
        for n in (2, 12):
            per_step = {}
            for how, price in (("split", 0.0), ("op by op", 1e9)):  # forced either way
                autograd_choice.SPLIT_US = price
                fn = jit(chain(n), executors=[ex])
                fn(x, w).sum().backward()

                def steps():
                    for _ in range(50):
                        x.grad = w.grad = None
                        fn(x, w).sum().backward()
                per_step[how] = _median_s(steps, sync=sync) / 50 * 1e6
            extra[n] = per_step["split"] - per_step["op by op"]
    finally:
        autograd_choice.SPLIT_US = saved
    node = max((extra[2] - extra[12]) / 10, 0.1)
    return {"split": max(extra[2] + 2 * node, 0.0), "grad_node": node}


def _executor_overhead_us(ex, tiny, launch_us) -> float:
    """Per-call time of a one-op function through ``ex`` minus the kernel launch itself."""
    from .api import jit

    fn = jit(lambda x: x + x, executors=[ex])
    per_call = _median_s(lambda: [fn(tiny) for _ in range(200)]) / 200 * 1e6
    base = jit(lambda x: x, executors=[ex])  # no op: the call's own overhead
    empty = _median_s(lambda: [base(tiny) for _ in range(200)]) / 200 * 1e6
    return max(per_call - empty - launch_us, 0.1)


def _region_overhead_us(ex, tiny, launch_us) -> float | None:
    """Per-call time of a tiny region fused by region executor ``ex`` (lowered through its own
    claim) minus one kernel launch; None if it claims nothing in the probe."""
    from .capture import capture
    from .execution.claims import ClaimContext
    from .execution.cost import CostModel
    from .execution.partition import last_use_of
    from .ir import TensorProxy, flat_proxies

    trace = capture(lambda x: ((x * 2 + 1).sin() * x).tanh(), (tiny,), {}).trace
    bsyms = trace.bound_symbols
    last_use = last_use_of(bsyms, flat_proxies(trace.output))
    ctx = ClaimContext(ex, bsyms, last_use, CostModel(profile_for_device(tiny.device)), [])
    claims = list(ex.claim(bsyms, ctx))
    if not claims:
        return None
    c = max(claims, key=lambda c: c.end - c.start)
    region = ctx.region(c.start, c.end)
    fn = c.lower(region)
    args = [tiny if isinstance(p, TensorProxy) else p.value for p in region.inputs]
    per_call = _median_s(lambda: [fn(*args) for _ in range(200)]) / 200 * 1e6
    return max(per_call - launch_us, 0.1)


def main(argv=()) -> int:
    argv = list(argv)
    device = argv[argv.index("--device") + 1] if "--device" in argv else "cpu"
    result = measure(device=device)
    name = profile_for_device(device).name
    path = cache_file()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"profiles": {**load_calibration(), name: result}}, indent=1))
    print(f"device profile {name!r}:")
    print(f"memory bandwidth {result['bandwidth_gbs']:.1f} GB/s, matmul {result['flops_g']:.1f} GFLOP/s, "
          f"kernel launch {result['launch_us']:.2f} us")
    for name, us in result["dispatch_us"].items():
        print(f"executor {name}: {us:.2f} us per op")
    if "autograd_us" in result:
        a = result["autograd_us"]
        print(f"autograd: {a['split']:.1f} us per call split into forward and backward traces, "
              f"{a['grad_node']:.2f} us per op run under PyTorch's autograd")
    print(f"saved to {path}")
    return 0
