"""Prims-like symbols for the IR tests, printed as ``tprims.<name>``.

Meta functions run the torch op on meta tensors, so shapes, dtypes and type promotion are
torch's own. ``IMPLS`` maps each symbol id to the eager implementation used to run traces.
"""

import operator

import torch

from thunder_core.ir import NumberProxy, Symbol, TensorProxy, tensor_proxy

IMPLS = {}


def _meta_value(x):
    if isinstance(x, TensorProxy):
        return torch.empty(x.shape, dtype=x.dtype, device="meta")
    if isinstance(x, NumberProxy):
        return x.python_type(1) if x.value is None else x.value
    return x


def meta_from_torch(torch_fn):
    """A meta function computing outputs by running ``torch_fn`` on meta tensors."""

    def meta(*args, **kwargs):
        tensors = [a for a in args if isinstance(a, TensorProxy)]
        devices = {t.device for t in tensors}
        if len(devices) != 1:
            raise ValueError(f"expected tensors on exactly one device, got {sorted(map(str, devices))}")
        (device,) = devices
        grad = any(t.requires_grad for t in tensors)

        def wrap(out):
            differentiable = out.dtype.is_floating_point or out.dtype.is_complex
            return tensor_proxy(out.shape, out.dtype, device, grad and differentiable)

        out = torch_fn(*map(_meta_value, args), **kwargs)
        return wrap(out) if isinstance(out, torch.Tensor) else tuple(map(wrap, out))

    return meta


def prim(name, torch_fn):
    """A primitive symbol whose meta and implementation are ``torch_fn``."""
    sym = Symbol(name, meta=meta_from_torch(torch_fn), id=f"tprims.{name}", is_prim=True, module="tprims")
    IMPLS[sym.id] = torch_fn
    return sym


add = prim("add", operator.add)
sub = prim("sub", operator.sub)
mul = prim("mul", operator.mul)
div = prim("div", operator.truediv)
erf = prim("erf", torch.special.erf)
tanh = prim("tanh", torch.tanh)
getitem = prim("getitem", operator.getitem)
sum = prim("sum", lambda a, *, dims, keepdim=False: torch.sum(a, dims, keepdim=keepdim))  # noqa: A001
convert_element_type = prim("convert_element_type", lambda a, *, dtype: a.to(dtype))
chunk2 = prim("chunk2", lambda a, *, dim: torch.chunk(a, 2, dim))
