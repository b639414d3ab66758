"""Torch-level fills: ``torch.fill`` (a new tensor of one value), ``Tensor.fill_``, ``zero_``
and ``copy_`` in place (with ATen's functional ``zero`` and ``copy``), and the in-place random
fills ``uniform_``, ``normal_``, ``cauchy_``, ``exponential_``, ``geometric_``, ``log_normal_``
with their functional forms (ATen's ``uniform``, ``normal_functional``, ``cauchy``, ...).

The in-place ops are symbols tagged ``"inplace"`` without a decomposition, like ``add_``: the
executor writes into the real tensor in program order. The random ones are also
``"random"``: they draw from torch's global generator through torch's own kernels, so under
the same ``torch.manual_seed`` they give eager's values, and passes never recompute or drop
them (an explicit ``generator=`` cannot be traced and is refused). When autograd must make an
in-place op functional (its target needs a gradient), it uses the op's functional form:
``ltorch.uniform`` for ``uniform_`` by name, ``normal_functional`` for ``normal_``
(``transforms/autograd.py``'s table). ``uniform`` and
``normal_functional`` decompose into ``prims.uniform``/``prims.normal``, which draw the same
numbers as the in-place kernels; the others run as ATen's functional kernels.

Traits: ``fill``/``fill_``/``zero_``/``copy``/``copy_`` are ``"elementwise"`` (each element is
the value, or ``src``'s element broadcast); the random fills are ``"elementwise"`` and
``"random"`` (each element an independent draw); the in-place forms add ``"inplace"``.
"""

from __future__ import annotations

import inspect

import torch

from ..ir import TensorProxy, tensor_proxy
from ..ir.traits import ELEMENTWISE, INPLACE, RANDOM
from . import prims
from .ltorch_creation import _no_generator
from .ltorch_elementwise import _inplace_meta, convert
from .ltorch_shape import expanded
from .prims_shape import broadcast_shapes, same_shape
from .registry import TORCH_CALLS, TORCH_IMPLS, T, fake_meta, torch_op


def filled(input, value):
    """``input``'s shape, dtype and device holding ``value``; the result requires grad when
    ``input`` does (with a zero gradient), as eager's ``fill`` (a number, or a 0-d tensor)."""
    if isinstance(value, TensorProxy):
        if value.ndim:
            raise RuntimeError(f"fill only supports 0-dimension value tensor but got tensor with {value.ndim} "
                               f"dimensions.")
        return T.clone(expanded(convert(value, input.dtype), input.shape))
    if input.requires_grad:  # eager's result requires grad too (a zero gradient for input)
        return T.masked_fill(input, prims.full(True, shape=input.shape, dtype=torch.bool, device=input.device), value)
    return prims.full(value, shape=input.shape, dtype=input.dtype, device=input.device)


@torch_op(torch.fill, inputs=("input", "value"), tags=(ELEMENTWISE,))
def fill(input, value):
    """A tensor like ``input`` holding ``value`` (a number or a 0-d tensor) everywhere."""
    return filled(input, value)


def _in_place(name, sig, inputs, traits, random=False, meta=None):
    """The in-place op ``name`` (``Tensor.<name>``), run by torch on the real tensor; its meta
    (``meta``, or a check of the call with torch) refuses a ``generator=`` for random ones."""
    fn = getattr(torch.Tensor, name)
    check = meta or _inplace_meta(f"ltorch.{name}")

    def meta(*args, **kwargs):
        if random:
            _no_generator(kwargs.get("generator"), f"torch.Tensor.{name}")
        return check(*args, **kwargs)

    def inplace(*args, **kwargs):
        """Runs as one op, in place, in program order."""
    inplace.__signature__ = inspect.signature(sig)
    return torch_op(fn, inputs=inputs, method=name, name=name, tags=(INPLACE, *traits), meta=meta,
                    impl=lambda a, k: fn(*a, **k))(inplace)


def _fill_sig(input, value):
    ...


def _zero_sig(input):
    ...


@torch_op(torch.ops.aten.zero.default, tags=(ELEMENTWISE,))
def zero(input):
    """ATen's functional ``zero``: ``fill(input, 0)`` (the functional form of ``zero_``)."""
    return filled(input, 0)


