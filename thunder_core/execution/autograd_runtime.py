"""Run a forward/backward pair of compiled traces as one ``torch.autograd.Function``.

``AutogradRunner(...)(*inputs)`` returns what the computation trace returns; its tensors that
require grad hang off one autograd node whose backward runs the compiled backward trace. So
``.backward()``, ``torch.autograd.grad``, accumulation into ``.grad``, ``retain_graph``,
``grad_outputs`` for non-scalar outputs and outputs that do not require grad behave as in
eager: PyTorch's engine drives them, we only supply the node.

Saved values: those that are outputs of the node go through ``ctx.save_for_backward`` (which
avoids a reference cycle through the output's ``grad_fn``); the others (activations) are kept
on the node with their version counters. A backward that does not keep the graph (no
``retain_graph``) takes them off the node and hands them to the compiled backward in one list
it empties (``python_callable(boxed=True)``), which drops each after its last use: activations
are freed as the backward goes, as in eager, instead of when it ends. A second backward then
fails as in eager, and a saved tensor modified in place before the backward is an error, as
in eager. Active ``saved_tensors_hooks`` pack and unpack the kept activations, as they would
eager's saved tensors.

Double backward (``create_graph=True``): the backward trace's ops are not recorded, so the
node re-runs the forward of the original trace under PyTorch's autograd from the saved
inputs and differentiates that with ``create_graph=True``: correct to any order, at the
price of a second forward.
"""

from __future__ import annotations

import torch

__all__ = ["AutogradRunner", "tensor_leaves", "with_tensors"]


def tensor_leaves(x, out=None) -> list:
    """The tensors in ``x`` (through tuples, named tuples, lists and dict values), in order."""
    out = [] if out is None else out
    if isinstance(x, torch.Tensor):
        out.append(x)
    elif isinstance(x, (tuple, list)):
        for y in x:
            tensor_leaves(y, out)
    elif isinstance(x, dict):
        for y in x.values():
            tensor_leaves(y, out)
    return out


def with_tensors(x, it):
    """``x`` with its tensors (in tensor_leaves order) replaced by the next ones of ``it``."""
    if isinstance(x, torch.Tensor):
        return next(it)
    if isinstance(x, (tuple, list)):
        items = [with_tensors(y, it) for y in x]
        if type(x) in (tuple, list):
            return type(x)(items)
        # named tuples take fields, torch.return_types (structseq) a sequence
        return type(x)(*items) if hasattr(type(x), "_fields") else type(x)(items)
    if isinstance(x, dict):
        return {k: with_tensors(v, it) for k, v in x.items()}
    return x


def _keep_graph() -> bool:
    """Does the running backward keep the graph (retain_graph)? True when it cannot be asked."""
    ask = getattr(torch._C._autograd, "_get_current_graph_task_keep_graph", None)
    try:
        return True if ask is None else bool(ask())
    except RuntimeError:  # not inside a graph task
        return True


def _saved_hooks():
    """The innermost ``torch.autograd.graph.saved_tensors_hooks`` (pack, unpack), or None."""
    top = getattr(torch._C._autograd, "_top_saved_tensors_default_hooks", None)
    return None if top is None else top(False)


def _zero_cotangent(shape, dtype, device):
    """The gradient of an output nothing differentiated: a zero view (no memory), marked so that
    ``autograd.add_cotangent`` skips adding it."""
    z = torch.zeros((), dtype=dtype, device=device).expand(shape)
    z._tc_zero_cotangent = True
    return z


def _check_versions(stash, versions):
    for t, v in zip(stash, versions):
        if v is not None and t._version != v:
            raise RuntimeError(f"one of the variables needed for gradient computation has been modified by an "
                               f"inplace operation: [{t.type()} {list(t.shape)}] is at version {t._version}; "
                               f"expected version {v} instead (a tensor the jitted function's backward saved).")


