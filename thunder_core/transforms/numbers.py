"""Symbolic numbers computed where a trace needs them.

A symbolic number (``cache="symbolic values"``) can be made inside a decomposition (the
length of a slice inside ``ltorch.split``) and then be referred to at the top level of a
trace: as a static argument of a later call (``expand(t, size=(i7, 64))``), or as an output
(a forward saving it for the backward). Executors run top-level calls and never see the
decomposition that made it, so :func:`materialize_numbers` computes each such number at the
top level, just before its first use, from its ``expr`` (``prims.py_*`` calls over the
trace's inputs and numbers defined before).
"""

from __future__ import annotations

from ..ir import BoundSymbol, NumberProxy, TensorProxy, Trace, flat_proxies
from ..ops.prims_number import NUMBER_OPS
from ..ops.registry import PRIMS

__all__ = ["materialize_numbers"]

_SYMBOL_OF = {}


def _symbol(fn):
    if not _SYMBOL_OF:
        _SYMBOL_OF.update({f: PRIMS[f"prims.py_{name}"] for name, f in NUMBER_OPS.items()})
    return _SYMBOL_OF[fn]


def materialize_numbers(trace: Trace) -> Trace:
    """``trace``, with top-level ``prims.py_*`` calls added for every symbolic number a
    top-level call or the output uses that no earlier top-level call defines (the same trace
    when there is none). Raises if such a number depends on an input the trace lacks."""
    inputs = flat_proxies((trace.args, trace.kwargs))
    defined = {id(p) for p in inputs}
    dims: dict = {}  # id(symbolic size) -> (tensor defined so far, its dimension)
    out: list = []

    def add_dims(ps):
        for t in ps:
            if type(t) is TensorProxy:
                for d, s in enumerate(t.shape):
                    if type(s) is NumberProxy:
                        dims.setdefault(id(s), (t, d))

    known: dict = {}  # id(number) -> computable()

    def computable(p) -> bool:
        # from the inputs' numbers alone (sizes of the inputs included): then it is computed
        # at the start, not after the tensor that has it as a size (see _hoisted)
        if type(p) is not NumberProxy or id(p) in defined or not p.symbolic or id(p) in input_dims:
            return True
        if id(p) not in known:  # (expressions share subexpressions: each is looked at once)
            known[id(p)] = False  # (a cycle would be a bug elsewhere; it reads as not computable)
            known[id(p)] = p.expr is not None and all(computable(a) for a in flat_proxies(p.expr[1]))
        return known[id(p)]

    def need(x):
        for p in flat_proxies(x):
            if type(p) is not NumberProxy or id(p) in defined or not p.symbolic:
                continue
            # the size of a tensor at hand (a backward reading an input's size), unless the
            # number can be computed from the inputs' sizes alone
            if id(p) in dims and (id(p) in input_dims or not computable(p)):
                t, d = dims[id(p)]
                out.append(BoundSymbol(PRIMS["prims.py_dim_size"], (t,), {"dim": d}, output=p))
            elif p.expr is None:
                raise ValueError(f"Trace {trace.name!r} uses the symbolic number {p.name}, an input of the program "
                                 f"that is neither an input of this trace nor a size of a tensor it has.")
            else:
                fn, args = p.expr
                need(args)
                out.append(BoundSymbol(_symbol(fn), tuple(args), output=p))
            defined.add(id(p))

    add_dims(inputs)
    input_dims = set(dims)
    for b in trace.bound_symbols:
        if b.sym.id.startswith("prims.py_") and b.flat_outs and all(id(o) in defined for o in b.flat_outs):
            continue  # computed earlier already (a region scheduled a use before this definition)
        need((b.args, dict(b.kwargs)))
        out.append(b)
        defined.update(id(o) for o in b.flat_outs)
        add_dims(b.flat_outs)
    need(trace.output)
    out = _hoisted(out)
    if len(out) == len(trace.bound_symbols) and all(a is b for a, b in zip(out, trace.bound_symbols)):
        return trace
    return trace.derive(bound_symbols=out)


def _number_op(b) -> bool:
    return b.sym.id.startswith("prims.py_") and bool(b.flat_outs) and all(type(o) is NumberProxy for o in b.flat_outs)


def _hoisted(bsyms) -> list:
    """``bsyms`` with each number op (``prims.py_*``) moved up to just after the last call
    defining one of its arguments (the start, for numbers of the inputs): a number computed
    between two tensor ops would cut the run of ops a fusing executor claims as one region
    (HF Llama's ``repeat_kv`` reads its key's head count between two fusible stretches)."""
    anchor: dict = {}          # id(number) -> index of the non-number call it follows (-1: the start)
    after: dict = {-1: []}     # that index -> number ops placed right after it
    rest: list = []
    for b in bsyms:
        if _number_op(b):
            k = max((anchor.get(id(a), -1) for a in b.flat_args), default=-1)
            after[k].append(b)
            for o in b.flat_outs:
                anchor[id(o)] = k
        else:
            k = len(rest)
            rest.append(b)
            after[k] = []
            for o in b.flat_outs:
                anchor[id(o)] = k
    out = list(after[-1])
    for k, b in enumerate(rest):
        out.append(b)
        out += after[k]
    return out
