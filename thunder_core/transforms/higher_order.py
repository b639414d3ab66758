"""Building sub-traces: recording a function into one, calling one inline, and the sub-trace
of a function's vector-Jacobian product.

* :func:`record_subtrace` records ``fn(*params)`` into a closed sub-trace of the trace being
  built: proxies of the enclosing trace it reads (a tensor the function closes over, a module's
  parameter) become inputs after ``params``, so the higher-order call passes them explicitly;
* :func:`inline` records a sub-trace's calls again with other inputs (each symbol called
  anew, so metas, names and sources are the current trace's);
* :func:`vjp_subtrace` is a sub-trace computing the gradients of a sub-trace's inputs from
  its inputs and the cotangents of its outputs: its forward again (inline, with gradients on),
  then the reverse walk of ``transforms/autograd.py`` over it. The VJP rules of the
  higher-order symbols (``vjp_higher_order.py``) are built from it.
"""

from __future__ import annotations

import torch

from ..ir import Proxy, TensorProxy, Trace, TracingError, current_trace, flat_proxies, tensor_proxy, tracing
from ..ir.proxies import substitute
from ..ir.trace import subtraces
from .autograd import (NotSplittable, _map, _map_bsym, _may_alias, _without_grad, augment, backward_walk, dce, expand,
                       functionalize)

__all__ = ["record_subtrace", "writes_input", "with_inputs", "inline", "vjp_subtrace", "substitute", "reads_random", "like"]


def like(p: TensorProxy, requires_grad: bool | None = None, shape=None) -> TensorProxy:
    """A new tensor proxy with ``p``'s metadata (named by the current trace)."""
    rg = p.requires_grad if requires_grad is None else requires_grad
    return tensor_proxy(p.shape if shape is None else shape, p.dtype, p.device, rg)


def record_subtrace(fn, params, prefix: str, prune: bool = True) -> tuple[Trace, list]:
    """``(sub-trace, free)``: ``fn(*params)`` recorded into a sub-trace of the current trace
    (named ``<prefix><n>`` by it), whose inputs are ``params`` then ``free``, the proxies of the
    enclosing trace the calls read, in order of first use. ``fn`` returns a proxy or a
    tuple/list of proxies; the sub-trace returns them as a flat tuple. ``prune``: drop calls
    the outputs do not need (not when the caller adds outputs later)."""
    parent = current_trace()
    with parent.scope() as recorded:
        out = fn(*params)
    leaves = list(out) if type(out) in (tuple, list) else [out]
    defined = {id(p) for p in params}
    free, seen = [], set()

    def read(ps):
        for p in ps:
            if id(p) not in defined and id(p) not in seen:
                seen.add(id(p))
                free.append(p)

    for b in recorded:
        read(b.flat_args)
        defined.update(id(p) for p in b.flat_outs)
    read(p for p in leaves if isinstance(p, Proxy))
    sub = Trace(parent.make_name(prefix), args=[*params, *free],
                bound_symbols=dce(recorded, flat_proxies(leaves)) if prune else list(recorded),
                output=tuple(leaves), grad_enabled=torch.is_grad_enabled())
    return sub, free


def writes_input(sub: Trace):
    """The first bound symbol of ``sub`` that writes into one of its inputs (or a view of one)
    in place, or changes state (``torch.manual_seed``), else None."""
    aliases = {id(p) for p in sub.args}
    for b in sub.bound_symbols:
        if "effect" in b.sym.tags or "inplace" in b.sym.tags and b.flat_args and id(b.flat_args[0]) in aliases:
            return b
        if _may_alias(b) and any(id(p) in aliases for p in b.flat_args):
            aliases.update(id(p) for p in b.flat_outs)
    return None


def with_inputs(sub: Trace, inputs) -> Trace:
    """``sub`` taking ``inputs`` (a superset of its own, in the caller's order; the others unused)."""
    if list(inputs) == list(sub.args):
        return sub
    return Trace(sub.name, args=list(inputs), bound_symbols=sub.bound_symbols, output=sub.output,
                 grad_enabled=sub.grad_enabled)


