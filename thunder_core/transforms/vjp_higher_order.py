"""VJP rules of the higher-order symbols (ops/higher_order.py), built from the VJP sub-traces
of their functions (``higher_order.vjp_subtrace``): the backward of a higher-order op is the
same kind of op over the VJPs of its functions, so executors claim and fuse inside it too.

* ``cond``: a ``cond`` on the same predicate of the two branches' VJPs (each branch's forward
  runs again inside its VJP: the branch's intermediate values are not saved);
* ``scan``: the training forward also returns the carries each step started from; the
  backward is a ``scan`` in the other direction over them, the slices and the outputs'
  cotangents, carrying the carry's cotangent and the additional inputs' gradient sums;
* ``while_loop``: ``while_loop_vjp``, which runs the loop again keeping each step's carries
  (how many steps there are is only known by running it), then the body's VJP backwards.

A function that cannot be differentiated this way (a random op, which would draw again; a
write into an input) makes the whole compile take gradients from PyTorch's autograd through
the executed ops instead (``autograd.NotSplittable``), which runs the control flow in Python.
"""

from __future__ import annotations

from ..ir import TensorProxy
from ..ops import higher_order as ho
from ..ops.registry import T
from .higher_order import inline, like, record_subtrace, vjp_subtrace
from .vjp import forward_for_grad, sum_to, vjp, zeros_for


def _needs_grad(p) -> bool:
    return isinstance(p, TensorProxy) and p.requires_grad


def _where(b) -> str:
    return f"{b.sym.id} at {b.source[0]}:{b.source[1]}" if b.source else b.sym.id


@vjp("higher_order.cond")
def _(b, *cts):
    pred, operands = b.args
    wrt = [i for i, p in enumerate(operands) if _needs_grad(p)]
    ct_of = [k for k, c in enumerate(cts) if c is not None]
    if not wrt:
        return None, tuple(None for _ in operands)
    subs = [vjp_subtrace(b.kwargs[k], wrt, ct_of, prefix, f"the {k} of {_where(b)}")
            for k, prefix in (("true_fn", "cond_true_vjp"), ("false_fn", "cond_false_vjp"))]
    grads = iter(ho.cond(pred, (*operands, *(cts[k] for k in ct_of)), true_fn=subs[0], false_fn=subs[1]))
    return None, tuple(next(grads) if i in wrt else None for i in range(len(operands)))


@vjp("higher_order.while_loop")
def _(b, *cts):
    carries, additional = b.args
    nc = len(carries)
    wc = [j for j, c in enumerate(cts) if c is not None]
    wa = [nc + k for k, a in enumerate(additional) if _needs_grad(a)]
    wrt = wc + wa
    if not wrt:
        return tuple(None for _ in carries), tuple(None for _ in additional)
    body_vjp = vjp_subtrace(b.kwargs["body_fn"], wrt, wc, "while_body_vjp", f"the body_fn of {_where(b)}")
    grads = dict(zip(wrt, ho.while_loop_vjp(carries, additional, tuple(cts[j] for j in wc),
                                            cond_fn=b.kwargs["cond_fn"], body_fn=b.kwargs["body_fn"],
                                            body_vjp=body_vjp, wrt=tuple(wrt))))
    return (tuple(grads.get(j) for j in range(nc)), tuple(grads.get(nc + k) for k in range(len(additional))))


@forward_for_grad("higher_order.scan")
def _(b):
    """Training records the scan with the carries each step started from (its backward's inputs)."""
    return ho.scan(*b.args, **b.kwargs, saves_carries=True)


