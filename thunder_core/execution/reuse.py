"""Writing into a dead intermediate instead of allocating: buffer reuse in execution traces.

Eager PyTorch allocates a new tensor for every op. In an execution trace the partitioner
knows where each intermediate is read last, so an elementwise call that reads one for the
last time can write its result into it: ``t1 = ltorch.add(t0, a)`` becomes
``t1 = ltorch.add_(t0, a)`` (the op's in-place variant, ``registry.INPLACE_VARIANTS``). That
saves an allocation per op (about a quarter of a small op's cost on CPU) and the memory the
new buffer would take. The result is the same tensor eager gives, bit for bit: the in-place
variant computes in the same dtype as the out-of-place op and the output keeps ``t0``'s
layout, which is the layout eager's output takes from its first operand (``t0`` is dense,
written by an elementwise op of the same shape).

Rewritten only where nothing can observe the difference, all decided from declared traits:

* ``t0`` is made in this trace by an op that returns a new buffer of its own: an
  ``"elementwise"`` op that is not ``"inplace"``, a ``"view"`` or ``"may-return-input"``
  (e.g. not ``to``, which may return its input), or a call this pass rewrote (whose buffer
  was such an op's, and dead);
* every reader of ``t0`` is such an op as well (no view or region can have kept its memory),
  none of them has an output that requires grad (PyTorch's autograd may have saved ``t0``),
  and this call is the last one; ``t0`` is not an output of the trace;
* the result has ``t0``'s shape, dtype and device (no broadcast or promotion: those need a new
  buffer), and neither requires grad (PyTorch's autograd may have saved ``t0``);
* the op draws no random numbers, and the executor that runs the call implements the
  in-place variant too (the same executor then runs both).

A partition of a trace calls :func:`reuse_buffers` on its execution trace; regions are left
alone (a fusing executor plans its own memory).
"""

from __future__ import annotations

from ..ir.proxies import TensorProxy
from ..ir.traits import ELEMENTWISE, INPLACE, RANDOM
from ..ops.registry import ALIAS_TAGS, INPLACE_VARIANTS, SYMBOLS

#: tags of ops whose output may share memory with an input
_ALIASING = ALIAS_TAGS | {INPLACE}


def _fresh_op(b) -> bool:
    """Does ``b`` read its tensor inputs and return a new buffer of its own?"""
    tags = b.sym.tags
    return ELEMENTWISE in tags and tags.isdisjoint(_ALIASING)


def _same_meta(out, t0) -> bool:
    # sizes compared without recording guards: the same symbolic size is the same proxy object
    return (out.dtype == t0.dtype and out.device == t0.device and len(out.shape) == len(t0.shape)
            and all(x is y or (type(x) is int and type(y) is int and x == y) for x, y in zip(out.shape, t0.shape)))


def reuse_buffers(trace, last: dict, impls: dict, owner: dict, tables: dict) -> int:
    """Rewrite ``trace``'s bound symbols in place (see the module docstring); ``last`` is
    ``partition.last_use_of`` of them and the trace's outputs; ``impls`` and ``owner`` (symbol
    id -> callable / executor name) get the in-place variants it uses, from ``tables``
    (executor name -> its implementation table). Returns how many calls now write into a dead
    intermediate."""
    bsyms = trace.bound_symbols
    # ids of tensors some reader may keep a view of (or alias)
    shared = {id(p) for b in bsyms if not _fresh_op(b) for p in b.flat_args}
    # ... and those an op recorded by PyTorch's autograd may have saved (a trace run op by op
    # under autograd: execution/autograd_choice.py), even when they do not require grad themselves
    shared.update(id(p) for b in bsyms if any(getattr(o, "requires_grad", False) for o in b.flat_outs)
                  for p in b.flat_args)
    own = set()  # ids of tensors in a buffer of their own
    n = 0
    for i, b in enumerate(bsyms):
        if not _fresh_op(b):
            continue
        sid = b.sym.id
        inplace_id = INPLACE_VARIANTS.get(sid)
        t0 = b.args[0] if b.args else None
        outs = b.flat_outs
        if (inplace_id is not None and type(t0) is TensorProxy and id(t0) in own and id(t0) not in shared
                and last.get(id(t0)) == i and len(outs) == 1 and type(outs[0]) is TensorProxy
                and not t0.requires_grad and not outs[0].requires_grad and _same_meta(outs[0], t0)
                and RANDOM not in b.sym.tags):
            ex = owner.get(sid)
            table = tables.get(ex, {})
            if inplace_id in table and owner.get(inplace_id, ex) == ex:
                bsyms[i] = b.replace(sym=SYMBOLS[inplace_id], subsymbols=())
                impls[inplace_id], owner[inplace_id] = table[inplace_id], ex
                n += 1
        own.update(id(o) for o in outs if type(o) is TensorProxy)
    return n


__all__ = ["reuse_buffers"]
