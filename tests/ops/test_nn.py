"""NN ops (thunder_core/ops/ltorch_nn.py) against eager, plus the helpers the family's other
test modules (test_linalg, test_norm, test_loss) import: sample builders, seeded runs for
random ops and runs of ops that mutate their inputs (check_stateful), tracing-time errors
(check_error), and the registered-equals-covered check (assert_covered)."""

import math

import pytest
import torch
import torch.nn.functional as F

from thunder_core.ir import verify
from thunder_core.ops import TORCH_CALLS, ltorch_nn
from thunder_core.testing.opcheck import check_op, torch_impls, trace_op
from thunder_core.transforms.flatten import flatten

pytest.importorskip("thunder_executor_torch")

_GEN = torch.Generator().manual_seed(0)
_LOOSE = {torch.bfloat16: 3e-2, torch.float16: 1e-2}


def r(*shape, dtype=torch.float32):
    """A standard-normal tensor from this module's generator (same values on every run)."""
    return torch.randn(shape, generator=_GEN, dtype=dtype)


def u(*shape, low=0.0, high=1.0, dtype=torch.float32):
    """A uniform tensor in [low, high)."""
    return torch.rand(shape, generator=_GEN, dtype=dtype) * (high - low) + low


def ints(high, *shape, dtype=torch.int64):
    return torch.randint(0, high, shape, generator=_GEN, dtype=dtype)


def nc(t):
    """A non-contiguous tensor with ``t``'s values (its last two dimensions are stored swapped)."""
    if t.ndim < 2:
        return t.repeat_interleave(2)[::2]
    return t.transpose(-1, -2).contiguous().transpose(-1, -2)


def case(fn, *args, atol=None, rtol=None, **kwargs):
    """One sample: ``fn(*args, **kwargs)``; tolerances default to loose for half-precision tensors."""
    tensors = [a for a in (*args, *kwargs.values()) if isinstance(a, torch.Tensor)]
    loose = max((_LOOSE.get(t.dtype, 0) for t in tensors), default=0)
    if atol is None and loose:
        atol = rtol = loose
    return fn, args, kwargs, {"atol": atol, "rtol": rtol}


def _name(fn) -> str:
    """``torch.mm``, ``Tensor.mm``, ``F.linear``, ``special.softmax``: how a test id names a callable."""
    if getattr(fn, "__objclass__", None) is not None:
        return f"Tensor.{fn.__name__}"
    for prefix, module in (("F", F), ("special", torch.special), ("torch", torch)):
        if getattr(module, fn.__name__, None) is fn:
            return f"{prefix}.{fn.__name__}"
    return fn.__name__


def params(cases):
    """pytest params with readable ids: ``<callable>-<n>``."""
    seen: dict[str, int] = {}
    out = []
    for c in cases:
        name = _name(c[0])
        seen[name] = seen.get(name, -1) + 1
        out.append(pytest.param(*c, id=f"{name}-{seen[name]}"))
    return out


def _tensors(x):
    if isinstance(x, torch.Tensor):
        return [x]
    if isinstance(x, (list, tuple)):
        return [t for y in x for t in _tensors(y)]
    if isinstance(x, dict):
        return [t for y in x.values() for t in _tensors(y)]
    return []


def _clone(x):
    if isinstance(x, torch.Tensor):
        return x.clone()
    if isinstance(x, (list, tuple)):
        return type(x)(_clone(y) for y in x)
    return {k: _clone(v) for k, v in x.items()} if isinstance(x, dict) else x


def _runs(fn, args, kwargs):
    """The traced call, run whole and decomposed to prims (each a callable over the inputs)."""
    trace, _ = trace_op(fn, *args, **kwargs)
    verify(trace)
    impls = torch_impls()
    runs = [trace.python_callable(impls)]
    if any(b.subsymbols for b in trace.bound_symbols):
        flat = flatten(trace, keep=lambda s: s.is_prim or s.decomposition is None)
        verify(flat)
        runs.append(flat.python_callable(impls))
    return runs


