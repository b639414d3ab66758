"""Torch-level elementwise ops: math functions, arithmetic and comparison operators, ``where``,
``clamp``, ``masked_fill``, ``lerp``, ``addcmul``/``addcdiv``, ``nan_to_num`` and their in-place
variants (dtype/device conversions are in ``ltorch_conversions``, activations in
``ltorch_activations``).

Each op decomposes into primitives the way torch computes it: **type promotion**
(:func:`result_dtype`, torch's rules: dimensioned tensors outrank 0-dim tensors, which
outrank Python numbers, unless the lower group has a higher kind, bool < int < float <
complex), **broadcasting** (:func:`broadcast_shapes`, via ``prims.broadcast_in_dim``), then
the prim. ``"float"`` ops (``exp``, true ``div``, ``atan2``...) compute integer and bool
inputs in the default float dtype. Ops that torch evaluates in float32 for float16/bfloat16
inputs with more than one rounding (``add`` with ``alpha``, ``lerp``, ``addcmul``...)
decompose in float32 and convert back.

Every op here declares the trait ``"elementwise"`` (with ``"transcendental"`` for exp, log,
trigonometric functions, sigmoid, erf, gamma functions, pow, sqrt, atan2, hypot: see
``thunder_core.ir.traits``); the tables below say which.

**In-place ops** (``add_``, ``t += u``, ``clamp_``...) are symbols tagged ``"inplace"`` (and
their op's traits) without a decomposition: the torch executor runs them in place on the
real tensor, in program order, and returns that tensor. Their meta checks the call with
torch itself.

**Reflected operators** reach an op with a number first (``2 - t`` records ``sub(2, t)``);
such calls run with Python's operator, exactly like eager. Note that eager ``2 / t`` is
``reciprocal(t) * 2``, and so is ``div(2, t)`` here.

:func:`op` and :func:`inplace_variant` define ops from tables; ``CALLABLES`` lists every torch
callable this module registers (the tests check each one is exercised).
"""

from __future__ import annotations

from ..ir.printing import NUMPY_ARRAY_ADVICE, describe

import inspect
import operator

import torch
import torch.nn.functional as nnf
from torch import special

from ..ir import TENSOR_METHODS, NumberProxy, Proxy, TensorProxy, Trace, tensor_proxy, tracing
from ..ir.proxies import TENSOR_PROPERTIES
from ..ir.traits import ELEMENTWISE, INPLACE, TRANSCENDENTAL, VIEW
from . import prims
from .prims_elementwise import KINDS, dtype_kind, number_type
from .prims_shape import same_shape
from .prims_shape import broadcast_shapes  # noqa: F401 - used here and re-exported (ltorch ops import it from here)
from .registry import INPLACE_VARIANTS, TORCH_CALLS, TORCH_IMPLS, T, fake_meta, torch_op

__all__ = ["result_dtype", "broadcast_shapes", "prepare", "convert", "cast_number", "value_of", "op",
           "inplace_variant", "register_front", "CALLABLES", "ENTRIES", "E", "ET"]

#: the traits of plain elementwise math, and of transcendental elementwise math
E = (ELEMENTWISE,)
ET = (ELEMENTWISE, TRANSCENDENTAL)

#: Every torch callable registered by this module.
CALLABLES: list = []
#: op name -> its torch-convention entry (``"add"``, ``"add_"``, ``"to"``...).
ENTRIES: dict = {}

# ---------------------------------------------------------------- type promotion and broadcasting

_NUMBER_ORDER = {bool: 0, int: 1, float: 2, complex: 3}  # their kinds' places in KINDS
_COMPLEX = {torch.float16: torch.complex32, torch.float32: torch.complex64, torch.float64: torch.complex128}
_LOW_PRECISION = (torch.float16, torch.bfloat16)


def _number_dtype(t: type) -> torch.dtype:
    if t is bool:
        return torch.bool
    if t is int:
        return torch.int64
    default = torch.get_default_dtype()
    return default if t is float else _COMPLEX.get(default, torch.complex64)


def _promote(a, b):
    return b if a is None else torch.promote_types(a, b)


