"""Creation primitives: tensors made from numbers, with explicit ``shape``, ``dtype`` and
``device`` (torch-level ops resolve torch's defaults at trace time, so a trace never
depends on them).

Every primitive here has the trait ``"creation"``. The random ones (``uniform``, ``normal``,
``randint``) are also ``"random"``: each
call draws fresh values, so passes must neither merge two calls nor drop one, and
executors draw from torch's global generator so ``torch.manual_seed`` reproduces eager.
"""

from __future__ import annotations

from ..ir.printing import describe

import operator

import torch

from ..ir import NumberProxy, tensor_proxy
from ..ir.traits import CREATION, RANDOM
from .prims_shape import _check_shape
from .registry import prim


def _number(name: str, what: str, x) -> None:
    if not (isinstance(x, (int, float, bool, complex)) or isinstance(x, NumberProxy)):
        raise TypeError(f"prims.{name}: {what} must be a number, got {describe(x)}.")


def _created(name: str, shape, dtype, device):
    if not isinstance(dtype, torch.dtype):
        raise TypeError(f"prims.{name}: dtype must be a torch.dtype, got {dtype!r}.")
    return tensor_proxy(_check_shape(name, shape), dtype, torch.device(device))


@prim(tags=(CREATION,))
def iota(length, *, start, step, dtype, device):
    """The 1-D tensor ``[start, start + step, ..., start + (length - 1) * step]``, computed
    like ``torch.arange``."""
    _number("iota", "length", length)
    if step == 0:
        raise ValueError("prims.iota: step must be non-zero.")
    n = length if type(length) is NumberProxy and length.symbolic else operator.index(length)
    return _created("iota", (n,), dtype, device)


@prim(tags=(CREATION,))
def full(fill_value, *, shape, dtype, device):
    """A tensor of ``shape`` filled with ``fill_value`` (converted to ``dtype``)."""
    _number("full", "fill_value", fill_value)
    return _created("full", shape, dtype, device)


@prim(tags=(CREATION,))
def empty(*, shape, dtype, device):
    """A tensor of ``shape`` whose values are unspecified (uninitialised memory)."""
    return _created("empty", shape, dtype, device)


def _random(name: str, lo, hi, shape, dtype, device, what=("minval", "maxval")):
    _number(name, what[0], lo)
    _number(name, what[1], hi)
    return _created(name, shape, dtype, device)


@prim(tags=(CREATION, RANDOM))
def uniform(minval, maxval, *, shape, dtype, device):
    """Independent samples of the uniform distribution on ``[minval, maxval)`` (floating dtypes)."""
    return _random("uniform", minval, maxval, shape, dtype, device)


@prim(tags=(CREATION, RANDOM))
def normal(mean, std, *, shape, dtype, device):
    """Independent samples of the normal distribution N(``mean``, ``std``²) (floating dtypes)."""
    return _random("normal", mean, std, shape, dtype, device, ("mean", "std"))


@prim(tags=(CREATION, RANDOM))
def randint(low, high, *, shape, dtype, device):
    """Independent uniform samples of the integers in ``[low, high)``."""
    return _random("randint", low, high, shape, dtype, device, ("low", "high"))
