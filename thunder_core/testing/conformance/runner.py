"""The kit's tests, as functions of the :class:`~.plugin.Kit` (``test_kit.py`` calls them).

* :func:`drawn_calls`: hypothesis draws calls of one symbol (strategies.py) and check.py
  runs each with the executor against eager.
* :func:`opinfo_samples`: the same check on PyTorch's OpInfo samples of the symbol.
* :func:`claims_honest`: on the symbol's probe, every claim's range and cost, every decline's
  reason; each region claim is lowered and run against the fallback running the same region.
* :func:`fused_chains`: hypothesis draws chains of claimable elementwise symbols with
  broadcasting inputs: what fuses must still match eager.
* :func:`target_plan`: ``--thunder-target h100``: ``tc.plan`` with fake cuda tensors; the
  executor claims what it claims here and produces its artifacts without errors.

The first four run their examples where ``--thunder-target`` says (targets.py): ``cpu``, or
``cuda`` for this machine's GPU.

A failure prints hypothesis's minimal example (a ``Case``/``ChainCase`` that is Python) and a
one-line reproducer (``repro.py``).
"""

from __future__ import annotations

import pytest
import torch
from hypothesis import HealthCheck, example, given, note, reject, settings
from hypothesis.errors import Unsatisfiable

from . import strategies
from .check import Declined, Invalid, compare, run_case
from .executors import check_cost, check_reason, company, decline_reason, fallback
from .targets import profile_name, runs


def reproducer(kit, case) -> str:
    where = "" if kit.target == "cpu" else f", target={kit.target!r}"
    return (f"reproduce: python -c \"from thunder_core.testing.conformance.repro import *; "
            f"reproduce({kit.spec!r}, {case!r}{where})\"")


def _settings(kit):
    kw = {"suppress_health_check": [HealthCheck.too_slow, HealthCheck.filter_too_much, HealthCheck.data_too_large],
          "deadline": None}
    if kit.max_examples is not None:
        kw["max_examples"] = kit.max_examples
    return settings(settings.get_profile(kit.profile), **kw)


#: what -> [examples checked, declined by the executor, invalid]: the plugin's summary prints totals
STATS: dict = {}


def _search(kit, strategy, what, examples=()):
    """Run the hypothesis search of ``strategy`` (cases) through check.run_case, after the
    explicit ``examples``."""
    declined: list = []
    invalid: list = []
    stats = STATS.setdefault(what, [0, 0, 0])

    @_settings(kit)
    @given(strategy)
    def conformance_example(case):
        note(reproducer(kit, case))
        try:
            run_case(kit.executor, case, kit.claims)
        except Invalid as e:
            invalid.append(str(e))
            stats[2] += 1
            reject()
        except Declined as e:
            declined.append(str(e))
            stats[1] += 1
            reject()
        stats[0] += 1

    for case in reversed(examples):
        conformance_example = example(case)(conformance_example)
    try:
        conformance_example()
    except Unsatisfiable:
        why = f"declined: {declined[-1]}" if declined else f"invalid: {invalid[-1] if invalid else '?'}"
        pytest.skip(f"{what}: no drawn example was both valid and accepted by the executor ({why})")


def _runs_here(kit):
    if not runs(kit.target):
        pytest.skip(f"target {kit.target}: only claims and plans are checked (test_target_plan)")
    reason = kit.executor.unavailable()
    if reason is not None:
        pytest.skip(f"executor {kit.executor.name!r} cannot run here ({reason}); use --thunder-target h100")
    if kit.claims.unsupported is not None:
        pytest.skip(f"executor {kit.executor.name!r} cannot run on {kit.target}: it {kit.claims.unsupported}")


def drawn_calls(kit, sid):
    _runs_here(kit)
    partner = kit.claims.in_region.get(sid) if sid not in kit.claims.alone else None
    opdef = kit.opdefs[sid]
    _search(kit, strategies.calls(opdef, strategies.DTYPES, partner), sid,
            strategies.dtype_sweep(opdef, strategies.DTYPES, partner))


def fused_chains(kit):
    _runs_here(kit)
    symbols = strategies.chain_symbols(kit.opdefs[s] for s in kit.claims.symbols)
    if not symbols:
        pytest.skip("the executor claims no elementwise symbol a chain can use (among the selected ones)")
    _search(kit, strategies.chains(symbols), "fused chains")


def opinfo_samples(kit, sid):
    from .opinfo import run_samples

    _runs_here(kit)
    passed, declined, invalid = run_samples(kit.executor, sid, kit.claims)
    if not passed and not declined:
        pytest.skip(f"no OpInfo sample of {sid} is runnable here ({invalid} refused by eager or the core)")


def _prefix_values(trace, prefix, wanted, impls, args):
    """Values of the proxies ``wanted`` after running ``prefix`` (bound symbols) of ``trace``."""
    from thunder_core.extend import Trace

    t = Trace("conformance_prefix", args=list(trace.args), bound_symbols=list(prefix), output=tuple(wanted))
    return t.python_callable(impls)(*args)


def _probe_trace(kit, sid, target):
    """(trace, inputs) of the symbol's probe, or of its first OpInfo sample that traces; skips
    the test when neither is a valid call."""
    from .discovery import VARIANTS, probe_case, trace_of

    if sid in kit.claims.probes:  # the call the executor claimed while probing
        return trace_of(kit.claims.probes[sid], target)
    why = ""
    for optional, numbers in VARIANTS:
        try:
            return trace_of(probe_case(kit.opdefs[sid], kit.claims.in_region.get(sid), optional, numbers), target)
        except Exception as e:  # noqa: BLE001 - the probe is not a valid call of this op
            why = f"{type(e).__name__}: {str(e)[:160]}"
    from .opinfo import available, first_sample_trace

    if available() is None and runs(target):
        found = first_sample_trace(sid, target)
        if found is not None:
            return found
    pytest.skip(f"no probe call of {sid} traces ({why}) and no OpInfo sample of it does")


