"""Differential test corpus: exceptions, try statements, chaining, exception groups.

Each ``case_*`` function takes no arguments and returns plain data or raises.
"""

import errno
import sys


# ---------------------------------------------------------------------------
# module-level helpers
# ---------------------------------------------------------------------------


class AppError(Exception):
    pass


class NetworkError(AppError):
    pass


class StorageError(AppError):
    pass


class RetryableMixin:
    retryable = True


class TimeoutAppError(NetworkError, RetryableMixin):
    pass


class DiskFullError(StorageError, OSError):
    pass


class CodeError(Exception):
    def __init__(self, code, detail):
        super().__init__(code, detail)
        self.code = code
        self.detail = detail

    def __str__(self):
        return f"[{self.code}] {self.detail}"


class NoSuperInit(Exception):
    def __init__(self, value):
        self.value = value


def chain_summary(e):
    """Plain-data summary of an exception's chain."""
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


def eg_summary(eg):
    """Recursive plain-data summary of an exception group."""
    if isinstance(eg, BaseExceptionGroup):
        return (type(eg).__name__, eg.message, [eg_summary(e) for e in eg.exceptions])
    return (type(eg).__name__, str(eg))


def level3(x):
    if x < 0:
        raise ValueError(f"negative: {x}")
    return 1 / x


def level2(x):
    return level3(x - 1) * 2


def level1(x):
    try:
        return level2(x)
    finally:
        pass


def try_log(action):
    log = []
    try:
        log.append("try")
        action()
    except ValueError as e:
        log.append("except " + str(e))
    else:
        log.append("else")
    finally:
        log.append("finally")
    return log


def raise_value_error():
    raise ValueError("bad")


# ---------------------------------------------------------------------------
# try / except / else / finally
# ---------------------------------------------------------------------------


def case_try_except_else_finally_no_exception():
    return try_log(lambda: None)


def case_try_except_else_finally_caught():
    return try_log(raise_value_error)


def case_try_except_else_finally_uncaught():
    outer = []
    try:
        try_log(lambda: {}["missing"])
    except KeyError as e:
        outer.append(repr(e))
    return outer


def case_try_finally_without_except_propagates():
    log = []
    try:
        try:
            log.append("body")
            raise IndexError("idx")
        finally:
            log.append("cleanup")
    except IndexError as e:
        log.append("outer " + str(e))
    return log


def case_exception_in_else_not_caught_by_same_try():
    log = []
    try:
        try:
            log.append("try")
        except ValueError:
            log.append("wrong handler")
        else:
            raise ValueError("from else")
        finally:
            log.append("finally")
    except ValueError as e:
        log.append("outer " + str(e))
    return log


def case_return_in_finally_overrides_return():
    def f():
        try:
            return "try"
        finally:
            return "finally"

    return f()


def case_return_in_finally_swallows_exception():
    def f():
        try:
            raise ValueError("lost")
        finally:
            return "swallowed"

    return f()


def case_return_value_evaluated_before_finally():
    def f():
        x = 1
        lst = [1]
        try:
            return x, lst
        finally:
            x = 2
            lst.append(2)

    return f()


def case_finally_runs_on_break_and_continue():
    log = []
    for i in range(4):
        try:
            if i == 1:
                continue
            if i == 3:
                break
            log.append(("body", i))
        finally:
            log.append(("finally", i))
    return log


def case_break_in_finally_swallows_exception():
    log = []
    while True:
        try:
            raise RuntimeError("dropped")
        finally:
            log.append("finally")
            break
    return log, sys.exception() is None


def case_exception_in_finally_replaces_original():
    try:
        try:
            raise KeyError("original")
        finally:
            raise ValueError("from finally")
    except ValueError as e:
        return chain_summary(e)


def case_try_in_loop_with_continue():
    results = []
    for s in ["1", "x", "3", "", "5"]:
        try:
            n = int(s)
        except ValueError:
            results.append("bad")
            continue
        else:
            results.append(n)
        finally:
            results.append("|")
    return results


