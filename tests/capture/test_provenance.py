"""Values reached through C-level iteration, unpacking and builtins keep where they came from:
module parameters iterated with enumerate/zip/map/reversed/filter/next/dict views/unpacking
enter the trace as inputs the prologue fetches again, and the containers' lengths are guarded.
Every test compares with eager on a first call, a cached call, and a call after the module
changed."""

import collections
import itertools

import pytest
import torch

import thunder_core as tc


def _blocks(n=3, d=4):
    torch.manual_seed(0)
    return torch.nn.ModuleList(torch.nn.Linear(d, d) for _ in range(n))


class Stack(torch.nn.Module):
    """Iterates its blocks with ``how`` (a function of the ModuleList)."""

    def __init__(self, how, n=3):
        super().__init__()
        self.h = _blocks(n)
        self.how = how

    def forward(self, x):
        return self.how(self.h, x)


def _enumerate(h, x):
    for i, b in enumerate(h):
        x = b(x) * (i + 1)
    return x


def _zip(h, x):
    for b, s in zip(h, (1.0, 2.0, 3.0)):
        x = b(x) * s
    return x


def _map(h, x):
    for y in map(lambda b: b(x), h):
        x = x + y
    return x


def _reversed(h, x):
    for b in reversed(h):
        x = b(x)
    return x


def _filter(h, x):
    for b in filter(lambda b: b.out_features == 4, h):
        x = b(x)
    return x


def _iter_next(h, x):
    it = iter(h)
    first = next(it)
    x = first(x)
    for b in it:
        x = b(x)
    return next(iter(h))(x)


def _list_sorted(h, x):
    for b in list(h)[::-1] + sorted(h, key=lambda b: -b.in_features):
        x = b(x)
    return x


def _chain(h, x):
    for b in itertools.chain(h, h):
        x = b(x)
    return x


def _items(h, x):
    for name, b in h._modules.items():
        x = b(x) + int(name)
    return x


def _values_sum(h, x):
    return sum(b(x) for b in h._modules.values())


def _unpack(h, x):
    a, b, c = h
    first, *rest = h
    for m in (a, b, c, first, *rest):
        x = m(x)
    return x


WAYS = [_enumerate, _zip, _map, _reversed, _filter, _iter_next, _list_sorted, _chain, _items, _values_sum, _unpack]


@pytest.mark.parametrize("how", WAYS, ids=lambda f: f.__name__.strip("_"))
def test_modulelist_iterated_by_builtins(how):
    m = Stack(how)
    jm = tc.jit(m)
    x = torch.randn(2, 4)
    torch.testing.assert_close(jm(x), m(x))
    torch.testing.assert_close(jm(x + 1), m(x + 1))
    assert tc.cache_hits(jm) == 1
    with torch.no_grad():  # new values in place: fetched again, no recompile
        m.h[1].weight.mul_(2)
    torch.testing.assert_close(jm(x), m(x))
    assert tc.cache_misses(jm) == 1
    m.h[2] = torch.nn.Linear(4, 4)  # a new block object: the path finds it
    torch.testing.assert_close(jm(x), m(x))


@pytest.mark.parametrize("how", [_enumerate, _zip, _map, _items], ids=lambda f: f.__name__.strip("_"))
def test_length_of_iterated_container_is_guarded(how):
    m = Stack(how, n=2)
    jm = tc.jit(m)
    x = torch.randn(2, 4)
    torch.testing.assert_close(jm(x), m(x))
    m.h.append(torch.nn.Linear(4, 4))
    torch.testing.assert_close(jm(x), m(x))
    assert tc.cache_misses(jm) == 2


def test_bound_forward_of_a_module():
    m = Stack(_enumerate)
    x = torch.randn(2, 4)
    jf = tc.jit(m.forward)
    torch.testing.assert_close(jf(x), m(x))
    torch.testing.assert_close(jf(x), m(x))
    assert tc.cache_hits(jf) == 1


def test_forward_replaced_by_its_jitted_self():
    m = Stack(_enumerate)
    x = torch.randn(2, 4)
    expected = m(x)
    m.forward = tc.jit(m.forward)
    torch.testing.assert_close(m(x), expected)
    torch.testing.assert_close(m(x), expected)
    assert tc.cache_hits(m.forward) == 1


