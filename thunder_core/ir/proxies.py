"""Proxies: the symbolic values a trace manipulates.

A trace never holds real tensors. Each value flowing through it is a *proxy* that carries
only what tracing needs to know about the value (a tensor's shape, dtype, device and
``requires_grad``; a number's Python type and, when known, its value) plus a ``name``,
unique within its trace (``t0``, ``t1``, ``i0``, ``f0``...), under which the printed trace
refers to it. Collections of values are plain Python tuples, lists and dicts of proxies.

Proxies compare and hash by identity: two proxies are the same value only if they are the
same object. ``==`` on a :class:`TensorProxy` records an ``eq`` op, like ``==`` on a
tensor, so code that inspects proxies uses ``is`` and id-keyed dicts, never ``in`` on a list.

Operators and method calls on a :class:`TensorProxy` dispatch through one table,
:data:`TENSOR_METHODS`, mapping a ``torch.Tensor`` method name to the symbol that implements
it (``TENSOR_METHODS["add"] = ltorch.add``). The ops package fills the table; this module
only defines the dispatch. ``t.add(u, alpha=2)`` calls ``TENSOR_METHODS["add"](t, u,
alpha=2)``; ``t + u`` calls ``TENSOR_METHODS["add"](t, u)``; reflected operators swap the
operands (``2 - t`` calls ``TENSOR_METHODS["sub"](2, t)``); in-place operators use the
trailing-underscore method (``t += u`` calls ``TENSOR_METHODS["add_"](t, u)``). The
operator-to-key mapping is :data:`OPERATORS`.

Numbers: under "constant values" caching a :class:`NumberProxy` carries its ``value``;
under "symbolic values" it is symbolic (``value=None``, ``hint``: this call's number), its
arithmetic is recorded and what needs its value is guarded (see :class:`NumberProxy`).
Tensor shapes are :class:`~thunder_core.ir.size.Size` tuples (ints and symbolic sizes) that the
program sees as ``torch.Size``; a trace's arguments hold plain tuples.
"""

from __future__ import annotations

import functools
import keyword
import math
import operator
from dataclasses import FrozenInstanceError, dataclass, fields
from types import MappingProxyType
from typing import Any, Callable

import torch

from .size import Size

__all__ = ["TENSOR_PROPERTIES", "Proxy", "TensorProxy", "NumberProxy", "NUMBER_METHODS", "NUMBER_FUNCTIONS", "TENSOR_METHODS", "OPERATORS", "tensor_proxy",
           "TENSOR_SETTERS", "number_proxy", "proxy", "flat_proxies", "substitute", "is_valid_name", "NUMBER_PREFIXES"]

#: torch.Tensor method name -> callable (normally a Symbol) that records that method.
TENSOR_METHODS: dict[str, Callable] = {}

#: torch.Tensor property name -> callable(proxy) computing it (``T``, ``mT``, ``data``...).
TENSOR_PROPERTIES: dict[str, Callable] = {}

#: torch.Tensor attribute name -> callable(proxy, value) recording ``t.name = value``
#: (``requires_grad`` here; the ops package adds ``data``). Other attributes are refused: a
#: proxy's fields are its recorded metadata.
TENSOR_SETTERS: dict[str, Callable] = {}

#: Called with a method name missing from TENSOR_METHODS; returns an entry or None (the ops
#: package installs one that records unknown torch.Tensor methods as opaque symbols).
MISSING_METHOD: Callable | None = None

#: Called with (proxy, name) for an attribute neither table knows; returns its value (a
#: metadata property such as ``is_nested``, answered by the ops package) or raises AttributeError.
MISSING_PROPERTY: Callable | None = None

#: Python type of a number -> prefix of the names generated for its proxies.
NUMBER_PREFIXES: dict[type, str] = {int: "i", float: "f", bool: "b", complex: "c"}


def is_valid_name(name: object) -> bool:
    """True if ``name`` can name a proxy in printed Python: an identifier that is not a keyword."""
    return isinstance(name, str) and name.isidentifier() and not keyword.iskeyword(name)


def _check_name(name: object, what: str) -> None:
    if not is_valid_name(name):
        raise ValueError(f"{what} name {name!r} is not a valid Python identifier; proxy names are "
                         "printed as variables of the trace's Python source. Use a name such as 't0'.")


