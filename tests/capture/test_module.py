"""tc.jit(module) is the module with compiled calls: same class, same state, and every method
that calls ``self(...)`` or ``self.forward(...)`` goes through the compiled forward."""

import inspect

import pytest
import torch

import thunder_core as tc


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(4, 4)
        self.calls = 0

    def forward(self, x, scale: float = 1.0, *, shift=0.0):
        return self.lin(x) * scale + shift

    def predict(self, x):
        return self(x).argmax(-1)

    def twice(self, x):
        return self.forward(self.forward(x))


def test_jitted_module_is_an_instance_of_the_model_class_sharing_its_state():
    m = Net()
    jm = tc.jit(m)
    assert isinstance(jm, Net) and isinstance(jm, torch.nn.Module)
    assert type(jm).__name__ == "Net" and repr(jm) == repr(m)
    assert jm.lin is m.lin and jm.lin.weight is m.lin.weight
    assert list(jm.state_dict()) == list(m.state_dict())
    jm.eval()
    assert not m.training
    m.train()
    assert jm.training
    jm.extra = 5
    assert m.extra == 5


def test_methods_calling_self_run_compiled():
    m = Net()
    jm = tc.jit(m)
    x = torch.randn(3, 4)
    torch.testing.assert_close(jm.predict(x), m.predict(x))
    assert tc.cache_misses(jm) == 1
    torch.testing.assert_close(jm.twice(x), m.twice(x))
    assert tc.cache_hits(jm) >= 1
    torch.testing.assert_close(Net.predict(jm, x), m.predict(x))  # the unbound method on the jitted module
    n = tc.cache_hits(jm) + tc.cache_misses(jm)
    jm.forward(x, 2.0, shift=1.0)
    assert tc.cache_hits(jm) + tc.cache_misses(jm) == n + 1


def test_forward_keeps_the_signature_of_the_model():
    jm = tc.jit(Net())
    assert inspect.signature(jm.forward) == inspect.signature(Net().forward)


def test_hooks_registered_on_either_run_once():
    m = Net()
    jm = tc.jit(m)
    seen = []
    jm.register_forward_hook(lambda mod, args, out: seen.append(out.shape))
    x = torch.randn(2, 4)
    torch.testing.assert_close(jm(x), m(x))
    assert seen == [torch.Size([2, 4])] * 2  # once for jm(x), once for m(x)


def test_a_jitted_module_cannot_be_pickled_silently():
    import copy

    with pytest.raises(TypeError, match="pickle or copy the original module"):
        copy.deepcopy(tc.jit(Net()))
