"""Interpreter frames and the handled-exception state."""

from __future__ import annotations


class _Null:
    """CPython's NULL stack/local slot: an unbound local, the "no self" slot of a call."""

    __slots__ = ()

    def __repr__(self):
        return "NULL"


NULL = _Null()


class ExcItem:
    """One entry of the handled-exception chain (CPython's ``_PyErr_StackItem``). The thread
    has a root item; each running generator links its own item on top."""

    __slots__ = ("value", "prev")

    def __init__(self, value=None, prev=None):
        self.value, self.prev = value, prev


class Frame:
    """The state of one interpreted call.

    ``localsplus`` holds locals, cells and free variables in CPython's slot order (see
    ``CodeInfo.names``); ``stack`` the value stack; ``ip`` the index of the next
    instruction; ``locals_map`` the mapping used by LOAD_NAME/STORE_NAME (class bodies,
    exec); ``func`` the function being run (for its closure and ``__class__``).
    """

    __slots__ = ("info", "insts", "localsplus", "stack", "ip", "globals", "builtins", "func",
                 "locals_map", "kwnames", "exc_item", "retval")

    def __init__(self, info, func, globals_, builtins_, locals_map=None):
        self.info = info
        self.insts = info.insts
        self.localsplus = [NULL] * info.nlocalsplus
        self.stack = []
        self.ip = 0
        self.func = func
        self.globals = globals_
        self.builtins = builtins_
        self.locals_map = locals_map
        self.kwnames = ()
        # exc_item (generators only) and retval are set before they are read

    @property
    def lineno(self) -> int:
        return self.insts[max(self.ip - 1, 0)].lineno

    def __repr__(self):
        return f"<Frame {self.info.site_name} at {self.info.code.co_filename}:{self.lineno}>"