class Proxy:
    """Base of all proxies: a named symbolic value. Prints as its name, hashes by identity."""

    __slots__ = ()
    name: str

    def __repr__(self) -> str:
        return self.name

    __str__ = __repr__
    __hash__ = object.__hash__

    def __bool__(self):
        if isinstance(self, TensorProxy):
            from .trace import current_trace

            # an `assert` on tensor contents (checked on every call), else a cheap predicate of
            # input tensors (`if not mask.any():`: decided now, guarded): the trace's hooks
            trace = current_trace()
            for name in ("assertion", "input_truth"):
                hook = getattr(trace, name, None)
                truth = hook(self) if hook is not None else None
                if truth is not None:
                    return truth
        what = "tensor" if isinstance(self, TensorProxy) else "number"
        raise TypeError(
            f"The truth value of a {what} computed inside the jitted function ({self.name} in the trace) is not "
            f"known while tracing: `if`, `while`, `and`/`or` and `bool()` need a concrete value. Make the condition "
            f"depend on shapes, dtypes or Python values instead of tensor contents (torch.where keeps both branches "
            f"in tensors), or move it outside the jitted function.")

    def __format__(self, spec):
        # f"{x}" and format(x) would bake the proxy's name into a string that the program
        # prints or logs on every call; the tensor's values exist only when the trace runs
        if not isinstance(self, TensorProxy):
            return format(str(self), spec)
        raise TypeError(
            f"Formatting a tensor computed inside the jitted function into a string (f\"{{...}}\", format(), "
            f"{self.name} in the trace) needs its values, which are not known while tracing. Pass the tensor "
            f"itself: print(x) and logger.info(\"%s\", x) are made on every call with the computed tensor; or "
            f"format it outside the jitted function.")


@dataclass(frozen=True, eq=False, repr=False)
class NumberProxy(Proxy):
    """A Python number (int, float, bool or complex) in a trace.

    ``value`` is the number recorded at trace time, or None when only its type is known.

    A *symbolic* number (``cache="symbolic values"``: an int/float/bool argument, and what
    arithmetic makes of it) has ``value=None`` and ``hint``, the number it is while tracing.
    Arithmetic and comparisons on it record ops through :data:`NUMBER_METHODS` (the result is
    symbolic too, with ``expr = (function, args)`` saying how to compute it from its inputs).
    What needs a concrete value specialises through the trace's ``specialize`` hook, which
    records a guard the prologue checks on every call: ``bool(n)`` (``if``, ``while``,
    ``min``/``max``) guards the outcome of the predicate, ``int(n)``/``float(n)``/
    ``n.__index__()``/``format(n)`` guard that ``n`` equals its hint. ``n.__class__`` is the
    number's Python type, so ``isinstance(n, int)`` answers as in eager.
    """

    name: str
    python_type: type
    value: Any = None
    hint: Any = None
    expr: Any = None
    lower: Any = None  # a lower bound known for every call (a symbolic dimension: 2)

    def __post_init__(self):
        _check_name(self.name, "NumberProxy")
        if self.python_type not in NUMBER_PREFIXES:
            raise TypeError(f"NumberProxy {self.name}: python_type must be one of int, float, bool, complex, "
                            f"not {self.python_type!r}.")
        if self.value is not None and type(self.value) is not self.python_type:
            raise TypeError(f"NumberProxy {self.name}: value {self.value!r} is a {type(self.value).__name__}, "
                            f"but python_type is {self.python_type.__name__}.")

    @property
    def symbolic(self) -> bool:
        """True for a number whose value may differ on the next call (``hint`` is this call's)."""
        return self.value is None and self.hint is not None

    @property
    def __class__(self):  # noqa: F811 - isinstance(n, int) as in eager; type(n) stays NumberProxy
        return self.python_type if self.hint is not None else NumberProxy

    def specialize(self, kind: str = "equals"):
        """The concrete number, guarded: ``kind="equals"`` guards ``self == hint`` (int(),
        float(), indexing), ``kind="truth"`` guards ``bool(self)`` (branches). A number with a
        known ``value`` returns it without a guard."""
        if self.value is not None:
            return self.value if kind == "equals" else bool(self.value)
        if self.hint is None:
            raise TypeError(f"The number {self.name} has no value while tracing (only its type, "
                            f"{self.python_type.__name__}, is known), so it cannot be used where a concrete value is "
                            f"needed.")
        v = self.hint if kind == "equals" else bool(self.hint)
        from .trace import current_trace

        trace = current_trace()
        if trace is None:
            return v  # outside any trace (cost models, heuristics): this call's value, no guard
        from .trace import current_equalities, current_guard_sink

        hook = getattr(trace, "specialize", None) or current_guard_sink()
        if hook is None:
            raise TypeError(f"The symbolic number {self.name} needs a concrete value ({kind}), which only a capture "
                            f"can guard; this trace ({getattr(trace, 'name', None)}) records no guards.")
        hook(self, kind, v)
        eqs = current_equalities()
        if eqs is not None:  # sizes the guard makes equal are one symbol from now on
            eqs.learn(self, kind, v)
        return v

    def __bool__(self):
        if self.value is None and self.hint is None:
            return Proxy.__bool__(self)  # raises: a number computed from tensor values
        return self.specialize("truth")

    def __index__(self):
        if self.python_type not in (int, bool):
            raise TypeError(f"'{self.python_type.__name__}' object cannot be interpreted as an integer")
        return int(self.specialize())

    def __int__(self):
        return int(self.specialize())

    def __float__(self):
        return float(self.specialize())

    def __complex__(self):
        return complex(self.specialize())

    def __format__(self, spec):
        if self.hint is None:
            return format(str(self), spec)
        return format(self.specialize(), spec)

    def __str__(self):
        # str(n) in the program is the number's text (guarded); repr stays the trace name
        return self.name if self.hint is None else str(self.specialize())


