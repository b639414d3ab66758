"""Second half of corpus/exceptions.py (split to keep files under 1000 lines); its module-level
helpers are shared."""

import errno
import sys

from . import exceptions as _first

globals().update({k: v for k, v in vars(_first).items() if not k.startswith(('case_', '__'))})


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


def case_comparison_errors_and_their_tracebacks():
    # comparisons run inline in the run loop: their errors must look like CPython's
    import traceback

    class Loud:
        def __lt__(self, other):
            raise ValueError("lt exploded")

    class BadBool:
        def __gt__(self, other):
            return self

        def __bool__(self):
            raise RuntimeError("bool exploded")

    out = []
    for a, b in ((1, "a"), (Loud(), 1), (None, None)):
        try:
            out.append(a < b)
        except Exception as e:  # noqa: BLE001
            out.append((type(e).__name__, str(e), [f.name for f in traceback.extract_tb(e.__traceback__)]))
    try:
        if BadBool() > 0:  # 3.13: COMPARE_OP converts to bool itself
            out.append("taken")
    except RuntimeError as e:
        out.append(str(e))
    out.append([x == y for x in (1, 1.0, "1") for y in (1, True)])
    return out


_rebound = 1


def case_global_rebound_between_reads_at_one_site():
    global _rebound
    _rebound = 1  # (the case runs natively, then interpreted)
    seen = []
    for k in range(4):
        seen.append(_rebound)  # the same LOAD_GLOBAL instruction sees each new value
        _rebound = k * 10
    g = globals()
    for k in range(3):
        seen.append(_rebound)
        g["_rebound"] = -k
    return seen
