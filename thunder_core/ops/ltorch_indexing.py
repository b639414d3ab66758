"""Torch-level indexing: ``x[index]``, ``x[index] = value``, index_select, gather, scatter,
scatter_add and take_along_dim.

``x[index]`` decomposes the way torch evaluates it: ints (and 0-d integer tensors, which
torch reads as ints) select and drop their dim first, slices and ``None``/``True`` make a view (``prims.slice`` then one ``prims.reshape``),
then advanced indices (integer tensors, lists of ints, ``False``) pick elements. One
advanced index becomes ``prims.take`` (negative positions wrapped with ``where``); several
advanced indices, which torch broadcasts together and may move to the front, are recorded
as one ``ltorch.index`` call that executors run as torch indexing. Boolean-tensor masks are
rejected: their result's shape depends on the mask's values.

``x[index] = value`` is the in-place ``ltorch.setitem`` (tag ``"inplace"``): it has no
output and no decomposition, and its torch implementation writes into the real tensor.

Traits: ``getitem`` is a ``"view"`` (what basic indexing gives; the tag also makes a
decomposition returning its input a view); ``setitem`` is ``"inplace"``. The others read or
write at positions held in an index tensor: ``"indexing"`` (``"shape"`` ops move data to
positions fixed by static arguments); ``setitem_out`` has no trait (PyTorch differentiates it).
"""

from __future__ import annotations

import operator

import torch

from ..ir import NumberProxy, TensorProxy, TracingError, tensor_proxy
from ..ir.traits import INDEXING
from . import prims
from .ltorch_shape import expanded, reshaped
from .prims_shape import broadcast_shapes, canonical_dim
from .registry import T, fake_meta, torch_op

_INDEX_TYPES = "only integers, slices (`:`), ellipsis (`...`), None and long or byte Variables are valid indices"


def _static_index(index):
    """``index`` with what fake tensors cannot index by (0-d integer tensors, which torch reads
    as ints, and lists of bools) replaced by Python ints of the same effect on the shape."""
    if type(index) is tuple:
        return tuple(_static_index(e) for e in index)
    if isinstance(index, TensorProxy) and index.ndim == 0 and index.dtype not in (torch.bool, torch.uint8):
        return 0
    if isinstance(index, list) and index and all(isinstance(b, bool) for b in index):
        return [i for i, b in enumerate(index) if b]
    return index


def _slice_bounds(start, stop, n):
    """``slice(start, stop, step).indices(n)[:2]`` for a positive step, in Python so that a
    symbolic size or bound stays symbolic (each comparison a guarded predicate, or decided by
    the size's lower bound)."""
    def clamp(i, default):
        if i is None:
            return default
        if type(i) is not NumberProxy:
            i = operator.index(i)
        if i < 0:
            i = i + n
            return 0 if i < 0 else i
        return n if i > n else i

    return clamp(start, 0), clamp(stop, n)


_fake_getitem = fake_meta(lambda pos, kw: pos[0][pos[1]])
_fake_setitem = fake_meta(lambda pos, kw: pos[0].__setitem__(pos[1], pos[2]))


def _getitem_meta(input, index):
    return _fake_getitem(input, _static_index(index))


def _index_meta(input, index):
    """``input[index]`` with several advanced indices, as torch shapes it (after ints, slices
    and None): the indices broadcast together, in place of their dims when those are adjacent,
    else in front. Sizes stay symbolic (no fake-tensor run)."""
    _, _, _, view, advanced, selects = _plan(input, index if type(index) is tuple else (index,))
    for p, _ in reversed(selects):  # 0-d index tensors take one position and drop the dim
        del view[p]
        advanced = [(q - (q > p), i) for q, i in advanced]
    pos = [q for q, _ in advanced]
    shape = list(broadcast_shapes(*(i.shape if isinstance(i, TensorProxy) else _list_shape(i) for _, i in advanced),
                                  name="index"))
    if pos == list(range(pos[0], pos[0] + len(pos))):
        out = view[:pos[0]] + shape + view[pos[-1] + 1:]
    else:
        out = shape + [n for k, n in enumerate(view) if k not in pos]
    return tensor_proxy(out, input.dtype, input.device, input.requires_grad)


def _list_shape(x) -> tuple:
    """The shape of nested lists of ints."""
    shape = []
    while isinstance(x, list):
        shape.append(len(x))
        x = x[0] if x else None
    return tuple(shape)


def _setitem_meta(input, index, value):
    return _fake_setitem(input, _static_index(index), value)


@torch_op(name="index", inputs=("input", "index"), impl=lambda args, kwargs: args[0][args[1]],
          meta=_index_meta, tags=(INDEXING,))
def advanced_index(input, index):
    """Advanced indexing with several index tensors (no decomposition): ``input[index]``."""


