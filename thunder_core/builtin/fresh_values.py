"""Calls whose result is fresh on every call in eager: Python's ``random`` draws, the clocks of
``time``, ``os.urandom``, ``uuid``, reading the environment (``os.getenv``).

The trace cannot make them again: a value read while tracing would be reused by every cached
call. Each such call is recorded (a ``fresh-value`` event at the user's line) and still made
once while tracing; the ``opaque-call`` sharp-edge checker then refuses the compile by
default, naming the line, or, where the user allowed it (``sharp_edges={"opaque-call":
"allow"}``), the value is frozen and ``tc.explain`` lists it.
"""

from __future__ import annotations

import os
import random
import time
import uuid

from .. import hookspecs
from ..frontend import events as ev

_RANDOM = ("random", "uniform", "triangular", "randint", "randrange", "choice", "choices", "sample", "shuffle",
           "gauss", "normalvariate", "lognormvariate", "expovariate", "vonmisesvariate", "gammavariate",
           "betavariate", "paretovariate", "weibullvariate", "getrandbits", "randbytes", "binomialvariate")
_TIME = ("time", "time_ns", "perf_counter", "perf_counter_ns", "monotonic", "monotonic_ns", "process_time",
         "process_time_ns", "thread_time", "thread_time_ns")


def _fresh(name, fn):
    def look(I, args, kwargs):
        f = I.frames[-1]
        value = fn(*args, **kwargs)
        I.events.append(ev.Event(ev.FRESH, None, name, value, (f.info.code.co_filename, f.lineno, f.info.site_name)))
        return value
    return look


def table() -> dict:
    """callable -> lookaside for every fresh-value callable importable here."""
    found = [(f"random.{n}", getattr(random, n, None)) for n in _RANDOM]
    found += [(f"time.{n}", getattr(time, n, None)) for n in _TIME]
    found += [("os.urandom", os.urandom), ("os.getenv", os.getenv), ("uuid.uuid1", uuid.uuid1),
              ("uuid.uuid4", uuid.uuid4)]
    return {fn: _fresh(name, fn) for name, fn in found if fn is not None}


@hookspecs.hookimpl
def thunder_core_lookasides():
    return table()
