"""A torch call made for its effect on traced tensors is never silently dropped.

A torch callable without a symbol is recorded as an opaque op when tensors come out of it,
and answered as a constant when only metadata does (``x.stride()``). A call given traced
tensors that returns nothing is made for its effect (an assertion, a collective): it is
recorded to run on every call, or, when a trace cannot hold its arguments or what it returns,
refused with the reason. Before, such calls ran once on fake tensors while tracing and never
again: ``dist.all_reduce(y)`` in a jitted function returned each rank's own ``y``.
"""

import os

import pytest
import torch
import torch.distributed as dist

import thunder_core as tc
from thunder_core import plugins
from thunder_core.ir import TracingError


def test_a_check_returning_nothing_runs_on_every_call():
    def f(x):
        torch._assert_async((x > 0).all())
        return x * 2

    jf = tc.jit(f)
    torch.testing.assert_close(jf(torch.ones(3)), torch.full((3,), 2.0))
    assert "opaque.torch__assert_async(" in str(tc.last_traces(jf)[-1])
    with pytest.raises(RuntimeError, match="Expected Tensor with single nonzero value"):
        jf(-torch.ones(3))  # a cached call: the assertion is checked again, as in eager
    assert tc.cache_misses(jf) == 1


def test_an_object_made_from_fake_tensors_is_refused():
    with pytest.raises(TracingError, match="untyped_storage is called with tensors computed while tracing and "
                                           "returns a UntypedStorage object"):
        tc.jit(lambda x: (x * 2).untyped_storage().nbytes())(torch.ones(3))


def test_metadata_queries_stay_constants():
    jf = tc.jit(lambda x: x * (x * 2).stride()[0])
    torch.testing.assert_close(jf(torch.ones(2, 3)), torch.full((2, 3), 3.0))
    assert "opaque." not in str(tc.last_traces(jf)[-1])  # nothing recorded for the query


@pytest.fixture
def one_rank_group(tmp_path):
    """A gloo process group of this process alone, with the thunder-distributed plugin (when
    installed) removed: what a collective does without a symbol for it."""
    if not dist.is_available():
        pytest.skip("torch.distributed is not available in this build of torch")
    dist.init_process_group("gloo", init_method=f"file://{os.path.join(tmp_path, 'store')}", rank=0, world_size=1)
    installed = "distributed" in {r.name for r in plugins.registry().records}
    if installed:
        plugins.unregister("distributed")
    try:
        yield
    finally:
        if installed:
            plugins.reload()
        dist.destroy_process_group()


def test_a_collective_without_a_symbol_is_refused_not_dropped(one_rank_group):
    def f(x):
        y = x * 2
        dist.all_reduce(y)  # writes y through ProcessGroup.allreduce, a C call given the traced y
        return y + 1

    with pytest.raises(TracingError, match=r"(?s)writes into its tensor arguments \(c10d::allreduce_\).*"
                                           r"pip install thunder-distributed"):
        tc.jit(f)(torch.ones(3))
