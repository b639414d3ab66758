"""VJP rules of the collective symbols, as PyTorch registers them for the
``_c10d_functional`` operators (``torch/distributed/_functional_collectives.py``): the
gradient of a collective is the transposed collective of the cotangent.

* ``all_reduce`` (sum): all-reduce (sum) of the cotangent;
* ``all_gather_into_tensor``: reduce-scatter (sum);
* ``reduce_scatter_tensor`` (sum): all-gather;
* ``all_to_all_single``: all-to-all with the split sizes swapped;
* ``wait_tensor``: the cotangent itself;
* FSDP2's symbols: fsdp.py.

Only a sum has a rule, as in PyTorch (whose backward raises for other reductions): a trace
that needs the gradient of another is refused when it is compiled. The in-place collectives
of ``torch.distributed``'s API have no rule and no functional form: eager autograd does not
see their writes, so a trace that needs gradients through one runs under PyTorch's autograd.
"""

from __future__ import annotations

from .fsdp import RULES as _FSDP_RULES
from .symbols import ENTRIES as C


def _sum_only(b, what):
    op = b.kwargs.get("reduce_op", b.args[1] if len(b.args) > 1 else None)
    if op != "sum":
        raise NotImplementedError(
            f"the gradient of {what} with reduce_op={op!r} is not defined (PyTorch's backward of "
            f"_c10d_functional.{what} supports 'sum' only); detach its input or use a sum.")


def _all_reduce(b, g):
    _sum_only(b, "all_reduce")
    return (C["wait_tensor"](C["all_reduce"](g.contiguous(), "sum", b.kwargs["group_name"])),)


def _all_gather(b, g):
    kw = b.kwargs
    return (C["wait_tensor"](C["reduce_scatter_tensor"](g.contiguous(), "sum", kw["group_size"], kw["group_name"])),)


def _reduce_scatter(b, g):
    _sum_only(b, "reduce_scatter_tensor")
    kw = b.kwargs
    return (C["wait_tensor"](C["all_gather_into_tensor"](g.contiguous(), kw["group_size"], kw["group_name"])),)


def _all_to_all(b, g):
    kw = b.kwargs
    return (C["wait_tensor"](C["all_to_all_single"](g.contiguous(), kw["input_split_sizes"], kw["output_split_sizes"],
                                                    kw["group_name"])),)


def _wait(b, g):
    return (g,)


RULES = {"ltorch.all_reduce": _all_reduce, "ltorch.all_gather_into_tensor": _all_gather,
         "ltorch.reduce_scatter_tensor": _reduce_scatter, "ltorch.all_to_all_single": _all_to_all,
         "ltorch.wait_tensor": _wait, **_FSDP_RULES}
