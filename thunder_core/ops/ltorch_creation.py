"""Torch-level creation ops: arange, linspace, eye, full/zeros/ones/empty and their
``_like`` forms, torch.tensor, and the random ones (rand, randn, randint, their ``_like``
forms, normal, bernoulli, multinomial).

Decompositions resolve torch's defaults at trace time: the dtype (``torch.get_default_dtype()``,
which the prologue guards, or the one torch infers from the numbers) and the device
(``torch.get_default_device()``, normally cpu), so the primitives they record are explicit.
``requires_grad=True`` is applied with ``Tensor.requires_grad_`` on the created tensor.

Traits: every op here is ``"creation"`` (a fresh tensor from metadata and static arguments),
except ``normal`` and ``bernoulli`` (``"elementwise"``: each sample follows the same-index
element of the mean/std or probability tensors) and ``multinomial`` (only ``"random"``: it
draws indices per row). Random ops are tagged ``"random"``; their decompositions use ``prims.uniform``/``normal``/
``randint``, which draw from torch's global generator exactly as eager does, so the same
``torch.manual_seed`` gives the same values. ``bernoulli`` and ``multinomial`` have no
decomposition (torch's kernels consume random numbers in their own ways). An explicit
``generator=`` cannot be traced and is rejected.
"""

from __future__ import annotations

import math

import torch

from ..ir import NumberProxy, TensorProxy, TracingError, flat_proxies
from ..ir.traits import CREATION, ELEMENTWISE, RANDOM
from . import prims
from .registry import T, fake_meta, torch_op


def _device(device) -> torch.device:
    return torch.get_default_device() if device is None else torch.device(device)


def _float_dtype(dtype) -> torch.dtype:
    return torch.get_default_dtype() if dtype is None else dtype


def _converted(a, dtype):
    return a if a.dtype == dtype else prims.convert_element_type(a, dtype=dtype)


def _finish(out, requires_grad):
    return out.requires_grad_() if requires_grad else out


def _no_generator(generator, what):
    if generator is not None:
        raise TracingError(f"{what}(generator=...): an explicit torch.Generator cannot be traced. Seed torch's global "
                           f"generator with torch.manual_seed instead, or call {what} outside the jitted function.")


def _number_dtype(x) -> torch.dtype:
    """The dtype torch infers for a tensor filled with the Python number ``x``."""
    if isinstance(x, bool):
        return torch.bool
    if isinstance(x, int):
        return torch.int64
    if isinstance(x, complex):
        return torch.complex128 if torch.get_default_dtype() == torch.float64 else torch.complex64
    return torch.get_default_dtype()


def _full(shape, value, dtype, device, requires_grad):
    return _finish(prims.full(value, shape=tuple(shape), dtype=dtype, device=_device(device)), requires_grad)


# ---------------------------------------------------------------- ranges

def _arange_call(args, kwargs):
    start, end, step = args
    return torch.arange(0, start, step, **kwargs) if end is None else torch.arange(start, end, step, **kwargs)


@torch_op(torch.arange, inputs=(), impl=_arange_call, tags=(CREATION,))
def arange(start=0, end=None, step=1, *, dtype=None, layout=None, device=None, requires_grad=False,
           pin_memory=False):
    """``torch.arange(end)``, ``(start, end)`` or ``(start, end, step)``; the length and the
    values follow torch's own arithmetic (int64 or double)."""
    if end is None:
        start, end = 0, start
    is_int = all(isinstance(x, int) for x in (start, end, step))
    dtype = dtype or (torch.int64 if is_int else torch.get_default_dtype())
    if not (dtype.is_floating_point or dtype.is_complex):
        # torch converts each to the integer type (a symbolic int stays symbolic)
        start, end, step = (x if type(x) is NumberProxy and x.python_type is int else int(x) for x in (start, end, step))
    if step == 0:
        raise RuntimeError("step must be nonzero")
    if not ((step > 0 and end >= start) or (step < 0 and end <= start)):
        raise RuntimeError("upper bound and larger bound inconsistent with step sign")
    if dtype == torch.int64:  # torch's integer formula; C++ division truncates toward zero
        num = end - start + step - (1 if step > 0 else -1)
        n = abs(num) // abs(step) * (1 if (num >= 0) == (step > 0) else -1)
    else:
        n = math.ceil((float(end) - float(start)) / float(step))
    out = prims.iota(n, start=start, step=step, dtype=dtype, device=_device(device))
    return _finish(out, requires_grad)


