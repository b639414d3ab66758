"""Which symbols an executor claims: alone (its implementation table) or inside regions
(its ClaimFn, probed on small traces).

A *probe* of a symbol is a small program calling it on float32 tensors of shape (2, 3)
(static parameters at their defaults, a required ``dim`` as 0; a view or shape symbol's list
inputs and required statics at the fixed values of ``shape_statics``), alone and followed by each
*partner* op (``cases.PARTNERS``: neg, x*x, exp, sum, abs) on its first output. The probe is
traced (nothing runs) and the executor's ClaimFn is called on the trace's bound symbols, and on
the symbol's decomposition; the symbol is claimed in a region when some claim covers it (or
part of its decomposition) and the executor's checkers accept every symbol of that claim. The
first partner that makes the claim happen is the one the per-symbol tests use.

An executor whose checker declines the float32 probe (or a symbol whose probe is not a valid
call: attention needs 4-d inputs) is probed again with the probe in bfloat16 and float16, then
with PyTorch's OpInfo samples of the symbol (``opinfo.sample_probes``), so that an executor
claiming only half-precision attention (cuDNN) or only particular shapes is still found, and
its tests (claims, plans) use the call that was claimed (``Claims.probes``).

Only torch-level symbols with a torch function (``ltorch.*``) are candidates: primitives are
reached through the decompositions of torch-level symbols.
"""

from __future__ import annotations

import fnmatch
import warnings
from dataclasses import dataclass, field, replace

import torch

from .cases import Case, TensorSpec
from .targets import profile_name, runs
from .executors import check_cost, check_reason, decline_reason


@dataclass
class Claims:
    """What an executor claims among the selected symbols."""

    executor: str
    alone: set = field(default_factory=set)           # symbol ids in its implementation table
    in_region: dict = field(default_factory=dict)     # symbol id -> partner name (None: alone suffices)
    probes: dict = field(default_factory=dict)        # symbol id -> (fn, cpu args) of the claimed probe
    partial: set = field(default_factory=set)         # symbol ids claimed in part of their decomposition only
    probed: int = 0                                   # candidates probed
    not_probed: dict = field(default_factory=dict)    # symbol id -> why its probe could not be traced
    unsupported: str | None = None                    # why it cannot compile for the target, if it cannot

    @property
    def symbols(self) -> list:
        return sorted(self.alone | set(self.in_region))

    def report(self) -> str:
        only_region = sorted(set(self.in_region) - self.alone)
        if self.unsupported is not None:
            return f"executor {self.executor!r} cannot be checked for this target: {self.unsupported}"
        lines = [f"executor {self.executor!r} claims {len(self.symbols)} of {self.probed} selected torch-level "
                 f"symbols: {len(self.alone)} alone, {len(only_region)} only inside regions"]
        if self.alone:
            lines.append("  alone: " + " ".join(s.partition('.')[2] or s for s in sorted(self.alone)))
        if self.in_region:
            lines.append("  in regions: " + " ".join(s.partition('.')[2] or s for s in sorted(self.in_region)))
        return "\n".join(lines)


def select(patterns: str | None, target: str = "cpu"):
    """The candidate OpDefs (torch-level symbols) matching the comma-separated fnmatch
    ``patterns`` (on the id ``ltorch.add`` or the short name ``add``); all when None. In-place
    symbols and those that communicate are left out; random ones too, except for a GPU profile
    ``target``, where only claims and plans are checked (attention has a dropout argument)."""
    from thunder_core.ir.traits import traits
    from thunder_core.ops.registry import OPDEFS

    planned_only = not runs(target)
    pats = [p.strip() for p in (patterns or "").split(",") if p.strip()]
    out = []
    for sid, opdef in sorted(OPDEFS.items()):
        short = sid.partition(".")[2]
        if pats and not any(fnmatch.fnmatchcase(sid, p) or fnmatch.fnmatchcase(short, p) for p in pats):
            continue
        left_out = {"inplace", "random"} if planned_only is False else {"inplace"}
        if traits(opdef.symbol) & left_out or "effect" in opdef.symbol.tags:
            continue  # not checked by this kit yet (eager writes/draws/communicates differ by design)
        out.append(opdef)
    return out


#: the probe variants tried in order: (optional inputs given, later inputs as numbers)
VARIANTS = ((False, False), (True, False), (False, True))


