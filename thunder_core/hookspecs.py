"""The plugin author's manual: every hook thunder_core calls, grouped by phase.

A plugin is a module listed under the ``thunder_core`` entry-point group of its
distribution::

    [project.entry-points.thunder_core]
    myexec = "my_package.plugin"

holding functions marked ``@thunder_core.hookimpl`` whose names are the hooks below. The
core's own behaviour registers through the same hooks. ``API_VERSION`` is the major version
of this contract; a plugin declares the version it was written for (``Executor.api_version``
for executors, a module attribute ``THUNDER_CORE_API`` otherwise) and a mismatch disables it
with a warning.

Hooks are called through pluggy (``pm.hook.<name>()``), and their results are kept on the
plugin registry (``thunder_core.plugins.registry()``) until the set of plugins changes:
``plugins.register(plugin, name)`` adds a plugin object at runtime, ``plugins.unregister(name)``
removes one, ``plugins.reload()`` reads the entry points again. Pluggy calls the latest
registered plugin first (entry points: the core's own, then by entry-point name; runtime
plugins before them); ``@hookimpl(tryfirst=True)`` / ``@hookimpl(trylast=True)`` move a
hookimpl ahead of or behind the others (the executors' order is ``executors=None``'s
preference on ties), and ``@hookimpl(wrapper=True)`` wraps the call and sees every plugin's
results. A plugin whose hook raises is disabled with a warning, every hook of it.
"""

from __future__ import annotations

import pluggy

# This module is the plugin contract at the bottom of the core's layering: it imports none of
# the core (the docstrings name the types as plugin authors import them: thunder_core.extend.Executor).

API_VERSION = 1
hookspec = pluggy.HookspecMarker("thunder_core")
hookimpl = pluggy.HookimplMarker("thunder_core")

# --------------------------------------------------------------------------- executors


