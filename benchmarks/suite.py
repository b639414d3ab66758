"""Runs the side-by-side suite: every selected workload, in each mode, on every selected system.

Per row (workload x mode), for each system:
  1. a fresh compiled object (``torch._dynamo.reset()`` first for torch.compile) and its first
     call, timed: trace + compile + run ("first call"); for tc.jit, whose regions of compiling
     executors (inductor) compile in the background while the first calls run op by op, also
     the time until those compiles are done ("steady state after"), then one more call;
  2. the outputs (and, in training mode, the gradients) of those calls checked against eager:
     max |got - eager| / max |eager| per tensor (see SCALE_FLOOR) must stay under FWD_TOL / GRAD_TOL (float
     reordering by fusion is allowed for, wrong results are not). A system that fails the
     check or raises is reported and not timed;
  3. warm-up calls, then interleaved repetitions (systems take turns, the order rotating each
     repetition, so drift hits all alike). A sample is the mean of `inner` back-to-back calls
     (enough calls for ~SAMPLE_S, so microsecond workloads are not timer-bound), with Python's
     cyclic GC paused during a sample. Reported: median and interquartile range of the
     samples, and the median's ratio to eager's;
  4. training mode, compute workloads: the step's peak tensor memory (see ``peak_step_bytes``).
Then the recompile workload: 10 calls with a changing sequence length; compiles and total time.
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import gc
import math
import os
import platform
import statistics
import sys
import time
import warnings

import torch
from torch.utils._pytree import tree_leaves

from benchmarks import systems as systems_mod
from benchmarks import workloads as wl

FWD_TOL, GRAD_TOL = 1e-4, 1e-3
# A tensor's error is relative to its largest |eager| value, but never to less than SCALE_FLOOR x
# the largest |eager| value of all the tensors compared together (the outputs, or the gradients):
# a gradient that is zero in exact arithmetic (an attention key's bias: softmax ignores a shift
# that is the same for every key) comes out of eager as rounding noise (BERT ~4e-12, OPT ~8e-11,
# next to a largest gradient of ~0.15), and another system's different noise is not a wrong
# result. (At 1e-6, torch.compile's OPT key-bias gradient used 5.9e-4 of the 1e-3 tolerance.)
SCALE_FLOOR = 1e-5

MEMORY_METHOD = (
    "Peak tensor memory of one training step (zero grads, forward, loss, backward), measured in-process with "
    "torch.profiler(profile_memory=True): every allocation and free made through PyTorch's CPU allocator during "
    "the step is replayed in time order and the highest running total is reported, relative to the memory held "
    "before the step. It counts tensor storage only (activations, temporaries, gradients, outputs), not Python "
    "objects, compiled code or allocator/OS overhead; it is not the process RSS.")

# One thread unless --threads says otherwise: on the 2-vCPU development VM, two threads gave
# intermittent phases of ~100 ms stalls per call (seconds long, on every system alike), which
# made medians of compute workloads meaningless; one thread did not. Inductor's kernels use
# torch.get_num_threads() too, so every system runs on the same number of threads.
DEFAULT_THREADS = 1

# (per-row time budget s, min reps, max reps, warm-up calls, target seconds per sample)
FULL = dict(budget=20.0, min_reps=21, max_reps=200, warmup=3, sample_s=2e-3)
QUICK = dict(budget=1.0, min_reps=5, max_reps=30, warmup=2, sample_s=1e-3)


class Mismatch(Exception):
    pass


def named_leaves(out, prefix="output"):
    """``out`` as a flat list of (name, value): tensors, tuples/lists, dicts and Hugging Face
    ``ModelOutput``s (by key), and transformers' caches (``DynamicCache``: each layer's keys and
    values; ``EncoderDecoderCache``: its self- and cross-attention caches). Anything else is one
    leaf (compared with ``==``)."""
    if out is None or isinstance(out, (torch.Tensor, int, float, bool, str)):
        return [(prefix, out)]
    if isinstance(out, dict):  # a ModelOutput is an OrderedDict of its non-None fields
        return [x for k, v in out.items() for x in named_leaves(v, f"{prefix}.{k}")]
    if isinstance(out, (tuple, list)):
        return [x for i, v in enumerate(out) for x in named_leaves(v, f"{prefix}[{i}]")]
    if hasattr(out, "self_attention_cache") and hasattr(out, "cross_attention_cache"):
        return (named_leaves(out.self_attention_cache, f"{prefix}.self_attention_cache")
                + named_leaves(out.cross_attention_cache, f"{prefix}.cross_attention_cache"))
    layers = getattr(out, "layers", None)
    if isinstance(layers, (list, tuple)) and all(hasattr(la, "keys") and hasattr(la, "values") for la in layers):
        return [x for i, la in enumerate(layers) for part in ("keys", "values")
                for x in named_leaves(getattr(la, part), f"{prefix}.layers[{i}].{part}")]
    return [(prefix, out)]


def _compare(got, ref, tol, what):
    """Largest relative error over the tensors of ``got`` against ``ref`` (a ``named_leaves``
    list; 0.0 when identical); Mismatch when over tol or when the structure differs."""
    g_leaves = named_leaves(got, what)
    if [n for n, _ in g_leaves] != [n for n, _ in ref]:
        raise Mismatch(f"{what}: values {[n for n, _ in g_leaves]}, eager gives {[n for n, _ in ref]}")
    worst = 0.0
    floor = SCALE_FLOOR * max([r.detach().abs().max().item() for _, r in ref
                               if isinstance(r, torch.Tensor) and r.numel() and r.dtype.is_floating_point
                               and torch.isfinite(r).all()] + [1e-12])
    for (i, g), (_, r) in zip(g_leaves, ref):
        if r is None or g is None:
            if (r is None) != (g is None):
                raise Mismatch(f"{i}: {'missing' if g is None else 'present'}, eager: "
                               f"{'missing' if r is None else 'present'}")
            continue
        if not isinstance(r, torch.Tensor):
            if type(g) is not type(r) or g != r:
                raise Mismatch(f"{i}: {g!r} != eager {r!r}")
            continue
        if not isinstance(g, torch.Tensor) or g.shape != r.shape or g.dtype != r.dtype:
            desc = f"{tuple(g.shape)} {g.dtype}" if isinstance(g, torch.Tensor) else type(g).__name__
            raise Mismatch(f"{i}: {desc}, eager: {tuple(r.shape)} {r.dtype}")
        if r.numel() == 0:
            continue
        gd, rd = g.detach().double(), r.detach().double()
        if not torch.equal(torch.isfinite(gd), torch.isfinite(rd)):
            raise Mismatch(f"{i}: non-finite values differ from eager")
        fin = torch.isfinite(rd)
        scale = max(rd[fin].abs().max().item() if fin.any() else 0.0, floor)
        err = ((gd - rd)[fin].abs().max().item() if fin.any() else 0.0) / scale
        if err > tol:
            raise Mismatch(f"{i}: max |diff| / max |eager| = {err:.2e} > {tol:.0e}")
        worst = max(worst, err)
    return worst


def _reference(out, what):
    """Eager's values to compare against: ``named_leaves`` with the tensors cloned."""
    return [(n, _clone(v)) for n, v in named_leaves(out, what)]