def _combine(higher, lower):
    """torch's ``combine_categories``: ``lower`` counts only if it is of a higher kind."""
    if higher is None or lower is None:
        return lower if higher is None else higher
    if higher.is_complex:
        return higher
    if lower.is_complex:
        return _COMPLEX.get(higher, lower) if higher.is_floating_point else lower
    if higher.is_floating_point:
        return higher
    return torch.promote_types(higher, lower) if higher is torch.bool or lower.is_floating_point else higher


def result_dtype(*args) -> torch.dtype:
    """The result dtype of an elementwise torch op over ``args`` (tensor proxies and numbers;
    None is skipped), by torch's type promotion: ``f32 tensor + 1.5`` is float32, ``i64
    tensor + 1.5`` the default float dtype, ``i64 tensor + f64 0-dim tensor`` float64."""
    dim = zero = num = None
    for x in args:
        if isinstance(x, TensorProxy):
            if x.ndim:
                dim = _promote(dim, x.dtype)
            else:
                zero = _promote(zero, x.dtype)
        elif x is not None:
            nt = number_type(x)
            if nt is None:
                numpy = type(x).__module__ == "numpy"  # (an array: torch's operators would take it)
                raise TypeError(f"Expected a tensor or a Python number, got {describe(x)}."
                                + (f" {NUMPY_ARRAY_ADVICE}" if numpy else ""))
            num = _promote(num, _number_dtype(nt))
    out = _combine(dim, _combine(zero, num))
    if out is None:
        raise TypeError("Type promotion needs at least one tensor or number.")
    return out


def convert(x, dtype: torch.dtype):
    """``x`` converted to ``dtype`` if it is a tensor of another dtype; anything else unchanged."""
    if isinstance(x, TensorProxy) and x.dtype != dtype:
        return prims.convert_element_type(x, dtype=dtype)
    return x


def _expand(t: TensorProxy, shape: tuple) -> TensorProxy:
    if same_shape(t.shape, shape):
        return t
    return prims.broadcast_in_dim(t, shape=shape, broadcast_dimensions=tuple(range(len(shape) - t.ndim, len(shape))))


def _common_device(name: str, tensors) -> torch.device:
    devices = {t.device for t in tensors}
    if len(devices) > 1:  # like torch, 0-dim CPU tensors may join tensors on any device
        devices = {t.device for t in tensors if t.ndim or t.device.type != "cpu"}
    if len(devices) != 1:
        raise RuntimeError(f"{name}: expected all tensors to be on the same device, but found "
                         f"{', '.join(f'{t.name} on {t.device}' for t in tensors)}. Move them with .to(device).")
    return next(iter(devices))


def prepare(name: str, args, dtype: torch.dtype | None = None, shape=None) -> list:
    """``args`` with every tensor moved to the common device, converted to ``dtype`` (when
    given) and broadcast to ``shape`` (default: the tensors' broadcast shape); numbers and
    None pass through. ``name`` names the op in errors."""
    tensors = [a for a in args if isinstance(a, TensorProxy)]
    if not tensors:
        raise TypeError(f"{name} needs at least one tensor argument, got {args!r}.")
    shape = broadcast_shapes(*(t.shape for t in tensors), name=name) if shape is None else tuple(shape)
    device = _common_device(name, tensors)
    out = []
    for a in args:
        if isinstance(a, TensorProxy):
            if a.device != device:
                a = prims.device_put(a, device=device)
            a = _expand(convert(a, dtype) if dtype is not None else a, shape)
        out.append(a)
    return out


def value_of(x, what: str):
    """The Python value of a number or NumberProxy (a symbolic number specialises, guarded)."""
    if isinstance(x, NumberProxy):
        return x.specialize()
    return x


def _is(x, v) -> bool:
    """True if ``x`` is known to be the number ``v``."""
    if isinstance(x, NumberProxy):
        return x.value is not None and x.value == v
    return not isinstance(x, Proxy) and number_type(x) is not None and x == v


