"""Hypothesis strategies drawing calls of a symbol from its signature and traits.

What is drawn:

* shapes: rank 0 to 6, dims from ``{0, 1, 2, 3, 5, 7}`` (size-1, 0-size, ragged), at most
  ``MAX_NUMEL`` elements;
* other tensor inputs of an elementwise symbol: shapes that broadcast against the first one
  (a suffix, dims set to 1);
* dtypes: from ``DTYPES`` (the executor's checker decides what it accepts), sometimes a second
  dtype for type promotion; parameters named ``condition``/``mask`` are bool;
* layouts: contiguous, transposed, expanded, offset and strided views (``cases.TensorSpec``);
* values: a seeded normal draw at a drawn scale (1, tiny, huge), with special values (nan,
  +-inf, -0.0, the dtype's largest and smallest normal) at drawn positions;
* number arguments in place of a tensor (``other``, ``exponent``...) and for optional number
  inputs (``alpha``), specials included;
* statics: ``dim`` (an int in range, a tuple of them, or None where allowed) and ``keepdim``;
  other static parameters keep their defaults (a symbol with another *required* static
  parameter is left to the OpInfo samples: :func:`supported` says why);
* view and shape symbols (``reshape``, ``permute``, ``expand``, ``split``, ``cat``, ``narrow``,
  ``flip``, ``roll``, ``diagonal``...): their static arguments drawn to fit the input shape
  (``shape_statics.py``: reshape and expansion targets, permutations, split sizes summing
  to the dim, indices in range), list inputs (``cat``'s tensors) as one to three tensors of
  the drawn shape.

The meta function and eager PyTorch judge a draw: one that eager rejects (shape mismatch,
an op undefined for the dtype) is not an example (``hypothesis.reject``).
"""

from __future__ import annotations

import inspect
import math

import torch
from hypothesis import strategies as st

from .cases import LAYOUTS, ChainCase, Case, TensorSpec
from .shape_statics import OTHER_SHAPES, SEQUENCE_INPUTS, SWEEP_SHAPE, entry, fixed_call, order

DTYPES = (torch.float32, torch.float64, torch.float16, torch.bfloat16, torch.int64, torch.int32, torch.bool)
FLOAT_DTYPES = (torch.float32, torch.float64)
DIMS = (1, 2, 0, 3, 5, 7)  # in shrinking order: minimal examples prefer size 1
MAX_NUMEL = 512
#: statics the strategy knows how to draw
KNOWN_STATICS = {"dim", "keepdim"}
#: input parameters that take a bool tensor
BOOL_INPUTS = {"condition", "mask"}
#: traits whose symbols are drawn from their signature (others: OpInfo samples only)
DRAWN_TRAITS = {"elementwise", "reduction", "view", "shape"}
EXCLUDED_TRAITS = {"inplace", "random", "creation"}


def supported(opdef) -> str | None:
    """None when calls of ``opdef``'s symbol can be drawn here, else why not."""
    from thunder_core.ir.traits import traits

    t = traits(opdef.symbol)
    if not t & DRAWN_TRAITS or t & EXCLUDED_TRAITS:
        return f"traits {sorted(t)}: drawn only for {sorted(DRAWN_TRAITS)} without {sorted(EXCLUDED_TRAITS)}"
    sid, shaped = opdef.symbol.id, is_shape_op(opdef)
    if opdef.varargs is not None and not (shaped and (opdef.varargs in SEQUENCE_INPUTS or entry(sid, opdef.varargs))):
        return "takes *args"
    empty = inspect.Parameter.empty
    for name, p in opdef.signature.parameters.items():
        if name not in opdef.inputs and p.default is empty and p.kind is not p.VAR_POSITIONAL and \
                name not in KNOWN_STATICS and not (shaped and entry(sid, name)):
            return f"required static parameter {name!r}"
        if name in opdef.inputs[1:] and shaped and p.default is empty and \
                name not in SEQUENCE_INPUTS and not (name == "other" and sid in OTHER_SHAPES):
            return f"required tensor input {name!r} (its shape must fit the first's)"
        if p.kind is p.VAR_KEYWORD:
            return "takes **kwargs"
    if not opdef.inputs:
        return "no inputs"
    return None


def is_shape_op(opdef) -> bool:
    """A view or shape symbol (not also elementwise or a reduction): its statics are drawn
    from ``shape_statics``."""
    from thunder_core.ir.traits import traits

    t = traits(opdef.symbol)
    return bool(t & {"view", "shape"}) and not t & {"elementwise", "reduction"}


@st.composite
def shapes(draw, min_rank=0, max_rank=6):
    rank = draw(st.integers(min_rank, max_rank))
    shape = []
    for _ in range(rank):
        shape.append(draw(st.sampled_from(DIMS)))
        if math.prod(shape) > MAX_NUMEL:
            shape[-1] = 1
    return tuple(shape)


