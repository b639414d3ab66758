"""``control.assertion_at``: which truth tests only decide whether an ``assert`` raises (the
capture records those on tensors as checks, tests/capture/test_tensor_asserts.py). Read from
the bytecode of each Python version, so this runs on 3.11, 3.12 and 3.13 (the capture's tests
need torch, which this machine has for 3.11 only). The test is where the interpreter would be
when it asks for the truth: just after the instruction making it (a conditional jump, or on
3.13 a TO_BOOL or a bool-converting COMPARE_OP)."""

import types

import pytest

from thunder_core.frontend.code import PY, code_info
from thunder_core.frontend.ops import HANDLERS
from thunder_core.frontend.ops.control import assertion_at

from .assert_statements import branch, compared, either, formatted, message, negated, plain


def _first_test(fn):
    """assertion_at where the function first asks for a truth value."""
    insts = code_info(fn.__code__, HANDLERS).insts
    for k, inst in enumerate(insts):
        if inst.opname.startswith("POP_JUMP") or inst.opname == "TO_BOOL" or \
                inst.opname == "COMPARE_OP" and PY >= (3, 13) and inst.arg & 16:
            return assertion_at(types.SimpleNamespace(insts=insts, ip=k + 1))
    raise AssertionError(f"{fn.__name__} makes no truth test")


@pytest.mark.parametrize("fn, holds, args", [(plain, True, ()), (message, True, ("NaN detected",)),
                                             (negated, False, ("was set",)), (compared, True, ("nonzero",))])
def test_an_assert_is_found_with_the_truth_it_needs_and_its_message(fn, holds, args):
    found = _first_test(fn)
    assert found is not None and found[:2] == (holds, args)


@pytest.mark.parametrize("fn", [formatted, branch, either])
def test_other_tests_are_not_asserts_it_can_check(fn):
    # a message made at run time, a raise of another exception, an `or` (the first test's
    # failing side goes on to the second test, not to the raise)
    assert _first_test(fn) is None