def _clone(x):
    return x.detach().clone() if isinstance(x, torch.Tensor) else x


def _make_step(obj, setup, train):
    args, kwargs, loss_fn, params = setup.args, setup.kwargs, setup.loss, setup.grads_of
    if not train:
        return lambda: obj(*args, **kwargs)

    def step():
        for p in params:
            p.grad = None
        out = obj(*args, **kwargs)
        loss_fn(out).backward()
        return out
    return step


def _sample_us(step, inner):
    gc_on = gc.isenabled()
    gc.disable()
    try:
        t = time.perf_counter_ns()
        for _ in range(inner):
            step()
        return (time.perf_counter_ns() - t) / inner / 1e3
    finally:
        if gc_on:
            gc.enable()


@contextlib.contextmanager
def _quiet_stderr():
    """Silence the C++ profiler's start/stop lines on fd 2 (Python-level errors still raise)."""
    try:
        sys.stderr.flush()
        saved = os.dup(2)
    except (OSError, ValueError):
        yield
        return
    try:
        with open(os.devnull, "w") as null:
            os.dup2(null.fileno(), 2)
            yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)


def peak_step_bytes(step):
    """Peak bytes of tensor storage allocated (net of frees) while ``step()`` runs; see MEMORY_METHOD."""
    from torch._C._profiler import _EventType
    from torch.profiler import ProfilerActivity, profile

    gc.collect()
    with _quiet_stderr():
        with profile(activities=[ProfilerActivity.CPU], profile_memory=True) as prof:
            out = step()
        del out
    events, stack = [], list(prof.profiler.kineto_results.experimental_event_tree())
    while stack:
        e = stack.pop()
        if e.tag == _EventType.Allocation and e.extra_fields.device.type == "cpu":
            events.append((e.start_time_ns, e.extra_fields.alloc_size))
        stack.extend(e.children)
    events.sort()
    cur = peak = 0
    for _, nbytes in events:
        cur += nbytes
        peak = max(peak, cur)
    return peak


