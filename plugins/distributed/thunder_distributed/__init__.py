"""thunder_core on torch.distributed: collectives as symbols, DistributedDataParallel and
FSDP2 (``fully_shard``) under ``tc.jit``."""

__version__ = "0.1.0.dev0"
