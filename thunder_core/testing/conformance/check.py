"""Run one drawn example through ``tc.jit`` with the executor under test and compare with eager.

:func:`run_case` (a :class:`~.cases.Case` or :class:`~.cases.ChainCase`):

1. eager PyTorch on the example: if eager rejects it, it is not an example (:class:`Invalid`);
2. ``tc.jit(fn, executors=company(executor))`` on the same inputs (executors.py: the
   executor under test and the penalized fallback): if that fails, the same program with the
   fallback alone tells whether the core refuses it (:class:`Invalid`) or the executor broke it;
3. the executor's checkers on the traced symbols: a decline must carry a reason, and a
   declined example is :class:`Declined` (after its result is still compared);
4. what ran: an accepted symbol the executor implements must be owned by it in the execution
   trace (``jfn._last.executors_used``, regions via ``extend.region_of``), never by the
   fallback; a chain of accepted, claimable symbols must give it something to run;
5. values with dtype-aware tolerances (``TOLERANCES``), shapes, dtypes, result structure; and
   gradients of the sum of the outputs for examples drawn with ``grad``.
"""

from __future__ import annotations

import warnings

import torch

from .cases import ChainCase, build_all
from .executors import FALLBACK_NAME, check_reason, company, decline_reason, fallback

#: (atol, rtol) by result dtype: one op; fused chains and gradients use CHAIN_TOLERANCES
TOLERANCES = {torch.float16: (1e-3, 1e-3), torch.bfloat16: (1e-2, 1.6e-2), torch.float32: (1e-5, 1.3e-6),
              torch.float64: (1e-7, 1e-7)}
CHAIN_TOLERANCES = {torch.float16: (1e-2, 1e-2), torch.bfloat16: (5e-2, 5e-2), torch.float32: (1e-4, 1e-4),
                    torch.float64: (1e-7, 1e-7)}


class Invalid(Exception):
    """Not an example: eager, or the core itself, rejects it."""


class Declined(Exception):
    """The executor's checker declined the example (with this reason)."""


def _leaves(x):
    if isinstance(x, torch.Tensor):
        return [x]
    if isinstance(x, (list, tuple)):
        return [t for y in x for t in _leaves(y)]
    return []


def compare(got, expected, what, tolerances=TOLERANCES, values=True):
    """Structure, shapes, dtypes and (``values``) values of ``got`` against eager's ``expected``."""
    if isinstance(expected, torch.Tensor):
        assert isinstance(got, torch.Tensor), f"{what}: expected a tensor, got {type(got).__name__}"
        assert got.shape == expected.shape, f"{what}: shape {tuple(got.shape)} != eager {tuple(expected.shape)}"
        assert got.dtype == expected.dtype, f"{what}: dtype {got.dtype} != eager {expected.dtype}"
        if not values:
            return
        atol, rtol = tolerances.get(expected.dtype, (0, 0))
        torch.testing.assert_close(got.detach(), expected.detach(), atol=atol, rtol=rtol, equal_nan=True,
                                   msg=lambda m: f"{what}: {m}")
    elif isinstance(expected, (list, tuple)):
        assert isinstance(got, (list, tuple)) and len(got) == len(expected), \
            f"{what}: {type(got).__name__} of {len(got) if isinstance(got, (list, tuple)) else '?'} != eager " \
            f"{type(expected).__name__} of {len(expected)}"
        for i, (g, e) in enumerate(zip(got, expected)):
            compare(g, e, f"{what}[{i}]", tolerances, values)
    elif values:
        assert got == expected or (got != got and expected != expected), f"{what}: {got!r} != eager {expected!r}"


def _loss(out):
    terms = [t.float().sum() if t.dtype in (torch.float16, torch.bfloat16) else t.sum()
             for t in _leaves(out) if t.requires_grad and t.is_floating_point()]
    return sum(terms) if terms else None


def _grads(out, leaves):
    loss = _loss(out)
    if loss is None or not leaves:
        return None
    return torch.autograd.grad(loss, leaves, allow_unused=True)


def _owners(jfn):
    """[(bound symbol of the execution trace, executor name)] of the last compile."""
    import thunder_core as tc

    used = jfn._last.executors_used
    return [(b, used.get(b.sym.id)) for b in tc.last_traces(jfn)[-1].bound_symbols]


def _ran_symbols(jfn, name):
    """Symbol ids run by executor ``name`` (inside its regions too)."""
    from thunder_core.extend import region_of

    ids = set()
    for b, owner in _owners(jfn):
        if owner != name:
            continue
        region = region_of(b)
        ids |= {x.sym.id for x in region.bsyms} if region is not None else {b.sym.id}
    return ids