SAVED_METHOD = (
    "Bytes saved for backward by one training step: every tensor autograd saves during the forward "
    "(eager's per-op saves, tc.jit's and torch.compile's saves of their compiled forward) is seen through "
    "torch.autograd.graph.saved_tensors_hooks; distinct storages are summed, leaving out the parameters and "
    "the inputs (which are alive anyway): the activation memory the step holds between forward and backward.")


def saved_activation_bytes(step, keep_out):
    """Distinct storage bytes saved for backward while ``step()`` runs, except those of the
    tensors in ``keep_out`` (parameters, inputs); see SAVED_METHOD."""
    excluded = {t.untyped_storage().data_ptr() for t in keep_out if isinstance(t, torch.Tensor)}
    seen = {}

    def pack(t):
        if isinstance(t, torch.Tensor) and t.device.type != "meta":
            st = t.untyped_storage()
            if st.data_ptr() not in excluded:
                seen[st.data_ptr()] = st.nbytes()
        return t

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        out = step()
    del out
    return sum(seen.values())


def _first_line(e):
    msg = str(e).strip().splitlines()
    return f"{type(e).__name__}: {msg[0] if msg else ''}"[:400]


class Recorder:
    """Collects warnings raised while a row runs, de-duplicated, for the JSON."""

    def __init__(self):
        self.seen = {}

    @contextlib.contextmanager
    def catch(self):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            # Our own setting (cold inductor compiles) announces itself on every fresh torch.compile.
            warnings.filterwarnings("ignore", message="dynamo_pgo force disabled")
            try:
                yield
            finally:
                for w in caught:
                    key = f"{w.category.__name__}: {str(w.message).splitlines()[0][:300]}"
                    self.seen[key] = self.seen.get(key, 0) + 1

    def as_list(self):
        return [f"{k} (x{n})" if n > 1 else k for k, n in self.seen.items()]


class _Live:
    """A system's compiled object in a row; counts the compiles made during its own calls only
    (torch.compile's counter is global, and tc.jit's inductor executor uses torch.compile too)."""

    def __init__(self, system, obj, step):
        self.system, self.obj, self.step, self.compiles = system, obj, step, 0

    def counted(self, fn, *args):
        c0 = self.system.compiles(self.obj)
        try:
            return fn(*args)
        finally:
            c1 = self.system.compiles(self.obj)
            self.compiles = None if c0 is None or c1 is None or self.compiles is None else self.compiles + c1 - c0


