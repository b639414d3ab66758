"""Shared helpers for the IR tests: eager implementations of the toy symbols and a way to
trace a Python function by calling it on proxies."""

from thunder_core.ir import Trace, tracing

from . import toy_prims, toy_torch

IMPLS = {**toy_prims.IMPLS, **toy_torch.IMPLS}


def trace_function(fn, *args, name=None, **kwargs) -> Trace:
    """Trace ``fn`` by calling it on proxies for ``args``/``kwargs`` (tensors and numbers)."""
    trace = Trace(name or fn.__name__)
    pargs = [trace.add_input(a) for a in args]
    pkwargs = {k: trace.add_input(v, keyword=k) for k, v in kwargs.items()}
    with tracing(trace):
        trace.output = fn(*pargs, **pkwargs)
    return trace
