"""thunder_core's PyTorch executors. ``torch`` runs every symbol with PyTorch, op by op, on
the device of its inputs: torch-level symbols call the torch function they stand for,
primitives run their implementations in :mod:`.prims`."""

from __future__ import annotations

__version__ = "0.1.0.dev0"


def implementations() -> dict:
    """symbol id -> callable for every symbol known now (torch-level and primitives)."""
    from thunder_core.extend import higher_order_impls, python_impls, torch_impls

    from .autograd import torch_vjp
    from .prims import IMPLS

    # (autograd.add_cotangent is in torch_impls(): elementwise, fusing executors take it in too)
    return {**torch_impls(), **python_impls(), **higher_order_impls(), **IMPLS, "autograd.torch_vjp": torch_vjp}
