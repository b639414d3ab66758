"""cache="symbolic values" against "constant values" and torch.compile, side by side.

1. Changing sequence length: a GPT block (forward, no grad) called with 10 sequence lengths,
   and a GPT training step (forward + backward) with 5: total time of all calls (compiles
   included) and the number of compiles, for tc.jit with "constant values", tc.jit with
   "symbolic values", torch.compile (default: recompiles once, then marks the size dynamic)
   and torch.compile(dynamic=True). Each system first makes one call of a throwaway compiled
   object (not timed), so imports and one-time set-up count for none of them; inductor's
   on-disk caches are off and tc.jit's per-region cache is cleared, so compiles are cold.
2. Greedy decoding: a Hugging Face GPT-2 (2 layers, random weights) ``generate`` of 10 tokens
   with its KV cache through the jitted model: compiles and total time, for both cache modes
   (skipped without transformers).
3. The cost of a cache hit: median per-call time of the same call repeated (the GPT block at
   one length, the 2-layer GPT's forward, its training step, ``x * s + s`` on an 8x8 tensor),
   tc.jit "symbolic values" against "constant values", interleaved so that both see the same
   machine state.
4. The cost of a compile: the first call of a fresh ``tc.jit`` object (tracing, autograd
   split, partitioning, prologue; ``executors=["torch"]``, so no inductor compile is counted),
   for the GPT block forward, the GPT training step and a Hugging Face GPT-2 forward, both
   modes interleaved, median of several compiles each.

Run: ``python -m benchmarks.symbolic_values [--quick] [--json PATH]``.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
import warnings

import torch

import thunder_core as tc
from thunder_core.examples.models import GPT, GPTBlock


def _systems():
    def tc_jit(cache):
        return lambda m: tc.jit(m, cache=cache), tc.cache_misses

    def compiled(dynamic):
        def prepare(m):
            import torch._dynamo

            torch._dynamo.reset()
            return torch.compile(m, dynamic=dynamic)

        def compiles(_):
            from torch._dynamo.utils import counters

            return int(counters["stats"]["unique_graphs"])
        return prepare, compiles

    return {"tc.jit constant values": tc_jit("constant values"), "tc.jit symbolic values": tc_jit("symbolic values"),
            "torch.compile": compiled(None), "torch.compile dynamic=True": compiled(True)}


def _forget_compiled_regions():
    """tc.jit's inductor executor keeps compiled regions across jitted objects: cleared, so the
    timed object compiles its regions itself (as torch.compile does with its caches off)."""
    try:
        from thunder_executor_torch import inductor

        inductor._COMPILED.clear()
    except (ImportError, AttributeError):
        pass


def changing_lengths(quick: bool, train: bool) -> dict:
    torch.manual_seed(0)
    if train:
        model, lens = GPT(), list(range(16, 16 + (3 if quick else 5)))
        calls = [(torch.randint(0, 128, (2, t)), torch.randint(0, 128, (2, t))) for t in lens]
    else:
        model, lens = GPTBlock(64, 4).eval(), list(range(32, 32 + (5 if quick else 10)))
        calls = [(torch.randn(4, t, 64),) for t in lens]
    out = {"lengths": lens, "train": train, "systems": {}}
    warm = calls[0]  # one call of a throwaway object first: imports and one-time set-up are not timed
    for name, (prepare, compiles) in _systems().items():
        if train:
            prepare(model)(*warm)[1].backward()
            model.zero_grad()
        else:
            with torch.no_grad():
                prepare(model)(*warm)
        _forget_compiled_regions()
        obj = prepare(model)
        c0 = compiles(obj) if name.startswith("torch") else 0
        times = []
        for args in calls:
            t0 = time.perf_counter()
            if train:
                _, loss = obj(*args)
                loss.backward()
                model.zero_grad()
            else:
                with torch.no_grad():
                    obj(*args)
            times.append(time.perf_counter() - t0)
        out["systems"][name] = {"total_s": sum(times), "call_s": times, "compiles": compiles(obj) - c0}
    return out


def decoding(quick: bool) -> dict | None:
    try:
        from thunder_core.examples import transformers_models as hf

        model = hf.build("gpt2").eval()
    except ImportError:
        return None
    kw = hf.inputs("gpt2")
    kw.pop("decoder_input_ids", None)
    n = 5 if quick else 10
    with torch.no_grad():
        ref = model.generate(**kw, max_new_tokens=n, do_sample=False)
    out = {"new_tokens": n, "systems": {}}
    for cache in ("constant values", "symbolic values"):
        with torch.no_grad():  # a throwaway object first, as above
            tc.jit(model, cache=cache).generate(**kw, max_new_tokens=2, do_sample=False)
        jm = tc.jit(model, cache=cache)
        t0 = time.perf_counter()
        with torch.no_grad():
            tokens = jm.generate(**kw, max_new_tokens=n, do_sample=False)
        out["systems"][f"tc.jit {cache}"] = {"total_s": time.perf_counter() - t0, "compiles": tc.cache_misses(jm),
                                             "same_tokens_as_eager": bool(torch.equal(tokens, ref))}
    return out


MODES = ("constant values", "symbolic values")


def _train_step(model):
    def step(idx, targets):
        _, loss = model(idx, targets)
        loss.backward()
        return loss
    return step


def hit_cost(quick: bool) -> dict:
    torch.manual_seed(0)
    block, x = GPTBlock(64, 4).eval(), torch.randn(4, 32, 64)
    gpt, idx = GPT(), torch.randint(0, 128, (2, 20))
    a = torch.randn(8, 8)
    cases = {"GPT block forward": (block, (x,), False), "GPT forward": (gpt, (idx, idx), False),
             "GPT training step": (gpt, (idx, idx), True), "x * s + s": (lambda t, s: t * s + s, (a, 1.5), False)}
    reps = 50 if quick else 300
    out = {}
    for label, (fn, args, train) in cases.items():
        fns = {cache: tc.jit(fn, cache=cache) for cache in MODES}
        if train:
            fns = {cache: _train_step(f) for cache, f in fns.items()}
        times = {cache: [] for cache in fns}
        with torch.set_grad_enabled(train):
            for f in fns.values():
                f(*args)
                f(*args)
            for _ in range(reps // (10 if train else 1)):  # interleaved: both see the same machine state
                for cache, f in fns.items():
                    t0 = time.perf_counter()
                    f(*args)
                    times[cache].append(time.perf_counter() - t0)
        gpt.zero_grad()
        med = {cache: statistics.median(ts) * 1e6 for cache, ts in times.items()}
        out[label] = {"median_us": med, "symbolic_over_constant": med["symbolic values"] / med["constant values"]}
    return out


def compile_cost(quick: bool) -> dict:
    torch.manual_seed(0)
    cases = {"GPT block forward": (lambda: GPTBlock(64, 4).eval(), lambda: (torch.randn(4, 32, 64),), False),
             "GPT training step": (GPT, lambda: (torch.randint(0, 128, (2, 20)),) * 2, True)}
    try:
        from thunder_core.examples import transformers_models as hf

        hf.build("gpt2")
        cases["HF GPT-2 forward"] = (lambda: hf.build("gpt2").eval(), lambda: (), False)
        hf_kw = {k: v for k, v in hf.inputs("gpt2").items() if k != "decoder_input_ids"}
    except ImportError:
        hf_kw = None
    reps = 3 if quick else 7
    out = {}
    for label, (build, inputs, train) in cases.items():
        model, args = build(), inputs()
        kwargs = hf_kw if label.startswith("HF") else {}
        times = {cache: [] for cache in MODES}
        for _ in range(reps):
            for cache in MODES:  # interleaved; each a fresh jitted object: a cold compile of the program
                jm = tc.jit(model, cache=cache, executors=["torch"])
                t0 = time.perf_counter()
                with torch.set_grad_enabled(train):
                    result = jm(*args, **kwargs)
                    if train:
                        result[1].backward()
                times[cache].append(time.perf_counter() - t0)
                model.zero_grad(set_to_none=True)
        med = {cache: statistics.median(ts) * 1e3 for cache, ts in times.items()}
        out[label] = {"median_ms": med, "symbolic_over_constant": med["symbolic values"] / med["constant values"]}
    return out


def main(argv=None):
    p = argparse.ArgumentParser(prog="python -m benchmarks.symbolic_values", description=__doc__.split("\n\n")[0])
    p.add_argument("--quick", action="store_true", help="fewer lengths and repetitions")
    p.add_argument("--json", help="also write the results to this file")
    a = p.parse_args(argv)
    torch.set_num_threads(1)
    from benchmarks.systems import cold_compile_settings

    with warnings.catch_warnings(), cold_compile_settings():
        warnings.simplefilter("ignore")
        res = {"forward": changing_lengths(a.quick, False), "training": changing_lengths(a.quick, True),
               "decoding": decoding(a.quick), "hit": hit_cost(a.quick), "compile": compile_cost(a.quick)}
    for key in ("forward", "training"):
        r = res[key]
        print(f"\n{'GPT training step' if r['train'] else 'GPT block forward'}, sequence lengths "
              f"{r['lengths'][0]}..{r['lengths'][-1]} ({len(r['lengths'])} calls):")
        for name, s in r["systems"].items():
            print(f"  {name:28s} total {s['total_s']:7.2f} s   compiles {s['compiles']:2d}   first call "
                  f"{s['call_s'][0]:6.2f} s, each later call {statistics.median(s['call_s'][1:]) * 1e3:7.1f} ms (median)")
    if res["decoding"]:
        print(f"\nHF GPT-2 generate, {res['decoding']['new_tokens']} new tokens with the KV cache:")
        for name, s in res["decoding"]["systems"].items():
            print(f"  {name:28s} total {s['total_s']:7.2f} s   compiles {s['compiles']}   "
                  f"eager's tokens: {s['same_tokens_as_eager']}")
    print("\nCache hit, median per call:")
    for label, r in res["hit"].items():
        m = r["median_us"]
        print(f"  {label:20s} constant {m['constant values']:8.1f} us   symbolic {m['symbolic values']:8.1f} us   "
              f"ratio {r['symbolic_over_constant']:.2f}")
    print("\nCompile (first call of a fresh tc.jit, executors=['torch']), median:")
    for label, r in res["compile"].items():
        m = r["median_ms"]
        print(f"  {label:20s} constant {m['constant values']:8.1f} ms   symbolic {m['symbolic values']:8.1f} ms   "
              f"ratio {r['symbolic_over_constant']:.2f}")
    if a.json:
        with open(a.json, "w") as f:
            json.dump(res, f, indent=1)
    return res


if __name__ == "__main__":
    main()
