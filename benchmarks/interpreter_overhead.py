"""Interpreter overhead: native CPython vs ``thunder_core.frontend.interpret``.

What is measured
    For each workload below (plain module-level functions, pure Python, standard library
    only) the wall time of ``fn(*args)`` run natively and of ``interpret(fn)(*args)``, which
    builds a fresh ``Interpreter`` and runs ``fn``'s bytecode under it (every call it makes
    to a Python function is interpreted too; builtins, C methods and dunders/properties
    reached through native operators run natively). The ratio interpreted/native is the
    interpreter's overhead on that kind of code.

How
    1. The interpreted result must equal the native one (the script aborts otherwise).
    2. Warm-up runs (the first interpreted call also decodes and caches the code objects).
    3. Repetitions alternate native and interpreted runs (their order flips every
       repetition) and are timed with ``time.perf_counter_ns``. A native sample is the mean
       of a short batch of calls (>= ~0.2 ms), so fast workloads are not timer-bound; an
       interpreted sample is one call. The number of repetitions adapts to a time budget
       (~75 s in total, ~10 s with --quick), with a minimum for stable medians.
    4. Reported: medians, the interquartile range of the interpreted samples, the ratio
       of medians, and the geometric mean of the ratios.

Run (from the repository root)::

    python -m benchmarks.interpreter_overhead            # full run, < ~2 minutes
    python -m benchmarks.interpreter_overhead --quick    # smaller fib, shorter budget, < ~20 s
    python -m benchmarks.interpreter_overhead --json benchmarks/results/overhead.json
"""

from __future__ import annotations

import argparse
import gc
import json
import math
import os
import platform
import statistics
import sys
import time

from thunder_core.frontend import interpret

# ------------------------------------------------------------------------ workloads


def fib(n):
    return n if n < 2 else fib(n - 1) + fib(n - 2)


def comprehensions(n):
    xs = list(range(n))
    grid = [[x * y for y in range(6)] for x in xs if x % 3]
    squares = {x: x * x for x in xs}
    residues = {x % 97 for x in xs}
    evens = {k: [v for v in row if v % 2 == 0] for k, row in enumerate(grid[:300])}
    pairs = [(a, b) for a in range(40) for b in range(a) if (a ^ b) & 1]
    total = sum(v for row in grid for v in row if v % 5)
    return total, len(squares), sorted(residues)[:5], sum(map(len, evens.values())), len(pairs)


class Vec:
    def __init__(self, x, y):
        self.x = x
        self.y = y

    @property
    def norm1(self):
        return abs(self.x) + abs(self.y)

    def scaled(self, k):
        return Vec(self.x * k, self.y * k)

    def __add__(self, other):
        return Vec(self.x + other.x, self.y + other.y)