def case_bare_except_catches_base_exceptions():
    caught = []
    for exc in (SystemExit(3), KeyboardInterrupt(), GeneratorExit(), ValueError()):
        try:
            raise exc
        except:  # noqa: E722
            caught.append(type(sys.exc_info()[1]).__name__)
    return caught


def case_except_exception_does_not_catch_baseexception():
    try:
        try:
            raise SystemExit(7)
        except Exception:
            return "wrong"
    except BaseException as e:
        return type(e).__name__, e.code, e.args


def case_while_loop_retry_with_break_in_except():
    attempts = []
    n = 0
    while True:
        n += 1
        try:
            if n < 3:
                raise ConnectionError(f"attempt {n}")
            attempts.append("success")
        except ConnectionError as e:
            attempts.append(str(e))
            if n > 10:
                break
            continue
        break
    return attempts, n


# ---------------------------------------------------------------------------
# chaining
# ---------------------------------------------------------------------------


def case_raise_from_sets_cause():
    try:
        try:
            {}["k"]
        except KeyError as e:
            raise ValueError("converted") from e
    except ValueError as e:
        return chain_summary(e)


def case_raise_from_none_suppresses_context():
    try:
        try:
            [][0]
        except IndexError:
            raise LookupError("clean") from None
    except LookupError as e:
        return e.__cause__ is None, type(e.__context__).__name__, e.__suppress_context__


def case_implicit_context_chain():
    try:
        try:
            try:
                1 / 0
            except ZeroDivisionError:
                raise TypeError("second")
        except TypeError:
            raise KeyError("third")
    except KeyError as e:
        return chain_summary(e)


def case_raise_from_unrelated_exception_instance():
    cause = OSError("disk")
    try:
        raise RuntimeError("failed") from cause
    except RuntimeError as e:
        return chain_summary(e), e.__cause__ is cause


def case_raise_from_exception_class():
    try:
        raise ValueError("v") from KeyError
    except ValueError as e:
        return type(e.__cause__).__name__, e.__cause__.args


def case_raise_from_non_exception():
    raise ValueError("v") from 5


def case_raise_from_propagates_uncaught():
    try:
        int("nope")
    except ValueError as e:
        raise AppError("could not parse config") from e


def case_context_not_set_to_itself_on_reraise():
    try:
        try:
            raise ValueError("same")
        except ValueError as e:
            raise e
    except ValueError as e:
        return e.__context__ is None, str(e)


def case_manual_cause_assignment():
    e = ValueError("x")
    e.__cause__ = KeyError("k")
    return e.__suppress_context__, type(e.__cause__).__name__


# ---------------------------------------------------------------------------
# raise forms and re-raise
# ---------------------------------------------------------------------------


def case_bare_raise_reraises_current():
    try:
        try:
            raise NetworkError("net down")
        except AppError:
            raise
    except NetworkError as e:
        return type(e).__name__, str(e)


def case_bare_raise_after_nested_handled_exception():
    try:
        try:
            raise KeyError("outer")
        except KeyError:
            try:
                raise ValueError("inner")
            except ValueError:
                pass
            raise
    except Exception as e:
        return type(e).__name__, repr(e)


def case_bare_raise_in_helper_function():
    def reraise():
        raise

    try:
        try:
            raise StorageError("saved")
        except StorageError:
            reraise()
    except StorageError as e:
        return str(e)


def case_bare_raise_without_active_exception():
    raise


def case_raise_class_vs_instance():
    out = []
    for thing in (ValueError, ValueError("inst"), KeyError, CodeError(3, "three")):
        try:
            raise thing
        except Exception as e:
            out.append((type(e).__name__, e.args, str(e)))
    return out


def case_raise_non_exception_instance():
    raise 42


def case_raise_non_exception_class():
    class NotAnException:
        pass

    raise NotAnException


def case_raise_saved_exception_outside_handler():
    saved = None
    try:
        raise AppError("saved for later")
    except AppError as e:
        saved = e
    try:
        raise saved
    except AppError as e2:
        return e2 is saved, str(e2), e2.__context__ is None


def case_raise_saved_exception_uncaught():
    errors = []
    for v in ("1", "two"):
        try:
            int(v)
        except ValueError as e:
            errors.append(e)
    raise errors[0]


