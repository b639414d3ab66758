"""Lookasides for PyTorch's control-flow operators: ``torch.cond``, ``torch.while_loop`` and
``torch._higher_order_ops.scan``. The functions passed in are traced by re-entering the
interpreter, into sub-traces of one higher-order symbol (ops/higher_order.py) that runs them
at run time, so a tensor predicate or loop condition is decided on every call without
tracing again.

* ``torch.cond``: a Python or constant predicate (a shape test, a number the prologue checks;
  a symbolic number under ``cache="symbolic values"`` guards the predicate's outcome) runs
  one branch inline; a tensor predicate traces both branches into ``higher_order.cond``.
* ``torch.while_loop``: a condition that gives a Python bool is a Python loop, run while
  tracing; one that gives a tensor makes ``higher_order.while_loop`` (body traced once).
* ``scan``: the combine function traced once on one slice, ``higher_order.scan``;
  ``associative_scan``: an inclusive ``scan`` of the combine function.

As in eager, a function's outputs must not be its inputs (return ``x.clone()``), and a
function traced for both outcomes must not write outside state (it would happen for both).
"""

from __future__ import annotations

import inspect

import torch
import torch.utils._pytree as pytree

from ..frontend import events as ev
from ..ir import TensorProxy, TracingError, current_trace
from ..ops import higher_order as ho
from ..ops import ltorch
from ..transforms.higher_order import like, record_subtrace, with_inputs, writes_input


def _where(fn) -> str:
    code = getattr(getattr(fn, "__func__", fn), "__code__", None)
    name = getattr(fn, "__qualname__", None) or type(fn).__name__
    return f"{name} ({code.co_filename}:{code.co_firstlineno})" if code is not None else name


def _bind(fn, args, kwargs) -> dict:
    bound = inspect.signature(fn).bind(*args, **kwargs)
    bound.apply_defaults()
    return bound.arguments


class _Function:
    """A user's function traced into sub-traces: flattens what it returns, checks it, and
    refuses writes to outside state when the function is traced for more than one outcome."""

    def __init__(self, I, fn, op: str, role: str):
        self.I, self.fn, self.op, self.role = I, fn, op, role
        self.spec = None

    def record(self, params, prefix, build_args):
        I, start = self.I, len(self.I.events)

        def call(*ps):
            out = I.call(self.fn, build_args(ps), {})
            leaves, self.spec = pytree.tree_flatten(out)
            return tuple(leaves)

        sub, free = record_subtrace(call, params, prefix)
        b = writes_input(sub)
        if b is not None:
            where = f"{b.source[0]}:{b.source[1]}" if b.source else _where(self.fn)
            raise TracingError(f"{where}: {self.op}'s {self.role} {_where(self.fn)} "
                               f"{'changes global state' if 'effect' in b.sym.tags else 'writes into its input'} "
                               f"({b.sym.name}); as in eager, {self.op}'s functions must not modify their inputs or "
                               f"global state. Compute a new tensor instead (x.clone() first).")
        for e in I.events[start:]:
            if e.kind in ev.REPLAYED:
                raise TracingError(f"{e.where}: {self.op}'s {self.role} {_where(self.fn)} changes state outside "
                                   f"itself ({e.kind} {e.key!r}). thunder_core traces it once for every outcome, "
                                   f"so the change would happen when it does not run. Return the value instead "
                                   f"and make the change outside {self.op}.")
        return sub, free

    def check_outputs(self, sub):
        inputs = {id(p) for p in sub.args}
        seen = set()
        for k, p in enumerate(sub.output):
            if not isinstance(p, TensorProxy):
                raise TracingError(f"{self.op}'s {self.role} {_where(self.fn)} returns {p!r:.40} (a "
                                   f"{type(p).__name__}) at output {k}; {self.op} returns tensors only.")
            if id(p) in inputs or id(p) in seen:
                what = "one of its inputs" if id(p) in inputs else "the same tensor twice"
                raise TracingError(f"{self.op}'s {self.role} {_where(self.fn)} returns {what} (output {k}); as in "
                                   f"eager, {self.op} does not allow its outputs to alias its inputs or each other. "
                                   f"Return x.clone() instead.")
            seen.add(id(p))


