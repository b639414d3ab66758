"""Shared by the triton executor's tests."""

import dataclasses

import torch

import thunder_core as tc
from thunder_executor_triton.plugin import TRITON
from thunder_core.extend import profile

#: the executor with no per-call overhead on the CPU, so its regions win under the
#: interpreter (its declared 50 ms per launch would rightly lose to eager everywhere)
TRITON_HERE = dataclasses.replace(TRITON, dispatch_us={"cpu": 0.0, "cuda": 4.0})

TOL = {torch.float32: dict(rtol=1e-5, atol=1e-5), torch.float16: dict(rtol=2e-3, atol=2e-3),
       torch.bfloat16: dict(rtol=2e-2, atol=2e-2)}


def triton_regions(trace) -> list:
    return [b for b in trace.bound_symbols if b.sym.name.startswith("triton_region")]


def jit(fn):
    return tc.jit(fn, executors=[TRITON_HERE, "torch"])


def close(actual, expected, dtype):
    """Kernels compute in float32 and round once at the store; eager rounds after each op in
    half precision: compare at the half dtype's tolerance, in float32."""
    if isinstance(actual, (tuple, list)):
        for a, e in zip(actual, expected):
            close(a, e, dtype)
        return
    assert actual.dtype == expected.dtype and actual.shape == expected.shape
    if actual.dtype == torch.bool:
        assert torch.equal(actual, expected)
    else:
        torch.testing.assert_close(actual.float(), expected.float(), **TOL[dtype])


def no_worse_than_eager(actual, eager, exact, slack=1e-3):
    """For long half-precision chains (gradients): eager rounds after every op, a kernel once
    at the end, so both differ from the float32 result ``exact``; ours must not be further
    from it than eager's (times 2, plus ``slack``)."""
    assert actual.dtype == eager.dtype and actual.shape == eager.shape
    ours = (actual.float() - exact.float()).abs().max().item()
    theirs = (eager.float() - exact.float()).abs().max().item()
    assert ours <= 2 * theirs + slack, (ours, theirs)


def codegen_target(name="h100"):
    """The target's profile with Triton's per-call overhead taken as 0: Triton wins every region
    it can generate (tests of the kernels and artifacts it makes, not of its measured cost)."""
    return profile(name).replace(dispatch_us={"triton": 0.0})
