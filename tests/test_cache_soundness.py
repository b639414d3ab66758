"""A cached trace must not outlive what it read: for each way a program reads outside state
(an object's identity, an attribute's absence, a container's contents through C code), the
state changes between two calls and the second call must give eager's result. Each case
was stale before (the hit returned the first call's answer)."""

import math

import numpy as np
import pytest
import torch

import thunder_core as tc


class _Token:
    pass


class _Cfg:
    pass


_TOKENS = (_Token(), _Token())
_TABLE = {_TOKENS[0]: 2.0, _TOKENS[1]: -1.0}
cfg = _Cfg()


def _reset():
    for a in list(vars(cfg)):
        delattr(cfg, a)
    cfg.tok, cfg.vals, cfg.names, cfg.d, cfg.s, cfg.e = _TOKENS[0], [1, 2, 3], ["a", "b"], {"x": 1}, {1, 2}, []


CASES = {
    # identity and presence
    "dict keyed by an object": (lambda x: x * _TABLE[cfg.tok], lambda: setattr(cfg, "tok", _TOKENS[1])),
    "id()": (lambda x: x * 2 if id(cfg.tok) == id(_TOKENS[1]) else x * 3, lambda: setattr(cfg, "tok", _TOKENS[1])),
    "hasattr": (lambda x: x * 2 if hasattr(cfg, "extra") else x * 3, lambda: setattr(cfg, "extra", 1)),
    "getattr default": (lambda x: x * getattr(cfg, "scale", 1.0), lambda: setattr(cfg, "scale", 5.0)),
    "dir()": (lambda x: x * ("zz" in dir(cfg)), lambda: setattr(cfg, "zz", 1)),
    # contents read by C code
    "str.join": (lambda x: x * len("".join(cfg.names)), lambda: cfg.names.append("ccc")),
    "str()": (lambda x: x * len(str(cfg.vals)), lambda: cfg.vals.append(12345)),
    "f-string": (lambda x: x * len(f"{cfg.vals}"), lambda: cfg.vals.append(1000)),
    "% format": (lambda x: x * len("%s" % (cfg.vals,)), lambda: cfg.vals.append(1000)),
    "if list": (lambda x: x * 2 if cfg.e else x * 3, lambda: cfg.e.append(1)),
    "if not dict": (lambda x: x * 2 if not cfg.d else x * 3, lambda: cfg.d.clear()),
    "bool(set)": (lambda x: x * bool(cfg.s), lambda: cfg.s.clear()),
    "list ==": (lambda x: x * 2 if cfg.vals == [1, 2, 3] else x * 3, lambda: cfg.vals.append(4)),
    "list <": (lambda x: x * 2 if cfg.vals < [2] else x * 3, lambda: cfg.vals.__setitem__(0, 5)),
    "dict ==": (lambda x: x * 2 if cfg.d == {"x": 1} else x * 3, lambda: cfg.d.__setitem__("x", 5)),
    "list * 2": (lambda x: x * len(cfg.vals * 2), lambda: cfg.vals.append(0)),
    "list + list": (lambda x: x * len(cfg.vals + [1]), lambda: cfg.vals.append(0)),
    "set | set": (lambda x: x * len(cfg.s | {9}), lambda: cfg.s.add(8)),
    "*unpacking": (lambda x: x * (lambda *a: len(a))(*cfg.vals), lambda: cfg.vals.append(0)),
    "math.prod": (lambda x: x * math.prod(cfg.vals), lambda: cfg.vals.append(2)),
}


@pytest.mark.parametrize("case", list(CASES))
def test_a_change_of_what_the_program_read_is_seen(case):
    f, change = CASES[case]
    _reset()
    jf = tc.jit(f)
    x = torch.ones(2)
    torch.testing.assert_close(jf(x), f(x))
    torch.testing.assert_close(jf(x), f(x))  # a hit
    change()
    torch.testing.assert_close(jf(x), f(x))
    assert tc.cache_misses(jf) == 2


def test_numpy_computed_from_an_outside_array_is_not_reused():
    # (arr.sum() of an outside array was baked into the trace: after arr changed, the hit
    # returned the old sum; the prologue cannot read the array's contents again, so such a
    # compile is not cached, with a warning saying why)
    holder = _Cfg()
    holder.arr = np.array([3.0, 4.0])

    def f(x):
        return x * float(holder.arr.sum())

    jf = tc.jit(f)
    x = torch.ones(2)
    with pytest.warns(tc.api.RecompileWarning, match=r"ndarray.sum.*cannot read again"):
        torch.testing.assert_close(jf(x), f(x))
    holder.arr[0] = 9.0
    with pytest.warns(tc.api.RecompileWarning):
        torch.testing.assert_close(jf(x), f(x))


class _Box:
    def __init__(self, v):
        self.v = v


def test_new_objects_on_every_call_are_not_pinned_by_identity():
    # the checks above must not pin objects that the program only compares with None or
    # objects of another type (a cache object or a mask passed on every call: one entry)
    table = {(1, 2): 3.0}

    def f(x, box, key, opts):
        has_box, has_opts = box is not None, opts is not None  # (`is` as a value: IS_OP)
        same = box == opts  # (object.__eq__ of objects of two types)
        y = x * box.v if has_box else x
        y = y * table[key]
        return y + 1 if has_opts and opts["add"] and not same else y

    jf = tc.jit(f)
    for i in range(3):
        box, key, opts = _Box(2.0), (1, 2), {"add": True}
        torch.testing.assert_close(jf(torch.ones(2), box, key, opts), f(torch.ones(2), box, key, opts))
    assert tc.cache_misses(jf) == 1
