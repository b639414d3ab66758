"""How values print in a trace's Python source.

Every argument of a bound symbol and every leaf of a trace's output prints as a Python
expression that evaluates back to it, given ``import torch``: proxies by name, numbers and
strings by ``repr`` (``float('inf')``/``float('nan')`` for non-finite floats), dtypes as
``torch.float32``, devices as ``torch.device('cpu')``, slices, ``...``, ``None`` and nested
tuples/lists/dicts. How each type prints is one table, :data:`PRINTERS`; a value of a type
not in it is an error (a trace holds no opaque objects; tensors enter as inputs).

A symbol prints as ``<module>.<python_name>`` (``prims.add``). :data:`NAMESPACES` maps a
module alias to the importable Python module holding the symbols under their python names
(``NAMESPACES["prims"] = "thunder_core.ops.prims"``); a printed trace imports the modules it
uses, so exec'ing the source under ``thunder_core.ir.tracing`` records the same ops again.
``Trace.python_callable`` rebinds the aliases to implementations instead.
"""

from __future__ import annotations

import math
import os
from typing import Any, Callable

import torch

from .proxies import NumberProxy, Proxy, TensorProxy

__all__ = ["NAMESPACES", "PRINTERS", "DTYPE_ABBREVIATIONS", "PRINTER_GLOBALS", "PrintingError", "print_value",
           "annotation", "format_source", "describe"]

#: Module alias used in printed traces -> importable module path holding those symbols.
NAMESPACES: dict[str, str] = {}

#: Global names the printed source relies on besides symbol namespaces; proxies may not use them.
PRINTER_GLOBALS = frozenset({"torch", "float", "complex", "slice", "int", "bool", "str"})


class PrintingError(TypeError):
    """A value cannot be printed as Python source inside a trace."""


def _float(x: float) -> str:
    return repr(x) if math.isfinite(x) else f"float('{x}')"


def _complex(x: complex) -> str:
    return f"complex({_float(x.real)}, {_float(x.imag)})"


def _seq(open_: str, close: str, items) -> str:
    return open_ + ", ".join(print_value(x) for x in items) + close


def _tuple(x: tuple) -> str:
    return f"({print_value(x[0])},)" if len(x) == 1 else _seq("(", ")", x)


def _slice(x: slice) -> str:
    return f"slice({print_value(x.start)}, {print_value(x.stop)}, {print_value(x.step)})"


def _device(x: torch.device) -> str:
    return f"torch.device({str(x)!r})"


#: exact type -> function printing a value of that type.
PRINTERS: dict[type, Callable[[Any], str]] = {
    type(None): repr, bool: repr, int: repr, str: repr, float: _float, complex: _complex,
    type(...): lambda x: "...",
    tuple: _tuple,
    list: lambda x: _seq("[", "]", x),
    dict: lambda x: "{" + ", ".join(f"{print_value(k)}: {print_value(v)}" for k, v in x.items()) + "}",
    slice: _slice,
    torch.Size: lambda x: f"torch.Size({_seq('[', ']', x)})",
    torch.dtype: str,  # "torch.float32"
    torch.device: _device,
    torch.layout: str,  # "torch.strided"
    torch.memory_format: str,  # "torch.contiguous_format"
    type: lambda x: x.__name__ if x in (int, float, bool, complex, str) else _unprintable(x),
}


#: what to do with a NumPy array that reached an op (it prints as no constant, and is no input)
NUMPY_ARRAY_ADVICE = ("A trace holds tensors, and thunder_core does not follow NumPy's values, so an array cannot "
                      "enter it: make it a tensor outside the jitted function (torch.from_numpy(a)) and pass it in "
                      "or keep it as a module buffer, or compute it with torch inside.")


def _unprintable(x) -> str:
    if type(x).__module__ == "numpy" and type(x).__name__ == "ndarray":
        raise PrintingError(f"A NumPy array (shape {list(x.shape)}, {x.dtype}) reached a torch operation. "
                            f"{NUMPY_ARRAY_ADVICE}")
    if isinstance(x, torch.Tensor):
        raise PrintingError(f"A torch.Tensor of shape {list(x.shape)} appears as a constant in the trace. Tensors "
                            "must enter a trace as inputs (proxies), never as values baked into the source.")
    raise PrintingError(f"A value of type {type(x).__qualname__} ({x!r:.60}) reached an operation as a constant, and a "
                        "trace can only hold tensors, numbers, strings, dtypes, devices and tuples/lists/dicts of them. "
                        "Pass such values to the torch function instead (plugin authors: a type can print through "
                        "thunder_core.ir.printing.PRINTERS).")


def print_value(x) -> str:
    """The Python source for ``x`` (see the module docstring); raises :class:`PrintingError`."""
    if isinstance(x, Proxy):
        return x.name
    return PRINTERS.get(type(x), _unprintable)(x)


#: torch.dtype -> short name used in trace annotations ("cpu f32[2, 3]").
DTYPE_ABBREVIATIONS: dict[torch.dtype, str] = {
    torch.float64: "f64", torch.float32: "f32", torch.float16: "f16", torch.bfloat16: "bf16",
    torch.complex128: "c128", torch.complex64: "c64", torch.complex32: "c32",
    torch.int64: "i64", torch.int32: "i32", torch.int16: "i16", torch.int8: "i8", torch.uint8: "u8",
    torch.bool: "b8",
}


def annotation(p: Proxy) -> str:
    """A proxy's metadata as shown in trace comments: ``"cpu f32[2, 3]"``, ``"int 3"``, ``"float ?"``."""
    if isinstance(p, TensorProxy):
        dt = DTYPE_ABBREVIATIONS.get(p.dtype) or str(p.dtype).removeprefix("torch.")
        grad = " requires_grad" if p.requires_grad else ""
        return f'"{p.device} {dt}[{", ".join(map(repr, p.shape))}]{grad}"'
    if isinstance(p, NumberProxy):
        return f'"{p.python_type.__name__} {"?" if p.value is None else repr(p.value)}"'
    return f'"{type(p).__name__}"'


def format_source(source: tuple[str, int, str]) -> str:
    """A user source location as a trace comment (without ``#``): ``model.py:12: \\treturn x + y``."""
    filename, lineno, line = source
    line = " ".join(str(line).strip().splitlines())
    return f"{os.path.basename(filename)}:{lineno}: \t{line}"


def describe(x) -> str:
    """``x`` in an error message: a tensor by its kind, shape and dtype (never its values),
    anything else by a short repr and its type."""
    if isinstance(x, torch.Tensor) and not isinstance(x, Proxy):
        return f"a {type(x).__name__} of shape {list(x.shape)} and dtype {x.dtype} (a real tensor, not a traced one)"
    text = repr(x)
    return f"{text[:60] + '...' if len(text) > 60 else text} (a {type(x).__name__})"