def _meta_text(p) -> str:
    return f"tensor {list(p.shape)} {str(p.dtype).removeprefix('torch.')} on {p.device}"


def _union(*lists) -> list:
    out, seen = [], set()
    for ps in lists:
        for p in ps:
            if id(p) not in seen:
                seen.add(id(p))
                out.append(p)
    return out


def _distinct(leaves) -> list:
    """``leaves`` (tensor proxies) as distinct sub-trace inputs: a repeat becomes a new proxy."""
    seen, out = set(), []
    for p in leaves:
        out.append(like(p) if id(p) in seen else p)
        seen.add(id(p))
    return out


# ---------------------------------------------------------------- torch.cond

def cond(I, args, kwargs):
    a = _bind(torch.cond, *I.recorder.resolve(I, args, kwargs))
    pred, true_fn, false_fn, operands = a["pred"], a["true_fn"], a["false_fn"], a["operands"]
    if not isinstance(pred, TensorProxy):
        # a constant (guarded where it was read) or a symbolic number (bool() guards the predicate)
        return I.call(true_fn if pred else false_fn, tuple(operands), {})
    if pred.numel() != 1:
        raise TracingError(f"torch.cond: the predicate must be a boolean or a tensor with one element, not a "
                           f"{_meta_text(pred)}.")
    leaves, spec = pytree.tree_flatten(tuple(operands))
    for x in leaves:
        if not isinstance(x, TensorProxy):
            raise TracingError(f"torch.cond: operands must be tensors (possibly in nested tuples, lists and dicts), "
                               f"got {x!r:.40} (a {type(x).__name__}).")
    params = _distinct(leaves)
    branches = [_Function(I, true_fn, "torch.cond", "true_fn"), _Function(I, false_fn, "torch.cond", "false_fn")]
    subs, frees = [], []
    for f, prefix in zip(branches, ("cond_true", "cond_false")):
        sub, free = f.record(params, prefix, lambda ps: tuple(pytree.tree_unflatten(list(ps), spec)))
        f.check_outputs(sub)
        subs.append(sub)
        frees.append(free)
    t, f = branches
    if t.spec != f.spec:
        raise TracingError(f"torch.cond: true_fn {_where(true_fn)} returns {t.spec} but false_fn {_where(false_fn)} "
                           f"returns {f.spec}; both branches must return the same structure.")
    for k, (pt, pf) in enumerate(zip(subs[0].output, subs[1].output)):
        if (pt.shape, pt.dtype, pt.device) != (pf.shape, pf.dtype, pf.device):
            raise TracingError(f"torch.cond: output {k} is a {_meta_text(pt)} in true_fn {_where(true_fn)} but a "
                               f"{_meta_text(pf)} in false_fn {_where(false_fn)}; both branches must return tensors "
                               f"with the same shape, dtype and device.")
    extra = _union(*frees)
    inputs = [*params, *extra]
    out = ho.cond(pred, (*leaves, *extra), true_fn=with_inputs(subs[0], inputs), false_fn=with_inputs(subs[1], inputs))
    return pytree.tree_unflatten(list(out), t.spec)


# ---------------------------------------------------------------- torch.while_loop

