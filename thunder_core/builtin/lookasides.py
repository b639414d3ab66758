"""The core's own lookasides for tracing, registered through the lookaside hook like any
plugin's: ``nn.Module.__call__`` straight to ``forward`` (when the module has no hooks),
``type(proxy)`` (the tensor's type), torch's ``__torch_function__`` checks, nested ``tc.jit``,
``torch.compiler.is_compiling()`` (True while tracing), ``torch.is_grad_enabled()`` (a read the
prologue checks), version counters of traced tensors
(not modelled: ``_unsafe_set_version_counter`` on them is a no-op), ``torch.autograd.Function.apply``
(a user's custom gradient: forward and backward traced, builtin/autograd_function.py; one opaque
op, run by PyTorch with its own backward, when the backward cannot be traced), activation
checkpointing (traced inline) and the control-flow operators (builtin/higher_order.py)."""

from __future__ import annotations

import torch

from .. import hookspecs


def _module_call(I, args, kwargs):
    from ..capture import NO_HOOKS
    from torch.nn.modules import module as mod

    m = args[0]
    has_hooks = (m._backward_hooks or m._backward_pre_hooks or m._forward_hooks or m._forward_pre_hooks
                 or mod._global_backward_pre_hooks or mod._global_backward_hooks
                 or mod._global_forward_hooks or mod._global_forward_pre_hooks)
    if (m._backward_hooks or m._backward_pre_hooks or mod._global_backward_pre_hooks or mod._global_backward_hooks) \
            and _grad_mode(I, (), {}):
        # torch's backward hooks attach to the autograd nodes of the module's inputs and
        # outputs (grad_fn), which traced tensors do not have, and the compiled backward would
        # not call them (under no_grad torch sets none up: traced as usual, keyed on grad mode)
        from ..ir import TracingError

        raise TracingError(
            f"{type(m).__name__} has a backward hook (register_full_backward_hook, register_full_backward_pre_hook "
            f"or register_backward_hook, on it or globally), which a jitted function cannot call with grad enabled: "
            f"its backward runs as one compiled trace. Hook the tensors instead (Tensor.register_hook on the jitted "
            f"function's inputs or outputs, or on parameters: both supported), or remove the hook while it is jitted.")
    prov = I.provenance(m)
    if has_hooks or prov is None:
        return I.call_function(torch.nn.Module._call_impl, args, kwargs)
    I.recorder.guard(prov, NO_HOOKS, None)
    return I.call(m.forward, args[1:], kwargs)


def _grad_mode(I, args, kwargs):
    # torch.is_grad_enabled(): the program's answer depends on grad mode, so the prologue
    # checks it (capture.py leaves that check out of traces that neither read it nor hold a
    # tensor requiring grad; torch's no_grad/enable_grad read it through here too)
    rec = getattr(I, "recorder", None)
    if rec is not None:
        rec.grad_mode_matters = True
    return torch.is_grad_enabled(*args, **kwargs)


def _type(I, args, kwargs):
    # type(x) of a traced tensor is the tensor's type (torch.Tensor, nn.Parameter), as in eager;
    # isinstance and x.__class__ need nothing: the proxy reports that class itself.
    from ..ir import NumberProxy, TensorProxy
    from ..ir.size import Size

    if len(args) == 1 and not kwargs and isinstance(args[0], (TensorProxy, NumberProxy, Size)):
        return args[0].__class__  # a symbolic number's Python type; torch.Size for a traced shape
    return type(*args, **kwargs)


def _as_text(fn):
    """``str(v)``, ``repr(v)``, ``format(v, spec)``, ``ascii(v)``: of ``v`` with its symbolic
    numbers replaced by their (guarded) values, as f-strings do (``Interpreter.for_text``)."""

    def lookaside(I, args, kwargs):
        if args:
            args = (I.for_text(args[0]), *args[1:])
        return I.call_native(fn, args, kwargs)  # (as without the lookaside: str(uuid4()) is drawn)

    return lookaside


