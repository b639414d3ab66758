"""Traces: a program as a list of bound symbols, and its Python printer.

A :class:`Trace` is what the frontend records and every pass rewrites: input proxies
(``args``, plus keyword inputs ``kwargs``), the :class:`~thunder_core.ir.symbol.BoundSymbol`
list in program order, and an ``output`` (any nesting of tuples/lists/dicts of proxies
and constants). It also owns name generation, so every proxy name is unique in it.

Building a trace: make it current with ``tracing(trace)`` (a context variable, so threads
and nested traces do not interfere) and call symbols; each call records itself through
:func:`current_trace`. A symbol's decomposition runs inside :meth:`Trace.scope`, which
collects its bound symbols as subsymbols instead of appending them to the trace. The
frontend sets the user's source line for the calls it records with :meth:`Trace.at_source`.

Every trace prints as runnable Python (``print(trace)``)::

    # thunder_core trace 'fn'
    import torch
    import thunder_core.ops.prims as prims

    def fn(t0, t1):
      # t0: "cpu f32[2, 3]"
      # t1: "cpu f32[2, 3]"
      # model.py:12: 	return x + y
      t2 = prims.add(t0, t1)  # t2: "cpu f32[2, 3]"
      return t2

:meth:`Trace.python_callable` compiles that source once and binds each symbol to an
implementation, which is how traces run.

**Sub-traces.** A higher-order symbol (``higher_order.cond``, ``higher_order.while_loop``...;
see ``thunder_core.ops.higher_order``) takes functions: its bound symbol holds them as
:class:`Trace` values among its keyword arguments (static metadata, like a dim). A sub-trace is
*closed*: it reads only its own inputs (what its body read from the enclosing trace was made
an explicit input when it was traced). It prints as a function of its own, defined above the
trace's function and named by the call (``true_fn=cond_true0``); :func:`subtraces` lists a
bound symbol's sub-traces, and every pass either handles them or declines the symbol.
"""

from __future__ import annotations

import builtins
import itertools
import linecache
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any, Callable, Iterator, Mapping

import torch

from .printing import NAMESPACES, PRINTER_GLOBALS, PRINTERS, PrintingError, annotation, format_source, print_value
from .proxies import Proxy, flat_proxies, is_valid_name, proxy

__all__ = ["Trace", "tracing", "current_trace", "guarding", "current_guard_sink", "current_equalities", "use_hints",
           "subtraces", "all_subtraces"]

_CURRENT: ContextVar[Trace | None] = ContextVar("thunder_core_current_trace", default=None)
_GUARDS: ContextVar[Callable | None] = ContextVar("thunder_core_guard_sink", default=None)
_EQUALITIES: ContextVar[object] = ContextVar("thunder_core_equalities", default=None)
_COMPILED = itertools.count()
_INDENT = "  "


def current_trace() -> Trace | None:
    """The trace being built in this context, or None."""
    return _CURRENT.get()


@contextmanager
def tracing(trace: Trace) -> Iterator[Trace]:
    """Make ``trace`` the current trace: symbols called inside the block record into it.
    Blocks nest; leaving one restores the previous current trace."""
    token = _CURRENT.set(trace)
    try:
        yield trace
    finally:
        _CURRENT.reset(token)


def use_hints(p, kind, value) -> None:
    """The guard sink of checks that re-derive a trace already guarded (the verifier): a
    symbolic number takes this call's value, nothing is recorded."""


def current_guard_sink() -> Callable | None:
    """Where a symbolic number's specialisation is guarded when the current trace has no
    ``specialize`` hook (passes after capture, see :func:`guarding`), or None."""
    return _GUARDS.get()


def current_equalities():
    """The :class:`~thunder_core.ir.equalities.Equalities` of the capture being built or
    lowered (sizes unified by guards), or None."""
    trace = _CURRENT.get()
    found = getattr(trace, "equalities", None) if trace is not None else None
    return found if found is not None else _EQUALITIES.get()


