"""The VJP table: how to differentiate one bound symbol, keyed by symbol id.

A rule receives the forward bound symbol and one cotangent per flat output of it, and
returns the gradients of its positional arguments, written in the op language (calls of
ltorch symbols through ``T``/``F``, or of prims), so the backward is a trace like any other:
printed, verified and claimed by executors::

    @vjp("prims.mul")
    def _(b, g):
        x, y = b.args
        return g * y, g * x        # grads of x and y (ignored for arguments that are numbers)

* ``b.args``/``b.kwargs``/``b.output`` are the forward proxies. A rule may use any of them:
  those the backward needs become the values the forward saves (or recomputes, see
  ``remat.py``).
* cotangents: one per flat output of ``b``, in order; a tensor proxy for each output that
  requires grad (zeros when nothing downstream used it), None for outputs that do not.
* return: a structure parallel to ``b.args`` (a tuple with one entry per positional argument;
  a list entry for a list argument such as ``cat``'s tensors). Each entry is a gradient with
  the argument's shape and dtype, or None (no gradient). Entries for arguments that are not
  tensors requiring grad are ignored, so a rule may return grads for every argument.

Symbols without a rule are differentiated through their decomposition (each subsymbol's rule);
symbols with neither (opaque torch ops, ops whose torch function is their definition) use
:data:`torch_vjp`: the backward re-runs that one op under PyTorch's autograd and asks it for
the vector-Jacobian product, so every op torch can differentiate is differentiable here.
Plugins add rules for their symbols through the ``thunder_core_vjp_rules`` hook: they are read
from the current plugin registry (``plugins.registry().vjp_rules``) whenever a symbol has no
built-in rule, so registering or unregistering a plugin takes effect on the next compile.
"""

from __future__ import annotations

from typing import Callable

from .. import plugins
from ..ir import Symbol, TensorProxy, tensor_proxy
from ..ir.printing import NAMESPACES
from ..ir.proxies import flat_proxies
from ..ir.traits import ELEMENTWISE
from ..ops import ltorch
from ..ops.registry import TORCH_IMPLS

__all__ = ["VJP", "FORWARD", "vjp", "forward_for_grad", "rule_for", "sum_to", "torch_vjp", "zeros_for"]

#: symbol id -> rule(bound_symbol, *cotangents) -> gradients parallel to the positional args.
VJP: dict[str, Callable] = {}
#: symbol id -> applies(bound_symbol) -> bool, for rules that only cover some calls; the
#: other calls are differentiated through the symbol's decomposition.
APPLIES: dict[str, Callable] = {}
#: symbol id -> forward(bound_symbol) for calls that need gradients: records (with symbols)
#: a replacement whose first output is the call's output and whose other outputs are
#: statistics its VJP rule wants (attention's logsumexp), or returns None to keep the call.
FORWARD: dict[str, Callable] = {}
_builtins_loaded = False  # the transforms/vjp_*.py modules register into the tables above on first use


def forward_for_grad(*ids: str):
    """Register the decorated function as the training forward of the symbols ``ids`` (see FORWARD)."""
    def register(fn):
        for sid in ids:
            FORWARD[sid] = fn
        return fn
    return register


def vjp(*ids: str, applies: Callable | None = None):
    """Register the decorated function as the VJP rule of the symbols ``ids``; with
    ``applies``, only for the calls it accepts (``scaled_dot_product_attention`` without
    dropout: with dropout, the decomposition draws the mask in the forward)."""
    def register(rule):
        for sid in ids:
            if sid in VJP:
                raise ValueError(f"vjp: a rule for {sid!r} is registered twice ({VJP[sid].__module__} and "
                                 f"{rule.__module__}).")
            VJP[sid] = rule
            if applies is not None:
                APPLIES[sid] = applies
        return rule
    return register


def forward_of(sid: str, bsym=None):
    """The training forward of symbol ``sid`` (for the call ``bsym``, if given) or None (none
    for a call on complex tensors whose rule is replaced there, see :func:`rule_for`)."""
    if not _builtins_loaded:
        _load_builtins()
    fwd = FORWARD.get(sid)
    if fwd is not None and bsym is not None and _complex_fallback(sid, bsym):
        return None
    return fwd


