"""The IR verifier: checks the invariants every pass must preserve.

``verify(trace)`` returns None for a well-formed trace and otherwise raises
:class:`IRVerificationError` naming the first offending bound symbol, its line in the
printed trace (with an excerpt) and what to fix. Tests run it after every transform, so a
broken invariant fails at the pass that broke it. It checks:

* inputs are distinct proxies; every proxy a bound symbol reads is defined earlier in its
  scope (a trace input or an earlier output) and is that very object, not a namesake;
* every name is defined once in the whole trace, decompositions included, and is printable
  (an identifier, not a keyword, not a name the printed source needs such as ``torch``);
* outputs of bound symbols are proxies (nested in tuples/lists); the trace's output reads
  only defined proxies;
* re-running the symbol's meta function (or its decomposition, if it has no meta) on the
  bound symbol's inputs gives outputs with the same structure and metadata (shape, dtype,
  device, requires_grad; a number's type and known value);
* a symbolic number (``cache="symbolic values"``) may be read anywhere: it is a function of
  the trace's numbers and tensor sizes (its ``expr``), computed at the top level where an
  executor needs it (``transforms.numbers.materialize_numbers``), also when a decomposition
  made it first;
* the calling convention (see ``thunder_core.ir.symbol``): no proxy is passed by keyword
  (except symbolic numbers inside static metadata, the sizes of a symbolic shape),
  no dtype/device/layout/memory format/string positionally, keyword names are identifiers;
* subsymbols satisfy all of this in their own scope (what is visible before their parent
  call, plus their own outputs) and define every output of their parent;
* sub-traces of higher-order bound symbols (``ir.trace.subtraces``) satisfy all of this as
  traces of their own: each is closed (reads only its inputs and what it computes) and names a
  function of the printed module;
* the trace prints as Python.
"""

from __future__ import annotations

import torch

from .printing import PRINTER_GLOBALS, PrintingError
from .proxies import NumberProxy, Proxy, TensorProxy, flat_proxies, is_valid_name
from .symbol import BoundSymbol, Symbol, without_grad
from .trace import Trace, guarding, render, subtraces, tracing, use_hints

__all__ = ["verify", "IRVerificationError", "STATIC_METADATA_TYPES"]

#: Values that are static metadata and so must be passed by keyword.
STATIC_METADATA_TYPES = (torch.dtype, torch.device, torch.layout, torch.memory_format, str)


class IRVerificationError(Exception):
    """A trace breaks an IR invariant. The message names the bound symbol, its printed line
    and the fix; ``bsym`` is the offending bound symbol (None for trace-level problems)."""

    def __init__(self, message: str, bsym: BoundSymbol | None = None):
        super().__init__(message)
        self.bsym = bsym


def verify(trace: Trace) -> None:
    """Check ``trace`` (see the module docstring); raises :class:`IRVerificationError`."""
    _Verifier(trace).run()


def _leaves(x):
    """Non-container leaves of x (through tuples, lists, dict values)."""
    if isinstance(x, (tuple, list)):
        for y in x:
            yield from _leaves(y)
    elif isinstance(x, dict):
        for y in x.values():
            yield from _leaves(y)
    else:
        yield x


