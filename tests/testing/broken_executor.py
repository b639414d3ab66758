"""Deliberately broken executors the conformance kit must catch (tests/testing/test_conformance.py).

* ``BROKEN_DTYPE`` implements ``ltorch.mul`` and is wrong for one dtype: int64 products are
  computed in float32 (exact for small values, wrong for large ones).
* ``BROKEN_FUSION`` fuses runs of elementwise symbols like the docs' toy executor, and is wrong
  only in a fused region with a broadcast input: it reads such an input backwards along its
  last dim. A symbol alone is never claimed (a region has two or more), so only fusion shows it.
"""

import torch

from thunder_core.extend import API_VERSION, Executor, TensorProxy, has_trait, region_callable, torch_impls, traits


def _mul(a, b):
    if isinstance(a, torch.Tensor) and a.dtype == torch.int64:
        return (a.to(torch.float32) * b).to(torch.int64)  # the bug: int64 through float32
    return torch.mul(a, b)


BROKEN_DTYPE = Executor("broken_dtype", implementations=lambda: {"ltorch.mul": _mul}, api_version=API_VERSION,
                        dispatch_us=1.0)


def _float32_only(bsym):
    for p in (*bsym.flat_args, *bsym.flat_outs):
        if isinstance(p, TensorProxy) and p.dtype != torch.float32:
            return f"broken_fusion computes in float32 only, not {p.dtype}"
    return None


def _fusible(bsym):
    return (has_trait(bsym, "elementwise") and not traits(bsym) & {"random", "inplace"}
            and bsym.sym.id in torch_impls() and len(bsym.flat_outs) == 1)


def _claim(bsyms, ctx):
    i, n = 0, len(bsyms)
    while i < n:
        j = i
        while j < n and _fusible(bsyms[j]) and ctx.check(bsyms[j]) is None:
            j += 1
        if j - i >= 2:
            region = ctx.region(i, j)
            if region.outputs:
                yield ctx.claim(i, j, ctx.region_us(region), _lower, f"{j - i} fused symbols")
        i = max(j, i + 1)


def _lower(region):
    fn = region_callable(region, torch_impls())
    shape = tuple(region.outputs[0].shape)

    def broken(*args):
        args = [a.flip(-1) if isinstance(a, torch.Tensor) and a.ndim and tuple(a.shape) != shape else a
                for a in args]  # the bug: a broadcast input read backwards
        return fn(*args)
    return broken


BROKEN_FUSION = Executor("broken_fusion", api_version=API_VERSION, dispatch_us=1.0, check=_float32_only,
                         claim=_claim, fuses=True)