def rule_for(sid: str, bsym=None):
    """The rule of symbol ``sid`` (for the call ``bsym``, if given) or None: the built-in one,
    else a plugin's (a built-in rule wins over a plugin's). Loads the built-in tables on
    first use. A call on complex tensors gets :func:`torch_vjp_rule` instead of a built-in
    torch-level rule that is not known to be right for them (torch's gradients of complex
    functions are conjugate Wirtinger derivatives: ``mul``'s is ``g * y.conj()``; the rules
    are written for real dtypes, and the prims' rules send complex calls to the fallback
    themselves)."""
    if not _builtins_loaded:
        _load_builtins()
    rule = VJP.get(sid)
    if rule is None:
        return plugins.registry().vjp_rules.get(sid)
    if bsym is not None and sid in APPLIES and not APPLIES[sid](bsym):
        return None
    if bsym is not None and _complex_fallback(sid, bsym):
        return torch_vjp_rule if sid in TORCH_IMPLS else None  # (None: through its decomposition's prims)
    return rule


#: torch-level symbols whose rules are right for complex tensors too: they add, negate, sum or
#: average elements with real coefficients (symbols with the "view" or "shape" trait, which only
#: move elements, are right too)
COMPLEX_SAFE = {"ltorch.add", "ltorch.sub", "ltorch.neg", "ltorch.sum", "ltorch.mean", "ltorch.cat", "ltorch.stack",
                "ltorch.clone", "ltorch.contiguous"}


def _complex_fallback(sid: str, bsym) -> bool:
    if sid.startswith("prims.") or sid in COMPLEX_SAFE or not bsym.sym.tags.isdisjoint(("view", "shape")):
        return False
    return any(isinstance(p, TensorProxy) and p.dtype.is_complex for p in (*bsym.flat_args, *bsym.flat_outs))


def _load_builtins():
    """Import every ``transforms/vjp_*.py`` module: each registers the rules of one family."""
    global _builtins_loaded
    _builtins_loaded = True
    import importlib
    import pkgutil

    from .. import transforms

    for module in sorted(m.name for m in pkgutil.iter_modules(transforms.__path__)):
        if module.startswith("vjp_") and not module.endswith("_ns"):  # (vjp_ns: the printing namespace)
            importlib.import_module(f"{transforms.__name__}.{module}")


# ---------------------------------------------------------------- helpers for rules

def sum_to(g, shape):
    """``g`` summed down to ``shape`` (undoing broadcasting), a no-op when shapes match."""
    from ..ops.prims_shape import same_shape
    from ..ops.registry import T

    shape = tuple(shape)
    if same_shape(g.shape, shape):
        return g
    lead = g.ndim - len(shape)
    dims = list(range(lead)) + [lead + i for i, s in enumerate(shape) if s == 1 and g.shape[lead + i] != 1]
    if dims:
        g = T.sum(g, dims, keepdim=True)
    return T.reshape(g, shape) if tuple(g.shape) != shape else g


def zeros_for(p: TensorProxy):
    """A zero tensor shaped like ``p`` (a cotangent for an output nothing used)."""
    from ..ops.registry import T

    return T.zeros(p.shape, dtype=p.dtype, device=p.device)


# ---------------------------------------------------------------- the PyTorch fallback

NAMESPACES.setdefault("autograd", "thunder_core.transforms.vjp_ns")


def _torch_vjp_meta(inputs, cotangents, *, vjp_of, wrt, **kwargs):
    tensors = [p for p in flat_proxies(inputs) if isinstance(p, TensorProxy)]
    return tuple(tensor_proxy(tensors[i].shape, tensors[i].dtype, tensors[i].device) for i in wrt)


#: ``autograd.torch_vjp(inputs, cotangents, vjp_of=<symbol id>, wrt=(i, ...), **op_kwargs)``:
#: the gradients of the flat tensor inputs numbered ``wrt``, computed by re-running the op
#: ``vjp_of`` on ``inputs`` under PyTorch autograd and asking it for the vector-Jacobian
#: product with ``cotangents`` (one per output that requires grad). Executors implement it
#: with their own implementation of ``vjp_of``.
torch_vjp = Symbol("torch_vjp", _torch_vjp_meta, "autograd.torch_vjp", is_prim=True, module="autograd",
                   tags=frozenset({"opaque"}))