@st.composite
def broadcast_shapes(draw, shape):
    """A shape broadcasting against ``shape``: a suffix of it with some dims set to 1."""
    k = draw(st.integers(0, len(shape)))
    out = list(shape[len(shape) - k:])
    for i in range(len(out)):
        if draw(st.integers(0, 3)) == 3:
            out[i] = 1
    return tuple(out)


def specials_for(dtype, reduction=False):
    """Special values of ``dtype``. For a reduction, not the huge finite ones: a sum of
    +huge, -huge and 1 depends on the order of summation (0 or 1), which no executor owes eager."""
    if dtype.is_floating_point:
        fi = torch.finfo(dtype)
        if reduction:
            return [math.nan, math.inf, -math.inf, -0.0, 0.0, fi.tiny, 1.0]
        return [math.nan, math.inf, -math.inf, -0.0, 0.0, fi.max / 2, -fi.max / 2, fi.tiny, 1.0]
    if dtype == torch.bool:
        return [True, False]
    ii = torch.iinfo(dtype)
    return [0, 1, -1, ii.max, ii.min]


@st.composite
def tensors(draw, shape, dtype, reduction=False):
    n = math.prod(shape)
    seed = draw(st.integers(0, 2**16))
    scale = draw(st.sampled_from([1.0, 1e-3, 1e3])) if dtype.is_floating_point else 1.0
    specials = ()
    if n and draw(st.integers(0, 2)) == 2:
        specials = tuple(draw(st.lists(st.tuples(st.integers(0, n - 1), st.sampled_from(specials_for(dtype, reduction))),
                                       min_size=1, max_size=3)))
    layouts = [lay for lay in LAYOUTS if lay != "transposed" or len(shape) >= 2]
    layout = draw(st.sampled_from(layouts)) if shape else "contiguous"
    return TensorSpec(tuple(shape), dtype, seed, scale, specials, layout)


def numbers(dtype):
    if dtype == torch.bool:
        return st.booleans()
    if dtype.is_floating_point:
        return st.one_of(st.sampled_from([0.5, -2.0, 3.0, 0.0, -0.0, math.nan, math.inf, -math.inf, 1e30, 1e-30]),
                         st.integers(-3, 3))
    return st.integers(-3, 3)


@st.composite
def dims(draw, rank, param):
    """A ``dim`` argument for a tensor of ``rank``."""
    allow_none = param.default is None
    lo, hi = (-rank, rank - 1) if rank else (-1, 0)
    choices = [st.integers(lo, hi)]
    if allow_none:
        choices.append(st.none())
    if rank >= 2 and param.default is not inspect.Parameter.empty:
        choices.append(st.lists(st.integers(0, rank - 1), min_size=1, max_size=rank, unique=True).map(tuple))
    return draw(st.one_of(*choices))


@st.composite
def calls(draw, opdef, dtypes=DTYPES, partner=None):
    """A :class:`Case` calling ``opdef``'s symbol (see the module docstring)."""
    from thunder_core.ir.traits import has_trait

    params = opdef.signature.parameters
    empty = inspect.Parameter.empty
    sid = opdef.symbol.id
    shape = draw(shapes())
    dtype = draw(st.sampled_from(dtypes))
    elementwise = has_trait(opdef.symbol, "elementwise")
    reduction = has_trait(opdef.symbol, "reduction") or partner == "sum"
    shaped = is_shape_op(opdef)
    inputs = []
    for k, name in enumerate(opdef.inputs):
        p = params[name]
        d = torch.bool if name in BOOL_INPUTS else dtype
        if shaped and name in SEQUENCE_INPUTS:
            specs = [draw(tensors(shape, dtype)) for _ in range(draw(st.integers(1, 3)))]
            inputs.append(tuple(specs) if name == opdef.varargs else specs)
            continue
        if shaped and name == "other" and sid in OTHER_SHAPES:
            inputs.append(draw(tensors(draw(OTHER_SHAPES[sid][0](shape, {})), dtype)))
            continue
        if k > 0 and draw(st.integers(0, 6)) == 6:
            d = draw(st.sampled_from(dtypes))  # another dtype: type promotion
        if k == 0 or p.default is empty or (p.default is None and draw(st.booleans())):
            s = draw(broadcast_shapes(shape)) if k > 0 and elementwise else shape
            if k > 0 and name not in BOOL_INPUTS and draw(st.integers(0, 3)) == 3:
                inputs.append(draw(numbers(d)))
            else:
                inputs.append(draw(tensors(s, d, reduction)))
        elif p.default is not None and isinstance(p.default, (int, float)) and draw(st.integers(0, 2)) == 2:
            inputs.append(draw(numbers(d)))
        else:
            inputs.append(p.default if p.default is not empty else None)
    while len(inputs) > opdef.required_inputs and inputs[-1] is (params[opdef.inputs[len(inputs) - 1]].default):
        inputs.pop()
    statics = {}
    if shaped:
        for name in order([n for n in params if n not in opdef.inputs]):
            e, p = entry(sid, name), params[name]
            if e is not None and (p.default is empty or name == opdef.varargs or draw(st.booleans())):
                statics[name] = draw(e[0](shape, statics))
    for name, p in params.items():
        if name in opdef.inputs or shaped:
            continue
        if name == "dim" and (p.default is empty or draw(st.booleans())):
            statics["dim"] = draw(dims(len(shape), p))
        elif name == "keepdim" and draw(st.booleans()):
            statics["keepdim"] = True
    grad = dtype in FLOAT_DTYPES and draw(st.integers(0, 2)) == 2
    return Case(opdef.symbol.id, tuple(inputs), statics, partner, grad)


