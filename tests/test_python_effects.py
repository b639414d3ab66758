"""Output effects of Python calls happen on every call, as in eager: print, logging and
warnings inside a jitted function, compared with eager over three consecutive calls."""

import io
import logging
import sys
import warnings

import pytest
import torch

import thunder_core as tc

CALLS = 3


def three_calls(fn, make_args):
    """Outputs of three calls of ``fn`` (each with fresh arguments)."""
    return [fn(*make_args(i)) for i in range(CALLS)]


def test_print_happens_on_every_call_with_the_computed_tensors(capsys):
    def f(x, n):
        y = x * 2
        print("step", n, y, sep=" | ", end=";\n")
        print("to stderr", y.sum(), file=sys.stderr)
        return y + 1

    args = lambda i: (torch.full((2,), float(i)), 7)  # noqa: E731
    eager = three_calls(f, args)
    e_out = capsys.readouterr()
    jf = tc.jit(f)
    got = three_calls(jf, args)
    j_out = capsys.readouterr()
    assert all(torch.equal(a, b) for a, b in zip(eager, got))
    assert j_out.out == e_out.out and j_out.err == e_out.err
    assert j_out.out.count("step") == CALLS and "tensor([4., 4.])" in j_out.out
    assert tc.cache_misses(jf) == 1 and tc.cache_hits(jf) == CALLS - 1


def test_print_keeps_program_order_with_other_writes(capsys):
    buf = []

    def f(x):
        buf.append("before")
        print("middle", x)
        buf.append("after")
        return x

    jf = tc.jit(f)
    for i in range(CALLS):
        jf(torch.tensor([float(i)]))
    assert buf == ["before", "after"] * CALLS
    assert capsys.readouterr().out == "".join(f"middle tensor([{i}.])\n" for i in range(CALLS))


def _records(caplog, fn, make_args):
    caplog.clear()
    with caplog.at_level(logging.DEBUG, logger="tc-effects"):
        three_calls(fn, make_args)
    return [(r.name, r.levelname, r.getMessage(), r.pathname, r.lineno, r.funcName) for r in caplog.records]


def test_logging_records_match_eager_on_every_call(caplog):
    log = logging.getLogger("tc-effects")

    def f(x, n):
        log.info("sum %s of %d", x.sum(), n)
        log.debug("debug only")
        log.log(logging.WARNING, "as a warning %s", n)
        if n > 0:
            log.warning("positive")
        return x + n

    args = lambda i: (torch.full((3,), float(i)), 1)  # noqa: E731
    eager = _records(caplog, f, args)
    jf = tc.jit(f)
    got = _records(caplog, jf, args)
    assert got == eager and len(got) == 4 * CALLS
    assert got[0][2] == "sum tensor(0.) of 1" and got[4][2] == "sum tensor(3.) of 1"


def test_logging_levels_are_read_on_every_call(caplog):
    log = logging.getLogger("tc-effects.levels")

    def f(x):
        log.info("hello")
        return x * 3

    jf = tc.jit(f)
    with caplog.at_level(logging.INFO, logger="tc-effects.levels"):
        jf(torch.ones(1))
        log.setLevel(logging.ERROR)
        jf(torch.ones(1))
        log.setLevel(logging.INFO)
        jf(torch.ones(1))
    assert [r.getMessage() for r in caplog.records] == ["hello", "hello"]
    assert tc.cache_misses(jf) == 1


def test_module_level_logging_functions(caplog):
    def f(x):
        logging.warning("root %s", "warns")
        return x - 1

    with caplog.at_level(logging.WARNING):
        tc.jit(f)(torch.ones(1))
        tc.jit(f)(torch.ones(1))
    assert [(r.name, r.getMessage(), r.funcName) for r in caplog.records] == [("root", "root warns", "f")] * 2


def _warnings(fn, make_args, action):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter(action)
        three_calls(fn, make_args)
    return [(type(w.message), str(w.message), w.filename, w.lineno) for w in caught]


def _helper_warns(n):
    warnings.warn(f"from a helper {n}", DeprecationWarning, stacklevel=2)


