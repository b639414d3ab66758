"""The cost model: roofline-style time estimates for bound symbols and fused regions.

A kernel's time is ``max(bytes moved / bandwidth, flops / flop rate) + launch overhead``;
each executor adds its own per-op dispatch overhead (``Executor.dispatch_us``). Bytes are
what a kernel reads and writes: for one bound symbol its tensor inputs and outputs, for a
fused region only the tensors crossing the region's boundary (intermediates stay in
registers/cache). FLOPs come from a table keyed by symbol id (matmul-like ops), defaulting to
one per output element.

Constants default to conservative values for a CPU; ``python -m thunder_core calibrate``
(thunder_core/calibrate.py) measures this machine and stores them per user (``load``).
"""

from __future__ import annotations

import json
import math
import os
from dataclasses import dataclass
from pathlib import Path

from ..ir import TensorProxy
from ..ir.traits import VIEW, has_trait
from ..transforms.remat import nbytes as _bytes


def cache_file() -> Path:
    """Where ``python -m thunder_core calibrate`` stores this machine's measurements."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "thunder_core" / "machine.json"


def load() -> dict:
    """The stored calibration, or {} if there is none (or it cannot be read)."""
    try:
        return json.loads(cache_file().read_text())
    except (OSError, ValueError):
        return {}


@dataclass(frozen=True)
class Machine:
    bandwidth_gbs: float = 10.0      # memory bandwidth, GB/s
    flops_g: float = 50.0            # matmul FLOP rate, GFLOP/s
    launch_us: float = 1.0           # fixed cost of any kernel


def _matmul_flops(bsym) -> float:
    a, b = [x for x in bsym.flat_args if isinstance(x, TensorProxy)][:2]
    k = a.shape[-1] if a.shape else 1
    out = sum(math.prod(p.shape) for p in bsym.flat_outs if isinstance(p, TensorProxy))
    return 2.0 * out * k


def _attention_flops(matmuls, first=0):
    """Attention doing ``matmuls`` products of L x S x E (query (..., L, E) is tensor argument
    ``first``, key (..., S, E) the next)."""
    def flops(bsym):
        q, k = [x for x in bsym.flat_args if isinstance(x, TensorProxy)][first:first + 2]
        return 2.0 * matmuls * math.prod(q.shape) * k.shape[-2]
    return flops


#: symbol id -> flops(bound symbol); default: one per output element
FLOPS = {sid: _matmul_flops for sid in ("ltorch.matmul", "ltorch.mm", "ltorch.bmm", "ltorch.linear",
                                         "ltorch.addmm", "ltorch.baddbmm", "prims.matmul")}
# attention: q k^T and p v forward; the backward kernel does 5 products, 2 more when it must
# first recompute the forward's statistics (sdpa_backward, without them)
FLOPS.update({"ltorch.scaled_dot_product_attention": _attention_flops(2), "ltorch.sdpa_forward": _attention_flops(2),
              "ltorch.sdpa_backward_stats": _attention_flops(5, 1), "ltorch.sdpa_backward": _attention_flops(7, 1)})


#: symbol id -> extra bytes(bound symbol) its kernel moves beyond its inputs and outputs: the
#: backward ops that re-read their input to recompute forward statistics
def _input_again(bsym):
    return float(_bytes(bsym.args[1])) if len(bsym.args) > 1 and isinstance(bsym.args[1], TensorProxy) else 0.0


EXTRA_BYTES = {sid: _input_again for sid in ("ltorch.layer_norm_backward", "ltorch.rms_norm_backward",
                                             "ltorch.batch_norm_backward")}


class CostModel:
    """Estimates with this machine's constants: ``machine`` if given, else the calibration
    stored by ``python -m thunder_core calibrate``, else defaults."""

    def __init__(self, machine: Machine | None = None):
        if machine is None:
            stored = load()
            machine = Machine(**{k: stored[k] for k in ("bandwidth_gbs", "flops_g", "launch_us") if k in stored})
            self.dispatch_us = stored.get("dispatch_us", {})
        else:
            self.dispatch_us = {}
        self.machine = machine

    def dispatch(self, executor) -> float:
        """An executor's per-op overhead: calibrated if measured here, else its own estimate."""
        return self.dispatch_us.get(executor.name, executor.dispatch_us)

    def flops(self, bsym) -> float:
        rule = FLOPS.get(bsym.sym.id)
        if rule is not None:
            return rule(bsym)
        return float(sum(math.prod(p.shape) for p in bsym.flat_outs if isinstance(p, TensorProxy)))

    def kernel_us(self, bytes_moved: float, flops: float) -> float:
        m = self.machine
        return max(bytes_moved / (m.bandwidth_gbs * 1e3), flops / (m.flops_g * 1e3)) + m.launch_us

    def symbol_us(self, bsym, dispatch_us: float) -> float:
        """One bound symbol run alone by an executor with this per-op overhead (a view moves
        no data: only the overhead)."""
        if has_trait(bsym, VIEW):
            return self.machine.launch_us + dispatch_us
        moved = sum(_bytes(p) for p in {id(p): p for p in (*bsym.flat_args, *bsym.flat_outs)
                                        if isinstance(p, TensorProxy)}.values())
        extra = EXTRA_BYTES.get(bsym.sym.id)
        if extra is not None:
            moved += extra(bsym)
        return self.kernel_us(moved, self.flops(bsym)) + dispatch_us

    def region_us(self, bsyms, boundary, dispatch_us: float) -> float:
        """A fused region: ``boundary`` are the tensors crossing it (inputs and outputs)."""
        moved = sum(_bytes(p) for p in boundary if isinstance(p, TensorProxy))
        return self.kernel_us(moved, sum(self.flops(b) for b in bsyms)) + dispatch_us