@contextmanager
def guarding(sink: Callable, equalities=None) -> Iterator[None]:
    """Inside the block, ``sink(number_proxy, kind, value)`` records the guards that passes
    after capture need (autograd and decompositions re-running metas on symbolic shapes): a
    compile builds its prologue after lowering, so these guards are checked like the capture's.
    ``equalities``: the capture's :class:`~thunder_core.ir.equalities.Equalities`, which these
    guards extend."""
    token, etoken = _GUARDS.set(sink), _EQUALITIES.set(equalities)
    try:
        yield
    finally:
        _GUARDS.reset(token)
        _EQUALITIES.reset(etoken)


#: torch's quick test that autocast is on for some device type (where this torch lacks it:
#: always True, and each device type's state is read)
any_autocast = getattr(torch._C, "_is_any_autocast_enabled", lambda: True)
#: the device types torch.autocast keeps a state for
AUTOCAST_DEVICES = ("cpu", "cuda")


@dataclass(eq=False)
class Trace:
    """A traced program. See the module docstring.

    :param name: the printed function's name.
    :param args: positional input proxies, in order.
    :param kwargs: keyword inputs: keyword -> proxy.
    :param bound_symbols: the recorded calls, in program order.
    :param output: what the program returns (proxies and printable constants, nested).
    """

    name: str = "computation"
    args: list[Proxy] = field(default_factory=list)
    kwargs: dict[str, Proxy] = field(default_factory=dict)
    bound_symbols: list = field(default_factory=list)
    output: Any = None
    #: (filename, lineno, source_line) recorded on the calls made now; see at_source.
    current_source: tuple[str, int, str] | None = field(default=None, init=False, repr=False)
    #: Grad mode the trace was recorded under: outputs require grad only if it was on.
    grad_enabled: bool = True
    _names: set[str] = field(default_factory=set, init=False, repr=False)
    _counters: dict[str, int] = field(default_factory=dict, init=False, repr=False)
    _scopes: list[list] = field(default_factory=list, init=False, repr=False)
    #: A hook of the frontend building this trace: ``resolve_inputs(args, kwargs) -> (args,
    #: kwargs)`` replaces real values reaching a symbol call (a tensor the program got along a
    #: path the frontend did not see) by proxies, or raises saying why it cannot. None: no hook.
    resolve_inputs = None
    #: A hook of the frontend: ``cast_inputs(symbol, args, kwargs)`` -> ``(args, kwargs)`` cast
    #: as ``torch.autocast`` casts this op's inputs now, or None when it leaves the call alone
    #: (transforms/autocast.py). The symbol then runs with ``autocast_off`` set, as ATen runs
    #: an autocast op's body with autocast excluded.
    cast_inputs = None
    autocast_off = False
    #: The capture's :class:`~thunder_core.ir.equalities.Equalities` (symbolic sizes unified
    #: by guards) while it is being built, else None.
    equalities = None
    #: A hook of the frontend: ``known_value(tensor_proxy)`` -> the tensor's contents
    #: (``tolist()``) when the frontend knows and guards them (a small input tensor), else None.
    #: Ops whose result shapes depend on a tensor's values use it (``registry.known_value``).
    known_value = None
    #: A hook of the frontend: ``outside_attr(tensor_proxy, name)`` -> ``(True, value)`` with the
    #: attribute ``name`` of the real tensor the proxy stands for (an input: argument, parameter,
    #: buffer), read and guarded like any outside read (``.grad``: ops/opaque.py), else
    #: ``(False, None)`` for a tensor the function computed.
    outside_attr = None
    #: A hook of the frontend: ``assertion(tensor_proxy)`` -> the truth value the program goes
    #: on with when the proxy's truth test only decides whether an ``assert`` fails (a check
    #: of it is then recorded, ``ops/ltorch_checks.py``), else None (``Proxy.__bool__``).
    assertion = None
    #: A hook of the frontend: ``input_truth(tensor_proxy)`` -> the truth of the proxy where it
    #: is a cheap predicate of input tensors, decided on the real inputs and guarded (the
    #: prologue computes it again: ``guards/truth.py``), else None (``Proxy.__bool__``,
    #: ``.item()`` of a bool).
    input_truth = None
    #: ``{}`` to record each decomposition once per call structure and copy it for later calls
    #: of the same structure (``ir/replay.py``; the capture opts in), else None.
    decompositions = None
    #: id(tensor proxy) -> the result of an in-place op that wrote into it a value requiring
    #: grad where the tensor did not (``z = zeros(); z.add_(y)``), or changed its shape
    #: (``x.unsqueeze_(0)``), or of setting its data (``z.data = y``: ops/opaque.py). In eager
    #: ``z`` itself changes; here ``z``'s proxy keeps its metadata, so later calls take the
    #: write's result in its place (ir/symbol.py), as do the outputs and the epilogue's writes,
    #: and they are eager's. None until the first such write.
    written = None

    def __post_init__(self):
        if not is_valid_name(self.name):
            raise ValueError(f"Trace name {self.name!r} is not a valid Python identifier; it names the printed function.")
        self.args = list(self.args)
        self.kwargs = dict(self.kwargs)
        self.bound_symbols = list(self.bound_symbols)
        self._names.update(p.name for p in flat_proxies((self.args, self.kwargs)))
        names, stack = self._names, list(self.bound_symbols)
        while stack:  # names defined anywhere, decompositions and sub-traces included, stay taken
            bsym = stack.pop()
            for p in getattr(bsym, "flat_outs", ()):  # malformed: verify() reports
                names.add(p.name)
            stack += getattr(bsym, "subsymbols", ())
            kwargs = getattr(bsym, "kwargs", None)
            if kwargs:
                for sub in _subtraces_of(bsym):
                    names |= sub._names | {sub.name}

    # -- names --
    def make_name(self, prefix: str) -> str:
        """A fresh name ``<prefix><n>``, unique in this trace (``t0``, ``t1``...)."""
        n = self._counters.get(prefix, 0)
        while (name := f"{prefix}{n}") in self._names:
            n += 1
        if not is_valid_name(name) or name in PRINTER_GLOBALS:
            raise ValueError(f"Name prefix {prefix!r} does not produce valid proxy names (got {name!r}).")
        self._counters[prefix] = n + 1
        self._names.add(name)
        return name

    def reserve_name(self, name: str) -> str:
        """Claim an explicit ``name`` in this trace and return it; raises if it is taken or invalid."""
        if not is_valid_name(name) or name in PRINTER_GLOBALS:
            raise ValueError(f"{name!r} cannot name a proxy: names must be Python identifiers other than keywords "
                             f"and {', '.join(sorted(PRINTER_GLOBALS))}.")
        if name in self._names:
            raise ValueError(f"The name {name!r} is already used in trace {self.name!r}; proxy names must be unique. "
                             "Omit the name to get a fresh one.")
        self._names.add(name)
        return name

    def add_input(self, value, *, name: str | None = None, keyword: str | None = None) -> Proxy:
        """Append an input and return its proxy. ``value`` is a proxy, or a tensor/number to
        make one for (named ``name``, else the keyword if free, else fresh). With ``keyword``
        the input is a keyword input."""
        if isinstance(value, Proxy):
            p = value
            self._names.add(p.name)
        else:
            if name is None and keyword is not None and is_valid_name(keyword) and keyword not in self._names \
                    and keyword not in PRINTER_GLOBALS:
                name = keyword
            with tracing(self):
                p = proxy(value, name=name)
        if keyword is None:
            self.args.append(p)
        elif keyword in self.kwargs:
            raise ValueError(f"Trace {self.name!r} already has a keyword input {keyword!r}.")
        else:
            self.kwargs[keyword] = p
        return p

    # -- recording --
    def record(self, bsym) -> None:
        """Append a bound symbol to the innermost open scope (the trace itself if none)."""
        (self._scopes[-1] if self._scopes else self.bound_symbols).append(bsym)

    @contextmanager
    def scope(self) -> Iterator[list]:
        """Collect the bound symbols recorded inside the block into the yielded list instead
        of the enclosing scope (how decompositions become subsymbols)."""
        recorded: list = []
        self._scopes.append(recorded)
        try:
            yield recorded
        finally:
            self._scopes.pop()

    @contextmanager
    def at_source(self, source: tuple[str, int, str] | None) -> Iterator[None]:
        """Record ``source`` = (filename, lineno, source_line) on the calls made inside the block."""
        previous, self.current_source = self.current_source, (tuple(source) if source is not None else None)
        try:
            yield
        finally:
            self.current_source = previous

    def derive(self, **changes) -> Trace:
        """A new trace with this one's fields (lists and dicts copied) and name state, so names
        made in it never collide with this trace's; ``changes`` replace fields."""
        fields = dict(name=self.name, args=list(self.args), kwargs=dict(self.kwargs), grad_enabled=self.grad_enabled,
                      bound_symbols=list(self.bound_symbols), output=self.output)
        fields.update(changes)
        new = Trace(**fields)
        new._names |= self._names
        new._counters.update(self._counters)
        return new

    # -- printing and running --
    def python(self, print_subsymbols: bool = False) -> str:
        """This trace as Python source; with ``print_subsymbols`` each decomposition is shown
        as comments under its call."""
        return "\n".join(render(self, print_subsymbols)[0]) + "\n"

    def __str__(self) -> str:
        return self.python()

    def __repr__(self) -> str:
        return f"<Trace {self.name!r}: {len(self.args) + len(self.kwargs)} inputs, {len(self.bound_symbols)} bound symbols>"

    def python_callable(self, impls: Mapping[str, Callable] | None = None, boxed: bool = False) -> Callable:
        """Compile the printed source once and return the function it defines.

        ``impls`` maps symbol id -> implementation; each call in the trace runs its symbol's
        implementation. Without ``impls`` the calls go to the symbols themselves, so calling
        the function inside ``tracing(other)`` records the program again. Tracebacks show
        the printed trace's lines. ``boxed``: the function takes one list of the inputs and
        empties it, and drops each input after its last use, so the caller need not keep
        them alive (how a backward frees saved activations as it goes, like eager's).
        """
        source = "\n".join(render(self, free=True, boxed=boxed)[0]) + "\n"
        namespaces: dict[str, dict[str, Callable]] = {}
        bare: dict[str, Callable] = {}
        seen: dict[str, Any] = {}
        missing: list[str] = []
        calls: dict[str, list] = {}
        subs = all_subtraces(self)
        for bsym in [b for t in (*subs, self) for b in t.bound_symbols]:
            sym = bsym.sym
            other = seen.setdefault(sym.printed_name, sym)
            if other.id != sym.id:
                raise ValueError(f"Trace {self.name!r} calls two different symbols that both print as "
                                 f"{sym.printed_name}: {other.id!r} and {sym.id!r}. Give them distinct python_name "
                                 "or module so the printed source can tell them apart.")
            if impls is None:
                impl = sym
            elif sym.id in impls:
                impl = impls[sym.id]
                if getattr(impl, "specialize", None) is not None:
                    calls.setdefault(sym.id, []).append(bsym)
            else:
                missing.append(f"{sym.id} (printed as {sym.printed_name})")
                continue
            (bare if sym.module is None else namespaces.setdefault(sym.module, {}))[sym.python_name] = impl
        for bsyms in calls.values():
            # an implementation may offer a cheaper callable doing the same for these calls (the
            # torch function itself, without its generic argument handling: ops/registry.py)
            sym = bsyms[0].sym
            table = bare if sym.module is None else namespaces[sym.module]
            table[sym.python_name] = table[sym.python_name].specialize(bsyms) or table[sym.python_name]
        if missing:
            raise LookupError(f"Trace {self.name!r} cannot be compiled: `impls` has no implementation for "
                              f"{', '.join(sorted(set(missing)))}. Add entries keyed by these symbol ids.")
        filename = f"<thunder_core trace {self.name} #{next(_COMPILED)}>"
        linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
        g: dict[str, Any] = {"__name__": f"thunder_core_trace_{self.name}", "__builtins__": builtins}
        exec(compile(source, filename, "exec"), g)
        fn = g[self.name]
        for alias, attrs in namespaces.items():
            # a module object, not a SimpleNamespace: CPython specializes attribute loads on
            # modules, so `ltorch.mul(...)` costs what a global does (~0.1 us less per op)
            g[alias] = ns = ModuleType(f"{g['__name__']}.{alias}")
            ns.__dict__.update(attrs)
        g.update(bare)
        if impls is None:  # recording again: the higher-order symbols take their sub-traces themselves
            g.update((t.name, t) for t in subs)
        return fn