def while_loop(I, args, kwargs):
    a = _bind(torch.while_loop, *I.recorder.resolve(I, args, kwargs))
    cond_fn, body_fn, carried = a["cond_fn"], a["body_fn"], a["carried_inputs"]
    leaves, spec = pytree.tree_flatten(tuple(carried))

    def unflat(ps):
        return tuple(pytree.tree_unflatten(list(ps), spec))

    with current_trace().scope():  # a probe: what the condition gives for the carried inputs
        first = I.call(cond_fn, tuple(carried), {})
    if not isinstance(first, TensorProxy):
        # a Python value (from shapes or Python numbers): a Python loop, run while tracing
        c, go = tuple(carried), first
        while go:
            c = tuple(I.call(body_fn, c, {}))
            go = I.call(cond_fn, c, {})
        return c
    cf = _Function(I, cond_fn, "torch.while_loop", "cond_fn")
    for x in leaves:
        if not isinstance(x, TensorProxy):
            raise TracingError(f"torch.while_loop: {_where(cond_fn)} decides on a tensor, so the loop runs at run "
                               f"time, and then every carried input must be a tensor; got {x!r:.40} (a "
                               f"{type(x).__name__}). Carry it as a tensor (torch.tensor({x!r:.20})).")
    bf = _Function(I, body_fn, "torch.while_loop", "body_fn")
    rg = [p.requires_grad for p in leaves]
    for _ in range(len(leaves) + 1):  # carries that come to need gradients in the body need them throughout
        params = [like(p, requires_grad=r) for p, r in zip(leaves, rg)]
        csub, cfree = cf.record(params, "while_cond", unflat)
        bsub, bfree = bf.record(params, "while_body", unflat)
        after = [r or (isinstance(o, TensorProxy) and o.requires_grad) for r, o in zip(rg, bsub.output)]
        if after == rg:
            break
        rg = after
    cpred = csub.output
    if len(cpred) != 1 or not isinstance(cpred[0], TensorProxy) or cpred[0].numel() != 1:
        raise TracingError(f"torch.while_loop: cond_fn {_where(cond_fn)} must return a boolean tensor with one "
                           f"element.")
    bf.check_outputs(bsub)
    if bf.spec != spec:
        raise TracingError(f"torch.while_loop: body_fn {_where(body_fn)} returns {bf.spec}, but the carried inputs "
                           f"are {spec}; it must return new values of the carried inputs.")
    for k, (o, c) in enumerate(zip(bsub.output, params)):
        if (o.shape, o.dtype, o.device) != (c.shape, c.dtype, c.device):
            raise TracingError(f"torch.while_loop: body_fn {_where(body_fn)} returns a {_meta_text(o)} for carried "
                               f"input {k}, a {_meta_text(c)}; a loop's carried values keep their shape, dtype and "
                               f"device.")
    additional = _union(cfree, bfree)
    inputs = [*params, *additional]
    out = ho.while_loop(tuple(leaves), tuple(additional), cond_fn=with_inputs(csub, inputs),
                        body_fn=with_inputs(bsub, inputs))
    return unflat(out)


# ---------------------------------------------------------------- scan

def scan(I, args, kwargs):
    from torch._higher_order_ops.scan import scan as torch_scan

    a = _bind(torch_scan, *I.recorder.resolve(I, args, kwargs))
    combine_fn, init, xs, dim, reverse = a["combine_fn"], a["init"], a["xs"], a["dim"], a["reverse"]
    init_leaves, init_spec = pytree.tree_flatten(init)
    xs_leaves, xs_spec = pytree.tree_flatten(xs)
    for x in (*init_leaves, *xs_leaves):
        if not isinstance(x, TensorProxy):
            raise TracingError(f"scan: init and xs must be tensors (possibly in nested tuples, lists and dicts), got "
                               f"{x!r:.40} (a {type(x).__name__}).")
    if not xs_leaves:
        raise TracingError("scan: xs has no tensors to scan over.")
    dim = dim % xs_leaves[0].ndim
    n = xs_leaves[0].shape[dim]
    if any(x.shape[dim] != n for x in xs_leaves):
        raise TracingError(f"scan: every tensor of xs must have the same size along dim {dim}.")
    nc = len(init_leaves)
    fn = _Function(I, combine_fn, "scan", "combine_fn")

    def build(ps):
        return (pytree.tree_unflatten(list(ps[:nc]), init_spec),
                pytree.tree_unflatten(list(ps[nc:nc + len(xs_leaves)]), xs_spec))

    xparams = [like(x, shape=x.shape[:dim] + x.shape[dim + 1:]) for x in xs_leaves]
    rg = [p.requires_grad for p in init_leaves]
    for _ in range(nc + 1):
        cparams = [like(p, requires_grad=r) for p, r in zip(init_leaves, rg)]
        sub, free = fn.record([*cparams, *xparams], "scan_combine", build)
        after = [r or o.requires_grad for r, o in zip(rg, sub.output)]
        if after == rg:
            break
        rg = after
    if fn.spec.num_children != 2 or fn.spec.type not in (tuple, list):
        raise TracingError(f"scan: combine_fn {_where(combine_fn)} must return a pair (next carry, output).")
    carry_spec, ys_spec = fn.spec.children()
    if carry_spec != init_spec:
        raise TracingError(f"scan: combine_fn {_where(combine_fn)} returns a carry {carry_spec}, but init is "
                           f"{init_spec}; it must return the next value of the carry.")
    fn.check_outputs(sub)
    for k, (o, c) in enumerate(zip(sub.output, cparams)):
        if (o.shape, o.dtype, o.device) != (c.shape, c.dtype, c.device):
            raise TracingError(f"scan: combine_fn {_where(combine_fn)} returns a {_meta_text(o)} for carry {k}, a "
                               f"{_meta_text(c)}; the carry keeps its shape, dtype and device.")
    inputs = [*cparams, *xparams, *free]
    out = ho.scan(tuple(init_leaves), tuple(xs_leaves), tuple(free), combine_fn=with_inputs(sub, inputs), dim=dim,
                  reverse=bool(reverse))
    return (pytree.tree_unflatten(list(out[:nc]), init_spec), pytree.tree_unflatten(list(out[nc:]), ys_spec))