def chain_symbols(opdefs):
    """Symbols a fusion chain may use: elementwise, taking one or two tensors, nothing required
    besides."""
    out = []
    for opdef in opdefs:
        if supported(opdef) is not None or opdef.symbol.tags & {"reduction"}:
            continue
        from thunder_core.ir.traits import has_trait

        if not has_trait(opdef.symbol, "elementwise"):
            continue
        req = opdef.required_inputs
        from .cases import torch_function

        if req in (1, 2) and torch_function(opdef.symbol.id) is not None and not any(n in BOOL_INPUTS for n in opdef.inputs[:req]):
            out.append((opdef.symbol.id, req))
    return out


@st.composite
def chains(draw, symbols, dtypes=FLOAT_DTYPES):
    """A :class:`ChainCase` of 2 to 5 steps over ``symbols`` ([(id, arity)]), whose second
    operands are often inputs broadcasting against the chain's value."""
    shape = draw(shapes(min_rank=1, max_rank=4))
    dtype = draw(st.sampled_from(dtypes))
    inputs = [draw(tensors(shape, dtype))]
    steps = []
    for k in range(draw(st.integers(2, 5))):
        sid, arity = draw(st.sampled_from(symbols))
        operand = None
        if arity == 2:
            kind = draw(st.sampled_from(["broadcast", "broadcast", "input", "number", "earlier"]))
            if kind == "number":
                operand = draw(st.sampled_from([0.5, 2.0, -1.0, 3]))
            elif kind == "earlier" and k >= 2:
                operand = f"v{draw(st.integers(0, k - 2))}"
            else:
                s = draw(broadcast_shapes(shape)) if kind == "broadcast" else shape
                inputs.append(draw(tensors(s, dtype)))
                operand = f"t{len(inputs) - 1}"
        steps.append((sid, operand))
    grad = draw(st.integers(0, 3)) == 3
    return ChainCase(tuple(steps), tuple(inputs), grad)


def dtype_sweep(opdef, dtypes=DTYPES, partner=None):
    """One explicit example per dtype, run before the search (so every dtype is tried whatever
    the search draws): shape (2, 3), the dtype's extreme values first (its largest and smallest
    values, nan and inf for floats), every tensor input of that dtype."""
    import inspect

    empty = inspect.Parameter.empty
    params = opdef.signature.parameters
    from thunder_core.ir.traits import has_trait

    reduction = has_trait(opdef.symbol, "reduction") or partner == "sum"
    sid, shaped = opdef.symbol.id, is_shape_op(opdef)
    out = []
    for dtype in dtypes:
        ext = specials_for(dtype, reduction)
        specials = tuple(enumerate(ext[3:] + ext[:3]))[:6]
        def make(k, name, shape, dtype=dtype, specials=specials):
            d = torch.bool if name in BOOL_INPUTS else dtype
            three = True if d == torch.bool else 3  # the others: 3 (True) where the first has its extremes
            return TensorSpec(shape, d, seed=k, specials=specials if k == 0 and d == dtype
                              else tuple((i, three) for i in range(3)))

        if shaped:  # list inputs, `other` and the required statics at fixed values valid for SWEEP_SHAPE
            inputs, statics = fixed_call(opdef, make)
        else:
            inputs = tuple(make(k, name, SWEEP_SHAPE)
                           for k, name in enumerate(opdef.inputs[:max(opdef.required_inputs, 1)]))
            statics = {n: 0 for n, p in params.items() if n not in opdef.inputs and p.default is empty and n == "dim"}
        out.append(Case(sid, tuple(inputs), statics, partner))
    return out