def render(trace: Trace, print_subsymbols: bool = False, free: bool = False,
           boxed: bool = False) -> tuple[list[str], dict[int, int]]:
    """The printed lines of ``trace`` and, for every printed bound symbol (by ``id()``), its
    1-based line number. Raises PrintingError naming the bound symbol that cannot print.
    ``free``: ``del`` each intermediate after its last use (what runs: memory is released as
    in eager, instead of when the function returns). Sub-traces print first, each as a
    function of its own (innermost first)."""
    subs = all_subtraces(trace)
    every = [b for t in (*subs, trace) for b in t.bound_symbols]
    lines = [f"# thunder_core trace {trace.name!r}", "import torch"]
    modules = sorted({b.sym.module for b in every if b.sym.module is not None})
    for alias in modules:
        if alias in NAMESPACES:
            lines.append(f"import {NAMESPACES[alias]} as {alias}")
        else:
            lines.append(f"# {alias}: no module registered in thunder_core.ir.printing.NAMESPACES; "
                         "Trace.python_callable binds it")
    bare = sorted({b.sym.python_name for b in every if b.sym.module is None})
    if bare:
        lines.append(f"# bound by Trace.python_callable: {', '.join(bare)}")
    line_of: dict[int, int] = {}
    for sub in subs:
        lines.append("")
        _render_function(sub, print_subsymbols, free, False, lines, line_of)
    lines.append("")
    _render_function(trace, print_subsymbols, free, boxed, lines, line_of)
    return lines, line_of


