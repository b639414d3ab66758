"""``python -m thunder_core calibrate``: measure this machine for the cost model.

Measures memory bandwidth (a large copy), the matmul FLOP rate, the fixed cost of a kernel
launch, each available executor's per-op overhead and each region executor's per-region
overhead (a tiny region lowered through the executor's own claim), and stores them in a per-user cache
file (``$XDG_CACHE_HOME/thunder_core/machine.json``, default ``~/.cache/...``) that later
runs read (``execution.cost.load``). Without it the cost model uses defaults for a generic
CPU. A tool on top of the core (it jits probes), not part of the execution layer.
"""

from __future__ import annotations

import json
import statistics
import time

import torch

from .execution.cost import cache_file


def _median_s(fn, reps=15):
    fn()
    ts = []
    for _ in range(reps):
        t = time.perf_counter()
        fn()
        ts.append(time.perf_counter() - t)
    return statistics.median(ts)


def measure(executors=None) -> dict:
    src, dst = torch.empty(16 * 2**20), torch.empty(16 * 2**20)  # 64 MiB each
    copy_s = _median_s(lambda: dst.copy_(src))
    n = 1024
    a, b = torch.randn(n, n), torch.randn(n, n)
    mm_s = _median_s(lambda: torch.mm(a, b))
    tiny = torch.ones(8)
    launch_s = _median_s(lambda: [torch.add(tiny, tiny) for _ in range(1000)]) / 1000
    out = {"bandwidth_gbs": 2 * src.numel() * 4 / copy_s / 1e9, "flops_g": 2 * n**3 / mm_s / 1e9,
           "launch_us": launch_s * 1e6, "dispatch_us": {}, "torch": torch.__version__,
           "threads": torch.get_num_threads()}
    if executors is None:
        from . import plugins

        executors = [ex for ex in plugins.executors().values() if ex.unavailable() is None]
    for ex in executors:
        if ex.implementations():
            out["dispatch_us"][ex.name] = _executor_overhead_us(ex, tiny, launch_s * 1e6)
        elif ex.claim is not None:
            us = _region_overhead_us(ex, tiny, launch_s * 1e6)
            if us is not None:
                out["dispatch_us"][ex.name] = us
    return out


def _executor_overhead_us(ex, tiny, launch_us) -> float:
    """Per-call time of a one-op function through ``ex`` minus the kernel launch itself."""
    from .api import jit

    fn = jit(lambda x: x + x, executors=[ex])
    per_call = _median_s(lambda: [fn(tiny) for _ in range(200)]) / 200 * 1e6
    base = jit(lambda x: x, executors=["torch"])
    empty = _median_s(lambda: [base(tiny) for _ in range(200)]) / 200 * 1e6
    return max(per_call - empty - launch_us, 0.1)


def _region_overhead_us(ex, tiny, launch_us) -> float | None:
    """Per-call time of a tiny region fused by region executor ``ex`` (lowered through its own
    claim) minus one kernel launch; None if it claims nothing in the probe."""
    from .api import jit, last_traces
    from .execution.claims import region_boundary
    from .execution.cost import CostModel
    from .execution.partition import last_use_of
    from .ir import TensorProxy, flat_proxies

    probe = jit(lambda x: ((x * 2 + 1).sin() * x).tanh(), executors=["torch"])
    probe(tiny)
    trace = last_traces(probe)[0]
    bsyms = trace.bound_symbols
    last_use = last_use_of(bsyms, flat_proxies(trace.output))
    claims = list(ex.claim(bsyms, CostModel(), last_use))
    if not claims:
        return None
    c = max(claims, key=lambda c: c.end - c.start)
    region = bsyms[c.start:c.end]
    inputs, outputs = region_boundary(region, c.end, last_use)
    _, fn = c.lower(region, inputs, outputs)
    args = [tiny if isinstance(p, TensorProxy) else p.value for p in inputs]
    per_call = _median_s(lambda: [fn(*args) for _ in range(200)]) / 200 * 1e6
    return max(per_call - launch_us, 0.1)


def main() -> int:
    result = measure()
    path = cache_file()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(result, indent=1))
    print(f"memory bandwidth {result['bandwidth_gbs']:.1f} GB/s, matmul {result['flops_g']:.1f} GFLOP/s, "
          f"kernel launch {result['launch_us']:.2f} us")
    for name, us in result["dispatch_us"].items():
        print(f"executor {name}: {us:.2f} us per op")
    print(f"saved to {path}")
    return 0
