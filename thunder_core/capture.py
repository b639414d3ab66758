"""Capture: run a function under the interpreter with tensors replaced by proxies, and record
the computation trace plus everything the trace depends on.

``capture(fn, args, kwargs)`` returns a :class:`Capture` (guards/record.py): the computation
trace, the provenance of each of its tensor inputs, and the guards on everything else it read
(values of Python numbers/strings, identities of functions/modules/classes, lengths of
containers, tensor metadata, grad mode and default dtype).

Interpreter hooks used: ``on_enter`` (every value entering from outside), lookasides (torch
callables -> symbols; ``nn.Module.__call__`` without hooks -> ``forward``), and native calls
of torch functions that have no symbol become opaque symbols (ops/opaque.py).
"""

from __future__ import annotations

import enum
import functools
import os
import sys
import types

import torch

from .frontend import Interpreter
from .frontend import events as ev
from .frontend.code import run_natively
from .frontend.iteration import CONTAINERS, read_contents
from .frontend.tracebacks import hide
from .frontend.native import MODULE_TABLES
from .frontend.native import SCALARS, is_mutator, unused_call
from .frontend.provenance import ARG, ATTR, CALL, CELL, FRESH, GLOBAL, ITEM, ITER, KWARG, Provenance
from .ir import NumberProxy, Proxy, TensorProxy, TracingError, tracing
from .ir import replay
from .ir.equalities import Equalities
from .ir.trace import AUTOCAST_DEVICES
from .ir.symbol import without_unused_numbers
from .ir.printing import PRINTER_GLOBALS
from .ir.proxies import is_valid_name, number_proxy, substitute, tensor_proxy
from .ir.size import textual
from .user_errors import annotate, is_user_file
# what a capture records (guard kinds, Guard, Capture) is defined with the guards; re-exported here
from .guards.record import BOUND, EQUALS, IDENTITY, LENGTH, NO_HOOKS, SAME_AS, TENSOR, TYPE  # noqa: F401
from .guards.record import DRAWN, PREDICATE, TRUTH, VALUES, Capture, Draw, Guard  # noqa: F401
from .guards import fresh
from .transforms import autocast
from . import plugins
from .ops import TORCH_CALLS
from .capture_trace import CaptureTrace

_TORCH_DIR = os.path.dirname(torch.__file__)
# torch's own compiler runs natively when reached from traced code (Module.__init__ is patched by
# torch._dynamo once torch.compile has run; its bookkeeping is torch's state, not the program's).
for _d in ("_dynamo", "_inductor"):
    run_natively(os.path.join(_TORCH_DIR, _d))
# the jit's interpreter and the core's lookasides are the interpreter's: not in the program's tracebacks
hide(__file__)
hide(os.path.join(os.path.dirname(__file__), "builtin"))
_OWNERS = (types.ModuleType, type(None), type(torch._C._VariableFunctions))
_BOUND_METHODS = (types.MethodType, types.BuiltinMethodType, types.MethodWrapperType)
_EQ_TYPES = (int, float, bool, str, complex, type(None), torch.dtype, torch.device, bytes, type(...))
_CALLABLE_TYPES = (types.FunctionType, types.BuiltinFunctionType, types.ModuleType, type, types.MethodType,
                   types.BuiltinMethodType, types.MethodWrapperType, types.WrapperDescriptorType,
                   types.MethodDescriptorType, types.ClassMethodDescriptorType)


#: where grad mode's guard reads it (the prologue calls torch.is_grad_enabled())
GRAD_MODE = Provenance("state", None, "grad_enabled")


def _holds_grad(cap: Capture) -> bool:
    """Whether a tensor of ``cap``'s trace requires grad. Grad mode changes a trace only
    through such tensors (what requires grad, whether the compile splits for autograd), a
    tensor made requiring grad under no_grad, or the program asking for it (both
    ``_Recorder.grad_mode_matters``): without any of these, the trace is the same in both
    modes and its prologue need not read it (one check less per call). Inference mode's
    guard is implied by the tensors' check (guards/prologue.py)."""
    if any(isinstance(p, TensorProxy) and p.requires_grad for _, p in cap.inputs):
        return True
    return any(isinstance(o, TensorProxy) and o.requires_grad for b in cap.trace.bound_symbols for o in b.flat_outs)


