"""The workloads of the side-by-side suite (``python -m benchmarks``).

A workload builds a fresh *setup* for one mode: the function or module to compile, its
arguments, the tensors whose gradients are compared (training mode) and the loss. Modes:
``"forward"`` (run under ``torch.no_grad()``) and ``"forward+backward"`` (the loss, then
``.backward()``; gradients are compared against eager). ``--quick`` uses smaller shapes for the
compute workloads; their labels say so.

The per-call dispatch workloads are the ones of ``benchmarks/dispatch_overhead.py`` (imported,
not copied). The Hugging Face ``transformers`` workloads (``hf-*``) are in ``benchmarks/hf_workloads.py``;
a workload that cannot run here (``unavailable()`` gives the reason) is reported as skipped.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

import torch
import torch.nn.functional as F

from benchmarks import hf_workloads
from benchmarks.dispatch_overhead import Deep, many, tiny
from thunder_core.examples.models import GPT, MLP, GPTBlock

FORWARD, TRAIN = "forward", "forward+backward"
MODES = (FORWARD, TRAIN)


def sum_loss(out):
    return out.float().sum()


@dataclass
class Setup:
    fn: Any                           # a function or an nn.Module (the same object for every system)
    args: tuple
    grads_of: list = field(default_factory=list)   # tensors whose .grad is compared (training mode)
    loss: Callable = sum_loss         # output -> scalar loss (training mode); every output tensor is compared
    kwargs: dict = field(default_factory=dict)     # keyword arguments of every call (HF models)
    grad_names: list | None = None    # names of grads_of (in mismatch messages)


@dataclass
class Workload:
    key: str                          # the name used by --workloads
    label: Callable[[bool], str]      # quick -> label shown in the tables
    build: Callable[[bool, bool], Setup] | None   # (quick, train) -> Setup; None for "recompile"
    kind: str = "compute"             # "dispatch" | "compute" | "recompile" | "hf"
    memory: bool = False              # measure the training step's peak memory
    unavailable: Callable[[], str | None] | None = None   # -> None, or why the workload is skipped here
    default: bool = True              # part of a plain `python -m benchmarks` (else by name or group)
    budget_s: float | None = None     # timing budget per row in full runs (None: the suite's FULL budget)

    def skip_reason(self):
        return None if self.unavailable is None else self.unavailable()


def _inputs(train, *shapes):
    return tuple(torch.randn(*s, requires_grad=train) for s in shapes)


# ---------------------------------------------------------------- per-call dispatch overhead

def _two_8x8(quick, train):
    torch.manual_seed(0)
    args = _inputs(train, (8, 8), (8, 8))
    return Setup(tiny, args, list(args) if train else [])


def _inputs_32(quick, train):
    torch.manual_seed(0)
    args = _inputs(train, *[(4,)] * 32)
    return Setup(many, args, list(args) if train else [])


def _params_100(quick, train):
    torch.manual_seed(0)
    deep = Deep().train(train)
    assert sum(1 for _ in deep.parameters()) == 100
    return Setup(deep, (torch.randn(1, 8),), list(deep.parameters()) if train else [])


# ---------------------------------------------------------------- compute workloads

def norm_chain(x, w, b):
    """Elementwise ops and a normalisation over the last dimension (fusable into few kernels)."""
    y = x * 0.5 + 1.0
    y = F.gelu(y) * torch.sigmoid(x)
    y = y - y.mean(-1, keepdim=True)
    y = y * torch.rsqrt(y.pow(2).mean(-1, keepdim=True) + 1e-5)
    return torch.tanh(y * w + b)


def _elementwise_n(quick):
    return 512 if quick else 2048


def _elementwise(quick, train):
    torch.manual_seed(0)
    n = _elementwise_n(quick)
    x, w, b = _inputs(train, (n, n), (n,), (n,))
    return Setup(norm_chain, (x, w, b), [x, w, b] if train else [])


def _mlp_dims(quick):
    return (256, 1024, 256, 16) if quick else (1024, 4096, 1024, 64)


def _mlp(quick, train):
    torch.manual_seed(0)
    d_in, hidden, d_out, batch = _mlp_dims(quick)
    m = MLP(d_in=d_in, hidden=hidden, d_out=d_out, depth=1).train(train)
    return Setup(m, (torch.randn(batch, d_in),), list(m.parameters()) if train else [])


def _block_dims(quick):
    return (64, 4, 2, 32) if quick else (256, 4, 4, 128)     # n_embd, heads, batch, seq


def _gpt_block(quick, train):
    torch.manual_seed(0)
    n_embd, heads, batch, seq = _block_dims(quick)
    m = GPTBlock(n_embd, heads).train(train)
    return Setup(m, (torch.randn(batch, seq, n_embd),), list(m.parameters()) if train else [])


def _gpt_dims(quick):
    return (2, 64, 4, 256, 2, 32) if quick else (6, 256, 4, 4096, 4, 128)  # layers, n_embd, heads, vocab, batch, seq


def _gpt(quick, train):
    torch.manual_seed(0)
    layers, n_embd, heads, vocab, batch, seq = _gpt_dims(quick)
    m = GPT(vocab=vocab, block_size=seq, n_layer=layers, n_embd=n_embd, n_head=heads).train(train)
    idx = torch.randint(0, vocab, (batch, seq))
    if not train:
        return Setup(m, (idx,))
    targets = torch.randint(0, vocab, (batch, seq))
    # The model's own loss (cross-entropy on the logits).
    return Setup(m, (idx, targets), list(m.parameters()), loss=lambda out: out[1])


# ---------------------------------------------------------------- recompiles

RECOMPILE_CALLS = 10


def _recompile_lens(quick):
    seq = _block_dims(quick)[3]
    step = max(1, seq // 16)
    return [seq // 2 + i * step for i in range(RECOMPILE_CALLS)]


def recompile_setup(quick):
    """A GPT-style block (forward, no grad) called with 10 different sequence lengths."""
    torch.manual_seed(0)
    n_embd, heads, batch, _ = _block_dims(quick)
    m = GPTBlock(n_embd, heads).eval()
    lens = _recompile_lens(quick)
    return m, [torch.randn(batch, t, n_embd) for t in lens], lens


def _recompile_label(quick):
    n_embd, heads, batch, _ = _block_dims(quick)
    lens = _recompile_lens(quick)
    return (f"GPT block forward (n_embd {n_embd}, {heads} heads, batch {batch}), sequence length "
            f"{lens[0]}..{lens[-1]} over {RECOMPILE_CALLS} calls{_q(quick)}")


def _q(quick):
    return " [quick shapes]" if quick else ""


WORKLOADS = [
    Workload("two-8x8", lambda q: "two 8x8 tensors (a * b + a)", _two_8x8, kind="dispatch"),
    Workload("inputs-32", lambda q: "32 tensor inputs of 4 (31 adds)", _inputs_32, kind="dispatch"),
    Workload("params-100", lambda q: "module, 100 parameters (50 Linear 8x8)", _params_100, kind="dispatch"),
    Workload("elementwise", lambda q: f"elementwise+norm chain {_elementwise_n(q)}x{_elementwise_n(q)}{_q(q)}",
             _elementwise, memory=True),
    Workload("mlp", lambda q: "MLP {}-{}-{}, batch {}".format(*_mlp_dims(q)) + _q(q), _mlp, memory=True),
    Workload("gpt-block", lambda q: "GPT block (n_embd {}, {} heads, batch {}, seq {})".format(*_block_dims(q)) + _q(q),
             _gpt_block, memory=True),
    Workload("gpt", lambda q: "GPT {}-layer (n_embd {}, {} heads, vocab {}, batch {}, seq {})".format(*_gpt_dims(q))
             + _q(q), _gpt, memory=True),
    Workload("recompile", _recompile_label, None, kind="recompile"),
    *hf_workloads.workloads(Workload),
]

BY_KEY = {w.key: w for w in WORKLOADS}
#: names for several workloads at once in --workloads
GROUPS = {
    "hf": [w.key for w in WORKLOADS if w.kind == "hf" and w.default],
    "hf-all": [w.key for w in WORKLOADS if w.kind == "hf"],
}


def expand(names):
    """Workload keys for names that may include groups, each once, in the order given."""
    out = []
    for n in names:
        for k in GROUPS.get(n, [n]):
            if k not in out:
                out.append(k)
    return out
