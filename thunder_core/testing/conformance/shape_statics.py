"""Static arguments of view and shape symbols, drawn to fit the drawn input shape.

A view or shape op is only interesting with its static arguments: ``reshape`` needs a target
of as many elements, ``permute`` a permutation, ``split`` sizes that sum to the dim, ``narrow``
a start and length in range. :data:`STATICS` maps a parameter name to (a hypothesis strategy
built from the input shape and the statics drawn before it, a fixed value valid for the
dtype sweep's (2, 3) inputs); :data:`OVERRIDES` gives the symbols whose parameter of a common
name means something else (``view_copy``'s ``size`` is a reshape target, ``expand``'s an
expansion; ``permute``'s ``dims`` a permutation, ``flip``'s a set). ``dim`` is drawn first,
so sizes along it can depend on it. Draws stay small and mostly valid; eager PyTorch judges
each one, and one it rejects is not an example.

:data:`SEQUENCE_INPUTS` draws the tensors of a list input (``cat``'s ``tensors``): one to
three tensors of the drawn shape; :data:`OTHER_SHAPES` the second tensor of ``view_as``-like
symbols.
"""

from __future__ import annotations

import inspect
import math

from hypothesis import strategies as st

#: the fixed input shape of the dtype sweep (strategies.dtype_sweep) and the claim probes
SWEEP_SHAPE = (2, 3)
#: symbol id -> its fixed input shape where (2, 3) is not a valid input
SWEEP_SHAPES = {"ltorch.cartesian_prod": (3,), "ltorch.meshgrid": (3,), "ltorch.channel_shuffle": (1, 4, 2),
                "ltorch.dsplit": (1, 2, 4), "ltorch.pixel_shuffle": (1, 4, 2, 3), "ltorch.pixel_unshuffle": (1, 1, 4, 6)}


def _rank(shape):
    return len(shape)


def _dim_range(shape, extra=0):
    n = len(shape) + extra
    return (-n, n - 1) if n else (-1, 0)


def dim(shape, drawn, extra=0):
    lo, hi = _dim_range(shape, extra)
    return st.integers(lo, hi)


def _size_along(shape, drawn):
    """The size of the dim ``dim`` (drawn before, or 0 by default) of ``shape``."""
    if not shape:
        return 1
    d = drawn.get("dim", 0)
    d = d if isinstance(d, int) else 0
    return shape[d % len(shape)] if -len(shape) <= d < len(shape) else shape[0]


@st.composite
def permutation(draw, shape, drawn):
    return tuple(draw(st.permutations(list(range(len(shape))))))


@st.composite
def dim_set(draw, shape, drawn):
    n = len(shape)
    if not n:
        return ()
    dims = draw(st.lists(st.integers(0, n - 1), max_size=n, unique=True))
    return tuple(d - n if draw(st.booleans()) else d for d in dims)


@st.composite
def reshape_target(draw, shape, drawn, wildcard=True):
    """A shape of as many elements: the sizes in another order, adjacent ones merged, size-1
    dims inserted, sometimes one entry -1 (``wildcard``)."""
    sizes = list(draw(st.permutations(list(shape)))) if shape else []
    out = []
    for s in sizes:
        if out and draw(st.integers(0, 2)) == 2:
            out[-1] *= s
        else:
            out.append(s)
    for _ in range(draw(st.integers(0, 2))):
        out.insert(draw(st.integers(0, len(out))), 1)
    if wildcard and out and math.prod(shape) and draw(st.integers(0, 3)) == 3:
        out[draw(st.integers(0, len(out) - 1))] = -1
    return tuple(out)


@st.composite
def expand_target(draw, shape, drawn, wildcard=True):
    """A shape ``shape`` broadcasts to: new leading dims, size-1 dims grown, -1 to keep a size
    (``wildcard``)."""
    keep = (-1,) if wildcard else ()
    lead = draw(st.lists(st.sampled_from((1, 2, 3)), max_size=2))
    out = [draw(st.sampled_from((1, 2, 3, *keep))) if s == 1 else draw(st.sampled_from((s, *keep))) for s in shape]
    return (*lead, *out)