#: Python operator on numbers (``"add"``, ``"lt"``, ``"neg"``, ``"floor"``...) -> callable
#: recording it (the ops package fills it with the ``prims.py_*`` symbols).
NUMBER_METHODS: dict[str, Callable] = {}
#: the same keys -> the Python function itself (what the recorded op computes).
NUMBER_FUNCTIONS: dict[str, Callable] = {
    "add": operator.add, "sub": operator.sub, "mul": operator.mul, "truediv": operator.truediv,
    "floordiv": operator.floordiv, "mod": operator.mod, "pow": operator.pow, "lshift": operator.lshift,
    "rshift": operator.rshift, "and": operator.and_, "or": operator.or_, "xor": operator.xor,
    "lt": operator.lt, "le": operator.le, "gt": operator.gt, "ge": operator.ge, "eq": operator.eq, "ne": operator.ne,
    "neg": operator.neg, "pos": operator.pos, "abs": operator.abs, "invert": operator.invert,
    "floor": math.floor, "ceil": math.ceil, "trunc": math.trunc, "round": round,
}
_NUMBER_BINARY = ("add sub mul truediv floordiv mod pow lshift rshift and or xor lt le gt ge eq ne").split()
_NUMBER_UNARY = {"neg": "neg", "pos": "pos", "abs": "abs", "invert": "invert", "floor": "floor", "ceil": "ceil",
                 "trunc": "trunc"}


def _number_op(key: str, *args):
    from .trace import current_trace

    if current_trace() is None:  # outside any trace (cost models, heuristics): on this call's values
        return NUMBER_FUNCTIONS[key](*(a.specialize() if type(a) is NumberProxy else a for a in args))
    return NUMBER_METHODS[key](*args)


def _number_operand(x) -> bool:
    return type(x) in NUMBER_PREFIXES or (type(x) is NumberProxy and x.hint is not None)


def _number_operator(key: str, kind: str):
    if kind == "binary":
        def method(self, other):
            if self.hint is None or not _number_operand(other):
                return NotImplemented
            return _number_op(key, self, other)
    elif kind == "reflected":
        def method(self, other):
            if self.hint is None or not _number_operand(other):
                return NotImplemented
            return _number_op(key, other, self)
    else:
        def method(self):
            if self.hint is None:
                raise TypeError(f"The number {self.name} has no value while tracing; {key} needs one.")
            return _number_op(key, self)
    method.__name__ = method.__qualname__ = f"__{key}__"
    return method


