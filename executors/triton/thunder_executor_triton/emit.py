"""What every kernel family shares: the generated :class:`Kernel`, and an :class:`Emitter`
that writes Triton statements (loads at broadcast offsets, conversions, templates, stores).

Offsets are computed from a flat index into the contiguous iteration shape ``S`` (the
launcher makes inputs contiguous): a value of shape ``P`` that broadcasts to ``S`` NumPy's
way is loaded at ``sum(index_d * stride_d)`` over its own non-1 dims, where ``index_d =
(flat // prod(S[d+1:])) % S[d]``; an input of ``S``'s shape at the flat index itself. Sizes are
literals or the size arguments of :mod:`.sizes`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import torch

from thunder_core.extend import TensorProxy

from .graph import DTYPES, aligns, strip
from .ops import TEMPLATES, Unsupported


@dataclass(frozen=True)
class Launch:
    """How to launch a kernel for one call's sizes."""

    grid: tuple
    constexprs: dict
    num_warps: int
    scalars: tuple = ()                 # values of the family's runtime arguments (after the sizes)
    workspace: tuple = ()               # (numel, dtype) of scratch buffers, in order (int32 counters zeroed)


@dataclass(frozen=True)
class Kernel:
    """The generated source of one region's kernel (one variant) and how to launch it.

    ``variant`` is what its source depends on besides the region (see :mod:`.codegen`);
    ``launch(sizes, target, constexprs=None) -> Launch`` gives grid, block sizes and warps for
    a call's sizes (``{}`` when all are static) on a :class:`~.tuning.Target`, with the
    heuristics' block sizes or the given ones (an autotuner's config: the grid follows them);
    ``outputs`` are the outputs' shapes as size keys (``dims.product(shape, sizes)``);
    ``signature`` maps each argument to its Triton type for ahead-of-time compiles (size
    arguments ``i32``, ``i64`` from 2^31); ``choose(sizes, target)`` is the variant a call
    needs, ``alternatives`` the other variants calls may need.
    """

    source: str
    name: str
    family: str
    variant: tuple
    signature: dict
    dims: object
    outputs: tuple
    launch: Callable
    describe: str
    choose: Callable                    # choose(sizes, target) -> the variant a call needs
    alternatives: tuple = ()            # other variants calls may need (symbolic sizes)


def assign(lines: list, var: str, expr: str, comment: str = "") -> str:
    lines.append(f"    {var} = {expr}" + (f"  # {comment}" if comment else ""))
    return var


def broadcast(expr: str, kind: str, shape: str) -> str:
    """A constant (or a value constant along some dims) as a tile of ``shape``."""
    zeros = {"f": "tl.float32", "i": "tl.int64", "b": "tl.int32"}[kind]
    out = f"({expr} + tl.zeros({shape}, {zeros}))"
    return f"({out} != 0)" if kind == "b" else out


def convert(v, kind: str):
    """The value ``v`` as ``kind`` (torch's conversion: float to int truncates, to bool is != 0)."""
    expr, k = v
    if k == kind:
        return v
    if kind == "b":
        return f"({expr} != 0)", "b"
    if kind == "f":
        return (f"{float(expr)!r}" if k == "i" and expr.lstrip("-").isdigit() else f"{expr}.to(tl.float32)"), "f"
    return f"{expr}.to(tl.int64)", "i"