def cast_number(x, dtype: torch.dtype, what: str):
    """Number ``x`` as torch casts a scalar into a tensor of ``dtype`` (``int(1.5) == 1``,
    ``bool(2) is True``), or ``x`` itself when its kind already fits ``dtype``."""
    kind = dtype_kind(dtype)
    nt = number_type(x)
    if nt is None or _NUMBER_ORDER[nt] <= KINDS.index(kind):
        return x
    v = value_of(x, what)
    v = v.real if isinstance(v, complex) else v
    return {"b": bool, "i": int, "f": float}[kind](v)


def _opmath(dtype: torch.dtype) -> torch.dtype:
    """The dtype torch computes multi-step formulas in: float32 for float16/bfloat16."""
    return torch.float32 if dtype in _LOW_PRECISION else dtype


def _tensor(name: str, x, what: str = "input") -> TensorProxy:
    if not isinstance(x, TensorProxy):
        raise TypeError(f"{name}(): argument '{what}' must be a tensor, not {describe(x)}.")
    return x


def _unary(name: str, prim, kind: str, x):
    x = _tensor(name, x)
    if kind == "float" and dtype_kind(x.dtype) in "bi":
        x = convert(x, torch.get_default_dtype())
    return prim(x)


def _binary(name: str, prim, kind: str, a, b):
    dtype = result_dtype(a, b)
    if kind == "float" and dtype_kind(dtype) in "bi":
        dtype = torch.get_default_dtype()
    return prim(*prepare(name, (a, b), dtype))


# ---------------------------------------------------------------- defining ops from tables

def _callables(names, suffix: str = ""):
    """(callables, method names): ``torch.<n><suffix>`` and ``torch.Tensor.<n><suffix>`` for the
    names torch defines; for in-place variants the Tensor method comes first (the executor runs
    the first callable)."""
    owners = (torch.Tensor, torch) if suffix else (torch, torch.Tensor)
    fns = [getattr(o, n + suffix) for o in owners for n in names if callable(getattr(o, n + suffix, None))]
    return fns, [n + suffix for n in names if callable(getattr(torch.Tensor, n + suffix, None))]


def _record(callables, fns) -> None:
    callables.extend(f for f in fns if all(f is not g for g in callables))


def _inplace_meta(sid: str):
    """Meta of an in-place op: torch checks the call on fake tensors, and the result has the
    input's metadata. Fake inputs are leaves, and torch refuses in-place ops on leaves that
    require grad, so the check runs without requires_grad (the real input may be no leaf)."""
    def meta(*args, **kwargs):
        t = _tensor(sid, args[0], "self")
        shape = broadcast_shapes(*(a.shape for a in args if isinstance(a, TensorProxy)), name=sid)
        if not same_shape(shape, t.shape):  # (fake tensors would resize the output with a warning instead)
            raise RuntimeError(f"{sid}: the output {t.name} with shape {list(t.shape)} doesn't match the broadcast "
                               f"shape {list(shape)} of the inputs; in-place ops cannot grow their input.")
        plain = [a.replace(requires_grad=False) if isinstance(a, TensorProxy) else a for a in args]
        with tracing(Trace("inplace_check")):
            fake_meta(lambda p, k: TORCH_IMPLS[sid](*p, **k))(*plain, **kwargs)
        rg = t.requires_grad or (torch.is_grad_enabled() and (t.dtype.is_floating_point or t.dtype.is_complex)
                                 and any(a.requires_grad for a in args if isinstance(a, TensorProxy)))
        return tensor_proxy(t.shape, t.dtype, t.device, rg)
    return meta


