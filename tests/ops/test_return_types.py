"""Ops that return a ``torch.return_types`` named tuple in eager do so through tc.jit, both
to user code inside the jitted function (``torch.cummax(x, 0).values``) and as the jitted
function's result; the named tuple holds proxies inside the trace."""

from __future__ import annotations

import pytest
import torch

import thunder_core as tc

pytest.importorskip("thunder_executor_torch")

SPD = torch.randn(3, 3, dtype=torch.float64)
SPD = SPD @ SPD.T + 3 * torch.eye(3, dtype=torch.float64)

CASES = [
    ("max dim", lambda x: torch.max(x, 1)), ("min dim", lambda x: x.min(0, keepdim=True)),
    ("sort", lambda x: torch.sort(x)), ("topk", lambda x: x.topk(2)),
    ("cummax", lambda x: torch.cummax(x, 0)), ("cummin", lambda x: x.cummin(1)),
    ("kthvalue", lambda x: torch.kthvalue(x, 2, 1)), ("mode", lambda x: torch.mode(x, 0)),
    ("median dim", lambda x: torch.median(x, 1)), ("nanmedian dim", lambda x: x.nanmedian(0)),
    ("aminmax", lambda x: torch.aminmax(x)), ("frexp", lambda x: torch.frexp(x)),
    ("qr", lambda x: torch.linalg.qr(x)), ("svd", lambda x: torch.svd(x)),
    ("linalg.svd", lambda x: torch.linalg.svd(x)), ("slogdet", lambda x: torch.linalg.slogdet(x @ x.T + 3)),
    ("eigh", lambda x: torch.linalg.eigh(x @ x.T)), ("lu_factor", lambda x: torch.linalg.lu_factor(x)),
]


@pytest.mark.parametrize("name,fn", CASES, ids=[c[0] for c in CASES])
def test_named_tuple_result(name, fn):
    x = torch.randn(3, 3, dtype=torch.float64)
    expected, got = fn(x), tc.jit(fn)(x)
    assert type(got) is type(expected)
    assert got._fields if hasattr(got, "_fields") else True
    for g, e in zip(got, expected):
        torch.testing.assert_close(g, e)


@pytest.mark.parametrize("name,fn", CASES, ids=[c[0] for c in CASES])
def test_fields_inside_the_jitted_function(name, fn):
    def first_field(x):
        r = fn(x)
        return getattr(r, type(r).n_fields and _field_names(r)[0])

    x = torch.randn(3, 3, dtype=torch.float64)
    torch.testing.assert_close(tc.jit(first_field)(x), first_field(x))


def _field_names(r):
    # torch.return_types are structseqs: field names are the attributes that index the tuple
    names = [n for n in dir(type(r)) if not n.startswith("_") and n not in ("count", "index", "n_fields",
                                                                         "n_sequence_fields", "n_unnamed_fields")]
    return sorted(names, key=lambda n: next(i for i, v in enumerate(r) if getattr(r, n) is v))