def claims_honest(kit, sid):
    from thunder_core.execution.claims import region_boundary, region_callable
    from thunder_core.execution.cost import CostModel
    from thunder_core.execution.partition import last_use_of
    from thunder_core.ir import flat_proxies

    from .discovery import region_claims

    ex, target = kit.executor, kit.target
    if kit.claims.unsupported is not None:
        pytest.skip(f"{ex.name!r} cannot compile for {target}: it {kit.claims.unsupported}")
    model = CostModel(profile_name(target))
    trace, args = _probe_trace(kit, sid, target)
    run = runs(target) and ex.unavailable() is None
    impls = fallback().implementations()
    top = list(trace.bound_symbols)
    table = ex.implementations()
    checked = 0
    lists = [(top, flat_proxies(trace.output), [])]
    lists += [(list(b.subsymbols), list(b.flat_outs), top[:i]) for i, b in enumerate(top) if b.subsymbols]
    for bsyms, outputs, before in lists:
        for b in bsyms:
            reason = decline_reason(ex, b)
            check_reason(ex, b, reason)
            if reason is None and b.sym.id in table:
                check_cost(ex, f"{b.sym.id} alone", model.symbol_us(b, model.dispatch(ex)))
                checked += 1
        for c, reasons in region_claims(ex, bsyms, outputs, model):
            checked += 1
            if reasons or not run:
                continue
            if c.lower is None:
                raise AssertionError(f"{ex.name!r}: its claim [{c.start}, {c.end}) ({c.note}) has no lower function")
            covered = bsyms[c.start:c.end]
            inputs, outs = region_boundary(covered, c.end, last_use_of(bsyms, outputs))
            from thunder_core.extend import Region

            values = _prefix_values(trace, [*before, *bsyms[:c.start]], inputs, impls, args)
            region = Region(tuple(covered), tuple(inputs), tuple(outs), f"{ex.name}_region_conformance",
                            tuple(values) if ex.compiles else None)
            with torch.no_grad():
                got = ex_out = c.lower(region)(*values)
                expected = region_callable(region, impls)(*values)
            assert isinstance(ex_out, tuple) and len(ex_out) == len(outs), \
                f"{ex.name!r}: the lowered region returned {type(got).__name__}, not a tuple of {len(outs)} outputs"
            compare(got, expected, f"{ex.name!r} region [{c.start}, {c.end}) of the probe of {sid}, lowered")
    if not checked:
        pytest.skip(f"{ex.name!r} made no claim on the probe of {sid} (it claims it elsewhere)")


def target_plan(kit, sid):
    import thunder_core as tc
    from thunder_core.extend import profile

    from .discovery import VARIANTS, case_probe, probe_case

    if runs(kit.target):
        pytest.skip("plans are checked with --thunder-target h100 (or another GPU profile)")
    ex = kit.executor
    why = ex.supports(profile(kit.target))
    if why is not None:
        pytest.skip(f"{ex.name!r} cannot plan for {kit.target}: it {why}")
    plan = None
    cases = [] if sid in kit.claims.probes else \
        [lambda o=o, n=n: case_probe(probe_case(kit.opdefs[sid], kit.claims.in_region.get(sid), o, n)) for o, n in VARIANTS]
    for make in [lambda: kit.claims.probes[sid]] if sid in kit.claims.probes else cases:
        try:
            fn, args = make()
            with torch.no_grad():
                fn(*args)  # eager accepts the probe on the CPU
        except Exception:  # noqa: BLE001
            continue
        plan = tc.plan(fn, *args, target=kit.target, executors=company(ex))
        break
    if plan is None:
        pytest.skip(f"no probe call of {sid} is valid")
    mine = [name for name, owner in plan.owner.items() if owner == ex.name]
    if not mine and sid in kit.claims.partial:
        pytest.skip(f"{ex.name!r} claims only part of {sid}'s decomposition; the planner ran the whole symbol on "
                    f"the fallback, which costs less here")
    assert mine or ex.fallback, f"{ex.name!r} claims {sid} but planned nothing for {kit.target}:\n{plan.explain()}"
    if ex.artifacts is not None:
        regions = [name for name, (owner, _) in plan.regions.items() if owner == ex.name]
        missing = [r for r in regions if not plan.artifacts.get(r)]
        assert not missing, f"{ex.name!r} produced no artifacts for its regions {missing} on {kit.target}"


def declaration(kit):
    """The executor's declaration: a non-empty name, the plugin API version,
    a finite non-negative per-call overhead on the target, and a reason when unavailable."""
    import math

    from thunder_core.extend import API_VERSION, profile

    ex = kit.executor
    assert isinstance(ex.name, str) and ex.name.strip(), f"executor name {ex.name!r}: a non-empty string is needed"
    assert ex.api_version == API_VERSION, f"{ex.name!r} declares api_version {ex.api_version}, the core's is " \
                                          f"{API_VERSION}"
    prof = profile(profile_name(kit.target))
    if ex.supports(prof) is None:
        d = ex.overhead_us(prof)
        assert math.isfinite(d) and d >= 0, f"{ex.name!r}: dispatch_us on {prof.name} is {d!r}"
    why = ex.unavailable()
    assert why is None or (isinstance(why, str) and why.strip()), f"{ex.name!r}: unavailable() gave {why!r}"
