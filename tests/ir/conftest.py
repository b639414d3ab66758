"""Registers the toy symbols as proxy methods and printing namespaces for every IR test,
and removes them afterwards (the real ops package owns these tables).

The IR needs torch; in environments without it (the interpreter-only CPython 3.12/3.13
venvs) these tests are not collected."""

import importlib.util

import pytest

if importlib.util.find_spec("torch") is None:
    collect_ignore_glob = ["*.py"]
else:
    from thunder_core.ir import NAMESPACES, TENSOR_METHODS

    from . import toy_prims, toy_torch

    @pytest.fixture(autouse=True)
    def toy_ops(monkeypatch):
        """TENSOR_METHODS and NAMESPACES entries for the toy symbols."""
        for key, sym in {"add": toy_torch.add, "sub": toy_prims.sub, "mul": toy_prims.mul, "div": toy_prims.div,
                         "__getitem__": toy_prims.getitem, "to": toy_torch.to, "mean": toy_torch.mean,
                         "tanh": toy_prims.tanh}.items():
            monkeypatch.setitem(TENSOR_METHODS, key, sym)
        monkeypatch.setitem(NAMESPACES, "tprims", toy_prims.__name__)
        monkeypatch.setitem(NAMESPACES, "tltorch", toy_torch.__name__)