# ---------------------------------------------------------------------------
# matching: hierarchies, tuples, ordering
# ---------------------------------------------------------------------------


def case_custom_hierarchy_multiple_inheritance():
    out = []
    for exc in (TimeoutAppError("t"), DiskFullError(28, "full"), NetworkError("n"), StorageError("s")):
        try:
            raise exc
        except OSError as e:
            out.append(("oserror", type(e).__name__, e.errno))
        except NetworkError as e:
            out.append(("network", type(e).__name__, getattr(e, "retryable", False)))
        except AppError as e:
            out.append(("app", type(e).__name__))
    return out, [c.__name__ for c in TimeoutAppError.__mro__]


def case_except_tuple():
    out = []
    for thunk in (lambda: [][1], lambda: {}["a"], lambda: 1 / 0, lambda: None):
        try:
            thunk()
        except (IndexError, KeyError) as e:
            out.append(("lookup", type(e).__name__))
        except (ZeroDivisionError,):
            out.append("zero")
        else:
            out.append("none")
    return out


def case_except_ordering_first_match_wins():
    try:
        raise KeyError("k")
    except LookupError:
        first = "LookupError"
    except KeyError:
        first = "KeyError"
    return first


def case_except_with_non_exception_class_raises_typeerror():
    try:
        try:
            raise ValueError("v")
        except (int, ValueError):
            return "unreachable"
    except TypeError as e:
        return str(e), type(e.__context__).__name__


def case_except_clause_evaluated_lazily():
    log = []

    def exc_types(name, types):
        log.append(name)
        return types

    try:
        raise KeyError
    except exc_types("first", ValueError):
        pass
    except exc_types("second", (TypeError, KeyError)):
        log.append("handled")
    except exc_types("third", KeyError):
        pass
    return log


def case_uncaught_custom_exception_with_str_override():
    raise CodeError(404, "not found")


def case_oserror_errno_maps_to_subclass():
    out = []
    for code in (errno.ENOENT, errno.EEXIST, errno.EACCES, errno.EISDIR):
        e = OSError(code, "msg")
        out.append((type(e).__name__, e.errno, e.strerror, str(e) == f"[Errno {code}] msg"))
    return out


# ---------------------------------------------------------------------------
# exception variable scoping and sys.exc_info
# ---------------------------------------------------------------------------


def case_exception_variable_deleted_after_except():
    try:
        raise ValueError("v")
    except ValueError as e:
        inside = str(e)
    try:
        e  # noqa: B018
    except UnboundLocalError as err:
        return inside, str(err)


def case_exception_variable_shadowing_existing_local():
    e = "original"
    try:
        1 / 0
    except ZeroDivisionError as e:  # noqa: F841
        pass
    return e


def case_exception_variable_saved_via_other_name():
    try:
        raise KeyError("kept")
    except KeyError as e:
        kept = e
    return repr(kept), type(kept).__name__


def case_sys_exc_info_inside_and_after():
    out = []
    out.append(sys.exc_info() == (None, None, None))
    try:
        raise TypeError("t")
    except TypeError:
        t, v, tb = sys.exc_info()
        out.append((t.__name__, str(v), tb is not None))
        out.append(type(sys.exception()).__name__)
    out.append(sys.exc_info()[0])
    out.append(sys.exception())
    return out


def case_sys_exception_nested_handlers():
    out = []
    try:
        raise KeyError("outer")
    except KeyError:
        out.append(type(sys.exception()).__name__)
        try:
            raise ValueError("inner")
        except ValueError:
            out.append(type(sys.exception()).__name__)
        out.append(type(sys.exception()).__name__)
    out.append(sys.exception())
    return out


def case_sys_exception_in_finally_and_called_function():
    def current():
        e = sys.exception()
        return type(e).__name__ if e is not None else None

    out = []
    try:
        try:
            raise IndexError("i")
        finally:
            out.append(("finally", current()))
    except IndexError:
        out.append(("handler", current()))
    out.append(("after", current()))
    return out


def case_nested_try_in_except_handler():
    log = []
    try:
        raise ValueError("first")
    except ValueError as outer:
        try:
            raise KeyError("second")
        except KeyError as inner:
            log.append((str(outer), repr(inner), type(inner.__context__).__name__))
        log.append(str(outer))
    return log


