"""Run PyTorch's own OpInfo samples through ``tc.jit`` and compare with eager.

``run_case(op, dtype)`` takes a few ``op.sample_inputs("cpu", dtype)`` and for each one:

* runs ``op.op(sample.input, *sample.args, **sample.kwargs)`` eagerly and through ``tc.jit``
  (each on its own clones of the inputs);
* compares values (``assert_close``: dtype and shape included), the type of every output
  (tensor, tuple, list, ``torch.return_types.*``, number), aliasing (an output that is an
  input, or a view of one, in eager must be so through ``tc.jit`` and vice versa) and what
  the call wrote into its inputs;
* float64 samples of a differentiable op have inputs that require grad: the gradients of the
  sum of the outputs must match eager's;
* calls again with new values of the same metadata: a cache hit, with eager's result.

An op whose eager result changes with the RNG seed (random ops) or between two identical
calls (``empty``: uninitialised memory) is compared by metadata only.

The outcome of a sample is a :class:`Outcome`: ``"pass"`` (with whether the trace holds an
opaque symbol) or the exception ``tc.jit`` raised (the test decides whether it is a known
refusal). A difference from eager is an ``AssertionError`` naming what differed.
``python -m tests.ops.opdb`` writes docs/op-samples.md from a full run.
"""

from __future__ import annotations

import itertools
import os
from dataclasses import dataclass

import torch

os.environ.setdefault("THUNDER_CORE_EXECUTORS", "torch")

import thunder_core as tc  # noqa: E402
from thunder_core.capture import VALUES  # noqa: E402
from thunder_core.execution.autograd_runtime import tensor_leaves  # noqa: E402

#: dtypes tried for every op that supports them, and how many samples of each (float64
#: runs forward and backward; the others forward only)
DTYPES = {torch.float32: 3, torch.float64: 3, torch.int64: 2, torch.bool: 1, torch.bfloat16: 1}
SHORT = {torch.float32: "f32", torch.float64: "f64", torch.int64: "i64", torch.bool: "b8", torch.bfloat16: "bf16"}


@dataclass
class Outcome:
    index: int
    status: str                     # "pass" | "error" | "eager-error"
    opaque: bool = False            # the trace holds an opaque symbol
    error: BaseException | None = None
    random: bool = False            # compared by metadata only


def op_name(op) -> str:
    return op.name + (f".{op.variant_test_name}" if op.variant_test_name else "")


def samples(op, dtype):
    grad = dtype == torch.float64 and op.supports_autograd
    gen = op.sample_inputs("cpu", dtype, requires_grad=grad)
    return list(itertools.islice(gen, DTYPES[dtype])), grad


# ---------------------------------------------------------------- values and structure

def _map(fn, x):
    if isinstance(x, torch.Tensor):
        return fn(x)
    if isinstance(x, tuple) and hasattr(x, "_fields"):
        return type(x)(*(_map(fn, y) for y in x))
    if isinstance(x, (list, tuple)):
        return type(x)(_map(fn, y) for y in x)
    if isinstance(x, dict):
        return {k: _map(fn, v) for k, v in x.items()}
    return x


_leaves = tensor_leaves  # the tensors of a nested output, in order (the runtime's own walk)


def _clone(x):
    def one(t):
        c = t.detach().clone()
        return c.requires_grad_(t.requires_grad) if t.is_leaf or t.requires_grad else c
    return _map(one, x)


def _renew(x):
    """New tensors with the same metadata (shape, dtype, strides of dense tensors) and other
    values: every dim flipped, which keeps each value's domain (positive, in range, sorted
    reversed) and keeps matrices symmetric positive definite / invertible."""
    def one(t):
        v = t.detach().flip(list(range(t.ndim))) if t.ndim else t.detach() * 1
        n = torch.empty_like(t.detach()).copy_(v)
        return n.requires_grad_(t.requires_grad)
    return _map(one, x)


def _structure(x):
    """Types and nesting of a result, tensors and numbers abstracted to their type."""
    if isinstance(x, torch.Tensor):
        return "Tensor"
    if isinstance(x, (list, tuple)):
        return (type(x).__module__ + "." + type(x).__qualname__, tuple(_structure(y) for y in x))
    if isinstance(x, dict):
        return ("dict", tuple((k, _structure(v)) for k, v in x.items()))
    return type(x).__name__


def _storage(t):
    try:
        return t.untyped_storage().data_ptr() if t.untyped_storage().nbytes() else None
    except (RuntimeError, NotImplementedError):
        return None


