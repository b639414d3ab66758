"""tc.jit composed with DistributedDataParallel in both orders, on 2 ranks: 3 training steps
give eager DDP's losses and final parameters, with one compile."""

import pytest

import distributed_scenarios as scenarios


@pytest.mark.parametrize("order", ["jit(DDP)", "DDP(jit)"])
def test_ddp_trains_like_eager(ranks, order):
    for rank, (losses, params, buffers, misses, trace) in enumerate(ranks.run(scenarios.ddp, order)):
        assert losses and params and buffers and misses == 1, f"rank {rank}"
        assert "linear" in trace and "reducer" not in trace


def test_jit_of_ddp_with_the_default_executors(ranks):
    for rank, (losses, params, buffers, misses, _) in enumerate(ranks.run(scenarios.ddp, "jit(DDP)", False,
                                                                          "default")):
        assert losses and params and misses == 1, f"rank {rank}"


@pytest.mark.parametrize("order", ["jit(DDP)", "DDP(jit)"])
def test_ddp_broadcasts_buffers_as_eager(ranks, order):
    # a running mean each rank updates with its own batch: DDP broadcasts rank 0's before each
    # forward (in the trace for jit(DDP)); the buffers and what they change equal eager's
    for rank, (losses, params, buffers, misses, trace) in enumerate(ranks.run(scenarios.ddp, order, True)):
        assert losses and params and buffers and misses == 1, f"rank {rank}"
        if order == "jit(DDP)":
            assert trace.count("ltorch.dist_broadcast_(") == 1


def test_unsupported_ddp_configurations_are_refused(ranks):
    for rank, message in enumerate(ranks.run(scenarios.ddp_refused)):
        assert "does not support find_unused_parameters=True" in message
        assert "DistributedDataParallel(tc.jit(model))" in message


def test_gradient_accumulation_with_no_sync(ranks):
    # DDP.no_sync() skips the reducer for a micro-batch: one compile with it, one without
    for rank, (losses, params, misses) in enumerate(ranks.run(scenarios.ddp_no_sync)):
        assert losses and params and misses == 2, f"rank {rank}"