def classes(n):
    vs = [Vec(i, -i // 3) for i in range(n)]
    acc = Vec(0, 0)
    norms = 0
    for v in vs:
        norms += v.norm1
        acc = acc + v.scaled(2)
    total = sum(vs, Vec(0, 0))
    return acc.x, acc.y, total.x, total.y, norms


def numbers(n):
    for i in range(n):
        if i % 3 != 1:
            yield i * 2


def generators(n):
    picked = (x // 2 + 1 for x in numbers(n) if x % 4 == 0)
    return sum(picked)


def exceptions(n):
    table = {i: i * i for i in range(0, n, 2)}  # even keys only: half the lookups miss
    hits = misses = 0
    for i in range(n):
        try:
            hits += table[i]
        except KeyError:
            misses += 1
    return hits, misses


def strings(n):
    out = []
    for i in range(n):
        name = f"item_{i:04d}"
        s = f"{name.upper()}|{i * 3.5:>9.2f}|{i!r:>5}|{hex(i)}"
        out.append(s.replace("_", "-").lower().strip())
    joined = ",".join(out)
    return len(joined), joined.count("-"), joined[:48], out[-1].split("|"), out[n // 2].title()


def workloads(quick):
    return [
        (f"fib({15 if quick else 20})", fib, (15 if quick else 20,)),
        ("comprehensions(2000)", comprehensions, (2000,)),
        ("classes(500)", classes, (500,)),
        ("generators(5000)", generators, (5000,)),
        ("exceptions(1000)", exceptions, (1000,)),
        ("strings(1000)", strings, (1000,)),
    ]


# ------------------------------------------------------------------------ harness

NATIVE_BATCH_NS = 200_000  # a native sample times a batch of calls lasting at least this


def _run_ns(fn, args, inner=1):
    t0 = time.perf_counter_ns()
    for _ in range(inner):
        fn(*args)
    return (time.perf_counter_ns() - t0) / inner


def _quartiles(xs):
    q1, q2, q3 = statistics.quantiles(xs, n=4, method="inclusive")
    return q1, q2, q3


def measure(name, fn, args, budget_ns, min_reps, max_reps, warmup):
    interp = interpret(fn)
    expected, got = fn(*args), interp(*args)
    if got != expected:
        raise SystemExit(f"FAIL {name}: interpreted result differs from native\n"
                         f"  native:      {expected!r}\n  interpreted: {got!r}")
    gc.collect()
    t_nat = min(_run_ns(fn, args) for _ in range(max(warmup, 3)))
    t_int = min(_run_ns(interp, args) for _ in range(warmup))
    inner = max(1, math.ceil(NATIVE_BATCH_NS / max(t_nat, 1)))
    per_rep = t_int + inner * t_nat
    reps = max(min_reps, min(max_reps, int(budget_ns // per_rep)))
    nat, itp = [], []
    for r in range(reps):
        if r % 2:
            itp.append(_run_ns(interp, args))
            nat.append(_run_ns(fn, args, inner))
        else:
            nat.append(_run_ns(fn, args, inner))
            itp.append(_run_ns(interp, args))
    nq, iq = _quartiles(nat), _quartiles(itp)
    return {
        "workload": name, "reps": reps, "native_batch": inner,
        "native_median_us": nq[1] / 1e3, "native_iqr_us": (nq[2] - nq[0]) / 1e3,
        "interpreted_median_us": iq[1] / 1e3, "interpreted_iqr_us": (iq[2] - iq[0]) / 1e3,
        "ratio": iq[1] / nq[1],
    }


def _fmt(us):
    return f"{us:,.1f}" if us < 1000 else f"{us:,.0f}"


def table(results):
    rows = ["| workload | native (median µs) | interpreted (median µs) | ratio (interp/native) "
            "| IQR interpreted (µs) |",
            "|---|---:|---:|---:|---:|"]
    for r in results:
        rows.append(f"| {r['workload']} | {_fmt(r['native_median_us'])} | "
                    f"{_fmt(r['interpreted_median_us'])} | {r['ratio']:.1f}x | "
                    f"{_fmt(r['interpreted_iqr_us'])} |")
    return "\n".join(rows)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--quick", action="store_true", help="smaller fib and time budget (< ~20 s)")
    p.add_argument("--json", metavar="PATH", help="also write the results as JSON to PATH")
    a = p.parse_args(argv)
    total_budget_s, min_reps, max_reps, warmup = (10, 7, 300, 2) if a.quick else (75, 21, 1000, 3)
    wl = workloads(a.quick)
    budget_ns = total_budget_s * 1e9 / len(wl)
    version = f"{platform.python_implementation()} {platform.python_version()}"
    print(f"Python {version} ({sys.executable}) on {platform.machine()}, "
          f"{os.cpu_count()} CPUs{', --quick' if a.quick else ''}", flush=True)
    t0 = time.perf_counter()
    results = []
    for name, fn, args in wl:
        r = measure(name, fn, args, budget_ns, min_reps, max_reps, warmup)
        print(f"  {name}: {r['reps']} reps (native batch {r['native_batch']}), "
              f"ratio {r['ratio']:.1f}x", file=sys.stderr, flush=True)
        results.append(r)
    geo = statistics.geometric_mean(r["ratio"] for r in results)
    elapsed = time.perf_counter() - t0
    print()
    print(table(results))
    print(f"\ngeometric mean of ratios: {geo:.1f}x   (total {elapsed:.1f} s)")
    if a.json:
        d = os.path.dirname(os.path.abspath(a.json))
        os.makedirs(d, exist_ok=True)
        with open(a.json, "w", encoding="utf-8") as fh:
            json.dump({"python": version, "executable": sys.executable, "quick": a.quick,
                       "platform": platform.platform(), "results": results,
                       "geomean_ratio": geo, "elapsed_s": elapsed}, fh, indent=2)
        print(f"wrote {a.json}")


if __name__ == "__main__":
    main()
