"""Checks a program makes on tensor values: ``assert not x.isnan().any(), "NaN"``.

The truth of a computed tensor is not known while tracing, but an ``assert`` on one only
decides whether the program raises. The frontend records such a test as ``assert_tensor``
(capture_trace.py's ``CaptureTrace.assertion``) and traces on as if the assertion held: a symbol
with no outputs tagged ``"effect"``, so it stays in the trace where the program made the
test, and every call raises the program's AssertionError, with its message, when the
tensor's truth is not the one the program goes on with. (Eager would have made the writes
to state before the assert; a failing call of the jitted function makes none: the epilogue
does not run.)
"""

from __future__ import annotations

from .registry import torch_op


def check_assertion(cond, holds=True, args=(), where=""):
    """Raise ``AssertionError(*args)`` unless ``bool(cond) is holds`` (the program's ``assert``)."""
    if bool(cond) is not holds:
        e = AssertionError(*args)
        if where:
            e.add_note(f"(asserted at {where}; checked by thunder_core's trace)")
        raise e


def _no_output(*args, **kwargs):
    return None


@torch_op(check_assertion, inputs=("cond",), meta=_no_output, tags=("effect",))
def assert_tensor(cond, holds=True, args=(), where=""):
    """The program's ``assert`` on tensor ``cond`` (an effect: no outputs)."""
