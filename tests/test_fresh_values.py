"""Values that are fresh on every call in eager (random draws, clocks, next() of an outside
iterator, the environment) are inputs drawn by the prologue on every call: compared with eager
over consecutive calls from the same seed, with the number of traces counted."""

import itertools
import os
import random
import time

import pytest
import torch

import thunder_core as tc

CALLS = 3
X = torch.zeros(2)


def same_as_eager(fn, *, calls=CALLS, seed=0, make_args=lambda i: (X,), traces=1, **jit_kw):
    """``calls`` calls of ``fn`` jitted and eagerly, each from Python's RNG seeded ``seed``:
    equal outputs, equal RNG state afterwards, ``traces`` compiles. Returns the outputs."""
    random.seed(seed)
    eager = [fn(*make_args(i)) for i in range(calls)]
    eager_state = random.getstate()
    jf = tc.jit(fn, **jit_kw)
    random.seed(seed)
    got = [jf(*make_args(i)) for i in range(calls)]
    for e, g in zip(eager, got):
        torch.testing.assert_close(g, e, rtol=0, atol=0)
    assert random.getstate() == eager_state, "Python's RNG did not advance as in eager"
    assert tc.cache_misses(jf) == traces, (tc.cache_misses(jf), traces)
    assert tc.cache_hits(jf) == calls - traces
    return got, jf


def test_random_random_is_a_new_number_on_every_call():
    got, jf = same_as_eager(lambda x: (x + 1) * random.random())
    assert len({round(g[0].item(), 6) for g in got}) == CALLS  # fresh, not frozen
    assert "random_random_0" in str(tc.last_traces(jf)[0])  # an input of the trace
    assert "random.random(...)" in tc.explain(jf)


def test_random_randint():
    got, _ = same_as_eager(lambda x: x + random.randint(0, 10 ** 6))
    assert len({g[0].item() for g in got}) == CALLS


def test_random_module_functions_written_in_python_and_their_arguments():
    def f(x, n):
        a = random.uniform(-1, n)              # arguments computed again on every call
        b = random.choice([2, 3, 5, 7])
        c = random.sample(range(100), 3)       # a list: its items are inputs
        return x * a + b + c[0] - c[2] + random.gauss(0, 1)

    same_as_eager(f, make_args=lambda i: (X, 4))
    # the symbolic argument n is computed by the prologue, not frozen: one trace for all n
    same_as_eager(f, make_args=lambda i: (X, 4 + i), cache="symbolic values")


def test_time_time_is_read_on_every_call():
    def f(x):
        return x + time.time()

    jf = tc.jit(f)
    x = torch.zeros(1, dtype=torch.float64)
    seen = []
    for _ in range(CALLS):
        before = time.time()
        out = jf(x).item()
        after = time.time()
        assert before <= out <= after  # this call's clock, not the one read while tracing
        seen.append(out)
    assert seen == sorted(seen) and len(set(seen)) == CALLS
    assert tc.cache_misses(jf) == 1


def test_clocks_in_nanoseconds_are_ints():
    jf = tc.jit(lambda x: x + (time.perf_counter_ns() - time.perf_counter_ns()))
    assert jf(torch.zeros(1, dtype=torch.int64)).item() <= 0  # the first read comes first, as in eager
    assert jf(torch.zeros(1, dtype=torch.int64)).item() <= 0 and tc.cache_misses(jf) == 1


def test_next_of_an_outside_itertools_count():
    counters = {"eager": itertools.count(10), "jit": itertools.count(10)}

    def make(which):
        counter = counters[which]

        def f(x):
            return x + next(counter)
        return f

    eager = [make("eager")(X) for _ in range(CALLS)]
    jf = tc.jit(make("jit"))
    got = [jf(X) for _ in range(CALLS)]
    assert [g[0].item() for g in got] == [e[0].item() for e in eager] == [10.0, 11.0, 12.0]
    assert next(counters["jit"]) == next(counters["eager"]) == 13
    assert tc.cache_misses(jf) == 1


def _three_then_stop(outcomes, fn, g):
    for _ in range(CALLS + 1):
        try:
            outcomes.append(fn(X, g).tolist())
        except StopIteration:
            outcomes.append("StopIteration")


def test_a_generator_consumed_across_calls_ends_as_in_eager():
    def gen():
        yield torch.ones(2)        # tensors from a generator are tensor inputs
        yield torch.full((2,), 5.0)
        yield torch.full((2,), 7.0)

    def f(x, g):
        return x + next(g)

    eager, got = [], []
    _three_then_stop(eager, f, gen())
    jf = tc.jit(f)
    _three_then_stop(got, jf, gen())
    assert got == eager == [[1.0, 1.0], [5.0, 5.0], [7.0, 7.0], "StopIteration"]
    assert tc.cache_misses(jf) == 2  # the end is another outcome: the compile of the last call raised it