@torch_op(torch.linspace, inputs=("start", "end"), tags=(CREATION,))
def linspace(start, end, steps, *, dtype=None, layout=None, device=None, requires_grad=False, pin_memory=False):
    """``steps`` evenly spaced values from ``start`` to ``end``, computed in float64 the way
    torch does: ``start + i * step`` in the first half, ``end - (steps - 1 - i) * step`` in the second.
    ``start``/``end`` may be 0-d tensors (torch reads their values; here they stay in the trace)."""
    dtype, device = _float_dtype(dtype), _device(device)
    if steps < 0:
        raise RuntimeError("number of steps must be non-negative")
    if isinstance(start, TensorProxy) or isinstance(end, TensorProxy):
        return _linspace_tensors(start, end, steps, dtype, device, requires_grad)
    if dtype.is_complex or isinstance(start, complex) or isinstance(end, complex):
        raise NotImplementedError("complex torch.linspace is not supported by thunder_core yet")
    if not dtype.is_floating_point:
        start, end = int(start), int(end)
    if steps <= 1:
        return _full((steps,), start, dtype, device, requires_grad)
    step = (float(end) - float(start)) / (steps - 1)
    i = prims.iota(steps, start=0, step=1, dtype=torch.float64, device=device)
    values = T.where(i < steps // 2, i * step + float(start), float(end) - (steps - 1 - i) * step)
    return _finish(_converted(values, dtype), requires_grad)


def _linspace_tensors(start, end, steps, dtype, device, requires_grad):
    """torch.linspace with 0-d tensor endpoints: the number formula on float64 0-d tensors
    (torch takes their values as numbers: no gradient flows to them)."""
    ends = []
    for name, x in (("start", start), ("end", end)):
        if isinstance(x, TensorProxy):
            if x.ndim:
                raise RuntimeError(f"linspace only supports 0-dimensional start and end tensors, but got {name} with "
                                   f"{x.ndim} dimension(s).")
            if x.dtype.is_complex or dtype.is_complex:
                raise NotImplementedError("complex torch.linspace is not supported by thunder_core yet")
            x = T.detach(x)
            if not dtype.is_floating_point:
                x = T.trunc(x) if x.is_floating_point() else x  # torch converts each end to the integer type
            x = _converted(x, torch.float64)
        elif not dtype.is_floating_point:
            x = float(int(x))
        ends.append(x)
    start, end = ends
    i = prims.iota(steps, start=0, step=1, dtype=torch.float64, device=device)
    if steps <= 1:
        values = i + start
    else:
        step = (end - start) / (steps - 1)
        values = T.where(i < steps // 2, i * step + start, end - (steps - 1 - i) * step)
    return _finish(_converted(values, dtype), requires_grad)


@torch_op(torch.eye, inputs=(), tags=(CREATION,))
def eye(n, m=None, *, dtype=None, layout=None, device=None, requires_grad=False, pin_memory=False):
    """The ``n`` x ``m`` identity: row index == column index, converted to ``dtype``."""
    m = n if m is None else m
    if n < 0 or m < 0:
        raise RuntimeError(f"n must be greater or equal to 0, got {min(n, m)}")
    device = _device(device)
    rows = prims.reshape(prims.iota(n, start=0, step=1, dtype=torch.int64, device=device), shape=(n, 1))
    cols = prims.iota(m, start=0, step=1, dtype=torch.int64, device=device)
    return _finish(_converted(rows == cols, _float_dtype(dtype)), requires_grad)


# ---------------------------------------------------------------- filled tensors

def _sized(factory):
    """A torch implementation passing ``*size`` as one tuple, so ``torch.zeros(())`` (which
    the registry normalises to no sizes) stays a 0-d tensor."""
    return lambda args, kwargs: factory(tuple(args), **kwargs)


@torch_op(torch.full, inputs=("fill_value",), tags=(CREATION,))
def full(size, fill_value, *, dtype=None, layout=None, device=None, requires_grad=False, pin_memory=False):
    return _full(size, fill_value, dtype or _number_dtype(fill_value), device, requires_grad)


@torch_op(torch.zeros, inputs=(), impl=_sized(torch.zeros), tags=(CREATION,))
def zeros(*size, dtype=None, layout=None, device=None, requires_grad=False, pin_memory=False):
    return _full(size, 0, _float_dtype(dtype), device, requires_grad)


@torch_op(torch.ones, inputs=(), impl=_sized(torch.ones), tags=(CREATION,))
def ones(*size, dtype=None, layout=None, device=None, requires_grad=False, pin_memory=False):
    return _full(size, 1, _float_dtype(dtype), device, requires_grad)


@torch_op(torch.empty, inputs=(), impl=_sized(torch.empty), tags=(CREATION,))
def empty(*size, dtype=None, layout=None, device=None, requires_grad=False, pin_memory=False,
          memory_format=torch.contiguous_format):
    """A tensor whose values are unspecified."""
    out = prims.empty(shape=size, dtype=_float_dtype(dtype), device=_device(device))
    return _finish(out, requires_grad)


def _like(input, value, dtype, device, requires_grad):
    return _full(input.shape, value, dtype or input.dtype, device or input.device, requires_grad)


@torch_op(torch.zeros_like, tags=(CREATION,))
def zeros_like(input, *, dtype=None, layout=None, device=None, requires_grad=False,
               memory_format=torch.preserve_format):
    return _like(input, 0, dtype, device, requires_grad)


@torch_op(torch.ones_like, tags=(CREATION,))
def ones_like(input, *, dtype=None, layout=None, device=None, requires_grad=False,
              memory_format=torch.preserve_format):
    return _like(input, 1, dtype, device, requires_grad)


@torch_op(torch.full_like, inputs=("input", "fill_value"), tags=(CREATION,))
def full_like(input, fill_value, *, dtype=None, layout=None, device=None, requires_grad=False,
              memory_format=torch.preserve_format):
    return _like(input, fill_value, dtype, device, requires_grad)


@torch_op(torch.empty_like, tags=(CREATION,))
def empty_like(input, *, dtype=None, layout=None, device=None, requires_grad=False,
               memory_format=torch.preserve_format):
    """A tensor like ``input`` whose values are unspecified."""
    out = prims.empty(shape=input.shape, dtype=dtype or input.dtype, device=device or input.device)
    return _finish(out, requires_grad)


def _hints(x):
    if type(x) is NumberProxy:
        return x.hint if x.value is None else x.value
    if isinstance(x, (list, tuple)):
        return type(x)(_hints(y) for y in x)
    return x


def _tensor_meta(*args, **kwargs):
    ps = flat_proxies((args, kwargs))
    if ps and all(type(p) is NumberProxy and p.symbolic for p in ps):
        # symbolic numbers in `data` (cache="symbolic values", fresh values): the call reads them
        # when it runs; the result's dtype and shape depend on their Python types and nesting
        # only, which every call shares, so this call's numbers stand for them, unguarded
        args, kwargs = _hints(args), {k: _hints(v) for k, v in kwargs.items()}
    elif ps:
        raise TracingError("torch.tensor(data) with traced values in `data` cannot be traced: it would read their "
                           "values. Build the tensor with torch.stack or torch.cat instead.")
    return _plain_tensor_meta(*args, **kwargs)


_plain_tensor_meta = fake_meta(lambda pos, kw: torch.tensor(*pos, **kw))


@torch_op(torch.tensor, inputs=(), meta=_tensor_meta, tags=(CREATION,))
def tensor(data, *, dtype=None, device=None, requires_grad=False, pin_memory=False):
    """A constant tensor holding the Python numbers of ``data`` (no decomposition: the numbers
    are the op's static argument)."""


# ---------------------------------------------------------------- random

def _random(prim, lo, hi, shape, dtype, device, requires_grad, generator, what):
    _no_generator(generator, what)
    return _finish(prim(lo, hi, shape=tuple(shape), dtype=dtype, device=_device(device)), requires_grad)


@torch_op(torch.rand, inputs=(), tags=(CREATION, RANDOM), impl=_sized(torch.rand))
def rand(*size, generator=None, dtype=None, layout=None, device=None, requires_grad=False, pin_memory=False):
    return _random(prims.uniform, 0.0, 1.0, size, _float_dtype(dtype), device, requires_grad, generator,
                   "torch.rand")


@torch_op(torch.randn, inputs=(), tags=(CREATION, RANDOM), impl=_sized(torch.randn))
def randn(*size, generator=None, dtype=None, layout=None, device=None, requires_grad=False, pin_memory=False):
    return _random(prims.normal, 0.0, 1.0, size, _float_dtype(dtype), device, requires_grad, generator,
                   "torch.randn")


def _bounds(low, high):
    """torch's (high) and (low, high) overloads -> (low, high)."""
    return (0, low) if high is None else (low, high)


def _randint_call(args, kwargs):
    low, high, size = args
    if size is None:
        low, high, size = 0, low, high
    return torch.randint(low, high, size, **kwargs)


@torch_op(torch.randint, inputs=(), tags=(CREATION, RANDOM), impl=_randint_call)
def randint(low=0, high=None, size=None, *, generator=None, dtype=None, layout=None, device=None,
            requires_grad=False, pin_memory=False):
    """``torch.randint(high, size)`` or ``(low, high, size)``: integers in ``[low, high)``, int64 by default."""
    if size is None:
        low, high, size = 0, low, high
    return _random(prims.randint, low, high, size, dtype or torch.int64, device, requires_grad, generator,
                   "torch.randint")


@torch_op(torch.rand_like, tags=(CREATION, RANDOM))
def rand_like(input, *, generator=None, dtype=None, layout=None, device=None, requires_grad=False,
              memory_format=torch.preserve_format):
    return _random(prims.uniform, 0.0, 1.0, input.shape, dtype or input.dtype, device or input.device,
                   requires_grad, generator, "torch.rand_like")


@torch_op(torch.randn_like, tags=(CREATION, RANDOM))
def randn_like(input, *, generator=None, dtype=None, layout=None, device=None, requires_grad=False,
               memory_format=torch.preserve_format):
    return _random(prims.normal, 0.0, 1.0, input.shape, dtype or input.dtype, device or input.device,
                   requires_grad, generator, "torch.randn_like")


def _randint_like_call(args, kwargs):
    input, low, high = args
    return torch.randint_like(input, *_bounds(low, high), **kwargs)


@torch_op(torch.randint_like, tags=(CREATION, RANDOM), impl=_randint_like_call)
def randint_like(input, low=0, high=None, *, generator=None, dtype=None, layout=None, device=None,
                 requires_grad=False, memory_format=torch.preserve_format):
    low, high = _bounds(low, high)
    return _random(prims.randint, low, high, input.shape, dtype or input.dtype, device or input.device,
                   requires_grad, generator, "torch.randint_like")


def _normal_call(args, kwargs):
    mean, std, size = args
    return torch.normal(mean, std, **kwargs) if size is None else torch.normal(mean, std, size, **kwargs)


@torch_op(torch.normal, inputs=("mean", "std"), tags=(ELEMENTWISE, RANDOM), impl=_normal_call)
def normal(mean=0.0, std=1.0, size=None, *, generator=None, dtype=None, layout=None, device=None,
           pin_memory=False, requires_grad=False):
    """Samples of N(mean, std²): numbers with ``size``, or tensors (broadcast together) that
    give each element its own mean and/or std, drawn as ``normal(0, 1) * std + mean``
    (``normal(0, std) + mean`` for a number ``std``) like torch."""
    _no_generator(generator, "torch.normal")
    tensors = [x for x in (mean, std) if not isinstance(x, (int, float))]
    if not tensors:
        if size is None:
            raise TypeError("torch.normal with a number mean and std needs a size")
        return _random(prims.normal, float(mean), float(std), size, _float_dtype(dtype), device, requires_grad,
                       None, "torch.normal")
    like = mean if tensors[0] is mean else std
    shape = torch.broadcast_shapes(*(t.shape for t in tensors))
    if like is mean and isinstance(std, (int, float)):
        return prims.normal(0.0, float(std), shape=shape, dtype=like.dtype, device=like.device) + mean
    return prims.normal(0.0, 1.0, shape=shape, dtype=like.dtype, device=like.device) * std + mean


def _random_meta(call, what):
    """A fake-tensor meta over the symbol call ``call(pos, kw)`` that first rejects a generator."""
    meta = fake_meta(call)

    def checked(*pos, **kw):
        _no_generator(kw.get("generator"), what)
        return meta(*pos, **kw)
    return checked


def _bernoulli_call(args, kwargs):
    input, p = args
    return torch.bernoulli(input, **kwargs) if p is None else torch.bernoulli(input, p, **kwargs)


@torch_op(torch.bernoulli, torch.Tensor.bernoulli, method="bernoulli", tags=(ELEMENTWISE, RANDOM), impl=_bernoulli_call,
          meta=_random_meta(lambda pos, kw: torch.bernoulli(*pos, **kw), "torch.bernoulli"))
def bernoulli(input, p=None, *, generator=None):
    """0/1 samples, 1 with probability ``input`` (or the number ``p``); no decomposition."""


@torch_op(torch.multinomial, torch.Tensor.multinomial, method="multinomial", tags=(RANDOM,),
          meta=_random_meta(lambda pos, kw: torch.multinomial(*pos, **kw), "torch.multinomial"))
def multinomial(input, num_samples, replacement=False, *, generator=None):
    """``num_samples`` category indices per row drawn with the row's weights; no decomposition."""