def probe_case(opdef, partner=None, optional=False, numbers=False) -> Case:
    """The probe call of ``opdef``'s symbol (see the module docstring); ``optional``: inputs
    whose default is None get tensors too (``clamp``'s min and max, ``where``'s branches)."""
    import inspect

    from .shape_statics import fixed_call
    from .strategies import is_shape_op

    empty = inspect.Parameter.empty
    params = opdef.signature.parameters
    if is_shape_op(opdef):  # its list inputs and required statics at the kit's fixed values
        inputs, statics = fixed_call(opdef, lambda k, name, shape: TensorSpec(shape, torch.float32, seed=k))
        return Case(opdef.symbol.id, inputs, statics, partner)
    n = max(opdef.required_inputs, 1)
    if optional:
        while n < len(opdef.inputs) and params[opdef.inputs[n]].default is None:
            n += 1
    inputs = []
    for k, name in enumerate(opdef.inputs[:n]):
        dtype = torch.bool if name in ("condition", "mask") else torch.float32
        inputs.append(0.5 if numbers and k else TensorSpec((2, 3), dtype, seed=k))
    statics = {n: 0 for n, p in params.items() if n not in opdef.inputs and p.default is empty and n == "dim"}
    return Case(opdef.symbol.id, tuple(inputs), statics, partner)


#: probe dtypes tried after float32, for executors that decline it (cuDNN's attention)
HALF_DTYPES = (torch.bfloat16, torch.float16)


def in_dtype(case, dtype) -> Case:
    """``case`` with its floating-point tensors in ``dtype``."""
    def cast(x):
        if isinstance(x, TensorSpec):
            return replace(x, dtype=dtype) if x.dtype.is_floating_point else x
        return type(x)(cast(y) for y in x) if isinstance(x, (list, tuple)) else x
    return replace(case, inputs=cast(case.inputs))


def case_probe(case):
    """(fn, tensors) of ``case``: its program and its inputs built (on the kit's device)."""
    fn, specs = case.program()
    return fn, [s.build() for s in specs]


def trace_of(probe, target="cpu"):
    """The trace ``tc.jit`` would partition for ``probe`` (a :class:`Case`, or ``(fn,
    tensors)``; traced, nothing runs), and its inputs; for a GPU profile ``target`` (plan only)
    the inputs are fake tensors on its device (as ``tc.plan`` makes them)."""
    from thunder_core.extend import profile

    fn, args = case_probe(probe) if isinstance(probe, Case) else probe
    if runs(target):
        with warnings.catch_warnings(), torch.no_grad():
            warnings.simplefilter("ignore")
            fn(*args)  # eager must accept the probe
    else:
        from thunder_core.planning import _faker

        fake = _faker(profile(target))
        args = [fake(a) for a in args]
    return traced(fn, args)


def traced(fn, args, kwargs=None):
    """``(trace, inputs)``: the trace ``tc.jit`` would partition for ``fn(*args, **kwargs)``
    (nothing runs) and the values its inputs take for this call (what the prologue passes:
    the tensors, and under symbolic values the sizes and numbers, ``x_0 = x.shape[0]``)."""
    from thunder_core.api import JittedFunction
    from thunder_core.guards.prologue import build_prologue

    args, kwargs = tuple(args), dict(kwargs or {})
    with warnings.catch_warnings(), torch.no_grad():
        warnings.simplefilter("ignore")
        cap, traces, _, _ = JittedFunction(fn, executors=[])._trace(args, kwargs)
    return traces[-1], list(build_prologue(cap, args, kwargs, check=False).fn(args, kwargs))


def region_claims(executor, bsyms, outputs, model=None):
    """[(Claim, declined reasons)] the executor's ClaimFn makes on ``bsyms``; checks ranges and
    costs and that declines carry reasons."""
    from thunder_core.execution.claims import ClaimContext
    from thunder_core.execution.cost import CostModel
    from thunder_core.execution.partition import last_use_of

    if executor.claim is None:
        return []
    bsyms = list(bsyms)
    found: list = []
    ctx = ClaimContext(executor, bsyms, last_use_of(bsyms, outputs), model or CostModel(), found)
    out = []
    for c in executor.claim(bsyms, ctx):
        if not 0 <= c.start < c.end <= len(bsyms):
            raise AssertionError(f"{executor.name!r} claimed [{c.start}, {c.end}) of a list of {len(bsyms)} symbols")
        check_cost(executor, f"its region claim [{c.start}, {c.end}) ({c.note})", c.cost_us)
        reasons = []
        for b in bsyms[c.start:c.end]:
            r = decline_reason(executor, b)
            check_reason(executor, b, r)
            if r is not None:
                reasons.append(r)
        out.append((c, reasons))
    return out


