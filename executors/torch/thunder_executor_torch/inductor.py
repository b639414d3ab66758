"""The ``inductor`` executor: compiles regions of the trace with inductor.

It claims runs of torch-level symbols chosen by their traits: fusible ones (elementwise math
and activations, dtype conversions, reductions, shape ops and views, gathers and scatters at
positions an index tensor holds: embeddings, a loss's gradient) and, spanning them,
library ones (matrix products, attention and convolutions, which inductor calls as library
kernels inside the compiled region, and normalizations, which it generates); never random
ops, in-place ops or opaque ones. For each maximal run it offers the run's pure fusible
stretches as regions and, when the run holds library ops, the whole run as one region: the
cost model decides whether fewer, larger regions (one call instead of one per op) beat
separate library calls. Regions with the same structure, strides and grad mode (one per
transformer layer) share one compile.

It declares ``compiles=True``: ``tc.jit`` runs a region it won op by op while inductor
compiles it in the background (thunder_core/execution/tiered.py). A region is compiled with
``make_fx`` and inductor's ``compile_fx`` for the strides of its first call, without
torch.compile's frame evaluation and guards (the prologue already checks the inputs), so a
call costs about one kernel launch more than the kernels themselves (``calibrate`` measures
it); a call with other sizes or strides than the compile's runs op by op.

The cost model charges a region the bytes crossing its boundary (intermediates never reach
memory), a launch per generated kernel, its library kernels, and this executor's per-call
overhead, so fusion wins where memory traffic or per-op overhead dominates and loses where a
region saves less than ``COMPILE_AMORTIZED_US`` per call.
"""

from __future__ import annotations

import contextlib
import functools
import operator
import threading

import torch

from thunder_core.extend import (NumberProxy, TensorProxy, draws_random, has_trait, region_callable, region_key,
                                 torch_impls)

#: what inductor fuses, by op traits (thunder_core.extend.TRAITS): ops with one of FUSIBLE_TRAITS
#: and none of UNFUSED_TRAITS (random draws, writes, opaque calls); "indexing" ops become
#: indirect loads and stores in its kernels (an out-of-range index fails its bounds check)
FUSIBLE_TRAITS = frozenset({"elementwise", "reduction", "shape", "view", "creation", "indexing"})
#: ops a region may span but not be made of alone: library kernels inductor calls from the
#: compiled region (matmul: products, attention, convolutions) and normalizations (their aten
#: kernels beat the code inductor generates for them alone, here; inside a larger region the
#: saved per-op calls pay for it)
SPANNED_TRAITS = frozenset({"matmul", "normalization"})
UNFUSED_TRAITS = frozenset({"random", "inplace", "opaque"})
#: per-call overhead of a compiled region beyond one kernel launch, µs: the call of inductor's
#: generated function (calibrate measures ~0.3 µs here, 2 cores, torch 2.13; declared higher
#: to cover the runtime wrapper's ~5 µs when a region's outputs alias); on CUDA the host-side
#: launch work of a generated kernel: a tiny region's call took ~12 µs on an H100, the profile's
#: 3 µs launch included (calibrate, torch 2.11, 2026-11-27)
DISPATCH_US = {"cpu": 1.0, "cuda": 8.0}
#: A region's compile (seconds of CPU, in the background) charged per call: a region wins only
#: where it saves more than this per call, so that regions saving next to nothing are not
#: compiled at all (tc.explain shows the claim with it included).
COMPILE_AMORTIZED_US = 3.0
#: how many library ops a candidate region on either side of one left to another executor may
#: span (a transformer layer has about five: its products and attention)
SIDE_LIBRARY_OPS = 8
_COMPILED: dict = {}  # (region signature, input strides, autograd) -> compiled callable


def _member(bsym):
    """"fuse" or "span" for a symbol a region may hold (see the module docstring), else None."""
    tags = bsym.sym.tags
    if "random" in tags and not draws_random(bsym):  # attention without dropout: draws nothing
        tags = tags - {"random"}
    # decided by the op's traits, wherever it is defined (plugins included); a region runs
    # each op's torch implementation, so only torch-level ops with one can join it
    if not tags.isdisjoint(UNFUSED_TRAITS) or bsym.sym.id not in torch_impls():
        return None
    if not tags.isdisjoint(FUSIBLE_TRAITS) and tags.isdisjoint(SPANNED_TRAITS):
        return "fuse"
    return "span" if not tags.isdisjoint(SPANNED_TRAITS) else None


