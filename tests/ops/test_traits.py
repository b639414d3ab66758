"""Op traits (thunder_core/ir/traits.py): every symbol declares what it is, the declarations
hold, and passes and executors decide from them alone (not from the file defining an op)."""

from __future__ import annotations

import pytest
import torch

import thunder_core.ops  # noqa: F401 - defines every symbol
from thunder_core.ir import TENSOR_METHODS, BoundSymbol, Trace, tracing
from thunder_core.ir.traits import NON_TRAIT_TAGS, TRAITS, has_trait, traits
from thunder_core.ops import ltorch, ltorch_fft, ltorch_linalg_library, prims, registry
from thunder_core.ops.prims_number import NUMBER_OPS
from thunder_core.ops.registry import OPDEFS, PRIMS, SYMBOLS, torch_op
from thunder_core.transforms import remat

#: the core's own symbols (plugins declare theirs; thunder-distributed's collectives carry no
#: trait on purpose: library kernels, never fused or recomputed)
ALL = {sid: s for sid, s in {**SYMBOLS, **PRIMS}.items()
       if sid not in OPDEFS or OPDEFS[sid].module.startswith("thunder_core.")}

#: symbols no trait of the vocabulary describes (each group says why); consumers treat them as
#: library kernels: never fused, never recomputed
NO_TRAIT = {
    # data-dependent positions that "indexing" does not promise: counted from a mask, a size
    # from the largest value, reductions at index positions, PyTorch's own setitem gradient
    *("ltorch.setitem_out", "ltorch.one_hot", "ltorch.getitem_backward", "ltorch.index_reduce",
      "ltorch.scatter_reduce", "ltorch.masked_scatter", "ltorch.nonzero_static",
      "prims.scatter_reduce"),
    "ltorch.as_strided_scatter",  # writes at positions given by the real tensor's memory layout
    # unpooling: values (or gradients) put back at the argmax positions an index tensor holds
    *("ltorch.max_unpool2d", "ltorch.max_unpool3d", "ltorch.max_pool2d_with_indices_backward"),
    # kernels reading at positions computed from tensor values (grid coordinates, bag and segment
    # offsets) or weighting windows of neighbours (anti-aliasing, the FFT of stft)
    *("ltorch.grid_sampler", "ltorch.grid_sampler_2d", "ltorch.grid_sampler_3d", "ltorch._upsample_bilinear2d_aa",
      "ltorch.embedding_bag", "ltorch.segment_reduce", "ltorch.stft"),
    "ltorch.glu",          # not elementwise: each output reads two elements half the dim apart
    "ltorch.interpolate",  # by mode a gather (nearest) or weighted sums of neighbours (linear, bicubic, area)
    "prims.device_put",    # a copy to another device, no computation
    "ltorch.assert_tensor",  # the program's `assert` on a tensor: reads its value on the host, may raise
    "ltorch.set_grad_enabled",  # grad mode between the ops of a trace run op by op under autograd (an effect)
    # arithmetic on Python numbers (symbolic values): host computations, no tensor
    *(f"prims.py_{n}" for n in NUMBER_OPS), "prims.py_dim_size",
    # library kernels run whole: matrix decompositions, solvers, inverses, determinants (LAPACK /
    # cuSOLVER) and the Fourier transforms (FFT libraries); cross products (each output reads
    # the other two components along dim)
    *ltorch_linalg_library.LIBRARY, *ltorch_fft.LIBRARY, "ltorch.cross", "ltorch.linalg_cross",
    # stencils: each output reads its neighbours along a dim (like glu, not elementwise)
    "ltorch.diff", "ltorch.gradient",
    # binary searches in a sorted tensor: the access depends on the sorted values
    "ltorch.bucketize", "ltorch.searchsorted",
}


# ---------------------------------------------------------------- the vocabulary and the predicates

def test_every_tag_is_a_trait_or_a_known_non_trait_tag():
    bad = {sid: sorted(s.tags - TRAITS - NON_TRAIT_TAGS) for sid, s in ALL.items() if s.tags - TRAITS - NON_TRAIT_TAGS}
    assert not bad


def test_every_symbol_has_a_trait_unless_allow_listed():
    missing = sorted(sid for sid, s in ALL.items() if not traits(s) and sid not in NO_TRAIT)
    assert not missing, f"declare the traits of {missing} where they are defined (see thunder_core.ir.traits)"
    stale = sorted(sid for sid in NO_TRAIT if sid not in ALL or traits(ALL[sid]))
    assert not stale, f"remove {stale} from NO_TRAIT"


def test_transcendental_is_a_kind_of_elementwise():
    assert not [sid for sid, s in ALL.items() if has_trait(s, "transcendental") and not has_trait(s, "elementwise")]