def inplace_variant(name: str, sig, inputs, fns, methods=(), impl=None, callables=CALLABLES, traits=E, of=None):
    """Define the in-place op ``name`` (e.g. ``"add_"``) for torch callables ``fns``, with the
    signature of ``sig``, the traits ``"inplace"`` and ``traits`` (its out-of-place op's) and
    no decomposition; the executor calls ``fns[0]`` (or ``impl``), which mutates its first
    argument. ``of``: the out-of-place op's entry, when it takes the same arguments (recorded
    in ``registry.INPLACE_VARIANTS``: the execution trace may then write a dead intermediate's
    buffer instead of allocating)."""
    def inplace(*args, **kwargs):
        """Runs as one op, in place, in program order."""
    inplace.__signature__ = inspect.signature(sig)
    entry = torch_op(*fns, inputs=inputs, method=tuple(methods), name=name, tags=(INPLACE, *traits), impl=impl,
                     meta=_inplace_meta(f"ltorch.{name}"))(inplace)
    _record(callables, fns)
    ENTRIES[name] = entry
    if of is not None:
        INPLACE_VARIANTS[of.symbol.id] = entry.symbol.id
    return entry


def op(names: str, *, inputs=("input",), extra=(), fns=None, methods=None, inplace=True, impl=None, tags=E,
       callables=CALLABLES, **options):
    """Decorator defining the torch-level op named by the first of ``names`` from a signature
    function (see ``registry.torch_op``). It stands for ``torch.<n>`` and ``torch.Tensor.<n>``
    for every ``n`` in ``names`` (or exactly ``fns``/``methods``) plus ``extra`` callables;
    with ``inplace``, the in-place variants torch defines (``Tensor.<n>_``...) become the op
    ``<name>_``. ``tags`` are the op's traits and tags (default: elementwise, :data:`E`); the
    in-place variant gets the same traits. The callables are recorded in ``callables`` (the
    defining module's list, which its tests cover); ``options`` go to ``torch_op``."""
    names = names.split()

    def define(sig):
        found, found_methods = _callables(names)
        fns_ = [*(found if fns is None else fns), *extra]
        entry = torch_op(*fns_, inputs=inputs, method=tuple(found_methods if methods is None else methods),
                         name=names[0], impl=impl, tags=tags, **options)(sig)
        _record(callables, fns_)
        ENTRIES[names[0]] = entry
        if inplace:
            in_fns, in_methods = _callables(names, "_")
            if in_fns:
                inplace_variant(names[0] + "_", sig, inputs, in_fns, in_methods, callables=callables,
                                traits=tuple(t for t in tags if t in (ELEMENTWISE, TRANSCENDENTAL)), of=entry)
        return entry
    return define


def register_front(front, fns, methods=(), callables=CALLABLES):
    """Register ``front`` (a function taking torch's arguments and calling an op's entry) for
    torch callables whose argument forms no single signature mirrors (``Tensor.to``...)."""
    for f in fns:
        TORCH_CALLS[f] = front
    for m in methods:
        TENSOR_METHODS[m] = front
    _record(callables, fns)
    return front


def _reflectable(torch_fn, py_op):
    """``impl=`` for ops reached by reflected operators (``2 - t`` calls ``sub(2, t)``): with a
    number first, Python's operator runs it exactly as eager does."""
    def run(args, kwargs):
        a = args[0]
        if isinstance(a, torch.Tensor):  # the common case first: this runs on every call
            return torch_fn(*args, **kwargs)
        b = args[1]
        if isinstance(b, torch.Tensor) and all(k == "alpha" and v == 1 for k, v in kwargs.items()):
            return py_op(a, b)
        return torch_fn(*args, **kwargs)
    # what run does when the first argument is a tensor and no keyword is given, as a cheaper
    # callable (registry: specialize): the operator (Tensor.__mul__ is torch.mul, without the
    # torch namespace's argument parsing: ~2x less overhead per call on small tensors)
    run.tensor_first = py_op
    return run


# ---------------------------------------------------------------- unary math

def _unary_sig(name: str, kind: str):
    def unary(input):
        return _unary(name, getattr(prims, name), kind, input)
    return unary