def _aliasing(inputs, out):
    """For each output tensor: ("is", k) when it is input k itself, ("view", k) when it shares
    input k's storage, None otherwise; plus which outputs are the same object."""
    ins = _leaves(inputs)
    outs = _leaves(out)
    rel = []
    for o in outs:
        r = None
        for k, i in enumerate(ins):
            if o is i:
                r = ("is", k)
                break
            s = _storage(o)
            if s is not None and s == _storage(i):
                r = ("view", k)
        rel.append(r)
    same = [(a, b) for a, b in itertools.combinations(range(len(outs)), 2) if outs[a] is outs[b]]
    return rel, same


def _compare(got, exp, what, values=True):
    sg, se = _structure(got), _structure(exp)
    assert sg == se, f"{what}: result structure {sg} != eager {se}"
    for k, (g, e) in enumerate(zip(_leaves(got), _leaves(exp))):
        if values:
            torch.testing.assert_close(g, e, equal_nan=True, atol=_atol(e), rtol=_rtol(e),
                                       msg=lambda m, k=k: f"{what}, tensor {k}: {m}")
        else:
            assert (g.shape, g.dtype, g.device) == (e.shape, e.dtype, e.device), \
                f"{what}, tensor {k}: {g.shape} {g.dtype} != eager {e.shape} {e.dtype}"
    if values:
        for g, e in zip(_flat_numbers(got), _flat_numbers(exp)):
            assert g == e or (g != g and e != e), f"{what}: number {g!r} != eager {e!r}"


def _flat_numbers(x):
    if isinstance(x, (int, float, complex, bool)):
        return [x]
    if isinstance(x, (list, tuple)):
        return [n for y in x for n in _flat_numbers(y)]
    return []


def _atol(t):
    return {torch.bfloat16: 1e-2, torch.float16: 1e-3}.get(t.dtype)


def _rtol(t):
    return {torch.bfloat16: 1.6e-2, torch.float16: 1e-3}.get(t.dtype)


# ---------------------------------------------------------------- calling

def _call(op, args, kwargs):
    return op.op(*args, **kwargs)


#: Lists of tensors passed as arguments of a jitted function fail in capture today (the
#: interpreter's owner is fixing it): until then such samples pass their tensors one by one
#: and the jitted function rebuilds the lists.
SPLAT_TENSOR_LISTS = False


def _has_tensor_list(args, kwargs):
    def inside(x):
        return isinstance(x, (list, tuple)) and any(isinstance(y, torch.Tensor) or inside(y) for y in x)
    return any(inside(a) for a in (*args, *kwargs.values()))


def _template(x, out):
    """``x`` with each tensor replaced by its index in ``out`` (where it is appended)."""
    if isinstance(x, torch.Tensor):
        out.append(x)
        return _Slot(len(out) - 1)
    if isinstance(x, (list, tuple)):
        return type(x)(_template(y, out) for y in x)
    if isinstance(x, dict):
        return {k: _template(v, out) for k, v in x.items()}
    return x


class _Slot:
    def __init__(self, k):
        self.k = k


def _fill(x, ts):
    if isinstance(x, _Slot):
        return ts[x.k]
    if isinstance(x, (list, tuple)):
        return type(x)(_fill(y, ts) for y in x)
    if isinstance(x, dict):
        return {k: _fill(v, ts) for k, v in x.items()}
    return x


def _sample_args(s):
    return [s.input, *s.args], dict(s.kwargs)


def _eager(op, args, kwargs, seed=0):
    torch.manual_seed(seed)
    return _call(op, args, kwargs)


def _loss(out, s):
    out = s.output_process_fn_grad(out)
    terms = []
    for t in _leaves(out):
        if t.requires_grad and (t.is_floating_point() or t.is_complex()):
            terms.append((torch.view_as_real(t.resolve_conj().contiguous()) if t.is_complex() else t).sum())
    return sum(terms) if terms else None


def _grads(loss, inputs):
    leaves = [t for t in _leaves(inputs) if t.requires_grad]
    if loss is None or not leaves:
        return None
    return torch.autograd.grad(loss, leaves, allow_unused=True)


def _has_opaque(jfn) -> bool:
    trace = tc.last_traces(jfn)[0]
    return any("opaque" in b.sym.tags for b in trace.bound_symbols)


#: ops returning uninitialised memory (their values are whatever the allocator hands out, so
#: two identical calls may or may not agree): compared by metadata only
UNINITIALISED = {"empty", "empty_like", "empty_strided", "empty_permuted", "new_empty", "new_empty_strided"}


def _is_random(op, args, kwargs, first):
    """"random" when the result depends on the seed, "uninitialised" when two identical calls
    differ (or the op is one of UNINITIALISED); None for a deterministic op."""
    if op.name in UNINITIALISED:
        return "uninitialised"
    def differ(a, b):
        try:
            _compare(a, b, "", values=True)
            return False
        except AssertionError:
            return True
    if differ(_eager(op, _clone(args), _clone(kwargs), 0), first):
        return "uninitialised"
    if differ(_eager(op, _clone(args), _clone(kwargs), 1), first):
        return "random"
    return None