def _constant_index(entry, n: int, where: str):
    """A list index as nested lists of non-negative ints (a 1-D bool list as the positions it selects)."""
    if all(isinstance(x, bool) for x in entry) and entry:
        if len(entry) != n:
            raise IndexError(f"The shape of the mask [{len(entry)}] at index {where} does not match the shape of the "
                             f"indexed tensor [{n}] at index {where}")
        return [i for i, b in enumerate(entry) if b]

    def norm(x):
        if isinstance(x, (list, tuple)):
            return [norm(y) for y in x]
        if isinstance(x, bool) or not isinstance(x, int):
            raise IndexError(f"{_INDEX_TYPES} (a list index holds {type(x).__name__})")
        if not -n <= x < n:
            raise IndexError(f"index {x} is out of bounds for dimension {where} with size {n}")
        return x % n
    return norm(list(entry))


def _plan(a: TensorProxy, entries):
    """What ``a[entries]``'s ints, slices, None and bools do, computed without recording ops:
    ``(lo, hi, st, view, advanced, selects)``: the slice bounds per dim, the shape of the view
    after them, ``[(dim of view, advanced index)]`` and ``[(dim of view, 0-d index tensor)]``."""
    consumed = sum(e.ndim if isinstance(e, TensorProxy) and e.dtype in (torch.bool, torch.uint8)
                   else 0 if e is None or isinstance(e, bool) or e is Ellipsis else 1 for e in entries)
    if sum(e is Ellipsis for e in entries) > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    if consumed > a.ndim:
        raise IndexError(f"too many indices for tensor of dimension {a.ndim}")
    lo, hi, st = [0] * a.ndim, list(a.shape), [1] * a.ndim
    view, advanced, selects, d = [], [], [], 0
    for e in entries:
        if e is Ellipsis:
            view += a.shape[d:d + a.ndim - consumed]
            d += a.ndim - consumed
        elif e is None or e is True:
            view.append(1)
        elif e is False:  # torch: a new dim indexed by an empty index tensor
            view.append(1)
            advanced.append((len(view) - 1, []))
        elif isinstance(e, NumberProxy) or (isinstance(e, int) and not isinstance(e, bool)):
            n, i = a.shape[d], operator.index(e)  # a symbolic index specialises, guarded
            if not -n <= i < n:
                raise IndexError(f"index {i} is out of bounds for dimension {d} with size {n}")
            lo[d], hi[d] = i % n, i % n + 1
            d += 1
        elif isinstance(e, slice):
            step = 1 if e.step is None else e.step
            if step <= 0:
                raise ValueError("step must be greater than zero")
            start, stop = _slice_bounds(e.start, e.stop, a.shape[d])
            lo[d], hi[d], st[d] = start, max(start, stop), step
            view.append((hi[d] - lo[d] + step - 1) // step)
            d += 1
        elif isinstance(e, TensorProxy) and e.ndim == 0 and e.dtype not in (torch.bool, torch.uint8):
            view.append(a.shape[d])  # torch selects with its value, like an int
            selects.append((len(view) - 1, e))
            d += 1
        elif isinstance(e, TensorProxy):
            if e.dtype in (torch.bool, torch.uint8):
                raise TracingError(
                    f"Indexing with the boolean mask {e.name} gives a result whose shape depends on the mask's "
                    f"values, which are not known while tracing. Use torch.where(mask, x, other) to keep the shape, "
                    f"or index outside the jitted function.")
            if e.dtype.is_floating_point or e.dtype.is_complex:
                raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
            view.append(a.shape[d])
            advanced.append((len(view) - 1, e))
            d += 1
        elif isinstance(e, (list, tuple)):
            view.append(a.shape[d])
            advanced.append((len(view) - 1, _constant_index(e, a.shape[d], str(d))))
            d += 1
        else:
            raise IndexError(f"{_INDEX_TYPES} (got {type(e).__name__})")
    view += a.shape[d:]
    return lo, hi, st, view, advanced, selects


def _basic(a: TensorProxy, entries):
    """Applies ints, slices, None and bools; returns (view, [(dim of view, advanced index)])."""
    lo, hi, st, view, advanced, selects = _plan(a, entries)
    if lo != [0] * a.ndim or hi != list(a.shape) or st != [1] * a.ndim:
        a = prims.slice(a, start_indices=lo, end_indices=hi, strides=st)
    a = reshaped(a, view)
    for p, idx in reversed(selects):  # 0-d index tensors take one position and drop the dim
        a = _taken(a, p, idx)
        advanced = [(q - (q > p), i) for q, i in advanced]
    return a, advanced


def _taken(a, d, idx):
    """``prims.take`` along ``d`` at the positions ``idx`` (negative ones wrapped), idx's dims in place of d."""
    n = a.shape[d]
    if isinstance(idx, list):
        idx = T.tensor(idx, dtype=torch.int64, device=a.device) if idx else \
            prims.full(0, shape=(0,), dtype=torch.int64, device=a.device)
    else:
        idx = T.where(idx < 0, idx + n, idx)
    out = prims.take(a, reshaped(idx, (idx.numel(),)), dim=d)
    return reshaped(out, a.shape[:d] + idx.shape + a.shape[d + 1:])


@torch_op(torch.Tensor.__getitem__, inputs=("input", "index"), method="__getitem__", name="getitem",
          meta=_getitem_meta, tags=("view",))
def getitem(input, index):
    """``input[index]``; see the module docstring."""
    entries = index if type(index) is tuple else (index,)
    view, advanced = _basic(input, entries)
    if not advanced:
        return view
    if len(advanced) > 1:
        return advanced_index(input, index)
    return _taken(view, *advanced[0])


@torch_op(torch.Tensor.__setitem__, inputs=("input", "index", "value"), method="__setitem__", name="setitem",
          tags=("inplace",), meta=_setitem_meta)
def setitem(input, index, value):
    """``input[index] = value``, in place; no output (see the module docstring)."""


def _setitem_out_impl(args, kwargs):
    input, index, value = args
    out = input.clone()
    out[index] = value
    return out


def _setitem_out_meta(input, index, value):
    grad = input.requires_grad or (isinstance(value, TensorProxy) and value.requires_grad)
    return tensor_proxy(input.shape, input.dtype, input.device, grad)


@torch_op(name="setitem_out", inputs=("input", "index", "value"), impl=_setitem_out_impl, meta=_setitem_out_meta)
def setitem_out(input, index, value):
    """A copy of ``input`` with ``input[index] = value`` applied: setitem's functional form,
    which autograd records in its place (differentiated by PyTorch for this op)."""


@torch_op(torch.index_select, torch.Tensor.index_select, inputs=("input", "index"), method="index_select",
          tags=(INDEXING,))
def index_select(input, dim, index):
    if index.ndim > 1:
        raise IndexError("index_select(): Index is supposed to be a vector")
    d = canonical_dim(input.ndim, dim)
    a = reshaped(input, (1,)) if input.ndim == 0 else input
    out = prims.take(a, reshaped(index, (index.numel(),)), dim=d)
    return reshaped(out, ()) if input.ndim == 0 else out


def _gathered(a, d, index):
    if a.ndim <= 1 and index.ndim <= 1:  # torch lets 0-d and 1-d tensors mix here
        flat = prims.gather(reshaped(a, (a.numel(),)), reshaped(index, (index.numel(),)), dim=0)
        return reshaped(flat, index.shape)
    return prims.gather(a, index, dim=d)


@torch_op(torch.gather, torch.Tensor.gather, inputs=("input", "index"), method="gather", tags=(INDEXING,))
def gather(input, dim, index, *, sparse_grad=False):
    d = canonical_dim(input.ndim, dim)
    if index.ndim != input.ndim and not (index.ndim <= 1 and input.ndim <= 1):
        raise RuntimeError("Index tensor must have the same number of dimensions as input tensor")
    return _gathered(input, d, index)


@torch_op(torch.take_along_dim, torch.Tensor.take_along_dim, inputs=("input", "indices"), method="take_along_dim",
          tags=(INDEXING,))
def take_along_dim(input, indices, dim=None):
    if dim is None:
        return prims.gather(reshaped(input, (input.numel(),)), reshaped(indices, (indices.numel(),)), dim=0)
    if input.ndim != indices.ndim:
        raise RuntimeError("torch.take_along_dim(): input and indices should have the same number of dimensions, "
                           f"but got {input.ndim} dimensions for input, and {indices.ndim} dimensions for indices")
    d = canonical_dim(input.ndim, dim)
    shape = list(input.shape)
    shape[d] = indices.shape[d]
    shape = list(torch.broadcast_shapes(tuple(shape), indices.shape))
    idx = expanded(indices, shape)
    shape[d] = input.shape[d]
    return _gathered(expanded(input, shape), d, idx)


def _scatter_call(args, kwargs):
    return torch.scatter(*args, **kwargs)


@torch_op(torch.scatter, torch.Tensor.scatter, inputs=("input", "index", "src"), method="scatter",
          impl=_scatter_call, tags=(INDEXING,))
def scatter(input, dim, index, src, *, reduce=None):
    """A copy of ``input`` with ``src`` (a tensor, or a number for every position) written at
    ``index`` along ``dim``; no decomposition: which of several writes to one position wins
    is up to the kernel."""


@torch_op(torch.scatter_add, torch.Tensor.scatter_add, inputs=("input", "index", "src"), method="scatter_add",
          tags=(INDEXING,))
def scatter_add(input, dim, index, src):
    d = canonical_dim(input.ndim, dim)
    if input.ndim == 0:  # a 0-d tensor holds one position
        flat = [reshaped(t, (t.numel(),)) for t in (input, index, src)]
        return reshaped(prims.scatter_add(*flat, dim=0), ())
    return prims.scatter_add(input, index, src, dim=d)
