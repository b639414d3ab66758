"""tc.jit of an FSDP2 model (fully_shard on each Linear and on the root), on 2 ranks: 3 training
steps give eager FSDP2's losses and final full parameters, with FSDP's all-gather before each
unit's forward and its reduce-scatter of the gradients in the traces."""

import pytest

import distributed_scenarios as scenarios


@pytest.mark.parametrize("executors", ["torch", "default"])
def test_fsdp2_trains_like_eager(ranks, executors):
    for rank, (losses, params, misses, forward, backward) in enumerate(ranks.run(scenarios.fsdp, executors)):
        assert losses and params and misses == 1, f"rank {rank}"
        assert forward.count("ltorch.fsdp_all_gather(") == 6 and forward.count("ltorch.dtensor_to_local(") == 6
        assert backward.count("ltorch.reduce_scatter_tensor(") == 6 and "reduce_op='avg'" in backward
        assert backward.count("ltorch.dtensor_from_local(") == 6


def test_unsupported_fsdp2_configurations_are_refused(ranks):
    for rank, message in enumerate(ranks.run(scenarios.fsdp_refused)):
        assert "does not support mixed precision" in message, message