class _Recorder:
    """Turns values entering the interpreted call into proxies and guards."""

    def __init__(self, cap: Capture, arg_names, symbolic=False):
        self.cap = cap
        self.symbolic = symbolic   # cache="symbolic values": numbers among the arguments become symbolic
        self.numbers: dict = {}    # provenance -> its symbolic NumberProxy
        self.proxies: dict[int, tuple[object, TensorProxy, Provenance]] = {}
        self.seen_guards: set = set()
        self.arg_names = arg_names
        self.modules: dict = {}  # provenance -> Python module object read there
        self.containers: dict = {}  # provenance -> list/tuple/dict read there
        self.input_of: dict = {}  # id(input proxy) -> (tensor, provenance)
        # the program asked torch.is_grad_enabled() (builtin/lookasides.py), or made a tensor
        # requiring grad that no_grad stripped (ir/symbol.without_grad)
        self.grad_mode_matters = False

    def finish(self, I):
        """Guards that need the whole run: lengths of iterated containers, existence of what
        the function deletes."""
        for prov in I.iterated:
            if prov in self.containers:
                self.guard(prov, LENGTH, len(self.containers[prov]))
        for e in I.events:
            if e.kind in (ev.DELETE_GLOBAL, ev.DELETE_CELL):
                self.guard(e.prov, BOUND, None)

    def guard(self, prov, kind, value, key=None):
        key = key or (prov, kind)
        if key not in self.seen_guards:
            self.seen_guards.add(key)
            self.cap.guards.append(Guard(prov, kind, value))

    def on_enter(self, I, value, prov):
        if isinstance(value, torch.Tensor):
            hit = self.proxies.get(id(value))
            if hit is not None:
                if hit[2] != prov:
                    self.guard(prov, SAME_AS, hit[2])
                return hit[1]
            if isinstance(value, Proxy):
                return value
            name = self._name(prov)
            shape = tuple(value.shape)
            if self.symbolic and not isinstance(value, torch.nn.Parameter) and self._passed_in(prov):
                shape = self._symbolic_dims(value, prov, name)
                p = self.cap.trace.add_input(tensor_proxy(shape, value.dtype, value.device, value.requires_grad,
                                                          name=name, python_type=_subclass(value)))
            else:
                p = self.cap.trace.add_input(value, name=name)
            self.proxies[id(value)] = (value, p, prov)
            self.input_of[id(p)] = (value, prov)
            self.cap.inputs.append((prov, p))
            self.guard(prov, TENSOR, (tuple(None if type(s) is NumberProxy else s for s in shape), value.dtype,
                                      value.device, value.requires_grad))
            return p
        if isinstance(value, Proxy):
            return value
        number = type(value) in _SYMBOLIC_TYPES
        if (number and self.symbolic and _is_argument(prov)) or (prov.root.kind == FRESH and _fresh_number(value)):
            # an argument under "symbolic values", or a number drawn afresh on every call (any cache mode)
            p = self.numbers.get(prov)
            if p is None:
                t = type(value) if number else _fresh_number(value)
                p = self.numbers[prov] = self.cap.trace.add_input(
                    number_proxy(t, hint=t(value), name=self._name(prov)))
                self.cap.inputs.append((prov, p))
                self.guard(prov, TYPE, type(value))
            return p
        if isinstance(value, _EQ_TYPES):
            self.guard(prov, EQUALS, value)
        elif isinstance(value, torch.nn.Module):
            self.guard(prov, TYPE, type(value))  # parameters are fetched by path: any instance will do
        elif isinstance(value, _BOUND_METHODS) and not isinstance(getattr(value, "__self__", None), _OWNERS):
            pass  # made afresh on each access; the type guard of its owner covers it
        elif isinstance(value, _CALLABLE_TYPES):
            if isinstance(value, types.ModuleType):
                self.modules[prov] = value
            # Attributes of torch's own modules (torch.nn.functional.gelu) are taken as
            # constant: guarding each would cost every call for what never changes in practice.
            parent = self.modules.get(prov.parent) if prov.kind == ATTR else None
            if parent is None or not parent.__name__.startswith("torch"):
                self.guard(prov, IDENTITY, value)
        elif isinstance(value, (list, tuple, dict, set, frozenset)):
            self.guard(prov, TYPE, type(value))
            self.containers[prov] = value  # its length is guarded if it is iterated (finish())
        elif isinstance(value, enum.Enum):  # a member is its own value (`cfg.mode is Mode.B`)
            self.guard(prov, IDENTITY, value)
        else:
            self.guard(prov, TYPE, type(value))
        return value

    def _passed_in(self, prov) -> bool:
        """True for a tensor the call was given (an argument, or reached from one through
        containers and plain objects such as a KV cache), not a module's parameter or buffer:
        no nn.Module lies on its path."""
        steps = []
        while prov is not None and prov.kind in (ATTR, ITEM):
            steps.append(prov)
            prov = prov.parent
        if prov is None or prov.kind not in (ARG, KWARG):
            return False
        try:
            obj = self.call_args[prov.key] if prov.kind == ARG else self.call_kwargs[prov.key]
            for s in reversed(steps[1:]):
                if isinstance(obj, torch.nn.Module):
                    return False
                obj = getattr(obj, s.key) if s.kind == ATTR else obj[s.key]
            return not isinstance(obj, torch.nn.Module)
        except Exception:  # noqa: BLE001 - a path that cannot be followed now: keep the shape static
            return False

    def _symbolic_dims(self, value, prov, name):
        """The shape of an argument tensor under cache="symbolic values": each dimension of
        size 2 or more a symbolic int (an input of the trace, fetched as ``x.shape[d]``); 0 and
        1 stay constants (their broadcasting and emptiness are part of the program's meaning)."""
        shape = []
        for d, n in enumerate(value.shape):
            if n < 2:
                shape.append(n)
                continue
            dprov = Provenance(ITEM, Provenance(ATTR, prov, "shape"), d)
            dname = f"{name}_{d}" if name and is_valid_name(f"{name}_{d}") and f"{name}_{d}" not in self.cap.trace._names \
                else None
            s = self.cap.trace.add_input(number_proxy(int, hint=n, name=dname, lower=2))
            self.cap.inputs.append((dprov, s))
            shape.append(s)
        return tuple(shape)

    # ------------------------------------------------------------ real tensors reaching ops

    def resolve(self, I, args, kwargs):
        """``(args, kwargs)`` with every real tensor (one the program reached along a path the
        interpreter did not see, e.g. an item of an argument list handed straight to
        ``torch.cat``) replaced by its proxy: the proxy it already has, or a new input at the
        shortest path of an outside container or object holding it (``Interpreter.find_path``)."""
        if not _has_raw(args) and not (kwargs and _has_raw(kwargs.values())):
            return args, kwargs
        return self._resolved(I, args), {k: self._resolved(I, v) for k, v in kwargs.items()} if kwargs else kwargs

    def _resolved(self, I, x):
        t = type(x)
        if t is tuple or t is list or t is dict:
            if not _has_raw(x.values() if t is dict else x):
                return x
            e = I.outside.get(id(x))
            if e is None and (found := I.find_path(x)) is not None:
                # a container inside an outside one (d["y"] of an argument d): entered, so its own
                # items are found too
                container, key, prov = found
                I.enter(x, prov, ev.READ_ITEM, I._current_inst(), key, container)
                e = I.outside.get(id(x))
            if e is not None:  # an outside container handed to an op whole: its length is a guard
                I.iterated.add(e[1])
            if t is dict:
                return {k: self._resolved(I, v) for k, v in x.items()}
            return t(self._resolved(I, y) for y in x)
        if isinstance(x, torch.Tensor) and not isinstance(x, Proxy):
            hit = self.proxies.get(id(x))
            if hit is not None and hit[0] is x:
                return hit[1]
            found = I.find_path(x)
            if found is None:
                raise TracingError(_unknown_tensor(self.cap.trace, x))
            (container, key, prov) = found
            return I.enter(x, prov, ev.READ_ITEM, I._current_inst(), key, container)
        return x

    def _name(self, prov) -> str | None:
        """A readable input name from the provenance path: ``x``, ``fc_weight``, ``G_scale``."""
        parts, p = [], prov
        while p is not None:
            if p.kind == ATTR and p.key in MODULE_TABLES:
                pass  # h._modules['0'].weight reads as h_0_weight
            elif p.kind in (ATTR, ITEM, KWARG, GLOBAL, CELL, ITER):
                parts.append(str(p.key))
            elif p.kind == FRESH:  # the call's k-th fresh value, random.random(): random_random_k
                parts.append(f"{p.ref}_{p.key}")
            elif p.kind == ARG and not parts:  # a plain argument: its parameter name
                parts.append(self.arg_names[p.key] if p.key < len(self.arg_names) else f"arg{p.key}")
            p = p.parent
        name = "_".join(reversed(parts)).replace(".", "_")
        trace = self.cap.trace
        if is_valid_name(name) and name not in trace._names and name not in PRINTER_GLOBALS:
            return name
        return None


