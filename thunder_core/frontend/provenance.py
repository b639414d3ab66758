"""Where a value came from.

The interpreter keeps a :class:`Provenance` for every object that entered the interpreted
call from outside (an argument, a global, a closure cell of an outside function, an
attribute or item of another outside object, the result of an opaque call on outside
objects). Objects created during the call have no provenance: they are local state.
Scalars (numbers, strings, None, ...) are immutable and shared by identity, so their
provenance travels in the read event (:mod:`.events`) that brought them in.

A provenance is a path from the call's inputs: ``args[0].layers[2].weight`` is
``attr(item(attr(arg(0), "layers"), 2), "weight")``. The guard builder re-fetches values
along these paths in the prologue.
"""

from __future__ import annotations

__all__ = ["Provenance", "ARG", "KWARG", "GLOBAL", "BUILTIN", "CELL", "ATTR", "ITEM", "ITER", "CALL", "CONST", "MODULE", "FRESH"]

ARG = "arg"          # key: position in the root call's args
KWARG = "kwarg"      # key: keyword name in the root call's kwargs
GLOBAL = "global"    # key: name; ref: the globals dict it was read from
BUILTIN = "builtin"  # key: name; ref: the builtins dict
CELL = "cell"        # key: variable name; ref: the cell object (created outside the call)
ATTR = "attr"        # parent.key
ITEM = "item"        # parent[key]
ITER = "iter"        # the key-th value produced by iterating parent
CALL = "call"        # result of an opaque call of ref (a callable) whose inputs came from outside
CONST = "const"      # a constant of the code object; key: the value
MODULE = "module"    # a module an `import` returned; key: its name in sys.modules
FRESH = "fresh"      # the key-th fresh value of the call (a random draw, a clock, next() of an outside
                     # iterator), made again by the prologue on every call; ref: what was called, in words


class Provenance:
    """One step of a path from the interpreted call's inputs to a value.

    ``kind`` is one of the module constants, ``parent`` the provenance this step starts
    from (None for roots), ``key`` the name/index of the step, ``ref`` an object the step
    needs but that is not part of its identity (the globals dict, the cell, the callee).
    Provenances compare and hash structurally, so equal paths dedupe in guard building.
    """

    __slots__ = ("kind", "parent", "key", "ref", "_hash")

    def __init__(self, kind: str, parent: Provenance | None, key: object, ref: object = None):
        self.kind, self.parent, self.key, self.ref = kind, parent, key, ref
        self._hash = None

    def _ident(self):
        ref = id(self.ref) if self.kind in (GLOBAL, CELL, BUILTIN) else None
        return (self.kind, self.parent, self.key if _hashable(self.key) else id(self.key), ref)

    def __eq__(self, other):
        return isinstance(other, Provenance) and self._ident() == other._ident()

    def __hash__(self):
        # (a path is never changed once made: its hash, which hashes the whole chain of parents,
        # is computed once; guard building hashes paths tens of thousands of times per compile)
        h = self._hash
        if h is None:
            h = self._hash = hash(self._ident())
        return h

    @property
    def root(self) -> Provenance:
        p = self
        while p.parent is not None:
            p = p.parent
        return p

    def __repr__(self) -> str:
        k, p = self.kind, self.parent
        if k == ARG:
            return f"args[{self.key}]"
        if k == KWARG:
            return f"kwargs[{self.key!r}]"
        if k == GLOBAL:
            mod = self.ref.get("__name__", "?") if isinstance(self.ref, dict) else "?"
            return f"globals({mod})[{self.key!r}]"
        if k == BUILTIN:
            return f"builtins.{self.key}"
        if k == CELL:
            return f"closure[{self.key!r}]"
        if k == MODULE:
            return f"sys.modules[{self.key!r}]"
        if k == ATTR:
            return f"{p!r}.{self.key}"
        if k == ITEM:
            return f"{p!r}[{self.key!r}]"
        if k == ITER:
            return f"iter({p!r})#{self.key}"
        if k == FRESH:
            return f"fresh#{self.key}({self.ref})"
        if k == CALL:
            name = getattr(self.ref, "__qualname__", None) or type(self.ref).__name__
            return f"{name}({p!r}, ...)" if p is not None else f"{name}(...)"
        if k == "state":  # process state the prologue reads (grad mode, a plugin's read_state)
            return f"state({self.key})"
        return f"const({self.key!r})"


def _hashable(x) -> bool:
    try:
        hash(x)
    except TypeError:
        return False
    return True
