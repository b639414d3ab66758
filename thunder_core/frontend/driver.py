"""Interpreted generators.

The generator object of an interpreted generator function is a real generator, ``drive``,
which resumes the interpreted frame each time it is resumed itself: ``next``/``send``/
``throw``/``close``, ``yield from`` by native code and finalisation all behave like
CPython's. Delegation of ``throw``/``close`` to the iterator of a ``yield from`` is done
here, as ``genobject.c`` does it.

Lifetimes: while a generator is suspended nothing of the interpreter holds the value it
yielded, the value sent into it or an exception thrown into it. The frame's stack does not
keep the yielded value (``drive`` pops it when it hands it out; resuming pushes the sent
value, or None before a throw, back into that slot, so exception-table depths still hold).
"""

from __future__ import annotations

import sys

from .code import PY
from .frame import NULL
from .interpreter import YIELD, set_context
from .tracebacks import prepend, strip


def drive(interp, f):
    s = f.stack
    sent = exc = None
    while True:
        try:
            r = resume(interp, f, sent, exc)
        except BaseException as e:
            # The generator is finished. Unlink the interpreter's frames (which hold ``f``
            # and its locals) from the traceback before the exception leaves.
            e.__traceback__ = strip(e.__traceback__)
            raise
        if r is not YIELD:
            return f.retval
        sent = exc = None
        try:
            sent = yield s.pop()
        except BaseException as e:
            exc = e


def resume(I, f, sent, exc):
    """Run the suspended generator frame ``f`` until it yields (YIELD, the value on top of its
    stack) or returns (RETURN). ``exc``: an exception thrown in (``throw``/``close``)."""
    item = f.exc_item
    item.prev = I.exc_item
    I.exc_item = item
    try:
        s = f.stack
        if exc is None:
            s.append(sent)  # what the `yield` (or the start: popped by POP_TOP) evaluates to
            return I._run(f)
        recv = yield_from_receiver(f)
        if recv is not NULL:
            if isinstance(exc, GeneratorExit):
                err = _close_iter(I, recv)
                if err is not None:
                    exc = err  # thrown in instead of GeneratorExit (gen_close)
            else:
                meth = getattr(recv, "throw", None)
                if meth is not None:
                    try:
                        s.append(I.call(meth, (exc,)))  # the delegate yielded: so do we
                        return YIELD
                    except BaseException as e2:
                        exc = e2
                    if PY == (3, 11) and isinstance(exc, StopIteration):
                        # 3.11 finishes the `yield from` itself (genobject.c _gen_throw)
                        send = f.insts[f.insts[f.ip + 1].target]
                        s[-1] = exc.value
                        f.ip = send.target
                        return I._run(f)
        s.append(None)
        if item.value is not None and item.value is not exc:
            set_context(exc, item.value)  # _PyErr_ChainStackItem
        return I._run(f, throw=exc)
    finally:
        I.exc_item = item.prev


def yield_from_receiver(f):
    """The iterator a suspended generator delegates to (in ``yield from``/``await``), or NULL."""
    nxt = f.insts[f.ip]
    if nxt.opname == "RESUME" and (nxt.arg & 3) >= 2:
        return f.stack[-1]
    return NULL


def _close_iter(I, recv):
    """genobject.c gen_close_iter: close the delegate; returns the exception its close()
    raised, or None. An error while looking ``close`` up is reported as unraisable (CPython's
    PyErr_WriteUnraisable) and GeneratorExit is thrown in as usual."""
    close = err = None
    try:
        close = getattr(recv, "close", None)
    except BaseException as e:
        err = e
    if err is not None:
        write_unraisable(err, recv)
        return None
    if close is None:
        return None
    try:
        I.call(close, ())
    except BaseException as e:
        return e
    return None


_hook_args_type = None


def write_unraisable(exc, obj):
    """PyErr_WriteUnraisable(obj) for ``exc``: call ``sys.unraisablehook``; if the hook fails,
    report that failure with the default hook."""
    global _hook_args_type
    if _hook_args_type is None:
        _hook_args_type = _probe_hook_args_type()
    make = _hook_args_type
    hook = sys.unraisablehook
    failed = None
    try:
        hook(make((type(exc), exc, exc.__traceback__, None, obj)))
    except BaseException as e:
        failed = e
    if failed is not None:
        sys.__unraisablehook__(make((type(failed), failed, failed.__traceback__,
                                     "Exception ignored in sys.unraisablehook", hook)))


def _probe_hook_args_type():
    """``sys.UnraisableHookArgs`` is not exposed: catch one (from a failing ``__del__``)."""
    seen = []
    old = sys.unraisablehook
    sys.unraisablehook = seen.append
    try:
        class _Probe:
            def __del__(self):
                raise RuntimeError

        _Probe()
    finally:
        sys.unraisablehook = old
    return type(seen[0])


def thrown_into_unstarted(I, e):
    """``g.throw(e)`` on an interpreted generator that had not started raises ``e`` at the
    driver's first line, before it could resume the interpreted frame. CPython raises it in
    the generator's frame at its first line: give ``e`` that traceback entry instead, and
    mark it as propagating from an interpreted frame (a throw does not chain it)."""
    tb = e.__traceback__
    while tb is not None:
        if tb.tb_frame.f_code is _DRIVE_CODE:
            f = tb.tb_frame.f_locals.get("f")
            if f is None:
                return
            e.__traceback__ = prepend(f.info, f.globals, f.insts[f.ip - 1].lineno, None)
            I._propagating = e
            return
        tb = tb.tb_next


_DRIVE_CODE = drive.__code__