def test_in_place_variants_share_their_op_traits():
    for sid, s in SYMBOLS.items():
        base = SYMBOLS.get(sid[:-1])
        if has_trait(s, "inplace") and sid.endswith("_") and base is not None and not has_trait(base, "inplace"):
            assert traits(s) == (traits(base) - {"view"}) | {"inplace"}, sid


def test_predicates_on_symbols_and_bound_symbols():
    gelu = ltorch.gelu
    assert traits(gelu) == {"elementwise", "transcendental"}
    assert has_trait(gelu, "elementwise") and not has_trait(gelu, "reduction")
    trace = Trace("t")
    x = trace.add_input(torch.randn(2, 3))
    with tracing(trace):
        gelu(x)
    bsym = trace.bound_symbols[-1]
    assert isinstance(bsym, BoundSymbol) and traits(bsym) == traits(gelu) and has_trait(bsym, "transcendental")
    assert traits(ltorch.contiguous) == {"shape"}  # "may-return-input" is a tag, not a trait


def test_has_trait_rejects_a_name_outside_the_vocabulary():
    with pytest.raises(ValueError, match="'elementwize' is not an op trait.*elementwise"):
        has_trait(ltorch.add, "elementwize")
    with pytest.raises(ValueError, match="not an op trait"):
        has_trait(ltorch.add, "fusible")  # the old ad-hoc tag


def test_an_unknown_tag_is_refused_where_an_op_is_defined(fresh_registry):
    with pytest.raises(ValueError, match="unknown tag.*elementwize.*Op traits are"):
        @torch_op(_double, name="_traits_typo", tags=("elementwize",))
        def _traits_typo(input):
            ...
    with pytest.raises(ValueError, match="unknown tag"):
        registry.prim("_traits_typo", tags=("fusible",))(lambda a: a)


def test_opdef_has_no_family():
    assert not hasattr(next(iter(OPDEFS.values())), "family")


# ---------------------------------------------------------------- elementwise means elementwise

def _tensor_for(fn, arity):
    """(inputs, output) of ``fn`` on small random tensors of the first dtype it accepts."""
    g = torch.Generator().manual_seed(0)
    makers = (lambda: torch.randn(4, 6, generator=g) * 2, lambda: torch.randint(-5, 5, (4, 6), generator=g),
              lambda: torch.rand(4, 6, generator=g) > 0.5,
              lambda: torch.randn(4, 6, dtype=torch.complex64, generator=g))
    for make in makers:
        args = [make() for _ in range(arity)]
        try:
            return args, fn(*args)
        except (RuntimeError, TypeError, NotImplementedError):
            continue
    return None, None


def _elementwise_along_both_dims(fn, args, out) -> bool:
    """``fn(x)[i] == fn(x[i:i+1])`` for every row and every column."""
    for dim in (0, 1):
        for i in range(args[0].shape[dim]):
            try:
                part = fn(*(a.narrow(dim, i, 1) for a in args))
            except RuntimeError:  # (glu: a dim of size 1 cannot be halved)
                return False
            if part.shape != out.narrow(dim, i, 1).shape or \
                    not torch.allclose(part, out.narrow(dim, i, 1), equal_nan=True, rtol=1e-5, atol=1e-6):
                return False
    return True


def _simple_elementwise_ops():
    """(id, torch implementation, arity) of the elementwise torch-level ops whose required
    arguments are all leading tensor inputs (no in-place or random ones)."""
    out = []
    for sid, od in sorted(OPDEFS.items()):
        s = od.symbol
        if not has_trait(s, "elementwise") or traits(s) & {"inplace", "random"}:
            continue
        required = [n for n, p in od.signature.parameters.items() if p.default is p.empty and p.kind != p.VAR_KEYWORD]
        if required and list(od.inputs[:len(required)]) == required:
            out.append((sid, registry.TORCH_IMPLS[sid], len(required)))
    return out


def test_ops_marked_elementwise_are_elementwise():
    checked = []
    for sid, fn, arity in _simple_elementwise_ops():
        args, out = _tensor_for(fn, arity)
        if args is None or not isinstance(out, torch.Tensor) or out.shape != args[0].shape:
            continue
        assert _elementwise_along_both_dims(fn, args, out), f"{sid} is tagged elementwise but is not"
        checked.append(sid)
    assert len(checked) >= 90, checked  # (unary and binary math, comparisons, activations, backward kernels...)
    assert {"ltorch.exp", "ltorch.add", "ltorch.relu", "ltorch.gelu", "ltorch.eq", "ltorch.bitwise_and", "ltorch.lerp",
            "ltorch.gelu_backward", "ltorch.to"} <= set(checked)


@pytest.mark.parametrize("fn", [torch.nn.functional.glu, lambda x: torch.softmax(x, -1), lambda x: torch.cumsum(x, 1),
                                lambda x: torch.flip(x, (0,))])