@vjp("higher_order.scan")
def _(b, *cts):
    init, xs, additional = b.args
    if not b.kwargs.get("saves_carries"):
        raise AssertionError("scan's VJP rule needs the training forward (saves_carries=True)")
    combine, dim, reverse = b.kwargs["combine_fn"], b.kwargs["dim"], b.kwargs["reverse"]
    (outs, history) = b.output
    nc, nx, na = len(init), len(xs), len(additional)
    ny = len(outs) - nc
    cts = cts[:len(outs)]  # (the carries history needs no cotangent)
    wc = [j for j in range(nc) if cts[j] is not None]
    wx = [nc + k for k, x in enumerate(xs) if _needs_grad(x)]
    wa = [nc + nx + k for k, a in enumerate(additional) if _needs_grad(a)]
    wy = [k for k in range(ny) if cts[nc + k] is not None]
    if not (wc or wx or wa):
        return tuple(None for _ in init), tuple(None for _ in xs), tuple(None for _ in additional)
    wrt = wc + wx + wa
    step_vjp = vjp_subtrace(combine, wrt, wc + [nc + k for k in wy], "scan_step_vjp", f"the combine_fn of {_where(b)}")

    # the backward's step: (carry cotangents, gradient sums of the additional inputs) carried;
    # (carries the forward step started from, its slices, its outputs' cotangents) scanned
    gc0 = [cts[j] for j in wc]
    ga0 = [T.zeros(p.shape, dtype=p.dtype, device=p.device) for p in (additional[i - nc - nx] for i in wa)]
    # (scanned along the first dimension: the ys may be stacked elsewhere than xs, see stack_dim)
    ys = combine.output[nc:]
    scanned = [*history, *(x.movedim(dim, 0) for x in xs),
               *(cts[nc + k].movedim(ho.stack_dim(ys[k], dim), 0) for k in wy)]
    ncar = len(wc) + len(wa)

    def step(*ps):
        gc, ga = ps[:len(wc)], ps[len(wc):ncar]
        c, x = ps[ncar:ncar + nc], ps[ncar + nc:ncar + nc + nx]
        gy, a = ps[ncar + nc + nx:ncar + nc + nx + len(wy)], ps[ncar + nc + nx + len(wy):]
        g = dict(zip(wrt, inline(step_vjp, (*c, *x, *a, *gc, *gy))))
        return (*(g[j] for j in wc), *(s + g[i] for s, i in zip(ga, wa)), *(g[i] for i in wx))

    params = [*(like(p) for p in (*gc0, *ga0)),
              *(like(p, shape=p.shape[1:]) for p in scanned), *(like(a) for a in additional)]
    # what the step reads from the enclosing trace besides its parameters (a symbolic size the
    # VJP's ops take) comes in as more additional inputs, after the forward's
    sub, free = record_subtrace(step, params, "scan_combine_vjp")
    out = ho.scan((*gc0, *ga0), tuple(scanned), (*additional, *free), combine_fn=sub, dim=0, reverse=not reverse)
    g = dict(zip(wc, out[:len(wc)]))
    g.update(zip(wa, out[len(wc):ncar]))
    g.update((i, gx.movedim(0, dim)) for i, gx in zip(wx, out[ncar:]))
    return (tuple(g.get(j) for j in range(nc)), tuple(g.get(nc + k) for k in range(nx)),
            tuple(g.get(nc + nx + k) for k in range(na)))


@vjp("higher_order.autograd_function")
def _(b, *cts):
    """The Function's traced backward, recorded inline (executors fuse it with what is around it)."""
    (inputs,) = b.args
    k = b.kwargs
    outs = b.output
    n = k["n_outputs"]
    cts = [c if c is not None else zeros_for(o) for c, o in zip(cts[:n], outs[:n])]
    saved = [inputs[i] if i >= 0 else outs[~i] for i in k["saved"]]
    grads = inline(k["backward"], (*cts, *saved))
    declared = inputs[:k["n_declared"]]
    # (as eager's engine does with a custom backward's results: summed to the input's shape)
    return (tuple(None if g is None or not _needs_grad(p) else sum_to(g, p.shape) for g, p in zip(grads, declared))
            + tuple(None for _ in inputs[len(declared):]),)
