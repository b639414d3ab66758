"""The epilogue: writes to outside state (globals, closure cells of outside functions,
attributes and items of outside objects, mutating methods such as ``list.append``), replayed
after the computation on every call, in program order, so a cached call does what CPython
does.

While tracing, the interpreter performs each write for real (later reads in the same call
must see it); :class:`UndoLog` snapshots every outside object before its first change and
restores it when tracing ends, so the first call, like every later one, makes its writes
through the epilogue, with real tensors (computation outputs) where the trace had proxies.
"""

from __future__ import annotations

import collections
import operator
import types

import torch

from ..frontend import events as ev
from ..ir import Proxy
from ..ir.codegen import compile_function
from .prologue import NotRefetchable, _Builder

_MISSING = object()
_INPLACE = {"+=": operator.iadd, "-=": operator.isub, "*=": operator.imul, "/=": operator.itruediv,
            "//=": operator.ifloordiv, "%=": operator.imod, "**=": operator.ipow, "&=": operator.iand,
            "|=": operator.ior, "^=": operator.ixor, "<<=": operator.ilshift, ">>=": operator.irshift,
            "@=": operator.imatmul}


class UnreplayableWrite(NotImplementedError):
    """A write the epilogue cannot repeat on later calls."""


class UndoLog:
    """Snapshots outside objects before their first change while tracing; ``restore()`` puts
    them back (in reverse order)."""

    def __init__(self):
        self.saved: dict[int, tuple] = {}
        self.order: list[int] = []

    def snapshot(self, obj):
        if id(obj) in self.saved:
            return
        if isinstance(obj, types.CellType):
            try:
                state = obj.cell_contents
            except ValueError:
                state = _MISSING
        elif isinstance(obj, (dict, collections.OrderedDict)):
            state = dict(obj)
        elif isinstance(obj, (list, bytearray, collections.deque)):
            state = list(obj)
        elif isinstance(obj, (set, frozenset)):
            state = set(obj)
        elif hasattr(obj, "__dict__"):
            state = dict(obj.__dict__)
            if isinstance(obj, torch.nn.Module):
                state = (state, dict(obj._parameters), dict(obj._buffers), dict(obj._modules))
        else:
            state = _MISSING  # cannot be restored: reported by restore()
        self.saved[id(obj)] = (obj, state)
        self.order.append(id(obj))

    def restore(self):
        for key in reversed(self.order):
            obj, state = self.saved[key]
            if isinstance(obj, types.CellType):
                if state is _MISSING:
                    try:
                        del obj.cell_contents
                    except ValueError:
                        pass
                else:
                    obj.cell_contents = state
            elif isinstance(obj, dict):
                obj.clear()
                obj.update(state)
            elif isinstance(obj, (list, bytearray)):
                obj[:] = state
            elif isinstance(obj, collections.deque):
                obj.clear()
                obj.extend(state)
            elif isinstance(obj, set):
                obj.clear()
                obj.update(state)
            elif state is not _MISSING:
                if isinstance(obj, torch.nn.Module):
                    state, params, buffers, modules = state
                    for d, s in ((obj._parameters, params), (obj._buffers, buffers), (obj._modules, modules)):
                        d.clear()
                        d.update(s)
                obj.__dict__.clear()
                obj.__dict__.update(state)
        self.saved.clear()
        self.order.clear()


def build_epilogue(cap, args, kwargs):
    """(epilogue function or None, its source, the proxies it needs as extra computation
    outputs) for the writes in ``cap.events``."""
    writes = [e for e in cap.events if e.kind in ev.WRITES]
    if not writes:
        return None, "", []
    b = _Builder(args, kwargs)
    b.consts.update(operator=operator)
    extras: list[Proxy] = []
    outside = cap.outside

    def value(v, e):
        if isinstance(v, Proxy):
            for k, p in enumerate(extras):
                if p is v:
                    return f"extras[{k}]"
            extras.append(v)
            return f"extras[{len(extras) - 1}]"
        if v is None or type(v) in (int, float, bool, str, bytes, complex):
            return repr(v) if type(v) is not float or v == v and abs(v) != float("inf") else b.const(v, "V")
        if isinstance(v, (torch.dtype, torch.device)):
            return b.const(v, "V")
        entry = outside.get(id(v))
        if entry is not None:
            try:
                return b.fetch(entry[1])
            except NotRefetchable:
                pass
        if type(v) is tuple:
            return "(" + "".join(value(x, e) + ", " for x in v) + ")"
        if type(v) is list:
            return "[" + ", ".join(value(x, e) for x in v) + "]"
        if type(v) is dict:
            return "{" + ", ".join(f"{value(k, e)}: {value(x, e)}" for k, x in v.items()) + "}"
        raise UnreplayableWrite(
            f"{e.where}: the jitted function writes a {type(v).__qualname__} created inside it to "
            f"{cap.describe_path(e.prov)} ({e.kind}); writes are repeated on every call, and such an object cannot "
            "be re-created. Write numbers, strings, tensors, or lists/tuples/dicts of them, or objects passed in.")

    def target(e):
        try:
            return b.fetch(e.prov)
        except NotRefetchable:
            raise UnreplayableWrite(f"{e.where}: cannot find {e.prov!r} again on later calls to repeat "
                                    f"its {e.kind}.") from None

    for e in writes:
        k = e.kind
        if k in (ev.WRITE_GLOBAL, ev.DELETE_GLOBAL):
            g = b.const(e.prov.ref, "G")
            b.lines.append(f"{g}[{e.key!r}] = {value(e.value, e)}" if k == ev.WRITE_GLOBAL else f"del {g}[{e.key!r}]")
        elif k in (ev.WRITE_CELL, ev.DELETE_CELL):
            c = b.const(e.prov.ref, "C")
            b.lines.append(f"{c}.cell_contents = {value(e.value, e)}" if k == ev.WRITE_CELL else f"del {c}.cell_contents")
        elif k == ev.WRITE_ATTR:
            b.lines.append(f"setattr({target(e)}, {e.key!r}, {value(e.value, e)})")
        elif k == ev.DELETE_ATTR:
            b.lines.append(f"delattr({target(e)}, {e.key!r})")
        elif k == ev.WRITE_ITEM:
            b.lines.append(f"{target(e)}[{value(e.key, e)}] = {value(e.value, e)}")
        elif k == ev.DELETE_ITEM:
            b.lines.append(f"del {target(e)}[{value(e.key, e)}]")
        elif k == ev.MUTATE:
            if e.key in _INPLACE:
                b.lines.append(f"operator.{_INPLACE[e.key].__name__}({target(e)}, {value(e.value[0], e)})")
            else:
                call_args = ", ".join(value(a, e) for a in e.value)
                b.lines.append(f"{target(e)}.{e.key}({call_args})")
    body = "\n".join("    " + line for line in b.lines)
    source = f"def epilogue(args, kwargs, extras):\n{body}\n"
    return compile_function(source, "epilogue", f"epilogue {cap.fn_name}", b.consts), source, extras