def test_next_with_a_default_and_a_for_loop_over_an_outside_generator():
    def numbers():
        yield from (1, 2, 3, 4)

    def f(x, g):
        total = next(g, 100)
        for v in g:                # each step is a draw; the loop's end (StopIteration) is checked
            total += v
            if total > 4:
                break
        return x + total

    a, b = numbers(), numbers()
    eager = [f(X, a)[0].item() for _ in range(4)]
    jf = tc.jit(f)
    got = [jf(X, b)[0].item() for _ in range(4)]
    assert got == eager == [6.0, 4.0, 100.0, 100.0]


def test_send_to_an_outside_generator():
    def accumulate():
        total = 0
        while True:
            total += yield total

    def make():
        g = accumulate()
        next(g)
        return g

    f = lambda x, g: x + g.send(2)  # noqa: E731
    a, b = make(), make()
    eager = [f(X, a)[0].item() for _ in range(CALLS)]
    jf = tc.jit(f)
    assert [jf(X, b)[0].item() for _ in range(CALLS)] == eager == [2.0, 4.0, 6.0]
    assert tc.cache_misses(jf) == 1


def test_a_generator_running_another_jitted_function_that_draws():
    # the outer prologue's draw runs the generator, whose jitted function draws through its own log
    def scale(x):
        return x * random.random()

    def make(fn):
        def loader():
            while True:
                yield fn(torch.ones(2))
        g = loader()
        return lambda x: x + next(g) + random.random()

    eager, jf = make(scale), tc.jit(make(tc.jit(scale)))
    random.seed(0)
    want = [eager(X) for _ in range(CALLS)]
    random.seed(0)
    got = [jf(X) for _ in range(CALLS)]
    assert all(torch.equal(a, b) for a, b in zip(want, got)) and tc.cache_misses(jf) == 1


def test_random_seed_between_calls_is_followed():
    def f(x):
        return x + random.random() + random.randint(0, 9)

    def run(fn):
        out = []
        for seed in (1, 1, 2, None):
            if seed is not None:
                random.seed(seed)
            out.append(fn(X)[0].item())
        return out

    jf = tc.jit(f)
    assert run(jf) == run(f)
    assert tc.cache_misses(jf) == 1


def test_seeding_inside_the_function_happens_in_its_place():
    def f(x):
        a = random.random()
        random.seed(3)             # a draw too: the prologue reseeds between the two draws
        return x + a - random.random()

    same_as_eager(f)


def test_a_branch_on_random_takes_both_sides_with_two_traces():
    def f(x):
        if random.random() < 0.5:
            return x + 1
        return x - 1

    got, jf = same_as_eager(f, calls=20, traces=2)
    assert {g[0].item() for g in got} == {1.0, -1.0}
    assert "random_random_0 < 0.5 is" in tc.last_prologue_traces(jf)[0]


def test_draws_after_a_branch_on_a_draw_are_made_once_per_call():
    # When a cached prologue draws, then misses on the branch, the next prologue (or the new
    # trace) takes the same drawn number: Python's RNG advances exactly as in eager.
    def f(x):
        if random.random() < 0.3:
            return x + random.gauss(0, 1)
        n = random.randint(1, 3)
        return x * n + random.random()

    got, jf = same_as_eager(f, calls=30, traces=2)


def test_methods_of_random_generators_outside_the_function():
    rngs = [random.Random(7), random.Random(7)]

    def make(rng):
        def f(x):
            return x + rng.random() * rng.randint(1, 6)  # a C method and a Python one
        return f

    eager = [make(rngs[0])(X) for _ in range(CALLS)]
    jf = tc.jit(make(rngs[1]))
    got = [jf(X) for _ in range(CALLS)]
    assert all(torch.equal(a, b) for a, b in zip(eager, got))
    assert rngs[0].getstate() == rngs[1].getstate()


def test_a_generator_made_inside_from_a_seed_gives_the_same_numbers_on_every_call():
    def f(x):
        rng = random.Random(42)
        return x + rng.random()

    got, jf = same_as_eager(f)
    assert len({g[0].item() for g in got}) == 1
    assert "random" not in tc.explain(jf).split("\n", 1)[-1]  # nothing drawn: a constant


def test_a_fresh_number_printed_and_logged_on_every_call(capsys, caplog):
    import logging

    log = logging.getLogger("tc-fresh")

    def f(x):
        t = random.random()
        print("t =", t)
        log.warning("t=%.3f", t)
        return x + t

    with caplog.at_level(logging.WARNING, logger="tc-fresh"):
        same_as_eager(f)
    printed = capsys.readouterr().out.splitlines()
    assert printed[:CALLS] == printed[CALLS:] and len(set(printed)) == CALLS  # eager's lines, then the jit's
    messages = [r.getMessage() for r in caplog.records]
    assert messages[:CALLS] == messages[CALLS:]


