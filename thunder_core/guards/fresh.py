"""Fresh values: the calls whose result is new on every call in eager (``random.random()``,
``time.time()``, ``next()`` of an outside generator) are made by the prologue, on every call,
in the order the program makes them, and their values are inputs of the computation.

One call of a jitted function may run several prologues (each cache entry's, until one accepts
the call) and a compile. They must not draw twice: Python's RNG, a generator, a counter must
advance exactly as in eager. So every draw of the call goes through the function's *draw log*
(:class:`DrawLog`, one per jitted function and thread): :func:`draw` returns the log's k-th
outcome when an earlier prologue (which then missed: a predicate on a drawn number failed) or
the compile already made it, and makes the call only past the end of the log. A prologue that
accepts the call empties the log (its values are its inputs now); ``tc.jit`` empties it when a
compile fails. A compile leaves the draws it made in the log for the new entry's prologue, run
right after it, to take.

An outcome is the value, or :class:`Raised` when the call raised (a generator's end,
``StopIteration``, is an outcome like any other: the prologue checks it is the same).
"""

from __future__ import annotations

import threading


class Raised:
    """The outcome of a draw that raised ``exc``."""

    __slots__ = ("exc",)

    def __init__(self, exc):
        self.exc = exc


class DrawLog(threading.local):
    """The draws of the current call of one jitted function, on this thread: ``draws`` is
    ``[(fn, outcome)]`` in program order."""

    def __init__(self):
        self.draws: list = []

    def take(self, k: int, fn, args, kwargs):
        """:func:`draw` for a compile: the ``k``-th outcome of this call, made now if not yet."""
        out = draw(self.draws, k, fn, args, kwargs)
        if type(out) is Raised and type(out.exc) is DrawsDiverged:
            raise out.exc
        return out

    def clear(self) -> None:
        """Forget this call's draws (a compile failed: no prologue may take them)."""
        self.draws.clear()


def draw(log: list, k: int, fn, args, kwargs):
    """The outcome of the call's ``k``-th draw, ``fn(*args, **kwargs)``: taken from ``log`` when
    already made, else made now and logged. Used by generated prologues."""
    if len(log) > k:
        made, out = log[k]
        if made is not fn:  # another draw was made at this place: the prologue cannot be this call's
            return Raised(DrawsDiverged(fn, made, k))
        return out
    try:
        out = fn(*args, **kwargs) if kwargs else fn(*args)
    except Exception as e:  # noqa: BLE001 - the call's own exception is its outcome
        out = Raised(e)
    log.append((fn, out))
    return out


class DrawsDiverged(RuntimeError):
    """A compile met a different fresh call where an earlier prologue of the same call drew."""

    def __init__(self, fn, made, k):
        super().__init__(
            f"thunder_core: the {k + 1}th fresh value of this call was already drawn by {_name(made)}, but the program "
            f"now asks {_name(fn)} for it. A cached prologue drew in a different order than the program does, "
            f"which is a bug of thunder_core; please report it.")


def _name(fn) -> str:
    return getattr(fn, "__qualname__", None) or repr(fn)
