"""Effects on torch's random number generator.

``torch.manual_seed(seed)`` inside a jitted function is recorded as ``ltorch.manual_seed``, a
symbol with no outputs tagged ``"random"`` and ``"effect"``: it stays in the trace where the
program called it (dead-code elimination keeps effects; fusing executors do not claim random
ops), so every call reseeds the global generator before the random ops that follow, as eager
does. (Run at trace time only, it would seed the first call alone.)
"""

from __future__ import annotations

import torch

from .registry import torch_op


def _no_output(*args, **kwargs):
    return None


@torch_op(torch.random.manual_seed, inputs=("seed",), meta=_no_output, tags=("random", "effect"))
def manual_seed(seed):
    """Seed torch's global generator (an effect: no outputs)."""
