"""``python -m thunder_core demo``: jit a small GPT-style model on CPU.

Checks the jitted model against eager, prints the final trace (what runs), which executor
ran each region, and the per-call time of eager vs tc.jit, measured side by side; then trains
it for a few AdamW steps next to eager, prints the start of the backward trace and the
training step's time; plans the same model for an H100 with fake cuda inputs (``tc.plan``:
regions per executor, ahead-of-time artifacts); then runs a Hugging Face GPT-2 (when ``transformers`` is installed) and
its ``generate`` through the jitted model.
"""

from __future__ import annotations

import copy
import statistics
import time

import torch

import thunder_core as tc
from thunder_core.api import _last
from thunder_core.examples.models import GPT


def _median_us(fn, *args, reps=30, inner=5):
    ts = []
    for _ in range(reps):
        t = time.perf_counter_ns()
        for _ in range(inner):
            fn(*args)
        ts.append((time.perf_counter_ns() - t) / inner / 1e3)
    return statistics.median(ts)


def main() -> int:
    torch.manual_seed(0)
    model = GPT(vocab=256, block_size=64, n_layer=2, n_embd=64, n_head=4).eval()
    idx = torch.randint(0, 256, (4, 32))
    jmodel = tc.jit(model)

    t0 = time.perf_counter()
    with torch.no_grad():  # inference first (training below)
        out = jmodel(idx)
        compile_s = time.perf_counter() - t0
        expected = model(idx)
    ok = torch.allclose(out, expected, atol=1e-5, rtol=1e-5)
    print("thunder_core demo: a 2-layer GPT-style model (n_embd 64, 4 heads) on CPU, batch 4 x 32 tokens\n")
    print(f"matches eager: {ok} (max abs difference {(out - expected).abs().max().item():.2e})")
    print(f"first call (trace + compile): {compile_s * 1e3:.0f} ms\n")

    trace = tc.last_traces(jmodel)[-1]
    print("the final trace (what runs on each call under torch.no_grad()):\n")
    print(trace.python())
    entry = _last(jmodel)
    owners = {}
    for sid, name in entry.executors_used.items():
        owners.setdefault(name, []).append(sid)
    print("executors:")
    for name, ids in owners.items():
        print(f"  {name}: {len(ids)} distinct symbols ({', '.join(sorted(ids)[:8])}{', ...' if len(ids) > 8 else ''})")

    with torch.no_grad():
        eager_us = _median_us(model, idx)
        jit_us = _median_us(jmodel, idx)
    print(f"\nper call (no_grad, median): eager {eager_us:.0f} us, tc.jit {jit_us:.0f} us "
          f"({jit_us / eager_us:.2f}x eager); cache hits {tc.cache_hits(jmodel)}, misses {tc.cache_misses(jmodel)}")
    return 0 if ok and _train(model, jmodel, idx) and _plan(model) and _hugging_face() else 1


def _plan(model) -> bool:
    """tc.plan of the same model for an H100, with fake cuda inputs: nothing runs."""
    from collections import Counter

    from torch._subclasses.fake_tensor import FakeTensorMode

    with FakeTensorMode():
        idx = torch.randint(0, 256, (4, 32), device="cuda")
    t = time.perf_counter()
    plan = tc.plan(model, idx, target="h100")
    ms = (time.perf_counter() - t) * 1e3
    per = Counter(ex for ex, _ in plan.regions.values())
    kinds = Counter(a.kind for arts in plan.artifacts.values() for a in arts)
    print(f"\nplanned for an H100 with fake cuda inputs (tc.plan, nothing runs; {ms:.0f} ms): executors "
          f"{', '.join(plan.executors)}; forward+backward regions by executor: {dict(per) or 'none'}; "
          f"ahead-of-time artifacts: {dict(kinds) or 'none'}")
    total = plan.explain().splitlines()
    print("  " + "\n  ".join(line for line in total if line.startswith("estimated total")))
    return bool(plan.traces) and bool(plan.backward_traces)


