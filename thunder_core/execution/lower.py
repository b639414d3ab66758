"""Lowering a trace to executors: every bound symbol gets an implementation.

Each top-level bound symbol goes to the first executor (in the user's order) that implements
its symbol; a symbol nobody implements is replaced by its decomposition, recursively. The
result is the execution trace (what runs) and the implementation table to compile it with.
"""

from __future__ import annotations

from ..ir import Trace


class LoweringError(RuntimeError):
    pass


def lower(trace: Trace, executors) -> tuple[Trace, dict, dict]:
    """(execution trace, {symbol id: impl}, {symbol id: executor name})."""
    tables = [(ex.name, ex.implementations()) for ex in executors]
    impls, owner, out = {}, {}, []

    def place(bsym):
        sid = bsym.sym.id
        for name, table in tables:
            fn = table.get(sid)
            if fn is not None:
                impls[sid] = fn
                owner[sid] = name
                out.append(bsym)
                return
        if bsym.sym.decomposition is not None and bsym.subsymbols:
            for sub in bsym.subsymbols:
                place(sub)
            return
        src = f" (from {bsym.source[0]}:{bsym.source[1]}: {bsym.source[2]})" if bsym.source else ""
        raise LoweringError(f"No executor among {[n for n, _ in tables]} implements {sid}{src}, and it has no "
                            f"decomposition. Add an executor that implements it (e.g. executors=[..., 'torch']).")

    for b in trace.bound_symbols:
        place(b)
    return trace.derive(bound_symbols=out), impls, owner