# bool arguments stay constants: code tests flags by identity (`unbiased is False`), which no
# proxy can intercept, and a symbolic bool would buy nothing (a branch on it guards its value)
_SYMBOLIC_TYPES = (int, float)
#: native calls that read only the structure of their argument, not its value: never draws
_STRUCTURAL = frozenset({isinstance, issubclass, callable, id, type, iter, next, len, getattr, hasattr, setattr,
                         delattr, vars, dir, super, object.__new__})
_CONTAINERS = (list, tuple, dict, set, frozenset)
_FORMATTERS = frozenset({str, repr, ascii, format})


def _unenterable(value) -> bool:
    """True for a fresh value the trace cannot take as an input (a numpy array: torch reads it as data)."""
    np = sys.modules.get("numpy")
    return np is not None and isinstance(value, np.ndarray)


def _fresh_number(value):
    """int or float for a number drawn afresh (numpy's scalars count: ``np.random.randint``), else None."""
    t = type(value)
    if t is int or t is float:
        return t
    np = sys.modules.get("numpy")
    if np is not None:
        if isinstance(value, np.integer):
            return int
        if isinstance(value, np.floating):
            return float
    return None


def _subclass(t):
    return None if type(t) is torch.Tensor else type(t)


def _is_argument(prov) -> bool:
    """True for a value passed in the call (an argument, or an item of one), not an attribute
    of an object (a module's hyper-parameters stay constants)."""
    while prov is not None:
        if prov.kind == ATTR or prov.kind == CALL:
            return False
        if prov.kind in (ARG, KWARG):
            return True
        prov = prov.parent
    return False