def _render_function(trace: Trace, print_subsymbols: bool, free: bool, boxed: bool, lines: list,
                     line_of: dict) -> None:
    params = [p.name for p in trace.args]
    if trace.kwargs:
        params += ["*", *trace.kwargs]
    if boxed:
        if trace.kwargs:
            raise ValueError(f"Trace {trace.name!r} has keyword inputs; a boxed function takes positional ones only.")
        lines.append(f"def {trace.name}(inputs):")
    else:
        lines.append(f"def {trace.name}({', '.join(params)}):")
    for p in [*trace.args, *trace.kwargs.values()]:
        lines.append(f"{_INDENT}# {p.name}: {annotation(p)}")
    if boxed:
        lines += [f"{_INDENT}{''.join(n + ', ' for n in params)}= inputs", f"{_INDENT}inputs.clear()"]
    for keyword, p in trace.kwargs.items():
        if p.name != keyword:
            lines.append(f"{_INDENT}{p.name} = {keyword}")
    last_source = None
    dead_after = _dead_after(trace, boxed) if free else {}
    if -1 in dead_after:  # inputs nothing reads
        lines.append(f"{_INDENT}del {', '.join(dead_after[-1])}")
    for i, bsym in enumerate(trace.bound_symbols):
        if bsym.header:
            lines += [f"{_INDENT}# {h}" for h in bsym.header.splitlines()]
        if bsym.source is not None and bsym.source != last_source:
            lines.append(f"{_INDENT}# {format_source(bsym.source)}")
        last_source = bsym.source
        _render_bsym(trace, bsym, f"top-level bound symbol {i}", _INDENT, "", lines, line_of, print_subsymbols)
        if i in dead_after:
            lines.append(f"{_INDENT}del {', '.join(dead_after[i])}")
    try:
        lines.append(f"{_INDENT}return {print_value(trace.output)}")
    except PrintingError as e:
        raise PrintingError(f"Cannot print the output of trace {trace.name!r}: {e}") from None