def _no_torch_function(I, args, kwargs):
    return False  # proxies override nothing


_APPLIES: dict = {}  # Function subclass -> the callable its opaque symbol stands for


def _function_apply(I, args, kwargs):
    # Forward and backward traced (builtin/autograd_function.py); when the backward cannot be
    # traced, one opaque op (interpreting apply would silently drop the custom backward).
    from .autograd_function import Untraceable, trace_function

    args, kwargs = I.recorder.resolve(I, args, kwargs)
    cls, *rest = args
    name = cls.__qualname__
    if not kwargs:
        setup = cls.setup_context if _overrides(cls, "setup_context") else None
        try:
            return trace_function(I, name, cls.forward, cls.backward, tuple(rest), setup_context=setup,
                                  once_differentiable=_once_differentiable(cls.backward))
        except Untraceable as why:
            reason = str(why)
    else:
        reason = "it was called with keyword arguments"
    src = I.frames[-1].info.code.co_filename if I.frames else "?"
    line = I._current_inst().site[1] if I.frames else 0
    I.recorder.cap.notes.append(f"{src}:{line}: {name}.apply runs as one opaque op with PyTorch's autograd (its own "
                                f"backward, not traced) because {reason}")
    return _opaque_apply(cls, rest, kwargs)


def _overrides(cls, method) -> bool:
    return getattr(cls, method) is not getattr(torch.autograd.Function, method)


def _once_differentiable(fn) -> bool:
    """Is ``fn`` wrapped by torch.autograd.function.once_differentiable?"""
    code = getattr(fn, "__code__", None)
    return getattr(fn, "__wrapped__", None) is not None and code is not None and \
        code.co_filename == torch.autograd.function.__file__


def _opaque_apply(cls, rest, kwargs):
    from ..ops.opaque import opaque_entry

    fn = _APPLIES.get(cls)
    if fn is None:
        def fn(*a, **k):
            return cls.apply(*a, **k)
        fn.__name__ = fn.__qualname__ = f"{cls.__name__}_apply"
        fn.__module__ = cls.__module__
        _APPLIES[cls] = fn
    return opaque_entry(fn)(*rest, **kwargs)


_CHECKPOINT_OPTIONS = ("use_reentrant", "context_fn", "determinism_check", "debug", "preserve_rng_state")


def _checkpoint(I, args, kwargs):
    # Traced inline: the same values and gradients; what to keep for the backward and what to
    # recompute is the min-cut's choice for the whole trace (transforms/remat.py).
    fn, *rest = args
    return I.call(fn, tuple(rest), {k: v for k, v in kwargs.items() if k not in _CHECKPOINT_OPTIONS})


def _manual_seed(I, args, kwargs):
    from ..ops import TORCH_CALLS

    # torch.random.manual_seed: torch.manual_seed is re-wrapped once torch._dynamo is imported
    TORCH_CALLS[torch.random.manual_seed](*args, **kwargs)  # recorded: it reseeds on every call
    return torch.default_generator  # what eager returns


def _compiling(I, args, kwargs):
    # Library code asking "am I being compiled?" takes its trace-friendly path (no branches
    # on tensor values, no host syncs), as it does under torch.compile.
    return True


def _cuda_available(I, args, kwargs):
    # A fact of the process, not a value that changes between calls: evaluated, not traced
    # into (a CUDA build of torch reads the environment there, which the opaque-call checker
    # would refuse: torch 2.10's torch.testing freeze_rng_state, or `"cuda" if
    # torch.cuda.is_available() else "cpu"` in a model).
    return torch.cuda.is_available(*args, **kwargs)


