"""Differential test corpus: with statements / context managers and structural pattern matching.

Each ``case_*`` function takes no arguments and returns plain data or raises.
"""

import collections
import contextlib
import dataclasses
import enum
import io


# ---------------------------------------------------------------------------
# context-manager helpers
# ---------------------------------------------------------------------------


class CM:
    """Records enter/exit into a shared log; optionally suppresses or fails."""

    def __init__(self, log, name, suppress=False, fail_enter=False, fail_exit=False, value=None):
        self.log = log
        self.name = name
        self.suppress = suppress
        self.fail_enter = fail_enter
        self.fail_exit = fail_exit
        self.value = value

    def __enter__(self):
        self.log.append(("enter", self.name))
        if self.fail_enter:
            raise RuntimeError(f"enter failed: {self.name}")
        return self.value if self.value is not None else self.name

    def __exit__(self, exc_type, exc, tb):
        self.log.append((
            "exit",
            self.name,
            exc_type.__name__ if exc_type is not None else None,
            str(exc) if exc is not None else None,
            tb is not None,
        ))
        if self.fail_exit:
            raise ValueError(f"exit failed: {self.name}")
        return self.suppress


class TruthyExit:
    def __enter__(self):
        return self

    def __exit__(self, *args):
        return 1  # truthy non-bool suppresses too


class OnlyExit:
    def __exit__(self, *args):
        return False


@contextlib.contextmanager
def tag(log, name):
    log.append("<" + name + ">")
    try:
        yield name.upper()
    finally:
        log.append("</" + name + ">")


@contextlib.contextmanager
def swallow(log, *types):
    try:
        yield
    except types as e:
        log.append(("swallowed", type(e).__name__, str(e)))


@contextlib.contextmanager
def translate_errors():
    try:
        yield
    except KeyError as e:
        raise LookupError(f"translated {e}") from e


@contextlib.contextmanager
def yields_twice():
    yield 1
    yield 2


@contextlib.contextmanager
def never_yields():
    if False:
        yield


# ---------------------------------------------------------------------------
# pattern-matching helpers
# ---------------------------------------------------------------------------


class Point:
    __match_args__ = ("x", "y")

    def __init__(self, x, y):
        self.x = x
        self.y = y


class Point3(Point):
    __match_args__ = ("x", "y", "z")

    def __init__(self, x, y, z):
        super().__init__(x, y)
        self.z = z


class BadMatchArgs:
    __match_args__ = ["a"]

    def __init__(self):
        self.a = 1


class GhostArgs:
    __match_args__ = ("ghost",)


@dataclasses.dataclass
class Circle:
    center: tuple
    radius: float


@dataclasses.dataclass
class Rect:
    x: int
    y: int
    w: int
    h: int


class Color(enum.Enum):
    RED = 1
    GREEN = 2
    BLUE = 3


class Consts:
    ANSWER = 42
    NAME = "deep"


class MyDict(dict):
    pass


class NotAMapping:
    def __getitem__(self, key):
        return 1

    def keys(self):
        return ["a"]


def describe(value):
    match value:
        case None:
            return "none"
        case True:
            return "true"
        case False:
            return "false"
        case 0:
            return "zero"
        case 1 | 2 | 3:
            return "small"
        case -1:
            return "minus one"
        case 2.5:
            return "two and a half"
        case 1 + 2j:
            return "complex"
        case "hello" "world":
            return "concatenated"
        case "":
            return "empty str"
        case b"raw":
            return "bytes"
        case str():
            return "some str"
        case _:
            return "other"


def shape_area(shape):
    match shape:
        case Circle(radius=r) if r < 0:
            return "invalid"
        case Circle(_, r):
            return ("circle", r * r * 3)
        case Rect(w=w, h=h) if w == h:
            return ("square", w * w)
        case Rect(_, _, w, h):
            return ("rect", w * h)
        case Point(x=0, y=0):
            return "origin"
        case Point():
            return "point"
        case _:
            return None


# ---------------------------------------------------------------------------
# class-based context managers
# ---------------------------------------------------------------------------


def case_with_enter_exit_order_and_as_value():
    log = []
    with CM(log, "a") as v:
        log.append(("body", v))
    return log


def case_with_suppresses_exception():
    log = []
    with CM(log, "s", suppress=True):
        log.append("before")
        raise KeyError("hidden")
    log.append("after")
    return log


def case_with_truthy_nonbool_exit_suppresses():
    with TruthyExit():
        raise ValueError("gone")
    return "suppressed"


def case_with_does_not_suppress():
    log = []
    try:
        with CM(log, "n"):
            raise IndexError("visible")
    except IndexError as e:
        log.append(("caught", str(e)))
    return log


def case_with_does_not_suppress_uncaught():
    log = []
    with CM(log, "n"):
        raise ArithmeticError("escapes the with block")


def case_with_exception_in_enter_skips_exit():
    log = []
    try:
        with CM(log, "bad", fail_enter=True):
            log.append("body")
    except RuntimeError as e:
        log.append(("caught", str(e)))
    return log