def _subtraces_of(bsym) -> list:
    return [v for v in getattr(bsym, "kwargs", {}).values() if isinstance(v, Trace)]


def subtraces(bsym) -> dict:
    """``{keyword: Trace}``: the sub-traces a higher-order bound symbol holds (see the module
    docstring); empty for any other bound symbol."""
    return {k: v for k, v in bsym.kwargs.items() if isinstance(v, Trace)}


def all_subtraces(trace: Trace) -> list:
    """Every sub-trace the top-level bound symbols of ``trace`` hold, recursively, innermost
    first, each once. Raises PrintingError when two different sub-traces share a name (they
    print as functions of one module)."""
    out: list = []
    names: dict[str, Trace] = {}

    def visit(t):
        for b in t.bound_symbols:
            for sub in _subtraces_of(b):
                if names.get(sub.name) is sub:
                    continue
                if sub.name in names or sub.name == trace.name:
                    raise PrintingError(f"Trace {trace.name!r} holds two different sub-traces named {sub.name!r}; "
                                        "sub-traces print as functions of one module, so their names must differ "
                                        "(name them with trace.make_name).")
                visit(sub)
                names[sub.name] = sub
                out.append(sub)

    visit(trace)
    return out


#: a sub-trace passed to a higher-order symbol prints as the name of the function it defines
PRINTERS[Trace] = lambda t: t.name


