"""What the ranks run (distributed_ranks.Ranks.run): each function runs on every rank of a
2-rank gloo group, compares tc.jit with eager itself, and returns what the test asserts on.

Inputs differ per rank (seeded by rank), so a collective that is dropped, run once, or run on
the wrong tensor gives different numbers than eager.
"""

from __future__ import annotations

import contextlib
import copy
import os

import torch
import torch.distributed as dist
import torch.distributed._functional_collectives as funcol
import torch.nn as nn

import thunder_core as tc


@contextlib.contextmanager
def _executors(which):
    """``which="default"``: tc.jit's default executors as users get them (every installed one
    available here), not the suite's torch-only default (THUNDER_CORE_EXECUTORS)."""
    saved = os.environ.pop("THUNDER_CORE_EXECUTORS", None) if which == "default" else None
    try:
        yield
    finally:
        if saved is not None:
            os.environ["THUNDER_CORE_EXECUTORS"] = saved


def _inputs(step, *shapes):
    g = torch.Generator().manual_seed(1000 * dist.get_rank() + step)
    return [torch.randn(*s, generator=g) for s in shapes]


def _compare(fn, make_args, calls=3, **jit_kwargs):
    """Run ``fn`` eagerly and jitted on ``calls`` sets of arguments; returns (every output
    equal, cache misses, cache hits, the last computation trace as text)."""
    jfn = tc.jit(fn, **jit_kwargs)
    equal = []
    for step in range(calls):
        args = make_args(step)
        expected = fn(*copy.deepcopy(args))
        got = jfn(*copy.deepcopy(args))
        equal.append(_same(expected, got))
    return all(equal), tc.cache_misses(jfn), tc.cache_hits(jfn), str(tc.last_traces(jfn)[-1])


def _same(a, b):
    if isinstance(a, torch.Tensor):
        return isinstance(b, torch.Tensor) and a.shape == b.shape and torch.equal(a, b)
    if isinstance(a, (tuple, list)):
        return type(a) is type(b) and len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    return a == b


# ---------------------------------------------------------------- collectives

