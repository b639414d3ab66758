"""No-grad regions of a trace run op by op under PyTorch's autograd (ops/ltorch_grad_mode.py).

The capture records a call made under ``torch.no_grad()`` with outputs that do not require grad
(``ir.symbol.without_grad``) whatever its inputs: a call reading a tensor that requires grad
whose tensor outputs do not (an in-place write's included) is one eager ran without grad, or an op
with no gradient (a comparison, ``argmax``), which computes the same either way. Runs of such
calls are bracketed with ``ltorch.set_grad_enabled(False)`` and ``(True)``; the caller turns
grad mode back on if a call in between raises (``restoring_grad_mode``).
"""

from __future__ import annotations

import functools

import torch

from ..ir import TensorProxy, tracing


def _without_grad(b) -> bool:
    # (an in-place write's output is the tensor it wrote: it requires grad when made with grad;
    # a parameter written under no_grad, an optimizer step, is one that then does not)
    if not any(type(p) is TensorProxy and p.requires_grad for p in b.flat_args):
        return False
    outs = [p for p in b.flat_outs if type(p) is TensorProxy]
    return bool(outs) and not any(p.requires_grad for p in outs)


def with_grad_regions(trace):
    """``trace`` (run op by op with grad enabled) with its no-grad calls bracketed; ``trace``
    itself when it has none."""
    marks = [_without_grad(b) for b in trace.bound_symbols]
    if not any(marks):
        return trace
    from ..ops import ltorch

    new = trace.derive(bound_symbols=[])
    off = False
    with tracing(new):
        for b, m in zip(trace.bound_symbols, marks):
            if m != off:
                ltorch.set_grad_enabled(not m)
                off = m
            new.bound_symbols.append(b)
        if off:
            ltorch.set_grad_enabled(True)
    return new


def restoring_grad_mode(fn):
    """``fn`` putting the caller's grad mode back when it raises between a region's brackets."""
    @functools.wraps(fn)
    def run(*args):
        mode = torch.is_grad_enabled()
        try:
            return fn(*args)
        finally:
            torch._C._set_grad_enabled(mode)
    return run
