"""Generators: RETURN_GENERATOR, yield, yield from. The generator object itself is the
interpreter's ``_drive`` generator (see interpreter.py)."""

from ..code import PY
from ..interpreter import GENERATOR, YIELD
from . import op
from .control import get_iter, py_method


@op("RETURN_GENERATOR")
def return_generator(I, f, inst):
    f.stack.append(None)  # the slot a resume writes the sent value into (popped by POP_TOP)
    return GENERATOR


@op("YIELD_VALUE")
def yield_value(I, f, inst):
    # The value stays on the stack: resuming replaces it with the sent value, and a throw()
    # unwinds with the same stack depth CPython's exception table expects.
    f.retval = f.stack[-1]
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
    """PyIter_Send: (True, value yielded) or (False, return value)."""
    try:
        if v is None and hasattr(type(recv), "__next__"):
            m = py_method(type(recv), "__next__")
            return True, (next(recv) if m is None else I.call_function(m, (recv,)))
        return True, recv.send(v)
    except StopIteration as e:
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
