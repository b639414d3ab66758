"""Block sizes, warps and program counts from the shape and the device profile, and the
autotuning path (THUNDER_TRITON_AUTOTUNE=1), which on a GPU benchmarks each config with CUDA
events; here it runs under the interpreter with a CPU timer instead: the configs, their grids
and the counters reset between runs are exercised, their speed is not."""

import torch
import torch.nn.functional as F

from thunder_core.extend import profile
from thunder_executor_triton import tuning
from triton_helpers import close, jit, triton_regions

import thunder_core as tc

H100 = tuning.target_for_profile(profile("h100"))
A100 = tuning.target_for_profile(profile("a100"))


def test_choices_follow_the_shape_and_the_device():
    assert H100.sms == 132 and A100.sms == 108
    assert tuning.pointwise_params(1 << 24, H100) == {"BLOCK": 2048, "num_warps": 8}  # 3.35 TB/s
    assert tuning.pointwise_params(1 << 24, A100) == {"BLOCK": 1024, "num_warps": 4}
    assert tuning.pointwise_params(100, H100)["BLOCK"] == 128
    assert tuning.pointwise_params(1 << 20, tuning.CPU)["BLOCK"] == 1 << 15   # the interpreter: big blocks
    whole = tuning.row_params(4096, 768, H100, looped=False)
    assert whole == {"BLOCK_R": 2, "BLOCK_C": 1024, "num_warps": 4}
    assert tuning.row_params(4096, 8192, H100, looped=False)["num_warps"] == 8
    assert tuning.row_params(8, 50257, H100, looped=True) == {"BLOCK_R": 1, "BLOCK_C": 4096, "num_warps": 8}
    # a bias gradient of a large batch: few outputs, many rows: split across the multiprocessors
    bias = tuning.reduce_params(768, 65536, H100)
    assert bias["SPLIT"] > 1 and tuning.cdiv(768, bias["BLOCK_O"]) * bias["SPLIT"] <= 4 * H100.sms
    assert tuning.reduce_params(1 << 20, 64, H100)["SPLIT"] == 1  # many outputs: no split
    assert tuning.programs(10_000, H100) == 132 and tuning.programs(3, H100) == 3


def test_autotune_configs_start_with_the_heuristic_choice():
    chosen = {"BLOCK_R": 2, "BLOCK_C": 1024, "num_warps": 4}
    configs = tuning.autotune_configs("row", chosen)
    assert configs[0] == chosen and len(configs) > 3
    assert all(c["BLOCK_C"] == 1024 for c in configs)  # whole rows keep their width
    assert len({tuple(sorted(c.items())) for c in configs}) == len(configs)


def test_autotuning_runs_under_the_interpreter_with_a_cpu_timer(monkeypatch):
    from triton.runtime.autotuner import Autotuner

    monkeypatch.setenv("THUNDER_TRITON_AUTOTUNE", "1")
    benched = []
    original = Autotuner._bench

    def spy(self, *args, config, **meta):
        benched.append(config)
        return original(self, *args, config=config, **meta)

    monkeypatch.setattr(Autotuner, "_bench", spy)
    torch.manual_seed(16)
    x = torch.randn(300, 37, requires_grad=True)
    w = torch.randn(37, requires_grad=True)
    fn = lambda x, w: F.layer_norm(torch.tanh(x), (37,), w)  # noqa: E731
    jf = jit(fn)
    out = jf(x, w)
    close(out, fn(x, w), torch.float32)
    out.sum().backward()
    gx, gw = x.grad.clone(), w.grad.clone()
    x.grad = w.grad = None
    fn(x, w).sum().backward()
    torch.testing.assert_close(gx, x.grad, rtol=1e-4, atol=1e-5)
    torch.testing.assert_close(gw, w.grad, rtol=1e-4, atol=1e-4)  # combined across programs, cnt reset per run
    assert triton_regions(tc.last_backward_traces(jf)[-1])
    assert len(benched) > 3
