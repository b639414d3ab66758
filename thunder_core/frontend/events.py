"""The interpreter's event log: reads of outside data and writes that escape the call.

Every event is an :class:`Event` appended to ``Interpreter.events`` in program order. The
sharp-edge checkers read them, the guard builder turns reads into checks, and the epilogue
replays writes. The interpreter still performs every write exactly as CPython would; the
log only records that it happened.
"""

from __future__ import annotations

from typing import NamedTuple

# reads of outside data
READ_ARG = "read-arg"          # an argument of the root call
READ_GLOBAL = "read-global"    # LOAD_GLOBAL / LOAD_NAME found it in a globals dict
READ_BUILTIN = "read-builtin"  # ... or in builtins
READ_CELL = "read-cell"        # LOAD_DEREF of a cell created outside the call
READ_ATTR = "read-attr"        # attribute of an outside object
READ_ITEM = "read-item"        # item of an outside container (subscript, unpack, iteration)
OPAQUE_CALL = "opaque-call"    # a native call (only when Interpreter(record_opaque_calls=True)); value:
                               # (args, kwargs, (filename, line, name) of every frame, outermost first)
# writes that escape the call
WRITE_GLOBAL = "write-global"
DELETE_GLOBAL = "delete-global"
WRITE_CELL = "write-cell"
DELETE_CELL = "delete-cell"
WRITE_ATTR = "write-attr"
DELETE_ATTR = "delete-attr"
WRITE_ITEM = "write-item"
DELETE_ITEM = "delete-item"
MUTATE = "mutate"              # a mutating method (list.append, dict.update, ...) or in-place operator
# an output effect not made while tracing but on every call (print, warnings.warn, logging):
# ``key`` is the callable making it, ``value`` its (args, kwargs)
CALL = "effect-call"
# a call whose result is fresh on every call in eager (random draws, clocks, next() of an outside
# iterator): an input of the call, made again by the prologue (``Interpreter.draw``); ``prov`` its
# FRESH provenance, ``key`` its name, ``value`` the value it gave while tracing
FRESH = "fresh-value"
# a call whose result is fresh on every call but whose value is a constant of the trace: a draw
# that cannot be an input (not a number, tensor or container of them: ``uuid.uuid4()``; ``prov``
# its FRESH provenance), or a call made once while tracing (``input()``, ``open()``; ``prov``
# None). Refused by the opaque-call checker unless allowed; ``key`` its name, ``value`` the value
FROZEN = "frozen-value"

READS = frozenset({READ_ARG, READ_GLOBAL, READ_BUILTIN, READ_CELL, READ_ATTR, READ_ITEM})
WRITES = frozenset({WRITE_GLOBAL, DELETE_GLOBAL, WRITE_CELL, DELETE_CELL, WRITE_ATTR, DELETE_ATTR,
                    WRITE_ITEM, DELETE_ITEM, MUTATE})
#: what the epilogue makes on every call, in program order
REPLAYED = WRITES | {CALL}


class Event(NamedTuple):
    """``kind``: one of the constants above. ``prov``: the provenance of what was read, or
    of the outside object/cell/global written to. ``key``: the name, item key or method
    name involved (None when ``prov`` says it all). ``value``: the value read or written
    (for MUTATE, the call's arguments). ``site``: (filename, line, function qualname) of
    the user's instruction."""

    kind: str
    prov: object
    key: object
    value: object
    site: tuple

    @property
    def where(self) -> str:
        filename, line, name = self.site
        return f"{filename}:{line} in {name}"

    def __repr__(self) -> str:
        key = "" if self.key is None else f" {self.key!r}"
        return f"<{self.kind} {self.prov!r}{key} at {self.where}>"
