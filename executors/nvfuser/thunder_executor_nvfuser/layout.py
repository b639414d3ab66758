"""How a fusion input is laid out in memory: nvFuser's contiguity and stride order.

``define_tensor(shape=, contiguity=, stride_order=)`` describes an input:

* ``shape``: ``1`` for a size-1 dim (a broadcast dim), ``-1`` for any other (a symbolic
  extent: one definition serves every size, the runtime cache keys on the layout only);
* ``stride_order[i]``: the rank of dim ``i`` by stride, ``ndim - 1`` for the outermost;
* ``contiguity``: in stride order, outermost first, whether each dim is dense with the next
  inner one (the innermost: with unit stride); ``None`` for broadcast dims (size 1, or an
  expanded dim of stride 0).

Traces do not model strides, so ``tc.plan`` describes every input as contiguous
(:func:`contiguous`); at run time each input's own layout is read (:func:`of_tensor`, nvFuser's
``compute_tensor_descriptor``) and is part of the definition cache's key.
"""

from __future__ import annotations

from typing import NamedTuple


class Layout(NamedTuple):
    shape: tuple        # 1 (broadcast) or -1 per dim
    contiguity: tuple   # per dim in stride order: True, False or None
    stride_order: tuple


def contiguous(shape) -> Layout:
    """A dense row-major tensor of ``shape`` (a symbolic size is never 1: sizes 0 and 1 stay
    constants in traces)."""
    one = tuple(type(s) is int and s == 1 for s in shape)
    return Layout(tuple(1 if o else -1 for o in one), tuple(None if o else True for o in one),
                  tuple(range(len(shape) - 1, -1, -1)))


def of_tensor(t) -> Layout:
    """The layout of a real tensor, as nvFuser computes it (needs nvfuser_direct)."""
    from nvfuser_direct import compute_tensor_descriptor

    sizes, strides = tuple(t.size()), tuple(t.stride())
    contiguity, order = compute_tensor_descriptor(sizes, strides)
    return Layout(tuple(1 if s == 1 else -1 for s in sizes), tuple(contiguity), tuple(order))
