"""Files written by ``python -m benchmarks``: results.json (everything measured), results.md (the
tables, the list of places where tc.jit is slower, the method) and results.png (ratios to eager,
matplotlib)."""

from __future__ import annotations

import json
import os

SLOWER_BY = 0.05          # "slower" means a median (or total, or peak) more than 5% above the other's
TC_SYSTEMS = ("tc.jit", "tc.jit[torch]")
MODE_SHORT = {"forward": "fwd", "forward+backward": "fwd+bwd"}


# ---------------------------------------------------------------- analysis

def analyze(results):
    """Where each tc.jit system is slower (or uses more memory) than eager / torch.compile."""
    out = {"threshold": f"more than {SLOWER_BY:.0%} above"}
    for tcs in TC_SYSTEMS:
        if not results["systems"].get(tcs, {}).get("available"):
            continue
        found = {"time_vs_eager": [], "time_vs_torch.compile": [], "first_call_vs_torch.compile": [],
                 "recompile": [], "memory_vs_eager": [], "memory_vs_torch.compile": [], "failures": []}
        for row in results["rows"]:
            res = row["results"]
            mine = res.get(tcs)
            if mine is None:
                continue
            where = f"{row['label']} [{MODE_SHORT[row['mode']]}]"
            if mine["status"] != "ok":
                found["failures"].append({"row": where, "status": mine["status"], "error": mine.get("error")})
                continue
            for other, key in (("eager", "time_vs_eager"), ("torch.compile", "time_vs_torch.compile")):
                o = res.get(other, {})
                if "median_us" in mine and o.get("median_us") and mine["median_us"] > o["median_us"] * (1 + SLOWER_BY):
                    found[key].append({"row": where, "ratio": mine["median_us"] / o["median_us"],
                                       "tc_us": mine["median_us"], "other_us": o["median_us"]})
            o = res.get("torch.compile", {})
            if o.get("first_call_s") and mine.get("first_call_s", 0) > o["first_call_s"] * (1 + SLOWER_BY):
                found["first_call_vs_torch.compile"].append(
                    {"row": where, "tc_s": mine["first_call_s"], "other_s": o["first_call_s"]})
            for other, key in (("eager", "memory_vs_eager"), ("torch.compile", "memory_vs_torch.compile")):
                o = res.get(other, {})
                if o.get("peak_mem_bytes") and mine.get("peak_mem_bytes", 0) > o["peak_mem_bytes"] * (1 + SLOWER_BY):
                    found[key].append({"row": where, "ratio": mine["peak_mem_bytes"] / o["peak_mem_bytes"],
                                       "tc_bytes": mine["peak_mem_bytes"], "other_bytes": o["peak_mem_bytes"]})
        rc = results.get("recompile")
        if rc and rc["results"].get(tcs, {}).get("status") == "ok":
            mine = rc["results"][tcs]
            for other in ("eager", "torch.compile"):
                o = rc["results"].get(other, {})
                if o.get("total_s") and mine["total_s"] > o["total_s"] * (1 + SLOWER_BY):
                    found["recompile"].append({"vs": other, "tc_s": mine["total_s"], "other_s": o["total_s"],
                                               "tc_compiles": mine.get("compiles"),
                                               "other_compiles": o.get("compiles")})
        elif rc and tcs in rc["results"]:
            found["failures"].append({"row": rc["label"], "status": rc["results"][tcs]["status"],
                                      "error": rc["results"][tcs].get("error")})
        out[tcs] = found
    return out


# ---------------------------------------------------------------- formatting

def fmt_us(us):
    if us < 1e3:
        return f"{us:.1f} µs"
    if us < 1e6:
        return f"{us / 1e3:.2f} ms"
    return f"{us / 1e6:.2f} s"


def fmt_s(s):
    return fmt_us(s * 1e6)


def fmt_mb(b):
    return f"{b / 2**20:.1f} MB"


def _systems_shown(results):
    return [n for n, s in results["systems"].items() if s["available"]]