for _key in _NUMBER_BINARY:
    _dunder = {"and": "and", "or": "or"}.get(_key, _key)
    setattr(NumberProxy, f"__{_dunder}__", _number_operator(_key, "binary"))
    if _key not in ("lt", "le", "gt", "ge", "eq", "ne"):
        setattr(NumberProxy, f"__r{_dunder}__", _number_operator(_key, "reflected"))
for _dunder, _key in _NUMBER_UNARY.items():
    setattr(NumberProxy, f"__{_dunder}__", _number_operator(_key, "unary"))


def _round(self, ndigits=None):
    if self.hint is None:
        raise TypeError(f"The number {self.name} has no value while tracing; round() needs one.")
    return _number_op("round", self) if ndigits is None else _number_op("round", self, ndigits)


def _divmod(self, other):
    return self // other, self % other


def _rdivmod(self, other):
    return other // self, other % self


def _hash(self):
    # A symbolic number used as a dict key or set member by the program (`table.get(n)`) is its
    # value there, guarded; elsewhere (the core keys proxies by id) it hashes by identity.
    if self.hint is not None and self.value is None:
        from .trace import current_guard_sink, current_trace, use_hints

        if getattr(current_trace(), "specialize", None) is not None or \
                current_guard_sink() not in (None, use_hints):
            return hash(self.specialize())
    return object.__hash__(self)


NumberProxy.__round__ = _round
NumberProxy.__divmod__, NumberProxy.__rdivmod__ = _divmod, _rdivmod
NumberProxy.__hash__ = _hash  # defining __eq__ must not make proxies unhashable