def claim(bsyms, ctx):
    """Per maximal run of member symbols (checked by the checkers): a claim per stretch of
    two or more fusible symbols, and, when the run spans library ops, one for the whole run."""
    i, n = 0, len(bsyms)
    kinds = [k if k is not None and ctx.check(b) is None else None for k, b in ((_member(b), b) for b in bsyms)]
    while i < n:
        if kinds[i] is None:
            i += 1
            continue
        j = i
        while j < n and kinds[j] is not None:
            j += 1
        yield from _claims(ctx, bsyms, kinds, i, j)
        i = j


def _claims(ctx, bsyms, kinds, i, j):
    """The run's stretches of fusible symbols; when it holds library ops, its stretches between
    them and the parts before and after each (normalizations included: another executor may
    then take a library op, e.g. cuDNN's attention, while inductor takes what surrounds it);
    and the whole run."""
    library = [k for k in range(i, j) if kinds[k] == "span" and has_trait(bsyms[k], "matmul")]
    between = [(a + 1, b) for a, b in zip([i - 1, *library], [*library, j])] if library else []
    # all but one library op, either side: up to SIDE_LIBRARY_OPS library ops away (a whole run
    # each side made the candidates, and their pricing, grow with the square of the layers)
    bounds = [i - 1, *library, j]
    for n, k in enumerate(library, start=1):
        between += [(bounds[max(0, n - SIDE_LIBRARY_OPS)] + 1, k), (k + 1, bounds[min(len(bounds) - 1, n + SIDE_LIBRARY_OPS)])]
    offered = {(i, j)}
    for fits, stretches in ((lambda k: kinds[k] == "fuse", [(i, j)]), (lambda k: True, between)):
        for a, b in stretches:
            k = a
            while k < b:
                if not fits(k):
                    k += 1
                    continue
                e = k
                while e < b and fits(e):
                    e += 1
                if e - k >= 2 and (k, e) not in offered:
                    offered.add((k, e))
                    yield from _claim(ctx, k, e)
                k = e
    if j - i >= 2:
        yield from _claim(ctx, i, j)


def _claim(ctx, i, j):
    region = ctx.region(i, j)
    if region.outputs:
        # inductor's generated code is a kernel per reduction or normalization: a launch each
        kernels = sum(1 for b in region.bsyms if (has_trait(b, "reduction") or has_trait(b, "normalization"))
                      and not has_trait(b, "matmul") and not has_trait(b, "view"))
        us = ctx.region_us(region) + kernels * ctx.profile.launch_us + COMPILE_AMORTIZED_US
        yield ctx.claim(i, j, us, lower, f"{j - i} fused symbols")


def lower(region):
    """The region compiled by inductor for inputs like ``region.example_inputs`` (zero-filled
    tensors of the first call's shapes and strides, given by tiered execution; contiguous ones
    made from the proxies otherwise). Regions of one structure, strides and grad mode share
    one compile. Called on the compile thread (``compiles=True``): this compiles at once.
    A region taking numbers that change between calls (symbolic ones: a ``random.random()``
    drawn on every call, an argument under "symbolic values") is compiled once with those
    numbers as inputs (``_compile_symbolic``); its other inputs are specialised as usual."""
    examples = region.example_inputs
    if examples is None:
        examples = tuple(_example(p) for p in region.inputs)
    grad = torch.is_grad_enabled() and any(isinstance(x, torch.Tensor) and x.requires_grad for x in examples)
    rk = region_key(region)
    key = (rk, _strides(examples), grad)
    fn = _COMPILED.get(key)
    if fn is None:
        symbolic = [i for i, p in enumerate(region.inputs) if type(p) is NumberProxy and p.symbolic
                    and type(examples[i]) in (int, float)]
        fn = _compile_symbolic(region, examples, symbolic, rk) if symbolic else _compile(region, examples, rk)
        _COMPILED[key] = fn
    return fn


def _example(p):
    if not isinstance(p, TensorProxy):
        return p.value
    t = torch.zeros(tuple(p.shape), dtype=p.dtype, device=p.device)
    return t.requires_grad_() if p.requires_grad else t


