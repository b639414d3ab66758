"""A traced tensor's shape is a ``torch.Size`` to the program, and text made from symbolic sizes
holds this call's numbers (ir/size.py). Differential against eager, on two sizes (the second
call is a cache hit or a guarded recompile, and must give eager's answer for its own size).

Before: ``x.shape`` was a plain tuple while tracing (``isinstance(x.shape, torch.Size)`` was
False, so the functions below multiplying by it returned zeros; ``shape.numel()`` raised), and
``str((n, 1))`` of a symbolic size ``n`` gave ``'(x_0, 1)'`` on every call.
"""

import contextlib
import io
import logging

import pytest
import torch

import thunder_core as tc
from thunder_core.ir.size import Size


def _isinstance(x):
    return x * isinstance(x.shape, torch.Size) + isinstance(x.size(), torch.Size)


def _type(x):
    return x * (type(x.shape) is torch.Size) * (x.shape.__class__ is torch.Size)


def _numel(x):
    return x.reshape(x.shape.numel()), x.shape.numel(), x.shape[1:].numel(), x.shape.count(4), x.shape.index(4)


def _return_shape(x):
    return x.shape, x.size(), x.shape[1:]


def _operators(x):
    s = x.shape
    return (type(s[1:]) is torch.Size, type(s + (1,)) is torch.Size, type((1,) + s) is torch.Size,
            type(s * 2) is torch.Size, type(s[0]) is int, s + (1,), (1,) + s, s * 2, s[::-1], s == (x.shape[0], 4))


def _view(x):
    return x.view(x.size()[:-1] + (2, 2)), x.new_zeros(x.shape), torch.zeros(x.shape[1:]), x.expand(2, *x.shape)


def _text(x):
    n = x.shape[0]
    return (str(x.shape), repr(x.shape[1:]), f"{x.shape}", f"{x.shape!r}", "%s" % (x.shape,), str((n, 1)),
            repr([n]), f"{(n, 4)}", format((n,), ""), "{}".format(x.shape), ascii({"n": n}), f"{n!r}")


def _print(x):
    print(x.shape, x.size(1), x.shape[1:], (x.shape[0], 1))
    return x + 1


CASES = [_isinstance, _type, _numel, _return_shape, _operators, _view, _text, _print]


def _run(fn, x):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        result = fn(x)
    return result, out.getvalue()


def _same(got, want):
    assert type(got) is type(want), (got, want)
    if isinstance(want, torch.Tensor):
        torch.testing.assert_close(got, want)
    elif isinstance(want, (tuple, list)):
        assert len(got) == len(want), (got, want)
        for g, w in zip(got, want):
            _same(g, w)
    else:
        assert got == want


@pytest.mark.parametrize("cache", ["symbolic values", "constant values"])
@pytest.mark.parametrize("fn", CASES, ids=lambda f: f.__name__)
def test_shapes_are_torch_sizes(fn, cache):
    jf = tc.jit(fn, cache=cache)
    for n in (3, 5, 3):
        x = torch.randn(n, 4)
        want, want_out = _run(fn, x)
        got, got_out = _run(jf, x)
        _same(got, want)
        assert got_out == want_out


def test_a_symbolic_shape_stays_symbolic_where_no_text_is_made():
    def f(x):
        return x.reshape(x.shape.numel()) * isinstance(x.shape, torch.Size)

    jf = tc.jit(f)
    for n in (3, 5, 7):
        torch.testing.assert_close(jf(torch.ones(n, 4)), torch.ones(n * 4))
    assert tc.cache_misses(jf) == 1


def test_text_of_a_symbolic_size_is_guarded():
    def f(x):
        return x + len(f"{x.shape}")  # "torch.Size([3, 4])" has 18 characters, "torch.Size([10, 4])" 19

    jf = tc.jit(f)
    for n in (3, 5, 10, 3):
        torch.testing.assert_close(jf(torch.zeros(n, 4)), f(torch.zeros(n, 4)))
    assert tc.cache_misses(jf) == 3  # one entry per text


def test_logging_a_shape():
    records = []

    class Keep(logging.Handler):
        def emit(self, record):
            records.append(record.getMessage())

    log = logging.getLogger("thunder_core.tests.size")
    log.addHandler(Keep())
    log.setLevel(logging.INFO)
    log.propagate = False

    def f(x):
        log.info("shape %s, rows %d", x.shape, x.shape[0])
        return x * 2

    jf = tc.jit(f)
    for n in (3, 5):
        jf(torch.zeros(n, 4))
    assert records == ["shape torch.Size([3, 4]), rows 3", "shape torch.Size([5, 4]), rows 5"]


def test_traces_hold_plain_tuples():
    def f(x):
        return x.view(x.shape[1:] + x.shape[:1]), torch.zeros(x.shape)

    jf = tc.jit(f)
    jf(torch.randn(3, 4))
    for trace in tc.last_traces(jf):
        for b in trace.bound_symbols:
            for a in (*b.args, *b.kwargs.values()):
                assert type(a) is not Size, b
                if isinstance(a, (tuple, list)):
                    assert not any(type(v) is Size for v in a), b


def test_size_behaves_like_torch_size():
    s, t = Size((2, 3)), torch.Size((2, 3))
    assert isinstance(s, torch.Size) and isinstance(s, tuple) and s.__class__ is torch.Size
    assert (repr(s), str(s), s.numel(), s[1:], s + (4,), (4,) + s, s * 2) == \
           (repr(t), str(t), t.numel(), t[1:], t + (4,), (4,) + t, t * 2)
    assert Size(()).numel() == torch.Size(()).numel() == 1
    assert s == t and hash(s) == hash(t)
    import pickle

    assert type(pickle.loads(pickle.dumps(s))) is torch.Size
    with pytest.raises(TypeError):
        s + [1]
