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


def case_yielded_value_not_kept_alive_by_generator():
    def gen():
        yield Tracked("y")
        yield "second"

    g = gen()
    r = weakref.ref(next(g))
    return r() is None


def case_sent_value_not_kept_alive_by_generator():
    def gen():
        while True:
            x = yield
            del x

    g = gen()
    next(g)
    obj = Tracked("s")
    r = weakref.ref(obj)
    g.send(obj)
    del obj
    return r() is None


def case_thrown_exception_not_kept_alive_by_generator():
    def gen():
        while True:
            try:
                yield
            except TrackedError:
                pass

    g = gen()
    next(g)
    exc = TrackedError("t")
    r = weakref.ref(exc)
    g.throw(exc)
    del exc
    return r() is None


def case_suspended_generator_finalized_on_del():
    log = []

    def gen():
        try:
            yield 1
        finally:
            log.append("finally")

    g = gen()
    next(g)
    del g
    log.append("after-del")
    return log


def case_types_coroutine_generator_iterated_normally():
    @types.coroutine
    def gen():
        yield 1
        yield 2

    return list(gen())


def case_generator_return_value_through_two_delegations():
    def leaf():
        yield "leaf"
        return "L"

    def mid():
        r = yield from leaf()
        return r + "M"

    def top():
        r = yield from mid()
        yield r + "T"

    return list(top())


def case_genexpr_throw_and_close_semantics():
    ge = (x for x in range(5))
    out = [next(ge)]
    try:
        ge.throw(KeyError("into genexpr"))
    except KeyError as e:
        out.append(str(e))
    out.append(list(ge))
    return out


# ---------------------------------------------------------------------------
# classes
# ---------------------------------------------------------------------------


def case_super_first_argument_in_cell():
    class Base:
        def greet(self):
            return "base"

    class Child(Base):
        def greet(self):
            get_self = lambda: self  # noqa: E731 - self becomes a cell
            return (super().greet(), get_self() is self, __class__.__name__)

    return Child().greet()


def case_super_in_varargs_only_method():
    class A:
        def m(*args):
            return super().__repr__()

    try:
        return A().m()
    except RuntimeError as e:
        return "RuntimeError", str(e)
    except TypeError as e:
        return "TypeError", str(e)


def case_super_in_staticmethod_without_args():
    class A:
        @staticmethod
        def s():
            return super().__repr__()

    try:
        A.s()
    except RuntimeError as e:
        return str(e)


def case_super_in_classmethod_chain():
    class A:
        @classmethod
        def make(cls):
            return ["A", cls.__name__]

    class B(A):
        @classmethod
        def make(cls):
            return ["B"] + super().make()

    class C(B):
        pass

    return C.make(), B.make()


def case_init_subclass_kwargs_and_registry():
    registry = []

    class Plugin:
        def __init_subclass__(cls, /, name=None, **kw):
            super().__init_subclass__(**kw)
            registry.append((cls.__name__, name))

    class A(Plugin, name="alpha"):
        pass

    class B(A):
        pass

    try:
        class C(Plugin, bogus=1, name="c"):
            pass
    except TypeError as e:
        registry.append(("error", str(e).split("(")[0]))
    return registry


def case_prepare_mapping_records_lookups():
    def helper():
        return 3

    class A(metaclass=_RecordingMeta):
        x: int = 1
        y = helper()

    return A.gets, A.x, A.y, A.__annotations__


def case_prepare_returning_non_mapping():
    try:
        class A(metaclass=_NonMappingPrepareMeta):
            x = 1
    except TypeError as e:
        return str(e)


def case_class_body_del_mapping_error_becomes_nameerror():
    try:
        class A(metaclass=_NoDelMeta):
            x = 1
            del x
    except Exception as e:
        return type(e).__name__, str(e), e.__context__ is None


def case_class_body_nonlocal_and_enclosing_later_modified():
    counter = 0
    label = "before"

    class A:
        nonlocal counter
        counter += 10
        seen = label

        def read(self):
            return label

    label = "after"
    return counter, A.seen, A().read()