@hookspec
def thunder_core_executors() -> list:
    """Return the executors this plugin provides.

    :return: a list of :class:`thunder_core.extend.Executor`. Every plugin's list is
        collected (not ``firstresult``); two executors with one name are an error naming
        both distributions.

    An executor is data, not a subclass: a name, and functions the partitioner calls when it
    covers a trace (the forward and the backward alike) at the least estimated cost:

    * ``implementations``: ``() -> {symbol id: callable}``; each entry runs one symbol and is
      also a claim on that symbol alone, priced by the :class:`~thunder_core.extend.CostModel`
      plus the executor's ``dispatch_us`` on the target device (a number, or per profile
      name / device type / ``"default"``).
    * ``check`` (every symbol) and ``checkers`` (``() -> {symbol id: checker}``): a checker
      ``(bound_symbol) -> None | reason`` declines what the executor cannot run; declined
      claims and their reasons show in ``tc.explain``.
    * ``claim``: a :class:`~thunder_core.extend.ClaimFn`, ``claim(bsyms, ctx)``, yielding
      :class:`~thunder_core.extend.Claim` objects for contiguous ranges of ``bsyms``, priced
      with ``ctx.region_us(ctx.region(start, end))``. A claim that wins is lowered:
      ``lower(region)`` gets the :class:`~thunder_core.extend.Region` (its bound symbols,
      inputs and outputs) and returns ``fn(*region.inputs) -> tuple(region.outputs)``;
      ``region_callable(region, impls)`` builds a plain one, ``region_key(region)`` keys a
      compile cache so regions of one structure compile once.
    * ``fuses=True``: its regions keep intermediates out of memory, so autograd may recompute
      cheap elementwise forward values in the backward instead of saving them.
    * ``fallback=True``: it implements every symbol op by op (the ``torch`` executor);
      ``tc.jit(executors=None)`` and ``tc.plan`` order fallbacks last. Otherwise ties go to
      the executor named earlier in ``executors=[...]``.
    * ``compiles=True``: ``lower`` compiles (seconds). ``tc.jit`` calls it on a background
      thread with ``region.example_inputs`` (the first call's tensors' metadata, zero-filled)
      while the region runs op by op with the fallback executor, and swaps the result in
      when it returns (tiered execution; ``tc.jit(..., wait_for_compile=True)`` waits).
    * ``differentiable=True``: each implementation is a PyTorch op that PyTorch's autograd
      records (the ``torch`` executor). A small trace needing gradients may run op by op under
      PyTorch's autograd instead of split into forward and backward traces, when estimated
      cheaper; only differentiable executors run it then. Leave it False for kernels called
      directly (a Triton kernel, a cuDNN graph) or regions compiled on their own.
    * ``artifacts``: ``(region, profile) -> iterable of`` :class:`~thunder_core.extend.Artifact`
      produced ahead of time for ``tc.plan`` (PTX, cubin, source...), for the targets whose
      device type is in ``device_types``.

    An executor that cannot run here (no CUDA device, library missing) is still returned,
    with ``unavailable`` giving the reason: ``python -m thunder_core doctor`` shows it and
    ``executors=None`` leaves it out. The walk-through, a complete fusing executor:
    ``docs/writing-an-executor.md``.

    **Higher-order symbols** (``higher_order.cond``, ``higher_order.while_loop``,
    ``higher_order.scan``, ``higher_order.autograd_function``...; tag ``"higher-order"``, no op
    trait) hold functions as sub-traces: closed :class:`~thunder_core.extend.Trace` values
    among their keyword arguments (``thunder_core.extend.subtraces(bsym)``). The partitioner
    covers every sub-trace on its own first, with the same executors, so ``claim`` is called on
    the bound symbols of a branch or a loop body like on any list, and fuses inside it. The
    higher-order symbol itself is run by an executor implementing it (the torch executor, with
    ``higher_order_impls()``: Python control flow calling the sub-traces, which arrive as
    compiled functions in its keyword arguments). A fusing executor needs nothing: without a
    trait it is never part of a region; to make it, an executor lists it in ``implementations``.
    See docs/higher-order-ops.md.

    **Example** (``ltorch.add`` on float32 tensors, and runs of elementwise torch-level
    symbols as regions)::

        import torch
        from thunder_core.extend import (API_VERSION, Executor, has_trait, hookimpl, region_callable,
                                         region_key, torch_impls)

        COMPILED = {}  # region_key -> callable: regions of one structure are built once

        def lower(region):
            key = region_key(region)
            if key not in COMPILED:  # a real executor compiles its own code here
                COMPILED[key] = region_callable(region, torch_impls())
            return COMPILED[key]

        def claim(bsyms, ctx):
            i = 0
            while i < len(bsyms):
                j = i
                while (j < len(bsyms) and has_trait(bsyms[j], "elementwise") and bsyms[j].sym.id in torch_impls()
                       and ctx.check(bsyms[j]) is None):
                    j += 1
                if j - i >= 2:
                    yield ctx.claim(i, j, ctx.region_us(ctx.region(i, j)), lower, f"{j - i} fused symbols")
                i = max(j, i + 1)

        def float32_only(bsym):
            dtype = bsym.output.dtype
            return None if dtype == torch.float32 else f"{dtype} is not supported"

        @hookimpl
        def thunder_core_executors():
            return [Executor("myexec", implementations=lambda: {"ltorch.add": torch_impls()["ltorch.add"]},
                             check=float32_only, claim=claim, fuses=True, dispatch_us={"cpu": 1.0, "cuda": 5.0},
                             version="1.0", api_version=API_VERSION)]
    """


# --------------------------------------------------------------------------- tracing