class _Node(torch.autograd.Function):
    @staticmethod
    def forward(ctx, runner, holder, *inputs):
        out, saved = runner.forward(*inputs)
        leaves = [out] if type(out) is torch.Tensor else tensor_leaves(out)
        unique = [leaves[k] for k in runner.unique]
        holder.append(out)
        holder.append(unique)
        ctx.runner = runner
        ctx.inputs = inputs
        ctx.versions = [x._version if isinstance(x, torch.Tensor) else None for x in inputs]
        ctx.save_for_backward(*[saved[i] for i in runner.saved_outputs])
        stash = [saved[i] for i in runner.stashed]
        ctx.stash_versions = [t._version if is_tensor else None for t, is_tensor in zip(stash, runner.stashed_tensor)]
        # the user's saved_tensors_hooks (offloading, checkpointing, accounting) see what is kept
        hooks = _saved_hooks()
        ctx.unpack = None if hooks is None else hooks[1]
        ctx.stash = stash if hooks is None else [hooks[0](t) if isinstance(t, torch.Tensor) else t for t in stash]
        nondiff = [u for u, d in zip(unique, runner.differentiable) if not d]
        if nondiff:
            ctx.mark_non_differentiable(*nondiff)
        # an output nobody differentiated gets a zero view in backward, not a zero-filled tensor
        ctx.set_materialize_grads(False)
        ctx.out_meta = [(u.shape, u.dtype, u.device) for u, d in zip(unique, runner.differentiable) if d]
        return tuple(unique)

    @staticmethod
    def backward(ctx, *grads):
        runner = ctx.runner
        cts = [g if g is not None else _zero_cotangent(*meta)
               for g, meta in zip((g for g, d in zip(grads, runner.differentiable) if d), ctx.out_meta)]
        if torch.is_grad_enabled():
            return (None, None, *runner.double_backward(ctx, cts))
        stash = ctx.stash
        if stash is None:
            raise RuntimeError("Trying to backward through the graph a second time (or directly access saved tensors "
                               "after they have already been freed). Saved intermediate values of the graph are freed "
                               "when you call .backward() or autograd.grad(). Specify retain_graph=True if you need to "
                               "backward through the graph a second time or if you need to access saved tensors after "
                               "calling backward.")
        if ctx.unpack is not None:  # what the hooks return is what the backward uses (no version check)
            stash = [ctx.unpack(t) if v is not None else t for t, v in zip(stash, ctx.stash_versions)]
        else:
            _check_versions(stash, ctx.stash_versions)  # (a loop here would keep its last tensor alive)
        outputs, rest = iter(ctx.saved_tensors), iter(stash)
        saved = [next(outputs) if k == "output" else next(rest) for k in runner.saved_kind]
        if not _keep_graph():
            ctx.stash = stash = rest = None  # the backward's list is now the only reference: freed as it goes
        saved += cts
        result = runner.backward(saved)
        if any(g is None for g in grads):
            # an input reached only from outputs nothing differentiated gets None, not zeros, as
            # in eager (the engine never reaches it there): an optimizer skips a parameter whose
            # .grad is None, but decays and moves one with a zero gradient
            unused = {i for i, g in enumerate(g for g, d in zip(grads, runner.differentiable) if d) if g is None}
            if unused:
                result = [None if d and d <= unused else r for r, d in zip(result, runner.grad_deps)]
        return (None, None, *result)


def _cotangents_read(split) -> list:
    """For each gradient the backward returns, the positions of the cotangents (the forward's
    differentiable outputs, in order) it is computed from (empty for a constant or None)."""
    from ..ir import TensorProxy

    cts = split.backward.args[len(split.backward.args) - len(split.cotangent_of):]
    deps = {id(p): frozenset((i,)) for i, p in enumerate(cts)}
    for b in split.backward.bound_symbols:
        d = frozenset().union(*(deps.get(id(p), ()) for p in b.flat_args))
        if d:
            for o in b.flat_outs:
                deps[id(o)] = d
    out = split.backward.output
    return [deps.get(id(g), frozenset()) if isinstance(g, TensorProxy) else frozenset()
            for g in (out if isinstance(out, (tuple, list)) else (out,))]


