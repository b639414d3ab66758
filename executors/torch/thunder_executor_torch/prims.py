"""PyTorch implementations of the primitives: ``IMPLS[prim id] = callable`` taking the
primitive's calling convention (tensors and numbers positional, static metadata by keyword).
Each family of primitives has its implementations in ``prims_<family>.py`` beside this file,
registered with :func:`impl`."""

from __future__ import annotations

import importlib
import pkgutil
from typing import Callable

IMPLS: dict[str, Callable] = {}


def impl(prim_id: str):
    """Register the decorated function as the torch implementation of ``prim_id``."""
    def register(fn):
        if prim_id in IMPLS:
            raise ValueError(f"two torch implementations of {prim_id}")
        IMPLS[prim_id] = fn
        return fn
    return register


def _load():
    from . import __path__ as here
    for m in sorted(pkgutil.iter_modules(here), key=lambda m: m.name):
        if m.name.startswith("prims_"):
            importlib.import_module(f"{__package__}.{m.name}")


_load()
