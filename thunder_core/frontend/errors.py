"""Errors the interpreter raises about itself (as opposed to the user's own exceptions,
which it re-raises exactly as CPython would)."""

from __future__ import annotations


class InterpreterError(RuntimeError):
    """The interpreter cannot run this construct. The message names the construct, the
    user's file:line and what to do instead."""


class UnsupportedConstructError(InterpreterError, NotImplementedError):
    """A Python construct the interpreter refuses (e.g. ``async def``)."""


def refuse(frame, inst, what: str, hint: str = ""):
    """Raise UnsupportedConstructError naming the user's file:line."""
    filename, line, name = inst.site if inst is not None else (frame.info.code.co_filename, frame.info.code.co_firstlineno, frame.info.site_name)
    msg = f"{filename}:{line} in {name}: {what}."
    msg += " " + (hint or "Call this code outside of the jitted function, or file an issue with the snippet.")
    raise UnsupportedConstructError(msg)