def _covers(executor, trace, sid, model=None) -> str | None:
    """``"whole"`` when a claim covers the symbol in ``trace``, ``"part"`` when one covers
    part of its decomposition only, else None."""
    from thunder_core.ir import flat_proxies

    bsyms = list(trace.bound_symbols)
    for c, reasons in region_claims(executor, bsyms, flat_proxies(trace.output), model):
        if not reasons and any(b.sym.id == sid for b in bsyms[c.start:c.end]):
            return "whole"
    for b in bsyms:  # claims inside the symbol's decomposition
        if b.sym.id == sid and b.subsymbols:
            if any(not r for _, r in region_claims(executor, b.subsymbols, b.flat_outs, model)):
                return "part"
    return None


def discover(executor, opdefs, target="cpu") -> Claims:
    """The :class:`Claims` of ``executor`` among ``opdefs``, probed on ``target``'s device."""
    from thunder_core.execution.cost import CostModel

    from .cases import PARTNERS

    model = CostModel(profile_name(target))
    if runs(target):  # run here: the executor must be able to run on this machine's device
        kind = model.profile.device_type
        unsupported = executor.unavailable() or (None if kind in executor.device_types else
                                                 f"runs on {', '.join(executor.device_types)}, not {kind}")
    else:                                   # planned for a target: nothing runs
        unsupported = executor.supports(model.profile)

    table = executor.implementations()
    claims = Claims(executor.name, unsupported=unsupported)
    for opdef in opdefs:
        sid = opdef.symbol.id
        claims.probed += 1
        if sid in table:
            claims.alone.add(sid)
        if executor.claim is None or unsupported is not None:
            continue  # (an executor that cannot compile for the target claims no region there)
        declined = False
        for partner in (None, *PARTNERS):
            trace = None
            for optional, numbers in VARIANTS:
                try:
                    probe = case_probe(probe_case(opdef, partner, optional, numbers))
                    trace, _ = trace_of(probe, target)
                    break
                except Exception as e:  # noqa: BLE001 - the probe is not a valid call of this op
                    claims.not_probed.setdefault(sid, f"{type(e).__name__}: {str(e)[:120]}")
            if trace is None:
                break
            claims.not_probed.pop(sid, None)
            covers = _covers(executor, trace, sid, model)
            if covers:
                claims.in_region[sid], claims.probes[sid] = partner, probe
                if covers == "part":
                    claims.partial.add(sid)
                break
            declined = declined or _declined(executor, trace, sid)
        if sid not in claims.in_region and (declined or sid in claims.not_probed):
            for probe in _other_probes(opdef, target):  # half precision, then OpInfo samples
                try:
                    trace, _ = trace_of(probe, target)
                except Exception:  # noqa: BLE001 - not a valid call of this op
                    continue
                covers = _covers(executor, trace, sid, model)
                if covers:
                    claims.in_region[sid], claims.probes[sid] = None, probe
                    claims.not_probed.pop(sid, None)
                    if covers == "part":
                        claims.partial.add(sid)
                    break
    return claims


def _declined(executor, trace, sid) -> bool:
    """Whether the executor's checker gave a reason against the symbol in ``trace`` (it knows
    the symbol but not these inputs: other dtypes or shapes may be claimed)."""
    return any(b.sym.id == sid and decline_reason(executor, b) is not None for b in trace.bound_symbols)


def _other_probes(opdef, target):
    """(fn, tensors) probes after the float32 ones: the probe in half precision, then
    PyTorch's OpInfo samples of the symbol (in float32 and half precision)."""
    from .opinfo import available, sample_probes

    for dtype in HALF_DTYPES:
        for optional, numbers in VARIANTS:
            try:
                yield case_probe(in_dtype(probe_case(opdef, None, optional, numbers), dtype))
            except Exception:  # noqa: BLE001 - not a valid call of this op
                continue
    if available() is None:
        yield from sample_probes(opdef.symbol.id, (torch.float32, *HALF_DTYPES), target, per_dtype=16)


def JittedFunctionTrace(fn, args, kwargs):
    """The captured trace of ``fn(*args, **kwargs)`` (traced, nothing runs)."""
    from thunder_core.api import JittedFunction

    with warnings.catch_warnings(), torch.no_grad():
        warnings.simplefilter("ignore")
        _, traces, _, _ = JittedFunction(fn, executors=[])._trace(tuple(args), dict(kwargs))
    return traces[0]