#: (op name and aliases, promotion: "float" computes int/bool inputs in the default float dtype, extra callables,
#:  traits)
_UNARY = [
    ("abs absolute", "", (), E), ("neg negative", "", (), E), ("sign", "", (), E), ("signbit", "", (), E),
    ("floor", "", (), E), ("ceil", "", (), E), ("trunc fix", "", (), E), ("bitwise_not", "", (), E),
    ("logical_not", "", (), E), ("isnan", "", (), E), ("isinf", "", (), E), ("isfinite", "", (), E),
    ("imag", "", (), (ELEMENTWISE, VIEW)),  # (torch.imag is a view of its complex input)
    ("exp", "float", (), ET), ("exp2", "float", (special.exp2,), ET), ("expm1", "float", (special.expm1,), ET),
    ("log", "float", (), ET), ("log1p", "float", (special.log1p,), ET), ("log2", "float", (), ET),
    ("log10", "float", (), ET), ("sqrt", "float", (), ET), ("rsqrt", "float", (), ET),
    ("reciprocal", "float", (), E),
    ("sin", "float", (), ET), ("cos", "float", (), ET), ("tan", "float", (), ET), ("asin arcsin", "float", (), ET),
    ("acos arccos", "float", (), ET), ("atan arctan", "float", (), ET), ("sinh", "float", (), ET),
    ("cosh", "float", (), ET), ("tanh", "float", (nnf.tanh,), ET), ("asinh arcsinh", "float", (), ET),
    ("acosh arccosh", "float", (), ET), ("atanh arctanh", "float", (), ET),
    ("sigmoid", "float", (special.expit, nnf.sigmoid), ET),
    ("erf", "float", (special.erf,), ET), ("erfc", "float", (special.erfc,), ET),
    ("erfinv", "float", (special.erfinv,), ET),
    ("lgamma", "float", (special.gammaln,), ET), ("digamma", "float", (special.digamma, special.psi), ET),
]
for _names, _kind, _extra, _traits in _UNARY:
    op(_names, extra=_extra, tags=_traits)(_unary_sig(_names.split()[0], _kind))


@op("real", inplace=False, tags=(ELEMENTWISE, VIEW, "may-return-input"))
def real(input):
    """The real part: ``input`` itself for real tensors (as in torch), ``prims.real`` for complex."""
    return prims.real(input) if _tensor("real", input).dtype.is_complex else input


TENSOR_PROPERTIES["real"], TENSOR_PROPERTIES["imag"] = ENTRIES["real"], ENTRIES["imag"]  # `t.real` is a property


@op("positive", inplace=False, tags=(ELEMENTWISE, "may-return-input"))
def positive(input):
    """``+input``: the input itself, as in torch; bool tensors are rejected like torch does."""
    if _tensor("positive", input).dtype is torch.bool:
        raise RuntimeError("The `+` operator, on a bool tensor is not supported.")
    return input


@op("round", extra=(special.round,))
def _round(input, *, decimals=0):
    """Round half to even; with ``decimals``, ``round(x * 10**d) / 10**d`` computed as torch does."""
    if decimals == 0:
        return _unary("round", prims.round, "", input)
    if dtype_kind(input.dtype) != "f":
        raise NotImplementedError(f"round(decimals={decimals}) is only defined for floating-point tensors, got {input.dtype}.")
    x, scale = convert(input, _opmath(input.dtype)), 10.0 ** abs(decimals)
    y = prims.div(prims.round(prims.mul(x, scale)), scale) if decimals > 0 else \
        prims.mul(prims.round(prims.div(x, scale)), scale)
    return convert(y, input.dtype)


@op("frac")
def frac(input):
    """``input - trunc(input)`` (floating-point tensors)."""
    if dtype_kind(_tensor("frac", input).dtype) != "f":
        raise NotImplementedError(f"frac is only defined for floating-point tensors, got {input.dtype}.")
    return prims.sub(input, prims.trunc(input))


@op("square")
def square(input):
    """``input ** 2`` (bool tensors give int64, like torch)."""
    return T.pow(input, 2)


# ---------------------------------------------------------------- binary arithmetic, comparisons, logic

#: Binary ops whose torch functions take no Python number for ``other``.
_TENSORS_ONLY = {"atan2", "hypot", "nextafter", "maximum", "minimum", "logical_and", "logical_or", "logical_xor"}


def _binary_sig(name: str, kind: str):
    def binary(input, other):
        if name in _TENSORS_ONLY:
            _tensor(name, input), _tensor(name, other, "other")
        return _binary(name, getattr(prims, name), kind, input, other)
    return binary


