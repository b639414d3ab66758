"""Functions the ranks run to check the pool itself (test_distributed_pool.py): only
torch.distributed, so a fresh pool for them starts quickly."""

import torch
import torch.distributed as dist


def rank_and_sum():
    t = torch.tensor([float(dist.get_rank() + 1)])
    dist.all_reduce(t)
    return dist.get_rank(), t.item()


def fails_on_rank_1():
    if dist.get_rank() == 1:
        raise ValueError("rank 1 failed on purpose")
    return "ok"


def hangs_on_rank_1():
    if dist.get_rank() == 1:
        dist.barrier()  # rank 0 never joins: rank 1 waits until the pool gives up on it
    return "ok"
