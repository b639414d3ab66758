"""The epilogue: writes to outside state (globals, closure cells of outside functions,
attributes and items of outside objects, mutating methods such as ``list.append``) and output
effects of calls (``print``, ``warnings.warn``, ``logging``: builtin/effects.py), replayed
after the computation on every call, in program order, so a cached call does what CPython
does; then the function's output, rebuilt from the computation's results (rebuild.py) when it
is more than proxies in tuples, lists and dicts.

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
from ..frontend.native import MODULE_TABLES
from ..ir.codegen import compile_function
from .prologue import NotRefetchable, _Builder
from .rebuild import NotRebuildable, Rebuilder, is_plain

_MISSING = object()
_INPLACE = {"+=": operator.iadd, "-=": operator.isub, "*=": operator.imul, "/=": operator.itruediv,
            "//=": operator.ifloordiv, "%=": operator.imod, "**=": operator.ipow, "&=": operator.iand,
            "|=": operator.ior, "^=": operator.ixor, "<<=": operator.ilshift, ">>=": operator.irshift,
            "@=": operator.imatmul}


class UnreplayableWrite(NotImplementedError):
    """A write the epilogue cannot repeat on later calls."""


class UndoLog:
    """Snapshots outside objects before their first change while tracing; ``restore()`` puts
    them back (in reverse order). Both use the base types' own methods (``dict.clear``,
    ``list.__setitem__``, ``type.__setattr__``...), never the object's: a dict subclass whose
    ``update`` raises, a ``ModelOutput``, a class's read-only ``__dict__`` are restored all
    the same."""

    def __init__(self):
        self.saved: dict[int, tuple] = {}
        self.order: list[int] = []

    def snapshot(self, obj):
        if id(obj) in self.saved:
            return
        parts = []  # (how to restore, what, the saved state)
        if isinstance(obj, types.CellType):
            try:
                parts.append(("cell", obj, obj.cell_contents))
            except ValueError:
                parts.append(("cell", obj, _MISSING))
        elif isinstance(obj, type):
            parts.append(("class", obj, dict(obj.__dict__)))
        else:
            if isinstance(obj, collections.OrderedDict):
                parts.append(("odict", obj, list(collections.OrderedDict.items(obj))))
            elif isinstance(obj, dict):
                parts.append(("dict", obj, list(dict.items(obj))))
            elif isinstance(obj, (list, bytearray)):
                parts.append(("list", obj, list.copy(obj) if isinstance(obj, list) else bytes(obj)))
            elif isinstance(obj, collections.deque):
                parts.append(("deque", obj, list(obj)))
            elif isinstance(obj, set):
                parts.append(("set", obj, set.copy(obj)))
            d = _instance_dict(obj)
            if d is not None:
                parts.append(("dict", d, list(d.items())))
                if isinstance(obj, torch.nn.Module):  # its tables are dicts changed in place
                    for table in MODULE_TABLES:
                        t = d.get(table)
                        if type(t) is dict:
                            parts.append(("dict", t, list(t.items())))
        self.saved[id(obj)] = (obj, parts)
        self.order.append(id(obj))

    def restore(self):
        for key in reversed(self.order):
            _, parts = self.saved[key]
            for kind, target, state in parts:
                _RESTORE[kind](target, state)
        self.saved.clear()
        self.order.clear()


def _instance_dict(obj):
    try:
        d = object.__getattribute__(obj, "__dict__")
    except (AttributeError, TypeError):
        return None
    return d if isinstance(d, dict) else None


def _restore_cell(obj, state):
    if state is _MISSING:
        try:
            del obj.cell_contents
        except ValueError:
            pass
    else:
        obj.cell_contents = state


def _restore_class(cls, state):
    # a class's __dict__ is a read-only mappingproxy: read a copy, write with type's own methods
    now = dict(cls.__dict__)
    for k in now.keys() - state.keys():
        type.__delattr__(cls, k)
    for k, v in state.items():
        if now.get(k, _MISSING) is not v:
            type.__setattr__(cls, k, v)


def _restore_dict(obj, items):
    dict.clear(obj)
    dict.update(obj, items)


def _restore_odict(obj, items):
    collections.OrderedDict.clear(obj)
    for k, v in items:
        collections.OrderedDict.__setitem__(obj, k, v)


def _restore_list(obj, items):
    (bytearray if isinstance(obj, bytearray) else list).__setitem__(obj, slice(None), items)


def _restore_deque(obj, items):
    collections.deque.clear(obj)
    collections.deque.extend(obj, items)


def _restore_set(obj, items):
    set.clear(obj)
    set.update(obj, items)


_RESTORE = {"cell": _restore_cell, "class": _restore_class, "dict": _restore_dict, "odict": _restore_odict,
            "list": _restore_list, "deque": _restore_deque, "set": _restore_set}


def build_epilogue(cap, args, kwargs, output):
    """(epilogue function or None, its source, the proxies the computation must return for it).

    The epilogue ``epilogue(args, kwargs, results, fresh) -> output`` makes the writes in
    ``cap.events`` in program order, then returns ``output`` rebuilt (rebuild.py) from the
    computation's ``results`` (and ``fresh``: the fresh objects the prologue drew that it uses,
    ``cap.epilogue_draws``). None when there are no writes and ``output`` is plain (the
    computation returns it directly)."""
    writes = [e for e in cap.events if e.kind in ev.REPLAYED]
    if not writes and is_plain(output, cap.outside):
        return None, "", []
    b = _Builder(args, kwargs)
    b.consts.update(operator=operator)
    draws = {d.prov: d for d in cap.draws}

    def drawn(prov):  # a fresh object (a generator's item printed, returned): the prologue's, passed on
        cap.epilogue_draws.append(prov)
        return f"fresh[{len(cap.epilogue_draws) - 1}]", draws[prov].value
    b.drawn = drawn
    rb = Rebuilder(b, cap.outside, cap.trace.written)

    def value(v, e):
        try:
            return rb.expr(v)
        except NotRebuildable as why:
            raise UnreplayableWrite(
                f"{e.where}: the jitted function writes a {type(v).__qualname__} created inside it to "
                f"{cap.describe_path(e.prov)} ({e.kind}); writes are repeated on every call by making the object "
                f"again with the copy protocol, and {why}. Write numbers, strings, tensors, containers of them, or "
                "objects that can be copied.") from None

    def target(e):
        try:
            return b.fetch(e.prov)
        except NotRefetchable:
            raise UnreplayableWrite(f"{e.where}: cannot find {e.prov!r} again on later calls to repeat "
                                    f"its {e.kind}.") from None

    # A path names what was there when the call began (reads back of what the call wrote are
    # the call's own values, frontend/interpreter.py): every object is fetched, and every value
    # rebuilt, before the first write, so a write through an object the same call rebinds
    # elsewhere (`a = lst; lst = []; a.append(0)`, a swap `s.a, s.b = s.b, s.a`) reaches that object.
    made: list[str] = []  # the writes, in program order, after every fetch
    for e in writes:
        k = e.kind
        if k in (ev.WRITE_GLOBAL, ev.DELETE_GLOBAL):
            g = b.const(e.prov.ref, "G")
            made.append(f"{g}[{e.key!r}] = {value(e.value, e)}" if k == ev.WRITE_GLOBAL else f"del {g}[{e.key!r}]")
        elif k in (ev.WRITE_CELL, ev.DELETE_CELL):
            c = b.const(e.prov.ref, "C")
            made.append(f"{c}.cell_contents = {value(e.value, e)}" if k == ev.WRITE_CELL else f"del {c}.cell_contents")
        elif k == ev.WRITE_ATTR:
            made.append(f"setattr({target(e)}, {e.key!r}, {value(e.value, e)})")
        elif k == ev.DELETE_ATTR:
            made.append(f"delattr({target(e)}, {e.key!r})")
        elif k == ev.WRITE_ITEM:
            made.append(f"{target(e)}[{value(e.key, e)}] = {value(e.value, e)}")
        elif k == ev.DELETE_ITEM:
            made.append(f"del {target(e)}[{value(e.key, e)}]")
        elif k == ev.CALL:
            call_args, call_kwargs = e.value
            parts = [value(a, e) for a in call_args] + [f"{n}={value(v, e)}" for n, v in call_kwargs.items()]
            made.append(f"{b.const(e.key, 'E')}({', '.join(parts)})")
        elif k == ev.MUTATE:
            if e.key in _INPLACE:
                made.append(f"operator.{_INPLACE[e.key].__name__}({target(e)}, {value(e.value[0], e)})")
            else:
                call_args = ", ".join(value(a, e) for a in e.value)
                made.append(f"{target(e)}.{e.key}({call_args})")
    try:
        out = rb.expr(output)
    except NotRebuildable as why:
        raise NotRebuildable(
            f"{cap.fn_name} returns a value that thunder_core makes again on every call (objects created during the "
            f"call are rebuilt with the copy protocol), but {why}. Return tensors, numbers, containers of them, "
            f"dataclasses or types registered with torch.utils._pytree.") from None
    b.lines += made
    b.lines.append(f"return {out}")
    body = "\n".join("    " + line for line in b.lines)
    source = f"def epilogue(args, kwargs, results, fresh=()):\n{body}\n"
    return compile_function(source, "epilogue", f"epilogue {cap.fn_name}", b.consts), source, rb.results
