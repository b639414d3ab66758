"""What a traced call depends on: the guard kinds, :class:`Guard` and :class:`Capture`, the
record ``capture.capture`` produces and the prologue and epilogue are generated from.

``Capture``:

* ``trace``: the computation trace; its inputs are the proxies of every tensor the function
  read from outside, in order of first use, and its output is what the function returned;
* ``inputs``: for each trace input, the provenance of the tensor (how the prologue fetches it);
* ``guards``: everything else the trace depends on (values of Python numbers/strings read from
  outside, identities, types, lengths, tensor metadata, process state), one :class:`Guard` each;
* ``events``/``outside``: the interpreter's event log and provenance table (writes the epilogue
  replays, objects it fetches again).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..frontend.provenance import ARG, Provenance
from ..ir import Trace
from .predicates import describe

# guard kinds
TENSOR = "tensor"        # value: (shape, dtype, device, requires_grad)
EQUALS = "equals"        # value: a number/str/None/dtype/device compared by type and ==
IDENTITY = "identity"    # value: the object itself (functions, modules, classes)
TYPE = "type"            # value: the object's type
LENGTH = "length"        # value: len() of a container
SAME_AS = "same-as"      # value: provenance of the first path to the same tensor
NO_HOOKS = "no-hooks"    # nn.Module without hooks (value: None)
BOUND = "bound"          # the path must still exist (a global or cell the function deletes)
VALUES = "values"        # value: a small tensor's contents (tolist()) an op's result shapes depend on
PREDICATE = "predicate"  # prov None; value: (symbolic NumberProxy, "truth" | "equals", its value this call)
TRUTH = "truth"          # prov None; value: guards/truth.Truth, a tensor predicate of inputs and its truth
DRAWN = "drawn"          # prov: FRESH; value: the Draw. The prologue makes the call there (guards/fresh.py)
                         # and checks that it gives a value again (or raises the same exception type)

@dataclass
class Guard:
    prov: Provenance
    kind: str
    value: object

    def describe(self) -> str:
        if self.kind == TENSOR:
            shape, dtype, device, rg = self.value
            return f"tensor {tuple(shape)} {dtype} {device}{' requires_grad' if rg else ''}"
        if self.kind == VALUES:
            return f"values {self.value!r:.60}"
        if self.kind == PREDICATE:
            return describe(*self.value)
        if self.kind == TRUTH:
            return self.value.describe()
        if self.kind == DRAWN:
            d = self.value
            return f"{d.name}(...) {'raises ' + d.raised.__name__ if d.raised else 'gives a value'}"
        if self.kind in (IDENTITY, TYPE):
            v = self.value
            return f"{self.kind} {getattr(v, '__qualname__', None) or type(v).__name__}"
        return f"{self.kind} {self.value!r}"


@dataclass
class Draw:
    """A fresh value of the call: ``fn(*args, **kwargs)``, made by the prologue on every call at
    its place in program order (guards/fresh.py). ``args``/``kwargs`` as the program passed them
    (symbolic numbers, outside objects: the prologue computes and fetches them again);
    ``value`` what it gave while tracing, or ``raised`` the type of the exception it raised;
    ``site`` (filename, line, function) of the user's line that made it."""
    prov: Provenance
    name: str
    fn: object
    args: tuple
    kwargs: dict
    value: object
    raised: type | None
    site: tuple

    def __eq__(self, other):  # the same call, the same kind of outcome (values differ on every call)
        return isinstance(other, Draw) and other.fn is self.fn and other.raised is self.raised

    __hash__ = object.__hash__


@dataclass
class Nested:
    """A jitted function called by the traced one (traced inline): the JittedFunction, the
    range of the interpreter's events its call made, and the bound symbols it recorded."""
    jitted: object
    events: tuple
    bound_symbols: list

    def view(self, cap: "Capture") -> "Capture":
        """``cap`` as if only this call had been traced (for its sharp-edge checkers)."""
        a, b = self.events
        return Capture(cap.trace.derive(bound_symbols=list(self.bound_symbols)), cap.inputs, cap.guards,
                       cap.events[a:b], cap.outside, getattr(self.jitted, "__qualname__", cap.fn_name), cap.arg_names)


@dataclass
class Capture:
    trace: Trace
    inputs: list = field(default_factory=list)     # [(Provenance, TensorProxy | symbolic NumberProxy)]
    guards: list = field(default_factory=list)     # [Guard]
    events: list = field(default_factory=list)     # the interpreter's event log
    outside: dict = field(default_factory=dict)    # the interpreter's id -> (object, provenance) table
    fn_name: str = "fn"
    arg_names: list = field(default_factory=list)  # parameter names of the positional arguments
    specialize: object = None  # guards a symbolic number's value needed after capture (ir.guarding)
    equalities: object = None  # sizes unified by guards (ir.equalities), extended after capture too
    notes: list = field(default_factory=list)      # what tracing chose and why, for tc.explain
    nested: list = field(default_factory=list)     # [Nested]: jitted functions called inside, traced inline
    draws: list = field(default_factory=list)      # [Draw] in program order (their guards are DRAWN)
    epilogue_draws: list = field(default_factory=list)  # [Provenance] of draws the epilogue uses (objects)
    draw_log: object = None                        # guards/fresh.DrawLog the prologue draws through
    autocast: dict = field(default_factory=dict)   # {device type: dtype} torch.autocast was on for when traced

    def describe_path(self, prov) -> str:
        """``args[0].fc.weight`` with the root argument named: ``argument x`` / ``x.fc.weight``."""
        if prov is None:
            return "a symbolic number"
        text = repr(prov)
        root = prov.root
        if root.kind == ARG and root.key < len(self.arg_names):
            name = self.arg_names[root.key]
            text = name + text[len(repr(root)):]
            return f"argument {text}" if prov is root else text
        return text