def case_exception_raised_in_handler_propagates():
    try:
        {}["missing"]
    except KeyError:
        raise AttributeError("raised while handling")


# ---------------------------------------------------------------------------
# deep calls, builtins' messages
# ---------------------------------------------------------------------------


def case_exception_through_several_frames():
    out = []
    for x in (3, 0, 1):
        try:
            out.append(level1(x))
        except ValueError as e:
            out.append(("ValueError", str(e)))
        except ZeroDivisionError as e:
            out.append(("ZeroDivisionError", str(e)))
    return out


def case_uncaught_through_several_frames():
    return level1(-5)


def case_exception_from_recursion_unwinds():
    log = []

    def dive(n):
        try:
            if n == 0:
                raise RecursionError("bottom reached")
            return dive(n - 1)
        finally:
            log.append(n)

    try:
        dive(4)
    except RecursionError as e:
        return str(e), log


def case_builtin_lookup_error_messages():
    out = []
    for thunk in (lambda: {"a": 1}["b"], lambda: {(1, 2): 0}[(3, 4)], lambda: [1, 2][5],
                  lambda: (1,)[-2], lambda: "ab"[9], lambda: {}.pop("p"), lambda: [].pop(),
                  lambda: set().pop(), lambda: range(3)[3]):
        try:
            thunk()
        except LookupError as e:
            out.append((type(e).__name__, str(e), e.args))
    return out


def case_keyerror_uncaught():
    d = {"present": 1}
    return d["absent"]


def case_builtin_type_error_messages():
    out = []
    nothing = None
    five = 5
    for thunk in (lambda: 1 + "a", lambda: "a" + 1, lambda: nothing[0], lambda: five(), lambda: len(5),
                  lambda: iter(3), lambda: [] < 1, lambda: {[]: 1}, lambda: "x" * "y",
                  lambda: -"s", lambda: abs("s")):
        try:
            thunk()
        except TypeError as e:
            out.append(str(e))
    return out


def case_builtin_value_error_messages():
    out = []
    for thunk in (lambda: int("x"), lambda: [1].remove(2), lambda: [1].index(3),
                  lambda: "abc".index("z"), lambda: float("nan!"), lambda: chr(-1),
                  lambda: "a,b".split(""), lambda: range(0, 5, 0)):
        try:
            thunk()
        except ValueError as e:
            out.append(str(e))
    return out


def case_attribute_error_messages():
    class Thing:
        def __init__(self):
            self.present = 1

    out = []
    for thunk in (lambda: (5).foo, lambda: Thing().absent, lambda: Thing.missing, lambda: "s".nope,
                  lambda: delattr(Thing(), "nothere"), lambda: sys.not_a_real_attribute,
                  lambda: (1).real.imag.nope):
        try:
            thunk()
        except AttributeError as e:
            out.append(str(e))
    return out


def case_attribute_error_uncaught():
    class Config:
        def __init__(self):
            self.host = "h"

    return Config().port


def case_call_arity_type_errors():
    def f(a, b=2, *, c):
        return a, b, c

    out = []
    for thunk in (lambda: f(), lambda: f(1), lambda: f(1, 2, 3, c=4), lambda: f(1, c=1, d=2),
                  lambda: f(1, a=1, c=2), lambda: (lambda: 0)(1), lambda: f(*[1], **{"c": 1, "b": 5})):
        try:
            out.append(thunk())
        except TypeError as e:
            out.append(str(e))
    return out


def case_call_arity_uncaught():
    def two(x, y):
        return x + y

    return two(1)


def case_name_error_message():
    try:
        undefined_name_for_corpus  # noqa: F821
    except NameError as e:
        return type(e).__name__, str(e), e.name


def case_unicode_decode_error_message():
    try:
        b"ab\xff".decode("utf-8")
    except UnicodeDecodeError as e:
        return str(e), e.start, e.end, e.reason, isinstance(e, ValueError)


def case_exception_in_key_function_propagates():
    def key(x):
        if x == 3:
            raise ValueError(f"cannot rank {x}")
        return -x

    return sorted([1, 2, 3, 4], key=key)


