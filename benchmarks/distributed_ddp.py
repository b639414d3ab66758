"""A DDP training step on 2 ranks (gloo, CPU): eager DDP, ``tc.jit(DDP(model))``,
``DDP(tc.jit(model))`` and ``torch.compile(DDP(model))``, side by side; and whether each
overlaps the gradient all-reduce with the backward computation.

The model: ``--layers`` blocks of Linear(width, width) + GELU and a Linear head, batch
``--batch``; DDP with ``bucket_cap_mb`` of one layer's weight, so each layer's gradients make
their own bucket (about one bucket per layer after DDP's first-iteration rebuild).

**Step time.** Each rank builds every system from the same initial weights, makes warm-up
steps (the first one compiles: its time is reported as "first step"), then times
``--reps`` rounds; in each round every system makes one step (forward, backward, SGD step),
interleaved so that all see the same machine state, the ranks aligned by a barrier before
each step. Reported: median step time per system and its ratio to eager DDP's (rank 0's
clock; both ranks wait for each other in every all-reduce).

**Overlap, and how it is determined.** In one extra step per system, two kinds of events
are time-stamped with ``time.perf_counter()``: (a) each bucket's all-reduce being launched
(a DDP communication hook that stamps, then calls DDP's default ``allreduce_hook``), and (b)
the end of each backward computation node (a post-hook on every node of the autograd graph
reachable from the loss, except the ``AccumulateGrad`` nodes that only store gradients).
The backward computation ends at the last (b). An all-reduce launched before that overlaps
the backward: while it runs, gradients of earlier layers are still being computed. Reported:
buckets launched, how many of them before the computation ended, and how long before its
end the first one was launched. (On a CPU with gloo the all-reduce runs on gloo's own
threads, so a launch before the end really is concurrent work.) Eager DDP launches the last
layer's bucket as soon as its gradients exist; the jitted function's backward is one node
that produces every gradient at its end, so its launches all come after its computation.

Run: ``python -m benchmarks.distributed_ddp [--quick] [--systems a,b] [--json PATH]``.
Timings on a shared or loaded machine are noisy: compare ratios measured in one run.
"""

from __future__ import annotations

import argparse
import copy
import json
import os
import statistics
import tempfile
import time

import torch
import torch.distributed as dist
import torch.multiprocessing as mp

SYSTEMS = ("eager", "tc.jit(DDP)", "DDP(tc.jit)", "torch.compile")


def _model(layers, width):
    torch.manual_seed(0)
    blocks = []
    for _ in range(layers):
        blocks += [torch.nn.Linear(width, width), torch.nn.GELU()]
    return torch.nn.Sequential(*blocks, torch.nn.Linear(width, 8))


def _build(name, base, bucket_mb, stamps):
    """(module whose parameters train, callable making the forward, the DDP object)."""
    from torch.distributed.algorithms.ddp_comm_hooks import default_hooks
    from torch.nn.parallel import DistributedDataParallel as DDP

    import thunder_core as tc

    model = copy.deepcopy(base)

    def hook(state, bucket):
        stamps.append(time.perf_counter())
        return default_hooks.allreduce_hook(None, bucket)

    if name == "DDP(tc.jit)":
        ddp = DDP(tc.jit(model), bucket_cap_mb=bucket_mb)
        ddp.register_comm_hook(None, hook)
        return model, ddp, ddp
    ddp = DDP(model, bucket_cap_mb=bucket_mb)
    ddp.register_comm_hook(None, hook)
    if name == "eager":
        return model, ddp, ddp
    if name == "tc.jit(DDP)":
        return model, tc.jit(ddp), ddp
    return model, torch.compile(ddp), ddp


def _step(model, run, opt, x):
    loss = run(x).square().mean()
    loss.backward()
    opt.step()
    opt.zero_grad(set_to_none=True)
    return loss


def _overlap(model, run, opt, x, stamps):
    """(buckets launched, launched before the backward computation ended, seconds from the
    first launch to that end: positive when it overlaps)."""
    ends = []
    loss = run(x).square().mean()
    seen, stack = set(), [loss.grad_fn]
    while stack:
        node = stack.pop()
        if node is None or node in seen:
            continue
        seen.add(node)
        if type(node).__name__ != "AccumulateGrad":
            node.register_hook(lambda *a: ends.append(time.perf_counter()))
        stack += [n for n, _ in node.next_functions]
    stamps.clear()
    loss.backward()
    opt.step()
    opt.zero_grad(set_to_none=True)
    end = max(ends)
    return len(stamps), sum(t < end for t in stamps), (end - min(stamps)) if stamps else 0.0


