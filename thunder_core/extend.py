"""``thunder_core.extend``: everything an executor or plugin author imports from thunder_core.

Executors (the built-in ``torch`` and ``inductor`` ones included), lookasides, transforms,
VJP rules and sharp-edge checkers are written against this namespace and nothing else of
the core. A walk-through: ``docs/writing-an-executor.md``; the hooks: ``hookspecs.py``.

**Compatibility policy.** The names in ``__all__`` and their documented behaviour are the
plugin contract of major version ``API_VERSION``. Within one major version names are only
added (never removed, renamed, or given an incompatible signature or meaning); such a change
raises ``API_VERSION``, and the core then disables plugins declaring another version with a
warning (``python -m thunder_core doctor`` shows why) instead of failing at run time.
Everything outside this module is private to the core and may change in any release.
``tests/test_extend.py`` pins the public names.

What is here, by purpose:

* the plugin contract: :data:`API_VERSION`, :data:`hookimpl` (``@hookimpl`` on hook
  functions; pluggy's ``tryfirst``/``trylast``/``wrapper`` options apply), :func:`register` /
  :func:`unregister` (add a plugin object at run time), :func:`registry`;
* executors: :class:`Executor`, :class:`Claim`, :class:`ClaimFn`, :class:`ClaimContext`,
  :class:`Region`, :data:`Checker`, :class:`Artifact`, and region helpers
  :func:`region_callable` (run a region with an implementation table) and :func:`region_key`
  (a compile-cache key from a region's structure), :func:`region_of` (the Region behind a
  region in an execution trace), :class:`RegionNumbers` (a region's symbolic sizes: their
  values on each call, their hints for planning, the region made concrete);
* cost: :class:`DeviceProfile`, :data:`PROFILES`, :func:`profile`, :class:`CostModel`;
* ops: traits (:data:`TRAITS`, :func:`traits`, :func:`has_trait`; :func:`draws_random`: whether a
  call of a ``random`` op drew), the symbol tables
  (:func:`symbols`, :func:`prims`, :func:`torch_impls`, :func:`python_impls`,
  :func:`higher_order_impls`), and the decorators that define ops
  (:func:`torch_op`, :func:`prim`, the torch-style namespaces :data:`T` and :data:`F`);
* the IR: :class:`Trace`, :class:`Symbol`, :class:`BoundSymbol`, :class:`Proxy`,
  :class:`TensorProxy`, :class:`NumberProxy`, :func:`flat_proxies`, :func:`tensor_proxy` (a new
  tensor proxy named by the trace being built: what a meta function returns), :func:`subtraces` (the
  sub-traces a higher-order bound symbol holds; docs/higher-order-ops.md);
* sharp edges: :class:`SharpEdgeChecker`, :class:`SharpEdge`;
* for lookasides (``thunder_core_lookasides``), what they may do to the call being traced
  besides recording symbols: :func:`record_effect` (a call made on every call of the
  compiled function, after its computation), :func:`read_state` (a fact of the process the
  prologue checks on every call), :func:`substitute` (reads of an outside tensor give a
  value of the trace); see ``thunder_core/lookaside_tools.py``;
* helpers for implementations: :func:`tensor_leaves`, :func:`with_tensors`.

Example (an executor running ``ltorch.add`` with its own function, declining float64)::

    import torch
    from thunder_core.extend import API_VERSION, Executor, hookimpl

    def add(a, b, alpha=1):
        return torch.add(a, b, alpha=alpha)

    def only_float32(bsym):
        return None if bsym.output.dtype == torch.float32 else f"{bsym.output.dtype} is not supported"

    myexec = Executor("myexec", implementations=lambda: {"ltorch.add": add},
                      checkers=lambda: {"ltorch.add": only_float32}, api_version=API_VERSION)

    @hookimpl
    def thunder_core_executors():
        return [myexec]
"""

from __future__ import annotations

import importlib
from types import MappingProxyType
from typing import TYPE_CHECKING

from .execution.claims import (Artifact, Checker, Claim, ClaimContext, ClaimFn, Region, region_callable, region_key,
                               region_of)
from .execution.executor import Executor
from .execution.profiles import PROFILES, DeviceProfile, profile
from .hookspecs import API_VERSION, hookimpl

if TYPE_CHECKING:  # for readers and static tools; at run time these resolve lazily (below)
    from .execution.autograd_runtime import tensor_leaves, with_tensors
    from .execution.cost import CostModel
    from .execution.sizes import RegionNumbers
    from .ir import BoundSymbol, NumberProxy, Proxy, Symbol, TensorProxy, Trace, flat_proxies, tensor_proxy
    from .ir.trace import subtraces
    from .ir.traits import TRAITS, draws_random, has_trait, traits
    from .ops.registry import F, T, prim, torch_op
    from .lookaside_tools import read_state, record_effect, substitute
    from .plugins import PluginWarning, register, registry, unregister
    from .sharp_edges import SharpEdge, SharpEdgeChecker