def _decompositions():
    """Inductor's decomposition table, applied already when the region is traced to aten ops.
    Layout-dependent choices made while tracing (``reshape``/``matmul`` become a ``view`` when
    the strides allow one) must see the layouts inductor's own trace will see: its
    decompositions change some (``cat`` of one non-empty tensor becomes a ``clone`` that keeps
    the input's strides, where the op itself returns a contiguous tensor), and a ``view``
    decided on the op's layout then fails on the decomposition's (HF T5's key/value cache)."""
    from torch._inductor.decomposition import select_decomp_table

    return select_decomp_table()


def _strides(args):
    return tuple(x.stride() if isinstance(x, torch.Tensor) else None for x in args)


def _compile(region, examples, rk):
    """make_fx + inductor's compile_fx: no dynamo frame. When the compile is one inference graph
    whose outputs alias nothing, calls go straight to inductor's generated ``call`` (AOT
    autograd's runtime wrapper only regenerates aliases and handles autograd: neither applies);
    measured on tiny regions: ~3x less overhead per call than through the wrapper, ~10x less
    than torch.compile (benchmarks/dispatch_overhead.py --regions)."""
    from torch.fx.experimental.proxy_tensor import make_fx

    per_op = region_callable(region, torch_impls())
    with _thread_local_effects():
        gm = make_fx(per_op, tracing_mode="fake", decomposition_table=_decompositions())(*examples)
    compiled, direct = _compile_fx(gm, list(examples), len(region.outputs))
    # what the compile specialised on besides tensors' metadata (which inductor's generated
    # code asserts: a call with other sizes or strides raises AssertionError)
    numbers = [(i, x) for i, x in enumerate(examples) if not isinstance(x, torch.Tensor)]

    if direct is not None and not numbers:
        def run(*args):
            try:
                return direct(list(args))
            except AssertionError:  # sizes or strides other than the compile's
                return _other_layout(region, rk, per_op, args, run)
    else:
        def run(*args):
            if numbers and any(args[i] != v for i, v in numbers):
                return per_op(*args)
            try:
                return tuple(compiled(*args))
            except AssertionError:
                return _other_layout(region, rk, per_op, args, run)
    return run


def _other_layout(region, rk, per_op, args, current):
    """A call whose tensors have other sizes or strides than the compile's (inductor's code
    asserts them): the compile for these strides if there is one, else op by op, and a compile
    for them where tiered execution takes one (an upstream region's compiled code may lay out
    its outputs unlike the per-op run that gave this region's examples: without it, every later
    call ran op by op). Regions of one structure share compiles, so a layer finds the compile
    another layer asked for."""
    grad = torch.is_grad_enabled() and any(isinstance(x, torch.Tensor) and x.requires_grad for x in args)
    fn = _COMPILED.get((rk, _strides(args), grad))
    if fn is not None and fn is not current:
        return fn(*args)
    if region.recompile is not None:
        region.recompile(*args)
    return per_op(*args)


