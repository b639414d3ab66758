"""One-line reproducers: ``from thunder_core.testing.conformance.repro import *`` brings in
what a printed example needs (``torch``, ``nan``, ``inf``, ``Case``, ``ChainCase``,
``TensorSpec``) and :func:`reproduce`, which runs the example's check again and raises what
failed."""

from math import inf, nan  # noqa: F401  (printed examples use them)

import torch  # noqa: F401

from .cases import Case, ChainCase, TensorSpec  # noqa: F401


def reproduce(executor, case, target="cpu"):
    """Check ``case`` with ``executor`` (a name, ``module:attr``, ``file.py:attr`` or an
    Executor) as the kit does, on ``target`` (``"cpu"``, or ``"cuda"`` for this machine's GPU);
    raises AssertionError on a difference, returns "ok", "declined: reason" or "invalid: why"
    otherwise."""
    from . import targets
    from .check import Declined, Invalid, run_case
    from .executors import resolve

    targets.use(target)
    ex = resolve(executor)
    try:
        run_case(ex, case, None)
    except Declined as e:
        return f"declined: {e}"
    except Invalid as e:
        return f"invalid: {e}"
    print("ok: the executor matches eager on this example")
    return "ok"


__all__ = ["reproduce", "Case", "ChainCase", "TensorSpec", "torch", "nan", "inf"]