def case_set_name_and_descriptor_in_function_class():
    log = []

    class Field:
        def __set_name__(self, owner, name):
            self.name = name
            log.append((owner.__name__, name))

        def __get__(self, obj, objtype=None):
            if obj is None:
                return self
            return obj.__dict__.get("_" + self.name, "unset")

        def __set__(self, obj, value):
            obj.__dict__["_" + self.name] = value * 2

    class Rec:
        a = Field()
        b = Field()

    r = Rec()
    r.a = 5
    return log, r.a, r.b, type(Rec.a).__name__


def case_property_attributeerror_falls_back_to_getattr():
    class P:
        @property
        def val(self):
            raise AttributeError("inner missing")

        def __getattr__(self, name):
            return f"fallback:{name}"

    class Q:
        @property
        def val(self):
            raise AttributeError("no fallback")

    out = [P().val, getattr(P(), "other")]
    try:
        Q().val
    except AttributeError as e:
        out.append(str(e))
    return out


def case_slots_with_dict_and_weakref():
    class S:
        __slots__ = ("a", "__dict__", "__weakref__")

    s = S()
    s.a = 1
    s.b = 2
    r = weakref.ref(s)
    return s.a, s.__dict__, r() is s, sorted(S.__slots__)


def case_class_getitem_and_mro_entries():
    class G:
        def __class_getitem__(cls, item):
            return (cls.__name__, item)

    class Entry:
        def __mro_entries__(self, bases):
            return (dict,)

    class D(Entry()):
        pass

    return G[int, str], [b.__name__ for b in D.__mro__], [type(b).__name__ for b in D.__orig_bases__]


def case_type_three_arg_inside_function():
    def init(self, v):
        self.v = v

    Base = type("Base", (), {"__init__": init, "kind": "base"})
    Derived = type("Derived", (Base,), {"double": lambda self: self.v * 2})
    d = Derived(21)
    return d.double(), d.kind, [c.__name__ for c in Derived.__mro__], Derived.__qualname__


def case_exception_subclass_custom_init_requires_args():
    class E(Exception):
        def __init__(self, code, msg):
            super().__init__(msg)
            self.code = code

        def __str__(self):
            return f"E{self.code}: {self.args[0]}"

    out = []
    try:
        raise E(4, "four")
    except E as e:
        out.append(str(e))
    try:
        raise E
    except TypeError as e:
        out.append(str(e).split(".")[-1])
    return out


def case_callable_with_staticmethod_call():
    class C:
        @staticmethod
        def __call__(x):
            return ("static", x)

    return C()(5)


def case_callable_with_classmethod_call():
    class C:
        @classmethod
        def __call__(cls, x):
            return (cls.__name__, x)

    return C()(5)


def case_staticmethod_init():
    log = []

    class C:
        __init__ = staticmethod(lambda x: log.append(x))

    C(7)
    return log


def case_python_new_with_classmethod_init():
    log = []

    class C:
        def __new__(cls, *args):
            return super().__new__(cls)

        @classmethod
        def __init__(cls, *args):
            log.append((cls.__name__, [type(a).__name__ for a in args]))

    C(1, 2)
    return log


def case_staticmethod_next_dunder():
    class It:
        def __iter__(self):
            return self

        @staticmethod
        def __next__():
            raise StopIteration

    out = []
    for x in It():
        out.append(x)
    return out


def case_iter_dunder_replaced_on_class_after_use():
    class C:
        def __iter__(self):
            return iter([1, 2])

    first = []
    for x in C():
        first.append(x)
    C.__iter__ = lambda self: iter([3])
    second = []
    for x in C():
        second.append(x)
    return first, second


def case_next_dunder_replaced_on_class_after_use():
    class It:
        def __init__(self):
            self.n = 0

        def __iter__(self):
            return self

        def __next__(self):
            self.n += 1
            if self.n > 2:
                raise StopIteration
            return self.n

    first = [x for x in It()]

    def other_next(self):
        self.n += 1
        if self.n > 1:
            raise StopIteration
        return "replaced"

    It.__next__ = other_next
    second = []
    for x in It():
        second.append(x)
    return first, second


def case_calling_object_does_not_hash_it():
    hashed = []

    class C:
        def __call__(self, x):
            return x * 2

        def __hash__(self):
            hashed.append(1)
            return 7

    c = C()
    return c(3), c(4), len(hashed)


