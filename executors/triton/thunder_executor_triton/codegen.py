"""Kernel source for a region: a ``@triton.jit`` function computing the region's outputs.

The region is inlined down to primitives and analysed as a :class:`~.graph.Graph`; its
family gives the kernel:

- **pointwise** (:mod:`.pointwise`): elementwise primitives, broadcasting NumPy's way;
- **row** (:mod:`.rows`): reductions over the last dim (softmax, log_softmax, layer_norm,
  rms_norm, var/mean/amax...), gathers and scatters along it with one index per row (a
  loss's target logit, its gradient), with their elementwise prologue and epilogue, and
  reductions of the rows' values over all rows across programs (a norm's weight gradient, a
  mean loss): one kernel for layer_norm's backward, one for log_softmax and nll_loss;
- **reduce** (:mod:`.columns`): reductions over any other set of dims (a bias gradient's
  leading dims, a convolution bias's ``(0, 2, 3)``, middle dims, everything), split across
  programs when few outputs reduce many elements.

A kernel may come in *variants* chosen per call by its sizes: rows held whole in registers or
looped over in chunks, 32- or 64-bit offsets, a reduction split across programs or not.
With static shapes the variant is fixed; with symbolic sizes (``cache="symbolic values"``) the
launcher picks it from each call's sizes, and the kernel takes the sizes as arguments.
Everything computes in float32 (integers as integers).
"""

from __future__ import annotations

from .graph import DTYPES, Graph, aligns, check_io, check_leaves, leaves, strip
from .ops import Unsupported

__all__ = ["DTYPES", "Graph", "Unsupported", "aligns", "check_io", "check_leaves", "generate", "leaves", "strip",
           "variants"]


def _emitter(family: str):
    if family == "pointwise":
        from .pointwise import generate_pointwise

        return generate_pointwise
    if family == "row":
        from .rows import generate_row

        return generate_row
    from .columns import generate_reduce

    return generate_reduce


def generate(region, device_type: str, variant=None, name: str = "triton_region"):
    """The :class:`~.emit.Kernel` of ``region`` for a device type (``"cpu"``: Triton's
    interpreter; ``"cuda"``), in ``variant`` (None: the one this trace's sizes need). Raises
    :class:`Unsupported` with the reason."""
    g = Graph(region)
    family, S = g.family()
    return _emitter(family)(g, S, device_type, variant, name)


def variants(region, device_type: str) -> tuple[list, dict]:
    """``(kernels, declined)``: the kernel variants a call of ``region`` may need (one for
    static shapes), each generated once, with its sizes computable from the region's inputs on
    every call; and ``{variant: reason}`` for those that cannot be generated (calls needing
    one run the region with torch's kernels, see :func:`.kernels.lower`). A claim is made only
    if the variant of this trace's sizes can be: raises Unsupported otherwise."""
    first = generate(region, device_type)
    out, declined = [first], {}
    for v in first.alternatives:
        if v != first.variant:
            try:
                out.append(generate(region, device_type, v))
            except Unsupported as e:
                declined[v] = str(e)
    for kernel in out:
        if kernel.dims.symbolic:
            kernel.dims.resolver()
    return out, declined