def _cold_start():
    """Forget compiled code from earlier rows: torch.compile's, and the regions tc.jit's
    inductor executor keeps across jitted objects (inductor's on-disk caches are off)."""
    if "torch._dynamo" in sys.modules:
        sys.modules["torch._dynamo"].reset()
    inductor = sys.modules.get("thunder_executor_torch.inductor")
    if inductor is not None:
        inductor._COMPILED.clear()


def run_row(workload, mode, systems, cfg, quick, fixed_reps=None, log=print):
    train = mode == wl.TRAIN
    row = {"workload": workload.key, "label": workload.label(quick), "kind": workload.kind, "mode": mode,
           "results": {}}
    rec = Recorder()
    grad_ctx = contextlib.nullcontext if train else torch.no_grad
    gc.collect()
    _cold_start()
    with rec.catch(), grad_ctx():
        setup = workload.build(quick, train)
        live = {}  # system name -> _Live
        ref_out = ref_grads = None
        for s in systems:
            r = row["results"][s.name] = {"status": "ok"}
            try:
                # each system's first call starts from the same collector state (else the full
                # collection that the objects of torch.compile's compile bring due lands in
                # tc.jit's first call, which runs next)
                gc.collect()
                t0 = time.perf_counter()
                lv = _Live(s, None, None)
                lv.obj = s.prepare(setup.fn)
                lv.step = _make_step(lv.obj, setup, train)
                out = lv.counted(lv.step)
                r["first_call_s"] = time.perf_counter() - t0
                r["compiles_first_call"] = lv.compiles
                grads = _grads(setup)
                if s.name == "eager":
                    ref_out, ref_grads = _reference(out, "output"), _reference(grads, "gradient")
                else:
                    _check(r, out, grads, ref_out, ref_grads, train)
                    waited = s.settle(lv.obj)
                    if waited is not None:  # background compiles: the steady state, checked again
                        # (a call on the compiled tier may ask for more: a region compiled again
                        # for the layouts of compiled regions before it; settled too)
                        lv.counted(lv.step)
                        waited += s.settle(lv.obj)
                        r["steady_state_s"] = r["first_call_s"] + waited
                        out = lv.counted(lv.step)
                        _check(r, out, _grads(setup), ref_out, ref_grads, train)
                del out, grads
                live[s.name] = lv
            except Mismatch as e:
                r.update(status="mismatch", error=str(e))
            except Exception as e:  # noqa: BLE001 - reported in the results, the run goes on
                r.update(status="error", error=_first_line(e))
            if s.name == "eager" and r["status"] != "ok":
                row["error"] = f"eager failed: {r['error']}"
                return row
        # Warm-up, and an estimate of each system's per-call time.
        est = {}
        for name, lv in list(live.items()):
            try:
                est[name] = min(lv.counted(_sample_us, lv.step, 1) for _ in range(cfg["warmup"])) * 1e-6
            except Exception as e:  # noqa: BLE001
                row["results"][name].update(status="error", error=_first_line(e))
                del live[name]
        inner = {n: max(1, math.ceil(cfg["sample_s"] / max(est[n], 1e-9))) for n in live}
        per_rep = sum(inner[n] * est[n] for n in live) or 1e-9
        budget = workload.budget_s if workload.budget_s and not quick else cfg["budget"]
        reps = fixed_reps or max(cfg["min_reps"], min(cfg["max_reps"], int(budget / per_rep)))
        samples = {n: [] for n in live}
        order = list(live)
        for i in range(reps):
            k = i % len(order)
            for name in order[k:] + order[:k]:
                if name not in live:
                    continue
                try:
                    samples[name].append(live[name].counted(_sample_us, live[name].step, inner[name]))
                except Exception as e:  # noqa: BLE001
                    row["results"][name].update(status="error", error=_first_line(e))
                    del live[name]
        for name, lv in live.items():
            r = row["results"][name]
            xs = samples[name]
            q1, med, q3 = statistics.quantiles(xs, n=4, method="inclusive") if len(xs) > 1 else (xs[0],) * 3
            r.update(median_us=med, iqr_us=q3 - q1, reps=len(xs), inner=inner[name])
            if train and workload.memory:
                try:
                    for p in setup.grads_of:  # so freeing the previous step's gradients is not counted
                        p.grad = None
                    r["peak_mem_bytes"] = lv.counted(peak_step_bytes, lv.step)
                    keep = [*setup.grads_of, *tree_leaves((setup.args, setup.kwargs))]
                    r["saved_bytes"] = lv.counted(saved_activation_bytes, lv.step, keep)
                except Exception as e:  # noqa: BLE001
                    r["peak_mem_error"] = _first_line(e)
            r["compiles"] = lv.compiles
        del live
    row["results"]["eager"].pop("compiles_first_call", None)
    eager = row["results"]["eager"].get("median_us")
    for r in row["results"].values():
        if eager and "median_us" in r:
            r["ratio_to_eager"] = r["median_us"] / eager
    if rec.seen:
        row["warnings"] = rec.as_list()
    log(_progress(row))
    return row


