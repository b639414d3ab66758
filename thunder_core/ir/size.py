"""A traced tensor's shape: a tuple that the program sees as a ``torch.Size``.

``TensorProxy.shape`` and ``.size()`` are a :class:`Size`: a tuple of ints and symbolic
sizes (``NumberProxy``) that behaves like eager's ``torch.Size``: ``isinstance(s,
torch.Size)``, ``s.__class__`` and ``type(s)`` (through the jit's lookaside for ``type``) say
``torch.Size``; slicing, ``+`` and ``*`` give a ``Size``; ``s.numel()`` is the product (a
symbolic number when a size is symbolic); ``repr``/``str`` print ``torch.Size([2, 3])`` with
the numbers of this call (a symbolic size printed is specialised, i.e. guarded, like
``str(n)``). A plain tuple there made Mamba's ``shape.numel()`` fail and, silently, made
``isinstance(x.shape, torch.Size)`` false while tracing, and ``print(x.shape)`` print
``(3, 4)``.

A trace holds no ``Size``: a symbol's arguments are plain tuples (``plain``; ir/symbol.py
applies it to every call), so printing, renaming and the passes see the tuples they always
did. Nor does it hold NumPy scalars: torch's argument parser takes ``np.float64(2.0)`` (HF
CTRL scales by ``np.sqrt(d)``) or ``np.int64(3)`` as the Python number it holds, and so does
``plain``.
"""

from __future__ import annotations

import functools

import torch

try:
    import numpy as _np

    _NUMPY_SCALARS = frozenset(t for t in _np.sctypeDict.values() if issubclass(t, (_np.number, _np.bool_)))
except ImportError:  # (torch runs without numpy; then no numpy scalar can reach an op)
    _NUMPY_SCALARS = frozenset()

__all__ = ["Size", "plain", "plain_kwargs", "textual"]


class Size(tuple):
    """A traced tensor's shape (see the module docstring)."""

    __slots__ = ()

    @property
    def __class__(self):  # noqa: F811 - deliberately what eager's shape reports
        return torch.Size

    def __getitem__(self, i):
        r = tuple.__getitem__(self, i)
        return Size(r) if type(i) is slice else r

    def __add__(self, other):
        if not isinstance(other, tuple):
            return NotImplemented
        return Size(tuple.__add__(self, other))

    def __radd__(self, other):
        if not isinstance(other, tuple):
            return NotImplemented
        return Size(tuple.__add__(other, self))

    def __mul__(self, n):
        r = tuple.__mul__(self, n)
        return r if r is NotImplemented else Size(r)

    __rmul__ = __mul__

    def numel(self):
        """The number of elements of a tensor of this shape."""
        n = 1
        for d in self:
            n = n * d
        return n

    def __repr__(self) -> str:
        # str(d): a symbolic size's number (guarded), as eager prints it; its trace name would
        # be baked into a string the program prints or keeps
        return f"torch.Size([{', '.join(str(d) for d in self)}])"

    def __reduce__(self):
        return torch.Size, (tuple(self),)


#: the types ``plain`` changes
_NOT_PLAIN = frozenset({Size, *_NUMPY_SCALARS})


def plain(values):
    """``values`` (a call's positional arguments) with each ``Size`` among them, or in a tuple
    or list among them, a plain tuple; ``values`` itself (same object) when there is none. One
    level of nesting: shapes reach ops as arguments (``x.view(s)``, ``torch.zeros(s)``) or in
    an argument's list (``x.view([*s])`` unpacks)."""
    for v in values:
        if _not_plain(v):
            return type(values)(_plain(v) for v in values)
    return values


def plain_kwargs(kwargs: dict) -> dict:
    """:func:`plain` for keyword arguments: ``kwargs`` itself when no value holds a ``Size``."""
    for v in kwargs.values():
        if _not_plain(v):
            return {k: _plain(v) for k, v in kwargs.items()}
    return kwargs


def _not_plain(v) -> bool:
    t = type(v)
    return t in _NOT_PLAIN or ((t is tuple or t is list) and any(type(w) in _NOT_PLAIN for w in v))


def _plain(v):
    t = type(v)
    if t is Size:
        return tuple(v)
    if t in _NUMPY_SCALARS:
        return v.item()
    if t is tuple or t is list:  # (a copy only when it holds one of them)
        return t(_plain(w) for w in v) if any(type(w) in _NOT_PLAIN for w in v) else v
    return v


def textual(v):
    """``v`` as ``str``/``repr``/``format``/``%`` in the program see it while tracing: each
    symbolic number in it (alone, or in tuples, lists, dicts, sets and shapes, nested) replaced
    by its number, guarded like ``str(n)`` (``NumberProxy.specialize``); a shape becomes a
    ``torch.Size``. ``v`` itself when it holds none. ``repr((n, 1))`` would otherwise bake the
    trace name ``(x_0, 1)`` into the string, since a tuple's repr calls its items' repr in C."""
    t = type(v)
    if t is _number_proxy():
        return v if v.value is None and v.hint is None else v.specialize()
    if t is Size:
        return torch.Size([textual(d) for d in v])
    if t is tuple or t is list or t is set or t is frozenset:
        items = [textual(x) for x in v]
        return v if all(a is b for a, b in zip(items, v)) else t(items)
    if t is dict:
        items = {k: textual(x) for k, x in v.items()}
        return v if all(items[k] is x for k, x in v.items()) else items
    return v


@functools.cache
def _number_proxy():
    from .proxies import NumberProxy  # (proxies imports this module: imported on first use)

    return NumberProxy