@dataclass(frozen=True, eq=False, repr=False)
class TensorProxy(Proxy):
    """A tensor in a trace: its name and metadata (``shape``, ``dtype``, ``device``,
    ``requires_grad``), the torch.Tensor metadata queries, and operators/methods that record
    ops through :data:`TENSOR_METHODS`.

    ``python_type`` is the Python type of the tensor it stands for (``torch.nn.Parameter`` for a
    parameter; None: ``torch.Tensor``). The proxy answers ``x.__class__`` with it, so
    ``isinstance(x, torch.Tensor)``, ``isinstance(p, nn.Parameter)``, ``x.__class__`` and
    ``functools.singledispatch`` see what eager sees (``type(x)`` is answered by the jit's
    lookaside for ``type``).
    """

    name: str
    shape: tuple[int, ...]
    dtype: torch.dtype
    device: torch.device
    requires_grad: bool = False
    python_type: type | None = None
    # (as torch.Tensor's: NumPy's operators defer to the tensor's, so `np.float64(2) + x` is a
    # tensor, not an object array holding the proxy)
    __array_priority__ = 1000

    @property
    def __class__(self):  # noqa: F811 - deliberately what eager's tensor reports
        return self.python_type or torch.Tensor

    def replace(self, **changes) -> TensorProxy:
        """A copy with ``changes`` (``dataclasses.replace``, which would build ``__class__``)."""
        return TensorProxy(**{**{f.name: getattr(self, f.name) for f in fields(self)}, **changes})

    def __post_init__(self):
        _check_name(self.name, "TensorProxy")
        try:  # a symbolic int dimension (cache="symbolic values") stays a proxy
            shape = tuple(s if type(s) is NumberProxy and s.symbolic else s.__index__() for s in self.shape)
        except (TypeError, AttributeError):
            raise TypeError(f"TensorProxy {self.name}: shape must be a sequence of ints, got {self.shape!r}.") from None
        if any(type(s) is NumberProxy for s in shape):
            from .trace import current_equalities

            eqs = current_equalities()
            if eqs is not None:  # sizes unified by guards: the class's representative, now and after a merge
                shape = eqs.shape(shape)
                eqs.track(self, shape)
        if any(type(s) is int and s < 0 for s in shape):
            raise ValueError(f"TensorProxy {self.name}: shape {shape} has a negative dimension.")
        if not isinstance(self.dtype, torch.dtype):
            raise TypeError(f"TensorProxy {self.name}: dtype must be a torch.dtype, got {self.dtype!r}.")
        object.__setattr__(self, "shape", Size(shape))  # (what the program sees: torch.Size's behaviour)
        object.__setattr__(self, "device", torch.device(self.device))
        object.__setattr__(self, "requires_grad", bool(self.requires_grad))

    # -- metadata queries (answered from the proxy, never recorded) --
    @property
    def ndim(self) -> int:
        """Number of dimensions."""
        return len(self.shape)

    def dim(self) -> int:
        """Number of dimensions, like ``torch.Tensor.dim``."""
        return len(self.shape)

    def numel(self) -> int:
        """Number of elements, like ``torch.Tensor.numel``."""
        return math.prod(self.shape)

    def size(self, d: int | None = None):
        """The shape, or the length of dimension ``d`` (negative counts from the end)."""
        if d is None:
            return self.shape
        n = len(self.shape)
        if not -n <= d < n:
            raise IndexError(f"Dimension {d} is out of range for {self.name}, which has {n} dimension(s) "
                             f"(shape {list(self.shape)}).")
        return self.shape[d]

    def is_floating_point(self) -> bool:
        """True for floating-point dtypes, like ``torch.Tensor.is_floating_point``."""
        return self.dtype.is_floating_point

    @property
    def is_cuda(self) -> bool:
        return self.device.type == "cuda"

    @property
    def is_cpu(self) -> bool:
        return self.device.type == "cpu"

    @property
    def is_meta(self) -> bool:
        return self.device.type == "meta"

    def get_device(self) -> int:
        """Like ``torch.Tensor.get_device``: the device index, -1 on CPU."""
        return -1 if self.device.type == "cpu" else (self.device.index or 0)

    def element_size(self) -> int:
        """Bytes per element, like ``torch.Tensor.element_size``."""
        return self.dtype.itemsize

    @property
    def itemsize(self) -> int:
        """Bytes per element, like ``torch.Tensor.itemsize``."""
        return self.dtype.itemsize

    @property
    def nbytes(self) -> int:
        """Bytes of the elements, like ``torch.Tensor.nbytes`` (``numel() * itemsize``)."""
        return self.numel() * self.dtype.itemsize

    def nelement(self) -> int:
        """Number of elements, like ``torch.Tensor.nelement``."""
        return self.numel()

    def is_complex(self) -> bool:
        """True for complex dtypes, like ``torch.Tensor.is_complex``."""
        return self.dtype.is_complex

    def __len__(self) -> int:
        if not self.shape:
            raise TypeError(f"len() of a 0-d tensor ({self.name})")
        return self.shape[0]

    def __iter__(self):
        # Defined explicitly: without it Python would iterate through __getitem__ until an
        # IndexError that a symbolic getitem never raises.
        n = len(self)  # raises now for a 0-d tensor, like torch
        return (self[i] for i in range(n))

    def __int__(self):  # int(t): t.item() (an input's value, guarded; else refused as data)
        return int(self.item())

    def __float__(self):
        return float(self.item())

    def __getattr__(self, attr: str):
        # Only reached when normal lookup fails: fields and the methods above win.
        if attr.startswith("__"):
            if attr == "__torch_function__":  # hasattr(t, "__torch_function__") as on a tensor (is_tensor_like)
                return self.__class__.__torch_function__
            raise AttributeError(attr)
        prop = TENSOR_PROPERTIES.get(attr)
        if prop is not None:
            return prop(self)
        fn = TENSOR_METHODS.get(attr)
        if fn is None and MISSING_METHOD is not None:
            fn = MISSING_METHOD(attr)
        if fn is None:
            if MISSING_PROPERTY is not None:
                return MISSING_PROPERTY(self, attr)  # raises AttributeError when it has no answer
            raise AttributeError(
                f"TensorProxy {self.name} has no method or attribute {attr!r}: no symbol is registered for it in "
                f"thunder_core.ir.proxies.TENSOR_METHODS. If torch.Tensor.{attr} exists, the ops package does not "
                f"support it yet; register a symbol with TENSOR_METHODS[{attr!r}] = <symbol>.")
        return functools.partial(fn, self)


def _set_attribute(self, name: str, value) -> None:
    setter = TENSOR_SETTERS.get(name)
    if setter is not None:
        setter(self, value)
        return
    raise FrozenInstanceError(f"Cannot set `.{name}` of the traced tensor {self.name}: while tracing, a tensor is a "
                              f"record of its metadata. Keep the value in a variable (or an attribute of a module or "
                              f"another object) instead.")