def _compile_symbolic(region, examples, symbolic, rk):
    """A region compiled once for every value of its symbolic numbers (not torch.compile: dynamo
    saves and restores the process's random streams around a compile, which on the compile
    thread rewinds the program's). Traced on fake tensors with a ShapeEnv, as dynamo's
    automatic dynamic does: an int is a SymInt input; a float goes in as a 0-d float64 tensor
    read back with ``.item()`` (inductor keeps no float symbols as kernel arguments), so it
    promotes as a Python number. Whatever the compile assumed about the ints (``b != 0``,
    ``48 % b == 0`` for a reshape, 0 and 1 specialised) is checked on every call; a call that
    breaks it, or has other tensor sizes or strides, runs op by op."""
    from torch._dynamo.source import ConstantSource
    from torch._subclasses.fake_tensor import FakeTensorMode
    from torch.fx.experimental.proxy_tensor import make_fx
    from torch.fx.experimental.symbolic_shapes import SYMPY_INTERP, DimDynamic, ShapeEnv

    per_op = region_callable(region, torch_impls())
    env = ShapeEnv()
    mode = FakeTensorMode(shape_env=env)
    floats = [i for i in symbolic if type(examples[i]) is float]
    ints = [i for i in symbolic if type(examples[i]) is int]
    fakes = list(examples)
    for i, x in enumerate(examples):
        if isinstance(x, torch.Tensor):
            fakes[i] = mode.from_tensor(x, static_shapes=True)
        elif i in floats:
            fakes[i] = mode.from_tensor(torch.tensor(x, dtype=torch.float64), static_shapes=True)
        elif i in ints:
            src = ConstantSource(f"n{i}")
            sym = env.create_unspecified_symbol(x, source=src, dynamic_dim=DimDynamic.DYNAMIC)
            fakes[i] = env.create_symintnode(sym, hint=x, source=src)

    def traced(*args):
        args = list(args)
        for i in floats:
            args[i] = args[i].item()
        return per_op(*args)

    with _thread_local_effects(), mode:
        gm = make_fx(traced, tracing_mode="real", decomposition_table=_decompositions())(*fakes)
    compiled, direct = _compile_fx(gm, fakes, len(region.outputs), mode)
    direct = direct or (lambda a: tuple(compiled(*a)))
    code = env.produce_guards_expression([fakes[i] for i in ints]) if ints else None
    holds = eval(f"lambda L: {code}", SYMPY_INTERP) if code else None  # noqa: S307 - sympy's printer's code
    names = [f"t{k}" for k in range(len(ints))]
    # the other numbers were baked in: a call with another value runs op by op
    baked = [(i, x) for i, x in enumerate(examples) if not isinstance(x, torch.Tensor) and i not in symbolic]

    def run(*args):
        if holds is not None and not holds(dict(zip(names, [args[i] for i in ints]))):
            return per_op(*args)
        if baked and any(args[i] != v for i, v in baked):
            return per_op(*args)
        a = list(args)
        for i in floats:
            a[i] = torch.tensor(a[i], dtype=torch.float64)
        try:
            return direct(a)
        except AssertionError:  # tensor sizes or strides other than the compile's
            return _other_layout(region, rk, per_op, args, run)
    return run


_COMPILING = threading.local()


@contextlib.contextmanager
def _thread_local_effects():
    """Compile without touching process-global state the program's other threads use. Tiered
    execution compiles on a background thread while the program runs; two things a compile
    does to the whole process are made no-ops in the compiling thread only (measured, each
    broke a test that ran Hugging Face models while a compile was in flight):

    - torch.fx replaces ``nn.Module.__call__`` and ``__getattr__`` (and ``torch.fx.wrap``'d
      functions) for the whole process while it traces (make_fx, and AOT autograd's tracing
      inside compile_fx): tc.jit tracing a model on the main thread recorded the patched
      ``Module.__call__``, and its next call missed the cache. The patches only make a
      symbolic tracer record module calls; make_fx's tracer runs them as they are, so its
      graph is the same without them.
    - inductor and AOT autograd save the default generator's state when a compile starts and
      set it back when it ends (``preserve_rng_state``): that rewound the main thread's random
      stream, so its dropout masks repeated. A region draws no random numbers (random ops are
      never claimed) and the graphs are traced on fake tensors, so there is nothing to restore.
    """
    _install_thread_aware_hooks()
    _COMPILING.active = True
    try:
        yield
    finally:
        _COMPILING.active = False


def _install_thread_aware_hooks():
    import torch._dynamo.utils as dynamo_utils
    import torch._functorch.aot_autograd as aot
    import torch.fx._symbolic_trace as st

    if getattr(st._new_patcher, "_thunder_core", False):
        return
    new_patcher, preserve = st._new_patcher, dynamo_utils.preserve_rng_state

    @contextlib.contextmanager
    def aware_patcher():
        if getattr(_COMPILING, "active", False):
            yield _inert_patcher()()
        else:
            with new_patcher() as patcher:
                yield patcher

    @contextlib.contextmanager
    def aware_preserve():
        if getattr(_COMPILING, "active", False):
            yield
        else:
            with preserve():
                yield

    aware_patcher._thunder_core = aware_preserve._thunder_core = True
    st._new_patcher = aware_patcher
    dynamo_utils.preserve_rng_state = aware_preserve
    if getattr(aot, "preserve_rng_state", None) is preserve:
        aot.preserve_rng_state = aware_preserve


@functools.cache
def _inert_patcher():
    """torch.fx's patcher class with patching left out."""
    import torch.fx._symbolic_trace as st

    class Inert(st._Patcher):
        def patch(self, *args, **kwargs):
            pass

        def patch_method(self, *args, **kwargs):
            pass
    return Inert