def check_stateful(fn, *args, seed=None, atol=None, rtol=None, **kwargs):
    """Compare with eager an op that draws random numbers (re-seeded with ``seed`` before each
    run) or writes into its inputs: eager, the whole op and its decomposition each run on
    fresh copies of the inputs; outputs and every input afterwards must equal eager's."""
    tol = {} if atol is None else {"atol": atol, "rtol": rtol}
    eargs, ekwargs = _clone(list(args)), _clone(kwargs)
    if seed is not None:
        torch.manual_seed(seed)
    expected = fn(*eargs, **ekwargs)
    for i, run in enumerate(_runs(fn, args, kwargs)):
        targs, tkwargs = _clone(list(args)), _clone(kwargs)
        if seed is not None:
            torch.manual_seed(seed)
        got = run(*_tensors((targs, tkwargs)))
        what = "whole" if i == 0 else "decomposed"
        torch.testing.assert_close(got, expected, **tol, msg=lambda m: f"{what}: {m}")
        for j, (g, e) in enumerate(zip(_tensors((targs, tkwargs)), _tensors((eargs, ekwargs)))):
            torch.testing.assert_close(g, e, **tol, msg=lambda m: f"{what}, input {j} afterwards: {m}")


def check_requires_grad(fn, args, kwargs):
    """With every floating-point tensor requiring grad, the traced call (whole and decomposed)
    verifies, so outputs require grad exactly when eager's do. Calls eager refuses (grad of a
    class weight, of running statistics) are skipped."""
    def rg(x):
        if isinstance(x, torch.Tensor) and x.is_floating_point():
            return x.detach().clone().requires_grad_(True)
        return type(x)(rg(y) for y in x) if isinstance(x, (list, tuple)) else x

    args, kwargs = rg(list(args)), {k: rg(v) for k, v in kwargs.items()}
    try:
        fn(*args, **kwargs)
    except RuntimeError as e:
        if "differentiable" in str(e) or "requires grad" in str(e):
            return
        raise
    _runs(fn, args, kwargs)


def check_error(fn, args, kwargs, error, match):
    """Tracing ``fn(*args, **kwargs)`` raises ``error`` with a message matching ``match``."""
    with pytest.raises(error, match=match):
        trace_op(fn, *args, **kwargs)


def registered(*modules):
    """Torch callables whose entries record a symbol defined in ``modules``."""
    symbols = {v.symbol for m in modules for v in vars(m).values() if hasattr(v, "symbol")}
    return {fn for fn, entry in TORCH_CALLS.items() if getattr(entry, "symbol", None) in symbols}


def assert_covered(modules, *tables):
    covered = {c[0] for table in tables for c in table}
    missing, extra = registered(*modules) - covered, covered - registered(*modules)
    assert not missing, f"registered but untested: {sorted(map(str, missing))}"
    assert not extra, f"tested but not registered here: {sorted(map(str, extra))}"


# ---------------------------------------------------------------- samples

