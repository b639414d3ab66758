"""Operators, comparisons, subscripts and string formatting.

Each delegates to the ``operator`` module (or a builtin) so results, the protocol of
reflected and in-place methods, and error messages are CPython's own.
"""

import dis
import operator

from .. import events as ev
from ..code import COMPARE, PY
from ..iteration import CONTAINERS, read_contents, read_length
from ..native import query
from ..provenance import ITEM, Provenance
from . import op

_BINARY = {
    "+": operator.add, "&": operator.and_, "//": operator.floordiv, "<<": operator.lshift,
    "@": operator.matmul, "*": operator.mul, "%": operator.mod, "|": operator.or_,
    "**": operator.pow, ">>": operator.rshift, "-": operator.sub, "/": operator.truediv,
    "^": operator.xor, "+=": operator.iadd, "&=": operator.iand, "//=": operator.ifloordiv,
    "<<=": operator.ilshift, "@=": operator.imatmul, "*=": operator.imul, "%=": operator.imod,
    "|=": operator.ior, "**=": operator.ipow, ">>=": operator.irshift, "-=": operator.isub,
    "/=": operator.itruediv, "^=": operator.ixor,
}
BINARY_OPS = [_BINARY[sym] for _, sym in dis._nb_ops]
_INPLACE = frozenset(i for i, (_, sym) in enumerate(dis._nb_ops) if sym.endswith("=") and sym not in ("==",))


@op("BINARY_OP")
def binary_op(I, f, inst):
    s = f.stack
    b = s.pop()
    a = s[-1]
    if I.fresh_objects and (I.is_fresh(a) or I.is_fresh(b)):  # (`now - start` of drawn datetimes)
        s[-1] = I.draw(BINARY_OPS[inst.arg], (a, b), None, f"operator {dis._nb_ops[inst.arg][1]}")
        return
    if I.before_write is not None and inst.arg in _INPLACE and id(a) in I.outside:
        I.before_write(a)
    if type(a) is str:  # "%s" % (x,)
        b = I.for_text(b)
    elif type(a) in CONTAINERS or type(b) in CONTAINERS:  # cfg.sizes + [n]: their items decide
        read_contents(I, a)
        read_contents(I, b)
    r = s[-1] = BINARY_OPS[inst.arg](a, b)
    if r is a and inst.arg in _INPLACE:
        e = I.outside.get(id(a))
        if e is not None:
            I.write(ev.MUTATE, e[1], dis._nb_ops[inst.arg][1], (b,), inst, a)


@op("UNARY_NEGATIVE")
def unary_negative(I, f, inst):
    s = f.stack
    s[-1] = -s[-1]


@op("UNARY_POSITIVE")
def unary_positive(I, f, inst):
    s = f.stack
    s[-1] = +s[-1]


@op("UNARY_INVERT")
def unary_invert(I, f, inst):
    s = f.stack
    s[-1] = ~s[-1]


@op("UNARY_NOT")
def unary_not(I, f, inst):
    s = f.stack
    if type(s[-1]) in CONTAINERS:  # `not cfg.layers`: its length decides
        read_length(I, s[-1])
    s[-1] = not s[-1]


if PY >= (3, 13):
    @op("COMPARE_OP")
    def compare_op(I, f, inst):
        s = f.stack
        b = s.pop()
        r = _compare(I, inst.argval, s[-1], b)
        s[-1] = bool(r) if inst.arg & 16 else r
else:
    @op("COMPARE_OP")
    def compare_op(I, f, inst):
        s = f.stack
        b = s.pop()
        s[-1] = _compare(I, inst.argval, s[-1], b)


def _compare(I, sym, a, b):
    if I.fresh_objects and (I.is_fresh(a) or I.is_fresh(b)):
        return I.draw(COMPARE[sym], (a, b), None, f"operator {sym}")
    if I.outside:
        if type(a) in CONTAINERS or type(b) in CONTAINERS:  # `cfg.sizes == [1, 2]`: their items decide
            read_contents(I, a)
            read_contents(I, b)
        elif (sym == "==" or sym == "!=") and type(a) is type(b) and type(a).__eq__ is _OBJECT_EQ:
            I.identity_used(a)  # object.__eq__ is identity
            I.identity_used(b)
    return COMPARE[sym](a, b)


_OBJECT_EQ = object.__eq__
_OBJECT_HASH = object.__hash__


@op("IS_OP")
def is_op(I, f, inst):
    s = f.stack
    b = s.pop()
    a = s[-1]
    if type(a) is type(b) and I.outside:
        # `cfg.mode is Mode.B`: the answer depends on which objects these are (objects of two
        # types, `x is None` included, differ whatever they are: their type guards decide)
        I.identity_used(a)
        I.identity_used(b)
    s[-1] = (a is not b) if inst.arg else (a is b)