#: (op name and aliases, promotion, Python operator for number-first calls from reflected operators, traits)
_BINARY = [
    ("mul multiply", "", operator.mul, E), ("floor_divide", "", operator.floordiv, E),
    ("remainder", "", operator.mod, E), ("fmod", "", None, E), ("atan2 arctan2", "float", None, ET),
    ("hypot", "", None, ET), ("copysign", "float", None, E), ("nextafter", "", None, E),
    ("maximum", "", None, E), ("minimum", "", None, E),
    ("bitwise_and", "", operator.and_, E), ("bitwise_or", "", operator.or_, E), ("bitwise_xor", "", operator.xor, E),
    ("bitwise_left_shift", "", operator.lshift, E), ("bitwise_right_shift", "", operator.rshift, E),
    ("eq", "", None, E), ("ne not_equal", "", None, E), ("lt less", "", None, E), ("le less_equal", "", None, E),
    ("gt greater", "", None, E), ("ge greater_equal", "", None, E),
    ("logical_and", "", None, E), ("logical_or", "", None, E), ("logical_xor", "", None, E),
]
for _names, _kind, _py, _traits in _BINARY:
    _n = _names.split()[0]
    op(_names, inputs=("input", "other"), impl=_reflectable(getattr(torch, _n), _py) if _py else None,
       tags=_traits)(_binary_sig(_n, _kind))


def _add_sub(name: str, prim, a, b, alpha):
    dtype = result_dtype(a, b)
    if _is(alpha, 1):
        return prim(*prepare(name, (a, b), dtype))
    if dtype_kind(dtype) in "bi" and number_type(alpha) in (float, complex):
        raise RuntimeError("For integral input tensors, argument alpha must not be a floating point number.")
    compute = _opmath(dtype)
    alpha = cast_number(alpha, compute, name)
    a, b = prepare(name, (a, b), compute)
    b = prims.mul(b, alpha) if isinstance(b, TensorProxy) else value_of(b, name) * value_of(alpha, name)
    return convert(prim(a, b), dtype)


@op("add", inputs=("input", "other", "alpha"), impl=_reflectable(torch.add, operator.add))
def add(input, other, *, alpha=1):
    """``input + alpha * other``."""
    return _add_sub("add", prims.add, input, other, alpha)


@op("sub subtract", inputs=("input", "other", "alpha"), impl=_reflectable(torch.sub, operator.sub))
def sub(input, other, *, alpha=1):
    """``input - alpha * other``."""
    return _add_sub("sub", prims.sub, input, other, alpha)


@op("rsub", inputs=("input", "other", "alpha"), fns=(torch.rsub,), methods=(), inplace=False)
def rsub(input, other, *, alpha=1):
    """``other - alpha * input``."""
    return _add_sub("rsub", prims.sub, other, input, alpha)


@op("div divide true_divide", inputs=("input", "other"), impl=_reflectable(torch.div, operator.truediv))
def div(input, other, *, rounding_mode=None):
    """True division (integers give the default float dtype), or rounded with ``rounding_mode``
    "trunc"/"floor". A number divided by a tensor is ``reciprocal(t) * number``, like eager ``2 / t``."""
    if rounding_mode is None:
        if not isinstance(input, TensorProxy):
            return _binary("div", prims.mul, "", T.reciprocal(other), input)
        return _binary("div", prims.div, "float", input, other)
    if rounding_mode == "floor":
        return _binary("div", prims.floor_divide, "", input, other)
    if rounding_mode != "trunc":
        raise RuntimeError(f"div expected rounding_mode to be one of None, 'trunc', or 'floor' but found "
                         f"{rounding_mode!r}.")
    dtype = result_dtype(input, other)
    if dtype_kind(dtype) not in "fc":
        return _binary("div", prims.div, "", input, other)  # integer division truncates
    a, b = prepare("div", (input, other), _opmath(dtype))
    return convert(prims.trunc(prims.div(a, b)), dtype)