def case_exception_in_eq_during_membership():
    class Bad:
        def __eq__(self, other):
            raise RuntimeError("eq exploded")

        __hash__ = object.__hash__

    try:
        Bad() in [1, 2]  # noqa: B015
    except RuntimeError as e:
        return str(e)


# ---------------------------------------------------------------------------
# comprehensions / generator expressions
# ---------------------------------------------------------------------------


def case_exception_inside_list_comprehension():
    data = [1, 2, 0, 4]
    try:
        return [10 // x for x in data]
    except ZeroDivisionError as e:
        return "caught", str(e)


def case_exception_inside_genexpr_partial_consumption():
    consumed = []

    def checked(x):
        if x == 3:
            raise ValueError("three")
        return x

    g = (checked(x) for x in range(5))
    try:
        for v in g:
            consumed.append(v)
    except ValueError as e:
        consumed.append(str(e))
    consumed.append(list(g))
    return consumed


def case_exception_inside_dict_comprehension_uncaught():
    keys = ["a", "b", "c"]
    source = {"a": 1, "b": 2}
    return {k: source[k] for k in keys}


def case_try_inside_comprehension_helper():
    def safe(f, *a):
        try:
            return f(*a)
        except Exception as e:
            return type(e).__name__

    return [safe(int, s) for s in ("1", "x", "3")], {s: safe(len, s) for s in ("ab", 3)}


# ---------------------------------------------------------------------------
# exception objects: args, notes, str
# ---------------------------------------------------------------------------


def case_exception_args_and_str():
    return [
        (ValueError().args, str(ValueError())),
        (ValueError("a").args, str(ValueError("a"))),
        (ValueError("a", 2).args, str(ValueError("a", 2))),
        (KeyError("k").args, str(KeyError("k"))),
        (str(KeyError()), str(KeyError(1, 2))),
        repr(ValueError("x")),
        repr(CodeError(1, "one")),
        str(CodeError(1, "one")),
        (NoSuperInit(5).args, NoSuperInit(5).value),
        str(OSError(2, "No such file")),
    ]


def case_exception_args_mutation():
    e = ValueError("a")
    e.args = ("b", "c")
    return str(e), e.args


def case_add_note_and_notes():
    e = ValueError("base")
    had_notes_before = hasattr(e, "__notes__")
    e.add_note("first note")
    e.add_note("second note")
    try:
        raise e
    except ValueError as caught:
        caught.add_note("added while handling")
        return had_notes_before, caught.__notes__, str(caught)


def case_add_note_non_string_raises():
    e = KeyError("k")
    try:
        e.add_note(123)
    except TypeError as err:
        return str(err)


def case_uncaught_exception_with_notes():
    e = LookupError("with notes")
    e.add_note("note does not change str")
    raise e


def case_exception_attributes_and_traceback_flag():
    try:
        raise CodeError(500, "server")
    except CodeError as e:
        return e.code, e.detail, e.__traceback__ is not None, e.with_traceback(None) is e


def case_stopiteration_in_normal_function_is_ordinary():
    def f():
        raise StopIteration("plain")

    try:
        f()
    except StopIteration as e:
        return "StopIteration", e.value, e.args


# ---------------------------------------------------------------------------
# exception groups and except*
# ---------------------------------------------------------------------------


def case_exception_group_construction_and_str():
    eg = ExceptionGroup("many", [ValueError("v"), TypeError("t")])
    beg = BaseExceptionGroup("base", [KeyboardInterrupt(), ValueError("x")])
    auto = BaseExceptionGroup("auto", [ValueError("only exceptions")])
    return (
        str(eg), eg.message, eg_summary(eg), type(beg).__name__, type(auto).__name__,
        isinstance(eg, Exception), len(eg.exceptions), type(eg.exceptions).__name__,
    )


def case_exception_group_invalid_construction():
    out = []
    for thunk in (lambda: ExceptionGroup("m", []), lambda: ExceptionGroup("m", [1]),
                  lambda: ExceptionGroup("m", [KeyboardInterrupt()])):
        try:
            thunk()
        except (TypeError, ValueError) as e:
            out.append((type(e).__name__, str(e)))
    return out


def case_exception_group_subgroup_and_split():
    eg = ExceptionGroup("top", [
        ValueError("v1"),
        ExceptionGroup("nested", [TypeError("t1"), ValueError("v2")]),
        KeyError("k"),
    ])
    sub = eg.subgroup(ValueError)
    match, rest = eg.split((TypeError, KeyError))
    none_match = eg.subgroup(OSError)
    pred = eg.subgroup(lambda e: "2" in str(e))
    whole = eg.subgroup(ExceptionGroup)
    return eg_summary(sub), eg_summary(match), eg_summary(rest), none_match, eg_summary(pred), whole is eg


def case_except_star_splits_group():
    log = []
    try:
        raise ExceptionGroup("eg", [ValueError("a"), TypeError("b"), ValueError("c")])
    except* ValueError as g:
        log.append(("value", eg_summary(g)))
    except* TypeError as g:
        log.append(("type", eg_summary(g)))
    return log


def case_except_star_unmatched_parts_reraised():
    try:
        try:
            raise ExceptionGroup("eg", [ValueError("a"), KeyError("k"), OSError("o")])
        except* ValueError:
            pass
    except ExceptionGroup as rest:
        return eg_summary(rest)


def case_except_star_with_naked_exception():
    try:
        raise ValueError("naked")
    except* ValueError as g:
        summary = type(g).__name__, g.message, [repr(e) for e in g.exceptions]
    return summary


def case_except_star_naked_unmatched_propagates_unwrapped():
    try:
        try:
            raise KeyError("naked key")
        except* ValueError:
            pass
    except KeyError as e:
        return "KeyError", repr(e)


def case_except_star_raise_in_handler():
    try:
        try:
            raise ExceptionGroup("eg", [ValueError("a"), TypeError("b")])
        except* ValueError:
            raise RuntimeError("handler failed")
    except ExceptionGroup as eg:
        parts = sorted((type(e).__name__, str(e)) for e in eg.exceptions)
        return parts, eg.message


def case_except_star_bare_reraise_in_handler():
    try:
        try:
            raise ExceptionGroup("eg", [ValueError("a"), TypeError("b"), ValueError("c")])
        except* ValueError:
            raise
        except* TypeError:
            pass
    except ExceptionGroup as eg:
        return eg_summary(eg)


def case_except_star_nested_groups_preserve_structure():
    try:
        try:
            raise ExceptionGroup("outer", [
                ValueError("v"),
                ExceptionGroup("inner", [KeyError("k"), ValueError("w")]),
            ])
        except* KeyError as g:
            caught = eg_summary(g)
    except ExceptionGroup as rest:
        return caught, eg_summary(rest)


def case_except_star_exception_group_type_not_allowed():
    try:
        try:
            raise ExceptionGroup("eg", [ValueError("v")])
        except* ExceptionGroup:
            pass
    except TypeError as e:
        return str(e)


def case_except_star_uncaught_group():
    try:
        raise ExceptionGroup("problems", [ValueError("a"), ZeroDivisionError("z")])
    except* ZeroDivisionError:
        pass


def case_except_star_multiple_types_in_clause():
    hits = []
    try:
        raise ExceptionGroup("eg", [KeyError("k"), IndexError("i"), ValueError("v")])
    except* (KeyError, IndexError) as g:
        hits.append(sorted(type(e).__name__ for e in g.exceptions))
    except* ValueError as g:
        hits.append([str(e) for e in g.exceptions])
    return hits


def case_except_star_else_and_finally():
    log = []
    for raise_it in (False, True):
        try:
            if raise_it:
                raise ExceptionGroup("eg", [OSError("o")])
        except* OSError:
            log.append("handled")
        else:
            log.append("else")
        finally:
            log.append("finally")
    return log


def case_exception_group_derive_keeps_notes_and_cause():
    eg = ExceptionGroup("orig", [ValueError("v"), TypeError("t")])
    eg.add_note("group note")
    eg.__cause__ = KeyError("why")
    sub = eg.subgroup(ValueError)
    return sub.message, getattr(sub, "__notes__", None), type(sub.__cause__).__name__
