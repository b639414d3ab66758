"""Differential test corpus: adversarial cases aimed at the places a Python-level
re-implementation of the eval loop typically gets wrong (exception state and chaining,
tracebacks, generator delegation and lifetime, class creation, call protocol corners,
frame introspection, evaluation order).

Each ``case_*`` function takes no arguments and returns plain data or raises. Helper
functions whose frames are inspected in tracebacks are named ``adv_*``.
"""

import builtins
import functools
import inspect
import os
import sys
import traceback
import types
import warnings
import weakref


# ---------------------------------------------------------------------------
# module-level helpers
# ---------------------------------------------------------------------------


def chain(e):
    """Plain-data summary of an exception's implicit/explicit chain."""
    out = []
    seen = 0
    while e is not None and seen < 10:
        out.append((
            type(e).__name__,
            str(e),
            type(e.__cause__).__name__ if e.__cause__ is not None else None,
            type(e.__context__).__name__ if e.__context__ is not None else None,
            e.__suppress_context__,
        ))
        e = e.__cause__ if e.__cause__ is not None else e.__context__
        seen += 1
    return out


def tb_walk(tb):
    out = []
    while tb is not None:
        out.append(tb)
        tb = tb.tb_next
    return out


def tb_summary(e):
    """(function name, line relative to its first line) for the traceback entries that
    belong to this module's case and adv_* functions."""
    out = []
    for tb in tb_walk(e.__traceback__):
        code = tb.tb_frame.f_code
        if code.co_name.startswith(("adv_", "case_")):
            out.append((code.co_name, tb.tb_lineno - code.co_firstlineno))
    return out


class Tracked:
    """A weak-referenceable object."""

    def __init__(self, tag=None):
        self.tag = tag


class TrackedError(Exception):
    pass


ADV_CONST = "module-level constant"
_ADV_REGISTRY = {}


def adv_raise_value(msg):
    raise ValueError(msg)


def adv_middle(msg):
    x = 1
    adv_raise_value(msg)
    return x


def adv_rec(n):
    if n == 0:
        raise KeyError("bottom")
    return adv_rec(n - 1)


def adv_locals_inner(x):
    y = x * 2
    raise ValueError(y)


def adv_pos_inner(d):
    return d["missing"] + 1


class _ExcPeek:
    @property
    def current(self):
        e = sys.exception()
        return None if e is None else repr(e)


class _ThrowReraiser:
    """Iterator whose throw() re-raises what it is given."""

    def __init__(self):
        self.n = 0

    def __iter__(self):
        return self

    def __next__(self):
        self.n += 1
        return self.n

    def throw(self, exc, *rest):
        raise exc


class _LoggingIter:
    """Iterator with send/throw/close that logs every call."""

    def __init__(self, log):
        self.log = log
        self.n = 0

    def __iter__(self):
        return self

    def __next__(self):
        self.log.append("next")
        self.n += 1
        if self.n > 3:
            raise StopIteration("done-next")
        return self.n

    def send(self, v):
        self.log.append(("send", v))
        if v == "stop":
            raise StopIteration("done-send")
        return v * 2

    def throw(self, exc, *rest):
        self.log.append(("throw", type(exc).__name__))
        if isinstance(exc, KeyError):
            return "recovered"
        if isinstance(exc, LookupError):
            raise StopIteration("from-throw")
        raise exc

    def close(self):
        self.log.append("close")


class _BadCloseIter:
    def __iter__(self):
        return self

    def __next__(self):
        return 1

    @property
    def close(self):
        raise RuntimeError("close lookup failed")


class _RaisingCloseIter:
    def __iter__(self):
        return self

    def __next__(self):
        return 1

    def close(self):
        raise ValueError("inner close failed")


class _RecordingNS(dict):
    def __init__(self):
        super().__init__()
        self.gets = []

    def __getitem__(self, k):
        self.gets.append(k)
        return super().__getitem__(k)


class _RecordingMeta(type):
    @classmethod
    def __prepare__(mcs, name, bases, **kw):
        return _RecordingNS()

    def __new__(mcs, name, bases, ns, **kw):
        cls = super().__new__(mcs, name, bases, dict(ns))
        cls.gets = [k for k in ns.gets if k in ("__annotations__", "int", "x", "y", "helper")]
        return cls


