"""The guarded cache: hits and misses for every kind of change, globals and closures, -O."""

import subprocess
import sys
import textwrap

import pytest
import torch

import thunder_core as tc

SCALE = 2.0
ACT = "relu"


def test_hit_after_first_call_and_results_match():
    def f(a, b):
        return a * b + a

    jf = tc.jit(f)
    a, b = torch.randn(3, 4), torch.randn(3, 4)
    torch.testing.assert_close(jf(a, b), f(a, b))
    torch.testing.assert_close(jf(a, b), f(a, b))
    assert (tc.cache_misses(jf), tc.cache_hits(jf)) == (1, 1)


@pytest.mark.parametrize("change", ["shape", "dtype", "rank", "requires_grad"])
def test_tensor_metadata_change_is_a_miss(change):
    def f(a):
        return a * 2

    # a new size is a miss only with constant values (the default keeps sizes of 2 or more symbolic)
    jf = tc.jit(f, cache="constant values") if change == "shape" else tc.jit(f)
    a = torch.randn(3)
    jf(a)
    b = {"shape": torch.randn(4), "dtype": torch.randn(3, dtype=torch.float64), "rank": torch.randn(3, 1),
         "requires_grad": torch.randn(3, requires_grad=True)}[change]
    torch.testing.assert_close(jf(b), f(b))
    jf(b)
    jf(a)
    assert tc.cache_misses(jf) == 2 and tc.cache_hits(jf) == 2


@pytest.mark.parametrize("first,second", [(2, 3), (2.0, 2.5), (True, False), ("mean", "sum")])
def test_number_and_string_arguments_are_guarded_by_value(first, second):
    def f(a, k):
        if isinstance(k, str):
            return a.sum() if k == "sum" else a.mean()
        return a * k

    jf = tc.jit(f, cache="constant values")  # the mode under test: every value its own entry
    a = torch.randn(4)
    for k in (first, first, second, first):
        torch.testing.assert_close(jf(a, k), f(a, k))
    assert tc.cache_misses(jf) == 2 and tc.cache_hits(jf) == 2
    # the default keeps int and float arguments symbolic (one entry); bools and strings are values
    jd = tc.jit(f)
    for k in (first, first, second, first):
        torch.testing.assert_close(jd(a, k), f(a, k))
    assert tc.cache_misses(jd) == (1 if type(first) in (int, float) else 2)


def test_int_and_float_of_equal_value_are_different_entries():
    jf = tc.jit(lambda a, k: a * k)
    a = torch.ones(2, dtype=torch.int64)
    assert jf(a, 2).dtype == torch.int64
    assert jf(a, 2.0).dtype == torch.float32
    assert tc.cache_misses(jf) == 2


def test_kwarg_changes():
    def f(a, *, scale=1.0, shift=None):
        out = a * scale
        return out if shift is None else out + shift

    jf = tc.jit(f, cache="constant values")  # a new scale is a new entry in this mode (the default: symbolic)
    a = torch.randn(3)
    torch.testing.assert_close(jf(a, scale=2.0), f(a, scale=2.0))
    torch.testing.assert_close(jf(a, scale=2.0), f(a, scale=2.0))
    torch.testing.assert_close(jf(a, scale=3.0), f(a, scale=3.0))
    torch.testing.assert_close(jf(a, shift=torch.ones(3)), f(a, shift=torch.ones(3)))
    assert tc.cache_misses(jf) == 3 and tc.cache_hits(jf) == 1


def uses_global(a):
    return a * SCALE


def test_global_number_change_is_seen():
    global SCALE
    jf = tc.jit(uses_global)
    a = torch.ones(2)
    try:
        SCALE = 2.0
        assert jf(a).tolist() == [2.0, 2.0]
        SCALE = 5.0
        assert jf(a).tolist() == [5.0, 5.0]
        SCALE = 2.0
        assert jf(a).tolist() == [2.0, 2.0]
    finally:
        SCALE = 2.0
    assert tc.cache_misses(jf) == 2 and tc.cache_hits(jf) == 1


G_TENSOR = torch.ones(3)


def test_global_tensor_is_an_input_and_its_changes_are_seen():
    global G_TENSOR

    def f(a):
        return a + G_TENSOR

    jf = tc.jit(f)
    a = torch.zeros(3)
    try:
        assert jf(a).tolist() == [1, 1, 1]
        G_TENSOR = torch.full((3,), 7.0)  # same metadata, new values: a hit with the new tensor
        assert jf(a).tolist() == [7, 7, 7]
        assert tc.cache_misses(jf) == 1
        G_TENSOR = torch.ones(4)          # new shape: a miss (and broadcasting error as in eager)
        with pytest.raises(RuntimeError):
            f(a)
        with pytest.raises(RuntimeError):
            jf(a)
    finally:
        G_TENSOR = torch.ones(3)


