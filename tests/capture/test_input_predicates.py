"""A branch on a cheap predicate of input tensors (HF FSMT: ``padding_mask = input_ids.eq(pad);
if not padding_mask.any(): padding_mask = None``; I-BERT's ``if self.x_min.min() > -1.1e-5``
on buffers) is decided while tracing on the real inputs and guarded: the prologue computes the
predicate again on every call and misses when its truth differs, so each outcome gets an entry
of its own. Before, it was refused as a data-dependent branch. A predicate of a tensor the
function drew at random, or of large inputs, stays refused."""

import pytest
import torch

import thunder_core as tc


def padding_mask(x, ids):
    mask = ids.eq(1)
    if not mask.any():
        mask = None
    return x * 2 if mask is None else x.masked_fill(mask[:, :, None], 0.0)


def test_both_outcomes_compile_once_each_and_hit_after():
    jf = tc.jit(padding_mask)
    x = torch.randn(2, 3, 4)
    without = torch.tensor([[0, 2, 3], [4, 5, 6]])
    with_pad = torch.tensor([[0, 1, 3], [4, 5, 1]])
    for ids in (without, with_pad):
        torch.testing.assert_close(jf(x, ids), padding_mask(x, ids))
    assert tc.cache_misses(jf) == 2
    hits = tc.cache_hits(jf)
    for ids in (with_pad, without, torch.tensor([[1, 1, 1], [1, 1, 1]]), torch.tensor([[7, 7, 7], [7, 7, 7]])):
        torch.testing.assert_close(jf(x, ids), padding_mask(x, ids))
    assert tc.cache_misses(jf) == 2 and tc.cache_hits(jf) == hits + 4
    assert "ltorch.any" in tc.last_prologue_traces(jf)[0]
    assert "tensor predicates of inputs" in tc.explain(jf)


class Calibrated(torch.nn.Module):
    """I-BERT's QuantAct: the first call (buffers still zero) sets the range, later ones average."""

    def __init__(self):
        super().__init__()
        self.register_buffer("x_min", torch.zeros(1))
        self.register_buffer("x_max", torch.zeros(1))

    def forward(self, x):
        if self.x_min.min() > -1.1e-5 and self.x_max.max() < 1.1e-5:
            self.x_min = self.x_min + x.min()
            self.x_max = self.x_max + x.max()
        else:
            self.x_min = self.x_min * 0.9 + x.min() * 0.1
            self.x_max = self.x_max * 0.9 + x.max() * 0.1
        return (x - self.x_min) / (self.x_max - self.x_min)


def test_a_branch_on_buffers_follows_their_updates():
    eager, m = Calibrated(), Calibrated()
    jm = tc.jit(m)
    for i in range(4):
        x = torch.randn(5) * (i + 1)
        torch.testing.assert_close(jm(x), eager(x))
        torch.testing.assert_close(m.x_min, eager.x_min)
        torch.testing.assert_close(m.x_max, eager.x_max)
    with torch.no_grad():  # reset outside: the first branch again
        for mod in (m, eager):
            mod.x_min.zero_()
            mod.x_max.zero_()
    x = torch.randn(5)
    torch.testing.assert_close(jm(x), eager(x))
    torch.testing.assert_close(m.x_max, eager.x_max)
    assert tc.cache_misses(jm) == 2


def random_predicate(x):
    keep = torch.rand(3) > 0.5
    if keep.any():
        return x + 1
    return x


def large_predicate(x):
    if x.any():
        return x + 1
    return x


def written_predicate(x):
    x.add_(1)
    if x.any():
        return x + 1
    return x


@pytest.mark.parametrize("fn, arg", [(random_predicate, torch.ones(3)), (large_predicate, torch.zeros(2 ** 21)),
                                     (written_predicate, torch.zeros(3))])
def test_other_tensor_truth_values_stay_refused(fn, arg):
    with pytest.raises(TypeError, match="truth value of a tensor computed inside the jitted function"):
        tc.jit(fn)(arg)


class Clipped(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.w = torch.nn.Parameter(torch.randn(4, 3))

    def forward(self, x):
        if self.w.abs().max() > 2:
            return (x @ (self.w * 0.5)).sum()
        return (x @ self.w).sum()


def test_training_through_a_predicate_of_a_parameter():
    torch.manual_seed(0)
    eager = Clipped()
    m = Clipped()
    m.load_state_dict(eager.state_dict())
    jm = tc.jit(m)
    x = torch.randn(2, 4)
    for scale in (0.1, 10.0, 0.1):
        with torch.no_grad():
            for mod in (m, eager):
                mod.w.mul_(scale)
        for mod in (m, eager):
            mod.w.grad = None
        torch.testing.assert_close(jm(x), eager(x))
        jm(x).backward()
        eager(x).backward()
        torch.testing.assert_close(m.w.grad, eager.w.grad)
    assert tc.cache_misses(jm) == 2


class Twice(torch.nn.Module):
    """I-BERT's embeddings: one QuantAct called twice per forward, the second call's predicate
    on buffers the first one set from activations (made with the inputs' symbolic sizes)."""

    def __init__(self):
        super().__init__()
        self.act = Calibrated()

    def forward(self, x):
        y = self.act(x + torch.zeros(x.shape[0]))
        return self.act(y * 2)


def test_a_predicate_of_what_the_call_computed_from_inputs():
    eager, m = Twice(), Twice()
    jm = tc.jit(m)
    for n in (3, 4, 5, 4):
        x = torch.randn(n) * n
        torch.testing.assert_close(jm(x), eager(x))
        torch.testing.assert_close(m.act.x_min, eager.act.x_min)


def test_item_of_a_bool_predicate_of_inputs_is_its_guarded_truth():
    # HF LED and Longformer: `is_global_attn = is_index_global_attn.flatten().any().item()`
    def f(x, global_mask):
        is_global = (global_mask > 0).flatten().any().item()
        return x * 2 if is_global else x - 1

    jf = tc.jit(f)
    x = torch.randn(2, 3)
    for m in (torch.zeros(2, 3), torch.tensor([[0.0, 1.0, 0.0], [0.0, 0.0, 0.0]]), torch.zeros(2, 3)):
        torch.testing.assert_close(jf(x, m), f(x, m))
    assert tc.cache_misses(jf) == 2
