"""Per-call overhead on the cache-hit path: tc.jit vs eager vs torch.compile, side by side.

Workloads are tiny so that the time is dominated by what each system does around the
kernels: two 8x8 tensors added and multiplied; the same with one Python effect or fresh value
made on every call, as in eager: a ``print`` (to a stream that discards it), a ``.write`` on an
open file (``os.devnull``), a ``random.random()`` (drawn by the prologue), a branch on
``random.random() < 0.5`` (two cache entries); a function of 32 small tensor inputs; an MLP
module with 100 parameters (50 Linear layers of 8x8) on a 1x8 input.

Run: ``python -m benchmarks.dispatch_overhead [--quick] [--json PATH]``. Prints a table of
median per-call microseconds (and interquartile range) and ratios to eager (systems
interleaved, so drift affects all alike), then what each effect adds to a call, per system.
"""

from __future__ import annotations

import argparse
import atexit
import json
import os
import random
import statistics
import sys
import time
import warnings

import torch

import thunder_core as tc


def tiny(a, b):
    return a * b + a


class _Sink:
    """A stream that discards what is printed to it."""

    def write(self, s):
        return len(s)

    def flush(self):
        pass


_SINK = _Sink()


def tiny_print(a, b):
    print("step", file=_SINK)
    return a * b + a


_DEVNULL = None  # an open file, like a log file (opened by workloads())


def tiny_write(a, b):
    _DEVNULL.write("step\n")
    return a * b + a


def tiny_random(a, b):
    return a * random.random() + a


def tiny_branch(a, b):
    if random.random() < 0.5:
        return a * b + a
    return a * b - a


def many(*xs):
    out = xs[0]
    for x in xs[1:]:
        out = out + x
    return out


class Deep(torch.nn.Module):
    def __init__(self, n=50, d=8):
        super().__init__()
        self.layers = torch.nn.ModuleList(torch.nn.Linear(d, d) for _ in range(n))

    def forward(self, x):
        for layer in self.layers:
            x = layer(x)
        return x


def workloads():
    global _DEVNULL
    if _DEVNULL is None:
        _DEVNULL = open(os.devnull, "w")  # noqa: SIM115 - open for the process
        atexit.register(_DEVNULL.close)
    a, b = torch.randn(8, 8), torch.randn(8, 8)
    xs = [torch.randn(4) for _ in range(32)]
    torch.manual_seed(0)
    deep = Deep().eval()
    assert sum(1 for _ in deep.parameters()) == 100
    x = torch.randn(1, 8)
    return [("two 8x8 tensors", tiny, (a, b)), (PLAIN + ", one print", tiny_print, (a, b)),
            (PLAIN + ", one file .write", tiny_write, (a, b)), (PLAIN + ", one random.random()", tiny_random, (a, b)),
            (PLAIN + ", a branch on random.random()", tiny_branch, (a, b)),
            ("32 tensor inputs", many, tuple(xs)),
            ("module, 100 parameters", deep, (x,))]


PLAIN = "two 8x8 tensors"


def systems(fn):
    out = {"eager": fn, "tc.jit": tc.jit(fn), "tc.jit[torch]": tc.jit(fn, executors=["torch"])}
    try:
        out["torch.compile"] = torch.compile(fn)
    except Exception as e:  # noqa: BLE001
        print(f"torch.compile unavailable: {e}", file=sys.stderr)
    return out


def per_call_us(fn, args, inner):
    t = time.perf_counter_ns()
    for _ in range(inner):
        fn(*args)
    return (time.perf_counter_ns() - t) / inner / 1e3


def _interleaved(fns, reps, inner):
    """{name: [per-call µs samples]}: the callables take turns (drift affects all alike)."""
    timings = {k: [] for k in fns}
    for _ in range(reps):
        for name, (f, args) in fns.items():
            timings[name].append(per_call_us(f, args, inner))
    return timings


def _stats(ts):
    q = statistics.quantiles(ts, n=4)
    return {"median_us": statistics.median(ts), "iqr_us": q[2] - q[0], "min_us": min(ts)}


def phases(jfn, args, kwargs=None):
    """Where a cache hit of ``jfn`` spends its time, as callables: the checks (the prologue:
    guards and fetching the inputs), the computation alone, the epilogue alone (when there is
    one), and the whole call; "rest" (the whole call minus the parts) is the jit's own
    ``__call__`` and the one-function hit path around them."""
    from thunder_core.api import _jfn

    kwargs = kwargs or {}
    e = _jfn(jfn)._last
    call_args = (*(() if _jfn(jfn)._bound is None else (_jfn(jfn)._bound,)), *args)
    if isinstance(jfn, torch.nn.Module):
        call_args = (jfn._tc_module, *args)
    inputs = e.prologue.fn(call_args, kwargs)
    out = {"checks": (lambda: e.prologue.fn(call_args, kwargs), ()), "computation": (e.computation, inputs)}
    if e.epilogue is not None:
        result = e.computation(*inputs)
        out["epilogue"] = (lambda: e.epilogue(call_args, kwargs, result), ())
    out["whole call"] = (lambda: jfn(*args, **kwargs), ())
    return out