def test_warnings_on_every_call_at_the_users_line():
    def f(x, n):
        warnings.warn("careful")
        _helper_warns(n)
        return x * n

    args = lambda i: (torch.ones(2), 2)  # noqa: E731
    eager = _warnings(f, args, "always")
    got = _warnings(tc.jit(f), args, "always")
    assert got == eager and len(got) == 2 * CALLS
    assert {w[3] for w in got[1::2]} == {f.__code__.co_firstlineno + 2}  # stacklevel=2: f's line


def test_warnings_default_filter_shows_once_per_location_like_eager():
    def g(x):
        warnings.warn("once per location, module registry", RuntimeWarning)
        return x + 1

    # eager first and the jitted function after it share the location's registry, as two
    # eager calls would: run them in separate processes' worth of state by clearing it
    g.__globals__.pop("__warningregistry__", None)
    eager = _warnings(g, lambda i: (torch.ones(1),), "default")
    g.__globals__.pop("__warningregistry__", None)
    got = _warnings(tc.jit(g), lambda i: (torch.ones(1),), "default")
    assert got == eager and len(got) == 1


def test_formatting_a_computed_tensor_into_a_string_is_refused_with_the_users_line():
    def f(x):
        print(f"value {x.sum()}")
        return x

    with pytest.raises(TypeError, match="Formatting a tensor computed inside the jitted function") as e:
        tc.jit(f)(torch.ones(2))
    assert any("test_python_effects.py" in n for n in getattr(e.value, "__notes__", []))


def test_print_to_an_outside_stream_object():
    stream = io.StringIO()

    def f(x):
        print("value", x, file=stream)
        return x

    jf = tc.jit(f)
    for i in range(CALLS):
        jf(torch.tensor([i]))
    assert stream.getvalue() == "".join(f"value tensor([{i}])\n" for i in range(CALLS))


def test_the_opaque_call_checker_names_the_users_line_not_the_librarys():
    import secrets

    def f(x):
        return x + len(secrets.token_hex(4))  # the library draws os.urandom: a value that cannot be an input

    with pytest.warns(tc.SharpEdgeWarning) as caught:
        tc.jit(f, sharp_edges={"opaque-call": "warn"})(torch.ones(1))
    messages = [str(w.message) for w in caught]
    where = f"{__file__}:{f.__code__.co_firstlineno + 1}: "
    assert len(messages) == 1 and messages[0].startswith(f"[opaque-call] {where}"), messages
    assert "secrets.token_hex (through os.urandom)(...) gives a new value" in messages[0]


def test_writes_to_standard_streams_happen_on_every_call(capsys):
    def f(x, n):
        sys.stdout.write(f"step {n}\n")          # a method of an outside object, result unused
        print("tensor", x + n)
        sys.stderr.write("warned\n")
        sys.stdout.flush()
        return x * n

    args = lambda i: (torch.full((2,), float(i)), 3)  # noqa: E731
    eager = three_calls(f, args)
    e_out = capsys.readouterr()
    jf = tc.jit(f)
    got = three_calls(jf, args)
    j_out = capsys.readouterr()
    assert all(torch.equal(a, b) for a, b in zip(eager, got))
    assert (j_out.out, j_out.err) == (e_out.out, e_out.err)
    assert j_out.out.count("step") == CALLS and tc.cache_misses(jf) == 1


def test_an_open_file_written_on_every_call(tmp_path):
    def make(path):
        fh = open(path, "w")

        def f(x):
            fh.write("called\n")
            print("sum", x.sum(), file=fh)
            return x + 1
        return f, fh

    (ef, efh), (jf_, jfh) = make(tmp_path / "eager.txt"), make(tmp_path / "jit.txt")
    three_calls(ef, lambda i: (torch.full((2,), float(i)),))
    jf = tc.jit(jf_)
    three_calls(jf, lambda i: (torch.full((2,), float(i)),))
    efh.close(), jfh.close()
    assert (tmp_path / "jit.txt").read_text() == (tmp_path / "eager.txt").read_text()
    assert (tmp_path / "jit.txt").read_text().count("called") == CALLS