def inline(sub: Trace, args):
    """Record ``sub``'s calls into the current trace with ``args`` for its inputs; returns its
    output for them."""
    trace = current_trace()
    env = {id(p): a for p, a in zip(sub.args, args)}
    for b in sub.bound_symbols:
        with trace.at_source(b.source):
            out = b.sym(*substitute(b.args, env), **substitute(dict(b.kwargs), env))
        olds = b.flat_outs
        news = flat_proxies(out)
        if len(olds) != len(news):
            raise TracingError(f"Calling {b.sym.id} again gave {len(news)} outputs instead of {len(olds)}.")
        env.update((id(o), n) for o, n in zip(olds, news))
    return substitute(sub.output, env)


def reads_random(sub: Trace) -> str | None:
    """The id of a random op ``sub`` calls (in its sub-traces too), or None."""
    for b in sub.bound_symbols:
        if "random" in b.sym.tags:
            return b.sym.id
        for inner in subtraces(b).values():
            found = reads_random(inner)
            if found is not None:
                return found
        stack = list(b.subsymbols)
        while stack:
            s = stack.pop()
            if "random" in s.sym.tags:
                return s.sym.id
            stack += s.subsymbols
    return None


def _scratch(parent: Trace, name: str) -> Trace:
    t = Trace(name)
    t._names |= parent._names
    t._counters.update(parent._counters)
    return t


def vjp_subtrace(sub: Trace, wrt, cotangent_of, prefix: str, what: str = "the function") -> Trace:
    """A sub-trace (named ``<prefix><n>`` by the current trace) taking ``(*sub's inputs,
    *cotangents)``, one cotangent per output position in ``cotangent_of``, and returning the
    gradients of the inputs at positions ``wrt`` (zeros where they get none), without
    requires_grad anywhere. Raises ``autograd.NotSplittable`` when ``sub`` cannot be
    differentiated that way (a random op would draw again; an in-place write into an input)."""
    parent = current_trace()
    rand = reads_random(sub)
    if rand is not None:
        raise NotSplittable(f"{what} calls {rand}, which would draw other numbers when its backward runs it again")
    wrt = list(wrt)
    fwd = _scratch(parent, "vjp_forward")
    with tracing(fwd), torch.enable_grad():
        primals = [like(p, requires_grad=i in wrt and _float(p)) if isinstance(p, TensorProxy) else p
                   for i, p in enumerate(sub.args)]
        fwd.args = [p for p in primals if isinstance(p, Proxy)]
        fwd.output = inline(sub, primals)
    joint = expand(augment(functionalize(fwd)))
    outs = [joint.output[k] for k in cotangent_of]
    bwd = _scratch(joint, "vjp_backward")
    with tracing(bwd), torch.no_grad():
        cts = [tensor_proxy(p.shape, p.dtype, p.device) for p in outs]
        differentiable = [k for k, p in enumerate(outs) if isinstance(p, TensorProxy) and p.requires_grad]
        grads = backward_walk(joint, [outs[k] for k in differentiable], [cts[k] for k in differentiable])
        result = []
        for i in wrt:
            p = primals[i]
            g = grads.get(id(p))
            result.append(_zeros(p) if g is None else g)
    bsyms = dce(joint.bound_symbols + bwd.bound_symbols, flat_proxies(result))
    parent._names |= bwd._names  # (names of sub-traces made inside, too)
    detach = _without_grad({})
    out = Trace(parent.make_name(prefix), args=[_map(p, detach) for p in (*fwd.args, *cts)],
                bound_symbols=[_map_bsym(b, detach) for b in bsyms], output=tuple(_map(g, detach) for g in result),
                grad_enabled=False)
    parent._names |= out._names
    return out


def _float(p) -> bool:
    return p.dtype.is_floating_point or p.dtype.is_complex


def _zeros(p: TensorProxy):
    from ..ops.registry import T

    return T.zeros(p.shape, dtype=p.dtype, device=p.device)
