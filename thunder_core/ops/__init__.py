"""The op language: primitives (``prims``) and torch-level symbols (``ltorch``).

Importing this package defines every symbol (see registry.py for how one is defined) and
registers the torch callables they stand for.
"""

import os as _os

from ..frontend.code import run_natively as _run_natively
from ..ir.printing import NAMESPACES as _NAMESPACES

_run_natively(_os.path.dirname(__file__))
_run_natively(_os.path.join(_os.path.dirname(_os.path.dirname(__file__)), "ir"))
_NAMESPACES.setdefault("prims", "thunder_core.ops.prims")
_NAMESPACES.setdefault("ltorch", "thunder_core.ops.ltorch")

from . import ltorch, opaque, prims, registry  # noqa: E402
from .registry import PRIMS, SYMBOLS, TORCH_CALLS, TORCH_IMPLS  # noqa: E402

# Op families. Each module defines its prims and/or torch-level symbols at import.
import importlib as _importlib  # noqa: E402
import pkgutil as _pkgutil  # noqa: E402

for _m in sorted(_pkgutil.iter_modules(__path__), key=lambda m: m.name):
    if _m.name.startswith(("prims_", "ltorch_")):
        _importlib.import_module(f"{__name__}.{_m.name}")

__all__ = ["prims", "ltorch", "registry", "PRIMS", "SYMBOLS", "TORCH_CALLS", "TORCH_IMPLS"]

# Symbols contributed by plugins (hook thunder_core_symbols), after the core's own.
from .. import plugins as _plugins  # noqa: E402

_plugins.define_symbols()
