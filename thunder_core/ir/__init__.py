"""The IR: proxies, symbols, traces, their Python printer and the verifier.

A trace is a list of bound symbols (recorded calls of symbols) over proxies (symbolic
tensors and numbers). Build one by calling symbols inside ``tracing(trace)``; print it with
``print(trace)``; run it with ``trace.python_callable(impls)``; check it with ``verify``.
What an op is (elementwise, a view, a reduction...) is a declared *trait* of its symbol,
asked with ``has_trait`` (see ``traits.py``).

Example::

    trace = Trace("fn")
    x = trace.add_input(torch.randn(2, 3))
    with tracing(trace):
        trace.output = x + x          # dispatches through TENSOR_METHODS["add"]
    verify(trace)
    print(trace)
"""

from .printing import NAMESPACES, PRINTERS, PrintingError, print_value
from .proxies import (TENSOR_METHODS, NumberProxy, Proxy, TensorProxy, flat_proxies, number_proxy, proxy,
                      tensor_proxy)
from .symbol import BoundSymbol, Symbol, TracingError
from .trace import Trace, current_trace, tracing
from .traits import NON_TRAIT_TAGS, TRAITS, has_trait, traits
from .verify import IRVerificationError, verify

__all__ = ["Proxy", "TensorProxy", "NumberProxy", "TENSOR_METHODS", "tensor_proxy", "number_proxy", "proxy",
           "flat_proxies", "Symbol", "BoundSymbol", "TracingError", "Trace", "tracing", "current_trace",
           "NAMESPACES", "PRINTERS", "PrintingError", "print_value", "verify", "IRVerificationError", "TRAITS",
           "NON_TRAIT_TAGS", "traits", "has_trait"]