class _NonMappingPrepareMeta(type):
    @classmethod
    def __prepare__(mcs, name, bases):
        return 42


class _NoDelNS(dict):
    def __delitem__(self, k):
        raise LookupError("refuse " + k)


class _NoDelMeta(type):
    @classmethod
    def __prepare__(mcs, name, bases):
        return _NoDelNS()


class _DefaultGlobals(dict):
    def __missing__(self, key):
        return f"<{key}>"


# ---------------------------------------------------------------------------
# exception context / cause / suppress_context
# ---------------------------------------------------------------------------


def case_context_three_nested_handlers():
    try:
        try:
            try:
                raise KeyError("a")
            except KeyError:
                raise IndexError("b")
        except IndexError:
            raise ValueError("c")
    except ValueError as e:
        return chain(e)


def case_context_set_in_finally_without_handler():
    try:
        try:
            raise KeyError("body")
        finally:
            raise ValueError("finally")
    except ValueError as e:
        return chain(e)


def case_raise_saved_exception_inside_other_handler_gets_new_context():
    saved = None
    try:
        raise ValueError("first")
    except ValueError as e:
        saved = e
    first_ctx = saved.__context__
    try:
        try:
            raise KeyError("second")
        except KeyError:
            raise saved
    except ValueError as e2:
        return first_ctx is None, e2 is saved, chain(e2)


def case_raise_saved_outside_handler_keeps_stale_context():
    try:
        try:
            raise KeyError("ctx")
        except KeyError:
            raise ValueError("v")
    except ValueError as e:
        saved = e
    try:
        raise saved
    except ValueError as e2:
        return chain(e2)


def case_context_cycle_is_broken():
    try:
        raise KeyError("A")
    except KeyError as a:
        try:
            try:
                raise ValueError("B")
            except ValueError:
                raise a
        except KeyError as again:
            return (again is a, type(a.__context__).__name__,
                    a.__context__.__context__ is None)


def case_suppress_context_flag_transitions():
    out = []
    try:
        try:
            raise KeyError("k")
        except KeyError:
            raise ValueError("v") from None
    except ValueError as e:
        out.append((e.__suppress_context__, e.__cause__ is None, type(e.__context__).__name__))
        e.__cause__ = IndexError("later")
        out.append((e.__suppress_context__, type(e.__cause__).__name__))
        e.__suppress_context__ = False
        out.append(chain(e))
    return out


def case_raise_from_cause_that_has_its_own_context():
    try:
        try:
            raise KeyError("inner")
        except KeyError:
            cause = IndexError("cause")
            try:
                raise cause
            except IndexError:
                pass
            raise ValueError("outer") from cause
    except ValueError as e:
        return chain(e), type(e.__cause__.__context__).__name__


def case_exception_in_generator_while_caller_handles():
    def gen():
        yield 1
        raise ValueError("from gen")

    g = gen()
    next(g)
    try:
        raise KeyError("caller")
    except KeyError:
        try:
            next(g)
        except ValueError as e:
            return chain(e)


def case_generator_suspended_in_except_keeps_its_exception():
    def gen():
        try:
            raise KeyError("gen-exc")
        except KeyError:
            yield repr(sys.exception())
            yield repr(sys.exception())
        yield repr(sys.exception())

    g = gen()
    out = [next(g), repr(sys.exception())]
    try:
        raise IndexError("caller-exc")
    except IndexError:
        out.append(next(g))
        out.append(repr(sys.exception()))
        out.append(next(g))
    out.append(repr(sys.exception()))
    return out


def case_throw_into_generator_in_except_chains_to_its_exception():
    def gen():
        try:
            raise KeyError("held")
        except KeyError:
            yield 1

    g = gen()
    next(g)
    try:
        g.throw(ValueError("thrown"))
    except ValueError as e:
        return chain(e)


def case_throw_while_caller_handles_does_not_chain():
    def gen():
        yield 1

    g = gen()
    next(g)
    try:
        raise KeyError("caller")
    except KeyError:
        try:
            g.throw(ValueError("thrown"))
        except ValueError as e:
            return chain(e)


