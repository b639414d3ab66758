"""A jitted model's traces are the same with decompositions replayed (ir/replay.py: each
decomposition recorded once per call structure) as without, up to names; its results are eager's."""

import re

import pytest
import torch

import thunder_core as tc
from thunder_core.examples.models import GPT
from thunder_core.ir import replay


def _norm(text):
    names: dict = {}
    return re.sub(r"\b([a-z]+_?)(\d+)\b", lambda m: names.setdefault(m.group(0), f"{m.group(1)}#{len(names)}"), text)


@pytest.mark.parametrize("train", [False, True], ids=["forward", "training"])
def test_a_jitted_gpt_has_the_same_traces_with_and_without_replay(monkeypatch, train):
    # every trace of the compile (decompositions printed), forward and backward, is the trace
    # recorded without replay up to names; and the results are eager's
    import thunder_core.ir.symbol as symbol

    copies = []

    def counted(*a, **k):
        copies.append(a[0].sym.id)
        return replay.replay(*a, **k)

    monkeypatch.setattr(symbol, "replay", counted)

    def run(enabled):
        monkeypatch.setattr(replay, "ENABLED", enabled)
        torch.manual_seed(0)
        m = GPT(vocab=256, block_size=16, n_layer=3, n_embd=64, n_head=4).train(train)
        j = tc.jit(m, executors=["torch"])
        idx = torch.randint(0, 256, (2, 16), generator=torch.Generator().manual_seed(1))
        torch.manual_seed(2)
        out = j(idx, idx)[1] if train else j(idx)
        if train:
            out.backward()
        grads = [p.grad for p in m.parameters()] if train else []
        return [t.python(print_subsymbols=True) for t in tc.last_traces(j)], out, grads, m, idx

    with_replay, out, grads, m, idx = run(True)
    assert {"ltorch.layer_norm", "ltorch.linear"} <= set(copies)  # layers 2 and 3 are copies
    n = len(copies)
    without, out0, grads0, _, _ = run(False)
    assert len(copies) == n
    assert len(with_replay) == len(without)
    for a, b in zip(with_replay, without):
        assert _norm(a) == _norm(b)
    torch.testing.assert_close(out, out0)
    for g, g0 in zip(grads, grads0):
        torch.testing.assert_close(g, g0)
    torch.manual_seed(2)
    want = m(idx, idx)[1] if train else m(idx)
    torch.testing.assert_close(out, want)