def _grads(setup):
    grads = [_clone(p.grad) for p in setup.grads_of]
    return dict(zip(setup.grad_names, grads)) if setup.grad_names else grads


def _check(r, out, grads, ref_out, ref_grads, train):
    """Outputs (and gradients) against eager's; the worst relative errors go into ``r``."""
    r["max_rel_err_output"] = max(r.get("max_rel_err_output", 0.0), _compare(out, ref_out, FWD_TOL, "output"))
    if train:
        r["max_rel_err_grad"] = max(r.get("max_rel_err_grad", 0.0), _compare(grads, ref_grads, GRAD_TOL, "gradient"))


def _delta(s, obj, c0):
    c = s.compiles(obj)
    return None if c is None else c - c0


def _progress(row):
    parts = []
    for name, r in row["results"].items():
        if "median_us" in r:
            parts.append(f"{name} {r['median_us']:.1f}us" + (f" ({r['ratio_to_eager']:.2f}x)" if name != "eager" else ""))
        else:
            parts.append(f"{name} {r['status']}")
    return f"  {row['label']} [{row['mode']}]: " + ", ".join(parts)


def run_recompile(systems, quick, log=print):
    model, xs, lens = wl.recompile_setup(quick)
    row = {"workload": "recompile", "label": wl.BY_KEY["recompile"].label(quick), "kind": "recompile",
           "mode": wl.FORWARD, "seq_lens": lens, "results": {}}
    rec = Recorder()
    gc.collect()
    with rec.catch(), torch.no_grad():
        refs = None
        for s in systems:
            r = row["results"][s.name] = {"status": "ok"}
            try:
                _cold_start()
                obj = s.prepare(model)
                c0 = s.compiles(obj)
                outs, times = [], []
                t_all = time.perf_counter()
                for x in xs:
                    t = time.perf_counter()
                    outs.append(obj(x))
                    times.append(time.perf_counter() - t)
                r.update(total_s=time.perf_counter() - t_all, call_s=times, compiles=_delta(s, obj, c0))
                if s.name == "eager":
                    refs = _reference(outs, "output")
                else:
                    r["max_rel_err_output"] = _compare(outs, refs, FWD_TOL, "output")
            except Mismatch as e:
                r.update(status="mismatch", error=str(e))
            except Exception as e:  # noqa: BLE001
                r.update(status="error", error=_first_line(e))
            if s.name == "eager" and r["status"] != "ok":
                row["error"] = f"eager failed: {r['error']}"
                break
    if rec.seen:
        row["warnings"] = rec.as_list()
    log("  " + row["label"] + ": " + ", ".join(
        (f"{n} {r['total_s']:.2f}s" + ("" if r.get("compiles") is None else f" ({r['compiles']} compiles)"))
        if "total_s" in r else f"{n} {r['status']}" for n, r in row["results"].items()))
    return row


