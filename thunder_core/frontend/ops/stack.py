"""Stack and fast-locals instructions."""

from ..code import PY
from ..frame import NULL
from ..interpreter import RETURN
from . import op


def _unbound_local(f, i):
    return UnboundLocalError(f"cannot access local variable {f.info.names[i]!r} where it is not associated with a value")


@op("NOP", "RESUME", "PRECALL", "EXTENDED_ARG", "CACHE")
def nop(I, f, inst):
    pass


@op("POP_TOP")
def pop_top(I, f, inst):
    f.stack.pop()


@op("PUSH_NULL")
def push_null(I, f, inst):
    f.stack.append(NULL)


@op("COPY")
def copy(I, f, inst):
    s = f.stack
    s.append(s[-inst.arg])


@op("SWAP")
def swap(I, f, inst):
    s, i = f.stack, -inst.arg
    s[-1], s[i] = s[i], s[-1]


@op("LOAD_CONST")
def load_const(I, f, inst):
    f.stack.append(inst.argval)


@op("LOAD_FAST", "LOAD_FAST_CHECK", "LOAD_CLOSURE")
def load_fast(I, f, inst):
    v = f.localsplus[inst.arg]
    if v is NULL:
        raise _unbound_local(f, inst.arg)
    f.stack.append(v)


@op("LOAD_FAST_AND_CLEAR")
def load_fast_and_clear(I, f, inst):
    loc = f.localsplus
    f.stack.append(loc[inst.arg])
    loc[inst.arg] = NULL


@op("STORE_FAST")
def store_fast(I, f, inst):
    f.localsplus[inst.arg] = f.stack.pop()


@op("DELETE_FAST")
def delete_fast(I, f, inst):
    loc = f.localsplus
    if loc[inst.arg] is NULL:
        raise _unbound_local(f, inst.arg)
    loc[inst.arg] = NULL


@op("LOAD_FAST_LOAD_FAST")
def load_fast_load_fast(I, f, inst):
    loc, a = f.localsplus, inst.arg
    for i in (a >> 4, a & 15):
        v = loc[i]
        if v is NULL:
            raise _unbound_local(f, i)
        f.stack.append(v)


@op("STORE_FAST_STORE_FAST")
def store_fast_store_fast(I, f, inst):
    s, loc, a = f.stack, f.localsplus, inst.arg
    loc[a >> 4] = s.pop()
    loc[a & 15] = s.pop()


@op("STORE_FAST_LOAD_FAST")
def store_fast_load_fast(I, f, inst):
    loc, a = f.localsplus, inst.arg
    loc[a >> 4] = f.stack.pop()
    v = loc[a & 15]
    if v is NULL:
        raise _unbound_local(f, a & 15)
    f.stack.append(v)


@op("RETURN_VALUE")
def return_value(I, f, inst):
    f.retval = f.stack.pop()
    return RETURN


@op("RETURN_CONST")
def return_const(I, f, inst):
    f.retval = inst.argval
    return RETURN


if PY >= (3, 13):
    @op("TO_BOOL")
    def to_bool(I, f, inst):
        s = f.stack
        s[-1] = bool(s[-1])
