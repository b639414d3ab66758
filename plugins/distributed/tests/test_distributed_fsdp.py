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


def test_loading_the_plugin_does_not_import_fsdp():
    """FSDP2's modules take ~0.45 s to import: the plugin defines its symbols without them, and
    looks FSDP's hooks aside once the program has imported FSDP (as fully_shard's users have)."""
    import os
    import subprocess
    import sys

    code = ("import sys, torch, thunder_core as tc\n"
            "from thunder_core import plugins\n"
            "tc.jit(lambda x: x * 2)(torch.ones(2))\n"
            "assert 'ltorch.fsdp_all_gather' in tc.ops.registry.SYMBOLS\n"
            "assert 'torch.distributed.fsdp' not in sys.modules, 'imported while loading the plugin'\n"
            "from torch.distributed.fsdp._fully_shard._fsdp_state import FSDPState\n"
            "assert FSDPState._pre_forward in plugins.registry().lookasides\n")
    # as users run it (this suite's verifier runs fake-tensor metas, whose mode imports torch._dynamo, and FSDP)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("THUNDER_CORE_", "TRITON_"))}
    subprocess.run([sys.executable, "-c", code], check=True, timeout=300, env=env)
