"""``python -m benchmarks``: eager vs torch.compile vs tc.jit (vs Lightning Thunder when it
imports), side by side. Writes results.json, results.md and results.png into --out (default
benchmarks/results/<date>/) and prints the Markdown.

    python -m benchmarks                          # full run (~7 min on 2 cores, ~3 of them the HF models)
    python -m benchmarks --quick                  # smaller shapes, fewer repetitions (~2.5 min)
    python -m benchmarks --workloads two-8x8,mlp --systems eager,tc.jit --out /tmp/b
    python -m benchmarks --workloads hf-all       # the ten Hugging Face models only (~6.5 min)

Workloads: two-8x8, inputs-32, params-100 (per-call dispatch overhead), elementwise, mlp,
gpt-block, gpt (each forward and forward+backward), recompile (changing sequence length), and
Hugging Face transformers models (benchmarks/hf_workloads.py; forward and forward+backward):
hf-gpt2, hf-llama, hf-bert, hf-t5 (in the default run), hf-mistral, hf-qwen2, hf-opt,
hf-gpt-neox, hf-phi, hf-falcon (by name). Groups: hf (the four of the default run), hf-all (all
ten). Without an importable transformers the hf-* rows are reported as skipped.
Systems: eager, torch.compile, tc.jit, tc.jit[torch], thunder.jit. The other benchmarks,
``python -m benchmarks.dispatch_overhead`` (where a cache hit spends its time) and
``python -m benchmarks.interpreter_overhead``, run on their own; ``python -m benchmarks.issue20``
runs the performance issue's list (this suite on its workloads, the cache-hit breakdown, the
interpreter on fib, 1- vs 12-layer first calls) and says criterion by criterion what it measured.
"""

from __future__ import annotations

import argparse
import datetime
import os
import sys
import time

from benchmarks import report, suite
from benchmarks import systems as systems_mod
from benchmarks import workloads as wl

RESULTS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "results")


def _names(text, known, what):
    names = [n.strip() for n in text.split(",") if n.strip()]
    bad = [n for n in names if n not in known]
    if bad:
        raise SystemExit(f"unknown {what} {', '.join(bad)}; choose from {', '.join(known)}")
    return names


def main(argv=None, log=print):
    p = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__.split("\n\n")[0])
    p.add_argument("--quick", action="store_true", help="smaller shapes and fewer repetitions (< 3 min on 2 cores)")
    p.add_argument("--workloads", help="comma-separated: " + ",".join([*wl.GROUPS, *(w.key for w in wl.WORKLOADS)])
                   + " (default: all but the hf-* ones outside the hf group)")
    p.add_argument("--systems", help="comma-separated: " + ",".join(s.name for s in systems_mod.all_systems())
                   + " (eager always runs: it is the reference)")
    p.add_argument("--modes", help="comma-separated: forward,forward+backward (default both)")
    p.add_argument("--threads", type=int, help="torch.set_num_threads for the whole run (default 1)")
    p.add_argument("--reps", type=int, help="fixed number of repetitions instead of a time budget")
    p.add_argument("--out", help="output directory (default benchmarks/results/<date>)")
    a = p.parse_args(argv)
    t0 = time.perf_counter()
    results = suite.run(
        quick=a.quick,
        workloads=_names(a.workloads, [*wl.GROUPS, *(w.key for w in wl.WORKLOADS)], "workload") if a.workloads else None,
        systems=_names(a.systems, [s.name for s in systems_mod.all_systems()], "system") if a.systems else None,
        modes=_names(a.modes, list(wl.MODES), "mode") if a.modes else None,
        threads=a.threads, reps=a.reps, log=log)
    out = a.out or os.path.join(RESULTS, datetime.date.today().isoformat())
    paths, md = report.write_all(results, out)
    log("\n" + md)
    for kind, path in paths.items():
        log(f"wrote {path}")
    if results["chart"]["skipped"]:
        log(f"no chart: {results['chart']['skipped']}")
    log(f"total {time.perf_counter() - t0:.1f} s")
    return results


if __name__ == "__main__":
    sys.exit(0 if main() else 1)
