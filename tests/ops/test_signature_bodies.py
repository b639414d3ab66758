"""``torch_op``'s signature functions serve as decompositions only when they have a body:
``registry._has_body`` reads that from the bytecode; the reference here reads it from the source
(the definition: anything beyond a docstring, ``...`` and ``pass``)."""

from __future__ import annotations

import ast
import inspect
import textwrap

import pytest

from thunder_core.ops.registry import _has_body


def _from_source(fn) -> bool:
    body = ast.parse(textwrap.dedent(inspect.getsource(fn))).body[0].body
    return any(not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant)) and not isinstance(s, ast.Pass)
               for s in body)


def doc_only(x, *, dim=1):
    """A docstring."""


def ellipsis(x):
    ...


def passes(x, y=None, *args, **kwargs):
    """A docstring, then pass and an ellipsis."""
    pass
    ...


def returns(x):
    return x


def calls(x):
    """A docstring, then a call."""
    return x.sum(1).abs()


def expression(x):
    x


def long_body(x, a=1, b=2):
    y = x * a
    for _ in range(b):
        y = y + x
    return y


def _closures(k):
    def empty(x):
        """Empty, with a free variable around it."""

    def uses(x):
        return x + k
    return empty, uses


@pytest.mark.parametrize("fn", [doc_only, ellipsis, passes, returns, calls, expression, long_body, *_closures(3)],
                         ids=lambda f: f.__name__)
def test_has_body_agrees_with_the_source(fn):
    assert _has_body(fn) == _from_source(fn)


def test_a_builtin_without_bytecode_counts_as_a_body():
    assert _has_body(len)