def case_close_generator_in_except_finally_raises():
    def gen():
        try:
            try:
                raise KeyError("inside")
            except KeyError:
                yield 1
        finally:
            raise ValueError("from finally")

    g = gen()
    next(g)
    try:
        g.close()
    except ValueError as e:
        return chain(e)


def case_generator_yield_in_finally_during_propagation():
    log = []

    def gen():
        try:
            yield "a"
            raise KeyError("pending")
        finally:
            log.append(repr(sys.exception()))
            yield "in-finally"
            log.append(repr(sys.exception()))

    g = gen()
    log.append(next(g))
    log.append(next(g))
    log.append(repr(sys.exception()))
    try:
        next(g)
    except KeyError as e:
        log.append(("escaped", str(e)))
    return log


def case_property_getter_sees_handled_exception():
    p = _ExcPeek()
    out = [p.current]
    try:
        raise KeyError("handled")
    except KeyError:
        out.append(p.current)
    out.append(p.current)
    return out


def case_key_function_sees_handled_exception():
    try:
        raise IndexError("outer")
    except IndexError:
        return sorted([2, 1], key=lambda v: (v, repr(sys.exception())))


def case_native_callback_chain_inside_handler():
    def key(v):
        try:
            return {}[v]
        except KeyError:
            raise ValueError(f"bad {v}")

    try:
        raise LookupError("outer")
    except LookupError:
        try:
            sorted([1], key=key)
        except ValueError as e:
            return chain(e)


def case_yield_from_custom_throw_reraises_in_handler():
    def outer():
        yield from _ThrowReraiser()

    g = outer()
    next(g)
    try:
        raise KeyError("handling")
    except KeyError:
        try:
            g.throw(ValueError("thrown"))
        except ValueError as e:
            return chain(e)


def case_super_without_class_cell_error_attributes():
    def f(x):
        return super()

    try:
        f(1)
    except RuntimeError as e:
        return str(e), repr(e.__context__), e.__suppress_context__


def case_bare_raise_after_inner_handler_completed():
    try:
        try:
            raise KeyError("outer")
        except KeyError:
            try:
                raise ValueError("inner")
            except ValueError:
                pass
            raise
    except KeyError as e:
        return chain(e)


def case_exit_raising_chains_to_body_exception():
    class CM:
        def __enter__(self):
            return self

        def __exit__(self, *exc):
            raise RuntimeError("exit failed")

    try:
        with CM():
            raise KeyError("body")
    except RuntimeError as e:
        return chain(e)


def case_raise_class_whose_new_returns_non_exception():
    class Weird(Exception):
        def __new__(cls, *a):
            return "not an exception"

    try:
        raise Weird
    except TypeError as e:
        return str(e).replace(Weird.__qualname__, "W")


# ---------------------------------------------------------------------------
# tracebacks
# ---------------------------------------------------------------------------


def case_tb_nested_helpers_names_and_lines():
    try:
        adv_middle("deep")
    except ValueError as e:
        return tb_summary(e)


def case_tb_explicit_reraise_in_same_frame_adds_entry():
    def adv_reraiser():
        try:
            adv_raise_value("x")
        except ValueError as e:
            raise e

    try:
        adv_reraiser()
    except ValueError as e:
        return tb_summary(e)


def case_tb_bare_reraise_adds_no_entry():
    def adv_bare():
        try:
            adv_raise_value("x")
        except ValueError:
            raise

    try:
        adv_bare()
    except ValueError as e:
        return tb_summary(e)


def case_tb_through_generator_and_yield_from():
    def adv_inner_gen():
        yield 1
        raise KeyError("gen")

    def adv_outer_gen():
        yield 0
        yield from adv_inner_gen()

    out = []
    try:
        for v in adv_outer_gen():
            out.append(v)
    except KeyError as e:
        out.append(tb_summary(e))
    return out


def case_tb_throw_into_suspended_generator():
    def adv_susp():
        x = 0
        yield x
        yield x + 1

    g = adv_susp()
    next(g)
    try:
        g.throw(ValueError("t"))
    except ValueError as e:
        return tb_summary(e)


def case_tb_throw_into_unstarted_generator():
    def adv_unstarted():
        yield 1

    g = adv_unstarted()
    try:
        g.throw(ValueError("t"))
    except ValueError as e:
        return tb_summary(e), inspect.getgeneratorstate(g)


