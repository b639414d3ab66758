"""The cost model: roofline-style time estimates for bound symbols and fused regions.

A kernel's time is ``max(bytes moved / bandwidth, flops / flop rate) + launch overhead`` on a
:class:`~thunder_core.execution.profiles.DeviceProfile` (bandwidth, FLOP rates per dtype,
launch time); each executor adds its own per-call overhead on that device
(``Executor.dispatch_us``, or what ``calibrate`` measured). Bytes are what a kernel reads and
writes: for one bound symbol its tensor inputs and outputs, for a fused region only the
tensors crossing the region's boundary (intermediates stay in registers/cache). FLOPs come
from a table keyed by symbol id (matrix products, attention), defaulting to one per output
element; symbols in that table run at the device's matrix-product rate. A symbolic size
counts as this trace's value (its hint): estimates, computed with plain arithmetic.
"""

from __future__ import annotations

from ..ir import TensorProxy
from ..ir.traits import MATMUL, VIEW, has_trait
from ..transforms.remat import size_estimate
from ..transforms.remat import nbytes as _bytes
from ..transforms.remat import numel as _numel
from .profiles import DeviceProfile, profile


def _matmul_flops(bsym, first=0) -> float:
    """2 x output elements x the contracted size, read off the first factor (tensor argument
    ``first``: 1 for ``addmm``/``baddbmm``, whose first tensor is the added one)."""
    a = [x for x in bsym.flat_args if isinstance(x, TensorProxy)][first]
    k = size_estimate(a.shape[-1]) if a.shape else 1
    out = sum(_numel(p) for p in bsym.flat_outs if isinstance(p, TensorProxy))
    return 2.0 * out * k


def _added_matmul_flops(bsym) -> float:
    return _matmul_flops(bsym, 1)


def _attention_flops(matmuls, first=0):
    """Attention doing ``matmuls`` products of L x S x E (query (..., L, E) is tensor argument
    ``first``, key (..., S, E) the next)."""
    def flops(bsym):
        q, k = [x for x in bsym.flat_args if isinstance(x, TensorProxy)][first:first + 2]
        return 2.0 * matmuls * _numel(q) * size_estimate(k.shape[-2])
    return flops


#: symbol id -> flops(bound symbol); default: one per output element
FLOPS = {sid: _matmul_flops for sid in ("ltorch.matmul", "ltorch.mm", "ltorch.bmm", "ltorch.linear", "prims.matmul")}
FLOPS.update({"ltorch.addmm": _added_matmul_flops, "ltorch.baddbmm": _added_matmul_flops})
# attention: q k^T and p v forward; the backward kernel does 5 products, 2 more when it must
# first recompute the forward's statistics (sdpa_backward, without them)
FLOPS.update({"ltorch.scaled_dot_product_attention": _attention_flops(2), "ltorch.sdpa_forward": _attention_flops(2),
              "ltorch.sdpa_backward_stats": _attention_flops(5, 1), "ltorch.sdpa_backward": _attention_flops(7, 1)})


#: symbol id -> extra bytes(bound symbol) its kernel moves beyond its inputs and outputs: the
#: backward ops that re-read their input to recompute forward statistics
def _input_again(bsym):
    return float(_bytes(bsym.args[1])) if len(bsym.args) > 1 and isinstance(bsym.args[1], TensorProxy) else 0.0


def _attention_recomputed(bsym):
    """sdpa_backward's forward, run again for its statistics: the output (grad_output's shape)
    and the rows' logsumexp (float32) written, then read by the backward kernel."""
    g = bsym.args[0]
    return 2.0 * (_bytes(g) + 4.0 * _numel(g) / size_estimate(g.shape[-1])) if isinstance(g, TensorProxy) else 0.0


EXTRA_BYTES = {sid: _input_again for sid in ("ltorch.layer_norm_backward", "ltorch.rms_norm_backward",
                                             "ltorch.batch_norm_backward")}
EXTRA_BYTES["ltorch.sdpa_backward"] = _attention_recomputed


class CostModel:
    """Estimates on a device profile (default: this machine's ``"cpu"``, calibrated when
    ``python -m thunder_core calibrate`` has measured it).

    :param target: a profile name (``"h100"``) or a :class:`DeviceProfile`.
    """

    def __init__(self, target: str | DeviceProfile | None = None):
        self.profile = profile(target)
        # estimates per bound symbol (frozen, hashed by identity): partitioning prices each
        # symbol once per candidate region holding it, and inductor offers overlapping ones
        self._compute: dict = {}
        self._alone: dict = {}

    def dispatch(self, executor) -> float:
        """An executor's per-call overhead on this device: measured by ``calibrate`` if it
        was, else the executor's own declaration (:meth:`Executor.overhead_us`)."""
        measured = self.profile.dispatch_us.get(executor.name)
        return measured if measured is not None else executor.overhead_us(self.profile)

    def flops(self, bsym) -> float:
        rule = FLOPS.get(bsym.sym.id)
        if rule is not None:
            return rule(bsym)
        return float(sum(_numel(p) for p in bsym.flat_outs if isinstance(p, TensorProxy)))

    def compute_us(self, bsym) -> float:
        """Time of ``bsym``'s arithmetic alone at this device's rate for its dtype."""
        us = self._compute.get(bsym)
        if us is None:
            dtype = next((p.dtype for p in bsym.flat_outs if isinstance(p, TensorProxy)), None)
            us = self._compute[bsym] = self.flops(bsym) / self.profile.flops_per_us(dtype, bsym.sym.id in FLOPS)
        return us

    def kernel_us(self, bytes_moved: float, compute_us: float) -> float:
        """One kernel moving ``bytes_moved`` bytes and computing for ``compute_us``."""
        p = self.profile
        return max(bytes_moved / (p.bandwidth_gbs * 1e3), compute_us) + p.launch_us

    def symbol_us(self, bsym, dispatch_us: float) -> float:
        """One bound symbol run alone by an executor with this per-op overhead (a view moves
        no data: only the overhead)."""
        if has_trait(bsym, VIEW):
            return self.profile.launch_us + dispatch_us
        us = self._alone.get(bsym)
        if us is None:
            moved = sum(_bytes(p) for p in {id(p): p for p in (*bsym.flat_args, *bsym.flat_outs)
                                            if isinstance(p, TensorProxy)}.values())
            extra = EXTRA_BYTES.get(bsym.sym.id)
            if extra is not None:
                moved += extra(bsym)
            us = self._alone[bsym] = self.kernel_us(moved, self.compute_us(bsym))
        return us + dispatch_us

    def region_us(self, bsyms, boundary, dispatch_us: float) -> float:
        """A fused region: ``boundary`` are the tensors crossing it (inputs and outputs).
        Its fused work is one kernel reading and writing only the boundary (how many kernels
        an executor's code generation makes of it is the executor's to add: inductor adds a
        launch per reduction); matrix products (``matmul`` trait) inside it are library calls,
        each costed as that kernel alone (its inputs and output go through memory)."""
        moved = sum(_bytes(p) for p in boundary if isinstance(p, TensorProxy))
        fused = library = 0.0
        for b in bsyms:
            if has_trait(b, MATMUL):
                library += self.symbol_us(b, 0.0)
            elif not has_trait(b, VIEW):
                fused += self.compute_us(b)
        return self.kernel_us(moved, fused) + library + dispatch_us