TensorProxy.__setattr__ = _set_attribute  # (after @dataclass: frozen dataclasses refuse a __setattr__ of their own)
# `t.requires_grad = flag` is `t.requires_grad_(flag)` in torch, and recorded like it (HF
# wav2vec2's feature encoder does it)
TENSOR_SETTERS["requires_grad"] = lambda p, flag: p.requires_grad_(flag)


def _table_entry(key: str, proxy: TensorProxy, op: str) -> Callable:
    fn = TENSOR_METHODS.get(key)
    if fn is None and MISSING_METHOD is not None:
        fn = MISSING_METHOD(key)
    if fn is None:
        raise NotImplementedError(
            f"`{op}` on TensorProxy {proxy.name} dispatches to TENSOR_METHODS[{key!r}], which has no entry: the ops "
            f"package does not support it yet. Register a symbol with thunder_core.ir.proxies.TENSOR_METHODS[{key!r}].")
    return fn


#: dunder -> (TENSOR_METHODS key, how it is called, operator as shown in errors).
#: Kinds: "binary" fn(self, other); "reflected" fn(other, self); "unary" fn(self);
#: "setitem" fn(self, index, value).
OPERATORS: dict[str, tuple[str, str, str]] = {}
for _names, _key, _op in [
    (("add", "iadd"), "add", "+"), (("sub", "isub"), "sub", "-"), (("mul", "imul"), "mul", "*"),
    (("truediv", "itruediv"), "div", "/"), (("floordiv", "ifloordiv"), "floor_divide", "//"),
    (("mod", "imod"), "remainder", "%"), (("pow", "ipow"), "pow", "**"), (("matmul", None), "matmul", "@"),
    (("and", "iand"), "bitwise_and", "&"), (("or", "ior"), "bitwise_or", "|"), (("xor", "ixor"), "bitwise_xor", "^"),
    (("lshift", "ilshift"), "bitwise_left_shift", "<<"), (("rshift", "irshift"), "bitwise_right_shift", ">>"),
]:
    _plain, _inplace = _names
    OPERATORS[f"__{_plain}__"] = (_key, "binary", _op)
    OPERATORS[f"__r{_plain}__"] = (_key, "reflected", _op)
    if _inplace:
        OPERATORS[f"__{_inplace}__"] = (_key + "_", "binary", _op + "=")
for _dunder, _key, _op in [("lt", "lt", "<"), ("le", "le", "<="), ("gt", "gt", ">"), ("ge", "ge", ">="),
                           ("eq", "eq", "=="), ("ne", "ne", "!="), ("getitem", "__getitem__", "[]")]:
    OPERATORS[f"__{_dunder}__"] = (_key, "binary", _op)
for _dunder, _key, _op in [("neg", "neg", "unary -"), ("pos", "positive", "unary +"), ("abs", "abs", "abs()"),
                           ("invert", "bitwise_not", "~")]:
    OPERATORS[f"__{_dunder}__"] = (_key, "unary", _op)
OPERATORS["__setitem__"] = ("__setitem__", "setitem", "[]=")


def _make_operator(dunder: str, key: str, kind: str, op: str):
    if kind == "binary":
        def method(self, other):
            return _table_entry(key, self, op)(self, other)
    elif kind == "reflected":
        def method(self, other):
            return _table_entry(key, self, op)(other, self)
    elif kind == "unary":
        def method(self):
            return _table_entry(key, self, op)(self)
    else:
        def method(self, index, value):
            _table_entry(key, self, op)(self, index, value)
    method.__name__ = method.__qualname__ = dunder
    method.__doc__ = f"``{op}``: records TENSOR_METHODS[{key!r}]."
    return method


for _dunder, (_key, _kind, _op) in OPERATORS.items():
    setattr(TensorProxy, _dunder, _make_operator(_dunder, _key, _kind, _op))
TensorProxy.__hash__ = object.__hash__  # defining __eq__ must not make proxies unhashable


# -- constructors that take names from the trace being built --

def _fresh_name(prefix: str, name: str | None) -> str:
    # Imported here: trace.py imports this module (printing needs the proxy classes).
    from .trace import current_trace

    trace = current_trace()
    if trace is None:
        if name is None:
            raise RuntimeError(
                "A proxy was created outside of a trace, so it has no trace to take a unique name from. Create "
                "proxies inside `with thunder_core.ir.tracing(trace):`, or pass an explicit name.")
        return name
    return trace.make_name(prefix) if name is None else trace.reserve_name(name)


