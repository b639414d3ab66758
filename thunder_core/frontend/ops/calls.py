"""Calls, function and class creation, and CALL_INTRINSIC_*."""

import dis
import sys
import types

from ..code import PY
from ..errors import refuse
from ..frame import NULL
from . import op
from .build import _not_iterable, entered_items, entered_values, function_str

FunctionType = types.FunctionType


def _pop_args(s, n):
    if not n:
        return ()
    args = tuple(s[-n:])
    del s[-n:]
    return args


def _split_kw(args, kwnames):
    k = len(kwnames)
    return args[:-k], dict(zip(kwnames, args[-k:]))


if PY >= (3, 13):
    @op("CALL")
    def call(I, f, inst):
        s = f.stack
        args = _pop_args(s, inst.arg)
        self_ = s.pop()
        fn = s[-1]
        if self_ is not NULL:
            args = (self_, *args)
        if type(fn) is FunctionType and fn not in I.fn_lookasides:  # the common case, one call less
            s[-1] = I.call_function(fn, args)
        else:
            s[-1] = I.call(fn, args)

    @op("CALL_KW")
    def call_kw(I, f, inst):
        s = f.stack
        kwnames = s.pop()
        args, kwargs = _split_kw(_pop_args(s, inst.arg), kwnames)
        self_ = s.pop()
        fn = s[-1]
        if self_ is not NULL:
            args = (self_, *args)
        s[-1] = I.call(fn, args, kwargs)
else:
    @op("KW_NAMES")
    def kw_names(I, f, inst):
        f.kwnames = inst.argval if isinstance(inst.argval, tuple) else f.info.code.co_consts[inst.arg]

    @op("CALL")
    def call(I, f, inst):
        s, n = f.stack, inst.arg
        if n:
            args = tuple(s[-n:])
            del s[-n:]
        else:
            args = ()
        b = s.pop()
        a = s[-1]
        if a is NULL:
            fn = b
        else:
            fn = a
            args = (b, *args)
        kw = f.kwnames
        if kw:
            f.kwnames = ()
            args, kwargs = _split_kw(args, kw)
            s[-1] = I.call(fn, args, kwargs)
        elif type(fn) is FunctionType and fn not in I.fn_lookasides:  # the common case, one call less
            s[-1] = I.call_function(fn, args)
        else:
            s[-1] = I.call(fn, args)


@op("CALL_FUNCTION_EX")
def call_function_ex(I, f, inst):
    s = f.stack
    kwargs = entered_values(I, inst, s.pop()) if inst.arg & 1 else None
    callargs = s.pop()
    top = s.pop()
    fn = s[-1] if PY >= (3, 13) else top
    if type(callargs) is tuple or type(callargs) is list:
        callargs = tuple(entered_items(I, inst, callargs))
    else:
        if _not_iterable(callargs):
            raise TypeError(f"{function_str(fn)} argument after * must be an iterable, not {type(callargs).__name__}")
        callargs = tuple(callargs)
    s[-1] = I.call(fn, callargs, kwargs)


def _annotations(a):
    return dict(zip(a[::2], a[1::2])) if isinstance(a, tuple) else a


def _make_function(f, code, defaults=None, kwdefaults=None, annotations=None, closure=None):
    fn = FunctionType(code, f.globals, code.co_name, defaults, closure)
    fn.__qualname__ = code.co_qualname
    if kwdefaults is not None:
        fn.__kwdefaults__ = kwdefaults
    if annotations is not None:
        fn.__annotations__ = _annotations(annotations)
    return fn