def test_the_elementwise_check_catches_ops_that_are_not(fn):
    args, out = _tensor_for(fn, 1)
    assert not _elementwise_along_both_dims(fn, args, out)


# ---------------------------------------------------------------- consumers decide from traits alone

def _double(input):
    return input * 2


@pytest.fixture
def fresh_registry():
    """Symbols defined by a test are removed again (other tests iterate the registries)."""
    tables = (SYMBOLS, PRIMS, OPDEFS, registry.TORCH_IMPLS, registry.TORCH_CALLS, TENSOR_METHODS)
    saved = [dict(t) for t in tables]
    names = {m: set(vars(m)) for m in (ltorch, prims)}
    yield
    for t, old in zip(tables, saved):
        t.clear()
        t.update(old)
    for m, keep in names.items():
        for n in set(vars(m)) - keep:
            delattr(m, n)


def _define(name, module, tags):
    """A throwaway op defined by a signature function that claims to live in ``module``."""
    def sig(input):
        return input * 2
    sig.__name__, sig.__module__ = name, module
    return torch_op(_double, name=name, tags=tags)(sig).symbol


def _bound(sym):
    trace = Trace("t")
    x = trace.add_input(torch.randn(3))
    with tracing(trace):
        sym(x)
    return trace.bound_symbols[-1]


def _decisions(bsym):
    from thunder_executor_torch import inductor

    return (traits(bsym), remat.recomputable(bsym, fusing=True), remat.recomputable(bsym, fusing=False),
            remat.fusible(bsym), inductor._member(bsym) == "fuse")


def test_where_an_op_is_defined_changes_nothing(fresh_registry):
    pytest.importorskip("thunder_executor_torch")
    here = _define("_traits_here", __name__, ("elementwise",))
    there = _define("_traits_there", "thunder_core.ops.ltorch_reduction", ("elementwise",))
    assert _decisions(_bound(here)) == _decisions(_bound(there)) == (frozenset({"elementwise"}), True, False, True,
                                                                     True)
    # an op of the core moved to another file keeps its traits and its treatment
    assert _decisions(_bound(_define("_traits_expm1", "plugin_mod", traits(ltorch.expm1)))) == \
        _decisions(_bound(ltorch.expm1))


def test_a_plugin_op_declared_elementwise_is_fused_and_recomputed(fresh_registry):
    pytest.importorskip("thunder_executor_torch")
    from thunder_executor_torch import inductor

    fused = _bound(_define("_traits_plugin_gelu", "some_plugin.ops", ("elementwise",)))
    assert inductor._member(fused) == "fuse" and remat.fusible(fused) and remat.recomputable(fused)
    plain = _bound(_define("_traits_plugin_kernel", "some_plugin.ops", ()))  # no traits: a library kernel
    assert not (inductor._member(plain) or remat.fusible(plain) or remat.recomputable(plain))
    costly = _bound(_define("_traits_plugin_exp", "some_plugin.ops", ("elementwise", "transcendental")))
    assert inductor._member(costly) == "fuse" and not remat.recomputable(costly)

    # and inductor claims it in a region with the core's ops
    from thunder_core.execution.claims import ClaimContext
    from thunder_core.execution.cost import CostModel
    from thunder_core.execution.partition import last_use_of
    from thunder_core.plugins import registry

    trace = Trace("t")
    x = trace.add_input(torch.randn(256, 256))
    with tracing(trace):
        out = ltorch.add(SYMBOLS["ltorch._traits_plugin_gelu"](x), 1.0)
    bsyms = trace.bound_symbols
    ctx = ClaimContext(registry().executors["inductor"], bsyms, last_use_of(bsyms, [out]), CostModel("cpu"), [])
    claims = list(inductor.claim(bsyms, ctx))
    assert [(c.executor, c.start, c.end) for c in claims] == [("inductor", 0, 2)]


def test_consumer_trait_sets_are_in_the_vocabulary():
    inductor = pytest.importorskip("thunder_executor_torch.inductor")
    assert inductor.FUSIBLE_TRAITS <= TRAITS and inductor.UNFUSED_TRAITS <= TRAITS | NON_TRAIT_TAGS


def test_views_cost_only_their_launch():
    from thunder_core.execution.cost import CostModel
    from thunder_core.execution.profiles import PROFILES

    model = CostModel(PROFILES["cpu"])
    trace = Trace("t")
    x = trace.add_input(torch.randn(64, 64))
    with tracing(trace):
        ltorch.t(x)
        ltorch.clone(x)
    view, copy = trace.bound_symbols
    assert model.symbol_us(view, 0.0) == model.profile.launch_us < model.symbol_us(copy, 0.0)