@pytest.mark.parametrize("spread", ["call", "list", "kwargs"])
def test_tensors_spread_from_an_outside_container_are_inputs(spread):
    pair = [torch.zeros(3), torch.ones(3)]
    named = {"input": pair[0], "other": pair[1]}
    fns = {"call": lambda x: torch.add(*pair) + x, "list": lambda x: torch.stack([x, *pair]).sum(0),
           "kwargs": lambda x: torch.add(**named) + x}
    jf, x = tc.jit(fns[spread]), torch.zeros(3)
    torch.testing.assert_close(jf(x), fns[spread](x))
    for t in pair:
        t += 5  # the same tensors, new values: read at call time, not baked into the trace
    torch.testing.assert_close(jf(x), fns[spread](x))
    assert "tensor(" not in str(tc.last_traces(jf)[-1])


def _double(x):
    return x * 2


def _triple(x):
    return x * 3


HELPER = _double


def test_global_function_change_is_seen():
    global HELPER

    def f(a):
        return HELPER(a)

    jf = tc.jit(f)
    a = torch.ones(2)
    try:
        assert jf(a).tolist() == [2, 2]
        HELPER = _triple
        assert jf(a).tolist() == [3, 3]
    finally:
        HELPER = _double


def test_closure_value_change_is_seen():
    k = 2

    def f(a):
        return a * k

    jf = tc.jit(f)
    a = torch.ones(2)
    assert jf(a).tolist() == [2, 2]
    k = 4
    assert jf(a).tolist() == [4, 4]
    assert jf(a).tolist() == [4, 4]
    assert tc.cache_misses(jf) == 2 and tc.cache_hits(jf) == 1


def test_grad_mode_is_part_of_the_key_with_a_tensor_requiring_grad():
    # (without one, both modes share an entry: tests/test_state_guards.py)
    jf = tc.jit(lambda a: a * 2)
    a = torch.ones(2, requires_grad=True)
    jf(a)
    with torch.no_grad():
        assert not jf(a).requires_grad
    assert tc.cache_misses(jf) == 2


def test_no_caching_and_same_input_modes():
    f = lambda a: a + 1  # noqa: E731
    jf = tc.jit(f, cache="no caching")
    a = torch.ones(2)
    jf(a), jf(a)
    assert tc.cache_misses(jf) == 2 and tc.cache_hits(jf) == 0
    js = tc.jit(f, cache="same input")
    js(a), js(a)
    assert tc.cache_misses(js) == 1 and tc.cache_hits(js) == 1
    assert js(torch.full((2,), 5.0)).tolist() == [6.0, 6.0]


def test_many_misses_warn_once_naming_what_changed():
    def f(a):
        return a * 2

    jf = tc.jit(f, cache="constant values")  # every size its own entry in this mode
    with pytest.warns(tc.api.RecompileWarning, match=r"compiled 9 times.*argument a: tensor \(8,\).*-> tensor \(9,\)"
                      r".*cache='symbolic values'"):
        for n in range(1, 11):
            jf(torch.ones(n))


def test_unknown_cache_mode_is_an_error():
    with pytest.raises(ValueError, match="cache="):
        tc.jit(lambda a: a, cache="sometimes")


