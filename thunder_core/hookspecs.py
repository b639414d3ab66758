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
# the core (the docstrings name the types, e.g. thunder_core.execution.executor.Executor).

API_VERSION = 1
hookspec = pluggy.HookspecMarker("thunder_core")
hookimpl = pluggy.HookimplMarker("thunder_core")

# --------------------------------------------------------------------------- executors


@hookspec
def thunder_core_executors() -> list:
    """Return the executors this plugin provides.

    :return: a list of :class:`thunder_core.execution.executor.Executor`. Every plugin's
        list is collected (not ``firstresult``); two executors with one name are an error
        naming both distributions.

    An executor that cannot run here (no CUDA device, library missing) is still returned,
    with ``unavailable`` giving the reason: ``python -m thunder_core doctor`` shows it and
    ``executors=None`` leaves it out.

    **Example**::

        from thunder_core import hookimpl
        from thunder_core.execution.executor import Executor

        @hookimpl
        def thunder_core_executors():
            return [Executor("myexec", implementations=lambda: {"prims.add": my_add},
                             version="1.0", api_version=1)]
    """


# --------------------------------------------------------------------------- tracing


@hookspec
def thunder_core_lookasides() -> dict:
    """Return lookasides: ``{callable: replacement}``.

    :return: a dict. Before the interpreter calls ``callable`` while tracing it calls
        ``replacement(interpreter, args: tuple, kwargs: dict)`` instead and uses its result.
        Every plugin's dict is merged; two plugins replacing one callable is an error naming
        both. Torch callables that have symbols are looked aside by the core itself.

    A replacement may re-enter the interpreter (``interpreter.call(fn, args, kwargs)``
    interprets ``fn``), record symbols (call them: they record into the trace being built),
    or compute a value natively. ``interpreter.provenance(obj)`` says where an outside
    object came from; ``interpreter.recorder.guard(prov, kind, value)`` adds a guard.

    **Example** (trace a checkpointed function inline)::

        import torch.utils.checkpoint as cp

        @hookimpl
        def thunder_core_lookasides():
            return {cp.checkpoint: lambda I, args, kwargs: I.call(args[0], args[1:],
                                                                 {k: v for k, v in kwargs.items()
                                                                  if k != "use_reentrant"})}
    """


@hookspec
def thunder_core_symbols() -> None:
    """Define the plugin's symbols (called once, when ``thunder_core.ops`` loads).

    Use the op language's registries: ``thunder_core.ops.registry.torch_op`` for a
    torch-level op (its signature function mirrors the torch callable's, its body is the
    decomposition) and ``thunder_core.ops.registry.prim`` for a primitive (its meta
    function). Returns nothing.

    **Example**::

        from thunder_core.ops.registry import torch_op

        @hookimpl
        def thunder_core_symbols():
            @torch_op(mylib.fused_gelu, inputs=("x",))
            def fused_gelu(x, *, approximate="none"):
                return torch.nn.functional.gelu(x, approximate=approximate)  # decomposition
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
    argument, computed with symbols (``thunder_core.ops.registry.T``/``F`` or prims) so the
    backward is a trace executors can claim. Whatever forward values the rule reads are
    saved by the forward (or recomputed). A symbol without a rule is differentiated through
    its decomposition, or else by PyTorch's autograd on that op alone.
    See ``thunder_core/transforms/vjp.py``.

    **Example**::

        @hookimpl
        def thunder_core_vjp_rules():
            def fused_gelu_vjp(b, g):
                (x,) = b.args
                cdf = 0.5 * (1 + T.erf(x * 0.7071067811865476))
                pdf = T.exp(-0.5 * x * x) * 0.3989422804014327
                return (g * (cdf + x * pdf),)
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

    **Example**::

        @hookimpl
        def thunder_core_transforms():
            def drop_nothing(trace):
                return trace.derive()
            return {"identity": drop_nothing}
    """


# --------------------------------------------------------------------------- sharp edges


@hookspec
def thunder_core_sharp_edge_checkers() -> list:
    """Return sharp-edge checkers (:class:`thunder_core.sharp_edges.SharpEdgeChecker`).

    :return: a list; every plugin's list is collected. Checker names must be unique.

    A checker's ``check(capture)`` runs once per compile over the capture (``capture.events``
    is the interpreter's event log: reads of outside data, writes, opaque calls;
    ``capture.trace`` the computation trace) and yields ``SharpEdge(checker, message)``. The
    user's level for the checker decides: "allow" ignores, "warn" emits
    ``tc.SharpEdgeWarning``, "error" raises ``tc.SharpEdgeError``. Messages name the user's
    file:line, what was found and how to fix or silence it.

    **Example**::

        @hookimpl
        def thunder_core_sharp_edge_checkers():
            def check(cap):
                for e in cap.events:
                    if e.kind == "read-global" and e.key.isupper():
                        yield SharpEdge("constants", f"{e.where}: reads constant {e.key}")
            return [SharpEdgeChecker("constants", "warn", check)]
    """