def _has_raw(values) -> bool:
    """True if ``values`` holds a real tensor (not a proxy), in nested tuples/lists/dicts."""
    for v in values:
        t = type(v)
        if t is tuple or t is list:
            if v and _has_raw(v):
                return True
        elif t is dict:
            if _has_raw(v.values()):
                return True
        elif isinstance(v, torch.Tensor) and not isinstance(v, Proxy):
            return True
    return False


def _unknown_tensor(trace, x) -> str:
    src = trace.current_source
    where = f"{src[0]}:{src[1]} ({src[2]}): " if src else ""
    return (f"{where}a tensor ({tuple(x.shape)}, {x.dtype}) reached an operation along a path thunder_core cannot "
            f"follow: it was not read from an argument, a global, a closure or an attribute while tracing (C code "
            f"returned it). thunder_core must fetch it again on every call. Pass it to the jitted function as an "
            f"argument, or read it as an attribute of a module or object the function uses.")


def _torch_lookaside(entry):
    def lookaside(I, args, kwargs):
        args, kwargs = I.recorder.resolve(I, args, kwargs)
        if "out" in kwargs:
            return _into_out(entry, args, kwargs)
        return entry(*args, **kwargs)
    return lookaside


def _into_out(entry, args, kwargs):
    """``torch.add(a, b, out=c)``: the op's result written into ``out`` (a tensor, or a tuple
    of them for ops with several results) with ``Tensor.copy_``, which returns it, as eager
    does. Eager resizes an ``out`` of another shape; here that is refused, saying so."""
    kwargs = dict(kwargs)
    out = kwargs.pop("out")
    result = entry(*args, **kwargs)
    if out is None:
        return result
    outs, results = (out, result) if isinstance(out, (tuple, list)) else ((out,), (result,))
    if len(outs) != len(results) or not all(isinstance(o, TensorProxy) and isinstance(r, TensorProxy)
                                            for o, r in zip(outs, results)):
        raise TracingError(f"out= of {type(out).__name__} for a result of {len(results)} tensor(s): pass as many "
                           f"tensors made or read by the function, or assign the result instead of using out=.")
    copy = TORCH_CALLS[torch.Tensor.copy_]
    for o, r in zip(outs, results):
        if tuple(o.shape) != tuple(r.shape):
            have, want = textual(tuple(o.shape)), textual(tuple(r.shape))
            raise TracingError(f"out= has shape {have} where the result has {want}: eager "
                               f"would resize it, which thunder_core does not model. Pass an out= tensor of the "
                               f"result's shape, or assign the result instead of using out=.")
        if not torch.can_cast(r.dtype, o.dtype):  # eager's own check raises eager's error (on empty tensors)
            empty = torch.empty(0, dtype=r.dtype)
            torch.mul(empty, empty, out=torch.empty(0, dtype=o.dtype))
        copy(o, r)
    return out