def case_calling_object_with_failing_hash():
    class C:
        def __call__(self):
            return "called"

        def __hash__(self):
            raise ValueError("do not hash me")

    return C()()


def case_metaclass_dropping_classcell():
    class Meta(type):
        def __new__(mcs, name, bases, ns):
            ns = {k: v for k, v in ns.items() if k != "__classcell__"}
            return super().__new__(mcs, name, bases, ns)

    try:
        class A(metaclass=Meta):
            def m(self):
                return __class__
    except RuntimeError as e:
        return str(e).split(" defining ")[0], "__classcell__" in str(e)


def case_with_enter_is_none():
    log = []

    class CM:
        __enter__ = None

        def __exit__(self, *a):
            log.append("exit")

    try:
        with CM():
            log.append("body")
    except TypeError as e:
        log.append(str(e))
    return log


def case_with_exit_is_none():
    log = []

    class CM:
        def __enter__(self):
            log.append("enter")
            return self

        __exit__ = None

    try:
        with CM():
            log.append("body")
    except TypeError as e:
        log.append(str(e))
    return log


def case_instance_method_replaced_and_bound_builtin():
    class C:
        def m(self):
            return "class"

    c = C()
    c.m = lambda: "instance"
    d = C()
    joined = str.join("-", ["a", "b"])
    upper = str.upper
    return c.m(), d.m(), joined, list(map(upper, ["x", "y"])), C.m(d)


# ---------------------------------------------------------------------------
# calls
# ---------------------------------------------------------------------------


def case_double_star_dict_subclass_ignores_overrides():
    class D(dict):
        def keys(self):
            return ["a", "zz"]

        def __getitem__(self, k):
            return "overridden"

    def f(**kw):
        return sorted(kw.items())

    return f(**D(a=1)), f(x=0, **D(a=1)), sorted({**D(a=1)}.items())


def case_double_star_mapping_getitem_raises_attributeerror():
    class Mp:
        def keys(self):
            return ["a"]

        def __getitem__(self, k):
            raise AttributeError("nope")

    def f(**kw):
        return kw

    out = []
    for thunk in (lambda: f(x=0, **Mp()), lambda: {**Mp()}):
        try:
            thunk()
        except Exception as e:
            out.append((type(e).__name__, str(e).split(".")[-1]))
    return out


def case_star_unpack_class_with_iter_none():
    class NoIter:
        __iter__ = None

    def f(*a):
        return a

    out = []
    for thunk in (lambda: [*NoIter()], lambda: f(*NoIter()), lambda: (*NoIter(),)):
        try:
            thunk()
        except TypeError as e:
            out.append(str(e))
    return out


def case_kwargs_non_string_keys_into_var_keyword():
    def f(**kw):
        return kw

    out = []
    for bad in ({1: 2}, {"ok": 1, (1,): 2}):
        try:
            f(**bad)
        except TypeError as e:
            out.append(str(e).split(".")[-1])
    return out


def case_positional_only_and_kwargs_same_name():
    def f(a, b=2, /, **kw):
        return a, b, sorted(kw.items())

    return f(1, a=10, b=20), f(1, 2, a=3)


def case_partial_of_partial_and_keyword_override():
    def f(a, b, c=0, *, d=1):
        return (a, b, c, d)

    p = functools.partial(f, 1, d=5)
    pp = functools.partial(p, 2, d=6)
    return (pp(), pp(c=3), pp(d=7), type(pp.func).__name__, pp.args, sorted(pp.keywords.items()))


def case_y_combinator_lambdas():
    Y = lambda f: (lambda x: x(x))(lambda y: f(lambda *a: y(y)(*a)))  # noqa: E731
    fact = Y(lambda self: lambda n: 1 if n == 0 else n * self(n - 1))
    fib = Y(lambda self: lambda n: n if n < 2 else self(n - 1) + self(n - 2))
    return fact(10), [fib(i) for i in range(10)]


def case_kwdefaults_and_defaults_mutated_between_calls():
    def f(a, b=1, *, c=2):
        return a, b, c

    out = [f(0)]
    f.__defaults__ = (10,)
    f.__kwdefaults__ = {"c": 20}
    out.append(f(0))
    f.__kwdefaults__ = None
    try:
        f(0)
    except TypeError as e:
        out.append(str(e).split(".")[-1])
    return out