x4 = r(2, 3, 4, 5)
q, k, v = r(2, 3, 4, 8), r(2, 3, 6, 8), r(2, 3, 6, 8)
CASES = [
    case(F.scaled_dot_product_attention, q, k, v, atol=1e-5, rtol=1e-5),
    case(F.scaled_dot_product_attention, q, k, v, is_causal=True, atol=1e-5, rtol=1e-5),
    case(F.scaled_dot_product_attention, q, q, q, is_causal=True, scale=0.3, atol=1e-5, rtol=1e-5),
    case(F.scaled_dot_product_attention, q, k, v, attn_mask=torch.rand(4, 6, generator=_GEN) > 0.3, atol=1e-5,
         rtol=1e-5),
    case(F.scaled_dot_product_attention, q, k, v, attn_mask=torch.tensor([[True] * 6, [False] * 6] * 2),
         atol=1e-5, rtol=1e-5),  # a row masked entirely attends to nothing
    case(F.scaled_dot_product_attention, q, k, v, attn_mask=r(2, 1, 4, 6), scale=-0.5, atol=1e-5, rtol=1e-5),
    case(F.scaled_dot_product_attention, nc(r(5, 4, 8)), nc(r(5, 7, 8)), r(5, 7, 3), atol=1e-5, rtol=1e-5),
    case(F.scaled_dot_product_attention, r(1, 4, 3, 8), r(1, 2, 5, 8), r(1, 2, 5, 8), enable_gqa=True, atol=1e-5,
         rtol=1e-5),
    case(F.scaled_dot_product_attention, r(0, 2, 3, 8), r(0, 2, 5, 8), r(0, 2, 5, 8)),
    case(F.scaled_dot_product_attention, *(r(2, 2, 4, 8, dtype=torch.float64) for _ in range(3)), is_causal=True),
    case(F.scaled_dot_product_attention, *(r(2, 2, 4, 8, dtype=torch.bfloat16) for _ in range(3))),
    case(F.embedding, ints(10, 2, 3), r(10, 4)),
    case(F.embedding, ints(10, 5, dtype=torch.int32), nc(r(10, 4)), padding_idx=0),
    case(F.embedding, torch.tensor(3), r(10, 4, dtype=torch.float64), padding_idx=-1),
    case(F.embedding, ints(10, 0, 3), r(10, 4)),
    case(F.one_hot, ints(5, 2, 3), 5),
    case(F.one_hot, ints(3, 0), num_classes=3),
    case(F.pad, x4, [1, 2]),
    case(F.pad, x4, [1, 1, 2, 0], value=0.5),
    case(F.pad, x4, [-1, 1]),
    case(F.pad, r(1, 2, 5), [2, 1], mode="reflect"),
    case(F.pad, nc(r(1, 2, 4, 4)), [1, 1, 1, 1], mode="replicate"),
    case(F.pad, r(1, 2, 5, dtype=torch.float64), [1, 2], mode="circular"),
    case(F.interpolate, x4, scale_factor=2),
    case(F.interpolate, x4, size=(5, 7), mode="bilinear"),
    case(F.interpolate, x4, size=(2, 3), mode="bilinear", align_corners=True),
    case(F.interpolate, r(1, 2, 5), scale_factor=1.5, mode="linear"),
    case(F.max_pool1d, r(2, 3, 9), 3, stride=2, padding=1),
    case(F.max_pool1d, r(3, 9), 2, return_indices=True),
    case(F.max_pool2d, x4, 2),
    case(F.max_pool2d, nc(r(2, 3, 8, 8)), 3, stride=2, padding=1, dilation=2, ceil_mode=True),
    case(F.max_pool2d, r(0, 3, 4, 4), (2, 1), return_indices=True),
    case(F.max_pool3d, r(1, 2, 4, 4, 4), 2),
    case(F.avg_pool1d, r(2, 3, 9), 3, stride=2, padding=1, count_include_pad=False),
    case(F.avg_pool2d, x4, 2, ceil_mode=True),
    case(F.avg_pool2d, r(2, 3, 6, 6, dtype=torch.float64), 3, stride=1, padding=1, divisor_override=2),
    case(F.avg_pool3d, r(1, 2, 4, 4, 4), (2, 2, 1)),
    case(F.adaptive_avg_pool1d, r(2, 3, 9), 4),
    case(F.adaptive_avg_pool2d, x4, (2, None)),
    case(F.adaptive_avg_pool2d, nc(r(3, 7, 7)), 3),
    case(F.adaptive_avg_pool3d, r(1, 2, 4, 5, 6), (2, 2, 3)),
    case(F.adaptive_max_pool1d, r(2, 3, 9), 4),
    case(F.adaptive_max_pool1d, r(2, 3, 9), 4, return_indices=True),
    case(F.adaptive_max_pool2d, x4, (3, 2)),
    case(F.unfold, x4, 2),
    case(F.unfold, r(1, 2, 6, 7), (2, 3), dilation=2, padding=1, stride=(1, 2)),
    case(F.fold, r(2, 12, 12), (4, 5), 2),
    case(F.fold, r(1, 8, 9, dtype=torch.float64), (5, 5), (2, 2), stride=2, padding=1),
    case(F.pixel_shuffle, r(2, 8, 3, 3), 2),
    case(F.pixel_shuffle, nc(r(2, 3, 9, 2, 2)), 3),
    case(F.pixel_shuffle, r(0, 4, 2, 2), 2),
    case(F.pixel_unshuffle, r(2, 2, 4, 6), 2),
    case(F.pixel_unshuffle, r(3, 6, 9, dtype=torch.float64), 3),
    case(F.cosine_similarity, r(4, 5), r(4, 5), atol=1e-6, rtol=1e-5),
    case(F.cosine_similarity, r(1, 5), nc(r(4, 5)), dim=0, atol=1e-6, rtol=1e-5),
    case(F.cosine_similarity, r(3, 1, 4), r(2, 4), dim=-1, eps=1e-3, atol=1e-6, rtol=1e-5),
    case(F.cosine_similarity, torch.zeros(2, 3), r(2, 3, dtype=torch.float64)),
    case(F.cosine_similarity, r(4, 5, dtype=torch.bfloat16), r(4, 5, dtype=torch.bfloat16)),
    case(F.pairwise_distance, r(4, 5), r(4, 5), atol=1e-5, rtol=1e-5),
    case(F.pairwise_distance, r(4, 5), r(5), p=1.0, keepdim=True, atol=1e-5, rtol=1e-5),
    case(F.pairwise_distance, nc(r(3, 4)), r(3, 4), p=math.inf),
    case(F.pairwise_distance, r(3, 4, dtype=torch.float64), r(3, 4, dtype=torch.float64), p=3.0, eps=0.1),
    case(F.pairwise_distance, r(3, 4), r(3, 4), p=0.0),
    case(F.pairwise_distance, r(0, 4), r(0, 4)),
    case(torch.channel_shuffle, r(2, 6, 3), 3),
    case(torch.native_channel_shuffle, nc(r(1, 4, 2, 2)), 2),
    case(torch.pdist, r(5, 3), atol=1e-5, rtol=1e-5),
    case(torch.pdist, r(4, 2, dtype=torch.float64), p=1.0),
    case(torch.pdist, r(4, 3), p=math.inf),
    case(torch.pdist, r(1, 3)),
]

