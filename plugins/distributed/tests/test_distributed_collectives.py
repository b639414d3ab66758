"""Collectives inside a jitted function, on 2 ranks: correct on the first and on cached calls,
recorded as symbols in the trace, their gradients equal to eager's; rank-dependent code is
guarded per process."""

import distributed_scenarios as scenarios


def test_collectives_match_eager_on_first_and_cached_calls(ranks):
    for rank, results in enumerate(ranks.run(scenarios.collectives)):
        for name, (equal, misses, hits, trace) in results.items():
            assert equal, f"rank {rank}: {name} differs from eager"
            assert (misses, hits) == (1, 2), f"rank {rank}: {name} compiled {misses} times"
        in_place = results["in_place"][3]
        for symbol in ("dist_all_reduce_", "dist_broadcast_", "dist_all_gather_into_tensor_",
                       "dist_reduce_scatter_tensor_", "dist_all_to_all_single_", "dist_barrier"):
            assert f"ltorch.{symbol}(" in in_place, symbol
        assert "reduce_op='max'" in in_place and "group_src=1" in in_place
        assert "async_op=True" in results["async"][3] and "ltorch.wait_tensor(" in results["async"][3]
        for symbol in ("all_reduce", "all_gather_into_tensor", "reduce_scatter_tensor", "all_to_all_single",
                       "broadcast", "wait_tensor"):
            assert f"ltorch.{symbol}(" in results["functional"][3], symbol


def test_rank_dependent_code_is_guarded_per_process(ranks):
    for rank, results in enumerate(ranks.run(scenarios.rank_guards)):
        prologue, trace = results
        assert "state(torch.distributed.distributed_c10d.get_rank())" in prologue
        # (only rank 0's branch asks for the world size)
        assert ("state(torch.distributed.distributed_c10d.get_world_size())" in prologue) == (rank == 0)
        assert ("mul(x, 2)" if rank == 0 else "sub(x, 1)") in trace


def test_gradients_through_collectives_match_eager(ranks):
    for rank, results in enumerate(ranks.run(scenarios.gradients)):
        equal, misses, backward = results["functional"]
        assert equal and misses == 1, f"rank {rank}"
        for symbol in ("reduce_scatter_tensor", "all_gather_into_tensor", "all_reduce", "all_to_all_single"):
            assert f"ltorch.{symbol}(" in backward[0], symbol
        equal, misses, backward = results["in_place"]
        # eager autograd does not see an in-place all_reduce: the trace runs under PyTorch's autograd
        assert equal and misses == 1 and backward == [], f"rank {rank}"
