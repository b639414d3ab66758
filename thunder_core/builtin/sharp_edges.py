"""Built-in sharp-edge checkers: outside-value, outside-write, opaque-call, reshape-inplace."""

from __future__ import annotations

import types

from .. import hookspecs
from ..frontend import events as ev
from ..frontend.provenance import CELL, GLOBAL
from ..ir import flat_proxies
from ..ir.traits import VIEW, has_trait, writes_into
from ..sharp_edges import SharpEdge, SharpEdgeChecker

_NOT_DATA = (types.ModuleType, types.FunctionType, types.BuiltinFunctionType, type, types.MethodType,
             types.BuiltinMethodType, types.MethodDescriptorType, types.WrapperDescriptorType)
_FIX_READ = "Pass it as an argument instead, or silence this with sharp_edges={'outside-value': 'allow'}."
_FIX_WRITE = "Return the value and update it outside the jitted function, or use sharp_edges={'outside-write': 'allow'}."


def _what(e) -> str:
    return "global" if e.prov.root.kind == GLOBAL else "closure variable" if e.prov.root.kind == CELL else "value"


def _is_data(value) -> bool:
    import torch

    if isinstance(value, torch.nn.Module):
        return True  # a module read from outside carries parameters: data
    return not isinstance(value, _NOT_DATA) and not callable(value)


def check_outside_value(cap):
    for e in cap.events:
        if e.kind in (ev.READ_GLOBAL, ev.READ_CELL) and _is_data(e.value):
            yield SharpEdge("outside-value", f"{e.where}: reads {_what(e)} {e.key!r} ({type(e.value).__name__}) "
                                             f"from outside the jitted function. {_FIX_READ}")


def check_outside_write(cap):
    for e in cap.events:
        if e.kind in ev.WRITES:
            target = cap.describe_path(e.prov)
            detail = f"{e.key!r} of {target}" if e.kind in (ev.WRITE_ATTR, ev.WRITE_ITEM, ev.DELETE_ATTR,
                                                             ev.DELETE_ITEM, ev.MUTATE) else target
            yield SharpEdge("outside-write", f"{e.where}: {e.kind} {detail}: changes state outside the jitted "
                                             f"function. {_FIX_WRITE}")


_FIX_FROZEN = ("Make the call outside the jitted function and pass its value in (random numbers: Python's random "
               "and numpy's draws, and torch.rand and friends, are drawn on every call), or keep the value read "
               "while tracing for every call with sharp_edges={'opaque-call': 'allow'}.")


def check_opaque_call(cap):
    """Values that are new on every call in eager but frozen in the trace (builtin/fresh_values.py):
    drawn ones that cannot be inputs (not numbers, tensors or containers of them), and calls made
    once, while tracing (``input``, ``open``, ``random.shuffle``). Each names the user's line."""
    for e in cap.events:
        if e.kind != ev.FROZEN:
            continue
        where = f"{e.site[0]}:{e.site[1]}"
        if e.prov is None:
            yield SharpEdge("opaque-call", f"{where}: {e.key}(...) runs once, while tracing; cached calls reuse its "
                                           f"result and do not run it again. {_FIX_FROZEN}")
        else:
            yield SharpEdge("opaque-call", f"{where}: {e.key}(...) gives a new value on every call, a "
                                           f"{type(e.value).__qualname__}, which cannot be an input of the trace "
                                           f"(numbers, tensors and containers of them can): every call would reuse "
                                           f"the one read while tracing ({e.value!r:.60}). {_FIX_FROZEN}")


_RESHAPES = ("ltorch.reshape", "ltorch.flatten", "ltorch.reshape_as")


def check_reshape_inplace(cap):
    """An in-place write into the output of a reshape, where eager writes through to the
    reshaped tensor only when the reshape returned a view: it matters only if that tensor (or
    another view of the same memory) is read after the write, or is seen outside (an input or
    an output). MobileNet's in-place dropout on ``flatten(pooled)`` reads nothing after it."""
    trace = cap.trace
    bsyms = trace.bound_symbols
    root, producer, last_read = {}, {}, {}  # views -> the tensor whose memory they show
    for i, b in enumerate(bsyms):
        for p in b.flat_args:
            last_read[id(p)] = i
        if (b.sym.id in _RESHAPES or has_trait(b, VIEW)) and b.flat_args:
            base = root.get(id(b.flat_args[0]), id(b.flat_args[0]))
            for p in b.flat_outs:
                root[id(p)] = base
                if b.sym.id in _RESHAPES:
                    producer[id(p)] = b
    seen_outside = {id(p) for p in (*flat_proxies(trace.args), *flat_proxies(trace.kwargs), *flat_proxies(trace.output))}
    for i, b in enumerate(bsyms):
        if "inplace" not in b.sym.tags:
            continue
        for w in writes_into(b):
            src = producer.get(id(w))
            if src is None:
                continue
            base = root[id(w)]
            shared = [k for k, r in root.items() if r == base and k != id(w)] + [base]
            if not any(last_read.get(k, -1) > i or k in seen_outside for k in shared):
                continue  # nothing sees the memory after the write: eager's outcome is the same either way
            where = f"{b.source[0]}:{b.source[1]}" if b.source else "the jitted function"
            yield SharpEdge("reshape-inplace", f"{where}: in-place {b.sym.name} on the output of "
                                               f"{src.sym.name}: eager may or may not write through to the "
                                               "original tensor (reshape returns a view only sometimes), which "
                                               "is used afterwards. Use view() for a guaranteed view or clone() "
                                               "for a copy.")
            break


@hookspecs.hookimpl
def thunder_core_sharp_edge_checkers():
    return [SharpEdgeChecker("outside-value", "allow", check_outside_value),
            SharpEdgeChecker("outside-write", "allow", check_outside_write),
            # "error" by default: a value that is fresh on every call in eager must not be frozen silently
            SharpEdgeChecker("opaque-call", "error", check_opaque_call),
            SharpEdgeChecker("reshape-inplace", "error", check_reshape_inplace)]