def in_place_collectives(x, y):
    a = x * 2
    dist.all_reduce(a)                                   # the silently wrong case
    b = x + 1
    dist.all_reduce(b, op=dist.ReduceOp.MAX)
    c = y.clone()
    dist.broadcast(c, src=1)
    gathered = torch.empty(2 * x.shape[0], *x.shape[1:])
    dist.all_gather_into_tensor(gathered, x)
    scattered = torch.empty(x.shape[0] // 2, *x.shape[1:])
    dist.reduce_scatter_tensor(scattered, x * 3)
    exchanged = torch.empty_like(y)
    dist.all_to_all_single(exchanged, y)
    dist.barrier()
    return a + 1, b, c, gathered, scattered, exchanged


def async_collectives(x):
    a = x * 2
    work = dist.all_reduce(a, async_op=True)
    other = x.sin()                                       # computed while the all-reduce may be in flight
    work.wait()
    out = torch.empty(2 * x.shape[0], *x.shape[1:])
    work2 = dist.all_gather_into_tensor(out, x, async_op=True)
    work2.wait()
    return a * other, out


def functional_collectives(x, y):
    group = dist.group.WORLD
    a = funcol.all_reduce(x * 2, "sum", group)
    b = funcol.all_gather_tensor(x, 0, group)
    c = funcol.reduce_scatter_tensor(y, "sum", 0, group)
    d = funcol.all_to_all_single(y, None, None, group)
    e = funcol.broadcast(x, 1, group)
    return a + 1, b, c, d, e


def rank_dependent(x):
    if dist.get_rank() == 0:
        return x * dist.get_world_size()
    return x - dist.get_rank()


def collectives():
    """Each function's outputs equal eager's on a first and two cached calls."""
    out = {}
    out["in_place"] = _compare(in_place_collectives, lambda s: _inputs(s, (4, 3), (4, 3)))
    out["async"] = _compare(async_collectives, lambda s: _inputs(s, (4, 3)))
    out["functional"] = _compare(functional_collectives, lambda s: _inputs(s, (4, 3), (4, 3)))
    out["rank"] = _compare(rank_dependent, lambda s: _inputs(s, (3,)))
    return out


def rank_guards():
    """(the prologue, the trace) of a function whose result depends on the rank."""
    jfn = tc.jit(rank_dependent)
    jfn(*_inputs(0, (3,)))
    return tc.last_prologue_traces(jfn)[0], str(tc.last_traces(jfn)[-1])


def gradients():
    """Gradients through functional collectives equal eager's (their VJP rules); through an
    in-place all_reduce (which eager autograd does not see), the jit runs the trace under
    PyTorch's autograd and equals eager too."""
    out = {}
    group = dist.group.WORLD

    def functional(w, x):
        h = funcol.all_gather_tensor(x * w, 0, group)
        r = funcol.reduce_scatter_tensor(h.tanh(), "sum", 0, group)
        s = funcol.all_reduce(r * w, "sum", group)
        return funcol.all_to_all_single(s.sin(), None, None, group).sum()

    def in_place(w, x):
        y = x * w
        dist.all_reduce(y)
        return (y * y).sum()

    for name, fn in (("functional", functional), ("in_place", in_place)):
        jfn = tc.jit(fn)
        same = []
        for step in range(2):
            w, x = _inputs(step, (4, 3), (4, 3))
            we, wj = w.clone().requires_grad_(), w.clone().requires_grad_()
            le, lj = fn(we, x), jfn(wj, x)
            le.backward()
            lj.backward()
            same.append(torch.equal(le, lj) and torch.equal(we.grad, wj.grad))
        out[name] = (all(same), tc.cache_misses(jfn), [str(t) for t in tc.last_backward_traces(jfn)[-1:]])
    return out


# ---------------------------------------------------------------- DDP and FSDP2

class _Centered(nn.Module):
    """A running mean of its inputs (a buffer each rank updates with its own batch), removed
    from them: DDP broadcasts rank 0's before every forward."""

    def __init__(self, n):
        super().__init__()
        self.register_buffer("mean", torch.zeros(n))

    def forward(self, x):
        if self.training:
            self.mean.mul_(0.9).add_(x.detach().mean(0), alpha=0.1)
        return x - self.mean


class _Net(nn.Module):
    def __init__(self, norm=False):
        super().__init__()
        self.fc1 = nn.Linear(6, 10)
        self.norm = _Centered(10) if norm else nn.Identity()
        self.fc2 = nn.Linear(10, 5)
        self.fc3 = nn.Linear(5, 3)

    def forward(self, x):
        return self.fc3(torch.tanh(self.fc2(torch.relu(self.norm(self.fc1(x))))))


def _train(model, wrapped, steps=3):
    opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    losses = []
    for step in range(steps):
        (x,) = _inputs(step, (8, 6))
        loss = wrapped(x).pow(2).mean()
        loss.backward()
        opt.step()
        opt.zero_grad()
        losses.append(loss.detach())
    return losses


def _params(model):
    """Every parameter in full (an FSDP2 parameter is a DTensor holding this rank's shard)."""
    return [p.full_tensor() if hasattr(p, "full_tensor") else p.detach().clone() for p in model.parameters()]


def ddp(order, norm=False, executors="torch"):
    """3 DDP training steps, eagerly and with tc.jit in ``order`` ("jit(DDP)" or "DDP(jit)"):
    (losses equal, final parameters equal, final buffers equal, cache misses, the jitted trace).
    ``executors="default"``: the default executors."""
    from torch.nn.parallel import DistributedDataParallel as DDP

    torch.manual_seed(0)
    base = _Net(norm)
    eager = copy.deepcopy(base)
    eager_losses = _train(eager, DDP(eager))
    model = copy.deepcopy(base)
    with _executors(executors):
        if order == "jit(DDP)":
            jfn = wrapped = tc.jit(DDP(model))
        else:
            jfn = tc.jit(model)
            wrapped = DDP(jfn)
        losses = _train(model, wrapped)
    return (all(torch.equal(a, b) for a, b in zip(eager_losses, losses)),
            all(torch.equal(a, b) for a, b in zip(_params(eager), _params(model))),
            all(torch.equal(a, b) for a, b in zip(eager.buffers(), model.buffers())),
            tc.cache_misses(jfn), str(tc.last_traces(jfn)[-1]))


def fsdp(executors="torch"):
    """3 FSDP2 training steps (fully_shard on each Linear and the root), eagerly and under
    tc.jit: (losses equal, final full parameters equal, cache misses, forward and backward traces)."""
    from torch.distributed.fsdp import fully_shard

    torch.manual_seed(0)
    base = _Net()
    models = []
    for _ in range(2):
        m = copy.deepcopy(base)
        for layer in (m.fc1, m.fc2, m.fc3):
            fully_shard(layer)
        fully_shard(m)
        models.append(m)
    eager, model = models
    eager_losses = _train(eager, eager)
    with _executors(executors):
        jitted = tc.jit(model)
        losses = _train(model, jitted)
    return (all(torch.equal(a, b) for a, b in zip(eager_losses, losses)),
            all(torch.equal(a, b) for a, b in zip(_params(eager), _params(model))),
            # the traces before executors claim regions (a fusing executor may take a to_local view)
            tc.cache_misses(jitted), str(tc.last_traces(jitted)[0]), str(tc.last_backward_traces(jitted)[0]))


def ddp_refused():
    """The error tc.jit(DDP(model, find_unused_parameters=True)) raises."""
    from torch.nn.parallel import DistributedDataParallel as DDP

    jfn = tc.jit(DDP(_Net(), find_unused_parameters=True))
    try:
        jfn(*_inputs(0, (8, 6)))
    except NotImplementedError as e:
        return str(e)
    return "no error"


def fsdp_refused():
    """The error tc.jit of an FSDP2 model with a MixedPrecisionPolicy raises."""
    from torch.distributed.fsdp import MixedPrecisionPolicy, fully_shard

    model = _Net()
    fully_shard(model, mp_policy=MixedPrecisionPolicy(param_dtype=torch.bfloat16))
    try:
        tc.jit(model)(*_inputs(0, (8, 6)))
    except NotImplementedError as e:
        return str(e)
    return "no error"


def doc_blocks(path):
    """Run every Python block of the markdown file ``path`` in order, in one namespace."""
    import re

    with open(path) as f:
        blocks = re.findall(r"```python\n(.*?)```", f.read(), flags=re.S)
    ns = {"__name__": "docs_distributed"}
    for block in blocks:
        exec(compile(block, path, "exec"), ns)
    return len(blocks)


def ddp_no_sync():
    """Gradient accumulation with DDP.no_sync() (2 micro-batches, the first without the
    all-reduce), eagerly and under tc.jit(DDP): (losses equal, final parameters equal, compiles)."""
    from torch.nn.parallel import DistributedDataParallel as DDP

    torch.manual_seed(0)
    base = _Net()
    results = []
    for jit in (False, True):
        model = copy.deepcopy(base)
        ddp = DDP(model)
        run = tc.jit(ddp) if jit else ddp
        opt = torch.optim.SGD(model.parameters(), lr=0.1)
        losses = []
        for step in range(3):
            x0, x1 = _inputs(step, (4, 6), (4, 6))
            with ddp.no_sync():
                run(x0).pow(2).mean().backward()
            loss = run(x1).pow(2).mean()
            loss.backward()
            opt.step()
            opt.zero_grad()
            losses.append(loss.detach())
        results.append((losses, _params(model), tc.cache_misses(run) if jit else 0))
    (le, pe, _), (lj, pj, misses) = results
    return (all(torch.equal(a, b) for a, b in zip(le, lj)), all(torch.equal(a, b) for a, b in zip(pe, pj)), misses)