def tensor_proxy(shape, dtype: torch.dtype, device, requires_grad: bool = False, *, name: str | None = None,
                 python_type: type | None = None) -> TensorProxy:
    """A new :class:`TensorProxy` named by the current trace (``t0``, ``t1``, ...), or ``name`` if given."""
    return TensorProxy(_fresh_name("t", name), tuple(shape), dtype, torch.device(device), requires_grad, python_type)


def number_proxy(python_type: type, value=None, *, name: str | None = None, hint=None, expr=None,
                 lower=None) -> NumberProxy:
    """A new :class:`NumberProxy` named by the current trace (``i0``, ``f0``, ...), or ``name``
    if given. ``hint`` (with ``value=None``) makes a symbolic number (see NumberProxy);
    ``lower``: a lower bound that holds on every call."""
    if python_type not in NUMBER_PREFIXES:
        raise TypeError(f"number_proxy: python_type must be one of int, float, bool, complex, not {python_type!r}.")
    return NumberProxy(_fresh_name(NUMBER_PREFIXES[python_type], name), python_type, value, hint, expr, lower)


def proxy(value, *, name: str | None = None) -> Proxy:
    """The proxy for a real value: a torch.Tensor becomes a TensorProxy with its metadata, an
    int/float/bool/complex a NumberProxy carrying the value. Proxies are returned unchanged."""
    if isinstance(value, Proxy):
        return value
    if isinstance(value, torch.Tensor):
        t = type(value)
        return tensor_proxy(value.shape, value.dtype, value.device, value.requires_grad, name=name,
                            python_type=None if t is torch.Tensor else t)
    if type(value) in NUMBER_PREFIXES:
        return number_proxy(type(value), value, name=name)
    raise TypeError(f"Cannot make a proxy for a {type(value).__qualname__}: only torch.Tensor and Python "
                    "int/float/bool/complex values become trace inputs.")


def substitute(x, env: dict):
    """``x`` with every proxy whose id is in ``env`` replaced (through tuples, lists, dicts, slices)."""
    t = type(x)
    if t in _PROXY_TYPES or isinstance(x, Proxy):
        return env.get(id(x), x)
    if t is tuple or t is list:
        # (hot: every pass renames arguments; the common leaves are tested inline)
        out = [env.get(id(y), y) if type(y) in _PROXY_TYPES else y if type(y) in _ATOMS else substitute(y, env)
               for y in x]
        return out if t is list else tuple(out)
    if t is dict:
        return {k: substitute(v, env) for k, v in x.items()}
    if t is slice:
        return slice(substitute(x.start, env), substitute(x.stop, env), substitute(x.step, env))
    return x


#: the proxy types and the constants arguments hold most: tested by exact type first in the
#: walks below (every pass walks every call's arguments); anything else takes the general path
_PROXY_TYPES = frozenset({TensorProxy, NumberProxy})
_ATOMS = frozenset({int, float, bool, complex, str, type(None), type(Ellipsis), torch.dtype, torch.device})


def flat_proxies(value) -> list[Proxy]:
    """Proxies found in ``value``, recursively through tuples, lists, dict values and slices,
    in order (with repeats)."""
    out: list[Proxy] = []
    _flat(value, out)
    return out


def _flat(x, out: list) -> None:
    t = type(x)
    if t is tuple or t is list:
        for y in x:
            ty = type(y)
            if ty in _PROXY_TYPES:
                out.append(y)
            elif ty not in _ATOMS:
                _flat(y, out)
    elif t in _PROXY_TYPES:
        out.append(x)
    elif t in _ATOMS:
        return
    elif isinstance(x, Proxy):
        out.append(x)
    elif isinstance(x, (tuple, list)):
        for y in x:
            _flat(y, out)
    elif isinstance(x, (dict, MappingProxyType)):
        for y in x.values():
            _flat(y, out)
    elif t is slice:  # x[n:] with a symbolic n
        _flat((x.start, x.stop, x.step), out)


del _names, _key, _op, _plain, _inplace, _dunder, _kind