def test_tensors_made_from_a_fresh_number():
    def f(x):
        return torch.tensor(random.random()) + x, torch.tensor([random.randint(0, 9), 1.5]) * 2

    same_as_eager(f, calls=4)  # one trace: the numbers in torch.tensor's data are not guarded


def test_fresh_numbers_with_the_default_executors(monkeypatch):
    monkeypatch.delenv("THUNDER_CORE_EXECUTORS", raising=False)  # the suite's default is torch only
    same_as_eager(lambda x: ((x * random.random()).sin() + random.randint(0, 6)).cos(), executors=None)


def test_gradients_through_a_fresh_number_and_a_branch_on_it():
    def f(w):
        s = random.random()
        if s < 0.5:
            return (w * s).sin().sum()
        return (w + s).cos().sum()

    def grads(fn):
        random.seed(0)
        out = []
        for _ in range(6):
            w = torch.ones(3, requires_grad=True)
            fn(w).backward()
            out.append(w.grad)
        return out

    jf = tc.jit(f)
    assert all(torch.equal(a, b) for a, b in zip(grads(jf), grads(f)))
    assert tc.cache_misses(jf) == 2 and tc.last_backward_traces(jf)  # split into forward and backward


def test_cache_same_input_still_draws_on_every_call():
    same_as_eager(lambda x: x + random.random(), cache="same input")


def test_no_caching_draws_once_per_call():
    same_as_eager(lambda x: x + random.random(), cache="no caching", traces=CALLS)


@pytest.fixture
def numpy():
    return pytest.importorskip("numpy")


def test_numpy_random_draws(numpy):
    def f(x):
        return x + numpy.random.rand() + numpy.random.randint(0, 100) + numpy.random.normal()

    def run(fn):
        numpy.random.seed(0)
        return [fn(X) for _ in range(CALLS)], numpy.random.rand()

    jf = tc.jit(f)
    (got, after), (eager, eager_after) = run(jf), run(f)
    assert all(torch.equal(a, b) for a, b in zip(got, eager)) and after == eager_after
    assert tc.cache_misses(jf) == 1


def test_numpy_generator_outside(numpy):
    gens = [numpy.random.default_rng(3), numpy.random.default_rng(3)]

    def make(g):
        return lambda x: x * g.random() + int(g.integers(0, 10))

    eager = [make(gens[0])(X) for _ in range(CALLS)]
    jf = tc.jit(make(gens[1]))
    assert all(torch.equal(a, b) for a, b in zip(eager, [jf(X) for _ in range(CALLS)]))


def test_a_numpy_array_draw_is_refused_naming_the_line(numpy):
    def f(x):
        return x + torch.from_numpy(numpy.random.rand(2)).float()

    with pytest.raises(tc.SharpEdgeError, match=r"test_fresh_values.py:\d+: numpy.random.rand\(...\) gives a new"):
        tc.jit(f)(X)


def test_environment_reads_are_checked_on_every_call(monkeypatch):
    monkeypatch.delenv("TC_FRESH_A", raising=False)
    monkeypatch.setenv("TC_FRESH_B", "2")

    def f(x):
        a = int(os.environ.get("TC_FRESH_A", "1"))
        b = int(os.getenv("TC_FRESH_B"))
        return x + a * 10 + b + ("TC_FRESH_C" in os.environ)

    jf = tc.jit(f)
    assert torch.equal(jf(X), f(X))
    monkeypatch.setenv("TC_FRESH_A", "3")     # a key that was absent: its absence was checked
    assert torch.equal(jf(X), f(X))
    monkeypatch.setenv("TC_FRESH_C", "")
    assert torch.equal(jf(X), f(X))
    monkeypatch.setenv("TC_FRESH_B", "4")
    assert torch.equal(jf(X), f(X))
    assert tc.cache_misses(jf) == 4
    jf(X)
    assert tc.cache_hits(jf) == 1


def test_values_that_cannot_be_inputs_are_refused_or_frozen_visibly():
    def f(x):
        return x + os.urandom(1)[0]

    with pytest.raises(tc.SharpEdgeError, match=r"test_fresh_values.py:\d+: os.urandom\(...\) gives a new value on "
                                                r"every call, a bytes, which cannot be an input"):
        tc.jit(f)(X)
    jf = tc.jit(f, sharp_edges={"opaque-call": "allow"})
    assert torch.equal(jf(X), jf(X))  # the value read while tracing, as allowed
    assert "os.urandom(...) = b" in tc.explain(jf)  # (b'…', or b"'" when the byte drawn is a quote: 1 in 256)