if PY >= (3, 13):
    _ATTRS = {1: "defaults", 2: "kwdefaults", 4: "annotations", 8: "closure"}

    @op("MAKE_FUNCTION")
    def make_function(I, f, inst):
        # The closure cannot be set on a function after creation from Python, so take the
        # following SET_FUNCTION_ATTRIBUTE instructions' values here and skip them.
        flags = inst.cache
        if flags is None:
            flags, i = [], inst.index + 1
            while f.insts[i].opname == "SET_FUNCTION_ATTRIBUTE":
                flags.append(f.insts[i].arg)
                i += 1
            flags = inst.cache = tuple(flags)
        s = f.stack
        code = s.pop()
        kw = {_ATTRS[fl]: s.pop() for fl in flags}
        s.append(_make_function(f, code, **kw))
        f.ip += len(flags)

    @op("SET_FUNCTION_ATTRIBUTE")
    def set_function_attribute(I, f, inst):  # only reached if not folded into MAKE_FUNCTION
        s = f.stack
        fn = s.pop()
        v = s.pop()
        if inst.arg == 8:
            refuse(f, inst, "setting a closure on an existing function is not supported")
        setattr(fn, {1: "__defaults__", 2: "__kwdefaults__", 4: "__annotations__"}[inst.arg],
                _annotations(v) if inst.arg == 4 else v)
        s.append(fn)
else:
    @op("MAKE_FUNCTION")
    def make_function(I, f, inst):
        s, fl = f.stack, inst.arg
        code = s.pop()
        closure = s.pop() if fl & 8 else None
        annotations = s.pop() if fl & 4 else None
        kwdefaults = s.pop() if fl & 2 else None
        defaults = s.pop() if fl & 1 else None
        s.append(_make_function(f, code, defaults, kwdefaults, annotations, closure))


@op("LOAD_BUILD_CLASS")
def load_build_class(I, f, inst):
    b = f.builtins
    bc = b.get("__build_class__", NULL) if type(b) is dict else getattr(b, "__build_class__", NULL)
    if bc is NULL:
        raise NameError("__build_class__ not found")
    f.stack.append(bc)


@op("LOAD_ASSERTION_ERROR")
def load_assertion_error(I, f, inst):
    f.stack.append(AssertionError)


@op("PRINT_EXPR")
def print_expr(I, f, inst):
    sys.displayhook(f.stack.pop())


@op("GET_LEN")
def get_len(I, f, inst):
    s = f.stack
    s.append(len(s[-1]))


# ------------------------------------------------------------------ intrinsics (3.12+)

INTRINSIC_1 = getattr(dis, "_intrinsic_1_descs", None) or []
INTRINSIC_2 = getattr(dis, "_intrinsic_2_descs", None) or []

def _stopiteration_error(I, f, exc):
    if isinstance(exc, StopIteration):
        err = RuntimeError("generator raised StopIteration")
        err.__cause__ = exc
        err.__context__ = exc
        return err
    return exc


def _intrinsic1(I, f, inst, v):
    from .names import import_star
    name = INTRINSIC_1[inst.arg]
    if name == "INTRINSIC_PRINT":
        sys.displayhook(v)
        return None
    if name == "INTRINSIC_IMPORT_STAR":
        import_star(f, v)
        return None
    if name == "INTRINSIC_STOPITERATION_ERROR":
        return _stopiteration_error(I, f, v)
    if name == "INTRINSIC_UNARY_POSITIVE":
        return +v
    if name == "INTRINSIC_LIST_TO_TUPLE":
        return tuple(v)
    refuse(f, inst, f"{name} (PEP 695 type parameter syntax or async generators) is not supported",
           "Define generic classes/functions and type aliases outside the jitted function.")


@op("CALL_INTRINSIC_1")
def call_intrinsic_1(I, f, inst):
    s = f.stack
    s[-1] = _intrinsic1(I, f, inst, s[-1])


@op("CALL_INTRINSIC_2")
def call_intrinsic_2(I, f, inst):
    from .exceptions import prep_reraise_star
    s = f.stack
    v1 = s.pop()
    v2 = s[-1]
    name = INTRINSIC_2[inst.arg]
    if name != "INTRINSIC_PREP_RERAISE_STAR":
        refuse(f, inst, f"{name} (PEP 695 type parameter syntax) is not supported",
               "Define generic classes/functions outside the jitted function.")
    s[-1] = prep_reraise_star(v2, v1)


@op("EXIT_INIT_CHECK")
def exit_init_check(I, f, inst):  # 3.13: only in the interpreter's own __init__ shim frames
    r = f.stack.pop()
    if r is not None:
        raise TypeError(f"__init__() should return None, not '{type(r).__name__}'")
