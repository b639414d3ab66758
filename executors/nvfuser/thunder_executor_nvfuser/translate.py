"""A region as nvFuser operations: its symbols inlined down to primitives, each emitted from
the translation table (:mod:`.ops`).

:func:`translate` walks ``region.bsyms`` in order, and each one's decomposition recursively
(``bsym.subsymbols``) down to the symbols :data:`.ops.TRANSLATIONS` knows (primitives, and
``ltorch.contiguous``); every other leaf makes the region untranslatable, with the path to it
in the reason. Operations go to a *builder*:

* :class:`Recorder` only records them (no nvFuser needed): the checker and the claim
  function use it to decide what nvFuser can take, and tests read its steps;
* ``definition.FdBuilder`` calls ``fd.ops.*`` on a real ``FusionDefinition``.

Inputs are the region's inputs in order (tensors with their :class:`.layout.Layout`,
symbolic numbers as scalar inputs); outputs are ``region.outputs`` in order. Every
primitive's result is cast to the dtype the trace declares when nvFuser inferred another
(a builder that cannot tell, the recorder, records nothing).

**Symbolic sizes** (``cache="symbolic values"``, the default). Tensor inputs have symbolic
extents anyway (``-1``); a symbolic number an operation needs (a shape of ``reshape``,
``broadcast_in_dim`` or ``full``, a slice bound, a pad width, ``iota``'s length, a mean's
divisor) is a scalar of the definition: a region input, or else an *extra* scalar input,
defined where first used, whose value the launcher computes on each call from the region's
inputs (``thunder_core.extend.RegionNumbers``). The number primitives (``prims.py_*``) that
compute such numbers in the trace are host computations and are not emitted. One definition
serves every size; nvFuser compiles kernels per input sizes behind its own cache.
"""

from __future__ import annotations

from thunder_core.extend import NumberProxy, Proxy, Region, RegionNumbers, TensorProxy

from . import layout as layouts
import torch

from .dtypes import DTYPES, scalar_type, short
from .ops import TRANSLATIONS, Unsupported

DEVICE_TYPE = "cuda"


def leaves(bsym, path=()):
    """``(bsym, path)`` for each symbol ``bsym`` runs that has a translation (its decomposition,
    recursively); raises :class:`Unsupported` for a leaf without one."""
    sid = bsym.sym.id
    if sid in TRANSLATIONS:
        yield bsym, path
        return
    if sid.startswith("prims.py_"):
        return  # a number computed on the host: it reaches the definition as a scalar input
    if not bsym.subsymbols:
        outs, args = bsym.flat_outs, [a for a in bsym.flat_args if isinstance(a, Proxy)]
        if len(outs) == 1 and args and outs[0].name == args[0].name:
            return  # returns its input unchanged (``to`` the same dtype): nothing to emit
        where = f" (in {' > '.join(path)})" if path else ""
        raise Unsupported(f"no nvFuser translation for {sid}{where}")
    for s in bsym.subsymbols:
        yield from leaves(s, (*path, sid))


def check_tensor(p) -> str | None:
    """None, or why a fusion cannot take the tensor ``p``."""
    if p.device.type != DEVICE_TYPE:
        return f"nvFuser runs fusions on CUDA tensors, not {p.device.type} ({p.name})"
    if p.dtype not in DTYPES:
        return (f"nvFuser fusions here take float32/16, bfloat16, float64, int64/32 and bool tensors, not "
                f"{short(p.dtype)} ({p.name})")
    return None


class Recorded:
    """A value the recorder made: ``v<k>``, the k-th step."""

    __slots__ = ("k",)

    def __init__(self, k: int):
        self.k = k

    def __str__(self):
        return f"v{self.k}"


class Recorder:
    """A builder that records operations as text, without nvFuser."""

    def __init__(self):
        self.steps: list[str] = []

    def _new(self, text: str) -> Recorded:
        self.steps.append(f"v{len(self.steps)} = {text}")
        return Recorded(len(self.steps) - 1)

    def tensor(self, p, layout):
        return self._new(f"tensor({short(p.dtype)}, shape={list(layout.shape)}, contiguity={list(layout.contiguity)}, "
                         f"stride_order={list(layout.stride_order)})")

    def scalar_input(self, p):
        return self._new(f"scalar({scalar_type(p.python_type)})")

    def const(self, value, type_name):
        return self._new(f"const({value!r}, {type_name})")

    def datatype(self, name):
        return f"DataType.{name}"

    def op(self, name, *args, **kwargs):
        text = ", ".join([*(self._text(a) for a in args), *(f"{k}={self._text(v)}" for k, v in kwargs.items())])
        return self._new(f"{name}({text})")

    def _text(self, a):
        if isinstance(a, list):
            return "[" + ", ".join(self._text(x) for x in a) + "]"
        return str(a)

    def ensure(self, v, dtype_name):
        return v  # the recorder does not infer dtypes

    def cast(self, v, dtype_name):
        return self._new(f"cast({v}, DataType.{dtype_name})")

    def output(self, v):
        self.steps.append(f"output({v})")