@torch_op(torch.ops.aten.copy.default, inputs=("input", "src"), tags=(ELEMENTWISE,))
def copy(input, src, non_blocking=False):
    """ATen's functional ``copy`` (the functional form of ``copy_``): ``src`` broadcast to
    ``input``'s shape, in its dtype and on its device, in a new tensor; ``input``'s values are
    not read (no gradient flows to it)."""
    out = expanded(convert(src, input.dtype), input.shape)
    if out.device != input.device:
        return out.to(input.device)
    return T.clone(out)


def _copy_sig(input, src, non_blocking=False):
    ...


def _copy_meta(input, src, non_blocking=False):
    """``copy_``'s metadata without running torch (a copy between devices has no fake kernel
    on a CPU build: torch.plan for a GPU): ``src`` broadcasts to ``input``'s shape."""
    if not isinstance(input, TensorProxy) or not isinstance(src, TensorProxy):
        raise TypeError(f"copy_(): argument 'src' must be a Tensor, not {type(src).__name__}")
    if not same_shape(broadcast_shapes(input.shape, src.shape, name="ltorch.copy_"), input.shape):
        raise RuntimeError(f"copy_(): the source's shape {list(src.shape)} does not broadcast to the target's "
                           f"{list(input.shape)}.")
    rg = input.requires_grad or (torch.is_grad_enabled() and src.requires_grad and
                                 (input.dtype.is_floating_point or input.dtype.is_complex))
    return tensor_proxy(input.shape, input.dtype, input.device, rg)


fill_ = _in_place("fill_", _fill_sig, ("input", "value"), (ELEMENTWISE,))
copy_ = _in_place("copy_", _copy_sig, ("input", "src"), (ELEMENTWISE,), meta=_copy_meta)
zero_ = _in_place("zero_", _zero_sig, ("input",), (ELEMENTWISE,))
TORCH_CALLS[torch.zero_] = zero_  # torch.zero_(x) is x.zero_()


# ---------------------------------------------------------------- random fills

def _uniform_sig(input, from_=0.0, to=1.0, *, generator=None):
    ...


def _normal_sig(input, mean=0.0, std=1.0, *, generator=None):
    ...


def _cauchy_sig(input, median=0.0, sigma=1.0, *, generator=None):
    ...


def _exponential_sig(input, lambd=1.0, *, generator=None):
    ...


def _geometric_sig(input, p, *, generator=None):
    ...


def _log_normal_sig(input, mean=1.0, std=2.0, *, generator=None):
    ...


def _random_meta(sid):
    run = fake_meta(lambda p, k: TORCH_IMPLS[sid](*p, **k))

    def meta(*args, **kwargs):
        _no_generator(kwargs.get("generator"), sid.replace("ltorch.", "torch.ops.aten."))
        return run(*args, **kwargs)
    return meta


def _define_random(name, functional, sig, prim=None):
    """``Tensor.<name>_`` in place, and its functional form ``ltorch.<functional>`` (ATen's op
    of that name), drawn by ``prims.<prim>`` where a creation primitive draws it."""
    aten = getattr(torch.ops.aten, functional).default
    if prim is not None:
        def draw(input, *args, generator=None):
            _no_generator(generator, f"torch.Tensor.{name}_")
            return getattr(prims, prim)(*(float(a) for a in args), shape=input.shape, dtype=input.dtype,
                                        device=input.device)
    else:
        def draw(input, *args, generator=None):
            """Runs as ATen's functional kernel (no primitive draws it)."""
    draw.__signature__ = inspect.signature(sig)
    torch_op(aten, name=functional, tags=(ELEMENTWISE, RANDOM), meta=_random_meta(f"ltorch.{functional}"),
             impl=lambda a, k: aten(*a, **k))(draw)
    _in_place(f"{name}_", sig, ("input",), (ELEMENTWISE, RANDOM), random=True)


_define_random("uniform", "uniform", _uniform_sig, "uniform")
_define_random("normal", "normal_functional", _normal_sig, "normal")
_define_random("cauchy", "cauchy", _cauchy_sig)
_define_random("exponential", "exponential", _exponential_sig)
_define_random("geometric", "geometric", _geometric_sig)
_define_random("log_normal", "log_normal", _log_normal_sig)
