"""Differential tests: every corpus program gives CPython's result (or CPython's exception
type and message) when run under the interpreter."""

import importlib
import pkgutil
import sys

import pytest

from thunder_core.frontend import interpret

from . import corpus

CASES = []
for _m in pkgutil.iter_modules(corpus.__path__):
    _mod = importlib.import_module(f"{corpus.__name__}.{_m.name}")
    for _name in sorted(vars(_mod)):
        if _name.startswith("case_") and callable(getattr(_mod, _name)):
            CASES.append(pytest.param(getattr(_mod, _name), id=f"{_m.name}.{_name}"))


def outcome(fn):
    try:
        return ("ok", fn())
    except BaseException as e:  # noqa: BLE001 - we compare whatever CPython raises
        return ("raise", type(e).__name__, str(e))


def same(a, b):
    if a == b:
        return True
    return repr(a) == repr(b)


@pytest.mark.parametrize("case", CASES)
def test_same_as_cpython(case):
    native = outcome(case)
    interpreted = outcome(interpret(case))
    assert same(native, interpreted), f"CPython: {native!r}\ninterpreter: {interpreted!r}"


def test_corpus_size():
    assert len(CASES) >= 300
