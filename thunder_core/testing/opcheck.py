"""Check one torch op traced through the op language against eager PyTorch.

``check_op(torch.add, a, b, alpha=2)`` traces the call with proxies (through the same
torch-convention entry the jit's lookasides use), verifies the trace, runs it with the torch
executor's implementations and compares with eager; if the symbol has a decomposition it
also flattens the trace to primitives, verifies and runs that, and compares again.
"""

from __future__ import annotations

import torch

from ..ir import Trace, tracing, verify
from ..ops import TORCH_CALLS
from ..transforms.flatten import flatten


def torch_impls():
    """The implementation table (symbol id -> callable) of the installed fallback executor
    (the one that runs every symbol op by op, e.g. PyTorch eager)."""
    from ..plugins import registry

    fallback = [ex for ex in registry().executors.values() if ex.fallback and ex.unavailable() is None]
    if not fallback:
        raise RuntimeError("check_op runs traces with a fallback executor, and none is installed.")
    return fallback[0].implementations()


def _proxify(trace, x, inputs):
    if isinstance(x, torch.Tensor):
        p = trace.add_input(x)
        inputs.append(x)
        return p
    if isinstance(x, (list, tuple)):
        return type(x)(_proxify(trace, y, inputs) for y in x)
    if isinstance(x, dict):
        return {k: _proxify(trace, v, inputs) for k, v in x.items()}
    return x


def trace_op(fn, *args, **kwargs):
    """(trace, real tensor inputs) for one call of torch callable ``fn``."""
    entry = TORCH_CALLS.get(fn)
    if entry is None:
        raise LookupError(f"{fn!r} has no torch-level symbol (not in thunder_core.ops.TORCH_CALLS)")
    trace = Trace("op")
    inputs: list = []
    with tracing(trace):
        pargs = _proxify(trace, list(args), inputs)
        pkwargs = _proxify(trace, kwargs, inputs)
        trace.output = entry(*pargs, **pkwargs)
    return trace, inputs


def _compare(got, expected, what, exact_values, **tol):
    if isinstance(expected, torch.Tensor):
        assert isinstance(got, torch.Tensor), f"{what}: expected a tensor, got {type(got).__name__}"
        assert got.shape == expected.shape, f"{what}: shape {tuple(got.shape)} != eager {tuple(expected.shape)}"
        assert got.dtype == expected.dtype, f"{what}: dtype {got.dtype} != eager {expected.dtype}"
        assert got.device == expected.device, f"{what}: device {got.device} != eager {expected.device}"
        if exact_values:
            torch.testing.assert_close(got, expected, equal_nan=True, msg=lambda m: f"{what}: {m}", **tol)
    elif isinstance(expected, (list, tuple)):
        assert isinstance(got, (list, tuple)) and len(got) == len(expected), f"{what}: {got!r} vs {expected!r}"
        for i, (g, e) in enumerate(zip(got, expected)):
            _compare(g, e, f"{what}[{i}]", exact_values, **tol)
    else:
        assert got == expected, f"{what}: {got!r} != eager {expected!r}"


def check_op(fn, *args, random=False, atol=None, rtol=None, **kwargs):
    """Trace ``fn(*args, **kwargs)``, run it through the torch executor (whole ops, then
    flattened to primitives when there is a decomposition) and compare with eager.
    ``random``: compare metadata only (RNG ops). Returns the trace."""
    tol = {} if atol is None else {"atol": atol, "rtol": rtol if rtol is not None else 0}
    trace, inputs = trace_op(fn, *args, **kwargs)
    verify(trace)
    impls = torch_impls()
    expected = fn(*args, **kwargs)
    got = trace.python_callable(impls)(*inputs)
    _compare(got, expected, f"{getattr(fn, '__name__', fn)} via torch executor", not random, **tol)
    if any(b.subsymbols for b in trace.bound_symbols):
        flat = flatten(trace, keep=lambda s: s.is_prim or s.decomposition is None)
        verify(flat)
        got = flat.python_callable(impls)(*inputs)
        _compare(got, expected, f"{getattr(fn, '__name__', fn)} decomposed into prims", not random, **tol)
    return trace


def check_error_like_eager(fn, *args, match: str, **kwargs):
    """Eager ``fn(*args, **kwargs)`` raises; tracing it must raise the same exception type
    (or a subclass) with a message matching the regex ``match``. Returns the traced error."""
    import re

    try:
        fn(*args, **kwargs)
    except Exception as e:  # noqa: BLE001 - whatever eager raises is the expectation
        eager = e
    else:
        raise AssertionError(f"eager {getattr(fn, '__name__', fn)} did not raise")
    try:
        trace_op(fn, *args, **kwargs)
    except Exception as e:  # noqa: BLE001
        if not isinstance(e, type(eager)):
            raise AssertionError(f"tracing raised {type(e).__name__}, eager raised {type(eager).__name__}") from e
        if not re.search(match, str(e)):
            raise AssertionError(f"tracing raised {str(e)!r}, which does not match {match!r}") from e
        return e
    raise AssertionError(f"tracing {getattr(fn, '__name__', fn)} did not raise; eager raised {eager!r}")