def _warm_imports(systems):
    """Run every system once on a throwaway function so one-time imports and initialisation
    (dynamo, inductor's toolchain checks, thunder_core's modules) are not in any first-call time."""
    a, b = torch.randn(8, 8, requires_grad=True), torch.randn(8, 8)

    def throwaway(x, y):
        return (x * y + x).sin()
    for s in systems:
        try:
            f = s.prepare(throwaway)
            f(a, b).sum().backward()
            with torch.no_grad():
                f(a, b)
        except Exception:  # noqa: BLE001 - the real rows report failures
            pass


def _cpu_model():
    try:
        with open("/proc/cpuinfo") as fh:
            for line in fh:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def run(quick=False, workloads=None, systems=None, modes=None, threads=None, reps=None, log=print):
    """Run the suite and return the results dict (see report.py for its files)."""
    threads_before = torch.get_num_threads()
    try:
        with systems_mod.cold_compile_settings():
            return _run(quick, workloads, systems, modes, threads, reps, log)
    finally:
        torch.set_num_threads(threads_before)


def _run(quick, workloads, systems, modes, threads, reps, log):
    t_start = time.perf_counter()
    started = _dt.datetime.now().astimezone()
    torch.set_num_threads(threads or DEFAULT_THREADS)
    cfg = QUICK if quick else FULL
    chosen = [wl.BY_KEY[k] for k in wl.expand(workloads)] if workloads else [w for w in wl.WORKLOADS if w.default]
    modes = list(modes or wl.MODES)
    all_sys = systems_mod.select(systems)
    runnable, skipped = [], {}
    for s in all_sys:
        reason = s.unavailable()
        if reason is None:
            runnable.append(s)
        else:
            skipped[s.name] = reason
            log(f"skipping {s.name}: {reason}")
    import thunder_core

    meta = {
        "date": started.date().isoformat(), "started": started.isoformat(timespec="seconds"),
        "torch": torch.__version__, "python": platform.python_version(),
        "thunder_core": thunder_core.__version__, "platform": platform.platform(), "cpu": _cpu_model(),
        "cpu_count": os.cpu_count(),
        "cpus_usable": len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count(),
        "torch_threads": torch.get_num_threads(), "quick": quick, "argv": sys.argv[1:],
        "tc_default_executors": systems_mod.default_tc_executors(),
        "settings": {**cfg, "fixed_reps": reps, "fwd_tol": FWD_TOL, "grad_tol": GRAD_TOL,
                     "scale_floor": SCALE_FLOOR, "hf_budget": wl.hf_workloads.BUDGET_S},
        "memory_method": MEMORY_METHOD,
        "saved_method": SAVED_METHOD,
    }
    if any(w.kind == "hf" for w in chosen) and wl.hf_workloads.unavailable() is None:
        meta["transformers"] = wl.hf_workloads.transformers_version()
    log(f"torch {meta['torch']}, python {meta['python']}, {meta['torch_threads']} torch threads, "
        f"{meta['cpus_usable']} CPUs usable; {'quick' if quick else 'full'} run")
    results = {
        "meta": meta,
        "systems": {s.name: {"available": s.name not in skipped, "reason": skipped.get(s.name),
                             "description": s.description} for s in all_sys},
        "rows": [], "recompile": None,
    }
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _warm_imports(runnable)
    elapsed = {}
    for w in chosen:
        t_w = time.perf_counter()
        reason = w.skip_reason()
        if reason is not None:
            log(f"skipping {w.key}: {reason}")
            results["rows"] += [{"workload": w.key, "label": w.label(quick), "kind": w.kind, "mode": mode,
                                 "skipped": reason, "results": {}} for mode in modes]
        elif w.kind == "recompile":
            results["recompile"] = run_recompile(runnable, quick, log=log)
        else:
            for mode in modes:
                results["rows"].append(run_row(w, mode, runnable, cfg, quick, fixed_reps=reps, log=log))
        elapsed[w.key] = time.perf_counter() - t_w
    meta["elapsed_s"] = time.perf_counter() - t_start
    meta["elapsed_s_by_workload"] = elapsed
    from benchmarks.report import analyze

    results["tc_jit_slower"] = analyze(results)
    return results
