"""Torch-level shape ops: views and reshapes, dim reordering, broadcasting, joining and
splitting, and element reordering (flip, roll, repeat, tril/triu, diagonal).

Each op's signature mirrors torch's; its body is the decomposition into the shape
primitives (``prims.reshape``, ``transpose``, ``slice``, ``squeeze``, ``cat``, ``flip``) and
``prims.broadcast_in_dim``. Ops taking ``*shape`` (``x.view(2, 3)``, ``torch.reshape(x,
(2, 3))``) are one symbol whose torch implementation calls the ``torch.Tensor`` method with
the sizes as one tuple (:func:`_as_tuple`). ``contiguous``, ``clone`` and ``detach`` have no decomposition: they produce a new tensor
(or drop autograd history), which no primitive expresses, so executors run them as they are.

Multi-output ops (split, chunk, unbind) always slice, even for a piece that is the whole
input: a decomposition may not return its own input next to new values.

Traits: views (``view``, ``permute``, ``expand``, ``split``, ``select``, ``diagonal``,
``detach``...) are ``"view"``; ops that copy elements to new positions (``cat``, ``stack``,
``flip``, ``roll``, ``repeat``, ``tril``/``triu``, ``clone``, ``contiguous``) are ``"shape"``;
``reshape``, ``reshape_as`` and ``flatten`` are both (eager copies when strides do not allow a
view).
"""

from __future__ import annotations

import math

import torch

from ..ir import NumberProxy, TensorProxy, TracingError, tensor_proxy
from ..ir.proxies import TENSOR_PROPERTIES
from ..ir.traits import SHAPE, VIEW
from . import prims
from .prims_shape import canonical_dim, canonical_dims, same_shape
from .registry import T, torch_op


# ---------------------------------------------------------------- helpers used by other families too

def reshaped(a: TensorProxy, shape) -> TensorProxy:
    """``prims.reshape(a)`` to ``shape``, or ``a`` itself when the shape is already that."""
    shape = tuple(shape)
    return a if same_shape(shape, a.shape) else prims.reshape(a, shape=shape)


def sliced(a: TensorProxy, dim: int, start: int, stop: int, step: int = 1) -> TensorProxy:
    """``a`` restricted to ``start:stop:step`` along the canonical ``dim`` (always a new value)."""
    lo, hi, st = [0] * a.ndim, list(a.shape), [1] * a.ndim
    lo[dim], hi[dim], st[dim] = start, stop, step
    return prims.slice(a, start_indices=lo, end_indices=hi, strides=st)