def case_function_with_wrapped_and_signature():
    def deco(fn):
        @functools.wraps(fn)
        def wrapper(*a, **k):
            return ("wrapped", fn(*a, **k))
        return wrapper

    @deco
    def target(x, y=2):
        return x + y

    return target(1), target.__name__, target.__wrapped__(1), str(inspect.signature(target))


def case_deep_recursion_500():
    def depth(n):
        return 0 if n == 0 else 1 + depth(n - 1)

    return depth(500)


# ---------------------------------------------------------------------------
# scoping, eval/exec, frames
# ---------------------------------------------------------------------------


def case_walrus_in_nested_comprehension_binds_function_scope():
    rows = [[1, 2], [3, 4], [5, 6]]
    flat = [(last := x) for row in rows for x in row if x % 2]
    totals = [sum(acc := [y * 2 for y in row]) for row in rows]
    return flat, last, totals, acc


def case_nested_comprehension_reads_outer_comprehension_variable():
    data = {"a": [1, 2], "b": [3]}
    pairs = [(k, [v * len(k) for v in vs]) for k, vs in data.items()]
    nested = [[(i, j) for j in range(i)] for i in range(3)]
    lazy = [list(g) for g in [(i + j for j in range(2)) for i in range(2)]]
    return pairs, nested, lazy


def case_del_then_reuse_in_loop():
    out = []
    for i in range(3):
        tmp = i * 10
        out.append(tmp)
        del tmp
        try:
            tmp
        except UnboundLocalError as e:
            out.append(str(e))
    return out


def case_eval_with_none_globals_uses_caller_globals():
    return eval("ADV_CONST", None, {"y": 1}), eval("ADV_CONST + y", None, {"y": "!"})


def case_eval_passed_to_map_sees_caller_locals():
    a, b = 3, 4
    return list(map(eval, ["a + b", "a * b"]))


def case_eval_and_exec_with_free_variables():
    x = 10

    def inner():
        y = 5
        assert x is not None  # makes x a free variable of inner
        return eval("x + y"), sorted(k for k in locals() if not k.startswith("__"))

    ns = {}
    exec("def made(q):\n    return q + offset\noffset = 7", ns)
    return inner(), ns["made"](1)


def case_function_with_dict_subclass_globals():
    src = "def probe():\n    return undefined_name_xyz\n"
    ns = _DefaultGlobals(__builtins__=builtins)
    exec(src, ns)
    return ns["probe"]()


def case_getframe_in_callback_called_by_builtin():
    def adv_key(v):
        return sys._getframe(1).f_code.co_name

    return list(map(adv_key, [1]))


def case_getframe_f_lineno_is_live():
    fr = sys._getframe()
    a = fr.f_lineno
    b = fr.f_lineno
    return b - a


def case_getframe_f_locals_sees_later_assignments():
    fr = sys._getframe()
    late = 5
    return "late" in fr.f_locals, fr.f_locals.get("late")


def case_inspect_getframeinfo_of_current_frame():
    info = inspect.getframeinfo(inspect.currentframe())
    return info.function, info.lineno - case_inspect_getframeinfo_of_current_frame.__code__.co_firstlineno


def case_warning_attributed_to_user_line():
    def adv_deprecated():
        warnings.warn("old api", DeprecationWarning, stacklevel=2)

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        warnings.warn("careful", UserWarning)
        adv_deprecated()
    first = case_warning_attributed_to_user_line.__code__.co_firstlineno
    return [(w.category.__name__, str(w.message), os.path.basename(w.filename), w.lineno - first)
            for w in caught]


def case_object_read_from_global_container_is_released():
    _ADV_REGISTRY["k"] = Tracked("g")
    r = weakref.ref(_ADV_REGISTRY["k"])
    del _ADV_REGISTRY["k"]
    return r() is None


def case_global_declared_in_nested_function_only():
    def setter(v):
        global _ADV_TEMP_GLOBAL
        _ADV_TEMP_GLOBAL = v

    def getter():
        return _ADV_TEMP_GLOBAL

    setter(41)
    a = getter()
    setter(a + 1)
    b = getter()
    del globals()["_ADV_TEMP_GLOBAL"]
    try:
        getter()
    except NameError as e:
        return a, b, str(e)


