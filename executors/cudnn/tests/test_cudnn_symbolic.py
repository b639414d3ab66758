"""Symbolic sizes (cache="symbolic values", the default): cuDNN graphs have fixed dims, so the
executor checks, prices and plans a symbol with the example's sizes and, at run time,
specialises per call: each call's sizes key its own lowered callable and graphs, and no call
retraces the program. Running a graph needs a GPU; here the graph runner is replaced by one
that records the spec it was given (what the graphs are built from)."""

import pytest
import torch.nn.functional as F

import thunder_executor_cudnn.runtime as runtime
from cudnn_helpers import cheap_cudnn, cudnn_regions, fake, plan

pytestmark = pytest.mark.needs_cudnn


def _attention(q, k, v):
    return F.scaled_dot_product_attention(q, k, v, is_causal=True)


def test_plan_builds_graphs_for_the_example_sizes_and_says_so():
    q, k, v = fake((2, 4, 128, 64), (2, 4, 128, 64), (2, 4, 128, 64))
    p = plan(_attention, q, k, v, target=cheap_cudnn())
    ((name, region),) = cudnn_regions(p).items()
    (b,) = region.bsyms
    # symbolic in the trace; the head dim is 64 (the default scale 1/sqrt(64) guarded it)
    assert [repr(s) for s in b.args[0].shape] == ["q_0", "q_1", "q_2", "64"]
    (art,) = p.artifacts[name]
    assert "for the example's sizes (q_0=2, q_1=4, q_2=128, k_2=128, v_3=64)" in art.note
    assert "at run time a graph is built per call's sizes" in art.note


def test_run_time_specialises_per_call_sizes(monkeypatch):
    q, k, v = fake((2, 4, 128, 64), (2, 4, 128, 64), (2, 4, 128, 64))
    p = plan(_attention, q, k, v, target=cheap_cudnn())
    ((_, region),) = cudnn_regions(p).items()
    seen = []

    def record(spec, q, k, v, mask=None, grad=None):
        seen.append(spec)
        return tuple(fake(spec.o, dtype=spec.dtype))

    monkeypatch.setattr(runtime, "run_attention", record)
    run = runtime.lower(region)
    for s in (128, 96, 128, 200):
        out = run(*[fake((2, 4, s, 64))[0] for _ in range(3)])
        assert out[0].shape == (2, 4, s, 64)
    assert [(x.s_q, x.s_kv) for x in seen] == [(128, 128), (96, 96), (128, 128), (200, 200)]
    assert seen[0] is seen[2]  # the same sizes: the callable (and its spec, its graphs' key) lowered once
    assert all(type(x.s_q) is int for x in seen)