def _torch_lookasides():
    return {fn: _torch_lookaside(entry) for fn, entry in TORCH_CALLS.items()}


def _merged_lookasides(registry):
    # torch callables -> their symbols, then every plugin's lookasides (the core's own in
    # builtin/lookasides.py); kept on the plugin registry, so registering a plugin renews it
    # (and, for the plugins' part, importing modules: the torch part, ~1200 entries, is kept)
    return {**registry.cached("capture.torch_lookasides", lambda r: _torch_lookasides()), **registry.lookasides}


class TracingInterpreter(Interpreter):
    """The interpreter with torch's operations recorded into a trace."""

    def for_text(self, value):
        """f"{x.shape}": this call's sizes, guarded (ir/size.py textual); the text of an outside
        container depends on its items, which are read (and so guarded) first."""
        if type(value) in CONTAINERS:
            read_contents(self, value)
        return textual(value)

    def identity_used(self, value):
        """The program compared ``value`` by identity (``is``, or ``==`` without an ``__eq__``
        of its own): an outside object guarded by type only is guarded to be this object."""
        e = self.outside.get(id(value))
        if e is not None and e[0] is value and not isinstance(value, (torch.Tensor, *_EQ_TYPES)):
            self.recorder.guard(e[1], IDENTITY, value)

    def draw(self, fn, args, kwargs=None, name=None, frozen=False):
        """A fresh value (see ``Interpreter.draw``): the call's next draw from the draw log
        (guards/fresh.py: a prologue that missed may have made it already), recorded with a
        DRAWN guard at its place in program order, so the prologue draws it again on every call;
        its value enters as an input: a number is symbolic, a tensor a tensor input, a container
        outside data whose items are read like an argument's. A value that cannot be an input
        (``frozen``, or a numpy array) is a constant of the trace, reported (a FROZEN event)."""
        rec, kwargs = self.recorder, kwargs or {}
        cap = rec.cap
        k = len(cap.draws)
        site = self.user_site()
        out = cap.draw_log.take(k, fn, *_drawn_args(cap.trace, name, site, args, kwargs))
        prov = Provenance(FRESH, None, k, name)
        raised = type(out.exc) if type(out) is fresh.Raised else None
        d = Draw(prov, name, fn, args, kwargs, None if raised else out, raised, site)
        cap.draws.append(d)
        self.events.append(ev.Event(ev.FRESH, prov, name, d.value, site))
        rec.guard(prov, DRAWN, d)
        if raised is not None:
            raise out.exc.with_traceback(None)
        if frozen or _unenterable(out):
            self.events.append(ev.Event(ev.FROZEN, prov, self.user_site(name)[1], out, site))
            return out
        v = rec.on_enter(self, out, prov)
        if v is out and type(out) not in SCALARS:
            self.outside.setdefault(id(out), (out, prov))
            self.fresh_objects = True
        return v

    def is_fresh(self, x) -> bool:
        e = self.outside.get(id(x))
        return (e is not None and e[0] is x and e[1].root.kind == FRESH
                and not isinstance(x, (torch.Tensor, Proxy, *_CALLABLE_TYPES)))

    def _derived_draw(self, fn, args, kwargs):
        """A native call taking a fresh object whole (``str(uuid4())``, ``now.timestamp()``,
        ``str(random.sample(...))``) made as a draw: the prologue makes it again on every call, on
        that call's object (a bound C method through its descriptor). None for other calls: those
        that only read structure, and the methods of containers and calls taking one (queries,
        views and writes of native.py; only formatting a container is a draw)."""
        recv = getattr(fn, "__self__", None) if type(fn) is types.BuiltinMethodType else None
        if recv is not None and self.is_fresh(recv):
            desc = getattr(type(recv), fn.__name__, None)
            if desc is None or isinstance(recv, _CONTAINERS) or is_mutator(type(recv), fn.__name__):
                return None
            fn, args = desc, (recv, *args)
        elif fn in _STRUCTURAL or not any(self.is_fresh(a) and (fn in _FORMATTERS or type(a) not in _CONTAINERS)
                                          for a in (*args, *(kwargs or {}).values())):
            return None
        name = getattr(fn, "__qualname__", None) or repr(fn)
        return (self.draw(fn, args, kwargs, name),)

    def user_site(self, name=None):
        """(filename, line, function) of the innermost frame of the user's own code (not a
        library's, the standard library's or thunder_core's), else of the innermost frame; with
        ``name`` (what is being called), also the name to report: the library function the
        user's line called, ``secrets.token_hex (through os.urandom)``, or ``name`` itself."""
        frames = self.frames
        k = next((k for k in range(len(frames) - 1, -1, -1) if is_user_file(frames[k].info.code.co_filename)),
                 len(frames) - 1)
        f = frames[k]
        site = f.info.code.co_filename, f.lineno, f.info.site_name
        if name is None:
            return site
        if k + 1 < len(frames):
            callee = frames[k + 1]
            name = f"{callee.globals.get('__name__', '?')}.{callee.info.site_name} (through {name})"
        return site, name

    def call_native(self, fn, args, kwargs=None):
        inner = getattr(fn, "_torchdynamo_orig_callable", None)
        if inner is not None and type(fn) is types.FunctionType:
            # torch._dynamo.disable's wrapper (runs natively, as torch/_dynamo does): what it
            # wraps is traced, looked aside or called natively like any other callee
            return self.call(inner, args, kwargs)
        if fn is len and len(args) == 1 and id(args[0]) in self.outside:
            # len() of an outside container is a read of outside state: guarded by value
            n = len(args[0])
            prov = Provenance(CALL, self.outside[id(args[0])][1], "len", len)
            self.recorder.guard(prov, EQUALS, n)
            return n
        # Torch functions are recorded (opaque symbols) when tensors flow in or out of them;
        # those that only answer questions about metadata or touch no tensor run natively.
        if _is_torch_callable(fn) and not isinstance(fn, type):
            from .ops.opaque import opaque_entry

            args, kwargs = self.recorder.resolve(self, args, kwargs or {})
            return opaque_entry(fn)(*args, **kwargs)
        if type(fn) is types.BuiltinMethodType:
            # a C method looked aside through its descriptor (rng.random(): a new bound method
            # on every access), when its lookaside asks for it (builtin/fresh_values.py)
            la = self.lookasides.get(id(_descriptor(fn.__self__, fn.__name__)))
            if la is not None and getattr(la, "through_methods", False):
                return la(self, (fn.__self__, *args), kwargs or {})
        if self.result_unused():
            # (a module's function only from the user's own code: library internals such as
            # importlib's lock calls run now, as before)
            unused = unused_call(self, fn, args, is_user_file(self.frames[-1].info.code.co_filename))
            if unused is not None:
                # made for its effect on an outside object (stream.write(s)): on every call, by the
                # epilogue, in program order with the other effects, with that call's values
                replay, rargs = unused
                self.events.append(ev.Event(ev.CALL, None, replay, (rargs, dict(kwargs or {})), self.user_site()))
                return None
        if self.fresh_objects:
            drawn = self._derived_draw(fn, args, kwargs)
            if drawn is not None:
                return drawn[0]
        return super().call_native(fn, args, kwargs)


