"""Calls whose result is new on every call in eager: draws of Python's ``random`` (the module's
functions and the methods of any ``random.Random``), of ``numpy.random`` (the module's
functions, ``RandomState`` and ``Generator`` methods), the ``time`` clocks, ``send`` to an outside
generator, and (in the interpreter itself, frontend/iteration.py) ``next()`` of an outside iterator.

Each such call is ``Interpreter.draw``: the prologue makes it again on every call, in program
order, and its value is an input of the computation (a number stays symbolic, a branch on it is
a guard), so the trace is reused and the numbers are fresh; seeding (``random.seed``,
``np.random.seed``, ``setstate``) is a draw too, so it happens in its place among them.

Draws on a generator made inside the call from a seed (``random.Random(0)``) give the same
numbers on every call: they are made as they are, constants of the trace.

Objects drawn (``uuid.uuid4()``, ``datetime.now()``, ``time.localtime()``) are inputs like a
generator's items: their attributes are read like an argument's, and a whole use of one
(``str(u)``, ``now - start``) is a draw itself (``Interpreter.is_fresh``).

Some fresh values cannot be inputs: bytes and strings (``os.urandom(8)``, ``random.randbytes``,
the formatted clocks ``time.ctime()``...: inputs checked by value would compile on every call)
and numpy arrays. They are still drawn by the prologue
(the sources advance as in eager) but the trace keeps the value read while tracing: the
``opaque-call`` sharp-edge checker refuses that by default, naming the user's line
(``sharp_edges={"opaque-call": "allow"}`` keeps it, listed by ``tc.explain``). ``input()``,
``open()`` and ``random.shuffle`` (which rearranges its argument) are made once, while tracing,
and refused the same way.
"""

from __future__ import annotations

import builtins
import datetime
import os
import random
import sys
import time
import types
import uuid

from .. import hookspecs
from ..frontend import events as ev

_RANDOM = ("randint", "randrange", "choice", "choices", "sample", "uniform", "triangular", "gauss", "normalvariate",
           "lognormvariate", "expovariate", "vonmisesvariate", "gammavariate", "betavariate", "paretovariate",
           "weibullvariate", "binomialvariate", "seed", "getstate", "setstate")
_RANDOM_C = ("random", "getrandbits")  # methods of _random.Random (C): rng.random() is a builtin method
_RANDOM_FROZEN = ("randbytes",)  # bytes: drawn, but not an input
_TIME = ("time", "time_ns", "perf_counter", "perf_counter_ns", "monotonic", "monotonic_ns", "process_time",
         "process_time_ns", "thread_time", "thread_time_ns")
#: objects new on every call: inputs whose numbers (``u.int``, ``now.second``) are symbolic, and
#: whose whole uses (``str(u)``, ``now - start``) are draws too (Interpreter.is_fresh)
_OBJECT_DRAWS = [("uuid.uuid1", uuid.uuid1), ("uuid.uuid4", uuid.uuid4), ("time.localtime", time.localtime),
                 ("time.gmtime", time.gmtime)]
_CLASS_DRAWS = [(datetime.datetime, "now"), (datetime.datetime, "utcnow"), (datetime.datetime, "today"),
                (datetime.date, "today")]  # classmethods: keyed by their descriptors
#: bytes and strings new on every call: drawn, and their value frozen (refused by default)
_FROZEN_DRAWS = [("os.urandom", os.urandom)]
_FROZEN_DRAWS += [(f"time.{n}", getattr(time, n)) for n in ("ctime", "asctime", "strftime")]
#: made once, while tracing (reading stdin on every call would block; shuffle rearranges its argument)
_ONCE = [("input", builtins.input), ("open", builtins.open), ("random.shuffle", random.Random.shuffle)]
_NUMPY = ("rand", "randn", "random", "random_sample", "ranf", "sample", "randint", "random_integers", "integers",
          "normal", "standard_normal", "uniform", "choice", "binomial", "poisson", "exponential", "beta", "gamma",
          "standard_exponential", "standard_gamma", "standard_cauchy", "standard_t", "chisquare", "laplace",
          "logistic", "lognormal", "geometric", "pareto", "rayleigh", "triangular", "vonmises", "wald", "weibull",
          "zipf", "permutation", "bytes", "seed", "get_state", "set_state")