def _set_version_counter(I, args, kwargs):
    # torch.autograd._unsafe_preserve_version_counter (DDP's buffer broadcast) hides an in-place
    # write from autograd by restoring version counters. Traced tensors have no counters (a
    # trace does not model them; the compiled function's writes bump the real ones): on them
    # it is a no-op, not an effect refused as unknown. On real tensors it runs.
    from ..ir import Proxy, flat_proxies

    if any(isinstance(p, Proxy) for p in flat_proxies((args, kwargs))):
        return None
    return torch._C._autograd._unsafe_set_version_counter(*args, **kwargs)


def _make_subclass(I, args, kwargs):
    # nn.Parameter(t) (and other subclasses made the same way) of a tensor computed while
    # tracing: torch's C code needs a real tensor's storage (a traced one crashed the process)
    from ..ir import Proxy, TracingError, flat_proxies

    if any(isinstance(p, Proxy) for p in flat_proxies((args, kwargs))):
        cls = getattr(args[0], "__name__", "a tensor subclass") if args else "a tensor subclass"
        raise TracingError(f"{cls}(...) of a tensor computed inside the jitted function (a new parameter, or a "
                           f"module built inside it) is not supported: create the module or parameter outside the "
                           f"jitted function and use it there.")
    return torch.Tensor._make_subclass(*args, **kwargs)


def _nested_jit(I, args, kwargs):
    # Traced inline, under the outer jit's options; what the inner one ran is remembered so its
    # own sharp-edge levels apply there too where they are stricter (api.JittedFunction._trace).
    from ..guards.record import Nested
    from ..ir import current_trace

    jf, args = args[0], args[1:]
    if jf._bound is not None:  # a jitted bound method: its object is read through the jitted function
        from ..frontend.ops.names import read_attr

        args = (read_attr(I, None, jf, "_bound"), *args)
    trace = current_trace()
    recorded = trace._scopes[-1] if trace._scopes else trace.bound_symbols
    start, first = len(I.events), len(recorded)
    outer_records = I.record_opaque_calls
    I.record_opaque_calls = outer_records or jf._record_opaque
    try:
        return I.call(jf._target, args, kwargs)
    finally:
        I.record_opaque_calls = outer_records
        I.recorder.cap.nested.append(Nested(jf, (start, len(I.events)), recorded[first:]))


def _jit(I, args, kwargs):
    from ..api import jit

    return jit(*args, **kwargs)  # made as it is (calling it traces it inline: _nested_jit)


@hookspecs.hookimpl
def thunder_core_lookasides():
    from ..api import JittedFunction, jit

    table = {torch.nn.Module._wrapped_call_impl: _module_call, type: _type,
             JittedFunction.__call__: _nested_jit, torch.autograd.Function.apply.__func__: _function_apply}
    import torch.utils.checkpoint as ckpt

    table[ckpt.checkpoint] = _checkpoint
    table.update({fn: _as_text(fn) for fn in (str, repr, format, ascii)})
    table[jit] = _jit
    from .higher_order import lookasides as control_flow

    table.update(control_flow())  # torch.cond, torch.while_loop, scan
    from .autograd_function import custom_op_lookasides

    table.update(custom_op_lookasides())  # torch.library ops
    table[torch.random.manual_seed] = _manual_seed
    table[torch.is_grad_enabled] = _grad_mode
    table[torch.cuda.is_available] = _cuda_available
    table[torch._C._autograd._unsafe_set_version_counter] = _set_version_counter
    table[torch.Tensor._make_subclass] = _make_subclass
    import sys

    # those imported (importing torch._dynamo takes ~1 s; code calling its is_compiling has
    # imported it, and the table is asked for again after imports: hookspecs.thunder_core_lookasides)
    for mod in ("torch.compiler", "torch._dynamo", "torch._dynamo.external_utils", "torch._utils"):
        fn = getattr(sys.modules.get(mod), "is_compiling", None)
        if fn is not None:
            table[fn] = _compiling
    for name in ("_has_torch_function", "_has_torch_function_unary", "_has_torch_function_variadic"):
        table[getattr(torch._C, name)] = _no_torch_function
    return table
