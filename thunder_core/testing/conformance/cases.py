"""What one drawn example is: tensors as recipes, calls as data, programs as generated source.

Every value here has a ``repr`` that is Python evaluating to an equal value (with ``torch``,
``nan``, ``inf`` and these classes in scope), so the minimal example hypothesis prints is also
a reproducer: ``reproduce("EXECUTOR", <the printed case>)`` (``repro.py``).

* :class:`TensorSpec`: a tensor's shape, dtype, values (a seed, a scale, and special values
  at chosen positions) and layout (contiguous, transposed, expanded, offset, strided).
* :class:`Case`: one call of a torch-level symbol (symbol id, its inputs in the symbol's
  convention with tensors as specs, static keywords), optionally followed by a *partner* op
  on its first output (so that an executor claiming only regions of two or more symbols
  claims it), and whether gradients are checked.
* :class:`ChainCase`: a chain of elementwise symbols with broadcasting inputs (fusion).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import torch

from . import targets

LAYOUTS = ("contiguous", "transposed", "expanded", "offset", "strided")


def _r(x) -> str:
    """repr that evaluates back (floats nan/inf, dtypes, nested tuples)."""
    if isinstance(x, float):
        if math.isnan(x):
            return "nan"
        if math.isinf(x):
            return "inf" if x > 0 else "-inf"
        return repr(x)
    if isinstance(x, torch.dtype):
        return str(x)
    if isinstance(x, tuple):
        return "(" + "".join(_r(y) + ", " for y in x).rstrip(", ") + ("," if len(x) == 1 else "") + ")"
    if isinstance(x, list):
        return "[" + ", ".join(_r(y) for y in x) + "]"
    if isinstance(x, dict):
        return "{" + ", ".join(f"{k!r}: {_r(v)}" for k, v in x.items()) + "}"
    return repr(x)


@dataclass(frozen=True)
class TensorSpec:
    shape: tuple
    dtype: torch.dtype = torch.float32
    seed: int = 0
    scale: float = 1.0
    specials: tuple = ()         # ((flat index, value), ...)
    layout: str = "contiguous"

    def __repr__(self):
        parts = [f"{_r(tuple(self.shape))}", f"{_r(self.dtype)}"]
        if self.seed:
            parts.append(f"seed={self.seed}")
        if self.scale != 1.0:
            parts.append(f"scale={_r(self.scale)}")
        if self.specials:
            parts.append(f"specials={_r(self.specials)}")
        if self.layout != "contiguous":
            parts.append(f"layout={self.layout!r}")
        return f"TensorSpec({', '.join(parts)})"

    def values(self) -> torch.Tensor:
        """The values, contiguous, with this spec's shape and dtype."""
        g = torch.Generator().manual_seed(self.seed)
        n = math.prod(self.shape)
        if self.dtype == torch.bool:
            flat = torch.randint(0, 2, (n,), generator=g).bool()
        elif self.dtype.is_floating_point:
            flat = (torch.randn(n, generator=g, dtype=torch.float64) * self.scale).to(self.dtype)
        else:
            flat = torch.randint(-4, 5, (n,), generator=g).to(self.dtype)
        for k, v in self.specials:
            if n:
                flat[k % n] = v
        return flat.reshape(self.shape)

    def build(self, requires_grad: bool = False) -> torch.Tensor:
        """The tensor, laid out as ``layout`` says (same values whatever the layout), on the kit's
        device (``targets.DEVICE``: the values are drawn on the CPU, then moved)."""
        v = self.values().to(targets.DEVICE)
        shape, nd = tuple(self.shape), len(self.shape)
        if self.layout == "transposed" and nd >= 2:
            t = v.transpose(-1, -2).contiguous().transpose(-1, -2)
        elif self.layout == "expanded" and nd >= 1 and shape[0] != 0:
            # the values along dim 0 repeat: an expanded tensor holds one row
            row = v[:1]
            t = row.expand(shape)
        elif self.layout == "offset":
            base = torch.zeros(v.numel() + 3, dtype=self.dtype, device=v.device)
            base[3:] = v.reshape(-1)
            t = base[3:].view(shape)
        elif self.layout == "strided" and nd >= 1:
            big = torch.zeros((*shape[:-1], 2 * shape[-1]), dtype=self.dtype, device=v.device)
            big[..., ::2] = v
            t = big[..., ::2]
        else:
            t = v.clone()
        if requires_grad and self.dtype.is_floating_point:
            # a leaf with the same layout: the expanded view is rebuilt from a leaf row
            if self.layout == "expanded" and nd >= 1 and shape[0] != 0:
                leaf = v[:1].clone().requires_grad_()
                return leaf.expand(shape)
            t = t.detach().requires_grad_()
        return t


def build_all(x, requires_grad=False, out=None):
    """``x`` with every TensorSpec built; the built tensors are appended to ``out``."""
    if isinstance(x, TensorSpec):
        t = x.build(requires_grad)
        if out is not None:
            out.append(t)
        return t
    if isinstance(x, (list, tuple)):
        return type(x)(build_all(y, requires_grad, out) for y in x)
    if isinstance(x, dict):
        return {k: build_all(v, requires_grad, out) for k, v in x.items()}
    return x


#: partner ops applied to a symbol's first output (name -> torch callable, one tensor in)
PARTNERS = {"neg": torch.neg, "mul": lambda v: v * v, "exp": torch.exp, "sum": torch.sum, "abs": torch.abs}