class Emitter:
    """What the translation table's entries call: operands, operations, casts."""

    def __init__(self, builder, numbers=None):
        self.builder = builder
        self.env: dict = {}  # proxy name -> builder value
        self.numbers = numbers  # the region's RegionNumbers (symbolic numbers computed per call)
        self.extra: list = []  # indices into numbers.symbols of the extra scalar inputs, in order

    def value(self, x, like=None):
        """The builder value of a proxy, or a constant scalar for a Python number (of the
        scalar type of ``like``, a proxy or dtype, when given; else of the number's type). A
        symbolic number the region does not take as an input becomes an extra scalar input."""
        if isinstance(x, Proxy):
            if x.name not in self.env:
                if type(x) is NumberProxy and self.numbers is not None and x.symbolic:
                    return self._extra(x)
                raise Unsupported(f"{x.name} is used before the region computes it")
            return self.env[x.name]
        if isinstance(x, (bool, int, float)):
            kind = like.dtype if isinstance(like, TensorProxy) else like
            return self.builder.const(x, scalar_type(kind if kind is not None else x))
        raise Unsupported(f"a {type(x).__name__} operand ({x!r})")

    def _extra(self, p):
        k = next((i for i, q in enumerate(self.numbers.symbols) if q is p), None)
        if k is None or self.numbers.getter(p) is None:
            raise Unsupported(f"the symbolic number {p.name} cannot be computed from the region's inputs")
        v = self.env[p.name] = self.builder.scalar_input(p)
        self.extra.append(k)
        return v

    def size(self, x):
        """A size in a shape, bound or width: an int, or the scalar of a symbolic number."""
        if isinstance(x, bool) or not isinstance(x, (int, NumberProxy)):
            raise Unsupported(f"the size {x!r} is not an int")
        if type(x) is NumberProxy:
            return x.value if x.value is not None else self.value(x)
        return int(x)

    def add(self, a, b, sign=1):
        """``a + sign * b`` of sizes (ints, or scalars of the definition)."""
        if isinstance(a, int) and isinstance(b, int):
            return a + sign * b
        a, b = (self.value(x, like=torch.int64) if isinstance(x, int) else x for x in (a, b))
        return self.op("add" if sign > 0 else "sub", a, b)

    def op(self, name, *args, **kwargs):
        return self.builder.op(name, *args, **kwargs)

    def cast(self, v, dtype):
        if dtype not in DTYPES:
            raise Unsupported(f"a conversion to {short(dtype)}")
        return self.builder.cast(v, DTYPES[dtype])

    def dtype(self, dtype):
        if dtype not in DTYPES:
            raise Unsupported(f"a {short(dtype)} result")
        return self.builder.datatype(DTYPES[dtype])


def translate(region, builder, input_layouts=None) -> list:
    """Emit ``region`` to ``builder``; raises :class:`Unsupported` with the reason. Returns
    the extra scalar inputs it defined after the region's (indices into
    ``RegionNumbers(region).symbols``: the launcher passes their values on each call)."""
    em = Emitter(builder, RegionNumbers(region))
    inputs = set()
    for k, p in enumerate(region.inputs):
        if isinstance(p, TensorProxy):
            reason = check_tensor(p)
            if reason:
                raise Unsupported(reason)
            lay = input_layouts[k] if input_layouts is not None else layouts.contiguous(p.shape)
            em.env[p.name] = builder.tensor(p, lay)
        elif isinstance(p, NumberProxy) and p.python_type in (bool, int, float):
            em.env[p.name] = builder.scalar_input(p)
        else:
            raise Unsupported(f"the input {getattr(p, 'name', p)!r} is neither a tensor nor a real number")
        inputs.add(id(em.env[p.name]))
    for top in region.bsyms:
        for b, path in leaves(top):
            outs = b.flat_outs
            if len(outs) != 1 or not isinstance(outs[0], TensorProxy):
                raise Unsupported(f"{b.sym.id} does not make one tensor")
            out = outs[0]
            reason = check_tensor(out)
            if reason:
                raise Unsupported(reason)
            v = TRANSLATIONS[b.sym.id](em, b)
            em.env[out.name] = builder.ensure(v, DTYPES[out.dtype])
    written: dict = {}  # id -> value (kept alive, so ids stay unique)
    for p in region.outputs:
        if not isinstance(p, TensorProxy):
            raise Unsupported(f"the output {p.name} is not a tensor")
        v = em.value(p)
        if id(v) in inputs or id(v) in written:  # an input, or a value already written: a copy
            v = builder.op("set", v)
        written[id(v)] = v
        builder.output(v)
    return em.extra


def check_region(region) -> str | None:
    """None if ``region`` translates (recorded, no nvFuser needed), else the reason."""
    try:
        translate(region, Recorder())
    except Unsupported as e:
        return str(e)
    return None


def symbol_region(bsym) -> Region:
    """``bsym`` alone as a region: its proxies in, its outputs out."""
    seen, inputs = set(), []
    for p in bsym.flat_args:
        if isinstance(p, Proxy) and id(p) not in seen:
            seen.add(id(p))
            inputs.append(p)
    return Region((bsym,), tuple(inputs), tuple(p for p in bsym.flat_outs if isinstance(p, Proxy)))