def _descriptor(owner, name):
    """The descriptor the bound C method ``owner.name`` came from: a method's, or for a class a
    classmethod's (``datetime.now``)."""
    if isinstance(owner, type):
        return next((c.__dict__[name] for c in owner.__mro__ if name in c.__dict__), None)
    return getattr(type(owner), name, None)


def _drawn_args(trace, name, site, args, kwargs):
    """The arguments of a fresh call as they are now: symbolic numbers are this call's values
    (the prologue computes them again on every call). A tensor computed by the trace cannot be
    given to a call the prologue makes before the computation: refused."""
    def concrete(x):
        t = type(x)
        if t is NumberProxy:
            return x.hint if x.value is None else x.value
        if t is TensorProxy:
            raise TracingError(f"{site[0]}:{site[1]}: {name}(...) is made again on every call before the computation "
                               f"runs, so it cannot take a tensor of the jitted function. Draw an index instead "
                               f"(random.randrange(len(seq))) and index with it, or use torch's random functions.")
        if t is tuple or t is list:
            return t(concrete(y) for y in x)
        if t is dict:
            return {k: concrete(v) for k, v in x.items()}
        return x
    return concrete(tuple(args)), concrete(dict(kwargs))


def _has_proxy(values) -> bool:
    for v in values:
        if isinstance(v, Proxy):
            return True
        if isinstance(v, (list, tuple)) and v and _has_proxy(v):
            return True
    return False