def test_checks_survive_python_dash_O(tmp_path):
    script = tmp_path / "o.py"
    script.write_text(textwrap.dedent("""
        import torch, thunder_core as tc
        def f(a):
            return a * 2
        jf = tc.jit(f)
        jf(torch.ones(3))
        out = jf(torch.ones(3, dtype=torch.float64))
        assert False or True
        print(tc.cache_misses(jf), out.dtype)
    """))
    r = subprocess.run([sys.executable, "-O", str(script)], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["2", "torch.float64"]


class _Box:
    pass


@pytest.mark.parametrize("second", ["fewer", "more", "keyword", "unused type", "subclass"])
def test_the_one_call_hit_path_keeps_the_dispatch_keys_distinctions(second):
    """A hit on the entry that ran last is checked and run by one generated function
    (prologue.hit_method); it still tells apart everything the dispatch key does, including
    an argument the function never reads."""
    def f(a, b=None, *rest, **kw):
        return a * 2 + len(rest)

    class Sub(torch.Tensor):
        pass

    jf = tc.jit(f)
    a = torch.randn(3)
    jf(a, 1)
    jf(a, 1)
    call = {"fewer": ((a,), {}), "more": ((a, 1, 5), {}), "keyword": ((a, 1), {"k": 1}),
            "unused type": ((a, "x"), {}), "subclass": ((a.as_subclass(Sub), 1), {})}[second]
    torch.testing.assert_close(jf(*call[0], **call[1]), f(*call[0], **call[1]))
    assert (tc.cache_misses(jf), tc.cache_hits(jf)) == (2, 1)
    jf(a, 1)  # the first entry is still found
    assert (tc.cache_misses(jf), tc.cache_hits(jf)) == (2, 2)


def test_an_error_of_the_computation_on_a_hit_propagates_and_is_not_a_miss():
    def f(x):
        return torch.linalg.cholesky(x)

    jf = tc.jit(f)
    jf(torch.eye(3))
    with pytest.raises(torch.linalg.LinAlgError):
        f(-torch.eye(3))  # eager raises
    with pytest.raises(torch.linalg.LinAlgError):
        jf(-torch.eye(3))  # so does the hit, once, without compiling again
    assert (tc.cache_misses(jf), tc.cache_hits(jf)) == (1, 1)


def test_the_hit_path_for_the_traced_sizes_and_other_sizes_agree_with_eager():
    """The one-call hit path is specialised to the sizes and strides the entry was traced
    for (guards/prologue.py, static=True); other sizes, strides and sizes that fail a traced
    predicate go through the general prologue: the same entry, or a compile where eager
    would branch otherwise."""
    def f(x, y):
        if x.shape[0] > 4:
            return x * y + x.shape[0]
        return x - y

    jf = tc.jit(f)
    calls = [(8, 8), (8, 8), (16, 8), (8, 8), (3, 8), (8, 8), "transposed", (8, 8)]
    for c in calls:
        if c == "transposed":
            x, y = torch.randn(8, 8).t(), torch.randn(8, 8)
        else:
            x, y = torch.randn(*c), torch.randn(*c)
        torch.testing.assert_close(jf(x, y), f(x, y))
    # one compile for sizes above 4 (any of them, any strides), one for 3
    assert (tc.cache_misses(jf), tc.cache_hits(jf)) == (2, len(calls) - 2)


def test_the_general_prologue_is_compiled_only_when_a_call_needs_it():
    """A compile's first call and the hits of its sizes run through the one-call hit function
    (guards/prologue.py hit_method): the general prologue, which accepts other sizes, is compiled
    the first time a call reaches it, and that call is a hit, not a compile."""
    def f(x, y):
        return x * y + x

    jf = tc.jit(f)
    for _ in range(3):
        x, y = torch.randn(8, 8), torch.randn(8, 8)
        torch.testing.assert_close(jf(x, y), f(x, y))
    (entry,) = [e for es in jf._entries.values() for e in es]
    assert entry.prologue._fn is None  # (never needed so far)
    x, y = torch.randn(5, 8), torch.randn(5, 8)  # another size: the general prologue's
    torch.testing.assert_close(jf(x, y), f(x, y))
    assert entry.prologue._fn is not None
    assert (tc.cache_misses(jf), tc.cache_hits(jf)) == (1, 3)


class _Mode(__import__("enum").Enum):
    A = 1
    B = 2


class _Token:
    pass


_TOKENS = (_Token(), _Token())


class _Cfg:
    def __init__(self):
        self.mode, self.token = _Mode.A, _TOKENS[0]


@pytest.mark.parametrize("how", ["enum is", "enum ==", "enum dict key", "object is", "object =="])
def test_a_change_of_which_object_an_attribute_holds_is_a_miss(how):
    # (enum members and plain objects were guarded by type only: `cfg.mode is Mode.B` kept
    # its first answer after cfg.mode changed: silently the other branch)
    cfg = _Cfg()
    table = {_Mode.A: 3.0, _Mode.B: -1.0}

    def f(x):
        if how == "enum is":
            return -x if cfg.mode is _Mode.B else x * 2
        if how == "enum ==":
            return -x if cfg.mode == _Mode.B else x * 2
        if how == "enum dict key":
            return x * table[cfg.mode]
        if how == "object is":
            return -x if cfg.token is _TOKENS[1] else x * 2
        return -x if cfg.token == _TOKENS[1] else x * 2

    jf = tc.jit(f)
    x = torch.ones(2)
    for mode, token in ((_Mode.A, 0), (_Mode.B, 1), (_Mode.B, 1), (_Mode.A, 0)):
        cfg.mode, cfg.token = mode, _TOKENS[token]
        torch.testing.assert_close(jf(x), f(x))
    assert (tc.cache_misses(jf), tc.cache_hits(jf)) == (2, 2)