def _add_cotangent_meta(cotangent, grad):
    return tensor_proxy(grad.shape, grad.dtype, grad.device)


#: ``autograd.add_cotangent(cotangent, grad)``: ``cotangent + grad`` where ``cotangent`` is the
#: gradient the backward received for an output that is also used inside the computation.
#: When nothing differentiated that output, the runtime passes a zero view and the sum is
#: ``grad`` itself, with no pass over memory (a model returning its logits and its loss).
#: An elementwise op: a fusing executor's region takes it in (a compiled sum with a zero view
#: costs nothing more), so it does not cut a backward's regions (HF models' key/value outputs).
#: Its decomposition (the sum) lets executors that generate code from primitives take it too.
add_cotangent = Symbol("add_cotangent", _add_cotangent_meta, "autograd.add_cotangent",
                       decomposition=lambda cotangent, grad: ltorch.add(cotangent, grad), module="autograd",
                       tags=frozenset({ELEMENTWISE}))


def _add_cotangent_impl(cotangent, grad):
    # the runtime marks the zero views it passes for outputs nothing differentiated
    # (execution/autograd_runtime.py); traced by a compiler, the mark is not seen: the sum stays
    return grad if getattr(cotangent, "_tc_zero_cotangent", False) else cotangent + grad


TORCH_IMPLS[add_cotangent.id] = _add_cotangent_impl


def torch_vjp_rule(b, *cotangents):
    """The fallback rule: one ``torch_vjp`` call, its outputs mapped back onto ``b.args``."""
    cts = tuple(c for c in cotangents if c is not None)
    differentiable = [o for o in b.flat_outs if isinstance(o, TensorProxy) and o.requires_grad]
    if len(cts) != len(differentiable):
        raise AssertionError(f"{b.sym.id}: {len(cts)} cotangents for {len(differentiable)} differentiable outputs")
    tensors = [p for p in flat_proxies(b.args) if isinstance(p, TensorProxy)]
    unused = _unused_inputs(b)
    wrt = tuple(i for i, p in enumerate(tensors) if p.requires_grad and i not in unused)
    grads = iter(torch_vjp(tuple(b.args), cts, vjp_of=b.sym.id, wrt=wrt, **b.kwargs) if wrt else ())
    k = iter(range(len(tensors)))

    def rebuild(x):
        if isinstance(x, TensorProxy):
            return next(grads) if next(k) in wrt else None
        if type(x) in (tuple, list):
            return type(x)(rebuild(y) for y in x)
        return None

    return tuple(rebuild(a) for a in b.args)



def _unused_inputs(b) -> set:
    """Positions (among the flat tensor arguments of ``b``) of inputs that require grad but
    that PyTorch's autograd does not differentiate through this op (``cosine_embedding_loss``'s
    target): their gradient is None in eager, not zeros. Found by running the op on fake
    tensors under autograd; empty when that is not possible."""
    import torch
    import torch.utils._pytree as pytree

    from ..ops.registry import TORCH_IMPLS, _mode, fake_args

    fn = TORCH_IMPLS.get(b.sym.id)
    if fn is None:
        return set()
    try:
        mode = _mode()
        with torch.enable_grad():
            args, kwargs, _ = fake_args(b.args, dict(b.kwargs), mode)
            leaves = [x for x in pytree.tree_leaves(args) if isinstance(x, torch.Tensor)]
            with mode:
                outs = [o for o in pytree.tree_leaves(fn(*args, **kwargs))
                        if isinstance(o, torch.Tensor) and o.requires_grad]
                wanted = [(i, x) for i, x in enumerate(leaves) if x.requires_grad]
                if not outs or not wanted:
                    return set()
                grads = torch.autograd.grad(outs, [x for _, x in wanted], [torch.ones_like(o) for o in outs],
                                            allow_unused=True)
    except Exception:  # noqa: BLE001 - an op fake tensors cannot differentiate: assume every input is used
        return set()
    return {i for (i, _), g in zip(wanted, grads) if g is None}
