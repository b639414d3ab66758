"""Split a trace that needs gradients into a forward trace and a backward trace.

``split(trace)`` (the trace a capture produced) works in these steps:

1. **functionalize**: in-place ops on intermediates become their functional op, later uses
   read the new value; writes into inputs that need no gradient (a BatchNorm counter) stay.
   An in-place op whose target is an input that requires grad, or an alias of a value still
   read afterwards, cannot be rewritten soundly: ``split`` then returns the reason and the
   caller runs the trace under PyTorch's autograd instead (correct, just not split);
2. **augment**: calls with a training forward (``vjp.FORWARD``) are recorded as that
   forward, which also returns the statistics their backward kernel wants;
3. **expand**: a bound symbol whose outputs require grad and that has no VJP rule is replaced
   by its decomposition, recursively, so every remaining one has a rule (or uses the
   PyTorch fallback rule for ops with neither, see ``vjp.py``);
4. **backward**: walk the forward in reverse, calling each rule with the cotangents of the
   bound symbol's outputs and accumulating the gradients of its inputs;
5. **saved values**: the forward values the backward reads are what the forward must save;
   ``remat.choose_saved`` picks, by a min-cut, which to save and which cheap ones to
   recompute in the backward instead.

The forward trace returns ``(output, saved)``; the backward takes ``(*saved, *cotangents)``
(one cotangent per distinct output proxy that requires grad, in output order) and returns
one gradient per forward input (None where there is none).
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

from ..ir import Trace, TensorProxy, flat_proxies, replay, tensor_proxy, tracing
from ..ir.traits import draws_random, writes_into
from . import vjp as _vjp
from .numbers import materialize_numbers

__all__ = ["Split", "NotSplittable", "split", "needs_grad", "differentiable_outputs", "backward_walk", "dce"]


@dataclass
class Split:
    forward: Trace
    backward: Trace
    saved: list            # forward proxies the backward takes first
    cotangent_of: list     # the output proxies the backward's cotangent inputs belong to
    joint: Trace           # the functional, expanded trace both were derived from


def needs_grad(trace: Trace) -> bool:
    return any(isinstance(p, TensorProxy) and p.requires_grad for p in flat_proxies(trace.output))


def differentiable_outputs(trace: Trace) -> list:
    seen, out = set(), []
    for p in flat_proxies(trace.output):
        if isinstance(p, TensorProxy) and p.requires_grad and id(p) not in seen:
            seen.add(id(p))
            out.append(p)
    return out


class NotSplittable(Exception):
    """``trace`` cannot be split into a forward and a backward; the message says why (PyTorch's
    autograd then differentiates through the executed ops)."""


def split(trace: Trace, fusing: bool = True) -> Split:
    """A :class:`Split` of ``trace``; raises :class:`NotSplittable` saying why it cannot be
    split. ``fusing``: an executor will fuse the backward, so recomputing elementwise ops
    there is cheap."""
    joint = functionalize(_without_leaves_made_inside(trace))
    joint = expand(augment(joint))
    for b in joint.bound_symbols:
        if "random" in b.sym.tags and _vjp.rule_for(b.sym.id, b) is None and any(
                isinstance(p, TensorProxy) and p.requires_grad for p in b.flat_outs):
            # the fallback would re-run the op in the backward and draw different numbers
            where = f" at {b.source[0]}:{b.source[1]}" if b.source else ""
            raise NotSplittable(f"{b.sym.id}{where} is random and has neither a VJP rule nor a decomposition")
    return build(joint, fusing)


def _without_leaves_made_inside(trace: Trace) -> Trace:
    """``trace`` for the split, where it makes tensors requiring grad inside; raises
    NotSplittable where that cannot be split. A tensor made requiring grad inside
    (`torch.ones(3, requires_grad=True)`, wav2vec2's feature encoder setting `requires_grad =
    True` on a slice of its input) is a leaf of eager's graph, where the split differentiates
    with respect to the inputs only. That is
    the same wherever nothing can see the difference: the leaf (or what aliases it) is not an
    output, so its ``.grad`` is never read, and every output that requires grad depends on an
    input that does, so it gets its grad_fn from the split's autograd node. Then the writes
    that make a tensor requiring grad (``requires_grad = True``, ``requires_grad_()``) are left
    out: the split differentiates nothing with respect to that tensor, whose gradient eager
    computes for no one."""
    leaves, from_inputs = [], {id(p) for p in flat_proxies((trace.args, trace.kwargs))
                              if isinstance(p, TensorProxy) and p.requires_grad}
    for b in trace.bound_symbols:
        args = [p for p in b.flat_args if isinstance(p, TensorProxy)]
        if any(id(p) in from_inputs for p in args):
            from_inputs.update(id(p) for p in b.flat_outs)
        if any(isinstance(p, TensorProxy) and p.requires_grad for p in b.flat_outs) and not any(
                p.requires_grad for p in args):
            leaves.append(b)
    if not leaves:
        return trace
    outs = [p for p in flat_proxies(trace.output) if isinstance(p, TensorProxy)]
    made = {id(p) for b in leaves for p in b.flat_outs}
    b = leaves[0]
    where = f" at {b.source[0]}:{b.source[1]}" if b.source else ""
    if any(id(p) in made for p in outs) or any(p.requires_grad and id(p) not in from_inputs for p in outs):
        raise NotSplittable(f"{b.sym.id}{where} makes a new tensor requiring grad (a leaf of the autograd graph)")
    # (`requires_grad_()` and the setter write into their argument; a factory taking
    # requires_grad=True makes its own leaf, which stays)
    setters = {id(b) for b in leaves if b.args and any(w is b.args[0] for w in writes_into(b))}
    if not setters:
        return trace
    new, rename = trace.derive(bound_symbols=[]), {}
    for b in trace.bound_symbols:
        if id(b) in setters:
            rename.update((id(p), b.args[0]) for p in b.flat_outs)
        else:
            new.bound_symbols.append(_sub_bsym(b, rename) if rename else b)
    return new


# ---------------------------------------------------------------- 1. functionalize

def _may_alias(bsym) -> bool:
    """May the output share memory with an argument? The op's declared aliasing trait says
    (registry.ALIAS_TAGS); an opaque op (unless its operator's schema says its outputs are
    fresh) or a symbol the ops package does not define may."""
    from ..ops.registry import ALIAS_TAGS, OPDEFS, PRIMS

    sid, tags = bsym.sym.id, bsym.sym.tags
    if "fresh-output" in tags:
        return False
    return bool(tags & ALIAS_TAGS) or "opaque" in tags or (sid not in PRIMS and sid not in OPDEFS)


def functionalize(trace: Trace) -> Trace:
    """``trace`` with in-place ops on intermediates made functional; raises NotSplittable saying
    why it cannot be."""
    from ..ops.registry import SYMBOLS

    bsyms = trace.bound_symbols
    if not any("inplace" in b.sym.tags for b in bsyms):
        return trace
    inputs = {id(p) for p in flat_proxies((trace.args, trace.kwargs))}
    whole = [_keeps_whole(b) for b in bsyms]
    group: dict[int, set] = {}  # proxy id -> ids of the proxies that may share its memory
    same: dict[int, set] = {}   # proxy id -> ids naming the same tensor (in-place results on it)
    for b, kept in zip(bsyms, whole):
        if kept:
            continue
        if _may_alias(b) or "inplace" in b.sym.tags:
            # an in-place op's output is its first argument; a view's may be any tensor argument
            read = b.flat_args[:1] if "inplace" in b.sym.tags else b.flat_args
            members = set().union(*(group.get(id(p), {id(p)}) for p in read if isinstance(p, TensorProxy)))
            members |= {id(p) for p in b.flat_outs}
            for m in members:
                group[m] = members
        if "inplace" in b.sym.tags and b.args and isinstance(b.args[0], TensorProxy):
            names = same.get(id(b.args[0]), {id(b.args[0])}) | {id(p) for p in b.flat_outs}
            for m in names:
                same[m] = names
    last_read: dict[int, int] = {}
    defined: dict[int, int] = {}  # proxy id -> position of the bound symbol making it
    for i, b in enumerate(bsyms):
        for p in b.flat_args:
            last_read[id(p)] = i
        for p in b.flat_outs:
            defined.setdefault(id(p), i)
    for p in flat_proxies(trace.output):
        last_read[id(p)] = len(bsyms)

    new = trace.derive(bound_symbols=[])
    rename: dict[int, object] = {}
    origin: dict[int, int] = {}  # id of a functional result -> id of the tensor it stands for
    for i, b in enumerate(bsyms):
        if rename:
            b = _sub_bsym(b, rename)
        if "inplace" not in b.sym.tags or whole[i]:
            new.bound_symbols.append(b)
            continue
        target = b.args[0]
        where = f"{b.sym.id} at {b.source[0]}:{b.source[1]}" if b.source else b.sym.id
        functional = SYMBOLS.get(_FUNCTIONAL.get(b.sym.id, b.sym.id[:-1])) \
            if b.sym.id.endswith("_") and "opaque" not in b.sym.tags or b.sym.id in _FUNCTIONAL else None
        key = origin.get(id(target), id(target)) if isinstance(target, TensorProxy) else None
        if isinstance(target, TensorProxy) and not _can_require_grad(target) or key in inputs and not \
                target.requires_grad and not any(isinstance(p, TensorProxy) and p.requires_grad for p in b.flat_args):
            # No gradient flows through this write (an integer tensor such as T5's position buckets,
            # or state such as a BatchNorm counter): it stays in the forward, in program order, where
            # it has eager's effect on every alias; the backward never reads through it.
            new.bound_symbols.append(b)
            continue
        if functional is None or not isinstance(target, TensorProxy):
            raise NotSplittable(f"{where} writes into a tensor and has no functional form to differentiate")
        if key in inputs or group.get(key, set()) & inputs:
            raise NotSplittable(f"{where} writes into an input of the jitted function (or a view of one)")
        # Other names of this same tensor (in-place results on it, before or after this write)
        # are renamed to the new values, and views made after the write are made from them;
        # only views (or the base) that existed before the write and are read after it would
        # see eager's write where the functional form cannot show it.
        aliases = group.get(key, set()) - same.get(key, {key})
        if any(last_read.get(a, -1) > i and defined.get(a, -1) < i for a in aliases):
            raise NotSplittable(f"{where} writes into a tensor whose views (or base) are read afterwards")
        with tracing(new), new.at_source(b.source):
            out = functional(*b.args, **b.kwargs)
            if out.dtype != target.dtype:
                out = out.to(target.dtype)
        if not isinstance(out, TensorProxy) or out.shape != target.shape:
            raise NotSplittable(f"{where} changes its target's shape, so it has no functional form")
        origin[id(out)] = key
        for k, v in rename.items():  # earlier names of the target now mean the new value
            if v is target:
                rename[k] = out
        rename[id(target)] = out
        for p in b.flat_outs:
            rename[id(p)] = out
    new.output = _sub(trace.output, rename)
    return new


def _can_require_grad(t: TensorProxy) -> bool:
    return t.dtype.is_floating_point or t.dtype.is_complex


#: in-place ops whose functional form is not their name without the underscore
_FUNCTIONAL = {"ltorch.setitem": "ltorch.setitem_out", "ltorch.normal_": "ltorch.normal_functional"}


def _keeps_whole(b) -> bool:
    """An op tagged in-place that returns a fresh tensor and stays as it is: either its
    decomposition writes nothing here (``batch_norm`` in eval mode), or it only updates
    state that does not need gradients (running statistics) and has a VJP rule, which
    differentiates its output without running it again."""
    if "inplace" not in b.sym.tags or b.sym.id.endswith("_") or "opaque" in b.sym.tags:
        return False
    written = writes_into(b) if b.subsymbols else []
    if b.subsymbols and not written:
        return True
    return _vjp.rule_for(b.sym.id, b) is not None and not any(p.requires_grad for p in written)


def _map(x, f):
    """``x`` with ``f`` applied to every tensor proxy in it (through tuples, lists, dicts)."""
    if isinstance(x, TensorProxy):
        return f(x)
    if type(x) in (tuple, list):
        return type(x)(_map(y, f) for y in x)
    if isinstance(x, dict):
        return {k: _map(v, f) for k, v in x.items()}
    return x


def _map_bsym(b, f):
    """``b`` (and its subsymbols) with ``f`` applied to every tensor proxy it reads or defines;
    ``b`` itself when ``f`` changes none (one walk: most calls of a backward hold nothing a
    mapping changes, and looking through cached argument lists is much cheaper than rebuilding)."""
    subs = b.subsymbols
    mapped = [_map_bsym(s, f) for s in subs] if subs else None
    if (mapped is None or all(m is s for m, s in zip(mapped, subs))) and \
            all(f(p) is p for p in b.flat_args if isinstance(p, TensorProxy)) and \
            all(f(p) is p for p in b.flat_outs if isinstance(p, TensorProxy)):
        return b
    return b.replace(args=_map(b.args, f), kwargs=_map(dict(b.kwargs), f), output=_map(b.output, f),
                     subsymbols=mapped if mapped is not None else ())


def _sub(x, rename):
    return _map(x, lambda p: rename.get(id(p), p))


def _sub_bsym(b, rename):
    # most calls read nothing renamed: looking (through cached argument lists) is much cheaper
    # than rebuilding every subsymbol of every later call, which was most of augment's time
    if not _reads_any(b, rename):
        return b
    return _map_bsym(b, lambda p: rename.get(id(p), p))


def _reads_any(b, ids) -> bool:
    return any(id(p) in ids for p in b.flat_args) or any(_reads_any(s, ids) for s in b.subsymbols)


# ---------------------------------------------------------------- 2. expand

def augment(trace: Trace) -> Trace:
    """Record the training forward (``vjp.FORWARD``) of calls that need gradients: the same
    output plus statistics the backward would otherwise recompute."""
    new = trace.derive(bound_symbols=[])
    rename: dict[int, object] = {}
    with replay.replaying(new):  # one recording per structure (ir/replay.py)
        for b in trace.bound_symbols:
            if rename:
                b = _sub_bsym(b, rename)
            fwd = _vjp.forward_of(b.sym.id, b)
            if fwd is None or not any(isinstance(p, TensorProxy) and p.requires_grad for p in b.flat_outs):
                new.bound_symbols.append(b)
                continue
            with tracing(new), new.at_source(b.source):
                out = fwd(b)
            if out is None:
                new.bound_symbols.append(b)
                continue
            old_outs, new_outs = b.flat_outs, flat_proxies(out[0])
            if [(p.shape, p.dtype) for p in old_outs] != [(p.shape, p.dtype) for p in new_outs]:
                raise TypeError(f"The training forward of {b.sym.id} returned {out[0]!r}, which does not match the "
                                f"call's output {b.output!r}.")
            rename.update((id(o), n) for o, n in zip(old_outs, new_outs))
    new.output = _sub(trace.output, rename)
    return new



def expand(trace: Trace) -> Trace:
    """Replace bound symbols that need a gradient and have no VJP rule by their subsymbols."""
    out: list = []

    def walk(b):
        if _vjp.rule_for(b.sym.id, b) is not None or not b.subsymbols or \
                not any(isinstance(p, TensorProxy) and p.requires_grad for p in b.flat_outs):
            out.append(b)
        else:
            for s in b.subsymbols:
                walk(s)

    for b in trace.bound_symbols:
        walk(b)
    return trace.derive(bound_symbols=out)


# ---------------------------------------------------------------- 3. backward

def build(joint: Trace, fusing: bool = True) -> Split:
    from .remat import choose_saved

    bwd = joint.derive(name="backward", args=[], kwargs={}, bound_symbols=[], output=None)
    bwd.grad_enabled = False
    outs = differentiable_outputs(joint)
    with tracing(bwd), torch.no_grad(), replay.replaying(bwd):  # one recording per structure
        cts = [tensor_proxy(p.shape, p.dtype, p.device) for p in outs]
        grads = backward_walk(joint, outs, cts)
    ct_ids = {id(c) for c in cts}
    inputs = [*joint.args, *joint.kwargs.values()]
    bwd.output = tuple(grads.get(id(p)) if isinstance(p, TensorProxy) and p.requires_grad else None for p in inputs)
    bwd_syms = dce(bwd.bound_symbols, flat_proxies(bwd.output))
    seen = {id(p) for b in bwd_syms for p in b.flat_outs} | ct_ids
    needed = []  # forward values the backward reads
    for p in (*(p for b in bwd_syms for p in b.flat_args), *flat_proxies(bwd.output)):
        if id(p) not in seen:
            seen.add(id(p))
            needed.append(p)
    saved, recompute = choose_saved(joint, needed, fusing, bwd_syms)
    # the backward sees forward values as plain (detached) tensors: requires_grad off everywhere
    detach = _without_grad({})
    bwd.bound_symbols = [_map_bsym(b, detach) for b in _interleave(recompute, bwd_syms)]
    bwd.args = [_map(p, detach) for p in (*saved, *cts)]
    bwd.output = _map(bwd.output, detach)
    fwd = joint.derive(name="forward", output=(joint.output, tuple(saved)))
    fwd.bound_symbols = dce(fwd.bound_symbols, flat_proxies(fwd.output))
    fwd = materialize_numbers(fwd)  # symbolic sizes the backward reads, made inside decompositions
    return Split(fwd, bwd, saved, outs, joint)


def _interleave(recompute, bwd_syms) -> list:
    """The backward's bound symbols with each recomputed one placed just before the first that
    reads it (its own inputs first), not all at the start: a fusing executor claims contiguous
    runs, so recomputation at the start would be cut off from the ops it feeds by any op it
    cannot fuse (``nll_loss_backward``, first in a language model's backward); each recomputed
    value also lives only from its first use."""
    producer = {id(o): b for b in recompute for o in b.flat_outs}
    out, done = [], set()

    def emit(b):
        if id(b) in done:
            return
        done.add(id(b))
        for a in b.flat_args:
            if id(a) in producer:
                emit(producer[id(a)])
        out.append(b)

    for b in bwd_syms:
        for a in b.flat_args:
            if id(a) in producer:
                emit(producer[id(a)])
        out.append(b)
    for b in recompute:  # read only by the output (a recomputed value returned as a gradient)
        emit(b)
    return out


def backward_walk(joint: Trace, outs, cts) -> dict:
    """Record, into the current trace (under no_grad), the gradients of ``joint``'s values from
    the cotangents ``cts`` of its outputs ``outs``: a reverse walk calling each bound symbol's
    VJP rule. Returns ``{id(forward proxy): its gradient}``."""
    from ..ir import current_trace

    bwd = current_trace()
    ct_ids = {id(c) for c in cts}
    grads: dict[int, object] = {id(p): c for p, c in zip(outs, cts)}
    for b in reversed(joint.bound_symbols):
        flat = b.flat_outs
        if not any(id(o) in grads for o in flat):
            continue
        if not any(isinstance(a, TensorProxy) and a.requires_grad for a in b.flat_args):
            continue
        with bwd.at_source(b.source):
            cotangents = [grads.get(id(o)) if id(o) in grads else
                          (_vjp.zeros_for(o) if isinstance(o, TensorProxy) and o.requires_grad else None)
                          for o in flat]
            rule = _vjp.rule_for(b.sym.id, b) or _vjp.torch_vjp_rule
            result = rule(b, *cotangents)
            _accumulate(b, b.args, result, grads, ct_ids)
    return grads


def _accumulate(b, args, result, grads, cotangents):
    if not isinstance(result, (tuple, list)) or len(result) != len(args):
        raise TypeError(f"The VJP rule of {b.sym.id} returned {result!r:.80}; it must return one gradient (or None) "
                        f"per positional argument ({len(args)}).")
    for a, g in zip(args, result):
        if g is None:
            continue
        if type(a) in (tuple, list):
            _accumulate(b, a, g, grads, cotangents)
        elif isinstance(a, TensorProxy) and a.requires_grad:
            if not isinstance(g, TensorProxy) or tuple(g.shape) != tuple(a.shape):
                raise TypeError(f"The VJP rule of {b.sym.id} returned a gradient {g!r} of shape "
                                f"{getattr(g, 'shape', None)} for {a.name} of shape {a.shape}.")
            if g.dtype != a.dtype:
                g = g.to(a.dtype)
            prev = grads.get(id(a))
            grads[id(a)] = g if prev is None else _vjp.add_cotangent(prev, g) if id(prev) in cotangents else prev + g


def _without_grad(m):
    """A proxy mapper to copies with requires_grad off (one copy per proxy, memoized in ``m``)."""
    def f(p):
        if not p.requires_grad:
            return p
        if id(p) not in m:
            m[id(p)] = p.replace(requires_grad=False)
        return m[id(p)]
    return f


_KEEP = frozenset({"inplace", "effect"})


def dce(bsyms, outputs) -> list:
    """The bound symbols needed to compute ``outputs``, every write (in-place op) that stayed
    in the trace, every effect (``torch.manual_seed``) and every draw of random numbers, used or
    not: eager draws them all, and a draw left out would shift every later one (PegasusX's
    last global-token dropouts, whose results nothing reads, changed the dropout masks drawn
    after them and the generator's state after the call)."""
    live = {id(p) for p in outputs}
    kept = []
    for b in reversed(bsyms):
        if any(id(o) in live for o in b.flat_outs) or b.sym.tags & _KEEP or \
                "random" in b.sym.tags and draws_random(b):
            kept.append(b)
            live.update(id(p) for p in b.flat_args)
    kept.reverse()
    return kept