def case_with_exception_in_exit_replaces_body_exception():
    log = []
    try:
        with CM(log, "x", fail_exit=True):
            raise KeyError("body error")
    except ValueError as e:
        log.append((str(e), type(e.__context__).__name__))
    return log


def case_with_exception_in_exit_without_body_exception():
    log = []
    with CM(log, "x", fail_exit=True):
        log.append("body ok")


def case_nested_with_order():
    log = []
    with CM(log, "outer"):
        with CM(log, "inner"):
            log.append("body")
    return log


def case_nested_with_inner_suppresses():
    log = []
    with CM(log, "outer"):
        with CM(log, "inner", suppress=True):
            raise ValueError("inner only")
        log.append("between")
    return log


def case_multiple_items_exit_in_reverse_order():
    log = []
    with CM(log, "a") as a, CM(log, "b") as b, CM(log, "c") as c:
        log.append((a, b, c))
    return log


def case_multiple_items_second_enter_fails():
    log = []
    try:
        with CM(log, "first"), CM(log, "second", fail_enter=True), CM(log, "third"):
            log.append("body")
    except RuntimeError as e:
        log.append(str(e))
    return log


def case_parenthesized_with_items():
    log = []
    with (
        CM(log, "p1") as one,
        CM(log, "p2", suppress=True),
    ):
        log.append(one)
        raise OSError("swallowed by p2")
    return log


def case_with_return_inside_block():
    log = []

    def f():
        with CM(log, "r"):
            return "returned"
        return "unreachable"

    return f(), log


def case_with_break_and_continue_in_loop():
    log = []
    for i in range(4):
        with CM(log, i):
            if i == 1:
                continue
            if i == 2:
                break
            log.append(("body", i))
    return log


def case_with_target_unpacking():
    log = []
    with CM(log, "t", value=(1, [2, 3])) as (a, [b, c]):
        pass
    holder = {}
    with CM(log, "u", value="V") as holder["key"]:
        pass
    return a, b, c, holder


def case_with_missing_enter_raises():
    try:
        with OnlyExit():
            pass
    except TypeError:  # message wording differs across versions
        return "TypeError"
    except AttributeError:
        return "AttributeError"


def case_with_exit_receives_traceback_and_types():
    log = []
    with CM(log, "x", suppress=True):
        {}["k"]
    with CM(log, "y", suppress=True):
        pass
    return log


# ---------------------------------------------------------------------------
# contextlib
# ---------------------------------------------------------------------------


def case_contextmanager_basic():
    log = []
    with tag(log, "div") as t:
        with tag(log, "span") as s:
            log.append(t + s)
    return log


def case_contextmanager_finally_runs_on_exception():
    log = []
    try:
        with tag(log, "p"):
            raise ValueError("in body")
    except ValueError as e:
        log.append(str(e))
    return log


def case_contextmanager_swallows_exception():
    log = []
    with swallow(log, KeyError, IndexError):
        [][3]
    with swallow(log, KeyError):
        log.append("no error")
    return log


def case_contextmanager_does_not_swallow_other():
    log = []
    with swallow(log, KeyError):
        raise TypeError("not swallowed")


def case_contextmanager_translates_exception():
    try:
        with translate_errors():
            {}["zz"]
    except LookupError as e:
        return type(e).__name__, str(e), type(e.__cause__).__name__


def case_contextmanager_yields_twice():
    with yields_twice() as v:
        pass
    return v


def case_contextmanager_never_yields():
    with never_yields():
        pass


def case_contextmanager_as_decorator():
    log = []

    @tag(log, "fn")
    def work(x):
        log.append(("work", x))
        return x * 2

    return work(3), work(4), log


def case_contextlib_suppress():
    out = []
    with contextlib.suppress(KeyError, IndexError):
        out.append("start")
        {}["missing"]
        out.append("unreachable")
    with contextlib.suppress(ZeroDivisionError):
        out.append(1 // 1)
    try:
        with contextlib.suppress(KeyError):
            raise ValueError("not suppressed")
    except ValueError as e:
        out.append(str(e))
    with contextlib.suppress(LookupError):
        [].pop()
    return out


def case_exitstack_callbacks_lifo():
    log = []
    with contextlib.ExitStack() as stack:
        for i in range(3):
            stack.callback(log.append, ("cb", i))
        stack.enter_context(CM(log, "managed"))
        log.append("body")
    return log


def case_exitstack_pop_all_transfers_callbacks():
    log = []
    with contextlib.ExitStack() as stack:
        stack.callback(log.append, "deferred")
        saved = stack.pop_all()
        log.append("leaving with")
    log.append("after with")
    saved.close()
    return log


def case_exitstack_suppressing_exit_and_exception():
    log = []
    with contextlib.ExitStack() as stack:
        stack.enter_context(CM(log, "suppressor", suppress=True))
        stack.enter_context(CM(log, "plain"))
        raise KeyError("absorbed")
    return log


def case_exitstack_push_exit_function():
    log = []

    def exit_fn(exc_type, exc, tb):
        log.append(("exit_fn", exc_type.__name__ if exc_type else None))
        return exc_type is IndexError

    with contextlib.ExitStack() as stack:
        stack.push(exit_fn)
        raise IndexError("handled by exit_fn")
    return log