def _is_torch_callable(fn) -> bool:
    mod = getattr(fn, "__module__", None) or ""
    if mod == "torch" or mod.startswith("torch."):
        return True
    return getattr(fn, "__objclass__", None) is torch._C.TensorBase or getattr(fn, "__self__", None) is torch._C._nn


def capture(fn, args, kwargs, *, extra_lookasides=None, arg_names=None, record_opaque_calls=False,
            what=None, symbolic=False, draw_log=None) -> Capture:
    """Trace ``fn(*args, **kwargs)``; see the module docstring. Fresh values are drawn through
    ``draw_log`` (guards/fresh.py: a jitted function's, whose prologue takes them next), else
    through a log of this capture's own."""
    lookasides = plugins.registry().cached("capture.lookasides", _merged_lookasides, per_imports=True)
    name = getattr(fn, "__name__", "fn")
    trace = CaptureTrace("computation", grad_enabled=torch.is_grad_enabled())
    if symbolic:
        trace.equalities = Equalities(trace)
    cap = Capture(trace, fn_name=name, draw_log=fresh.DrawLog() if draw_log is None else draw_log)
    if arg_names is None:
        code = getattr(getattr(fn, "__func__", fn), "__code__", None)
        arg_names = list(code.co_varnames[:code.co_argcount]) if code is not None else []
        if isinstance(fn, types.MethodType):
            arg_names = arg_names[1:]
    cap.arg_names = arg_names
    rec = _Recorder(cap, arg_names, symbolic)
    rec.call_args, rec.call_kwargs = args, kwargs
    I = TracingInterpreter(lookasides={**lookasides, **(extra_lookasides or {})}, on_enter=rec.on_enter,
                           record_opaque_calls=record_opaque_calls)
    I.recorder = trace.recorder = rec
    trace.written = I.replaced  # in-place writes' results (ir/symbol.py), seen by attribute reads
    trace.cast_inputs = autocast.cast_inputs  # torch.autocast's casts, recorded (transforms/autocast.py)
    I.local_types = frozenset({TensorProxy, NumberProxy})
    trace.interp = I
    rec.guard(GRAD_MODE, EQUALS, torch.is_grad_enabled())  # (dropped below when nothing depends on it)
    rec.guard(Provenance("state", None, "inference_mode"), EQUALS, torch.is_inference_mode_enabled())
    rec.guard(Provenance("state", None, "default_dtype"), EQUALS, torch.get_default_dtype())
    cap.autocast = autocast.active()
    for dev in AUTOCAST_DEVICES:  # (on/off implied by the tensors' check: guards/prologue.py)
        rec.guard(Provenance("state", None, f"autocast_enabled({dev})", functools.partial(torch.is_autocast_enabled, dev)),
                  EQUALS, dev in cap.autocast)
        if dev in cap.autocast:
            rec.guard(Provenance("state", None, f"autocast_dtype({dev})", functools.partial(torch.get_autocast_dtype, dev)),
                      EQUALS, cap.autocast[dev])
    from .guards.epilogue import UndoLog

    undo = UndoLog()
    I.before_write = undo.snapshot
    try:
        with tracing(trace), replay.replaying(trace):  # decompositions recorded once per structure
            out = I.run(fn, args, kwargs)
        rec.finish(I)
    except Exception as e:
        annotate(e, what or getattr(fn, "__qualname__", name))
        cap.draw_log.clear()  # drawn, as eager would have before failing: no prologue takes them
        raise
    finally:
        # Outside state goes back to how it was: the epilogue makes the writes, on every call.
        undo.restore()
        trace.interp = None
    trace.output = out if not trace.written else substitute(out, trace.written)  # (ir/trace.py Trace.written)
    if not rec.grad_mode_matters and not _holds_grad(cap):
        cap.guards[:] = [g for g in cap.guards if g.prov != GRAD_MODE]
    cap.specialize = trace.specialize  # passes after capture guard through it (ir.guarding)
    cap.equalities = trace.equalities
    if rec.numbers or rec.symbolic:
        trace.bound_symbols = list(without_unused_numbers(trace.bound_symbols, trace.output))
        from .transforms.numbers import materialize_numbers

        trace.bound_symbols = materialize_numbers(trace).bound_symbols
    cap.events, cap.outside = I.events, I.outside
    return cap