RANDOM_CASES = [
    case(F.dropout, r(4, 5)),
    case(F.dropout, nc(r(6, 5)), p=0.2),
    case(F.dropout, r(4, 5, dtype=torch.float64), 0.7, training=False),
    case(F.dropout, r(4, 5), p=0.0),
    case(F.dropout, r(4, 5), 0.5, False, True),  # in place, but eval mode: a no-op
    case(F.dropout, r(4, 5), p=1.0),
    case(F.dropout, r(0, 5)),
    case(F.dropout, r(8, 8, dtype=torch.bfloat16), 0.3),
    case(torch.dropout, r(4, 5), 0.4, True),
    case(torch.dropout, r(4, 5), 0.4, False),
    case(F.dropout1d, r(2, 3, 5), 0.5),
    case(F.dropout1d, r(3, 5), 0.5),
    case(F.dropout2d, x4, 0.4),
    case(F.dropout3d, r(2, 3, 2, 2, 2), 0.5),
    case(F.dropout3d, r(3, 2, 2, 2), 0.5, training=False),
    case(F.alpha_dropout, r(4, 5), 0.2, training=True),
    case(F.alpha_dropout, r(4, 5), 0.2),
    case(F.feature_alpha_dropout, x4, 0.3, training=True),
    case(F.scaled_dot_product_attention, q, k, v, dropout_p=0.25, atol=1e-5, rtol=1e-5),
    case(F.scaled_dot_product_attention, q, k, v, is_causal=True, dropout_p=0.5, atol=1e-5, rtol=1e-5),
]


@pytest.mark.parametrize("fn, args, kwargs, tol", params(CASES))
def test_nn_op(fn, args, kwargs, tol):
    check_op(fn, *args, **tol, **kwargs)
    check_requires_grad(fn, args, kwargs)


@pytest.mark.parametrize("fn, args, kwargs, tol", params(RANDOM_CASES))
def test_random_op_matches_eager_under_the_same_seed(fn, args, kwargs, tol):
    check_stateful(fn, *args, seed=1234, **tol, **kwargs)


