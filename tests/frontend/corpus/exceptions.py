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