def _compile_fx(gm, examples, n_outputs, mode=None):
    """``(compiled, direct)``: inductor's compile of ``gm`` (AOT autograd's full wrapper) and,
    when it is the same call, the generated ``call(list of inputs)`` inside it (or None).
    AOT autograd's own cache is off for this compile: a hit there hands back the wrapper without
    compiling, so the generated call could not be found (inductor's graph cache underneath
    still saves the compile). ``mode``: the fake tensor mode (and its ShapeEnv) the examples'
    symbolic sizes belong to, made the compile's as dynamo does (a tracing context): without
    it, a region whose inputs are only SymInts (``arange(n)``) got a fresh mode that could not
    read its own output strides back (``int('s16')``)."""
    import torch._functorch.config as aot_config
    from torch._inductor.compile_fx import compile_fx, compile_fx_inner

    graphs = []

    def inner(g, inputs, **kw):
        out = compile_fx_inner(g, inputs, **kw)
        graphs.append((g, kw.get("is_inference", False), out))
        return out

    context = contextlib.nullcontext() if mode is None else torch._guards.tracing(torch._guards.TracingContext(mode))
    with _thread_local_effects(), aot_config.patch(enable_autograd_cache=False), context:
        compiled = compile_fx(gm, examples, inner_compile=inner)
    return compiled, _direct_call(graphs, len(examples), n_outputs)


def _direct_call(graphs, n_inputs, n_outputs):
    """Inductor's generated ``call(list of inputs) -> tuple`` when calling it directly is what
    the full wrapper would do: one inference graph taking exactly the region's inputs and
    returning exactly its outputs, none of them an input itself. An output that views an input
    is made a true view of the caller's tensor again, as AOT autograd's wrapper does (``_base``,
    a shared version counter: inductor returns a bare alias of the memory); outputs that view
    each other, or a tensor made inside the region, are views of one buffer either way."""
    if len(graphs) != 1 or not graphs[0][1]:
        return None
    g, _, out = graphs[0]
    nodes = list(g.graph.nodes)
    outs = nodes[-1].args[0] if nodes and nodes[-1].op == "output" else None
    places = [n for n in nodes if n.op == "placeholder"]
    if outs is None or len(places) != n_inputs or len(outs) != n_outputs:
        return None
    fix = []  # (output index, input index, whether the output is that input itself)
    for k, o in enumerate(outs):
        if getattr(o, "op", None) == "placeholder":
            fix.append((k, places.index(o), True))
            continue
        if getattr(o, "op", None) != "call_function" or (_schema(o) is None and o.target is not operator.getitem):
            return None
        base = _viewed_input(o)
        if base is not None:
            val, bval = o.meta.get("val"), base.meta.get("val")
            if not isinstance(val, torch.Tensor) or not isinstance(bval, torch.Tensor) or val.dtype != bval.dtype:
                return None
            fix.append((k, places.index(base), False))
    call = getattr(out, "current_callable", None)
    if call is None or not fix:
        return call

    def direct(args):
        inputs = tuple(args)  # (the generated call empties the list)
        r = list(call(args))
        for k, i, itself in fix:
            o = r[k]
            r[k] = inputs[i] if itself else inputs[i].as_strided(o.size(), o.stride(), o.storage_offset())
        return tuple(r)
    return direct


def _schema(node):
    return getattr(node.target, "_schema", None) if node.op == "call_function" else None


def _viewed_input(node):
    """The input (placeholder) that ``node`` is a view of, through any chain of views (an item
    of a multi-output view such as ``split`` included), or None."""
    while True:
        if node.op == "call_function" and node.target is operator.getitem:
            node = node.args[0]  # an item of a multi-output op: a view if the op's outputs are
            schema = _schema(node)
            if schema is None or not any(r.alias_info for r in schema.returns):
                return None
            node = node.args[0]
            continue
        schema = _schema(node)
        if schema is None or not any(r.alias_info for r in schema.returns):
            return node if node.op == "placeholder" else None
        node = node.args[0]


def unavailable():
    """Why inductor cannot run here, or None. Asked when a jitted function is made: whether
    ``torch._inductor`` is installed, without importing it (importing it imports torch._dynamo,
    ~1 s, which the first compile's background thread does instead of the first call)."""
    import importlib.util

    try:
        found = importlib.util.find_spec("torch._inductor") is not None
    except Exception as e:  # noqa: BLE001
        return f"torch._inductor cannot be found: {e}"
    return None if found else "torch._inductor is not installed with this torch"
