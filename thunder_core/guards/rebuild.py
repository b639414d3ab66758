"""Rebuilding values after the computation: the function's output and the values its writes store.

A traced call returns (and writes into outside state) Python values that hold tensors the
computation produces: a ``ModelOutput``, a dataclass, a named tuple, a ``DynamicCache``, a dict
subclass... On every call these must come back as eager makes them: same types, new objects
for what the call creates, the same objects for what existed before, shared where eager
shares them. :class:`Rebuilder` turns one value seen at trace time into a Python expression
of the generated epilogue, recursively:

* a proxy: the computation's result for it (``results[i]``; :attr:`Rebuilder.results` lists
  the proxies the computation must return);
* numbers, strings, None and other immutable constants (types, functions, dtypes): literals or
  constants;
* an object that existed before the call (it has a provenance): fetched again along its path,
  like the prologue does, so it is the caller's own object (a constant when no path exists);
* a tuple, list or dict: a literal; a traced tensor's shape (ir/size.py): a ``torch.Size``;
* a type registered with ``torch.utils._pytree`` (``ModelOutput``, named tuples,
  ``torch.return_types``, ``OrderedDict``...): its children rebuilt, then the registered
  unflatten (``spec.unflatten``);
* any other object made during the call: Python's copy protocol, ``__reduce_ex__(4)`` (what
  ``copy.copy`` and pickle use): its constructor callable and arguments, then its state, list
  items and dict items, each rebuilt. So a ``State()`` written into a registry, or a cache
  object holding new tensors, is made afresh on each call with its final contents.

Objects are rebuilt once per call (a memo by identity), so one object written to a global and
returned is one object, as in eager.
"""

from __future__ import annotations

import copyreg
import types

import torch
import torch.utils._pytree as pytree

from ..ir import Proxy
from ..ir.size import Size
from .prologue import NotRefetchable, _Builder

_SCALARS = (int, bool, str, bytes, float, complex, type(None))
_CONSTANTS = (type, types.FunctionType, types.BuiltinFunctionType, types.ModuleType, types.MethodType,
              types.BuiltinMethodType, torch.dtype, torch.device, torch.layout, torch.memory_format,
              type(...), type(NotImplemented), range, slice, frozenset, copyreg.__newobj__.__class__,
              torch.Size)  # immutable: the object itself (pytree would make a torch.Size a tuple)


class NotRebuildable(TypeError):
    """A value made during the call that the epilogue cannot make again."""


def setstate(obj, state):
    """Apply a ``__reduce_ex__`` state to ``obj`` the way ``copy`` does."""
    setter = getattr(obj, "__setstate__", None)
    if setter is not None:
        setter(state)
        return
    slots = None
    if isinstance(state, tuple) and len(state) == 2:
        state, slots = state
    if state:
        obj.__dict__.update(state)
    if slots:
        for k, v in slots.items():
            setattr(obj, k, v)


def is_plain(v, outside=()) -> bool:
    """True if ``v`` prints as it is in a trace's return (proxies, numbers, strings, None,
    and exact tuples/lists/dicts of those made by the call, not ones in ``outside``, which the
    caller gets back as themselves): no epilogue is needed to return it."""
    t = type(v)
    if isinstance(v, Proxy) or t in (int, float, bool, str, complex, type(None)):
        return True
    if t is tuple or t is list:
        return id(v) not in outside and all(is_plain(x, outside) for x in v)
    if t is dict:
        return id(v) not in outside and all(type(k) in (int, str, bool) and is_plain(x, outside) for k, x in v.items())
    return False


class Rebuilder:
    """Generates, into ``b`` (a prologue :class:`_Builder`: lines, constants, path fetches),
    the expressions rebuilding values. ``where(value)`` says in words where a value came from
    (for errors)."""

    def __init__(self, b: _Builder, outside: dict, written: dict | None = None):
        self.b = b
        self.outside = outside
        self.written = written or {}       # the capture's Trace.written: what a tensor is at the end
        self.results: list = []            # proxies the computation returns, in first-use order
        self._result_of: dict[int, str] = {}
        self._memo: dict[int, str] = {}    # id(object) -> variable holding its rebuilt value
        self._keep: list = []              # the objects behind memo ids, alive while generating
        self._busy: set = set()

    def result(self, p: Proxy) -> str:
        p = self.written.get(id(p), p)  # (`h.t = z; z.data = y`: h.t holds what z is after the call)
        e = self._result_of.get(id(p))
        if e is None:
            e = self._result_of[id(p)] = f"results[{len(self.results)}]"
            self.results.append(p)
        return e

    def expr(self, v) -> str:
        """A Python expression for ``v`` (may emit lines defining variables first)."""
        if isinstance(v, Proxy):
            return self.result(v)
        t = type(v)
        if t in _SCALARS:
            return self.b.literal(v)
        if t is Size:  # a traced tensor's shape: a torch.Size of this call's sizes (ir/size.py)
            return f"{self.b.const(torch.Size, 'K')}((" + "".join(self.expr(x) + ", " for x in v) + "))"
        if isinstance(v, _CONSTANTS) or isinstance(v, torch.Tensor):
            return self.b.const(v, "K")
        var = self._memo.get(id(v))
        if var is not None:
            return var
        entry = self.outside.get(id(v))
        if entry is not None:
            try:
                return self.b.fetch(entry[1])
            except NotRefetchable:
                return self.b.const(v, "K")  # an object that existed before the call: that object
        if id(v) in self._busy:
            raise NotRebuildable(f"a {t.__qualname__} that contains itself")
        self._busy.add(id(v))
        try:
            if t is tuple:
                return "(" + "".join(self.expr(x) + ", " for x in v) + ")"
            if t is list:
                return self._define(v, "[" + ", ".join(self.expr(x) for x in v) + "]")
            if t is dict:
                return self._define(v, "{" + ", ".join(f"{self.expr(k)}: {self.expr(x)}" for k, x in v.items()) + "}")
            if not pytree.tree_is_leaf(v):
                children, spec = pytree.tree_flatten(v, is_leaf=lambda x: x is not v)
                items = ", ".join(self.expr(x) for x in children)
                return self._define(v, f"{self.b.const(spec, 'SPEC')}.unflatten([{items}])")
            return self._reduce(v)
        finally:
            self._busy.discard(id(v))

    def _define(self, v, expr: str) -> str:
        var = f"o{len(self._memo)}"
        self.b.lines.append(f"{var} = {expr}")
        self._memo[id(v)] = var
        self._keep.append(v)
        return var

    def _reduce(self, v) -> str:
        try:
            rv = v.__reduce_ex__(4)
        except Exception as e:  # noqa: BLE001 - objects that refuse copying say why
            raise NotRebuildable(f"{type(v).__qualname__} cannot be copied ({e})") from None
        if isinstance(rv, str):  # a global name: the object itself
            return self.b.const(v, "K")
        func, args, state, listitems, dictitems, setter = (*rv, None, None, None, None)[:6]
        call = f"{self.b.const(func, 'F')}({''.join(self.expr(a) + ', ' for a in args)})"
        var = self._define(v, call)
        lines = self.b.lines
        if state is not None:
            if setter is not None:
                lines.append(f"{self.b.const(setter, 'F')}({var}, {self.expr(state)})")
            else:
                lines.append(f"{self.b.const(setstate, 'F')}({var}, {self.expr(state)})")
        for x in listitems or ():
            lines.append(f"{var}.append({self.expr(x)})")
        for k, x in dictitems or ():
            lines.append(f"{var}[{self.expr(k)}] = {self.expr(x)}")
        return var