# Names resolved on first use (PEP 562): importing the op language loads plugins' symbols,
# and plugin modules import this namespace while they load, so it must not import them eagerly.
_LAZY = {
    "CostModel": ("thunder_core.execution.cost", "CostModel"),
    "RegionNumbers": ("thunder_core.execution.sizes", "RegionNumbers"),
    "TRAITS": ("thunder_core.ir.traits", "TRAITS"),
    "traits": ("thunder_core.ir.traits", "traits"),
    "has_trait": ("thunder_core.ir.traits", "has_trait"),
    "draws_random": ("thunder_core.ir.traits", "draws_random"),
    "Trace": ("thunder_core.ir", "Trace"),
    "Symbol": ("thunder_core.ir", "Symbol"),
    "BoundSymbol": ("thunder_core.ir", "BoundSymbol"),
    "Proxy": ("thunder_core.ir", "Proxy"),
    "TensorProxy": ("thunder_core.ir", "TensorProxy"),
    "NumberProxy": ("thunder_core.ir", "NumberProxy"),
    "flat_proxies": ("thunder_core.ir", "flat_proxies"),
    "tensor_proxy": ("thunder_core.ir", "tensor_proxy"),
    "subtraces": ("thunder_core.ir.trace", "subtraces"),
    "torch_op": ("thunder_core.ops.registry", "torch_op"),
    "prim": ("thunder_core.ops.registry", "prim"),
    "T": ("thunder_core.ops.registry", "T"),
    "F": ("thunder_core.ops.registry", "F"),
    "SharpEdgeChecker": ("thunder_core.sharp_edges", "SharpEdgeChecker"),
    "SharpEdge": ("thunder_core.sharp_edges", "SharpEdge"),
    "register": ("thunder_core.plugins", "register"),
    "unregister": ("thunder_core.plugins", "unregister"),
    "registry": ("thunder_core.plugins", "registry"),
    "PluginWarning": ("thunder_core.plugins", "PluginWarning"),
    "tensor_leaves": ("thunder_core.execution.autograd_runtime", "tensor_leaves"),
    "with_tensors": ("thunder_core.execution.autograd_runtime", "with_tensors"),
    "record_effect": ("thunder_core.lookaside_tools", "record_effect"),
    "read_state": ("thunder_core.lookaside_tools", "read_state"),
    "substitute": ("thunder_core.lookaside_tools", "substitute"),
}


def __getattr__(name):
    where = _LAZY.get(name)
    if where is None:
        raise AttributeError(f"thunder_core.extend has no attribute {name!r}; its public names are listed in "
                             f"thunder_core.extend.__all__")
    value = getattr(importlib.import_module(where[0]), where[1])
    globals()[name] = value
    return value


def symbols():
    """``{symbol id: Symbol}`` of every torch-level symbol (``"ltorch.add"``), read-only;
    plugins' symbols included once the op language has loaded."""
    from .ops.registry import SYMBOLS

    return MappingProxyType(SYMBOLS)


def prims():
    """``{symbol id: Symbol}`` of every primitive (``"prims.add"``), read-only."""
    from .ops.registry import PRIMS

    return MappingProxyType(PRIMS)


def torch_impls():
    """``{symbol id: callable}`` running each torch-level symbol with the torch function it
    stands for, from the symbol's call in a trace (positional inputs, static keywords);
    read-only. Fusing executors build region functions from it (``region_callable(region,
    torch_impls())``); a symbol's decomposition reaches primitives, which each executor
    implements itself."""
    from .ops.registry import TORCH_IMPLS
    from .transforms import vjp  # noqa: F401 - its autograd.add_cotangent is elementwise, in the table

    return MappingProxyType(TORCH_IMPLS)


def higher_order_impls():
    """``{symbol id: callable}`` running each higher-order symbol (``"higher_order.cond"``,
    ``"higher_order.while_loop"``, ``"higher_order.scan"``...; see
    ``thunder_core.ops.higher_order`` and docs/higher-order-ops.md) as Python control flow that
    calls its sub-traces, read-only. The sub-traces arrive as compiled functions: the partitioner
    has covered each with the executors' claims, so fusing executors fuse inside them. An
    executor that runs whole traces (the torch executor) implements the symbols with these;
    fusing executors leave them alone (they carry no op trait)."""
    from .ops.higher_order import IMPLS

    return MappingProxyType(IMPLS)


def python_impls():
    """``{symbol id: callable}`` of the host primitives on Python numbers (``"prims.py_add"``:
    ``operator.add``; see ``thunder_core.ops.prims_number``), read-only. Symbolic numbers
    (``cache="symbolic values"``) put them in traces; an executor that runs whole traces (the
    torch executor) implements them with these functions, fusing executors leave them alone
    (they carry no op trait)."""
    from .ops.prims_number import PYTHON_IMPLS

    return MappingProxyType(PYTHON_IMPLS)


__all__ = [
    "API_VERSION", "Artifact", "BoundSymbol", "Checker", "Claim", "ClaimContext", "ClaimFn", "CostModel",
    "DeviceProfile", "Executor", "F", "NumberProxy", "PROFILES", "PluginWarning", "Proxy", "Region",
    "RegionNumbers", "SharpEdge", "SharpEdgeChecker", "Symbol", "T", "TRAITS", "TensorProxy", "Trace", "draws_random",
    "flat_proxies", "has_trait", "higher_order_impls", "hookimpl", "prim", "prims", "profile", "python_impls", "read_state",
    "record_effect", "region_callable", "region_key", "region_of", "register", "registry", "substitute", "subtraces",
    "symbols", "tensor_leaves", "tensor_proxy", "torch_impls", "torch_op", "traits", "unregister", "with_tensors",
]  # sorted; tests/execution/test_sdk.py pins it
