"""PyTorch's OpInfo samples as a second source of examples, and how much of the OpInfo
database traces to known symbols.

``opinfos_for(sid)`` maps a torch-level symbol to the OpInfos of
``torch.testing._internal.common_methods_invocations.op_db`` whose function is the symbol's
torch function (``OpInfo.op``), or whose name is the symbol's short name (``add``,
``nn.functional.gelu`` for ``gelu``). ``run_samples`` runs a few samples of each, per dtype,
through the same check as drawn examples (check.py), comparing with eager.

``python -m thunder_core.testing.conformance.opinfo`` measures, over the whole database, the
fraction of OpInfos with a runnable sample (one eager accepts and the core traces) whose
trace holds only known symbols (none tagged ``opaque``), and prints the opaque ones.
"""

from __future__ import annotations

import functools
import itertools
import warnings

import torch

from . import targets
from .check import compare
from .targets import profile_name, runs
from .executors import check_reason, company, decline_reason, fallback

#: dtypes sampled, and samples per dtype
DTYPES = {torch.float32: 2, torch.float64: 1, torch.bfloat16: 1, torch.int64: 1, torch.bool: 1}


def available() -> str | None:
    try:
        import expecttest  # noqa: F401  (torch.testing._internal needs it)
        from torch.testing._internal.common_methods_invocations import op_db  # noqa: F401
    except Exception as e:  # noqa: BLE001
        return f"torch's OpInfo database cannot be imported: {e}"
    return None


@functools.lru_cache(maxsize=1)
def _index():
    from torch.testing._internal.common_methods_invocations import op_db

    by_fn, by_name = {}, {}
    for op in op_db:
        by_fn.setdefault(op.op, []).append(op)
        by_name.setdefault(op.name, []).append(op)
        by_name.setdefault(op.name.rpartition(".")[2], []).append(op)
    return by_fn, by_name


def opinfos_for(sid):
    from thunder_core.ops.registry import OPDEFS

    by_fn, by_name = _index()
    opdef = OPDEFS[sid]
    found = list(by_fn.get(opdef.torch_fn, ()))
    short = sid.partition(".")[2]
    for op in by_name.get(short, ()):
        if op not in found and op.name in (short, f"nn.functional.{short}", f"special.{short}", f"linalg.{short}"):
            found.append(op)
    return found


def _sample_fn(op):
    def conformance_opinfo(*args, **kwargs):
        return op.op(*args, **kwargs)
    return conformance_opinfo


def _clone(x):
    if isinstance(x, torch.Tensor):
        return x.detach().clone()
    if isinstance(x, (list, tuple)):
        return type(x)(_clone(y) for y in x)
    if isinstance(x, dict):
        return {k: _clone(v) for k, v in x.items()}
    return x


#: ops returning uninitialised memory (two calls may or may not agree): metadata only
UNINITIALISED = {"empty", "empty_like", "empty_strided", "empty_permuted", "new_empty", "new_empty_strided"}


def _deterministic(fn, args, kwargs, first) -> bool:
    """Does a second eager call (another seed) give the same values? Not for random ops and
    ops returning uninitialised memory (``empty``): those are compared by metadata only."""
    torch.manual_seed(1)
    again = fn(*_clone(args), **_clone(kwargs))
    try:
        compare(again, first, "")
        return True
    except AssertionError:
        return False


def run_samples(executor, sid, claims=None):
    """Run OpInfo samples of ``sid`` with the executor; returns (passed, declined, invalid)
    counts, raising AssertionError (naming the op, dtype and sample) on a difference."""
    import thunder_core as tc

    from .check import _check_ran

    counts = [0, 0, 0]
    device = targets.DEVICE  # the kit's: the CPU, or the GPU of --thunder-target cuda
    for op in opinfos_for(sid):
        supported = op.supported_dtypes(torch.device(device).type)
        for dtype, n in DTYPES.items():
            if dtype not in supported:
                continue
            for k, s in enumerate(itertools.islice(op.sample_inputs(device, dtype), n)):
                args, kwargs = [s.input, *s.args], dict(s.kwargs)
                where = f"OpInfo {op.name}{'.' + op.variant_test_name if op.variant_test_name else ''} " \
                        f"{dtype} sample {k}: {s}"
                fn = _sample_fn(op)
                with warnings.catch_warnings(), torch.no_grad():
                    warnings.simplefilter("ignore")
                    try:
                        expected = fn(*_clone(args), **_clone(kwargs))
                        values = op.name not in UNINITIALISED and _deterministic(fn, args, kwargs, expected)
                        tc.jit(fn, executors=[fallback()], cache="no caching")(*_clone(args), **_clone(kwargs))
                    except Exception:  # noqa: BLE001 - eager or the core refuses it: not this kit's business
                        counts[2] += 1
                        continue
                    jfn = tc.jit(fn, executors=company(executor), cache="no caching", wait_for_compile=True)
                    try:
                        got = jfn(*_clone(args), **_clone(kwargs))
                    except Exception as e:  # noqa: BLE001
                        raise AssertionError(f"{where}: tc.jit with {executor.name!r} raised {type(e).__name__}: "
                                             f"{e}") from e
                traced = list(tc.last_traces(jfn)[0].bound_symbols)
                reasons = []
                for b in traced:
                    r = decline_reason(executor, b)
                    check_reason(executor, b, r)
                    if r is not None:
                        reasons.append(r)
                compare(got, expected, where, values=values)
                if reasons:
                    counts[1] += 1
                    continue
                if sid in {b.sym.id for b in traced}:
                    _check_ran(executor, None, jfn, traced, claims)
                counts[0] += 1
    return tuple(counts)