class _Verifier:
    def __init__(self, trace: Trace):
        self.trace = trace
        self.defined: dict[str, Proxy] = {}  # every name defined anywhere so far
        top = [b for b in trace.bound_symbols if isinstance(b, BoundSymbol)]
        self.reserved = PRINTER_GLOBALS | {b.sym.module for b in top if b.sym.module} \
            | {b.sym.python_name for b in top if b.sym.module is None}
        self.path: list[tuple[int, BoundSymbol]] = []  # enclosing bound symbols, outermost first

    # -- reporting --
    def fail(self, bsym: BoundSymbol | None, problem: str, fix: str):
        t = self.trace
        if bsym is None:
            raise IRVerificationError(f"Trace {t.name!r} is invalid: {problem}. {fix}")
        where = " in ".join(f"subsymbol {i}" for i, _ in reversed(self.path[1:]))
        where = f"{where} of bound symbol {self.path[0][0]}" if where else f"bound symbol {self.path[0][0]}"
        nested = len(self.path) > 1
        try:
            lines, line_of = render(t, print_subsymbols=nested)
        except PrintingError as e:
            excerpt, at = f"(the trace cannot be printed: {e})", ""
        else:
            n = line_of[id(bsym)]
            at = f", line {n} of trace.python({'print_subsymbols=True' if nested else ''})"
            excerpt = "\n".join(f"{'>>' if k == n else '  '} {k:3d} | {lines[k - 1]}"
                                for k in range(max(1, n - 4), min(len(lines), n + 2) + 1))
        raise IRVerificationError(
            f"Trace {t.name!r} is invalid at {where} ({bsym.sym.id}){at}: {problem}. {fix}\n{excerpt}", bsym)

    # -- walk --
    def run(self):
        t = self.trace
        visible: dict[str, Proxy] = {}
        for i, p in enumerate([*t.args, *t.kwargs.values()]):
            if not isinstance(p, Proxy):
                self.fail(None, f"input {i} is {p!r:.60} (a {type(p).__qualname__}), not a proxy",
                          "Trace inputs must be proxies; make one with Trace.add_input.")
            self.define(None, p, visible, "input")
        for keyword, p in t.kwargs.items():
            if not is_valid_name(keyword) or keyword in self.reserved:
                self.fail(None, f"keyword input {keyword!r} cannot be a parameter of the printed function",
                          "Use an identifier that is not a keyword or a name the printed source needs.")
            if keyword != p.name and keyword in self.defined:
                self.fail(None, f"keyword input {keyword!r} has the same name as the proxy {keyword}",
                          "Rename one of them so the printed parameter does not shadow the proxy.")
        self.walk(t.bound_symbols, visible)
        for p in flat_proxies(t.output):
            if visible.get(p.name) is not p:
                what = "is never defined" if p.name not in visible else "is not the proxy defined under that name"
                self.fail(None, f"its output uses {p.name}, which {what} at the top level of the trace",
                          "The output may only read trace inputs and outputs of top-level bound symbols; check "
                          "that the pass which produced this trace updated trace.output.")
        try:
            render(t, print_subsymbols=True)
        except PrintingError as e:
            self.fail(None, f"it cannot be printed as Python: {e}", "Printing is how traces run, so every value "
                      "in a trace must be printable.")

    def walk(self, bsyms, visible: dict[str, Proxy]):
        for i, bsym in enumerate(bsyms):
            if not isinstance(bsym, BoundSymbol) or not isinstance(bsym.sym, Symbol):
                what = f"subsymbol {i} of {self.path[-1][1].sym.id}" if self.path else f"its bound symbol {i}"
                self.fail(None, f"{what} is {bsym!r:.60}, not a BoundSymbol of a Symbol",
                          "Build bound symbols by calling symbols while tracing.")
            self.path.append((i, bsym))
            if "opaque" not in bsym.sym.tags:  # opaque ops keep the user's own call form
                self.check_convention(bsym)
            for key, sub in subtraces(bsym).items():
                self.check_subtrace(bsym, key, sub)
            for p in bsym.flat_args:
                d = visible.get(p.name)
                if d is None and type(p) is NumberProxy and p.symbolic:
                    continue  # a function of the inputs and sizes: materialize_numbers computes it where needed
                if d is None:
                    later = "" if p.name not in self.defined else " (it is defined, but not in this scope)"
                    self.fail(bsym, f"it uses {p.name} before it is defined{later}",
                              f"Every proxy a call reads must be a trace input or an output of an earlier call in "
                              f"the same scope; the pass that produced this trace must keep or move the call "
                              f"defining {p.name} before this one.")
                if d is not p:
                    self.fail(bsym, f"it uses a proxy named {p.name} that is not the proxy defined under that name",
                              "Two different proxies share a name; a pass must reuse the defining proxy object "
                              "or give new proxies fresh names with trace.make_name.")
            for bad in _non_proxy_output(bsym.output):
                self.fail(bsym, f"its output contains {bad!r:.60}, which is not a proxy",
                          "A bound symbol's output is a proxy, a nested tuple/list of proxies, or None.")
            inner = None
            if bsym.subsymbols:
                inner = dict(visible)
                self.walk(bsym.subsymbols, inner)
                for p in bsym.flat_outs:
                    if inner.get(p.name) is not p:
                        self.fail(bsym, f"its subsymbols do not compute its output {p.name}",
                                  "A decomposition must return exactly the proxies its bound symbol outputs.")
            for p in bsym.flat_outs:
                from_subsymbols = inner is not None and inner.get(p.name) is p and p.name not in visible
                # the same symbolic number computed again (materialized at the top level, or by a
                # recomputed decomposition): the same value, from the same inputs
                again = type(p) is NumberProxy and p.symbolic and self.defined.get(p.name) is p
                if not again and (p.name in visible or (p.name in self.defined and not from_subsymbols)):
                    self.fail(bsym, f"it defines {p.name}, which is already defined",
                              "Every name is assigned once (decompositions included); give the new value a fresh "
                              "name with trace.make_name.")
                self.define(bsym, p, visible, "output")
            self.check_meta(bsym)
            self.path.pop()

    def define(self, bsym, p: Proxy, visible: dict[str, Proxy], what: str):
        if not is_valid_name(p.name) or p.name in self.reserved:
            self.fail(bsym, f"{what} name {p.name!r} cannot be a variable of the printed trace",
                      f"Proxy names must be identifiers other than keywords and {', '.join(sorted(self.reserved))}.")
        if bsym is None and p.name in self.defined:
            self.fail(None, f"the input name {p.name} is defined twice", "Each input needs its own name.")
        visible[p.name] = p
        self.defined[p.name] = p

    def check_subtrace(self, bsym: BoundSymbol, key: str, sub: Trace):
        if not is_valid_name(sub.name) or sub.name in self.reserved or sub.name in self.defined:
            self.fail(bsym, f"its sub-trace {key}={sub.name!r} cannot name a function of the printed trace",
                      "Name sub-traces with trace.make_name so they differ from every variable and namespace.")
        try:
            _Verifier(sub).run()
        except IRVerificationError as e:
            self.fail(bsym, f"its sub-trace {key}={sub.name} is invalid:\n{e}",
                      "A sub-trace is a closed trace: fix the pass (or the higher-order op) that built it.")

    def check_convention(self, bsym: BoundSymbol):
        rule = "The calling convention is: tensors and numbers positional, static metadata by keyword."
        for k, v in bsym.kwargs.items():
            if not is_valid_name(k):
                self.fail(bsym, f"its keyword argument name {k!r} is not an identifier", rule)
            for p in flat_proxies(v):
                if type(p) is NumberProxy and p.symbolic:
                    continue  # a symbolic size inside static metadata (shape=(n, 64)): defined like an input
                self.fail(bsym, f"it passes the proxy {p.name} by keyword ({k}=...)", rule)
        for leaf in _leaves(bsym.args):
            if isinstance(leaf, STATIC_METADATA_TYPES):
                self.fail(bsym, f"it passes the static value {leaf!r} positionally", rule)

    def check_meta(self, bsym: BoundSymbol):
        sym = bsym.sym
        rule, kind = (sym.meta, "meta function") if sym.meta is not None else (sym.decomposition, "decomposition")
        try:
            # a symbolic number's branches were guarded when the trace was made: here they take
            # this call's values (the sink ignores them)
            with tracing(Trace(name="verify_scratch")), guarding(use_hints), \
                    torch.set_grad_enabled(self.trace.grad_enabled):
                expected = rule(*bsym.args, **bsym.kwargs)
                if not self.trace.grad_enabled:
                    expected = without_grad(expected)
        except Exception as e:  # noqa: BLE001 - any failure of the rule is the finding
            self.fail(bsym, f"re-running {sym.id}'s {kind} on its inputs raised {type(e).__name__}: {e}",
                      "The inputs do not satisfy the symbol's rule: the pass that built this call passed "
                      "arguments the op does not accept.")
        diff = _diff(bsym.output, expected, "the output")
        if diff and self.trace.grad_enabled and not _diff(bsym.output, without_grad(expected), "the output"):
            diff = None  # a call the program made under torch.no_grad(): none of its outputs requires grad
        if diff:
            self.fail(bsym, f"its outputs do not match its {kind}: {diff}",
                      "A pass changed the inputs or outputs of this call inconsistently; rebuild the call by "
                      "calling the symbol while tracing so its outputs come from the rule.")