def associative_scan(I, args, kwargs):
    """``associative_scan(combine_fn, xs, dim, reverse=False, combine_mode=...)``: the inclusive
    scan ``s[0] = x[0]``, ``s[k] = combine_fn(s[k - 1], x[k])`` (from the end with ``reverse``)
    as a ``scan`` whose carry is the running combination (each step's output too). Eager runs
    the same combinations in a tree order (combine_fn is associative): equal up to rounding.
    (Hugging Face's Mamba calls it when it sees a compiler, as under tc.jit.)"""
    from torch._higher_order_ops.associative_scan import associative_scan as torch_associative_scan

    a = _bind(torch_associative_scan, *I.recorder.resolve(I, args, kwargs))
    combine_fn, xs, dim, reverse = a["combine_fn"], a["xs"], a["dim"], bool(a["reverse"])
    leaves, spec = pytree.tree_flatten(xs)
    if not leaves or not all(isinstance(x, TensorProxy) for x in leaves):
        raise TracingError(f"associative_scan: xs must be tensors (possibly in nested tuples, lists and dicts), got "
                           f"{xs!r:.60}.")
    dim = dim % leaves[0].ndim
    n = leaves[0].shape[dim]
    if any(x.shape[dim] != n for x in leaves) or n == 0:
        raise TracingError(f"associative_scan: every tensor of xs must have the same size, at least 1, along dim "
                           f"{dim}.")
    if n == 1:
        return pytree.tree_unflatten([x.clone() for x in leaves], spec)
    at, rest = (n - 1, (0, n - 1)) if reverse else (0, (1, n - 1))
    first = [x.select(dim, at) for x in leaves]

    def step(carry, x):  # (runs natively: the user's combine_fn is interpreted)
        out = pytree.tree_leaves(I.call(combine_fn, (carry, x), {}))
        return pytree.tree_unflatten(out, spec), [o.clone() for o in out]

    xs_rest = pytree.tree_unflatten([x.narrow(dim, *rest) for x in leaves], spec)
    _, ys = scan(I, (step, pytree.tree_unflatten(first, spec), xs_rest), {"dim": dim, "reverse": reverse})
    # (eager's scan stacks the outputs at `dim` or first, by torch version: ho.stack_dim)
    ys = [y if (at := ho.stack_dim(f, dim)) == dim else y.movedim(at, dim) for f, y in zip(first, ys)]
    parts = [(y, f.unsqueeze(dim)) if reverse else (f.unsqueeze(dim), y) for f, y in zip(first, ys)]
    return pytree.tree_unflatten([ltorch.cat(p, dim=dim) for p in parts], spec)


def lookasides() -> dict:
    from torch._higher_order_ops.associative_scan import associative_scan as torch_associative_scan
    from torch._higher_order_ops.scan import scan as torch_scan

    return {torch.cond: cond, torch.while_loop: while_loop, torch_scan: scan,
            torch_associative_scan: associative_scan}