@hookspec
def thunder_core_lookasides() -> dict:
    """Return lookasides: ``{callable: replacement}``.

    :return: a dict. Before the interpreter calls ``callable`` while tracing it calls
        ``replacement(interpreter, args: tuple, kwargs: dict)`` instead and uses its result.
        Every plugin's dict is merged; two plugins replacing one callable is an error naming
        both. Torch callables that have symbols are looked aside by the core itself, and so
        are ``nn.Module.__call__``, ``torch.utils.checkpoint.checkpoint`` and a few others
        (``thunder_core/builtin/lookasides.py``). Called when a trace is first made, and again
        before the next trace once the program has imported more modules: a plugin may leave
        out the callables of a library the program has not imported (``sys.modules``), so
        that loading the plugin does not import it (thunder-distributed does so for FSDP2).

    A replacement may re-enter the interpreter (``interpreter.call(fn, args, kwargs)``
    interprets ``fn``), record symbols (call them: they record into the trace being built),
    or compute a value natively. ``interpreter.provenance(obj)`` says where an outside
    object came from; ``interpreter.recorder.guard(prov, kind, value)`` adds a guard. What
    happens natively in a replacement happens once, while tracing; for what must happen on
    every call, ``thunder_core.extend`` has ``record_effect(interpreter, fn, *args)`` (a call
    made by the compiled function after its computation, a library's bookkeeping),
    ``read_state(interpreter, fn, *args)`` (a fact of the process the prologue checks, such
    as a rank) and ``substitute(interpreter, tensor, proxy)`` (reads of an outside tensor give
    a value of the trace). The thunder-distributed plugin (``plugins/distributed``) uses all
    three.
    ``interpreter.draw(fn, args, kwargs, name)`` makes a call whose result is new on every
    call (a library's own random source, a hardware counter) an input that the prologue draws
    again on every call, in program order (a number stays symbolic; ``frozen=True``: a value
    that cannot be an input, which the ``opaque-call`` checker reports). A replacement with
    the attribute ``through_methods = True``, keyed by a C method's descriptor
    (``_random.Random.random``), also replaces that method bound to any object (``rng.random()``),
    which it receives as the first argument; keyed by a classmethod's descriptor
    (``datetime.datetime.__dict__["now"]``), it replaces the method bound to its class or a
    subclass (``datetime.now()``), receiving the class first.

    **Example** (a library's timing helper, ``mylib.timed(fn, *args, **kwargs)``, traced as
    the call of ``fn`` it wraps: a clock read while tracing would be frozen into the trace)::

        import mylib
        from thunder_core.extend import hookimpl

        def call_inline(interpreter, args, kwargs):
            fn, *rest = args
            return interpreter.call(fn, tuple(rest), kwargs)

        @hookimpl
        def thunder_core_lookasides():
            return {mylib.timed: call_inline}
    """


@hookspec
def thunder_core_symbols() -> None:
    """Define the plugin's symbols (called once, when ``thunder_core.ops`` loads).

    Use the op language's decorators from ``thunder_core.extend``: ``torch_op`` for a
    torch-level op (its signature function mirrors the torch callable's; its body, written
    with torch-level symbols through ``T``/``F`` and proxy operators, is the decomposition)
    and ``prim`` for a primitive (its meta function). Give the op its traits (``tags=``, e.g.
    ``("elementwise",)``) so executors and passes treat it like a built-in one. Once defined,
    the callable is traced as the symbol ``"ltorch.<name>"``, the ``torch`` executor runs it
    by calling the callable, and other executors may claim it or its decomposition. Returns
    nothing.

    **Example** (``mylib.fused_gelu(x)`` becomes the symbol ``ltorch.fused_gelu``)::

        import mylib
        from thunder_core.extend import F, hookimpl, torch_op

        @hookimpl
        def thunder_core_symbols():
            @torch_op(mylib.fused_gelu, inputs=("x",))
            def fused_gelu(x):
                return F.gelu(x)  # the decomposition
    """


# --------------------------------------------------------------------------- VJP rules


