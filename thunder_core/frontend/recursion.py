"""The recursion limit while interpreting.

Each interpreted call runs on a few Python frames of the interpreter itself (the run loop,
the CALL handler, ``Interpreter.call``...). Left alone, CPython's recursion limit would stop
a user's recursion at a fraction of the depth it reaches natively. So:

* each interpreter counts the user's frames against the limit the user set: its budget is
  that limit minus the depth (in user frames) at which it was entered, and the frame past
  it raises ``RecursionError('maximum recursion depth exceeded')`` as CPython would;
* the real limit is raised only as far as the interpreted frames need: at checkpoints
  every ``STEP`` interpreted frames (down or back up) it is set to the real depth, plus
  room for the next ``STEP`` interpreted frames, plus what is left of the user's budget.
  Native code called from interpreted code therefore gets about the budget CPython would
  give it (a little more, never much more): raising the limit by a constant factor instead
  would let a runaway native recursion (``sorted(key=f)`` where ``f`` sorts again) overflow
  the C stack and crash the process.

``sys.getrecursionlimit``/``sys.setrecursionlimit`` called by interpreted code read and set
the user's limit (lookasides in lookasides.py).
"""

from __future__ import annotations

import sys
import threading

from .tracebacks import INTERPRETER_DIR

STEP = 32         # interpreted frames between checkpoints
PER_CALL = 6      # real frames an interpreted call takes (most take 3 to 5)
_SLACK = 50

_lock = threading.Lock()
_running = 0      # interpreters inside run(), all threads (the limit is process-wide)
_user_limit = 0   # the limit user code sees while _running
_applied = 0      # the real limit we set last
_needs: dict = {}  # thread id -> real limit the interpreters of that thread need
_local = threading.local()  # .active: interpreters running in this thread, outermost first


def user_limit() -> int:
    return _user_limit if _running else sys.getrecursionlimit()


def enter(I) -> None:
    """``I.run`` starts: give ``I`` its budget of interpreted frames; the first push of a
    frame makes a checkpoint."""
    global _running, _user_limit, _applied
    with _lock:
        if _running == 0:
            _user_limit = _applied = sys.getrecursionlimit()
        _running += 1
    active = getattr(_local, "active", None)
    if active is None:
        active = _local.active = []
    I.base_depth = _user_depth(active)
    I.max_depth = _user_limit - I.base_depth
    I.low_mark = I.depth_mark = 0
    I.real_depth = 0
    active.append(I)


def leave(I) -> None:
    global _running
    active = _local.active
    if active and active[-1] is I:
        active.pop()
    with _lock:
        _running -= 1
        if not active:
            _needs.pop(threading.get_ident(), None)
        if _running == 0:
            # Restore the user's limit, unless native code changed the real one meanwhile.
            if sys.getrecursionlimit() == _applied:
                _set(_user_limit)
        else:
            _apply()


def checkpoint(I, n: int, pushing: bool) -> None:
    """``I`` has ``n`` frames and is pushing one more (``pushing``) or has just popped
    one: enforce the user's limit, and set the real one for the frames to come."""
    if pushing and n >= I.max_depth:
        raise RecursionError("maximum recursion depth exceeded")
    r = I.real_depth = _real_depth(I.real_depth)
    need = r + max(I.max_depth - n, 0) + PER_CALL * STEP + _SLACK
    with _lock:
        _needs[threading.get_ident()] = need
        _apply()
    I.depth_mark = min(I.max_depth, n + STEP)
    I.low_mark = n - STEP


def set_user_limit(I, n: int) -> None:
    """``sys.setrecursionlimit(n)`` from interpreted code, with CPython's checks."""
    global _user_limit
    depth = I.base_depth + len(I.frames)
    if n < 1:
        raise ValueError("recursion limit must be greater or equal than 1")
    if depth >= n:
        raise RecursionError(f"cannot set the recursion limit to {n} at the recursion depth {depth}: "
                             "the limit is too low")
    _user_limit = n
    for J in getattr(_local, "active", ()):
        J.max_depth = n - J.base_depth
    checkpoint(I, len(I.frames), False)


def _apply() -> None:  # with _lock held
    want = max(_user_limit, *_needs.values()) if _needs else _user_limit
    if want != _applied:
        _set(want)


def _set(limit: int) -> None:
    global _applied
    try:
        sys.setrecursionlimit(limit)
        _applied = limit
    except RecursionError:  # lower than this thread's depth: keep the current one
        pass


def _real_depth(hint: int) -> int:
    """The number of Python frames on this thread's stack (about CPython's recursion depth),
    found by probing ``sys._getframe(k)`` around ``hint`` (its walk is in C and makes no
    frame objects on the way, unlike following ``f_back``)."""
    get = sys._getframe
    lo = max(hint, 1)
    try:
        get(lo)
        step = 16
        while True:
            hi = lo + step
            try:
                get(hi)
            except ValueError:
                break
            lo, step = hi, step * 2
    except ValueError:
        hi = lo
        lo = 0
    while hi - lo > 1:  # get(lo) exists, get(hi) does not
        mid = (lo + hi) // 2
        try:
            get(mid)
            lo = mid
        except ValueError:
            hi = mid
    return lo + 1


def _user_depth(active) -> int:
    """Frames of user code below the interpreter being entered: the real ones (the
    interpreter's own excluded) plus those of interpreters already running in this thread."""
    n, fr = 0, sys._getframe(2)
    while fr is not None:
        if not fr.f_code.co_filename.startswith(INTERPRETER_DIR):
            n += 1
        fr = fr.f_back
    for J in active:
        n += len(J.frames)
    return n