class AutogradRunner:
    """The computation callable of a compile that needs gradients.

    :param forward: compiled forward trace, ``(*inputs) -> (output, saved)``.
    :param backward: compiled backward trace, boxed: ``([*saved, *cotangents]) -> grads per input``.
    :param split: the :class:`~thunder_core.transforms.autograd.Split` they came from.
    :param joint: ``() -> callable`` making the original trace's callable (for double backward).
    """

    def __init__(self, forward, backward, split, joint):
        from ..ir import TensorProxy, flat_proxies

        self.forward, self.backward, self._joint_factory, self._joint = forward, backward, joint, None
        flat = [p for p in flat_proxies(split.forward.output[0]) if isinstance(p, TensorProxy)]
        first: dict[int, int] = {}
        for k, p in enumerate(flat):
            first.setdefault(id(p), k)
        self.unique = sorted(first.values())              # leaf positions the node returns
        self.slots = [self.unique.index(first[id(p)]) for p in flat]
        self.differentiable = [flat[k].requires_grad for k in self.unique]
        outs = {id(p) for p in flat}
        self.saved_kind = ["output" if id(p) in outs else "tensor" if isinstance(p, TensorProxy) else "other"
                           for p in split.saved]
        self.saved_outputs = [i for i, k in enumerate(self.saved_kind) if k == "output"]
        self.stashed = [i for i, k in enumerate(self.saved_kind) if k != "output"]
        self.stashed_tensor = [self.saved_kind[i] == "tensor" for i in self.stashed]
        self.input_requires_grad = [isinstance(p, TensorProxy) and p.requires_grad
                                    for p in (*split.joint.args, *split.joint.kwargs.values())]
        self.grad_deps = _cotangents_read(split)
        # Outputs that may be an input object at run time (`x.contiguous()`, `x.to(x.dtype)`):
        # autograd.Function would hand back a view of it, eager gives the input itself.
        producer = {id(o): b for b in split.forward.bound_symbols for o in b.flat_outs}
        ins = {id(p) for p in flat_proxies((split.forward.args, split.forward.kwargs))}
        def maybe_input(p):
            b = producer.get(id(p))
            return id(p) in ins or (b is not None and bool(b.sym.tags & {"may-return-input", "opaque"})
                                    and "fresh-output" not in b.sym.tags)
        self.maybe_input = [i for i, k in enumerate(self.unique) if maybe_input(flat[k])]

    def __call__(self, *inputs):
        holder = []
        unique = _Node.apply(self, holder, *inputs)
        if self.maybe_input:
            unique, raw = list(unique), holder[1]
            for i in self.maybe_input:
                if any(raw[i] is x for x in inputs):
                    unique[i] = raw[i]
        leaves = [unique[s] for s in self.slots]
        return with_tensors(holder[0], iter(leaves))

    def double_backward(self, ctx, cts):
        for x, v in zip(ctx.inputs, ctx.versions):
            if isinstance(x, torch.Tensor) and x._version != v:
                raise RuntimeError("thunder_core: double backward (create_graph=True) re-runs the jitted forward "
                                   "from its inputs, but an input was modified in place after the forward ran. "
                                   "Clone the input before modifying it.")
        if self._joint is None:
            self._joint = self._joint_factory()
        inputs = ctx.inputs
        wrt = [x for x, r in zip(inputs, self.input_requires_grad) if r]
        with torch.enable_grad():
            out = self._joint(*inputs)
            leaves = tensor_leaves(out)
            outs = [leaves[k] for k, d in zip(self.unique, self.differentiable) if d]
            pairs = [(o, c) for o, c in zip(outs, cts) if o.requires_grad]
            grads = torch.autograd.grad([o for o, _ in pairs], wrt, [c for _, c in pairs], create_graph=True,
                                        allow_unused=True) if pairs and wrt else [None] * len(wrt)
        it = iter(grads)
        return [next(it) if r else None for r in self.input_requires_grad]
