"""Hugging Face models (small configs, random weights) trained one step through Triton kernels
under the interpreter: logits, loss and every gradient against eager."""

import pytest
import torch

import thunder_core as tc
from triton_helpers import TRITON_HERE, triton_regions

transformers_models = pytest.importorskip("thunder_core.examples.transformers_models")


@pytest.mark.parametrize("name", ["gpt2", "llama", "bert", "t5", "mixtral"])
def test_a_training_step_matches_eager(name):
    model = transformers_models.build(name)
    kw = transformers_models.inputs(name)
    labels = transformers_models.labels(name, kw)
    jm = tc.jit(model, executors=[TRITON_HERE, "torch"])
    out = jm(**kw, labels=labels)
    out.loss.backward()
    ours = {n: p.grad.clone() for n, p in model.named_parameters() if p.grad is not None}
    model.zero_grad()
    expected = model(**kw, labels=labels)
    expected.loss.backward()
    torch.testing.assert_close(out.logits, expected.logits, rtol=1e-5, atol=1e-5)
    torch.testing.assert_close(out.loss, expected.loss, rtol=1e-5, atol=1e-5)
    assert ours.keys() == {n for n, p in model.named_parameters() if p.grad is not None}
    for n, p in model.named_parameters():
        if p.grad is not None:
            torch.testing.assert_close(ours[n], p.grad, rtol=1e-4, atol=1e-5, msg=n)
    assert triton_regions(tc.last_traces(jm)[-1]) and triton_regions(tc.last_backward_traces(jm)[-1])
