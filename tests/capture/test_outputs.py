"""Outputs come back with their own type in every mode (dataclasses, named tuples,
torch.return_types, OrderedDict subclasses, pytree-registered types, objects made during the
call), such containers are accepted as inputs, and outside state written or read back behaves
as in CPython (undo with base-type methods, fresh objects written to registries)."""

import collections
import dataclasses
from typing import NamedTuple

import pytest
import torch
import torch.utils._pytree as pytree

import thunder_core as tc


@dataclasses.dataclass
class Pair:
    a: torch.Tensor
    b: torch.Tensor
    note: str = "pair"


class Named(NamedTuple):
    y: torch.Tensor
    n: int


class Out(collections.OrderedDict):
    pass


class Registered:
    def __init__(self, t, k):
        self.t, self.k = t, k


pytree.register_pytree_node(Registered, lambda r: ([r.t], r.k), lambda xs, k: Registered(xs[0], k))


class Cache:
    """A cache object holding tensors, made inside the call (like transformers' DynamicCache)."""

    def __init__(self):
        self.layers = []

    def update(self, t):
        self.layers.append({"k": t})
        return t


def _check(got, want):
    assert type(got) is type(want), (type(got), type(want))
    if isinstance(want, torch.Tensor):
        torch.testing.assert_close(got, want)
    elif isinstance(want, dict):
        assert list(got) == list(want)
        for k in want:
            _check(got[k], want[k])
    elif isinstance(want, (tuple, list)):
        assert len(got) == len(want)
        for g, w in zip(got, want):
            _check(g, w)
    elif dataclasses.is_dataclass(want) or hasattr(want, "__dict__"):
        _check(vars(got), vars(want))
    else:
        assert got == want


lin = torch.nn.Linear(2, 2)


def f_dataclass(x):
    return Pair(lin(x), x * 2)


def f_named(x):
    return Named(lin(x), 3)


def f_odict_subclass(x):
    o = Out()
    o["y"] = lin(x)
    o["z"] = x + 1
    return o


def f_registered(x):
    return Registered(lin(x), "key")


def f_cache(x):
    c = Cache()
    c.update(lin(x))
    c.update(x * 3)
    return x.sum(), c


def f_return_types(x):
    return torch.max(x, 0), x.sort(-1)


def f_nested(x):
    return {"pair": Pair(x, x + 1), "list": [Named(x * 2, 1)], "t": (x, None, "s")}


FNS = [f_dataclass, f_named, f_odict_subclass, f_registered, f_cache, f_return_types, f_nested]


@pytest.mark.parametrize("mode", ["grad", "no_grad", "inference"])
@pytest.mark.parametrize("fn", FNS, ids=lambda f: f.__name__[2:])
def test_output_keeps_its_type(fn, mode):
    ctx = {"grad": torch.enable_grad, "no_grad": torch.no_grad, "inference": torch.inference_mode}[mode]
    jf = tc.jit(fn)
    with ctx():
        for k in range(2):
            x = torch.randn(3, 2) + k
            _check(jf(x), fn(x))
    assert tc.cache_hits(jf) == 1


def test_objects_made_by_the_call_are_new_on_every_call():
    jf = tc.jit(f_cache)
    x = torch.randn(3, 2)
    _, c1 = jf(x)
    _, c2 = jf(x)
    assert c1 is not c2 and c1.layers is not c2.layers


def test_dict_subclass_output_under_grad_keeps_attribute_access():
    class Sample(collections.OrderedDict):
        def __getattr__(self, k):
            return self[k]

    def f(x):
        o = Sample()
        o["sample"] = lin(x)
        return o

    out = tc.jit(f)(torch.ones(2))
    assert type(out) is Sample and out.sample.shape == (2,)
    out.sample.sum().backward()


def test_containers_as_inputs():
    def f(p, n, o, r):
        return p.a * p.b + n.y * n.n + o["y"] + r.t

    jf = tc.jit(f)
    t = torch.randn(2)
    args = (Pair(t, t + 1), Named(t * 2, 3), Out(y=t), Registered(t - 1, "k"))
    torch.testing.assert_close(jf(*args), f(*args))
    args2 = (Pair(t + 5, t), Named(t, 4), Out(y=t * 0), Registered(t, "k"))
    torch.testing.assert_close(jf(*args2), f(*args2))