@dataclass(frozen=True)
class Case:
    """One call of symbol ``symbol``: ``inputs`` are its positional inputs (tensor specs,
    numbers, None), ``statics`` its static keywords, in the symbol's calling convention."""

    symbol: str
    inputs: tuple
    statics: dict = field(default_factory=dict)
    partner: str | None = None
    grad: bool = False

    def __repr__(self):
        extra = "".join([f", statics={_r(self.statics)}" if self.statics else "",
                         f", partner={self.partner!r}" if self.partner else "", ", grad=True" if self.grad else ""])
        return f"Case({self.symbol!r}, {_r(tuple(self.inputs))}{extra})"

    def program(self):
        """(fn, template): ``fn(*tensors)`` calls the symbol's torch function (and the partner),
        generated as source so that tc.jit sees a plain call."""
        from thunder_core.ops.registry import OPDEFS

        opdef = OPDEFS[self.symbol]
        slots: list = []

        def slot(x):
            if isinstance(x, TensorSpec):
                slots.append(x)
                return _Name(f"t{len(slots) - 1}")
            if isinstance(x, (list, tuple)):
                return type(x)(slot(y) for y in x)
            return x

        pos = [slot(x) for x in self.inputs]
        args, kwargs = opdef.to_torch_call(pos, dict(self.statics))
        # trailing arguments left at their defaults are not passed (torch takes some by keyword only)
        params = [opdef.signature.parameters[n] for n in opdef.positional]
        while len(args) > len(pos) and len(args) <= len(params) and not isinstance(args[-1], _Name) and \
                args[-1] is params[len(args) - 1].default:
            args.pop()
        fn = torch_function(self.symbol)
        if fn is None:
            raise LookupError(f"no torch callable reaches {self.symbol} directly")
        consts: dict = {"F": fn}
        call = f"F({', '.join([*(_src(a, consts) for a in args), *(f'{k}={_src(v, consts)}' for k, v in kwargs.items())])})"
        if self.partner is not None:
            consts["P"] = PARTNERS[self.partner]
            call = f"P(_first({call}))"
            consts["_first"] = _first
        params = ", ".join(f"t{k}" for k in range(len(slots)))
        src = f"def conformance_call({params}):\n    return {call}\n"
        exec(compile(src, f"<conformance {self.symbol}>", "exec"), consts)
        return consts["conformance_call"], slots


def torch_function(sid):
    """The torch callable a program calls to reach symbol ``sid``: its OpDef's torch function,
    or else a torch callable whose jit entry records it (``F.silu`` for ``ltorch.silu``); None
    for symbols no torch callable reaches directly (backward kernels)."""
    from thunder_core.ops.registry import OPDEFS, TORCH_CALLS

    fn = OPDEFS[sid].torch_fn
    if callable(fn):
        return fn
    def reaches(entry):
        if getattr(getattr(entry, "symbol", None), "id", None) == sid:
            return True
        # an entry routing between symbols (F.silu -> silu or silu_ by `inplace`) holds them
        cells = getattr(entry, "__closure__", None) or ()
        return any(getattr(getattr(c.cell_contents, "symbol", None), "id", None) == sid for c in cells)

    found = [f for f, entry in TORCH_CALLS.items() if callable(f) and reaches(entry)]
    found.sort(key=lambda f: getattr(f, "__qualname__", "").startswith("Tensor."))  # functions first
    return found[0] if found else None


def _first(x):
    return x if isinstance(x, torch.Tensor) else x[0]


class _Name:
    def __init__(self, name):
        self.name = name


def _src(x, consts) -> str:
    if isinstance(x, _Name):
        return x.name
    if isinstance(x, (list, tuple)):
        inner = ", ".join(_src(y, consts) for y in x)
        return f"({inner},)" if isinstance(x, tuple) and len(x) == 1 else (f"({inner})" if isinstance(x, tuple)
                                                                        else f"[{inner}]")
    if x is None or isinstance(x, (bool, int, str)) or (isinstance(x, float) and math.isfinite(x)):
        return repr(x)
    name = f"c{len(consts)}"
    consts[name] = x
    return name


@dataclass(frozen=True)
class ChainCase:
    """``v = x0; v = op_k(v[, operand_k])`` for each step: operands are input specs (which may
    broadcast against ``v``), numbers, or ``"v<j>"`` naming an earlier result."""

    steps: tuple                 # ((symbol id, operand or None), ...)
    inputs: tuple                # TensorSpecs: inputs[0] starts the chain
    grad: bool = False

    def __repr__(self):
        return f"ChainCase({_r(tuple(self.steps))}, {_r(tuple(self.inputs))}{', grad=True' if self.grad else ''})"

    @property
    def symbol(self) -> str:
        return "fusion:" + "+".join(s for s, _ in self.steps)

    def program(self):
        consts: dict = {}
        lines = []
        for k, (sid, operand) in enumerate(self.steps):
            consts[f"F{k}"] = torch_function(sid)
            cur = "t0" if k == 0 else f"v{k - 1}"
            if operand is None:
                lines.append(f"    v{k} = F{k}({cur})")
            else:
                other = operand if isinstance(operand, str) else _src(operand, consts)
                lines.append(f"    v{k} = F{k}({cur}, {other})")
        params = ", ".join(f"t{k}" for k in range(len(self.inputs)))
        src = f"def conformance_chain({params}):\n" + "\n".join(lines) + f"\n    return v{len(self.steps) - 1}\n"
        exec(compile(src, "<conformance chain>", "exec"), consts)
        return consts["conformance_chain"], list(self.inputs)
