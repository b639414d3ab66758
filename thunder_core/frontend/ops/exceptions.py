"""raise, try/except/finally, except*, and with-statements.

The handled-exception state is the interpreter's own chain of ExcItems (CPython's
``exc_info``), so ``sys.exc_info()`` (a lookaside), bare ``raise`` and implicit
``__context__`` see exactly what CPython would.
"""

from ..code import PY
from ..frame import NULL
from ..interpreter import set_context
from ..special import lookup
from ..tracebacks import prepend
from . import op


def _is_exc_class(x) -> bool:
    return isinstance(x, type) and BaseException in x.__mro__


def _instantiate(I, x, what):
    """An exception instance from ``raise x`` / ``raise ... from x`` (do_raise)."""
    if _is_exc_class(x):
        v = I.call(x, ())
        if not isinstance(v, BaseException):
            raise TypeError(f"calling {x!r} should have returned an instance of BaseException, not {type(v)!r}")
        return v
    if isinstance(x, BaseException):
        return x
    raise TypeError(what)


@op("RAISE_VARARGS")
def raise_varargs(I, f, inst):
    s, n = f.stack, inst.arg
    if n == 0:  # bare `raise`: re-raise what is being handled, no new traceback entry
        exc = I.topmost_exception()
        if exc is None:
            raise RuntimeError("No active exception to reraise")
        I.raise_(exc, exc.__context__, False)
    cause = s.pop() if n == 2 else None
    exc = _instantiate(I, s.pop(), "exceptions must derive from BaseException")
    if n == 2:
        if cause is None:
            exc.__cause__ = None
        else:
            exc.__cause__ = _instantiate(I, cause, "exception causes must derive from BaseException")
    top = I.topmost_exception()
    if top is not None and top is not exc:
        set_context(exc, top)
    I.raise_(exc, exc.__context__)


@op("RERAISE")
def reraise(I, f, inst):
    exc = f.stack.pop()
    I.raise_(exc, exc.__context__, False)


@op("PUSH_EXC_INFO")
def push_exc_info(I, f, inst):
    s = f.stack
    v = s.pop()
    item = I.exc_item
    s.append(item.value)
    item.value = v
    s.append(v)


@op("POP_EXCEPT")
def pop_except(I, f, inst):
    I.exc_item.value = f.stack.pop()


_BAD_CATCH = "catching classes that do not inherit from BaseException is not allowed"


def _check_except_type(t):
    if isinstance(t, tuple):
        for x in t:
            if not _is_exc_class(x):
                raise TypeError(_BAD_CATCH)
    elif not _is_exc_class(t):
        raise TypeError(_BAD_CATCH)


def matches(exc, t) -> bool:
    """PyErr_GivenExceptionMatches: a real subclass test (no __subclasscheck__)."""
    mro = type(exc).__mro__ if isinstance(exc, BaseException) else exc.__mro__
    if isinstance(t, tuple):
        return any(matches(exc, x) for x in t)
    return t in mro


@op("CHECK_EXC_MATCH")
def check_exc_match(I, f, inst):
    s = f.stack
    t = s.pop()
    _check_except_type(t)
    s.append(matches(s[-1], t))


@op("CHECK_EG_MATCH")
def check_eg_match(I, f, inst):
    s = f.stack
    t = s.pop()
    _check_except_type(t)
    for x in (t if isinstance(t, tuple) else (t,)):
        if BaseExceptionGroup in x.__mro__:
            raise TypeError("catching ExceptionGroup with except* is not allowed. Use except instead.")
    exc = s[-1]
    match = rest = None
    if exc is not None:
        if matches(exc, t):
            if isinstance(exc, BaseExceptionGroup):
                match = exc
            else:  # a naked exception: wrap it
                match = BaseExceptionGroup("", [exc])
                match.__traceback__ = prepend(f.info, f.globals, inst.lineno, None)
        elif isinstance(exc, BaseExceptionGroup):
            match, rest = exc.split(t)
    if match is None:
        s.append(None)
    else:
        s[-1] = rest
        s.append(match)
        I.exc_item.value = match


def prep_reraise_star(orig, excs):
    """_PyExc_PrepReraiseStar: what an except* block re-raises: exceptions raised in its
    handlers plus the re-raised parts of the original group, keeping its nesting."""
    if not excs:
        return None
    if not isinstance(orig, BaseExceptionGroup):
        return excs[0]  # a naked exception was wrapped: one handler could have run
    raised, reraised = [], []
    for e in excs:
        if e is None:
            continue
        same = (e.__traceback__ is orig.__traceback__ and e.__cause__ is orig.__cause__
                and e.__context__ is orig.__context__
                and getattr(e, "__notes__", None) is getattr(orig, "__notes__", None))
        (reraised if same else raised).append(e)
    leaf_ids = set()

    def leaves(e):
        if isinstance(e, BaseExceptionGroup):
            for x in e.exceptions:
                leaves(x)
        else:
            leaf_ids.add(id(e))

    for e in reraised:
        leaves(e)
    if leaf_ids:
        projected, _ = orig.split(lambda e: id(e) in leaf_ids)
        if projected is not None:
            raised.append(projected)
    if not raised:
        return None
    if len(raised) > 1:
        return BaseExceptionGroup("", raised)
    return raised[0]


@op("PREP_RERAISE_STAR")
def prep_reraise_star_op(I, f, inst):
    s = f.stack
    excs = s.pop()
    s[-1] = prep_reraise_star(s[-1], excs)


def _special(obj, name):
    """_PyObject_LookupSpecial: look ``name`` up on the type and bind it; NULL if missing.
    An attribute set to None is found (calling it fails later, as in CPython)."""
    t = type(obj)
    v = lookup(t, name)
    if v is NULL:
        return NULL
    get = getattr(type(v), "__get__", None)
    return v if get is None else get(v, obj, t)


@op("BEFORE_WITH")
def before_with(I, f, inst):
    s = f.stack
    mgr = s.pop()
    enter = _special(mgr, "__enter__")
    if enter is NULL:
        raise TypeError(f"'{type(mgr).__name__}' object does not support the context manager protocol")
    exit_ = _special(mgr, "__exit__")
    if exit_ is NULL:
        suffix = " (missed __exit__ method)" if PY >= (3, 13) else ""
        raise TypeError(f"'{type(mgr).__name__}' object does not support the context manager protocol{suffix}")
    s.append(exit_)
    s.append(I.call(enter, ()))


@op("WITH_EXCEPT_START")
def with_except_start(I, f, inst):
    s = f.stack
    val = s[-1]
    s.append(I.call(s[-4], (type(val), val, val.__traceback__)))


@op("CLEANUP_THROW")
def cleanup_throw(I, f, inst):
    s = f.stack
    exc = s[-1]
    if isinstance(exc, StopIteration):
        del s[-3:]
        s.append(None)
        s.append(exc.value)
    else:
        s.pop()
        I.raise_(exc, exc.__context__, False)
