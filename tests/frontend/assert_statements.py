"""Functions with `assert` statements for test_assertions.py (here, not in a test file: pytest
rewrites the asserts of test files)."""


def plain(flag):
    assert flag
    return 1


def message(flag):
    assert flag, "NaN detected"
    return 1


def negated(flag):
    assert not flag, "was set"
    return 1


def compared(x):
    assert x == 0, "nonzero"
    return 1


def formatted(flag):
    assert flag, f"bad {flag}"
    return 1


def branch(flag):
    if flag:
        raise ValueError("not an assert")
    return 1


def either(a, b):
    assert a or b
    return 1