@st.composite
def split_sizes(draw, shape, drawn):
    """Sizes summing to the size along ``dim``."""
    n = _size_along(shape, drawn)
    cuts = sorted(draw(st.lists(st.integers(0, n), max_size=3)))
    bounds = [0, *cuts, n]
    return tuple(b - a for a, b in zip(bounds, bounds[1:]))


@st.composite
def split_size_or_sizes(draw, shape, drawn):
    n = _size_along(shape, drawn)
    return draw(st.one_of(st.integers(1, max(n, 1)), split_sizes(shape, drawn)))


@st.composite
def sections_or_indices(draw, shape, drawn):
    n = _size_along(shape, drawn)
    return draw(st.one_of(st.integers(1, 3), st.lists(st.integers(0, n), max_size=3).map(sorted).map(tuple)))


@st.composite
def index_along(draw, shape, drawn):
    n = _size_along(shape, drawn)
    return draw(st.integers(-n, n - 1)) if n else 0


@st.composite
def narrow_start(draw, shape, drawn):
    return draw(st.integers(0, _size_along(shape, drawn)))


@st.composite
def narrow_length(draw, shape, drawn):
    return draw(st.integers(0, max(_size_along(shape, drawn) - drawn.get("start", 0), 0)))


@st.composite
def unflatten_sizes(draw, shape, drawn):
    n = _size_along(shape, drawn)
    return draw(st.sampled_from(((n,), (1, n), (n, 1), (-1, 1), (1, -1, 1))))


@st.composite
def shifts(draw, shape, drawn):
    dims = drawn.get("dims")
    if isinstance(dims, tuple) and dims:
        return tuple(draw(st.integers(-4, 4)) for _ in dims)
    return draw(st.integers(-4, 4))


@st.composite
def repeats(draw, shape, drawn):
    extra = draw(st.integers(0, 2))
    return tuple(draw(st.integers(0, 2)) for _ in range(len(shape) + extra))


@st.composite
def pad_amounts(draw, shape, drawn):
    k = draw(st.integers(0, len(shape)))
    return tuple(draw(st.integers(-1, 2)) for _ in range(2 * k))


@st.composite
def two_dims(draw, shape, drawn):
    n = len(shape)
    if n < 2:
        return (0, 1)
    a, b = draw(st.lists(st.integers(0, n - 1), min_size=2, max_size=2, unique=True))
    return (a, b)


def small(lo, hi):
    return lambda shape, drawn: st.integers(lo, hi)


#: parameter name -> (strategy(shape, statics drawn so far), fixed value for SWEEP_SHAPE)
STATICS = {
    "dim": (dim, 1),
    "dim0": (dim, 0), "dim1": (dim, 1), "dim2": (dim, 0), "axis0": (dim, 0), "axis1": (dim, 1),
    "start_dim": (dim, 0), "end_dim": (dim, -1), "dimension": (dim, 1),
    "source": (dim, 0), "destination": (dim, -1),
    "dims": (dim_set, (1, 0)),
    "shape": (reshape_target, (3, 2)),
    "size": (expand_target, (4, 2, 3)),
    "sizes": (unflatten_sizes, (3, 1)),
    "split_size_or_sections": (split_size_or_sizes, 2), "split_size": (split_size_or_sizes, 2),
    "split_sizes": (split_sizes, (1, 1)),
    "chunks": (small(1, 4), 2),
    "indices_or_sections": (sections_or_indices, (1,)),
    "index": (index_along, 1),
    "start": (narrow_start, 1), "length": (narrow_length, 1),
    "shifts": (shifts, 1),
    "repeats": (repeats, (2, 1)),
    "diagonal": (small(-2, 2), 1), "offset": (small(-2, 2), 1), "k": (small(-4, 4), 1),
    "pad": (pad_amounts, (1, 0)),
    "upscale_factor": (small(1, 3), 2), "downscale_factor": (small(1, 3), 2), "groups": (small(1, 3), 2),
}

