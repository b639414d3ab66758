"""Replace bound symbols by their decompositions."""

from __future__ import annotations

from typing import Callable

from ..ir import Trace


def flatten(trace: Trace, keep: Callable = lambda sym: sym.is_prim) -> Trace:
    """A copy of ``trace`` where every bound symbol whose symbol is not kept is replaced by
    its subsymbols, recursively. Raises if a symbol that is not kept has no decomposition."""
    out = []

    def walk(bsym):
        if keep(bsym.sym):
            out.append(bsym)
        elif bsym.sym.decomposition is None or (not bsym.subsymbols and bsym.flat_outs):
            raise ValueError(f"flatten: {bsym.sym.id} has no decomposition to flatten into (in trace "
                             f"{trace.name!r}); keep it or give the symbol a decomposition.")
        else:
            for sub in bsym.subsymbols:
                walk(sub)

    for b in trace.bound_symbols:
        walk(b)
    return trace.derive(bound_symbols=out)