def case_tb_native_callback_frames_kept():
    def adv_key(v):
        return 1 // v

    try:
        sorted([1, 0], key=adv_key)
    except ZeroDivisionError as e:
        return tb_summary(e)


def case_tb_exception_in_class_body():
    try:
        class adv_Body:
            a = 1
            b = a / 0
    except ZeroDivisionError as e:
        return tb_summary(e), [tb.tb_frame.f_code.co_name for tb in tb_walk(e.__traceback__)
                               if tb.tb_frame.f_code.co_name.startswith("adv_")]


def case_tb_multiline_call_line():
    def adv_multi(a, b):
        return a + b

    try:
        adv_multi(
            1,
            "two",
        )
    except TypeError as e:
        return tb_summary(e)


def case_tb_through_init_and_method():
    class adv_Obj:
        def __init__(self, v):
            self.v = self.adv_check(v)

        def adv_check(self, v):
            if v < 0:
                raise ValueError("neg")
            return v

    try:
        adv_Obj(-1)
    except ValueError as e:
        return tb_summary(e)


def case_tb_extract_tb_positions():
    try:
        adv_pos_inner({})
    except KeyError as e:
        out = []
        for fs, tb in zip(traceback.extract_tb(e.__traceback__), tb_walk(e.__traceback__)):
            first = tb.tb_frame.f_code.co_firstlineno
            if fs.name.startswith(("adv_", "case_")):
                end = None if fs.end_lineno is None else fs.end_lineno - first
                out.append((fs.name, fs.lineno - first, end, fs.colno, fs.end_colno))
        return out


def case_tb_frame_locals_of_raising_frame():
    try:
        adv_locals_inner(21)
    except ValueError as e:
        last = tb_walk(e.__traceback__)[-1]
        return last.tb_frame.f_code.co_name, sorted(last.tb_frame.f_locals.items())


def case_tb_frame_globals_and_lineno():
    try:
        adv_locals_inner(1)
    except ValueError as e:
        last = tb_walk(e.__traceback__)[-1]
        fr = last.tb_frame
        return (fr.f_globals.get("__name__") == __name__,
                fr.f_lineno - fr.f_code.co_firstlineno,
                last.tb_lineno - fr.f_code.co_firstlineno)


def case_tb_frame_code_is_function_code():
    try:
        adv_locals_inner(1)
    except ValueError as e:
        last = tb_walk(e.__traceback__)[-1]
        return last.tb_frame.f_code is adv_locals_inner.__code__


def case_tb_recursive_frames_are_distinct_and_linked():
    try:
        adv_rec(3)
    except KeyError as e:
        frames = [tb.tb_frame for tb in tb_walk(e.__traceback__)
                  if tb.tb_frame.f_code.co_name == "adv_rec"]
        distinct = len({id(f) for f in frames})
        back = frames[-1].f_back.f_code.co_name
        return len(frames), distinct, back


# ---------------------------------------------------------------------------
# generators: delegation, introspection, lifetime
# ---------------------------------------------------------------------------


def case_yield_from_custom_iterator_protocol_log():
    log = []

    def outer():
        r = yield from _LoggingIter(log)
        log.append(("result", r))
        yield "after"

    g = outer()
    log.append(next(g))
    log.append(g.send(5))
    log.append(g.throw(KeyError("k")))
    log.append(g.send("stop"))
    return log


def case_yield_from_custom_throw_stopiteration_value():
    log = []

    def outer():
        r = yield from _LoggingIter(log)
        yield ("result", r)

    g = outer()
    next(g)
    log.append(g.throw(LookupError("lk")))
    return log


def case_yield_from_custom_close_called():
    log = []

    def outer():
        try:
            yield from _LoggingIter(log)
        finally:
            log.append("outer-finally")

    g = outer()
    next(g)
    g.close()
    return log, inspect.getgeneratorstate(g)


def case_throw_into_yield_from_subgen_catches_and_yields():
    def sub():
        while True:
            try:
                yield "sub-normal"
            except ValueError as e:
                yield f"sub-caught {e}"

    def outer():
        yield from sub()

    g = outer()
    return [next(g), g.throw(ValueError("x")), next(g), g.throw(ValueError("y"))]