def test_dropout_masks_change_with_the_seed():
    x = torch.ones(64, 64)
    run = _runs(F.dropout, (x,), {"p": 0.5})[-1]
    torch.manual_seed(0)
    a = run(x)
    torch.manual_seed(1)
    assert not torch.equal(a, run(x))


def test_dropout2d_on_3d_input_warns_and_drops_channels():
    x = r(2, 3, 4)
    with pytest.warns(UserWarning, match="dropout2d"):
        check_stateful(F.dropout2d, x, 0.5, seed=0)


INPLACE_DROPOUTS = [(F.dropout, (r(4, 5), 0.5)), (F.dropout1d, (r(3, 5), 0.5)), (F.dropout2d, (x4, 0.4)),
                    (F.dropout3d, (r(2, 3, 2, 2, 2), 0.5)), (F.alpha_dropout, (r(4, 5), 0.2)),
                    (F.feature_alpha_dropout, (x4, 0.3))]


@pytest.mark.parametrize("fn, args", INPLACE_DROPOUTS, ids=lambda v: getattr(v, "__name__", ""))
def test_inplace_dropout_in_training_writes_eagers_noise_into_its_input(fn, args):
    import thunder_core as tc

    def f(x, *rest):
        y = x * 1
        out = fn(y, *rest, training=True, inplace=True)
        return out, y, out.sum()  # (y after the write, as eager's returned tensor is y itself)

    want, got = [], []
    for run, into in ((f, want), (tc.jit(f, executors=["torch"]), got)):
        torch.manual_seed(7)
        into.extend(run(*args))
    for g, w in zip(got, want):
        assert torch.equal(g, w)
    trace = tc.last_traces(_jitted(f, args))[0]
    name = f"ltorch.{fn.__name__}_"
    assert any(b.sym.id == name and "inplace" in b.sym.tags for b in trace.bound_symbols), str(trace)


def _jitted(f, args):
    import thunder_core as tc

    j = tc.jit(f, executors=["torch"])
    j(*args)
    return j


def test_inplace_dropout_gradients_see_the_write():
    import thunder_core as tc

    def f(x, w):
        h = torch.tanh(x @ w) * 1
        F.dropout(h, 0.5, True, inplace=True)  # the result is not used: h itself was written
        return h.sin().sum()

    x, w = r(3, 4, 5), r(5, 5).requires_grad_(True)
    torch.manual_seed(3)
    f(x, w).backward()
    want, w.grad = w.grad, None
    torch.manual_seed(3)
    tc.jit(f)(x, w).backward()
    torch.testing.assert_close(w.grad, want)


def test_inplace_dropout_that_drops_nothing_records_no_write():
    import thunder_core as tc

    for kwargs in ({"training": False}, {"p": 0.0}):
        j = _jitted(lambda x: F.dropout(x, inplace=True, **kwargs), (r(4),))
        assert not any("inplace" in b.sym.tags for b in tc.last_traces(j)[0].bound_symbols)


@pytest.mark.parametrize("fn, args, kwargs, error, match", [
    (F.dropout, (r(3), 1.5), {}, ValueError, "between 0 and 1"),
    (F.dropout1d, (x4,), {}, RuntimeError, "2D or 3D"),
    (F.embedding, (ints(4, 3), r(4, 2)), {"max_norm": 1.0}, NotImplementedError, "max_norm"),
    (F.embedding, (r(3), r(4, 2)), {}, RuntimeError, "int64 or int32"),
    (F.one_hot, (ints(4, 3),), {}, ValueError, "num_classes"),
    (F.scaled_dot_product_attention, (q, k, v), {"attn_mask": r(4, 6), "is_causal": True}, RuntimeError,
     "one or the other"),
    (F.pixel_shuffle, (r(1, 3, 2, 2), 2), {}, RuntimeError, "C \\* 4"),
])
def test_errors_while_tracing(fn, args, kwargs, error, match):
    check_error(fn, args, kwargs, error, match)


def test_every_registered_callable_is_tested():
    assert_covered([ltorch_nn], CASES, RANDOM_CASES)