def _is_local(I, rng, shared) -> bool:
    """A generator made inside the call (not outside data, not a process-wide one), whose
    draws are the same on every call: a seeded ``random.Random``, numpy generator, a Python
    generator the function made (``send`` drives it as the interpreter runs it)."""
    return rng is not shared and id(rng) not in I.outside and not isinstance(rng, random.SystemRandom)


def _method(name, fn, shared, frozen=False):
    """Lookaside of a generator's method ``fn`` (called as ``fn(rng, *args)``)."""
    def look(I, args, kwargs):
        if not args or _is_local(I, args[0], shared):
            return fn(*args, **kwargs)
        label = name if args[0] is shared else f"{type(args[0]).__name__}.{name.rpartition('.')[2]}"
        return I.draw(fn, args, kwargs, label, frozen)
    look.through_methods = True  # rng.random() is a builtin method: looked up by its descriptor
    return look


def _function(name, fn, frozen=False):
    def look(I, args, kwargs):
        return I.draw(fn, args, kwargs, name, frozen)
    return look


def _classmethods() -> dict:
    """Lookasides of the classmethods in _CLASS_DRAWS, bound to their class or a subclass."""
    out = {}
    for cls, attr in _CLASS_DRAWS:
        desc = next(c.__dict__[attr] for c in cls.__mro__ if attr in c.__dict__)
        bound = out.setdefault(desc, {})
        bound[cls] = getattr(cls, attr)  # one bound method per class: the draw log compares them by identity
    looks = {}
    for desc, bound in out.items():
        def look(I, args, kwargs, bound=bound, attr=desc.__name__):
            fn = bound.get(args[0])
            if fn is None:  # a subclass: made as it is
                return getattr(args[0], attr)(*args[1:], **kwargs)
            return I.draw(fn, args[1:], kwargs, f"{args[0].__name__}.{attr}")
        look.through_methods = True
        looks[desc] = look
    return looks


def _once(name, fn):
    def look(I, args, kwargs):
        value = fn(*args, **kwargs)
        site, label = I.user_site(name)
        I.events.append(ev.Event(ev.FROZEN, None, label, value, site))
        return value
    return look


def table() -> dict:
    """callable -> lookaside for every fresh-value callable importable here."""
    out = {}
    for n in _RANDOM + _RANDOM_C + _RANDOM_FROZEN:
        fn = getattr(random.Random, n, None)
        if fn is not None:
            out[fn] = _method(f"random.{n}", fn, random._inst, frozen=n in _RANDOM_FROZEN)
    out.update({fn: _function(f"time.{n}", fn) for n in _TIME if (fn := getattr(time, n, None)) is not None})
    out.update({fn: _function(name, fn) for name, fn in _OBJECT_DRAWS})
    out.update(_classmethods())
    out.update({fn: _function(name, fn, frozen=True) for name, fn in _FROZEN_DRAWS})
    out.update({fn: _once(name, fn) for name, fn in _ONCE})
    out[types.GeneratorType.send] = _method("generator.send", types.GeneratorType.send, None)  # like next()
    np = sys.modules.get("numpy")  # (imported by torch when installed)
    if np is not None:
        shared = np.random.mtrand._rand
        for cls in (np.random.RandomState, np.random.Generator):
            for n in _NUMPY:
                fn = getattr(cls, n, None)
                if fn is not None:
                    out[fn] = _method(f"numpy.random.{n}", fn, shared)
        for n in ("seed", "get_state", "set_state"):  # module functions acting on the shared RandomState
            fn = getattr(np.random, n, None)
            if fn is not None and not isinstance(fn, types.MethodType):
                out[fn] = _function(f"numpy.random.{n}", fn)
    return out


@hookspecs.hookimpl
def thunder_core_lookasides():
    return table()