def test_uuids_are_inputs_whose_numbers_are_symbolic():
    import uuid

    def f(x):
        u = uuid.uuid4()
        return x + u.int % 1_000_000 + (u.version == 4)  # attributes: numbers of this call's UUID

    jf = tc.jit(f)
    outs = [jf(X)[0].item() for _ in range(CALLS)]
    assert len(set(outs)) == CALLS and tc.cache_misses(jf) == 1  # fresh values, one trace
    assert "uuid.uuid4(...)" in tc.explain(jf)


def _eager_and_jit(make_source, f, calls=CALLS):
    """``f(X, source)`` over ``calls`` calls, eagerly and jitted, each with its own source."""
    a, b = make_source(), make_source()
    eager = [f(X, a) for _ in range(calls)]
    jf = tc.jit(f)
    got = [jf(X, b) for _ in range(calls)]
    for e, g in zip(eager, got):
        torch.testing.assert_close(g, e, rtol=0, atol=0)
    return jf


class _Item:
    def __init__(self, v):
        self.v = v

    def __str__(self):
        return "#" * self.v

    def __lt__(self, other):
        return self.v < other.v


def test_fresh_objects_used_whole_are_made_again_on_every_call():
    # an object drawn from an outside generator, formatted, compared, passed to a C function:
    # each such use is a draw of the prologue on that call's object, never the traced value
    items = lambda: iter([_Item(v) for v in (3, 1, 4, 1, 5)])  # noqa: E731
    _eager_and_jit(items, lambda x, g: x + len(str(next(g))))
    _eager_and_jit(items, lambda x, g: x + len(f"{next(g)}!"))
    _eager_and_jit(items, lambda x, g: x + (next(g) < _Item(2)))
    jf = _eager_and_jit(items, lambda x, g: x + next(g).v)  # an attribute: a symbolic number
    assert tc.cache_misses(jf) == 1
    samples = lambda: iter([[v, 2 * v] for v in (7, 30, 5)])  # noqa: E731
    _eager_and_jit(samples, lambda x, g: x + len(str(next(g))))


def test_batches_from_a_loader_are_tensor_inputs_after_a_fresh_object_exists():
    # a drawn dict or tuple makes the call check operators for fresh operands: tensors stay tensors
    dicts = lambda: iter([{"a": torch.full((2,), float(i)), "b": torch.full((2,), 2.0 * i)} for i in range(4)])  # noqa: E731
    tuples = lambda: iter([(torch.full((2,), float(i)), torch.full((2,), 3.0 + i)) for i in range(4)])  # noqa: E731

    def items(x, g):
        for _, v in next(g).items():
            x = x + v
        return x

    def unpack(x, g):
        a, b = next(g)
        return x * a + b, str(len(next(g)))

    for make, f in ((dicts, items), (dicts, lambda x, g: (lambda a, b: x + a * b)(**next(g))), (tuples, unpack)):
        a, b = make(), make()
        eager = [f(X, a) for _ in range(2)]
        jf = tc.jit(f)
        got = [jf(X, b) for _ in range(2)]
        assert str(got) == str(eager) and tc.cache_misses(jf) == 1


def test_datetimes_are_inputs_and_their_arithmetic_is_made_on_every_call():
    import datetime

    start = datetime.datetime.now()

    def f(x):
        now = datetime.datetime.now()
        return x + (now - start).total_seconds() + now.microsecond * 0, datetime.date.today().year

    jf = tc.jit(f)
    x = torch.zeros(1, dtype=torch.float64)
    seen = []
    for _ in range(CALLS):
        before = (datetime.datetime.now() - start).total_seconds()
        out, year = jf(x)
        after = (datetime.datetime.now() - start).total_seconds()
        assert before <= out.item() <= after and year == datetime.date.today().year
        seen.append(out.item())
    assert len(set(seen)) == CALLS and tc.cache_misses(jf) == 1


def test_a_uuid_printed_on_every_call_is_that_calls(capsys):
    import uuid

    def f(x):
        print("run", uuid.uuid4())
        return x + 1

    jf = tc.jit(f)
    for _ in range(CALLS):
        jf(X)
    printed = capsys.readouterr().out.splitlines()
    assert len(printed) == CALLS == len(set(printed)) and tc.cache_misses(jf) == 1
    assert all(len(line) == len("run ") + 36 for line in printed)


def test_input_and_open_run_once_and_are_refused_by_default(tmp_path):
    path = tmp_path / "n.txt"
    path.write_text("5")

    def f(x):
        with open(path) as fh:
            return x + int(fh.read())

    with pytest.raises(tc.SharpEdgeError, match=r"open\(...\) runs once, while tracing"):
        tc.jit(f)(X)
