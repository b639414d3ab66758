"""Pointwise kernels: a region of elementwise primitives over one iteration shape ``S`` (its
outputs' shape, up to leading 1s).

The kernel walks ``S`` flattened to 1-D in programs of ``BLOCK`` elements, masking the ragged
last block. Every value must broadcast to ``S`` NumPy's way (right-aligned, each dim equal or
1): an input of shape ``S`` is loaded at the flat offset, a broadcast one (a bias ``[C]``, a
``[B, 1]`` column, a 0-d tensor) at an offset computed from the flat offset with its own
strides. Intermediates never leave registers, so a smaller intermediate is simply computed at
every point of ``S``.
"""

from __future__ import annotations

from .emit import Emitter, Kernel, Launch, assign, broadcast, convert
from .graph import aligns, strip
from .ops import Unsupported
from .tuning import cdiv, pointwise_params


def needed(roots, known=()) -> set:
    """The nodes the values ``roots`` are computed from (themselves included), not looking
    past nodes in ``known`` (computed already)."""
    seen, todo = set(), [r for r in roots if r not in known]
    while todo:
        n = todo.pop()
        if n not in seen:
            seen.add(n)
            todo.extend(a for a in n.args if a not in known)
    return seen


BIG = 2 ** 31 - 1  # from this many elements, offsets are 64-bit


def generate_pointwise(g, S, device_type: str, variant, name: str) -> Kernel:
    dims = g.dims
    (big,) = variant or (dims.estimate(S) >= BIG,)
    e = Emitter(g, device_type, big)
    numel = dims.prod(S)
    body = e.lines
    assign(body, "offs", f"{e.pid()} * BLOCK + tl.arange(0, BLOCK)")
    assign(body, "mask", f"offs < {numel}")
    vals: dict = {}     # node -> (expression, kind, constant?)
    want = needed([n for _, n in g.outputs])
    for n in g.nodes:
        if n not in want:
            continue
        if n.op == "input":
            off = e.offset(n.shape, S, "offs")
            vals[n] = (*e.load(n, off, "mask"), off == "0")
        elif n.op == "view":
            a = n.args[0]
            if n.sid == "prims.broadcast_in_dim":
                rank, arank = len(n.shape), len(a.shape)
                if n.attrs["dims"] != tuple(range(rank - arank, rank)):
                    raise Unsupported(f"prims.broadcast_in_dim of {a.label} {dims.show(a.shape)} onto dims "
                                      f"{n.attrs['dims']} of {dims.show(n.shape)} (only NumPy broadcasting onto "
                                      f"trailing dims)")
            elif strip(a.shape) != strip(n.shape):
                raise Unsupported(f"{n.sid} from {dims.show(a.shape)} to {dims.show(n.shape)} (only adding or "
                                  f"removing leading 1s)")
            vals[n] = vals[a]
        elif n.op == "convert":
            a = vals[n.args[0]]
            vals[n] = (*convert(a[:2], n.kind), a[2])
        elif n.op in ("literal", "number"):
            vals[n] = (n.attrs["expr"], n.kind, True)
        elif n.op == "full":
            vals[n] = (*convert(vals[n.args[0]][:2], n.kind), True)
        elif n.op == "prim":
            if not all(vals[a][2] for a in n.args) and not aligns(n.shape, S):
                raise Unsupported(f"{n.sid} makes {n.label} of shape {dims.show(n.shape)}, which does not "
                                  f"broadcast to the iteration shape {dims.show(S)}")
            args = [vals[a][:2] for a in n.args]
            vals[n] = (*e.template(n, args), all(vals[a][2] for a in n.args))
        else:
            raise Unsupported(f"{n.sid} in a pointwise kernel")
    for k, (p, n) in enumerate(g.outputs):
        expr, kind, const = vals[n]
        if const:  # a constant written at every point
            expr = broadcast(expr, kind, "[BLOCK]")
        value = e.stored(k, p.dtype, (expr, kind))
        body.append(f"    tl.store(out{k} + offs, {value}, mask=mask)  # {p.name}")
    e.register(g.region.outputs)
    signature = e.signature(constexprs=("BLOCK",))
    ops = " ".join(b.sym.id for b in g.region.bsyms)
    text = [f"    # {ops}", f"    # pointwise: iteration shape {dims.show(S)}, flattened"] + body

    def launch(sizes, target, cx=None) -> Launch:
        n = dims.product(S, sizes)
        p = pointwise_params(n, target)
        cx = cx or {"BLOCK": p["BLOCK"]}
        return Launch((cdiv(n, cx["BLOCK"]),), cx, p["num_warps"])

    def choose(sizes, target) -> tuple:
        return (dims.product(S, sizes) >= BIG,)

    return Kernel(e.source(name, signature, text), name, "pointwise", (big,), signature, dims,
                  tuple(dims.shape(p) for p in g.region.outputs), launch, f"pointwise kernel over {dims.show(S)}",
                  choose)