def _hugging_face() -> bool:
    """A model nobody here wrote: Hugging Face's GPT-2 (small config, random weights)."""
    try:
        from thunder_core.examples import transformers_models as hf

        model = hf.build("gpt2")
    except ImportError:
        print("\n(pip install transformers==5.23.0 to also run a Hugging Face GPT-2 through tc.jit)")
        return True
    jm = tc.jit(model)
    kw = hf.inputs("gpt2", seq=16)
    with torch.no_grad():
        t0 = time.perf_counter()
        out = jm(**kw)
        first_ms = (time.perf_counter() - t0) * 1e3
        ref = model(**kw)
        same = type(out) is type(ref) and torch.allclose(out.logits, ref.logits, atol=1e-5, rtol=1e-5)
        eager_us = _median_us(lambda: model(**kw))
        jit_us = _median_us(lambda: jm(**kw))
        kw.pop("decoder_input_ids", None)
        tokens = jm.generate(**kw, max_new_tokens=6, do_sample=False)
        want = model.generate(**kw, max_new_tokens=6, do_sample=False)
        same_tokens = torch.equal(tokens, want)
        jc = tc.jit(model, cache="constant values")  # every sequence length and KV cache length baked in
        same_constant = torch.equal(jc.generate(**kw, max_new_tokens=6, do_sample=False), want)
    print("\nHugging Face transformers GPT-2 (2 layers, n_embd 32, random weights), batch 2 x 16 with padding:")
    print(f"  tc.jit(model)(input_ids=..., attention_mask=...) returns a {type(out).__name__} equal to eager's: {same}")
    print(f"  first call {first_ms:.0f} ms; per call (no_grad, median) eager {eager_us:.0f} us, tc.jit {jit_us:.0f} us "
          f"({jit_us / eager_us:.2f}x eager)")
    print(f"  jitted.generate(max_new_tokens=6, KV cache) gives eager's tokens: {same_tokens} "
          f"({tc.cache_misses(jm)} compiles in all: the call above, the prompt, then every one-token step; sizes "
          f"stay symbolic)")
    print(f"  with cache='constant values' it gives eager's tokens: {same_constant} ({tc.cache_misses(jc)} compiles: "
          f"one per sequence length)")
    return same and same_tokens and same_constant


def _train(model, jmodel, idx) -> bool:
    model.train()
    ref = copy.deepcopy(model)
    targets = torch.roll(idx, -1, dims=1)
    opts = [torch.optim.AdamW(m.parameters(), lr=1e-3) for m in (model, ref)]

    def step(m, opt):
        opt.zero_grad()
        loss = m(idx, targets)[1]
        loss.backward()
        opt.step()
        return loss.item()

    print("\ntraining: 5 AdamW steps through tc.jit and through eager (same initial weights)")
    losses = [(step(jmodel, opts[0]), step(ref, opts[1])) for _ in range(5)]
    for i, (a, b) in enumerate(losses):
        print(f"  step {i}: loss tc.jit {a:.6f}  eager {b:.6f}")
    ok = all(abs(a - b) <= 1e-4 * max(1.0, abs(b)) for a, b in losses)
    bwd = tc.last_backward_traces(jmodel)[-1]
    lines = bwd.python().splitlines()
    body = next(i for i, line in enumerate(lines) if line.startswith("def ")) + 1 + len(bwd.args)  # after the inputs
    print(f"losses match: {ok}\n\nthe backward trace ({len(bwd.bound_symbols)} calls), from its first call:\n")
    print("\n".join(lines[body:body + 20] + ["  ..."]))
    t0 = time.perf_counter()
    tc.wait_for_compiles()  # the steady state: inductor's regions, compiling in the background, swapped in
    waited = time.perf_counter() - t0
    step(jmodel, opts[0])
    eager_us = _median_us(step, ref, opts[1], reps=10, inner=2)
    jit_us = _median_us(step, jmodel, opts[0], reps=10, inner=2)
    print(f"\ntraining step (forward, loss, backward, AdamW; median, after waiting {waited:.1f} s for the background "
          f"compiles): eager {eager_us / 1e3:.2f} ms, tc.jit {jit_us / 1e3:.2f} ms ({jit_us / eager_us:.2f}x eager)")
    return ok