def infer_shape(numel: int, shape, what: str = "shape") -> tuple[int, ...]:
    """``shape`` with a ``-1`` entry resolved so it holds ``numel`` elements, as torch does."""
    # a symbolic size stays symbolic (its comparisons below are guarded predicates)
    shape = tuple(s if type(s) is NumberProxy else int(s) for s in shape)
    if shape.count(-1) > 1:
        raise RuntimeError("only one dimension can be inferred")
    bad = [s for s in shape if s < -1]
    if bad:
        raise RuntimeError(f"invalid shape dimension {bad[0]}")
    known = math.prod(s for s in shape if s != -1)
    if -1 in shape:
        if known == 0 or numel % known:
            raise RuntimeError(f"{what} '{list(shape)}' is invalid for input of size {numel}")
        shape = tuple(numel // known if s == -1 else s for s in shape)
    elif known != numel:
        raise RuntimeError(f"{what} '{list(shape)}' is invalid for input of size {numel}")
    return shape


def expanded(a: TensorProxy, shape) -> TensorProxy:
    """``a`` broadcast (torch rules, already checked) to ``shape``, or ``a`` if it has that shape."""
    shape = tuple(shape)
    if same_shape(shape, a.shape):
        return a
    lead = len(shape) - a.ndim
    return prims.broadcast_in_dim(a, shape=shape, broadcast_dimensions=tuple(range(lead, len(shape))))


def _as_tuple(method):
    """A torch implementation passing a ``*sizes`` parameter as one tuple. The registry
    normalises ``x.view((2, 3))`` to ``sizes=(2, 3)``, so ``x.view(())`` arrives as no sizes
    at all, which torch would reject; a tuple keeps its meaning."""
    def call(args, kwargs):
        if len(args) == 2 and isinstance(args[1], torch.dtype):  # x.view(dtype)
            return method(*args, **kwargs)
        return method(args[0], tuple(args[1:]), **kwargs)
    return call


# ---------------------------------------------------------------- views and reshapes

@torch_op(name="view_dtype", impl=lambda args, kwargs: args[0].view(kwargs["dtype"]), tags=("view",))
def view_dtype(input, *, dtype):
    """``x.view(dtype)``: the same bytes read as another dtype (no primitive expresses it)."""


@torch_op(torch.Tensor.view, method="view", impl=_as_tuple(torch.Tensor.view), tags=("view",))
def view(input, *shape):
    """``x.view(*shape)`` (``-1`` inferred) or ``x.view(dtype)``."""
    if len(shape) == 1 and isinstance(shape[0], torch.dtype):
        return view_dtype(input, dtype=shape[0])
    return reshaped(input, infer_shape(input.numel(), shape))


@torch_op(torch.Tensor.reshape, torch.reshape, method="reshape", impl=_as_tuple(torch.Tensor.reshape),
          tags=(VIEW, SHAPE))
def reshape(input, *shape):
    """``x.reshape(*shape)``, ``torch.reshape(x, shape)``."""
    return reshaped(input, infer_shape(input.numel(), shape))


@torch_op(torch.Tensor.view_as, inputs=("input", "other"), method="view_as", tags=("view",))
def view_as(input, other):
    return reshaped(input, infer_shape(input.numel(), other.shape))


@torch_op(torch.Tensor.reshape_as, inputs=("input", "other"), method="reshape_as", tags=(VIEW, SHAPE))
def reshape_as(input, other):
    return reshaped(input, infer_shape(input.numel(), other.shape))


@torch_op(torch.flatten, torch.Tensor.flatten, method="flatten", tags=(VIEW, SHAPE, "may-return-input"))
def flatten(input, start_dim=0, end_dim=-1):
    if input.ndim == 0:
        return reshaped(input, (1,))
    s, e = canonical_dim(input.ndim, start_dim), canonical_dim(input.ndim, end_dim)
    if s > e:
        raise RuntimeError("flatten() has invalid args: start_dim cannot come after end_dim")
    shape = input.shape
    return reshaped(input, shape[:s] + (math.prod(shape[s:e + 1]),) + shape[e + 1:])


@torch_op(torch.unflatten, torch.Tensor.unflatten, method="unflatten", tags=("view",))
def unflatten(input, dim, sizes):
    d = canonical_dim(input.ndim, dim)
    sizes = infer_shape(input.shape[d], sizes, "sizes")
    return reshaped(input, input.shape[:d] + sizes + input.shape[d + 1:])


@torch_op(torch.unsqueeze, torch.Tensor.unsqueeze, method="unsqueeze", tags=("view",))
def unsqueeze(input, dim):
    d = canonical_dim(input.ndim + 1, dim)
    return prims.reshape(input, shape=input.shape[:d] + (1,) + input.shape[d:])


@torch_op(torch.squeeze, torch.Tensor.squeeze, method="squeeze", tags=("view",))
def squeeze(input, dim=None):
    """Removes size-1 dims: all of them, or those of ``dim`` (an int or a tuple) that have size 1."""
    if dim is None:
        dims = range(input.ndim)
    else:
        dims = canonical_dims(input.ndim, dim if isinstance(dim, (tuple, list)) else (dim,))
        if input.ndim == 0:  # dims 0 and -1 are valid and change nothing
            return input
    dims = tuple(d for d in dims if input.shape[d] == 1)
    return prims.squeeze(input, dims=dims) if dims else input


# ---------------------------------------------------------------- dim reordering

def _permuted(a, perm):
    perm = tuple(perm)
    return a if perm == tuple(range(a.ndim)) else prims.transpose(a, permutation=perm)


@torch_op(torch.Tensor.permute, torch.permute, method="permute", impl=_as_tuple(torch.Tensor.permute), tags=("view",))
def permute(input, *dims):
    dims = canonical_dims(input.ndim, dims, what="permute dims")
    if len(dims) != input.ndim:
        raise RuntimeError(f"permute(): number of dimensions in the tensor input does not match the "
                           f"length of the desired ordering of dimensions i.e. input.dim() = {input.ndim} is not "
                           f"equal to len(dims) = {len(dims)}")
    return _permuted(input, dims)


def _swap(a, d0, d1):
    if a.ndim == 0:  # dims 0 and -1 are valid and change nothing
        for d in (d0, d1):
            canonical_dim(0, d)
        return a
    perm = list(range(a.ndim))
    d0, d1 = canonical_dim(a.ndim, d0), canonical_dim(a.ndim, d1)
    perm[d0], perm[d1] = perm[d1], perm[d0]
    return _permuted(a, perm)


@torch_op(torch.transpose, torch.Tensor.transpose, method="transpose", tags=("view",))
def transpose(input, dim0, dim1):
    return _swap(input, dim0, dim1)


@torch_op(torch.swapaxes, torch.Tensor.swapaxes, method="swapaxes", tags=("view",))
def swapaxes(input, axis0, axis1):
    return _swap(input, axis0, axis1)


@torch_op(torch.swapdims, torch.Tensor.swapdims, method="swapdims", tags=("view",))
def swapdims(input, dim0, dim1):
    return _swap(input, dim0, dim1)


@torch_op(torch.t, torch.Tensor.t, method="t", tags=("view",))
def t(input):
    if input.ndim > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {input.ndim}D")
    return _swap(input, 0, 1) if input.ndim == 2 else input


def _conj(a):
    return T.conj(a) if a.dtype.is_complex else a


def _matrices(a, what, exactly_2d=False):
    if a.ndim == 1 or (exactly_2d and a.ndim > 2):
        kind = "matrices (2-D tensors)" if exactly_2d else "matrices or batches of matrices"
        hint = ". For batches of matrices, consider using tensor.mH" if exactly_2d and a.ndim > 2 else "."
        raise RuntimeError(f"tensor.{what} is only supported on {kind}. Got {a.ndim}-D tensor{hint}")


# The properties `t.T`, `t.mT`, `t.H`, `t.mH` (no torch function of their own: the torch
# executor runs the property).
@torch_op(name="T", impl=lambda a, k: a[0].T, tags=("view",))
def T_(input):
    """All dims reversed (``t.T``)."""
    return _permuted(input, tuple(range(input.ndim))[::-1])


@torch_op(name="mT", impl=lambda a, k: a[0].mT, tags=("view",))
def mT(input):
    """The last two dims swapped (``t.mT``)."""
    _matrices(input, "mT")
    return _swap(input, -2, -1) if input.ndim else input


@torch_op(name="H", impl=lambda a, k: a[0].H, tags=("view",))
def H(input):
    """The conjugate transpose of a matrix (``t.H``)."""
    _matrices(input, "H", exactly_2d=True)
    return _conj(_swap(input, 0, 1) if input.ndim else input)


@torch_op(name="mH", impl=lambda a, k: a[0].mH, tags=("view",))
def mH(input):
    """The conjugate transpose of (a batch of) matrices (``t.mH``)."""
    _matrices(input, "mH")
    return _conj(_swap(input, -2, -1) if input.ndim else input)


TENSOR_PROPERTIES.update(T=T_, mT=mT, H=H, mH=mH)
TENSOR_PROPERTIES["layout"] = lambda p: torch.strided  # traced tensors are dense (strided) tensors


@torch_op(torch.movedim, torch.Tensor.movedim, torch.moveaxis, torch.Tensor.moveaxis, method=("movedim", "moveaxis"), tags=("view",))
def movedim(input, source, destination):
    src = canonical_dims(input.ndim, source if isinstance(source, (tuple, list)) else (source,), what="movedim source")
    dst = canonical_dims(input.ndim, destination if isinstance(destination, (tuple, list)) else (destination,),
                         what="movedim destination")
    if len(src) != len(dst):
        raise RuntimeError(f"movedim: Invalid source or destination dims: source ({list(src)} dims) should "
                           f"contain the same number of dims as destination ({list(dst)} dims)")
    perm = [None] * input.ndim
    for s, d in zip(src, dst):
        perm[d] = s
    rest = iter(i for i in range(input.ndim) if i not in src)
    return _permuted(input, [p if p is not None else next(rest) for p in perm])


# ---------------------------------------------------------------- new tensors and autograd (no decomposition)

def _same_shape(input, *args, **kwargs):
    """Meta of ops whose result has the input's metadata (a symbolic shape stays symbolic)."""
    return tensor_proxy(input.shape, input.dtype, input.device, input.requires_grad)


def _detached(input):
    return tensor_proxy(input.shape, input.dtype, input.device, False)


@torch_op(torch.Tensor.contiguous, method="contiguous", tags=(SHAPE, "may-return-input"), meta=_same_shape)
def contiguous(input, memory_format=torch.contiguous_format):
    """The same values in a contiguous layout (the input itself if already contiguous)."""


@torch_op(torch.clone, torch.Tensor.clone, method="clone", tags=(SHAPE,), meta=_same_shape)
def clone(input, *, memory_format=torch.preserve_format):
    """A copy that no later in-place op on ``input`` can change."""


@torch_op(torch.detach, torch.Tensor.detach, method="detach", tags=("view",), meta=_detached)
def detach(input):
    """The same values, cut from autograd (``requires_grad`` False)."""


# ---------------------------------------------------------------- broadcasting

def _expand_shape(a, sizes) -> tuple[int, ...]:
    sizes = tuple(sizes)
    lead = len(sizes) - a.ndim
    if lead < 0:
        raise RuntimeError(f"expand({a.dtype}{{{list(a.shape)}}}, size={list(sizes)}): the number of sizes provided "
                           f"({len(sizes)}) must be greater or equal to the number of dimensions in the tensor "
                           f"({a.ndim})")
    out = []
    for i, s in enumerate(sizes):
        if i < lead:
            if s < 0:
                raise RuntimeError(f"The expanded size of the tensor ({s}) isn't allowed in a leading, "
                                   "non-existing dimension " + str(i))
            out.append(s)
            continue
        n = a.shape[i - lead]
        if s == -1:
            s = n
        if n != s and n != 1:
            raise RuntimeError(f"The expanded size of the tensor ({s}) must match the existing size ({n}) at "
                               f"non-singleton dimension {i}.  Target sizes: {list(sizes)}.  Tensor sizes: "
                               f"{list(a.shape)}")
        out.append(s)
    return tuple(out)


@torch_op(torch.Tensor.expand, method="expand", impl=_as_tuple(torch.Tensor.expand), tags=("view",))
def expand(input, *size, implicit=False):
    return expanded(input, _expand_shape(input, size))


@torch_op(torch.Tensor.expand_as, inputs=("input", "other"), method="expand_as", tags=("view",))
def expand_as(input, other):
    return expanded(input, _expand_shape(input, other.shape))


@torch_op(torch.broadcast_to, torch.Tensor.broadcast_to, method="broadcast_to", tags=("view",))
def broadcast_to(input, size):
    return expanded(input, _expand_shape(input, size))


# ---------------------------------------------------------------- joining

def _joined(tensors, dim, what):
    tensors = list(tensors)
    if not tensors:
        raise RuntimeError(f"{what}(): expected a non-empty list of Tensors")
    # torch's legacy rule: 1-D empty tensors are skipped when joining tensors of higher rank
    kept = [t for t in tensors if not (t.ndim == 1 and t.shape[0] == 0)] or tensors[:1]
    first = kept[0]
    if first.ndim == 0:
        position = next(i for i, t in enumerate(tensors) if t is first)
        raise RuntimeError(f"zero-dimensional tensor (at position {position}) cannot be concatenated")
    d = canonical_dim(first.ndim, dim)
    dtype = first.dtype
    for t in tensors:  # skipped tensors still take part in type promotion
        dtype = torch.promote_types(dtype, t.dtype)
    for t in kept[1:]:
        if t.ndim != first.ndim or any(s != u for i, (s, u) in enumerate(zip(t.shape, first.shape)) if i != d):
            raise RuntimeError(f"Sizes of tensors must match except in dimension {d}. Expected size "
                               f"{list(first.shape)} but got size {list(t.shape)} for a tensor in the list.")
        if t.device != first.device:
            raise RuntimeError(f"Expected all tensors to be on the same device, but found {first.device} and "
                               f"{t.device}")
    kept = [t if t.dtype == dtype else prims.convert_element_type(t, dtype=dtype) for t in kept]
    return prims.cat(kept, dim=d)


@torch_op(torch.cat, torch.concat, inputs=("tensors",), tags=(SHAPE,))
def cat(tensors, dim=0):
    return _joined(tensors, dim, "torch.cat")


@torch_op(torch.concatenate, inputs=("tensors",), tags=(SHAPE,))
def concatenate(tensors, dim=0):  # (torch's name; `axis` is NumPy's, taken as for every op: registry.NUMPY_NAMES)
    return _joined(tensors, dim, "torch.concatenate")


@torch_op(torch.stack, inputs=("tensors",), tags=(SHAPE,))
def stack(tensors, dim=0):
    tensors = list(tensors)
    if not tensors:
        raise RuntimeError("stack expects a non-empty TensorList")
    for i, t in enumerate(tensors):
        if t.shape != tensors[0].shape:
            raise RuntimeError(f"stack expects each tensor to be equal size, but got {list(tensors[0].shape)} at "
                               f"entry 0 and {list(t.shape)} at entry {i}")
    d = canonical_dim(tensors[0].ndim + 1, dim)
    return _joined([unsqueeze(t, d) for t in tensors], d, "torch.stack")


@torch_op(torch.hstack, inputs=("tensors",), tags=(SHAPE,))
def hstack(tensors):
    tensors = [reshaped(t, (1,)) if t.ndim == 0 else t for t in tensors]
    return _joined(tensors, 0 if tensors and tensors[0].ndim == 1 else 1, "torch.hstack")


@torch_op(torch.vstack, torch.row_stack, inputs=("tensors",), tags=(SHAPE,))
def vstack(tensors):
    return _joined([reshaped(t, (1, t.numel())) if t.ndim < 2 else t for t in tensors], 0, "torch.vstack")


# ---------------------------------------------------------------- splitting

def _pieces(a, dim, sizes):
    d = canonical_dim(a.ndim, dim)
    out, start = [], 0
    for s in sizes:
        out.append(sliced(a, d, start, start + s))
        start += s
    return tuple(out)


def _split_sizes(a, split_size_or_sections, dim):
    if a.ndim == 0:
        raise RuntimeError("split expects at least a 1-dimensional tensor")
    n = a.shape[canonical_dim(a.ndim, dim)]
    if isinstance(split_size_or_sections, int):
        s = split_size_or_sections
        if s < 0 or (s == 0 and n > 0):
            raise RuntimeError(f"split_size can only be 0 if dimension size is 0, but got dimension size of {n}")
        return [s] * (n // s) + ([n % s] if n % s else []) if n else [0]
    sizes = list(split_size_or_sections)
    if sum(sizes) != n or any(s < 0 for s in sizes):
        raise RuntimeError(f"split_with_sizes expects split_sizes to sum exactly to {n} (input tensor's size at "
                           f"dimension {dim}), but got split_sizes={sizes}")
    return sizes


@torch_op(torch.split, torch.Tensor.split, inputs=("tensor",), method="split", tags=("view",))
def split(tensor, split_size_or_sections, dim=0):
    """Pieces of ``split_size_or_sections`` elements (an int: equal pieces, the last may be
    smaller; a list: those sizes) along ``dim``."""
    return _pieces(tensor, dim, _split_sizes(tensor, split_size_or_sections, dim))


@torch_op(torch.split_with_sizes, torch.Tensor.split_with_sizes, method="split_with_sizes", tags=("view",))
def split_with_sizes(input, split_sizes, dim=0):
    return _pieces(input, dim, _split_sizes(input, list(split_sizes), dim))


@torch_op(torch.tensor_split, torch.Tensor.tensor_split, method="tensor_split", tags=("view",),
          values=("indices_or_sections",), impl=lambda a, k: torch.tensor_split(*a, **k))  # torch names it per overload
def tensor_split(input, indices_or_sections, dim=0):
    """Pieces along ``dim``: ``sections`` nearly equal ones (the first ``size % sections`` one
    longer), or the slices between ``indices`` (clamped like ``at::slice``). A tensor of
    indices is read by value (an input's contents are guarded; see ``values=``)."""
    if input.ndim == 0:
        raise RuntimeError("tensor_split expected at least a 1-dimensional tensor, but got a tensor with 0 dims")
    d = canonical_dim(input.ndim, dim)
    n = input.shape[d]
    if isinstance(indices_or_sections, int):
        sections = indices_or_sections
        if sections <= 0:
            raise RuntimeError(f"number of sections must be larger than 0, got {sections}")
        size, extra = divmod(n, sections)
        bounds, start = [], 0
        for i in range(sections):
            stop = start + size + (1 if i < extra else 0)
            bounds.append((start, stop))
            start = stop
    else:
        def clamp(i):
            i = i + n if i < 0 else i
            return min(max(i, 0), n)
        bounds, start = [], 0
        for i in indices_or_sections:
            stop = clamp(i)
            bounds.append((start, max(start, stop)))
            start = stop
        bounds.append((start, max(start, n)))
    return tuple(sliced(input, d, a, b) for a, b in bounds)


@torch_op(torch.chunk, torch.Tensor.chunk, method="chunk", tags=("view",))
def chunk(input, chunks, dim=0):
    if input.ndim == 0:
        raise RuntimeError("chunk expects at least a 1-dimensional tensor")
    if chunks <= 0:
        raise RuntimeError(f"chunk expects `chunks` to be greater than 0, got: {chunks}")
    n = input.shape[canonical_dim(input.ndim, dim)]
    size = -(-n // chunks)
    return _pieces(input, dim, [0] * chunks if n == 0 else _split_sizes(input, size, dim))


def _select(a, dim, index):
    if a.ndim == 0:
        raise IndexError("select() cannot be applied to a 0-dim tensor.")
    d = canonical_dim(a.ndim, dim)
    n = a.shape[d]
    if not -n <= index < n:
        raise IndexError(f"select(): index {index} out of range for tensor of size {list(a.shape)} at dimension {d}")
    index %= n
    return prims.squeeze(sliced(a, d, index, index + 1), dims=(d,))


@torch_op(torch.unbind, torch.Tensor.unbind, method="unbind", tags=("view",))
def unbind(input, dim=0):
    if input.ndim == 0:
        raise IndexError("Dimension specified as 0 but tensor has no dimensions")
    d = canonical_dim(input.ndim, dim)
    return tuple(_select(input, d, i) for i in range(input.shape[d]))


@torch_op(torch.select, torch.Tensor.select, method="select", tags=("view",))
def select(input, dim, index):
    return _select(input, dim, index)


@torch_op(torch.narrow, torch.Tensor.narrow, method="narrow", tags=("view",), values=("start",))
def narrow(input, dim, start, length):
    d = canonical_dim(input.ndim, dim)
    n = input.shape[d]
    if not -n <= start <= n:
        raise IndexError(f"start out of range (expected to be in range of [{-n}, {n}], but got {start})")
    start = start + n if start < 0 else start
    if length < 0 or start + length > n:
        raise RuntimeError(f"start ({start}) + length ({length}) exceeds dimension size ({n}).")
    return sliced(input, d, start, start + length)


# ---------------------------------------------------------------- reordering and repeating elements

@torch_op(torch.Tensor.flip, torch.flip, method="flip", impl=_as_tuple(torch.Tensor.flip), tags=(SHAPE,))
def flip(input, *dims):
    dims = canonical_dims(input.ndim, dims, what="flip dims")
    return prims.flip(input, dims=dims) if dims and input.ndim else input


@torch_op(torch.roll, torch.Tensor.roll, method="roll", tags=(SHAPE,))
def roll(input, shifts, dims=None):
    if dims is None or dims == ():
        flat = roll(reshaped(input, (input.numel(),)), shifts if isinstance(shifts, int) else tuple(shifts), 0)
        return reshaped(flat, input.shape)
    shifts = (shifts,) if isinstance(shifts, int) else tuple(shifts)
    dims = (dims,) if isinstance(dims, int) else tuple(dims)
    if len(shifts) != len(dims):
        raise RuntimeError(f"shifts and dimensions must align. shifts: {len(shifts)}, dims:{len(dims)}")
    out = input
    for s, d in zip(shifts, dims):
        d = canonical_dim(input.ndim, d)
        n = input.shape[d]
        if n == 0 or s % n == 0:
            continue
        s %= n
        out = prims.cat([sliced(out, d, n - s, n), sliced(out, d, 0, n - s)], dim=d)
    return out


@torch_op(torch.Tensor.repeat, method="repeat", impl=_as_tuple(torch.Tensor.repeat), tags=(SHAPE,))
def repeat(input, *repeats):
    reps = tuple(repeats)
    k = len(reps)
    if k < input.ndim:
        raise RuntimeError("Number of dimensions of repeat dims can not be smaller than number of dimensions of "
                           "tensor")
    shape = (1,) * (k - input.ndim) + input.shape
    # input dim i becomes output dim 2i+1 of (r0, s0, r1, s1, ...); merging pairs gives r*s
    wide = tuple(x for r, s in zip(reps, shape) for x in (r, s))
    b = prims.broadcast_in_dim(input, shape=wide, broadcast_dimensions=tuple(
        2 * (i + k - input.ndim) + 1 for i in range(input.ndim)))
    return prims.reshape(b, shape=tuple(r * s for r, s in zip(reps, shape)))


@torch_op(torch.Tensor.tile, torch.tile, method="tile", impl=_as_tuple(torch.Tensor.tile), tags=(SHAPE,))
def tile(input, *dims):
    return repeat(input, (1,) * (input.ndim - len(dims)) + tuple(dims))


@torch_op(torch.repeat_interleave, torch.Tensor.repeat_interleave, method="repeat_interleave", tags=(SHAPE,))
def repeat_interleave(input, repeats, dim=None, *, output_size=None):
    """Each element repeated ``repeats`` (an int) times along ``dim`` (flattened when None)."""
    if isinstance(repeats, TensorProxy):
        raise TracingError("torch.repeat_interleave with tensor `repeats` has an output shape that depends on the "
                           "tensor's values, which are not known while tracing; pass an int.")
    a = reshaped(input, (input.numel(),)) if dim is None else input
    d = canonical_dim(a.ndim, 0 if dim is None else dim, wrap_scalar=False)
    shape = a.shape[:d + 1] + (repeats,) + a.shape[d + 1:]
    b = prims.broadcast_in_dim(a, shape=shape, broadcast_dimensions=tuple(i + (i > d) for i in range(a.ndim)))
    return prims.reshape(b, shape=a.shape[:d] + (a.shape[d] * repeats,) + a.shape[d + 1:])


def _triangle(a, diagonal, lower, what):
    if a.ndim < 2:
        raise RuntimeError(f"{what}: input tensor must have at least 2 dimensions")
    m, n = a.shape[-2:]
    rows = prims.reshape(prims.iota(m, start=0, step=1, dtype=torch.int64, device=a.device), shape=(m, 1))
    cols = prims.iota(n, start=-diagonal, step=1, dtype=torch.int64, device=a.device)
    keep = (cols <= rows) if lower else (cols >= rows)  # column - diagonal vs row
    return T.where(keep, a, prims.full(0, shape=(), dtype=a.dtype, device=a.device))


@torch_op(torch.tril, torch.Tensor.tril, method="tril", tags=(SHAPE,))
def tril(input, diagonal=0):
    return _triangle(input, diagonal, True, "tril")


@torch_op(torch.triu, torch.Tensor.triu, method="triu", tags=(SHAPE,))
def triu(input, diagonal=0):
    return _triangle(input, diagonal, False, "triu")


@torch_op(torch.diagonal, torch.Tensor.diagonal, method="diagonal", tags=("view",))
def diagonal(input, offset=0, dim1=0, dim2=1):
    """The diagonal ``offset`` above (below, if negative) the main one of the ``dim1``/``dim2``
    planes, as a last dim: the block holding it, flattened, read with a stride of its side + 1."""
    if input.ndim < 2:
        raise RuntimeError(f"diagonal dimensions requires ndim larger than 1, got {input.ndim}")
    d1, d2 = canonical_dim(input.ndim, dim1), canonical_dim(input.ndim, dim2)
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    a = _permuted(input, [i for i in range(input.ndim) if i not in (d1, d2)] + [d1, d2])
    rows, cols = a.shape[-2:]
    r0, c0 = max(-offset, 0), max(offset, 0)
    k = max(min(rows - r0, cols - c0), 0)
    lead = a.shape[:-2]
    block = prims.slice(a, start_indices=(0,) * len(lead) + (min(r0, rows), min(c0, cols)),
                        end_indices=lead + (min(r0, rows) + k, min(c0, cols) + k))
    flat = prims.reshape(block, shape=lead + (k * k,))
    return sliced(flat, len(lead), 0, k * k, k + 1)