@op("pow", inputs=("input", "exponent"), impl=_reflectable(torch.pow, operator.pow), tags=ET)
def _pow(input, exponent):
    """``input ** exponent``."""
    known = exponent.value if isinstance(exponent, NumberProxy) else exponent
    if dtype_kind(result_dtype(input, exponent)) in "bi" and number_type(exponent) is int and known is not None \
            and known < 0:
        raise RuntimeError("Integers to negative integer powers are not allowed.")
    return _binary("pow", prims.pow, "", input, exponent)


@op("float_power", inputs=("input", "exponent"), tags=ET)
def float_power(input, exponent):
    """``input ** exponent`` computed in float64 (complex128 if either is complex)."""
    complex_ = any(number_type(x) is complex or (isinstance(x, TensorProxy) and x.dtype.is_complex)
                   for x in (input, exponent))
    return prims.pow(*prepare("float_power", (input, exponent), torch.complex128 if complex_ else torch.float64))


# ---------------------------------------------------------------- selection, clamping, fused arithmetic

@op("where", inputs=("condition", "input", "other"), fns=(torch.where,), methods=(), inplace=False)
def where(condition, input=None, other=None):
    """``input`` where ``condition`` holds, else ``other`` (tensors or numbers, broadcast)."""
    if input is None or other is None:
        raise NotImplementedError("torch.where(condition) with only a condition returns the indices of its true "
                                  "elements, whose number depends on tensor values unknown while tracing. Use "
                                  "torch.where(condition, input, other), or torch.nonzero outside the jitted function.")
    if not isinstance(condition, TensorProxy) or condition.dtype is not torch.bool:
        raise RuntimeError(f"where expected condition to be a bool tensor, got {condition!r}: compare it (`mask != 0`) "
                        f"or convert it with .bool().")
    dtype = result_dtype(input, other)
    cond, a, b = prepare("where", (condition, convert(input, dtype), convert(other, dtype)))
    if not isinstance(a, TensorProxy) and not isinstance(b, TensorProxy):
        # prims.where needs a tensor branch: make one holding `b` wherever the condition is false
        b = prims.where(cond, prims.convert_element_type(cond, dtype=dtype), b)
    return prims.where(cond, a, b)


def _where_method(self, condition, y):
    """``Tensor.where(condition, y)`` is ``torch.where(condition, self, y)``."""
    return where(condition, self, y)


_where_method.__name__ = "where"
register_front(_where_method, [torch.Tensor.where], ["where"])


@op("clamp clip", inputs=("input", "min", "max"))
def clamp(input, min=None, max=None):
    """``minimum(maximum(input, min), max)``: NaN stays NaN; with ``min > max`` the result is ``max``."""
    if min is None and max is None:
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
    x, lo, hi = prepare("clamp", (_tensor("clamp", input), min, max), result_dtype(input, min, max))
    x = x if lo is None else prims.maximum(x, lo)
    return x if hi is None else prims.minimum(x, hi)


def _clamp_bound(target, bound: str, suffix: str):
    """``clamp_min``/``clamp_max`` (and in-place forms): ``clamp`` with one bound."""
    if bound == "min":
        def front(input, min):
            return target(input, min=min)
    else:
        def front(input, max):
            return target(input, max=max)
    front.__name__ = f"clamp_{bound}{suffix}"
    return front


for _bound in ("min", "max"):
    for _suffix in ("", "_"):
        _front = _clamp_bound(ENTRIES["clamp" + _suffix], _bound, _suffix)
        register_front(_front, *_callables([f"clamp_{_bound}"], _suffix))


@op("masked_fill", inputs=("input", "mask", "value"))
def masked_fill(input, mask, value):
    """``value`` where ``mask`` holds, else ``input``; ``value`` (a number or 0-dim tensor) is
    cast to ``input``'s dtype."""
    if not isinstance(mask, TensorProxy) or mask.dtype is not torch.bool:
        raise RuntimeError(f"masked_fill only supports boolean masks, but got {mask!r}.")
    if isinstance(value, TensorProxy):
        if value.ndim:
            raise RuntimeError(f"masked_fill only supports a 0-dimensional value tensor, but got {value.name} with "
                             f"{value.ndim} dimension(s).")
        value = convert(value, input.dtype)
    else:
        value = cast_number(value, input.dtype, "masked_fill")
    m, x, v = prepare("masked_fill", (mask, _tensor("masked_fill", input), value))
    return prims.where(m, v, x)