def case_throw_into_yield_from_subgen_returns():
    def sub():
        try:
            yield 1
        except ValueError:
            return "sub-returned"

    def outer():
        r = yield from sub()
        yield ("outer got", r)
        yield "end"

    g = outer()
    next(g)
    return [g.throw(ValueError()), next(g)]


def case_throw_generatorexit_explicitly_into_yield_from():
    log = []

    def sub():
        try:
            yield 1
        finally:
            log.append("sub-finally")

    def outer():
        try:
            yield from sub()
        except GeneratorExit:
            log.append("outer-saw-exit")
            yield "kept going"

    g = outer()
    next(g)
    log.append(g.throw(GeneratorExit))
    return log


def case_close_yield_from_inner_close_raises():
    log = []

    def outer():
        try:
            yield from _RaisingCloseIter()
        finally:
            log.append("outer-finally")

    g = outer()
    next(g)
    try:
        g.close()
    except ValueError as e:
        log.append(("raised", str(e)))
    return log


def case_close_yield_from_close_lookup_error_is_unraisable():
    seen = []
    old = sys.unraisablehook
    sys.unraisablehook = lambda u: seen.append((type(u.exc_value).__name__, str(u.exc_value)))
    try:
        def outer():
            try:
                yield from _BadCloseIter()
            finally:
                seen.append("finally")

        g = outer()
        next(g)
        try:
            g.close()
            seen.append("closed")
        except RuntimeError as e:
            seen.append(("raised", str(e)))
    finally:
        sys.unraisablehook = old
    return seen


def case_send_non_none_into_yield_from_iterator_without_send():
    class OnlyNext:
        def __iter__(self):
            return self

        def __next__(self):
            return 1

    def outer():
        yield from OnlyNext()

    g = outer()
    next(g)
    return g.send(5)


def case_genexpr_partially_consumed_then_closed_releases_source():
    log = []

    def source():
        try:
            for i in range(10):
                yield i
        finally:
            log.append("source-finally")

    ge = (x * 2 for x in source())
    log.append(next(ge))
    log.append(next(ge))
    ge.close()
    log.append("after-close")
    return log


def case_generators_capture_loop_variable_late():
    gens = []
    for i in range(3):
        gens.append((i * k for k in range(2)))
    early = [list(g) for g in gens]
    fs = []
    for i in range(3):
        def gen(i=i):
            yield i
        fs.append(gen)
    return early, [list(f()) for f in fs]


def case_generator_created_in_class_body():
    class K:
        base = 10
        squares = list(x * x for x in range(4))
        gen = (y for y in range(3))

        def method(self):
            yield from (self.base + i for i in range(2))

    return K.squares, list(K.gen), list(K().method())


def case_generator_name_follows_function_name():
    def gen():
        yield 1

    gen.__name__ = "renamed"
    gen.__qualname__ = "Q.renamed"
    g = gen()
    return g.__name__, g.__qualname__


def case_generator_gi_yieldfrom():
    def inner():
        yield 1
        yield 2

    def outer():
        yield 0
        yield from inner()

    g = outer()
    out = [g.gi_yieldfrom is None]
    next(g)
    out.append(g.gi_yieldfrom is None)
    next(g)
    out.append(type(g.gi_yieldfrom).__name__)
    out.append(g.gi_yieldfrom.__name__)
    return out


def case_generator_locals_introspection():
    def gen(a):
        b = a + 1
        yield b
        c = b * 2
        yield c

    def snapshot():
        return [(k, v if isinstance(v, int) else type(v).__name__)
                for k, v in sorted(inspect.getgeneratorlocals(g).items())]

    g = gen(1)
    out = [snapshot()]
    next(g)
    out.append(snapshot())
    next(g)
    out.append(snapshot())
    return out


def case_generator_code_and_frame_line():
    def gen():
        yield 1
        yield 2

    g = gen()
    out = [g.gi_code.co_name, g.gi_code is gen.__code__]
    next(g)
    out.append(g.gi_frame.f_lineno - gen.__code__.co_firstlineno)
    next(g)
    out.append(g.gi_frame.f_lineno - gen.__code__.co_firstlineno)
    return out
