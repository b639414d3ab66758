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


_JUMPS_IF = {name: jumps_when for jumps_when in (False, True) for name in
             (f"POP_JUMP_IF_{jumps_when}".upper(), f"POP_JUMP_FORWARD_IF_{jumps_when}".upper(),
              f"POP_JUMP_BACKWARD_IF_{jumps_when}".upper())}


def assertion_at(f):
    """When the truth test frame ``f`` is making (at its last instruction) only decides
    whether an ``assert`` statement fails, one way of its jump leading straight to ``raise
    AssertionError`` or ``raise AssertionError(<constant>)``: (the truth value on which the
    program goes on, the exception's arguments, the instruction of the test); else None.
    On 3.13 the test is made by TO_BOOL or a bool-converting COMPARE_OP just before the jump."""
    insts = f.insts
    k = f.ip - 1
    inst = insts[k]
    if inst.opname not in _JUMPS_IF:
        if PY < (3, 13) or not (inst.opname == "TO_BOOL" or inst.opname == "COMPARE_OP" and inst.arg & 16):
            return None
        k += 1
        if k >= len(insts) or insts[k].opname not in _JUMPS_IF:
            return None
    jump = insts[k]
    jumps_when = _JUMPS_IF[jump.opname]
    for failing, when in ((jump.target, jumps_when), (k + 1, not jumps_when)):
        args = _assertion_raised_at(insts, failing)
        if args is not None:
            return not when, args, inst
    return None


def _assertion_raised_at(insts, i):
    """The arguments of the AssertionError raised by the block at ``insts[i]``, if all it does
    is raise one (with no message, or a constant one), else None."""
    block = [x for x in insts[i:i + 5] if x.opname != "PRECALL"]
    ops = [x.opname for x in block]
    if ops[:1] != ["LOAD_ASSERTION_ERROR"]:
        return None
    if ops[1:2] == ["RAISE_VARARGS"]:
        return ()
    if ops[1:4] == ["LOAD_CONST", "CALL", "RAISE_VARARGS"] and block[2].arg == 0:
        return (block[1].argval,)
    return None