class Registry(dict):
    def update(self, *a, **k):
        raise RuntimeError("disabled")

    def clear(self):
        raise RuntimeError("disabled")


REG = Registry()


def test_dict_subclass_written_is_restored_with_dicts_own_methods():
    def f(x):
        REG["n"] = REG.get("n", 0) + 1
        return x * 2

    jf = tc.jit(f)
    for _ in range(3):
        torch.testing.assert_close(jf(torch.ones(2)), torch.ones(2) * 2)
    assert REG == {"n": 3} and type(REG) is Registry
    REG.pop("n")


class State:
    pass


class Reg:
    state = None


REG2 = Reg()


def test_fresh_object_written_on_every_call():
    def f(x):
        REG2.state = State()
        REG2.state.count = getattr(REG2, "calls", 0)
        Reg.last = REG2.state  # a class attribute too (its __dict__ is a read-only mappingproxy)
        return x * 2

    jf = tc.jit(f)
    seen = []
    for _ in range(3):
        torch.testing.assert_close(jf(torch.ones(2)), torch.ones(2) * 2)
        seen.append(REG2.state)
        assert type(REG2.state) is State and Reg.last is REG2.state
    assert len({id(s) for s in seen}) == 3
    del Reg.last


class Active:
    current = None
    marker = "kept"


def test_class_attributes_set_restored_and_deleted_as_in_eager():
    # DistributedDataParallel's _inside_ddp_forward: a class attribute set for the duration of
    # the forward and restored after; and one deleted, then made again
    def f(x):
        old = Active.current
        Active.current = "inside"
        try:
            y = x * 2
        finally:
            Active.current = old
        del Active.marker
        Active.marker = "made again"
        return y

    jf = tc.jit(f)
    for _ in range(2):
        torch.testing.assert_close(jf(torch.ones(2)), torch.full((2,), 2.0))
        assert Active.current is None and Active.marker == "made again"
        Active.marker = "kept"


class Layer:
    def __init__(self):
        self.initialized = False

    def update(self, t):
        if not self.initialized:
            self.dtype = t.dtype  # written, then read back below: the call's own value
            self.keys = torch.zeros(0, t.shape[-1], dtype=self.dtype)
            self.initialized = True
        self.keys = torch.cat([self.keys, t])
        return self.keys


def test_state_written_then_read_back_in_the_same_call():
    layer = Layer()
    eager = Layer()
    jf = tc.jit(lambda layer, t: layer.update(t) * 2)
    for k in range(3):
        t = torch.full((1, 2), float(k))
        torch.testing.assert_close(jf(layer, t), eager.update(t) * 2)
    torch.testing.assert_close(layer.keys, eager.keys)
    assert layer.dtype is torch.float32 and layer.initialized


FLAGS = {"scale": 2.0}


def test_membership_and_get_on_outside_dicts_are_guarded():
    def f(x):
        if "shift" in FLAGS:
            x = x + FLAGS["shift"]
        return x * FLAGS.get("scale", 1.0) + FLAGS.get("bias", 0.0)

    jf = tc.jit(f)
    x = torch.ones(2)
    torch.testing.assert_close(jf(x), f(x))
    FLAGS["shift"] = 1.0
    torch.testing.assert_close(jf(x), f(x))
    FLAGS["bias"] = 5.0
    torch.testing.assert_close(jf(x), f(x))
    FLAGS["scale"] = 3.0
    torch.testing.assert_close(jf(x), f(x))
    assert tc.cache_misses(jf) == 4
    del FLAGS["shift"], FLAGS["bias"]
    FLAGS["scale"] = 2.0


HELD = {"a": 1}


def test_returning_an_outside_container_returns_that_object():
    def f(x):
        return HELD, [HELD], x * 2

    jf = tc.jit(f)
    for _ in range(2):
        out = jf(torch.ones(1))
        assert out[0] is HELD and out[1][0] is HELD and type(out[1]) is list