def _cell_time(r, eager_name):
    if r is None:
        return "–"
    if r["status"] != "ok":
        return r["status"]
    if "median_us" not in r:
        return "–"
    cell = f"{fmt_us(r['median_us'])} ±{fmt_us(r['iqr_us'])}"
    if not eager_name and r.get("ratio_to_eager") is not None:
        cell += f" ({r['ratio_to_eager']:.2f}x)"
    return cell


def _cell_first(r):
    if r is None:
        return "–"
    if "first_call_s" not in r:
        return r["status"]
    steady = r.get("steady_state_s")
    return fmt_s(r["first_call_s"]) + (f" (steady {fmt_s(steady)})" if steady is not None and steady > 1.5 * r[
        "first_call_s"] else "")


def _ratio_table(title, key, rows, names):
    """A Markdown table of ``key`` (bytes) per workload and system, with each ratio to eager;
    a system without the measurement shows its status (error, mismatch) or a dash."""
    lines = ["", f"## {title} (ratio to eager)", "", "| workload | " + " | ".join(names) + " |",
             "| --- |" + " ---: |" * len(names)]
    for row in rows:
        e = row["results"]["eager"].get(key)
        cells = []
        for n in names:
            r = row["results"].get(n, {})
            b = r.get(key)
            if b is None:
                cells.append(r.get("status", "–") if r.get("status") != "ok" else "–")
            else:
                cells.append(fmt_mb(b) + (f" ({b / e:.2f}x)" if e and n != "eager" else ""))
        lines.append(f"| {row['label']} | " + " | ".join(cells) + " |")
    return lines