# ---------------------------------------------------------------------------
# evaluation order and misc
# ---------------------------------------------------------------------------


def case_augassign_subscript_evaluation_order():
    log = []

    class L(list):
        def __getitem__(self, i):
            log.append(("get", i))
            return super().__getitem__(i)

        def __setitem__(self, i, v):
            log.append(("set", i, v))
            super().__setitem__(i, v)

    def idx():
        log.append("idx")
        return 1

    def val():
        log.append("val")
        return 5

    def target():
        log.append("target")
        return data

    data = L([0, 10, 20])
    target()[idx()] += val()
    return log, list(data)


def case_augassign_attribute_evaluation_order():
    log = []

    class O:
        def __getattribute__(self, name):
            log.append(("get", name))
            return object.__getattribute__(self, name)

        def __setattr__(self, name, v):
            log.append(("set", name, v))
            object.__setattr__(self, name, v)

    o = O()
    o.x = 1

    def obj():
        log.append("obj")
        return o

    def val():
        log.append("val")
        return 2

    obj().x *= val()
    return log


def case_dict_literal_evaluation_order_duplicates():
    log = []

    def k(x):
        log.append(("k", x))
        return x

    def v(x):
        log.append(("v", x))
        return x

    d = {k("a"): v(1), k("b"): v(2), k("a"): v(3), **{k("b"): v(4)}}
    return log, d


def case_star_unpacking_generators_side_effects():
    log = []

    def gen(tag, n):
        for i in range(n):
            log.append((tag, i))
            yield i

    def f(*a, **k):
        return a, sorted(k.items())

    r = f(*gen("a", 2), log.append("mid") or 9, *gen("b", 1), **{"z": len(log)})
    first, *mid, last = gen("c", 4)
    return r, first, mid, last, log


def case_argument_and_chained_comparison_order():
    log = []

    class V:
        def __init__(self, n):
            self.n = n

        def __lt__(self, other):
            log.append(("lt", self.n, other.n))
            return self.n < other.n

    def mk(n):
        log.append(("mk", n))
        return V(n)

    res = mk(1) < mk(2) < mk(0) < mk(5)
    return res, log


def case_fstring_nested_spec_expressions():
    log = []

    def w():
        log.append("w")
        return 8

    def p():
        log.append("p")
        return 3

    x = 3.14159
    s = f"{x:>{w()}.{p()}f}|{'ab'!r:^{w()}}|{x=:.2f}|{{literal}}"
    return s, log


def case_match_guards_side_effects_and_property_match_args():
    log = []

    class Pt:
        __match_args__ = ("x", "y")

        def __init__(self, x, y):
            self._x, self._y = x, y

        @property
        def x(self):
            log.append("x")
            return self._x

        @property
        def y(self):
            log.append("y")
            return self._y

    def guard(tag, result):
        log.append(("guard", tag))
        return result

    out = []
    for pt in (Pt(0, 1), Pt(2, 2), Pt(3, 4)):
        match pt:
            case Pt(0, y) if guard("first", y > 5):
                out.append("first")
            case Pt(x, y) if guard("second", x == y):
                out.append(("diag", x))
            case Pt(x=x) if guard("third", True):
                out.append(("other", x))
    return out, log


def case_match_class_attribute_raising_non_attributeerror():
    class Bad:
        __match_args__ = ("v",)

        @property
        def v(self):
            raise KeyError("boom")

    try:
        match Bad():
            case Bad(1):
                return "matched"
            case _:
                return "no"
    except KeyError as e:
        return "KeyError", str(e)


def case_identity_of_fresh_objects_and_singletons():
    a = [1]
    b = [1]
    t1 = tuple(a)
    return (a is b, a == b, None is None, ... is Ellipsis, NotImplemented is NotImplemented,
            t1 == (1,), type(a) is list, (lambda: 0) is (lambda: 0))


def case_exception_group_context_in_except_star():
    try:
        try:
            raise KeyError("ctx")
        except KeyError:
            raise ExceptionGroup("eg", [ValueError("v"), TypeError("t")])
    except* ValueError as g:
        vctx = type(g.__context__).__name__
        vmsg = [str(x) for x in g.exceptions]
    except* TypeError as g:
        tctx = type(g.__context__).__name__
    return vctx, vmsg, tctx