def _dead_after(trace: Trace, inputs_too: bool = False) -> dict[int, list[str]]:
    """position -> names of intermediates last used (or defined, if never used) there; with
    ``inputs_too`` inputs as well (position -1: inputs nothing reads)."""
    keep = {id(p) for p in flat_proxies(trace.output if inputs_too else (trace.args, trace.kwargs, trace.output))}
    last: dict[int, tuple[int, str]] = {}
    if inputs_too:
        for p in flat_proxies(trace.args):
            last[id(p)] = (-1, p.name)
    for i, b in enumerate(trace.bound_symbols):
        for p in getattr(b, "flat_outs", ()):
            last[id(p)] = (i, p.name)
        for p in getattr(b, "flat_args", ()):
            if id(p) in last:
                last[id(p)] = (i, p.name)
    out: dict[int, list[str]] = {}
    for key, (i, name) in last.items():
        if key not in keep:
            out.setdefault(i, []).append(name)
    return {i: sorted(set(names)) for i, names in out.items()}


def _render_bsym(trace, bsym, where, indent, comment, lines, line_of, print_subsymbols):
    try:
        text = bsym.python()
    except PrintingError as e:
        made = " (your line " + format_source(bsym.source).replace("\t", "") + ")" if bsym.source else ""
        raise PrintingError(f"Cannot print {where} ({bsym.sym.id}) of trace {trace.name!r}{made}: {e}") from None
    line_of[id(bsym)] = len(lines) + 1
    lines.append(f"{indent}{comment}{text}")
    if print_subsymbols:
        for j, sub in enumerate(bsym.subsymbols):
            _render_bsym(trace, sub, f"subsymbol {j} of {where}", indent + _INDENT, "# ", lines, line_of, True)
