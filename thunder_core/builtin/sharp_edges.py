"""Built-in sharp-edge checkers: outside-value, outside-write, opaque-call, reshape-inplace."""

from __future__ import annotations

import builtins
import os
import random
import time
import types

from .. import hookspecs
from ..frontend import events as ev
from ..frontend.provenance import CELL, GLOBAL
from ..sharp_edges import SharpEdge, SharpEdgeChecker
from ..user_errors import is_user_file

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


_FROZEN = {builtins.input: "input", builtins.open: "open", time.time: "time.time",
           time.perf_counter: "time.perf_counter", time.monotonic: "time.monotonic", os.getenv: "os.getenv"}


def _frozen_name(fn):
    try:
        name = _FROZEN.get(fn)
    except TypeError:
        return None
    if name is not None:
        return name
    owner = getattr(fn, "__self__", None)
    if isinstance(owner, random.Random) or getattr(fn, "__module__", None) == "random":
        return f"random.{getattr(fn, '__name__', '?')}"
    if owner is os.environ:
        return f"os.environ.{fn.__name__}"
    return None


_FIX_FRESH = ("Draw it outside the jitted function and pass it in (random numbers in tensors: torch.rand and "
              "friends are traced), or keep the value read while tracing for every call with "
              "sharp_edges={'opaque-call': 'allow'}.")


def check_opaque_call(cap):
    seen = set()  # one report per line and call (random's own loops call getrandbits again)
    for e in cap.events:
        if e.kind == ev.FRESH:
            yield SharpEdge("opaque-call", f"{e.site[0]}:{e.site[1]}: {e.key}(...) gives a new value on every call "
                                           f"in eager, but the trace would reuse the one read while tracing "
                                           f"({e.value!r}) on every call. {_FIX_FRESH}")
        elif e.kind == ev.OPAQUE_CALL:
            name = _frozen_name(e.key)
            if name is not None:
                # the innermost line of the user's code (random.randint's own call is in random.py),
                # and the library function it called
                stack = e.value[2]
                k = next((k for k in range(len(stack) - 1, -1, -1) if is_user_file(stack[k][0])), None)
                site = e.site if k is None else stack[k]
                if k is not None and k + 1 < len(stack):
                    name = f"{stack[k + 1][2]} (through {name})"
                if (site, name) in seen:
                    continue
                seen.add((site, name))
                yield SharpEdge("opaque-call", f"{site[0]}:{site[1]}: {name}(...) runs once, while tracing; "
                                               "cached calls reuse its result and do not run it again. Call it "
                                               "outside the jitted function, or use "
                                               "sharp_edges={'opaque-call': 'allow'}.")


_RESHAPES = ("ltorch.reshape", "ltorch.flatten", "ltorch.reshape_as")


def check_reshape_inplace(cap):
    producer = {}
    for b in cap.trace.bound_symbols:
        if "inplace" in b.sym.tags and b.flat_args:
            src = producer.get(id(b.flat_args[0]))
            if src is not None:
                where = f"{b.source[0]}:{b.source[1]}" if b.source else "the jitted function"
                yield SharpEdge("reshape-inplace", f"{where}: in-place {b.sym.name} on the output of "
                                                   f"{src.sym.name}: eager may or may not write through to the "
                                                   "original tensor (reshape returns a view only sometimes). Use "
                                                   "view() for a guaranteed view or clone() for a copy.")
        if b.sym.id in _RESHAPES:
            for p in b.flat_outs:
                producer[id(p)] = b


@hookspecs.hookimpl
def thunder_core_sharp_edge_checkers():
    return [SharpEdgeChecker("outside-value", "allow", check_outside_value),
            SharpEdgeChecker("outside-write", "allow", check_outside_write),
            # "error" by default: a value that is fresh on every call in eager must not be frozen silently
            SharpEdgeChecker("opaque-call", "error", check_opaque_call, needs_opaque_calls=True),
            SharpEdgeChecker("reshape-inplace", "error", check_reshape_inplace)]