#: symbol id -> {parameter name -> (strategy, fixed)}: where a common name means another thing
OVERRIDES = {
    "ltorch.permute": {"dims": (permutation, (1, 0))},
    "ltorch.permute_copy": {"dims": (permutation, (1, 0))},
    "ltorch.rot90": {"dims": (two_dims, (0, 1))},
    "ltorch.view_copy": {"size": (reshape_target, (3, 2))},
    "ltorch.unsqueeze": {"dim": (lambda shape, drawn: dim(shape, drawn, 1), 1)},
    "ltorch.unsqueeze_copy": {"dim": (lambda shape, drawn: dim(shape, drawn, 1), 1)},
    "ltorch.stack": {"dim": (lambda shape, drawn: dim(shape, drawn, 1), 1)},
    "ltorch.diag_embed": {"dim1": (lambda shape, drawn: dim(shape, drawn, 1), 0),
                          "dim2": (lambda shape, drawn: dim(shape, drawn, 1), 1)},
    "ltorch.tile": {"dims": (repeats, (2, 1))},
    "ltorch.repeat_interleave": {"repeats": (small(0, 3), 2)},
    "ltorch.tensor_unfold": {"size": (lambda shape, drawn: st.integers(0, _size_along(shape, drawn)), 2),
                             "step": (small(1, 3), 1)},
    "ltorch.unfold_copy": {"size": (lambda shape, drawn: st.integers(0, _size_along(shape, drawn)), 2),
                           "step": (small(1, 3), 1)},
}

#: list inputs of shape symbols (cat's tensors): drawn as several tensors of the input shape
SEQUENCE_INPUTS = {"tensors"}
#: symbol id -> (strategy, fixed) of the shape of its second tensor input (``other``)
OTHER_SHAPES = {"ltorch.view_as": (lambda shape, drawn: reshape_target(shape, drawn, wildcard=False), (3, 2)),
                "ltorch.reshape_as": (lambda shape, drawn: reshape_target(shape, drawn, wildcard=False), (3, 2)),
                "ltorch.expand_as": (lambda shape, drawn: expand_target(shape, drawn, wildcard=False), (4, 2, 3))}


def entry(sid, name):
    """(strategy, fixed) for parameter ``name`` of symbol ``sid``, or None."""
    return OVERRIDES.get(sid, {}).get(name) or STATICS.get(name)


def fixed_call(opdef, make):
    """(inputs, statics) of a fixed call of shape symbol ``opdef`` on SWEEP_SHAPE(S) tensors (the
    dtype sweep, the claim probes): ``make(k, name, shape)`` gives the TensorSpec of input ``k``
    (of ``shape``); list inputs get two tensors, ``other`` its fixed shape, required statics
    (and ``*sizes``) their fixed values."""
    sid, params = opdef.symbol.id, opdef.signature.parameters
    shape = SWEEP_SHAPES.get(sid, SWEEP_SHAPE)
    inputs = []
    for k, name in enumerate(opdef.inputs[:max(opdef.required_inputs, 1)]):
        if name in SEQUENCE_INPUTS:
            pair = [make(k, name, shape), make(k + 1, name, shape)]
            inputs.append(tuple(pair) if name == opdef.varargs else pair)
        elif name == "other" and sid in OTHER_SHAPES:
            inputs.append(make(k, name, OTHER_SHAPES[sid][1]))
        else:
            inputs.append(make(k, name, shape))
    statics = {n: entry(sid, n)[1] for n, p in params.items() if n not in opdef.inputs and entry(sid, n)
               and (p.default is inspect.Parameter.empty or n == opdef.varargs)}
    return tuple(inputs), statics


def order(names):
    """Parameter names with the ones others depend on first (``dim``, ``dims``, ``start``)."""
    first = [n for n in ("dim", "dims", "start") if n in names]
    return first + [n for n in names if n not in first]