class Emitter:
    """Statement writing shared by the families. ``lines`` is the current scope: families
    switch it (``with_lines``) for hoisted, looped and final sections."""

    def __init__(self, graph, device_type: str, big: bool):
        self.g, self.dims, self.device_type, self.big = graph, graph.dims, device_type, big
        self.lines: list = []
        self._index: dict = {}
        self._count = 0

    def fresh(self, prefix: str) -> str:
        self._count += 1
        return f"{prefix}{self._count}"

    # ---------------------------------------------------------------- indexing

    def index(self, S, d: int, base: str) -> str:
        """The index along dim ``d`` of ``S`` from the flat index ``base`` (one variable per scope)."""
        key = (id(self.lines), d, base)
        if key not in self._index:
            inner = [k for k in S[d + 1:] if k != 1]
            expr = base if not inner else f"({base} // {self.dims.prod(inner)})"
            if any(k != 1 for k in S[:d]):
                expr = f"({expr} % {self.dims.text(S[d])})"
            self._index[key] = assign(self.lines, self.fresh("i"), expr)
        return self._index[key]

    def offset(self, shape, S, base: str) -> str:
        """The offset of a contiguous tensor of ``shape`` (broadcasting to ``S`` NumPy's way)
        at flat index ``base`` of ``S``; ``"0"`` for one element."""
        if not aligns(shape, S):
            raise Unsupported(f"a value of shape {self.dims.show(shape)} does not broadcast to the iteration shape "
                              f"{self.dims.show(S)}")
        if strip(shape) == strip(S) and any(k != 1 for k in S):
            return base
        terms, inner = [], []
        skew = len(S) - len(shape)
        for d in range(len(shape) - 1, -1, -1):
            if shape[d] != 1:
                v = self.index(S, d + skew, base)
                terms.append(v if not inner else f"{v} * {self.dims.prod(inner)}")
                inner.append(shape[d])
        return " + ".join(reversed(terms)) or "0"

    # ---------------------------------------------------------------- values

    def load(self, node, off: str, mask: str, comment_shape=None):
        """Load input ``node`` at ``off`` (floats converted to float32)."""
        ptr = f"in{node.attrs['position']}"
        text = f"tl.load({ptr})" if off == "0" else f"tl.load({ptr} + {off}, mask={mask})"
        if node.kind == "f":
            text += ".to(tl.float32)"
        dtype = str(node.attrs["dtype"]).removeprefix("torch.")
        return assign(self.lines, self.fresh("x"), text, f"{node.label}: {dtype}{self.dims.show(node.shape)}"), \
            node.kind

    def template(self, node, args):
        expr, kind = TEMPLATES[node.sid](*args)
        expr, kind = convert((expr, kind), node.kind)
        return assign(self.lines, self.fresh("v"), expr, f"{node.sid} -> {node.label}"), kind

    def stored(self, k: int, dtype, v) -> str:
        """The expression stored into output ``k`` of ``dtype`` from value ``v``."""
        expr, _ = convert(v, "b" if dtype == torch.bool else "f" if dtype.is_floating_point else "i")
        if dtype == torch.bfloat16 and self.device_type == "cpu":
            # Triton's interpreter converts float32 to bfloat16 by truncation (a GPU rounds to
            # nearest even): round the bits first, so the truncation is exact
            rb = self.fresh("rb")
            assign(self.lines, rb, f"{expr}.to(tl.uint32, bitcast=True)")
            assign(self.lines, rb, f"(({rb} + 0x7FFF + (({rb} >> 16) & 1)) & 0xFFFF0000).to(tl.float32, bitcast=True)")
            assign(self.lines, rb, f"tl.where({expr} != {expr}, {expr}, {rb})", "NaN stays NaN")
            expr = rb
        return f"{expr}.to(out{k}.dtype.element_ty)"

    # ---------------------------------------------------------------- signature and source

    def signature(self, pointers=(), scalars=(), constexprs=()) -> dict:
        """Tensor inputs, outputs, extra pointers, size arguments, the family's scalars, constexprs."""
        sig = {}
        for k, p in enumerate(self.g.region.inputs):
            if isinstance(p, TensorProxy):
                sig[f"in{k}"] = "*" + DTYPES[p.dtype]
        for k, p in enumerate(self.g.region.outputs):
            sig[f"out{k}"] = "*" + DTYPES[p.dtype]
        sig.update(dict(pointers))
        for name, pytype in self.dims.args():
            sig[name] = {int: "i64" if self.big else "i32", float: "fp32", bool: "i1"}[pytype]
        for name in scalars:
            sig[name] = "i32"
        for name in constexprs:
            sig[name] = "constexpr"
        return sig

    def source(self, name: str, signature: dict, body: list) -> str:
        params = [n if t != "constexpr" else f"{n}: tl.constexpr" for n, t in signature.items()]
        head = ["import triton", "import triton.language as tl", "", "", "@triton.jit",
                f"def {name}({', '.join(params)}):"]
        return "\n".join(head + body) + "\n"

    def register(self, proxies) -> None:
        """Make every symbolic size of ``proxies`` an argument (the launcher computes output
        shapes from the arguments)."""
        for p in proxies:
            for k in self.dims.shape(p):
                if isinstance(k, tuple):
                    self.dims.text(k)

    def pid(self, axis: int = 0) -> str:
        return f"tl.program_id({axis}).to(tl.int64)" if self.big else f"tl.program_id({axis})"