@op("CONTAINS_OP")
def contains_op(I, f, inst):
    s = f.stack
    container = s.pop()
    if I.fresh_objects and type(container) not in _QUERIED and I.is_fresh(container):
        r = I.draw(operator.contains, (container, s[-1]), None, "operator in")
        s[-1] = (not r) if inst.arg else r
        return
    r = operator.contains(container, s[-1])
    e = I.outside.get(id(container))
    if e is not None:  # `"k" in outside_dict`: a read of outside data, guarded
        q = query(container, "__contains__", (s[-1],), e[1], overridable=True)
        if q is not None:
            r = I.enter(r, q, ev.READ_ITEM, inst, s[-1], container)
    s[-1] = not r if inst.arg else r


def getitem(I, inst, container, key):
    try:
        v = container[key]
    except KeyError:
        _missing(I, inst, container, key)
        raise
    e = I.outside.get(id(container))
    if e is not None:
        if id(key) in I.outside:  # table[cfg.mode]: the prologue looks up this key object
            if type(key) in CONTAINERS:
                read_contents(I, key)  # (a tuple key: its items decide)
            elif type(key).__hash__ is _OBJECT_HASH:
                I.identity_used(key)
        v = I.enter(v, Provenance(ITEM, e[1], key), ev.READ_ITEM, inst, key, container)
    return v


def _missing(I, inst, container, key):
    """``container[key]`` raised KeyError: when ``container`` is outside data, that the key is
    absent is a read of it (``os.environ["X"]``, ``d.get("k")`` of a Python mapping), guarded."""
    e = I.outside.get(id(container))
    if e is None:
        return
    q = query(container, "__contains__", (key,), e[1], overridable=True)
    if q is not None and q.ref(container, key) is False:
        I.enter(False, q, ev.READ_ITEM, inst, key, container)


@op("BINARY_SUBSCR")
def binary_subscr(I, f, inst):
    s = f.stack
    key = s.pop()
    s[-1] = getitem(I, inst, s[-1], key)


@op("BINARY_SLICE")
def binary_slice(I, f, inst):
    s = f.stack
    stop, start = s.pop(), s.pop()
    s[-1] = getitem(I, inst, s[-1], slice(start, stop))


def setitem(I, inst, container, key, v):
    if I.before_write is not None and id(container) in I.outside:
        I.before_write(container)
    container[key] = v
    e = I.outside.get(id(container))
    if e is not None:
        I.write(ev.WRITE_ITEM, e[1], key, v, inst, container)


@op("STORE_SUBSCR")
def store_subscr(I, f, inst):
    s = f.stack
    key, container, v = s.pop(), s.pop(), s.pop()
    setitem(I, inst, container, key, v)


@op("STORE_SLICE")
def store_slice(I, f, inst):
    s = f.stack
    stop, start, container, v = s.pop(), s.pop(), s.pop(), s.pop()
    setitem(I, inst, container, slice(start, stop), v)


@op("DELETE_SUBSCR")
def delete_subscr(I, f, inst):
    s = f.stack
    key, container = s.pop(), s.pop()
    if I.before_write is not None and id(container) in I.outside:
        I.before_write(container)
    del container[key]
    e = I.outside.get(id(container))
    if e is not None:
        I.write(ev.DELETE_ITEM, e[1], key, None, inst, container)


_QUERIED = (dict, list, tuple, set, frozenset)  # `k in d` of an outside container: a guarded query
_CONVERT = {0: None, 1: str, 2: repr, 3: ascii}


def formatted(v, conv=None, spec=""):
    """What an f-string's ``{v!conv:spec}`` gives."""
    if conv is not None:
        v = conv(v)
    return v if (spec == "" and type(v) is str) else format(v, spec)


@op("FORMAT_VALUE")
def format_value(I, f, inst):
    s = f.stack
    spec = s.pop() if inst.arg & 4 else ""
    conv = _CONVERT[inst.arg & 3]
    if I.fresh_objects and I.is_fresh(s[-1]):  # f"{uuid.uuid4()}": formatted on every call
        s[-1] = I.draw(formatted, (s[-1], conv, spec), None, "format")
        return
    s[-1] = formatted(I.for_text(s[-1]), conv, spec)


@op("CONVERT_VALUE")
def convert_value(I, f, inst):
    s = f.stack
    conv = _CONVERT[inst.arg]
    if I.fresh_objects and I.is_fresh(s[-1]):
        s[-1] = I.draw(conv, (s[-1],), None, conv.__name__)
    else:
        s[-1] = conv(I.for_text(s[-1]))


@op("FORMAT_SIMPLE")
def format_simple(I, f, inst):
    s = f.stack
    v = s[-1]
    if type(v) is not str:
        if I.fresh_objects and I.is_fresh(v):
            s[-1] = I.draw(format, (v, ""), None, "format")
        else:
            s[-1] = format(I.for_text(v), "")


@op("FORMAT_WITH_SPEC")
def format_with_spec(I, f, inst):
    s = f.stack
    spec = s.pop()
    v = s[-1]
    if I.fresh_objects and I.is_fresh(v):
        s[-1] = I.draw(format, (v, spec), None, "format")
    else:
        s[-1] = format(I.for_text(v), spec)


@op("BUILD_STRING")
def build_string(I, f, inst):
    s, n = f.stack, inst.arg
    if n:
        r = "".join(s[-n:])
        del s[-n:]
    else:
        r = ""
    s.append(r)
