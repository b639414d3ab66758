"""Generators: RETURN_GENERATOR, yield, yield from. The generator object itself is the
interpreter's ``drive`` generator (see driver.py)."""

import types

from ..code import PY
from ..interpreter import GENERATOR, YIELD
from . import op
from .control import get_iter, next_value

GeneratorType = types.GeneratorType


@op("RETURN_GENERATOR")
def return_generator(I, f, inst):
    # The first resume pushes the value it starts with (None), which POP_TOP discards.
    return GENERATOR


@op("YIELD_VALUE")
def yield_value(I, f, inst):
    # The value stays on top of the stack: driver.drive pops it as it hands it out, and the
    # resume pushes the sent value (or None before a throw) into the same slot.
    return YIELD


@op("GET_YIELD_FROM_ITER")
def get_yield_from_iter(I, f, inst):
    import inspect
    s = f.stack
    v = s[-1]
    if inspect.iscoroutine(v):
        if not f.info.flags & (inspect.CO_COROUTINE | inspect.CO_ITERABLE_COROUTINE):
            raise TypeError("cannot 'yield from' a coroutine object in a non-coroutine generator")
    elif not inspect.isgenerator(v):
        s[-1] = get_iter(I, v)


def _send(I, recv, v):
    """PyIter_Send: (True, value yielded) or (False, return value). ``__next__``/``send``
    written in Python are interpreted."""
    try:
        t = type(recv)
        if t is GeneratorType:
            return True, recv.send(v)
        if v is None and hasattr(t, "__next__"):
            return True, next_value(I, recv)
        return True, I.call(recv.send, (v,))  # a method call: the instance's attribute first
    except StopIteration as e:
        I._propagating = None  # consumed here: keep nothing of it (nor its traceback's frames)
        return False, e.value


@op("SEND")
def send(I, f, inst):
    s = f.stack
    v = s.pop()
    more, r = _send(I, s[-1], v)
    if more:
        s.append(r)
    elif PY >= (3, 12):
        s.append(r)
        f.ip = inst.target
    else:
        s[-1] = r
        f.ip = inst.target


@op("END_SEND")
def end_send(I, f, inst):
    s = f.stack
    v = s.pop()
    s[-1] = v