def _non_proxy_output(out) -> list:
    """``[part]`` for the first part of a bound symbol's output that is neither a proxy nor a
    tuple/list (None allowed only as the whole output), else ``[]``."""
    if out is None:
        return []
    stack = [out]
    while stack:
        x = stack.pop()
        if type(x) in (tuple, list):
            stack += reversed(x)
        elif not isinstance(x, Proxy):
            return [x]
    return []


def _describe(x) -> str:
    if isinstance(x, TensorProxy):
        return f"a tensor {list(x.shape)} {x.dtype} on {x.device}{' requiring grad' if x.requires_grad else ''}"
    if isinstance(x, NumberProxy):
        return f"a number ({x.python_type.__name__}{'' if x.value is None else ' ' + repr(x.value)})"
    if isinstance(x, (tuple, list)):
        return f"a {type(x).__name__} of length {len(x)}"
    return repr(x)


def _diff(actual, expected, where: str) -> str | None:
    """How ``actual`` differs from what the rule returned, or None."""
    if isinstance(expected, (tuple, list)):
        if type(actual) is not type(expected) or len(actual) != len(expected):
            return f"{where} is {_describe(actual)} but the rule returns {_describe(expected)}"
        for k, (a, e) in enumerate(zip(actual, expected)):
            d = _diff(a, e, f"{where}[{k}]")
            if d:
                return d
        return None
    if expected is None:
        return None if actual is None else f"{where} is {_describe(actual)} but the rule returns None"
    name = actual.name if isinstance(actual, Proxy) else where
    if isinstance(expected, TensorProxy) and isinstance(actual, TensorProxy):
        for attr in ("shape", "dtype", "device", "requires_grad"):
            a, e = getattr(actual, attr), getattr(expected, attr)
            if a != e:  # (shapes as tuples: their sizes by trace name, as the trace prints them)
                a, e = (tuple(a), tuple(e)) if attr == "shape" else (a, e)
                return f"{name} has {attr} {a} but the rule gives {e}"
        return None
    if isinstance(expected, NumberProxy) and isinstance(actual, NumberProxy):
        if actual.python_type is not expected.python_type:
            return f"{name} is a {actual.python_type.__name__} but the rule gives a {expected.python_type.__name__}"
        if None not in (actual.value, expected.value) and actual.value != expected.value:
            return f"{name} has value {actual.value!r} but the rule gives {expected.value!r}"
        return None
    return f"{name} is {_describe(actual)} but the rule returns {_describe(expected)}"