def run_case(executor, case, claims=None):
    """Check one example (see the module docstring). ``claims``: the kit's Claims of this
    executor (which symbols it claims alone or in regions), to decide what must have run."""
    import thunder_core as tc

    chain = isinstance(case, ChainCase)
    tolerances = CHAIN_TOLERANCES if chain else TOLERANCES
    fn, specs = case.program()
    inputs = [s.build() for s in specs]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            with torch.no_grad():
                expected = fn(*inputs)
        except Exception as e:  # noqa: BLE001 - eager rejects it: not an example
            raise Invalid(f"eager rejects it: {type(e).__name__}: {e}") from e
        if not _leaves(expected):
            raise Invalid("no tensor result")
        jfn = tc.jit(fn, executors=company(executor), cache="no caching", wait_for_compile=True)
        try:
            with torch.no_grad():
                got = jfn(*[s.build() for s in specs])
        except Exception as e:  # noqa: BLE001 - whose fault is it?
            try:
                with torch.no_grad():
                    tc.jit(fn, executors=[fallback()], cache="no caching")(*[s.build() for s in specs])
            except Exception as e2:  # noqa: BLE001
                raise Invalid(f"the core refuses it without the executor too: {type(e2).__name__}: {e2}") from e2
            raise AssertionError(f"{case.symbol}: tc.jit with executor {executor.name!r} raised "
                                 f"{type(e).__name__}: {e}") from e

    traced = [b for b in tc.last_traces(jfn)[0].bound_symbols]
    reasons = []
    for b in traced:
        reason = decline_reason(executor, b)
        check_reason(executor, b, reason)
        if reason is not None:
            reasons.append(f"{b.sym.id}: {reason}")
    compare(got, expected, f"{case.symbol} output")

    if not reasons:
        _check_ran(executor, case, jfn, traced, claims)
    if case.grad:
        _check_grads(executor, fn, specs, tolerances, case)
    if reasons:
        raise Declined("; ".join(reasons))


def _check_ran(executor, case, jfn, traced, claims):
    if executor.fallback:
        return
    ran = _ran_symbols(jfn, executor.name)
    by_fallback = {b.sym.id for b, owner in _owners(jfn) if owner == FALLBACK_NAME}
    alone = claims.alone if claims is not None else set(executor.implementations())
    in_region = claims.in_region if claims is not None else set()
    for b in traced:
        sid = b.sym.id
        if sid in alone and sid not in ran:
            raise AssertionError(f"{executor.name!r} implements {sid} and its checker accepts this call, but the "
                                 f"execution trace runs it with {'the fallback' if sid in by_fallback else 'another'}"
                                 f" executor:\n{tc_last(jfn)}")
    claimable = [b for b in traced if b.sym.id in alone or b.sym.id in in_region]
    if len(claimable) >= 2 and not ran and claimable:
        raise AssertionError(f"{executor.name!r} claims {', '.join(sorted({b.sym.id for b in claimable}))} "
                             f"(probed), its checker accepts them here, yet it runs nothing of:\n{tc_last(jfn)}")


def tc_last(jfn):
    import thunder_core as tc

    return str(tc.last_traces(jfn)[-1])


def _check_grads(executor, fn, specs, tolerances, case):
    import thunder_core as tc

    e_leaves: list = []
    e_in = [build_all(s, True) for s in specs]
    e_leaves = [t for t in e_in if t.requires_grad]
    if not e_leaves:
        return
    e_leaf_objs = [t if t.is_leaf else t._base if t._base is not None else t for t in e_leaves]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            out = fn(*e_in)
            if _loss(out) is None:
                return
            ge = _grads(out, e_leaf_objs)
        except Exception as e:  # noqa: BLE001 - eager cannot differentiate it
            raise Invalid(f"eager rejects it with inputs that require grad: {e}") from e
        j_in = [build_all(s, True) for s in specs]
        j_leaf_objs = [t if t.is_leaf else t._base if t._base is not None else t for t in j_in if t.requires_grad]
        jfn = tc.jit(fn, executors=company(executor), cache="no caching", wait_for_compile=True)
        try:
            gg = _grads(jfn(*j_in), j_leaf_objs)
        except Exception as e:  # noqa: BLE001
            try:
                k_in = [build_all(s, True) for s in specs]
                k_leaves = [t if t.is_leaf else t._base for t in k_in if t.requires_grad]
                _grads(tc.jit(fn, executors=[fallback()], cache="no caching")(*k_in), k_leaves)
            except Exception as e2:  # noqa: BLE001
                raise Invalid(f"the core cannot differentiate it without the executor either: {e2}") from e2
            raise AssertionError(f"{case.symbol}: gradients with executor {executor.name!r} raised "
                                 f"{type(e).__name__}: {e}") from e
    if ge is None or gg is None:
        return
    try:
        _compare_grads(gg, ge, case)
    except AssertionError as e:
        # does the core alone (the fallback running every symbol) differ from eager the same
        # way? Then it is the core's VJP rule, not the executor: recorded, not failed here.
        k_in = [build_all(s, True) for s in specs]
        k_leaves = [t if t.is_leaf else t._base for t in k_in if t.requires_grad]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            gk = _grads(tc.jit(fn, executors=[fallback()], cache="no caching")(*k_in), k_leaves)
        try:
            _compare_grads(gk, ge, case)
        except AssertionError:
            CORE_DIFFERENCES.setdefault(case.symbol, f"{case!r}: {str(e).splitlines()[0]}")
            raise Invalid(f"the core's own gradient differs from eager (not the executor's doing): {e}") from e
        raise


#: symbol -> an example where the core's own gradient (fallback only) differs from eager:
#: reported by the plugin's summary, not failed (the kit checks executors)
CORE_DIFFERENCES: dict = {}


def _compare_grads(gg, ge, case):
    for k, (g, e) in enumerate(zip(gg, ge)):
        if e is None:
            continue
        if g is None:
            g = torch.zeros_like(e)  # the compiled backward gives zeros where eager gives None
        compare(g, e, f"{case.symbol} gradient of input {k}", CHAIN_TOLERANCES)