def _rank(rank, world, store, args, out):
    if args.executors:
        os.environ["THUNDER_CORE_EXECUTORS"] = args.executors
    torch.set_num_threads(1)
    dist.init_process_group("gloo", init_method=f"file://{store}", rank=rank, world_size=world)
    base = _model(args.layers, args.width)
    bucket_mb = args.width * args.width * 4 / 2**20
    g = torch.Generator().manual_seed(rank)
    x = torch.randn(args.batch, args.width, generator=g)
    systems, first, times, overlap, losses = {}, {}, {}, {}, {}
    for name in args.systems:
        stamps = []
        model, run, _ = _build(name, base, bucket_mb, stamps)
        opt = torch.optim.SGD(model.parameters(), lr=1e-3)
        dist.barrier()
        t0 = time.perf_counter()
        losses[name] = _step(model, run, opt, x).item()  # compiles
        first[name] = time.perf_counter() - t0
        for _ in range(args.warmup):
            _step(model, run, opt, x)
        systems[name] = (model, run, opt, stamps)
        times[name] = []
    for _ in range(args.reps):
        for name, (model, run, opt, _) in systems.items():
            dist.barrier()
            t0 = time.perf_counter()
            _step(model, run, opt, x)
            times[name].append(time.perf_counter() - t0)
    for name, (model, run, opt, stamps) in systems.items():
        dist.barrier()
        overlap[name] = _overlap(model, run, opt, x, stamps)
    if rank == 0:
        out.update(first=first, times={k: statistics.median(v) for k, v in times.items()}, overlap=overlap,
                   first_loss=losses)
    dist.destroy_process_group()


def _run(rank, world, store, args, queue):
    out = {}
    _rank(rank, world, store, args, out)
    if rank == 0:
        queue.put(out)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--layers", type=int, default=4)
    p.add_argument("--width", type=int, default=512)  # one layer's weight: 1 MiB, torch.compile's smallest bucket
    p.add_argument("--batch", type=int, default=64)
    p.add_argument("--reps", type=int, default=30)
    p.add_argument("--warmup", type=int, default=3)
    p.add_argument("--systems", default=",".join(SYSTEMS))
    p.add_argument("--executors", default=None, help="THUNDER_CORE_EXECUTORS for tc.jit (default: all available)")
    p.add_argument("--quick", action="store_true", help="small model, few reps, no torch.compile")
    p.add_argument("--json", default=None)
    args = p.parse_args(argv)
    if args.quick:
        args.layers, args.width, args.batch, args.reps, args.warmup = 3, 64, 16, 5, 1
        if "--systems" not in (argv or []):
            args.systems = ",".join(s for s in SYSTEMS if s != "torch.compile")
    args.systems = [s.strip() for s in args.systems.split(",") if s.strip()]
    ctx = mp.get_context("spawn")
    queue = ctx.Queue()
    with tempfile.TemporaryDirectory() as tmp:
        mp.start_processes(_run, args=(2, os.path.join(tmp, "store"), args, queue), nprocs=2, start_method="spawn")
    out = queue.get()
    eager = out["times"].get("eager")
    lines = [f"2-rank DDP training step (gloo, CPU, 1 thread per rank): {args.layers} x Linear({args.width}) + GELU, "
             f"batch {args.batch}, {args.reps} interleaved rounds", "",
             "| system | first loss = eager's | first step (s) | step (ms, median) | ratio to eager | buckets "
             "launched before backward compute ended | first launch before that end (ms) |",
             "| --- | --- | --- | --- | --- | --- | --- |"]
    for name in args.systems:
        t = out["times"][name]
        n, early, lead = out["overlap"][name]
        ratio = f"{t / eager:.2f}x" if eager else "-"
        same = out["first_loss"][name] == out["first_loss"].get("eager", out["first_loss"][name])
        lines.append(f"| {name} | {'yes' if same else 'NO'} | {out['first'][name]:.2f} | {t * 1e3:.2f} | {ratio} | "
                     f"{early} of {n} | {lead * 1e3:.2f} |")
    print("\n".join(lines))
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"settings": {k: v for k, v in vars(args).items()}, **out}, f, indent=1)
    return out


if __name__ == "__main__":
    main()
