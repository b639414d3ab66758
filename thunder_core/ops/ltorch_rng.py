"""Effects on, and reads of, torch's random number generator state.

``torch.manual_seed(seed)`` and ``torch.set_rng_state(state)`` inside a jitted function are
recorded as symbols with no outputs tagged ``"random"`` and ``"effect"``: they stay in the trace
where the program called them (dead-code elimination keeps effects; fusing executors do not
claim random ops), so every call changes the global generator before the random ops that
follow, as eager does. (Run at trace time only, they would act on the first call alone.)
``torch.get_rng_state()`` is a random-tagged read returning the state tensor, in program order
with the draws around it: ``freeze_rng_state``-style save/restore works on every call.
"""

from __future__ import annotations

import torch

from ..ir import tensor_proxy
from .registry import torch_op


def _no_output(*args, **kwargs):
    return None


def _state_meta():
    s = torch.random.default_generator.get_state()
    return tensor_proxy(s.shape, s.dtype, s.device)


@torch_op(torch.random.manual_seed, inputs=("seed",), meta=_no_output, tags=("random", "effect"))
def manual_seed(seed):
    """Seed torch's global generator (an effect: no outputs)."""


@torch_op(torch.random.set_rng_state, inputs=("new_state",), meta=_no_output, tags=("random", "effect"))
def set_rng_state(new_state):
    """Set the CPU generator's state (an effect: no outputs)."""


@torch_op(torch.random.get_rng_state, inputs=(), meta=_state_meta, tags=("random",))
def get_rng_state():
    """The CPU generator's state, a uint8 tensor."""