@hookspec
def thunder_core_vjp_rules() -> dict:
    """Return VJP rules for symbols: ``{symbol id: rule}``.

    :return: a dict; every plugin's dict is collected, and a symbol id given twice is an
        error naming both packages. A built-in rule for the same id wins over a plugin's.
        Called once, the first time a trace needs gradients.

    ``rule(bound_symbol, *cotangents)`` gets the forward bound symbol (its ``args``,
    ``kwargs`` and ``output`` are the forward proxies) and one cotangent per flat output (None
    for outputs that do not require grad), and returns one gradient (or None) per positional
    argument, computed with symbols (``thunder_core.extend.T``/``F``, proxy operators, or
    prims) so the backward is a trace executors can claim. Whatever forward values the rule
    reads are saved by the forward (or recomputed). A symbol without a rule is
    differentiated through its decomposition, or else by PyTorch's autograd on that op alone.
    See ``thunder_core/transforms/vjp.py``.

    **Example** (the exact gradient of ``ltorch.fused_gelu``, the symbol defined in the
    ``thunder_core_symbols`` example)::

        from thunder_core.extend import T, hookimpl

        def fused_gelu_vjp(b, g):
            (x,) = b.args
            cdf = 0.5 * (1 + T.erf(x * 0.7071067811865476))
            pdf = T.exp(-0.5 * x * x) * 0.3989422804014327
            return (g * (cdf + x * pdf),)

        @hookimpl
        def thunder_core_vjp_rules():
            return {"ltorch.fused_gelu": fused_gelu_vjp}
    """


# --------------------------------------------------------------------------- transforms


@hookspec
def thunder_core_transforms() -> dict:
    """Return named trace transforms: ``{name: transform}``.

    :return: a dict; names must be unique across plugins. A transform is
        ``transform(trace) -> trace`` over the computation trace (before executors take it).
        Users apply it with ``tc.jit(fn, transforms=["name"])`` (or pass the callable
        itself); transforms run in the order given and the verifier checks each result in
        tests. The returned trace must compute the same outputs from the same inputs.
        Derive it from the given one (``trace.derive(bound_symbols=...)``) rather than
        editing that one in place.

    A trace may hold higher-order bound symbols, whose sub-traces (closed traces among their
    keyword arguments, ``thunder_core.extend.subtraces(bsym)``) are functions the symbol runs.
    A transform either handles them (transforms each sub-trace as a trace of its own and
    records ``bsym.replace(kwargs={**bsym.kwargs, name: new_subtrace})``), leaves them alone
    when its rewrite does not concern what they compute, or raises naming the symbol it cannot
    handle (never drop or rewrite one silently). The core's own passes: autograd
    differentiates them by their VJP rules (a cond of the branches' VJPs...), dead-code
    elimination keeps or drops one whole, the partitioner partitions each sub-trace.

    **Example** (a transform that changes nothing, under a name)::

        from thunder_core.extend import hookimpl

        def identity(trace):
            return trace.derive()

        @hookimpl
        def thunder_core_transforms():
            return {"identity": identity}
    """


# --------------------------------------------------------------------------- sharp edges


@hookspec
def thunder_core_sharp_edge_checkers() -> list:
    """Return sharp-edge checkers (:class:`thunder_core.extend.SharpEdgeChecker`).

    :return: a list; every plugin's list is collected. Checker names must be unique.

    A checker's ``check(capture)`` runs once per compile over the capture (``capture.events``
    is the interpreter's event log: reads of outside data, writes, opaque calls; each event
    has a ``kind`` such as ``"read-global"``, a ``key``, the ``value`` and ``where``, the
    user's file:line; ``capture.trace`` is the computation trace) and yields
    ``SharpEdge(checker, message)``. The user's level for the checker decides: "allow"
    ignores, "warn" emits ``tc.SharpEdgeWarning``, "error" raises ``tc.SharpEdgeError``.
    Messages name the user's file:line, what was found and how to fix or silence it.

    **Example** (report reads of globals named in capitals: the compiled function checks
    their values on every call and compiles again when one changes)::

        from thunder_core.extend import SharpEdge, SharpEdgeChecker, hookimpl

        def reads_constants(capture):
            for e in capture.events:
                if e.kind == "read-global" and e.key.isupper():
                    yield SharpEdge("constants", f"{e.where}: reads the constant {e.key}")

        @hookimpl
        def thunder_core_sharp_edge_checkers():
            return [SharpEdgeChecker("constants", "warn", reads_constants)]
    """
