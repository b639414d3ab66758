"""Jumps and the iteration protocol."""

from ..code import PY
from ..frame import NULL
from ..iteration import Entering, get_iter, next_value  # noqa: F401 (get_iter, next_value: used by generators.py)
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


_END = object()


def next_or_end(I, it):
    """next(it), or _END when exhausted; ``__next__`` written in Python is interpreted."""
    t = type(it)
    if not t.__flags__ & HEAPTYPE:  # builtin iterators: no Python __next__
        return next(it, _END)
    if t is Entering:
        return next(it, _END)
    try:
        v = special_method(I, it, "__next__")
    except StopIteration:
        I._propagating = None  # consumed here: keep nothing of it (nor its traceback's frames)
        return _END
    return next(it, _END) if v is NULL else v


@op("GET_ITER")
def get_iter_op(I, f, inst):
    s = f.stack
    s[-1] = get_iter(I, s[-1])


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
            s.append(v)

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
            s.append(v)
