"""Higher-order operators per call: eager vs tc.jit, side by side (interleaved rounds).

Eager's ``torch.cond``, ``torch.while_loop`` and ``scan`` run through torch.compile on every
call (torch's own eager implementation of these operators compiles them); under tc.jit they are
one higher-order symbol of a compiled trace. Workloads: a ``torch.cond`` with a tensor
predicate that alternates branches (forward, and forward+backward), a ``while_loop`` of 8 steps,
a ``scan`` over 16 steps; all on small tensors (64 elements), where per-call overhead shows.

Run: ``python -m benchmarks.higher_order [--rounds N]``. Prints median per-call microseconds
and the ratio tc.jit / eager. The machine may be loaded: compare the ratio, measured in one run.
"""

from __future__ import annotations

import argparse
import statistics
import time

import torch
from torch._higher_order_ops import scan

import thunder_core as tc


def gate(x, w):
    return torch.cond(x.sum() > 0, lambda x: (x * w).sin(), lambda x: x.cos() * w, (x,))


def loop(n, x, w):
    return torch.while_loop(lambda i, a: i < n, lambda i, a: (i + 1, (a * w).tanh()),
                            (torch.zeros((), dtype=torch.int64), x))


def rnn(h, xs, w):
    return scan(lambda h, x: ((h * w + x).tanh(),) * 1 + ((h * 2),), h, xs)


def workloads():
    x, w = torch.randn(64), torch.randn(64)
    xs = torch.randn(16, 64)
    xg, wg = x.clone().requires_grad_(), w.clone().requires_grad_()
    signs = [1.0, -1.0]
    return {
        "cond, tensor predicate (fwd)": (gate, lambda k: (x.abs() * signs[k % 2], w), False),
        "cond, tensor predicate (fwd+bwd)": (gate, lambda k: (xg.detach().abs().mul(signs[k % 2]).requires_grad_(),
                                                               wg), True),
        "while_loop, 8 steps (fwd)": (loop, lambda k: (torch.tensor(8), x, w), False),
        "scan, 16 steps (fwd)": (rnn, lambda k: (x, xs, w), False),
    }


def _time(fn, args, backward) -> float:
    t0 = time.perf_counter()
    out = fn(*args)
    if backward:
        out.sum().backward()
    return (time.perf_counter() - t0) * 1e6


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--rounds", type=int, default=30)
    a = p.parse_args(argv)
    torch.set_num_threads(1)
    print(f"{'workload':36} {'eager us':>10} {'tc.jit us':>10} {'ratio':>7}")
    for name, (fn, make, backward) in workloads().items():
        jf = tc.jit(fn)
        for k in range(3):  # warm up both (tc.jit compiles, eager's operators compile too)
            _time(fn, make(k), backward)
            _time(jf, make(k), backward)
        eager, jit = [], []
        for k in range(a.rounds):
            eager.append(_time(fn, make(k), backward))
            jit.append(_time(jf, make(k), backward))
        e, j = statistics.median(eager), statistics.median(jit)
        print(f"{name:36} {e:10.1f} {j:10.1f} {j / e:7.2f}x   (compiles: {tc.cache_misses(jf)})")


if __name__ == "__main__":
    main()