def markdown(results):
    m, names = results["meta"], _systems_shown(results)
    lines = [f"# thunder_core side-by-side benchmarks, {m['date']}", ""]
    lines.append(f"torch {m['torch']}, Python {m['python']}, thunder_core {m['thunder_core']}; {m['cpu']}, "
                 f"{m['cpus_usable']} CPUs usable, `torch.set_num_threads({m['torch_threads']})`; "
                 f"{'`--quick` run (smaller shapes where labelled)' if m['quick'] else 'full run'}"
                 + (f", {m['elapsed_s'] / 60:.1f} min" if "elapsed_s" in m else "") + "."
                 + (f" transformers {m['transformers']}." if m.get("transformers") else ""))
    lines.append("")
    for n, s in results["systems"].items():
        lines.append(f"- **{n}**: {s['description']}" + ("" if s["available"] else f". **Skipped**: {s['reason']}"))
    lines.append("")

    if results["rows"]:
        lines += ["## Time per call (median ±interquartile range; ratio to eager)", "",
                  "| workload | mode | " + " | ".join(names) + " |",
                  "| --- | --- |" + " ---: |" * len(names)]
        for row in results["rows"]:
            cells = (["skipped"] * len(names) if "skipped" in row
                     else [_cell_time(row["results"].get(n), n == "eager") for n in names])
            lines.append(f"| {row['label']} | {MODE_SHORT[row['mode']]} | " + " | ".join(cells) + " |")
        lines += ["", "## First call (fresh object: trace/compile + one run)", "",
                  "tc.jit's first call does not wait for inductor: its regions run op by op while they compile in "
                  "the background; \"steady\" is when those compiles were done (shown when later than the first "
                  "call), after which the per-call times above apply.", "",
                  "| workload | mode | " + " | ".join(names) + " |", "| --- | --- |" + " ---: |" * len(names)]
        for row in results["rows"]:
            cells = ["skipped"] * len(names) if "skipped" in row else [_cell_first(row["results"].get(n)) for n in names]
            lines.append(f"| {row['label']} | {MODE_SHORT[row['mode']]} | " + " | ".join(cells) + " |")
        mem_rows = [r for r in results["rows"] if any("peak_mem_bytes" in x for x in r["results"].values())]
        if mem_rows:
            lines += _ratio_table("Peak tensor memory of the training step", "peak_mem_bytes", mem_rows, names)
            lines += _ratio_table("Activations saved for backward", "saved_bytes", mem_rows, names)
            if m.get("saved_method"):
                lines += ["", m["saved_method"]]
            lines += ["", m["memory_method"]]

    rc = results.get("recompile")
    if rc:
        lines += ["", f"## Recompiles: {rc['label']}", "",
                  "| system | compiles | total time | first call | median of calls 2-10 |",
                  "| --- | ---: | ---: | ---: | ---: |"]
        for n in names:
            r = rc["results"].get(n)
            if r is None:
                continue
            if r["status"] != "ok" and "total_s" not in r:
                lines.append(f"| {n} | {r['status']} | | | |")
                continue
            comp = "–" if n == "eager" else ("not counted" if r.get("compiles") is None else str(r["compiles"]))
            later = sorted(r["call_s"][1:])
            med = later[len(later) // 2] if later else 0.0
            status = "" if r["status"] == "ok" else f" ({r['status']})"
            lines.append(f"| {n}{status} | {comp} | {fmt_s(r['total_s'])} | {fmt_s(r['call_s'][0])} | {fmt_s(med)} |")

    skipped = {row["label"]: row["skipped"] for row in results["rows"] if "skipped" in row}
    if skipped:
        lines += ["", "## Skipped workloads", ""] + [f"- {label}: {why}" for label, why in skipped.items()]
    lines += ["", "## Where tc.jit is slower", ""] + _slower_lines(results)
    failures = [(row["label"], row["mode"], n, r) for row in results["rows"] + ([rc] if rc else [])
                for n, r in row["results"].items() if r["status"] != "ok"]
    if failures:
        lines += ["", "## Failures (not timed)", ""]
        lines += [f"- {label} [{MODE_SHORT[mode]}], {n}: {r['status']}: {r.get('error')}"
                  for label, mode, n, r in failures]
    s = m["settings"]
    reps = (f"{s['fixed_reps']} repetitions" if s.get("fixed_reps") else
            f"repetitions adapted to ~{s['budget']:.0f} s per row" + (
                f" ({s['hf_budget']:.0f} s for the HF rows)" if s.get("hf_budget") and not m["quick"] else "")
            + f", at least {s['min_reps']} and at most {s['max_reps']}")
    lines += ["", "## Method", "",
              "- Every system gets a fresh compiled object per row; its first call is timed (\"first call\") and its "
              f"outputs (and, for fwd+bwd, the gradients) are checked against eager: max |diff| / max |eager| per "
              f"tensor below {s['fwd_tol']:.0e} (outputs) and {s['grad_tol']:.0e} (gradients); a tensor whose eager "
              f"values are all below {s.get('scale_floor', 1e-5):.0e} x the largest |eager| value of the outputs (of the "
              "gradients) is measured against that floor instead (e.g. an attention key bias's gradient, zero in exact "
              "arithmetic, ~1e-12..1e-10 rounding noise in eager). A system that fails the check or raises is reported, not "
              "timed. One-time imports are excluded: every system first runs "
              "once on a throwaway function.",
              f"- fwd runs under `torch.no_grad()`; fwd+bwd is: gradients set to None, forward, "
              "`loss = out.float().sum()` (the GPT model: its own cross-entropy loss), `loss.backward()`.",
              "- HF rows (Hugging Face transformers models built from configs with random weights, "
              "benchmarks/hf_workloads.py): fwd is `model.eval()`, `model(input_ids=..., attention_mask=...)` with "
              "the library's defaults (a `ModelOutput`: logits and the KV cache's tensors are compared); fwd+bwd is "
              "`model.train()`, `model(..., labels=...).loss.backward()`, every parameter's gradient compared. "
              "Every dropout probability of the config is 0 (so the training step is deterministic). Feed-forward "
              "size 4 x hidden; the attention mask pads the first row on the left.",
              f"- {s['warmup']} warm-up calls, then {reps}; systems take turns in each repetition (rotating order). "
              f"A sample is the mean of back-to-back calls lasting ~{s['sample_s'] * 1e3:.0f} ms, with Python's "
              "cyclic GC paused. Reported: median and interquartile range of the samples; ratio = median / eager's "
              "median.",
              f"- `torch.set_num_threads({m['torch_threads']})` for the whole run (default 1: on a 2-vCPU VM two threads "
              "showed seconds-long phases of ~100 ms stalls per call; `--threads N` to change).",
              "- Cold compiles: `torch._dynamo.reset()` at the start of every row (and before torch.compile's fresh "
              "object), inductor's on-disk caches disabled (`force_disable_caches`); this also makes tc.jit's "
              "inductor executor, which keeps torch.compile'd regions across jitted objects, recompile them.",
              "- Compiles: graphs compiled for torch.compile (`torch._dynamo.utils.counters`, counted around its own "
              "calls only), cache misses for tc.jit / thunder.jit. `compiles` in results.json should be 1 (or "
              "the number of graphs with graph breaks) per row: more means a recompile during timing.",
              f"- \"Slower\" means {results.get('tc_jit_slower', {}).get('threshold', 'more than 5% above')} the other "
              "system's median (total, peak).",
              "- Command: `" + " ".join(["python -m benchmarks", *m["argv"]]) + "`."]
    return "\n".join(lines) + "\n"


def _slower_lines(results):
    an = results.get("tc_jit_slower") or analyze(results)
    out = []
    for tcs in TC_SYSTEMS:
        f = an.get(tcs)
        if f is None:
            continue
        items = []
        if f["time_vs_eager"]:
            items.append("per call, than eager: " + "; ".join(f"{x['row']} {x['ratio']:.2f}x" for x in f["time_vs_eager"]))
        if f["time_vs_torch.compile"]:
            items.append("per call, than torch.compile: " + "; ".join(
                f"{x['row']} {x['ratio']:.2f}x" for x in f["time_vs_torch.compile"]))
        if f["first_call_vs_torch.compile"]:
            items.append("first call, than torch.compile: " + "; ".join(
                f"{x['row']} {fmt_s(x['tc_s'])} vs {fmt_s(x['other_s'])}" for x in f["first_call_vs_torch.compile"]))
        for x in f["recompile"]:
            items.append(f"changing sequence length, than {x['vs']}: {fmt_s(x['tc_s'])} vs {fmt_s(x['other_s'])} "
                         f"total ({x['tc_compiles']} compiles" + (f" vs {x['other_compiles']})" if x['vs'] != 'eager' else ")"))
        for key, other in (("memory_vs_eager", "eager"), ("memory_vs_torch.compile", "torch.compile")):
            if f[key]:
                items.append(f"peak memory, more than {other}: " + "; ".join(
                    f"{x['row']} {x['ratio']:.2f}x" for x in f[key]))
        if f["failures"]:
            items.append("failed: " + "; ".join(f"{x['row']} ({x['status']})" for x in f["failures"]))
        out.append(f"**{tcs}**:" if items else f"**{tcs}**: nowhere in this run.")
        out += [f"- {i}" for i in items] + [""]
    return out[:-1] if out else ["(no tc.jit system ran)"]


# ---------------------------------------------------------------- chart

TICKS = [k * 10.0 ** e for e in range(-3, 4) for k in (1, 2, 5)]


def _short(label):
    return label.split(" (")[0].split(" [")[0]


def chart(results, path):
    """Bars of the ratio to eager, drawn from 1 (per-call time; training-step peak memory), log
    scale. Returns None, or why there is no chart."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        from matplotlib.ticker import FixedLocator, FuncFormatter, NullFormatter
    except Exception as e:  # noqa: BLE001
        return f"matplotlib is not importable ({type(e).__name__}: {e}); pip install matplotlib"
    names = [n for n in _systems_shown(results) if n != "eager"]

    def time_ratio(r, n):
        return r["results"].get(n, {}).get("ratio_to_eager")

    def mem_ratio(r, n):
        b, e = r["results"].get(n, {}).get("peak_mem_bytes"), r["results"]["eager"].get("peak_mem_bytes")
        return b / e if b and e else None
    panels = [("per-call time / eager (median): left of 1x is faster than eager", time_ratio,
               [(f"{_short(r['label'])} [{MODE_SHORT[r['mode']]}]", r) for r in results["rows"]
                if any(time_ratio(r, n) for n in names)])]
    mem = [(_short(r["label"]), r) for r in results["rows"] if any(mem_ratio(r, n) for n in names)]
    if mem:
        panels.append(("training-step peak tensor memory / eager: left of 1x is less", mem_ratio, mem))
    rc = results.get("recompile")

    def rc_ratio(r, n):
        t, e = r["results"].get(n, {}).get("total_s"), r["results"].get("eager", {}).get("total_s")
        return t / e if t and e else None
    if rc and any(rc_ratio(rc, n) for n in names):
        panels.append(("10 calls, changing sequence length: total time (compiles included) / eager", rc_ratio,
                       [(_short(rc["label"]), rc)]))
    panels = [p for p in panels if p[2]] or [("no ratios to plot in this run", time_ratio, [])]
    heights = [max(1, len(p[2])) * max(1, len(names)) for p in panels]
    fig, axes = plt.subplots(len(panels), 1, figsize=(9, 1.6 + 0.16 * sum(heights)),
                             gridspec_kw={"height_ratios": heights}, squeeze=False)
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    bar_h = 0.8 / max(1, len(names))
    for ax, (title, value, prow) in zip(axes[:, 0], panels):
        for j, n in enumerate(names):
            pts = [(i + (j - (len(names) - 1) / 2) * bar_h, value(r, n)) for i, (_, r) in enumerate(prow)]
            pts = [(y, v) for y, v in pts if v]
            ax.barh([y for y, _ in pts], [v - 1 for _, v in pts], left=1, height=bar_h,
                    color=colors[j % len(colors)], label=n)
            for y, v in pts:
                ax.text(v, y, f" {v:.2f}x " if v >= 1 else f" {v:.2f}x ", va="center",
                        ha="left" if v >= 1 else "right", fontsize=6)
        ax.axvline(1.0, color="black", linewidth=0.8)
        ax.set_xscale("log")
        lo = min([value(r, n) for _, r in prow for n in names if value(r, n)] + [0.8])
        hi = max([value(r, n) for _, r in prow for n in names if value(r, n)] + [1.25])
        ax.set_xlim(lo / 1.6, hi * 1.6)
        ax.xaxis.set_major_locator(FixedLocator([t for t in TICKS if lo / 1.6 <= t <= hi * 1.6]))
        ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}x"))
        ax.xaxis.set_minor_formatter(NullFormatter())
        ax.set_yticks(range(len(prow)))
        ax.set_yticklabels([lab for lab, _ in prow], fontsize=7)
        ax.set_ylim(max(1, len(prow)) - 0.5, -0.5)
        ax.set_title(title, fontsize=9)
        ax.tick_params(axis="x", labelsize=7)
        ax.grid(axis="x", which="major", linewidth=0.3)
    if names:
        axes[0, 0].legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    m = results["meta"]
    fig.suptitle(f"thunder_core benchmarks {m['date']}: torch {m['torch']}, {m['torch_threads']} thread(s)"
                 + (", --quick (smaller shapes)" if m["quick"] else ""), fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=130)
    plt.close(fig)
    return None


# ---------------------------------------------------------------- files

def write_all(results, out_dir):
    """Write results.png, results.md and results.json into out_dir; return their paths."""
    os.makedirs(out_dir, exist_ok=True)
    paths = {k: os.path.join(out_dir, f"results.{k}") for k in ("json", "md", "png")}
    reason = chart(results, paths["png"])
    results["chart"] = {"path": None if reason else paths["png"], "skipped": reason}
    if reason:
        paths.pop("png")
    md = markdown(results)
    with open(paths["md"], "w", encoding="utf-8") as fh:
        fh.write(md)
    with open(paths["json"], "w", encoding="utf-8") as fh:
        json.dump(results, fh, indent=1, default=str)
    return paths, md