@op("lerp", inputs=("input", "end", "weight"))
def lerp(input, end, weight):
    """``input + weight * (end - input)``, in torch's two-sided form (exact at both ends)."""
    dtype = _tensor("lerp", input).dtype
    if _tensor("lerp", end, "end").dtype != dtype:
        raise RuntimeError(f"lerp expects `input` and `end` of one dtype, got {dtype} and {end.dtype}.")
    if dtype_kind(dtype) not in "fc":
        raise NotImplementedError(f"lerp is only defined for floating-point and complex tensors, got {dtype}.")
    x, e, w = prepare("lerp", (input, end, weight), _opmath(dtype))
    diff = prims.sub(e, x)
    if isinstance(w, TensorProxy):
        small = prims.lt(prims.abs(w), 0.5)
        out = prims.where(small, prims.add(x, prims.mul(w, diff)), prims.sub(e, prims.mul(diff, prims.sub(1, w))))
    else:
        wv = value_of(w, "lerp")
        out = prims.add(x, prims.mul(diff, wv)) if abs(wv) < 0.5 else prims.sub(e, prims.mul(diff, 1 - wv))
    return convert(out, dtype)


def _addc(name: str, prim, input, tensor1, tensor2, value):
    dtype = result_dtype(_tensor(name, input), _tensor(name, tensor1, "tensor1"), _tensor(name, tensor2, "tensor2"))
    value = cast_number(value, dtype, name)
    x, t1, t2 = prepare(name, (input, tensor1, tensor2), _opmath(dtype))
    t1 = t1 if _is(value, 1) else prims.mul(t1, value)
    return convert(prims.add(x, prim(t1, t2)), dtype)


@op("addcmul", inputs=("input", "tensor1", "tensor2", "value"))
def addcmul(input, tensor1, tensor2, *, value=1):
    """``input + value * tensor1 * tensor2``."""
    return _addc("addcmul", prims.mul, input, tensor1, tensor2, value)


@op("addcdiv", inputs=("input", "tensor1", "tensor2", "value"))
def addcdiv(input, tensor1, tensor2, *, value=1):
    """``input + value * tensor1 / tensor2`` (integer ``tensor1``/``tensor2`` are rejected, like torch)."""
    if all(isinstance(t, TensorProxy) and dtype_kind(t.dtype) in "bi" for t in (tensor1, tensor2)):
        raise RuntimeError("Integer division with addcdiv is no longer supported: use (input + value * torch.trunc("
                        "tensor1 / tensor2)).to(input.dtype) for the old behavior, or float tensors.")
    return _addc("addcdiv", prims.div, input, tensor1, tensor2, value)


@op("nan_to_num", inputs=("input", "nan", "posinf", "neginf"))
def nan_to_num(input, nan=0.0, posinf=None, neginf=None):
    """NaN, +inf and -inf replaced by ``nan``, ``posinf`` and ``neginf`` (default: the dtype's
    largest and lowest finite values); integer and bool tensors are copied."""
    kind = dtype_kind(_tensor("nan_to_num", input).dtype)
    if kind in "bi":
        return prims.convert_element_type(input, dtype=input.dtype)
    if kind == "c":
        raise NotImplementedError("nan_to_num of complex tensors has no decomposition yet (it needs a prim building "
                                  "complex numbers); call it outside the jitted function.")
    info = torch.finfo(input.dtype)
    posinf, neginf = info.max if posinf is None else posinf, info.min if neginf is None else neginf
    out = prims.where(prims.eq(input, float("-inf")), neginf, input)
    out = prims.where(prims.eq(input, float("inf")), posinf, out)
    return prims.where(prims.isnan(input), nan, out)


del _names, _kind, _extra, _py, _n, _bound, _suffix, _front, _traits
