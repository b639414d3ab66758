"""Jumps and the iteration protocol."""

from .. import events as ev
from ..code import PY
from ..frame import NULL
from ..provenance import ITEM, ITER, Provenance
from ..special import HEAPTYPE, special_method
from . import op


@op("JUMP_FORWARD", "JUMP_BACKWARD", "JUMP_BACKWARD_NO_INTERRUPT", "JUMP", "JUMP_NO_INTERRUPT")
def jump(I, f, inst):
    f.ip = inst.target


@op("POP_JUMP_IF_FALSE", "POP_JUMP_FORWARD_IF_FALSE", "POP_JUMP_BACKWARD_IF_FALSE")
def pop_jump_if_false(I, f, inst):
    if not f.stack.pop():
        f.ip = inst.target


@op("POP_JUMP_IF_TRUE", "POP_JUMP_FORWARD_IF_TRUE", "POP_JUMP_BACKWARD_IF_TRUE")
def pop_jump_if_true(I, f, inst):
    if f.stack.pop():
        f.ip = inst.target


@op("POP_JUMP_IF_NONE", "POP_JUMP_FORWARD_IF_NONE", "POP_JUMP_BACKWARD_IF_NONE")
def pop_jump_if_none(I, f, inst):
    if f.stack.pop() is None:
        f.ip = inst.target


@op("POP_JUMP_IF_NOT_NONE", "POP_JUMP_FORWARD_IF_NOT_NONE", "POP_JUMP_BACKWARD_IF_NOT_NONE")
def pop_jump_if_not_none(I, f, inst):
    if f.stack.pop() is not None:
        f.ip = inst.target


@op("JUMP_IF_TRUE_OR_POP")
def jump_if_true_or_pop(I, f, inst):
    s = f.stack
    if s[-1]:
        f.ip = inst.target
    else:
        s.pop()


@op("JUMP_IF_FALSE_OR_POP")
def jump_if_false_or_pop(I, f, inst):
    s = f.stack
    if not s[-1]:
        f.ip = inst.target
    else:
        s.pop()


def get_iter(I, x):
    """iter(x), with an ``__iter__`` written in Python interpreted."""
    it = special_method(I, x, "__iter__")
    it = iter(x) if it is NULL else _checked_iter(it, x)
    e = I.outside.get(id(x))
    if e is not None:
        I.iterators[id(it)] = [e[1], 0, it, type(x) in (list, tuple)]
    return it


def _checked_iter(it, x):
    if not hasattr(type(it), "__next__"):
        raise TypeError(f"iter() returned non-iterator of type '{type(it).__name__}'")
    return it


@op("GET_ITER")
def get_iter_op(I, f, inst):
    s = f.stack
    s[-1] = get_iter(I, s[-1])


_END = object()


def next_or_end(I, it):
    """next(it), or _END when exhausted; ``__next__`` written in Python is interpreted."""
    if not type(it).__flags__ & HEAPTYPE:  # builtin iterators: no Python __next__
        return next(it, _END)
    try:
        v = special_method(I, it, "__next__")
    except StopIteration:
        I._propagating = None  # consumed here: keep nothing of it (nor its traceback's frames)
        return _END
    return next(it, _END) if v is NULL else v


def next_value(I, it):
    """next(it) (StopIteration propagates); ``__next__`` written in Python is interpreted."""
    v = special_method(I, it, "__next__")
    return next(it) if v is NULL else v


def _entered(I, inst, it, v):
    st = I.iterators.get(id(it))
    if st is None:
        return v
    n = st[1]
    st[1] = n + 1
    return I.enter(v, Provenance(ITEM if st[3] else ITER, st[0], n), ev.READ_ITEM, inst, n, it)


if PY >= (3, 12):
    @op("FOR_ITER")
    def for_iter(I, f, inst):
        s = f.stack
        it = s[-1]
        v = next_or_end(I, it)
        if v is _END:
            s.append(None)  # END_FOR (and POP_TOP on 3.13) at the target pop it and the iterator
            f.ip = inst.target
        else:
            s.append(_entered(I, inst, it, v) if I.iterators else v)

    @op("END_FOR")
    def end_for(I, f, inst):
        s = f.stack
        s.pop()
        if PY == (3, 12):
            s.pop()
else:
    @op("FOR_ITER")
    def for_iter(I, f, inst):
        s = f.stack
        it = s[-1]
        v = next_or_end(I, it)
        if v is _END:
            s.pop()
            f.ip = inst.target
        else:
            s.append(_entered(I, inst, it, v) if I.iterators else v)
