"""PyTorch's own OpInfo samples through tc.jit against eager (see opdb.py for what is compared).

One test per OpInfo runs a few samples of every dtype of ``opdb.DTYPES`` the op supports. A
sample passes, or fails with an error ``KNOWN`` lists for its op (a regex of the message and
the reason): a clear refusal naming the op. A known entry no sample hits fails the test
(strict: remove it). A difference from eager (value, dtype, shape, result type, aliasing,
gradient, cache) is an AssertionError and is never listed here.

``python -m tests.ops.test_opdb`` rewrites docs/op-samples.md from a full run.
"""

from __future__ import annotations

import re
import sys
import time
from collections import Counter
from dataclasses import dataclass

import pytest

pytest.importorskip("expecttest")  # torch.testing._internal needs it
pytest.importorskip("thunder_executor_torch")

import torch  # noqa: E402
from torch.testing._internal.common_methods_invocations import op_db  # noqa: E402

from tests.ops import opdb  # noqa: E402


@dataclass(frozen=True)
class Known:
    match: str          # regex searched in the error message
    reason: str


_VALUES = r"returns something that depends on tensor values"
_GRAD_NONE = ("the gradient of an input eager does not differentiate is zeros, where eager's autograd.grad "
              "gives None (the compiled backward returns a tensor for every input that requires grad)")
KNOWN = {
    **{name: Known(_VALUES, "the output's shape (or a Python value) depends on tensor values") for name in (
        "item", "allclose", "equal", "combinations", "corrcoef", "cov", "masked_select", "unique",
        "unique_consecutive", "bincount", "nonzero", "argwhere", "nn.functional.ctc_loss", "linalg.lstsq",
        "linalg.lstsq.grad_oriented")},
    "nn.functional.one_hot": Known(r"num_classes=-1", "num_classes=-1 needs the largest value of the tensor"),
    # (its `if torch.any(var < 0)` on an input is decided while tracing and guarded since the
    # TRUTH guards: what stops it now is the verifier, on the `var.clamp_(min=eps)` it makes under
    # no_grad: re-run in the trace's grad mode, clamp_'s rule says requires_grad where the call,
    # made under no_grad, recorded none)
    "nn.functional.gaussian_nll_loss": Known(r"clamp_.*requires_grad False but the rule gives True",
                                             "the verifier re-runs an in-place call made under no_grad in the "
                                             "trace's grad mode"),
    "norm.nuc": Known(r"p='nuc'", "the nuclear norm needs an SVD: refused by name"),
    "sparse.sampled_addmm": Known(r"sparse", "sparse tensor inputs are not supported (traced as dense fake tensors)"),
    "sparse.mm.reduce": Known(r"sparse", "sparse tensor inputs are not supported (traced as dense fake tensors)"),
}


def _dtypes(op):
    supported = op.supported_dtypes("cpu")
    return [d for d in opdb.DTYPES if d in supported]


def _error_text(e) -> str:
    return f"{type(e).__name__}: {e}"


def check(op):
    """Run every dtype's samples of ``op``; returns {dtype: outcomes} and raises on an
    unknown error (with the op, dtype and sample index) or on a known entry nothing hit."""
    name, known = opdb.op_name(op), KNOWN.get(opdb.op_name(op))
    results, hit = {}, False
    for dtype in _dtypes(op):
        outs = opdb.run_case(op, dtype)
        results[dtype] = outs
        for o in outs:
            if o.status != "error":
                continue
            if known is not None and re.search(known.match, str(o.error)):
                hit = True
                continue
            raise AssertionError(f"{name}, {opdb.SHORT[dtype]} sample {o.index}: {_error_text(o.error)}") from o.error
    if known is not None and not hit:
        raise AssertionError(f"{name} is listed in KNOWN ({known.reason}) but every sample passes now: remove it.")
    return results


@pytest.mark.parametrize("op", op_db, ids=[opdb.op_name(op) for op in op_db])
def test_opinfo_samples(op):
    check(op)


def test_known_entries_name_ops_of_the_database():
    names = {opdb.op_name(op) for op in op_db}
    assert not set(KNOWN) - names


# ---------------------------------------------------------------- docs/op-samples.md

def write_docs(path="docs/op-samples.md"):
    start = time.time()
    counts, refused, ops = Counter(), {}, 0
    for op in op_db:
        ops += 1
        name, known = opdb.op_name(op), KNOWN.get(opdb.op_name(op))
        try:
            results = check(op)
        except AssertionError as e:
            counts["unexpected"] += 1
            print("UNEXPECTED", e, file=sys.stderr)
            continue
        for dtype, outs in results.items():
            for o in outs:
                if o.status == "pass":
                    counts["pass-opaque" if o.opaque else "pass-known-symbol"] += 1
                    counts["random-metadata-only"] += o.random
                elif o.status == "eager-error":
                    counts["eager-rejects"] += 1
                else:
                    counts["refused"] += 1
                    refused.setdefault(name, [known, set()])[1].add(opdb.SHORT[dtype])
    samples = sum(v for k, v in counts.items() if k not in ("random-metadata-only", "unexpected"))
    lines = [
        "# OpInfo samples through tc.jit", "",
        "Generated by `python -m tests.ops.test_opdb` (torch " + torch.__version__ + f"; {time.time() - start:.0f} s). "
        "The test is tests/ops/test_opdb.py; what it compares is in tests/ops/opdb.py.", "",
        "| | count |", "| --- | ---: |",
        f"| OpInfos (op variants) | {ops} |", f"| samples | {samples} |",
        f"| pass, every op a known symbol | {counts['pass-known-symbol']} |",
        f"| pass, with an opaque op in the trace | {counts['pass-opaque']} |",
        f"| of the passes: compared by metadata only (random / uninitialised) | {counts['random-metadata-only']} |",
        f"| refused (known, a clear error) | {counts['refused']} |",
        f"| eager rejects the sample | {counts['eager-rejects']} |",
        f"| unexpected (test failures) | {counts['unexpected']} |", "",
        "## Remaining refusals", "",
        "| op | dtypes | reason |", "| --- | --- | --- |",
    ]
    for name in sorted(refused):
        known, dts = refused[name]
        lines.append(f"| {name} | {', '.join(sorted(dts))} | {known.reason} |")
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")
    print(f"wrote {path}: {dict(counts)}")


if __name__ == "__main__":
    import warnings

    warnings.filterwarnings("ignore")
    write_docs()
