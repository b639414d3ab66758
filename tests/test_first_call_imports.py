"""A process's first compile imports only what it uses: torch._dynamo/inductor (~1 s) are
imported by the background compile that needs them, sympy (~0.2 s) by torch's symbolic shapes
when an op's meta needs them, FSDP (~0.45 s) by the program that uses it (the plugins' lookaside
tables are asked for again after imports), and GPU executors' libraries (triton ~0.1 s, the cuDNN
frontend, nvfuser_direct) only where a CUDA device (or Triton's interpreter) could run them."""

import os
import subprocess
import sys

_PROGRAM = """
import sys, torch
before = set(sys.modules)  # (what torch itself imports is not the first call's doing)
import thunder_core as tc
from thunder_core.examples.models import GPT

torch.manual_seed(0)
m = GPT(vocab=256, block_size=16, n_layer=2, n_embd=32, n_head=4).eval()
idx = torch.randint(0, 256, (1, 16))
j = tc.jit(m)  # the default executors: every installed one that can run here
with torch.no_grad():
    out = j(idx)
gpu = ("triton", "cudnn", "nvfuser_direct") if not torch.cuda.is_available() else ()
heavy = [name for name in ("torch._dynamo", "torch._inductor", "sympy", "torch.distributed.fsdp", *gpu)
         if name in sys.modules and name not in before]
assert not heavy, f"imported by the first call: {heavy}"
torch.testing.assert_close(out, m(idx))
assert tc.wait_for_compiles(300)
with torch.no_grad():
    torch.testing.assert_close(j(idx), m(idx))  # the compiled tier (which imported inductor)
states = [t.state for t in j._tc_jfn._last.tiered]
assert "torch._inductor" in sys.modules and "compiled" in states, states

def f(x):  # torch._dynamo.is_compiling, imported after the first trace, is True while tracing
    return x * 2 if torch._dynamo.is_compiling() else x.nonzero()
torch.testing.assert_close(tc.jit(f)(torch.ones(3)), torch.ones(3) * 2)
"""


def test_the_first_call_imports_neither_dynamo_nor_sympy_nor_fsdp_nor_gpu_libraries():
    # as a user runs it: no verifier, no Triton interpreter, every installed executor (the
    # suite's settings keep some out); without a GPU, the GPU executors say so without importing
    # their libraries (nvFuser's nvfuser_direct imports torch.distributed.tensor and sympy)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("THUNDER_CORE_", "TRITON_"))}
    subprocess.run([sys.executable, "-c", _PROGRAM], check=True, timeout=600, env=env)