def sample_probes(sid, dtypes=(torch.float32,), target="cpu", per_dtype=3):
    """(fn, tensors) of the first ``per_dtype`` OpInfo samples of ``sid`` in each of
    ``dtypes`` the OpInfo supports on ``target``'s device type: tensors are positional inputs
    (samples with tensors in lists or keyword arguments are left out). The samples are made on
    the device where the kit runs (the CPU for a plan-only target, whose trace fakes them)."""
    from thunder_core.extend import profile

    device_type = profile(profile_name(target)).device_type
    device = targets.DEVICE if runs(target) else "cpu"
    for op in opinfos_for(sid):
        supported = op.supported_dtypes(device_type)
        for dtype in dtypes:
            if dtype not in supported:
                continue
            try:
                samples = list(itertools.islice(op.sample_inputs(device, dtype), per_dtype))
            except Exception:  # noqa: BLE001 - the OpInfo cannot make this dtype's samples there
                continue
            for s in samples:
                args, kwargs = [s.input, *s.args], dict(s.kwargs)
                if any(isinstance(v, (list, tuple)) and any(isinstance(x, torch.Tensor) for x in v)
                       for v in (*args, *kwargs.values())) or any(isinstance(v, torch.Tensor) for v in kwargs.values()):
                    continue

                def conformance_sample(*ts, _args=args, _kwargs=kwargs, _op=op):
                    it = iter(ts)
                    return _op.op(*[next(it) if isinstance(a, torch.Tensor) else a for a in _args], **_kwargs)
                yield conformance_sample, [a for a in args if isinstance(a, torch.Tensor)]


def first_sample_trace(sid, target="cpu"):
    """(trace, its inputs: what the prologue passes) of the first float32 OpInfo sample of
    ``sid`` that traces, or None (``target``: one where examples run)."""
    from .discovery import traced

    for fn, tensors in sample_probes(sid, target=target):
        try:
            return traced(fn, tensors)
        except Exception:  # noqa: BLE001
            continue
    return None


def known_symbol_coverage(verbose=False):
    """(runnable OpInfos, of them traced with known symbols only, [names of those with an
    opaque symbol]) over the whole op_db: the first sample eager and the core accept, of the
    first dtype among float32, float64, int64, bool the op supports."""
    from torch.testing._internal.common_methods_invocations import op_db

    from .discovery import JittedFunctionTrace

    runnable, known, opaque = 0, 0, []
    for op in op_db:
        name = op.name + (f".{op.variant_test_name}" if op.variant_test_name else "")
        dtypes = [d for d in (torch.float32, torch.float64, torch.int64, torch.bool) if d in op.supported_dtypes("cpu")]
        traced = None
        for dtype in dtypes[:1]:
            for s in itertools.islice(op.sample_inputs("cpu", dtype), 3):
                args, kwargs = [s.input, *s.args], dict(s.kwargs)
                try:
                    with warnings.catch_warnings(), torch.no_grad():
                        warnings.simplefilter("ignore")
                        _sample_fn(op)(*_clone(args), **_clone(kwargs))
                        traced = JittedFunctionTrace(_sample_fn(op), args, kwargs)
                    break
                except Exception:  # noqa: BLE001
                    continue
        if traced is None:
            continue
        runnable += 1
        if any("opaque" in b.sym.tags for b in traced.bound_symbols):
            opaque.append(name)
        else:
            known += 1
        if verbose and runnable % 100 == 0:
            print(f"  {runnable} runnable so far", flush=True)
    return runnable, known, opaque


if __name__ == "__main__":
    import sys
    import time

    t0 = time.time()
    runnable, known, opaque = known_symbol_coverage(verbose="-v" in sys.argv)
    print(f"OpInfos with a runnable sample: {runnable}; traced with known symbols only: {known} "
          f"({100 * known / max(runnable, 1):.1f}%); with an opaque symbol: {len(opaque)} ({time.time() - t0:.0f} s)")
    print("opaque:", " ".join(sorted(opaque)))