class Dicts(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.blocks = torch.nn.ModuleDict({"a": torch.nn.Linear(4, 4), "b": torch.nn.Linear(4, 4)})
        self.scales = torch.nn.ParameterList([torch.nn.Parameter(torch.full((4,), 2.0)),
                                              torch.nn.Parameter(torch.full((4,), 3.0))])
        self.extra = torch.nn.ParameterDict({"bias": torch.nn.Parameter(torch.ones(4))})

    def forward(self, x):
        for name, block in self.blocks.items():
            x = block(x)
        for block in self.blocks.values():
            x = block(x)
        for s in self.scales:
            x = x * s
        for k, p in self.extra.items():
            x = x + p
        w, *_ = self.scales
        return x * w


def test_moduledict_parameterlist_parameterdict():
    m = Dicts()
    jm = tc.jit(m)
    x = torch.randn(2, 4)
    torch.testing.assert_close(jm(x), m(x))
    with torch.no_grad():
        m.scales[0].fill_(5.0)
    torch.testing.assert_close(jm(x), m(x))
    assert tc.cache_hits(jm) == 1


class UsesParameters(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(4, 4)
        self.norm = torch.nn.LayerNorm(4)

    def forward(self, x):
        dtype = next(self.parameters()).dtype
        n = sum(p.numel() for p in self.parameters())
        names = [name for name, _ in self.named_parameters()]
        total = sum(p.sum() for _, p in self.named_parameters())
        return self.norm(self.lin(x.to(dtype))) * n + total + len(names)


def test_parameters_and_named_parameters_inside_forward():
    m = UsesParameters()
    jm = tc.jit(m)
    x = torch.randn(2, 4, dtype=torch.float64)
    torch.testing.assert_close(jm(x), m(x))
    with torch.no_grad():
        m.lin.bias.add_(1)
    torch.testing.assert_close(jm(x), m(x))  # the parameters are fetched again: no stale values
    assert tc.cache_hits(jm) == 1
    m.lin.weight.grad = None
    out = jm(x).sum()
    out.backward()
    assert m.lin.weight.grad is not None


W = [torch.ones(3), torch.full((3,), 2.0)]
PAIR = (torch.ones(3), torch.full((3,), 3.0))


def test_unpacking_outside_lists():
    def f(x):
        w, *_ = W
        a, b = PAIR
        *_, last = W
        return x * w + a * b + last

    jf = tc.jit(f)
    x = torch.randn(3)
    torch.testing.assert_close(jf(x), f(x))
    W[0] = torch.full((3,), 7.0)
    torch.testing.assert_close(jf(x), f(x))
    W[0] = torch.ones(3)


class Layer:
    """A plain Python class iterated by unpacking (its __iter__ is Python)."""

    def __init__(self, *mods):
        self.mods = mods

    def __iter__(self):
        return iter(self.mods)


def test_unpacking_a_python_iterable_holding_modules():
    norm, block = torch.nn.LayerNorm(4), torch.nn.Linear(4, 4)
    layer = Layer(norm, block, 0.5)

    def f(x):
        n, b, scale = layer
        return b(n(x)) * scale

    jf = tc.jit(f)
    x = torch.randn(2, 4)
    torch.testing.assert_close(jf(x), f(x))
    with torch.no_grad():
        block.weight.mul_(3)
    torch.testing.assert_close(jf(x), f(x))


def test_list_and_tuple_of_tensors_as_arguments():
    a, b = torch.randn(2, 3), torch.randn(2, 3)
    jcat = tc.jit(lambda ts: torch.cat(ts))
    torch.testing.assert_close(jcat([a, b]), torch.cat([a, b]))
    torch.testing.assert_close(jcat([b, a]), torch.cat([b, a]))
    assert tc.cache_hits(jcat) == 1
    torch.testing.assert_close(jcat([a, b, a]), torch.cat([a, b, a]))  # another length: recompiled
    jstack = tc.jit(lambda ts, dim: torch.stack(ts, dim))
    torch.testing.assert_close(jstack((a, b), 1), torch.stack((a, b), 1))
    jein = tc.jit(lambda ops: torch.einsum("ij,kj->ik", ops))
    torch.testing.assert_close(jein([a, b]), torch.einsum("ij,kj->ik", [a, b]))
    jmd = tc.jit(lambda ms: torch.linalg.multi_dot(ms))
    ms = [torch.randn(2, 3), torch.randn(3, 4), torch.randn(4, 2)]
    torch.testing.assert_close(jmd(ms), torch.linalg.multi_dot(ms))
    jmesh = tc.jit(lambda ts: torch.meshgrid(ts, indexing="ij"))
    xs = [torch.arange(3.0), torch.arange(2.0)]
    for got, want in zip(jmesh(xs), torch.meshgrid(xs, indexing="ij")):
        torch.testing.assert_close(got, want)
    x = torch.zeros(5)
    idx = torch.tensor([0, 2])
    jip = tc.jit(lambda x, ind, v: x.index_put(ind, v))
    torch.testing.assert_close(jip(x, (idx,), torch.ones(2)), x.index_put((idx,), torch.ones(2)))


def test_dict_of_tensors_argument():
    d = {"a": torch.randn(3), "b": torch.randn(3)}
    jf = tc.jit(lambda d: torch.stack(list(d.values())) * 2)
    torch.testing.assert_close(jf(d), torch.stack(list(d.values())) * 2)
    d2 = {"a": torch.randn(3), "b": torch.randn(3)}
    torch.testing.assert_close(jf(d2), torch.stack(list(d2.values())) * 2)
    assert tc.cache_hits(jf) == 1


class Settings:
    scale = 2.0


SETTINGS = Settings()
REF = __import__("weakref").ref(SETTINGS)


def test_value_native_code_returned_is_never_used_unchecked():
    # REF() is SETTINGS, returned by a C call: no path reads it again, so the compile is not
    # cached (a warning says why) and a change of the value is seen on the next call
    def f(x):
        return x * REF().scale

    jf = tc.jit(f)
    x = torch.ones(2)
    with pytest.warns(tc.api.RecompileWarning, match="is not cached"):
        torch.testing.assert_close(jf(x), f(x))
    SETTINGS.scale = 5.0
    with pytest.warns(tc.api.RecompileWarning):
        torch.testing.assert_close(jf(x), f(x))
    assert tc.cache_hits(jf) == 0
    SETTINGS.scale = 2.0


class Pairs:
    """An iterable whose __iter__ is a Python generator reading its own attributes."""

    def __init__(self, a, b):
        self.a, self.b = a, b

    def __iter__(self):
        yield self.a
        yield self.b


PAIRS = Pairs(torch.nn.Linear(2, 2), torch.nn.Linear(2, 2))


def test_python_generator_iter_items_keep_their_attribute_paths():
    def f(x):
        for m in PAIRS:
            x = m(x)
        return x

    jf = tc.jit(f)
    x = torch.randn(1, 2)
    torch.testing.assert_close(jf(x), f(x))
    prologue = tc.last_prologue_traces(jf)[0]
    assert "list(" not in prologue  # fetched as PAIRS.a.weight ..., never by re-running the generator
    PAIRS.b = torch.nn.Linear(2, 2)
    torch.testing.assert_close(jf(x), f(x))
