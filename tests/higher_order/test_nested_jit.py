"""A jitted function called from another is traced inline, under the outer jit's options
(documented in docs/higher-order-ops.md): executors and cache are the outer's, the inner's
sharp-edge levels apply to what it does where stricter, its transforms must be the outer's too."""

import warnings

import pytest
import torch

import thunder_core as tc

SCALE = torch.full((3,), 2.0)


def scale(x):
    return x * SCALE + 1


def test_outer_executors_and_cache_apply():
    inner = tc.jit(scale, executors=["torch"], cache="symbolic values")

    def outer(x):
        return inner(x).sin()

    jo = tc.jit(outer, executors=["torch"], cache="constant values")
    for n in (3, 3):
        x = torch.randn(n)
        torch.testing.assert_close(jo(x), scale(x).sin())  # (eager: calling outer would run the inner jit)
    assert tc.cache_misses(jo) == 1 and tc.cache_hits(jo) == 1
    assert tc.cache_misses(inner) == 0  # traced inline: the inner's own cache is not used
    assert "ltorch.mul" in str(tc.last_traces(jo)[-1])  # one trace holds both
    assert "cache='symbolic values'" in tc.explain(jo) and "traced inline" in tc.explain(jo)


def test_inner_sharp_edge_levels_apply_to_its_own_code_where_stricter():
    inner = tc.jit(scale, sharp_edges={"outside-value": "warn"})

    def outer(x):
        return inner(x) + SCALE  # the outer reads SCALE too, and allows it

    jo = tc.jit(outer)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        torch.testing.assert_close(jo(torch.ones(3)), scale(torch.ones(3)) + SCALE)
    found = [str(x.message) for x in w if issubclass(x.category, tc.SharpEdgeWarning)]
    assert len(found) == 1 and "in scale" in found[0]

    strict = tc.jit(scale, sharp_edges={"outside-value": "error"})
    with pytest.raises(tc.SharpEdgeError, match="SCALE"):
        tc.jit(lambda x: strict(x) * 2)(torch.ones(3))
    # the outer's stricter level applies to everything, the inner's code included
    with pytest.raises(tc.SharpEdgeError, match="SCALE"):
        tc.jit(lambda x: tc.jit(scale)(x) * 2, sharp_edges={"outside-value": "error"})(torch.ones(3))


def test_inner_transforms_must_be_the_outers():
    def double_outputs(trace):
        return trace

    inner = tc.jit(scale, transforms=[double_outputs])
    with pytest.raises(ValueError, match="double_outputs"):
        tc.jit(lambda x: inner(x) * 2)(torch.ones(3))
    jo = tc.jit(lambda x: inner(x) * 2, transforms=[double_outputs])
    torch.testing.assert_close(jo(torch.ones(3)), scale(torch.ones(3)) * 2)
