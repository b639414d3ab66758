"""Decompositions recorded once per structure while a trace is built, and replayed after.

Tracing a model spends most of its time in decompositions: a GPT layer's ``layer_norm``,
attention and ``linear`` each run their Python decomposition, which runs the metas of the
symbols it calls. Every layer repeats the same calls on tensors of the same metadata. A
trace that opts in (``Trace.decompositions = {}``; the capture does) keeps the first bound
symbol of each structure; a later call of the same symbol on arguments of the same
structure copies it with fresh names instead of running the decomposition again.

A call's structure is its symbol, its arguments (tensor proxies by metadata and by which of
them are the same proxy; symbolic numbers, and the symbolic sizes in shapes, by identity;
constants by type and value) and what a decomposition may consult besides them: grad mode,
the default dtype, autocast, and where guards go. A symbol whose recording cannot be copied
this way is recorded anew every time:

* it defines a number proxy (its expression may refer to proxies that would need renaming),
  or a proxy other than a tensor;
* it, or a symbol inside it, draws random numbers, has an effect or writes in place (a copy
  would share or repeat the draw; a write is the capture's business), or holds a sub-trace
  (higher-order symbols);
* its arguments hold something else than proxies and plain constants (an object whose
  value the key cannot capture).

Guards a decomposition records (a branch on a symbolic size, a specialisation) are about the
same symbolic numbers in a replayed call (they are part of the key), so the capture holds
them already.
"""

from __future__ import annotations

from contextlib import contextmanager
from types import MappingProxyType

import torch

from .proxies import NumberProxy, TensorProxy, flat_proxies, substitute
from .trace import AUTOCAST_DEVICES, any_autocast, current_trace, subtraces

__all__ = ["ENABLED", "replaying", "call_key", "replayable", "replay"]

#: Whether captures replay decompositions (tests compare traces built both ways)
ENABLED = True

@contextmanager
def replaying(trace):
    """Symbols called while ``trace`` is built inside the block record each decomposition once
    per call structure and copy it for later calls (``Trace.decompositions``); after the
    block, calls record as usual."""
    trace.decompositions = {} if ENABLED else None
    try:
        yield
    finally:
        trace.decompositions = None


_CONSTANTS = (int, float, bool, str, type(None), complex, torch.dtype, torch.device, torch.memory_format,
              torch.layout, type(Ellipsis))
_UNREPLAYABLE_TAGS = frozenset({"random", "effect", "inplace"})


class _Unkeyable(Exception):
    pass


def call_key(sym, args, kwargs, sink) -> tuple | None:
    """The structure of ``sym(*args, **kwargs)`` (see the module docstring), or None when the
    arguments hold something the key cannot describe."""
    first: dict = {}  # id(tensor proxy) -> its position among the call's tensors

    def enc(x):
        t = type(x)
        if t is TensorProxy:
            k = first.get(id(x))
            if k is not None:
                return ("same", k)
            first[id(x)] = len(first)
            return ("T", tuple(("S", id(s)) if type(s) is NumberProxy else s for s in x.shape), x.dtype, x.device,
                    x.requires_grad, x.python_type)
        if t is NumberProxy:
            return ("N", id(x))
        if t is tuple or t is list:
            return (t, tuple(enc(y) for y in x))
        if t is dict:
            return (dict, tuple((k, enc(v)) for k, v in x.items()))
        if t is slice:
            return (slice, enc(x.start), enc(x.stop), enc(x.step))
        if t in _CONSTANTS:
            return (t, x)  # (1 and 1.0 and True differ by type)
        raise _Unkeyable

    try:
        body = (enc(args), enc(tuple(kwargs.items())))
    except _Unkeyable:
        return None
    return (sym.id, body, torch.is_grad_enabled(), torch.get_default_dtype(), _autocast_state(), id(sink))


def _autocast_state():
    # what a recording under autocast depends on: which device types it is on for, their
    # dtypes, and whether the call is inside an autocast op (Trace.autocast_off)
    if not any_autocast():
        return None
    t = current_trace()
    return (tuple((d, torch.get_autocast_dtype(d)) for d in AUTOCAST_DEVICES if torch.is_autocast_enabled(d)),
            t is not None and t.autocast_off)


def replayable(bsym) -> bool:
    """Whether ``bsym`` (just recorded) can be copied for a later call of the same structure.
    The recorded symbol's own ``random`` trait says it *may* draw (attention with
    ``dropout_p > 0``); whether this recording did is in its subsymbols (a draw is a symbol
    with the trait and no decomposition), so that one trait alone does not prevent a copy."""
    stack = [bsym]
    while stack:
        b = stack.pop()
        tags = b.sym.tags - {"random"} if b is bsym and b.subsymbols else b.sym.tags
        if not tags.isdisjoint(_UNREPLAYABLE_TAGS) or subtraces(b):
            return False
        for p in b.flat_outs:
            if type(p) is not TensorProxy:
                return False
        stack += b.subsymbols
    return True


def _facts(b) -> tuple:
    """(do ``b``'s keyword arguments hold proxies, does it take symbolic numbers): asked of each
    template call once, kept in its ``__dict__`` beside its cached argument lists. (Keyword
    arguments never hold proxies by the calling convention; a symbol breaking it is still
    copied right.)"""
    facts = b.__dict__["_replay_facts"] = (bool(flat_proxies(dict(b.kwargs))),
                                           any(type(x) is NumberProxy for x in b.flat_args))
    return facts


def replay(template, args, kwargs, trace, equalities):
    """``template`` (a bound symbol of a call of the same structure) for ``args``/``kwargs``:
    the same calls on these arguments, every proxy it defines fresh (named by ``trace``), its
    source the current line. Records the copy in ``trace`` and returns its output."""
    env = {id(old): new for old, new in zip(flat_proxies((template.args, dict(template.kwargs))),
                                            flat_proxies((args, kwargs)))}
    source = trace.current_source

    make_name = trace.make_name

    def fresh(p):
        # a tensor proxy like p (validated when p was made; its shape holds only constants and
        # symbolic numbers from outside the recording, already canonical), named anew
        new = object.__new__(TensorProxy)
        new.__dict__.update(p.__dict__)
        object.__setattr__(new, "name", make_name(p.name.rstrip("0123456789") or "t"))
        if equalities is not None and any(type(d) is NumberProxy for d in p.shape):
            equalities.track(new, p.shape)
        env[id(p)] = new

    def copy(b):
        kwargs_hold, numbers = b.__dict__.get("_replay_facts") or _facts(b)
        subs = b.subsymbols
        if subs:
            subs = tuple([copy(s) for s in subs])
        for p in b.flat_outs:
            if id(p) not in env:
                fresh(p)
        # built field by field: the template's fields are normalized already (tuples, a
        # read-only mapping), and substitution keeps their types
        new = object.__new__(type(b))
        new.__dict__.update(sym=b.sym, args=substitute(b.args, env), output=substitute(b.output, env), subsymbols=subs,
                            source=source, header=b.header, tags=b.tags,
                            kwargs=MappingProxyType(substitute(dict(b.kwargs), env)) if kwargs_hold else b.kwargs,
                            # (the cached argument lists, renamed from the template's: no walk of the copy's)
                            flat_args=tuple([env.get(id(p), p) for p in b.flat_args]),
                            flat_outs=tuple([env.get(id(p), p) for p in b.flat_outs]))
        if numbers and equalities is not None:
            equalities.track(new, new.flat_args)
        return new

    new = copy(template)
    trace.record(new)
    return new.output