def check_sample(op, s, grad):
    """Compare one sample through tc.jit with eager; returns (opaque?, random?) or raises:
    AssertionError for a difference, the jit's own exception for a refusal, and
    ``EagerError`` when eager itself rejects the sample."""
    args, kwargs = _sample_args(s)
    e_args, e_kwargs = _clone(args), _clone(kwargs)
    try:
        with torch.no_grad() if not grad else torch.enable_grad():
            expected = _eager(op, e_args, e_kwargs)
    except Exception as e:  # noqa: BLE001 - a sample eager rejects is not ours to judge
        raise EagerError(e) from e
    randomness = _is_random(op, args, kwargs, expected)
    values = randomness is None

    splat = SPLAT_TENSOR_LISTS and _has_tensor_list(args, kwargs)
    if splat:
        flat: list = []
        template = _template((args, kwargs), flat)

        def fn(*ts):
            a, k = _fill(template, ts)
            return _call(op, a, k)

        def call(jfn, a, k):
            ts: list = []
            _template((a, k), ts)
            return jfn(*ts)
    else:
        def fn(*a, **k):
            return _call(op, a, k)

        def call(jfn, a, k):
            return jfn(*a, **k)

    jfn = tc.jit(fn)
    j_args, j_kwargs = _clone(args), _clone(kwargs)
    with torch.no_grad() if not grad else torch.enable_grad():
        torch.manual_seed(0)
        got = call(jfn, j_args, j_kwargs)
    opaque = _has_opaque(jfn)
    _compare(got, expected, "output", values)
    _compare((j_args, j_kwargs), (e_args, e_kwargs), "inputs after the call (in-place writes)", values)
    alias_g, alias_e = _aliasing((j_args, j_kwargs), got), _aliasing((e_args, e_kwargs), expected)
    assert alias_g == alias_e, f"aliasing of outputs with inputs (is/view of input k) {alias_g} != eager {alias_e}"

    if grad and values:
        try:
            ge = _grads(_loss(expected, s), (e_args, e_kwargs))
        except Exception as e:  # noqa: BLE001 - eager's backward rejects it (linalg.eig of a 0x0 matrix): so must ours
            try:
                _grads(_loss(got, s), (j_args, j_kwargs))
            except type(e):
                ge = None
            else:
                raise AssertionError(f"eager's backward raises {type(e).__name__} ({e}); the jitted one does not")
        else:
            if ge is not None:
                gg = _grads(_loss(got, s), (j_args, j_kwargs))
                _compare(gg, ge, "gradients")

    # a second call: same metadata, new values -> a cache hit with eager's result
    n_args, n_kwargs = _renew(args), _renew(kwargs)
    with torch.no_grad() if not grad else torch.enable_grad():
        try:
            expected2 = _eager(op, _clone(n_args), _clone(n_kwargs))
        except Exception:  # noqa: BLE001 - flipping broke an invariant (sorted offsets...): same values, new tensors
            n_args, n_kwargs = _clone(args), _clone(kwargs)
            expected2 = _eager(op, _clone(n_args), _clone(n_kwargs))
        hits = tc.cache_hits(jfn)
        torch.manual_seed(0)
        got2 = call(jfn, n_args, n_kwargs)
    # (unless the trace depends on a tensor's contents, which are then checked: tensor_split's indices)
    by_value = any(g.kind == VALUES for g in jfn._last.capture.guards) if tc.cache_misses(jfn) > 1 else False
    assert tc.cache_hits(jfn) == hits + 1 or by_value, \
        f"the second call with new values of the same metadata was not a cache hit ({tc.cache_misses(jfn)} misses)"
    _compare(got2, expected2, "second call's output", values)
    return opaque, randomness


class EagerError(Exception):
    """Eager PyTorch rejects this sample (not ours to judge)."""


def run_case(op, dtype):
    """Outcomes of the samples of ``op`` for ``dtype``: pass, error (the exception), or
    eager-error. Differences from eager are raised as AssertionError by check_sample and
    recorded as errors here too (the test re-raises every error that is not known)."""
    ss, grad = samples(op, dtype)
    out = []
    for k, s in enumerate(ss):
        try:
            opaque, randomness = check_sample(op, s, grad)
            out.append(Outcome(k, "pass", opaque, random=randomness is not None))
        except EagerError as e:
            out.append(Outcome(k, "eager-error", error=e.__cause__))
        except Exception as e:  # noqa: BLE001 - recorded; the test decides
            out.append(Outcome(k, "error", error=e))
    return out