def test_any_unused_call_on_an_outside_object_is_replayed_with_the_calls_tensors():
    import array
    import queue

    def make():
        numbers, q = array.array("i"), queue.SimpleQueue()

        def f(x, n):
            numbers.append(n)      # C methods of outside objects, results thrown away
            q.put(x * n)           # a tensor argument: this call's tensor
            return x + 1
        return f, numbers, q

    (ef, en, eq), (jf_, jn, jq) = make(), make()
    three_calls(ef, lambda i: (torch.full((2,), float(i)), i + 1))
    jf = tc.jit(jf_, cache="symbolic values")  # n: a number of this call (one trace)
    three_calls(jf, lambda i: (torch.full((2,), float(i)), i + 1))
    assert list(jn) == list(en) == [1, 2, 3]
    assert [jq.get().tolist() for _ in range(CALLS)] == [eq.get().tolist() for _ in range(CALLS)]
    assert tc.cache_misses(jf) == 1


def test_an_unused_call_that_cannot_be_replayed_is_refused_naming_the_line():
    import queue
    import threading

    q = queue.SimpleQueue()

    def f(x):
        q.put(threading.Lock())    # an object made by the call that cannot be made again
        return x

    with pytest.raises(NotImplementedError, match=r"test_python_effects.py:\d+ in .*f: the jitted function writes a lock"):
        tc.jit(f)(torch.ones(1))


def _formatted(caplog):
    fmt = logging.Formatter("%(levelname)s %(funcName)s:%(lineno)d %(message)s")
    return [fmt.format(r) for r in caplog.records]


def test_logging_with_exc_info_happens_on_every_call(caplog):
    log = logging.getLogger("tc-effects.exc")

    def f(x, s):
        try:
            int(s)
        except ValueError:
            log.exception("could not parse %r", s)           # exc_info=True
            log.warning("again", exc_info=sys.exc_info())    # an explicit tuple
        log.info("no exception", exc_info=True)
        return x + 1

    with caplog.at_level(logging.INFO, logger="tc-effects.exc"):
        three_calls(f, lambda i: (torch.ones(1), "abc"))
        eager = _formatted(caplog)
        caplog.clear()
        jf = tc.jit(f)
        three_calls(jf, lambda i: (torch.ones(1), "abc"))
        got = _formatted(caplog)
    assert got == eager and len(got) == 3 * CALLS
    assert "Traceback (most recent call last)" in got[0] and "ValueError: invalid literal" in got[0]
    assert tc.cache_misses(jf) == 1


def test_the_issues_report_with_the_default_options(capsys, caplog, monkeypatch):
    # As a new user tried it: tc.jit(f) with the default options and executors, three calls
    # compared with eager from the same seed: stdout, logging records, warnings, the numbers.
    import itertools
    import random
    import time

    monkeypatch.delenv("THUNDER_CORE_EXECUTORS", raising=False)  # the suite's default is torch only
    log = logging.getLogger("tc-effects.report")

    def make():
        counter = itertools.count(5)

        def f(x):
            print("step", x.sum())
            log.info("scaling %s", x)
            warnings.warn("a warning on every call")
            y = (x + random.randint(0, 10 ** 6)) * random.random() + next(counter)
            return y.sin(), x.double() + time.time()
        return f

    def run(fn):
        random.seed(0)
        outs, clocks = [], []
        with warnings.catch_warnings(record=True) as caught, caplog.at_level(logging.INFO, logger=log.name):
            warnings.simplefilter("always")
            for i in range(CALLS):
                before = time.time()
                y, t = fn(torch.full((3,), float(i)))
                outs.append(y)
                clocks.append((before, t[0].item() - i, time.time()))
        # the program's records (a background compile may log through torch's own loggers meanwhile)
        records = [(r.getMessage(), r.lineno, r.funcName) for r in caplog.records if r.name == log.name]
        caplog.clear()
        ws = [(str(w.message), w.filename, w.lineno) for w in caught]
        return outs, clocks, capsys.readouterr().out, records, ws, random.getstate()

    eager = run(make())
    jf = tc.jit(make())
    got = run(jf)
    for e, g in zip(eager[0], got[0]):
        torch.testing.assert_close(g, e)
    assert len({round(g[0].item(), 5) for g in got[0]}) == CALLS  # fresh numbers, not frozen
    assert all(before <= t <= after for before, t, after in got[1])  # each call's clock
    assert got[2:] == eager[2:]  # stdout, logging records, warnings, Python's RNG state
    assert got[2].count("step") == CALLS and len(got[3]) == len(got[4]) == CALLS
    assert tc.cache_misses(jf) == 1 and tc.cache_hits(jf) == CALLS - 1