def region_overhead(reps, inner):
    """One tiny region (4 elementwise ops on 8 floats) per call: eager op by op, tc.jit with
    inductor's compiled region swapped in, the same with executors=["torch"], torch.compile."""
    def region(x, y):
        return ((x * 2 + y).sin() * x).tanh()

    x, y = torch.randn(8), torch.randn(8)
    fns = {"eager": region, "tc.jit[inductor]": tc.jit(region, executors=["inductor", "torch"],
                                                         wait_for_compile=True),
           "tc.jit[torch]": tc.jit(region, executors=["torch"]), "torch.compile": torch.compile(region)}
    for f in fns.values():
        torch.testing.assert_close(f(x, y), region(x, y))
    return {k: _stats(v) for k, v in _interleaved({k: (f, (x, y)) for k, f in fns.items()}, reps, inner).items()}


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--json")
    ap.add_argument("--regions", action="store_true", help="also: the per-call overhead of one inductor region")
    ns = ap.parse_args(argv)
    torch.set_num_threads(1)
    reps, inner = (15, 20) if ns.quick else (41, 50)
    results, breakdown = [], []
    print(f"torch {torch.__version__}, {torch.get_num_threads()} thread, python {sys.version.split()[0]}")
    for name, fn, args in workloads():
        row = {"workload": name}
        with torch.no_grad(), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            random.seed(0)
            expected = fn(*args)
            sys_fns = systems(fn)
            for sname, f in sys_fns.items():
                random.seed(0)  # the same draws as eager's
                torch.testing.assert_close(f(*args), expected)
                for _ in range(20):  # (both sides of the branch on random.random())
                    f(*args)
            timings = _interleaved({s: (f, args) for s, f in sys_fns.items()}, reps, inner)
            parts = _interleaved(phases(sys_fns["tc.jit[torch]"], args), reps, inner)
        for sname, ts in timings.items():
            row[sname] = _stats(ts)
        results.append(row)
        parts = {k: statistics.median(v) for k, v in parts.items()}
        parts["rest"] = parts["whole call"] - sum(v for k, v in parts.items() if k != "whole call")
        breakdown.append({"workload": name, "eager_us": row["eager"]["median_us"], **parts})
    names = [s for s in results[0] if s != "workload"]
    print("\n| workload | " + " | ".join(f"{s} µs (x eager)" for s in names) + " |")
    print("|---|" + "---:|" * len(names))
    for r in results:
        e = r["eager"]["median_us"]
        cells = [f"{r[s]['median_us']:.1f} ({r[s]['median_us'] / e:.2f}x)" for s in names]
        print(f"| {r['workload']} | " + " | ".join(cells) + " |")
    base = next(r for r in results if r["workload"] == PLAIN)
    print(f"\nadded to one call (median µs, minus {PLAIN!r} of the same system):")
    for r in results:
        if r["workload"].startswith(PLAIN + ", "):
            what = r["workload"][len(PLAIN) + 2:]
            print(f"  {what}: " + ", ".join(f"{s} {r[s]['median_us'] - base[s]['median_us']:+.1f}" for s in names))
    print("\nWhere a cache hit of tc.jit[torch] spends its time (median µs of each part measured alone; "
          "rest = whole call minus the parts: the jit's __call__ and the hit path around them):\n")
    cols = ["eager_us", "whole call", "checks", "computation", "epilogue", "rest"]
    print("| workload | eager | tc.jit | checks | computation | epilogue | rest |")
    print("|---|" + "---:|" * (len(cols)))
    for b in breakdown:
        print(f"| {b['workload']} | " + " | ".join(f"{b[c]:.2f}" if c in b else "–" for c in cols) + " |")
    out = {"torch": torch.__version__, "results": results, "phases": breakdown}
    if ns.regions:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            reg = region_overhead(reps, inner * 4)
        out["region"] = reg
        print("\nOne region of 4 elementwise ops on 8 floats, per call (median µs, x eager):\n")
        print("| " + " | ".join(reg) + " |\n|" + "---:|" * len(reg))
        print("| " + " | ".join(f"{v['median_us']:.2f} ({v['median_us'] / reg['eager']['median_us']:.2f}x)"
                                for v in reg.values()) + " |")
    if ns.json:
        with open(ns.json, "w") as fh:
            json.dump(out, fh, indent=1)
    return out


if __name__ == "__main__":
    main()
