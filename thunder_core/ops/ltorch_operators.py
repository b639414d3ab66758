"""Python operators called as functions: ``torch.Tensor.__radd__(t, 2)``, ``Tensor.__and__``.

``2 + t`` in traced code reaches the proxy's own ``__radd__`` (``ir.proxies.OPERATORS``),
which records ``ltorch.add(2, t)``. Calling the *torch* method object instead
(``torch.Tensor.__radd__(t, 2)``, as PyTorch's OpInfo for ``__radd__`` does, or
``functools.partial(torch.Tensor.__mul__, t)``) calls a C method the interpreter cannot step
into; those torch defines in C (``__add__``, ``__radd__``, ``__iand__``, ``__lt__``...) are
registered here as torch calls that dispatch exactly like the operator on a proxy, so they
record the same symbols. The operators torch writes in Python (``__rsub__``, ``__rpow__``,
``__floordiv__``...) need nothing: the interpreter traces their bodies.
"""

from __future__ import annotations

import torch

from ..ir import TensorProxy
from ..ir.proxies import OPERATORS
from .registry import TORCH_CALLS


def _operator(dunder: str):
    def call(self, *args):
        if not isinstance(self, TensorProxy):  # (a tensor the trace does not know: run it as torch does)
            return getattr(torch.Tensor, dunder)(self, *args)
        return getattr(TensorProxy, dunder)(self, *args)
    call.__name__ = call.__qualname__ = dunder
    return call


for _dunder in OPERATORS:
    _fn = getattr(torch.Tensor, _dunder, None)
    # C methods only (``__objclass__``): a Python-level operator is traced through its body
    if _fn is not None and getattr(_fn, "__objclass__", None) is torch._C.TensorBase and _fn not in TORCH_CALLS:
        TORCH_CALLS[_fn] = _operator(_dunder)
del _dunder, _fn
