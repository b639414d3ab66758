"""Entry point module of the thunder_core plugin (group ``thunder_core``, name ``distributed``).

Hooks: ``thunder_core_symbols`` (the collectives, symbols.py), ``thunder_core_vjp_rules``
(vjp.py) and ``thunder_core_lookasides``: ``torch.distributed``'s collectives traced as
symbols (api.py), the rank and world size read as guarded process state, functional
collectives waited for where they are made, and the compositions with
``DistributedDataParallel`` (ddp.py) and FSDP2's ``fully_shard`` (fsdp.py, fsdp_hooks.py).
"""

from __future__ import annotations

import sys

import torch.distributed as dist
from thunder_core.extend import API_VERSION, hookimpl, read_state

THUNDER_CORE_API = API_VERSION


def _interpreted(replacement):
    def lookaside(interpreter, args, kwargs):
        return interpreter.call(replacement, args, kwargs)
    lookaside.__name__ = f"interpret_{replacement.__name__}"
    return lookaside


def _state(fn):
    # the rank and the world size: read now, checked by the prologue on every call (a cached
    # compile is reused only in a process where they are the same)
    def lookaside(interpreter, args, kwargs):
        return read_state(interpreter, fn, *args, *kwargs.values())
    return lookaside


def _tracing(interpreter, args, kwargs):
    # torch.distributed._functional_collectives: "are we tracing?" yes, so a functional
    # collective is waited for where it is made (as under torch.compile), never wrapped in an
    # AsyncCollectiveTensor holding a proxy
    return True


#: the module of FSDP2's state, whose forward hooks the plugin looks aside
_FSDP2 = "torch.distributed.fsdp._fully_shard._fsdp_state"


@hookimpl
def thunder_core_symbols():
    from . import symbols

    symbols.define()


@hookimpl
def thunder_core_vjp_rules():
    from .vjp import RULES

    return dict(RULES)


@hookimpl
def thunder_core_lookasides():
    import torch.distributed._functional_collectives as funcol

    from . import ddp
    from .api import REPLACEMENTS

    table = {fn: _interpreted(replacement) for fn, replacement in REPLACEMENTS.items()}
    for fn in (dist.get_rank, dist.get_world_size, dist.ProcessGroup.rank, dist.ProcessGroup.size):
        table[getattr(fn, "__func__", fn)] = _state(fn)
    table[funcol._are_we_tracing] = _tracing
    table.update(ddp.LOOKASIDES)
    if _FSDP2 in sys.modules:  # FSDP2's hooks exist once the program imported fully_shard; thunder_core
        from . import fsdp_hooks  # asks again after new imports (and importing FSDP here would cost ~0.45 s)

        table.update(fsdp_hooks.lookasides())
    return table
