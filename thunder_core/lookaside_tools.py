"""What a plugin's lookaside may do to the call being traced besides recording symbols and
re-entering the interpreter (``thunder_core.extend`` re-exports these three):

* :func:`record_effect`: a call made for its effect on state outside the trace (a library's
  host-side bookkeeping, such as the gradient reducer of ``DistributedDataParallel``), made
  on every call of the compiled function rather than once while tracing;
* :func:`read_state`: a fact of the process read while tracing (``torch.distributed``'s
  rank), checked by the prologue on every call so a compile is only reused where it holds;
* :func:`substitute`: reads of an outside tensor give a value the trace computed (the
  gathered full parameter in place of its shard while a sharded module runs its forward).

Each takes the interpreter the lookaside received as its first argument.
"""

from __future__ import annotations

import functools

from .frontend import events as ev
from .frontend.provenance import Provenance
from .guards.record import EQUALS

__all__ = ["record_effect", "read_state", "substitute"]


def record_effect(interpreter, fn, *args, **kwargs) -> None:
    """Make ``fn(*args, **kwargs)`` on every call of the compiled function, instead of now.

    The call is recorded in program order with the program's other writes to outside state
    and made by the epilogue, after the computation, the first call included (the same
    mechanism as ``print(x)`` in a jitted function). Tensors among the arguments are the
    computed tensors of that call (outputs of the computation, with their autograd history);
    objects are the ones the function reads again on that call. ``fn`` itself is a constant
    of the compiled function. Returns None: a value ``fn`` would return is not known while
    tracing, so the lookaside gives the program what the call returns in the common case.

    :param interpreter: the interpreter the lookaside received.
    :param fn: any callable; it runs natively.

    **Example** (a library's step counter, bumped on every call, not once while tracing)::

        import mylib
        from thunder_core.extend import record_effect

        def count(interpreter, args, kwargs):
            record_effect(interpreter, mylib.count_step, *args, **kwargs)

        # @hookimpl def thunder_core_lookasides(): return {mylib.count_step: count}
    """
    f = interpreter.frames[-1] if interpreter.frames else None
    site = (f.info.code.co_filename, f.lineno, f.info.site_name) if f is not None else ("<lookaside>", 0, "?")
    interpreter.events.append(ev.Event(ev.CALL, None, fn, (tuple(args), dict(kwargs)), site))


def read_state(interpreter, fn, *args):
    """``fn(*args)`` now, a fact of the process the trace depends on (``dist.get_rank()``).

    The compiled function's prologue calls ``fn(*args)`` again on every call and compiles
    again when the value differs (compared by type and ``==``), the way it checks grad mode.
    Use it for cheap queries whose answer is a number, string, bool or None.

    :param interpreter: the interpreter the lookaside received.
    :return: the value ``fn(*args)`` returns now.

    **Example**::

        import torch.distributed as dist
        from thunder_core.extend import read_state

        def rank(interpreter, args, kwargs):
            return read_state(interpreter, dist.get_rank, *args)
    """
    value = fn(*args)
    name = getattr(fn, "__qualname__", None) or type(fn).__name__
    key = f"{getattr(fn, '__module__', None) or ''}.{name}({', '.join(map(repr, args))})".lstrip(".")
    interpreter.recorder.guard(Provenance("state", None, key, functools.partial(fn, *args)), EQUALS, value)
    return value


def substitute(interpreter, tensor, value):
    """From now on while tracing, reads of the outside tensor ``tensor`` give ``value`` (a
    proxy the trace computed); returns what they gave before (its input proxy, or the value
    of an earlier substitution) to pass back when the substitution ends.

    The tensor stays what the prologue fetches (read it through the interpreter first, so it
    has its input proxy and path). Use it where a library swaps what a module reads for the
    duration of a call (FSDP2 replaces each sharded parameter by its all-gathered full
    tensor between its pre-forward and post-forward hooks).

    :param interpreter: the interpreter the lookaside received.
    :param tensor: a real tensor read from outside while tracing.
    :param value: a proxy of the trace, or the value returned by an earlier call (to undo).
    """
    table = interpreter.recorder.proxies
    hit = table.get(id(tensor))
    if hit is None or hit[0] is not tensor:
        raise ValueError("substitute: the tensor was not read while tracing; read it through the interpreter first "
                         "(interpreter.call(getattr, (module, name))) so that it has an input and a path.")
    table[id(tensor)] = (tensor, value, hit[2])
    return hit[1]
