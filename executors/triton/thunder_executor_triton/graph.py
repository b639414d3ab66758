"""A region as a graph of kernel values, and which kernel family computes it.

Torch-level symbols are inlined through their decompositions down to primitives
(:func:`leaves`); each primitive becomes a :class:`Node` with its output's shape (sizes as
:class:`~.sizes.Dims` keys) and kind (``"f"`` float, ``"b"`` bool, ``"i"`` integer). Views
(``broadcast_in_dim``, ``reshape``, ``squeeze``) are nodes too: they move no data in a fused
kernel but tell where a value sits in the iteration space. Host number primitives
(``prims.py_*``: arithmetic on symbolic sizes) are not nodes: their results are kernel
arguments computed by the launcher (:mod:`.sizes`).

The family (:meth:`Graph.family`) follows from the primitives that are not elementwise:

- none: a **pointwise** kernel over the outputs' shape;
- a reduction over the last dim of a shape ``S``, or a gather/scatter along it with one index
  per row: a **row** kernel over ``S`` (:mod:`.rows`), which may also reduce values over all
  rows (a weight gradient, a mean loss) across its programs;
- reductions over other dims: a **reduction** kernel (:mod:`.columns`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import torch

from thunder_core.extend import NumberProxy, Proxy, TensorProxy, has_trait

from .ops import CREATION, INDEXING, INT_RESULTS, REDUCTIONS, TEMPLATES, VIEWS, Unsupported, literal
from .sizes import Dims

#: tensor dtypes a kernel loads and stores, and their Triton pointer types
DTYPES = {torch.float32: "fp32", torch.float16: "fp16", torch.bfloat16: "bf16", torch.bool: "i1",
          torch.int64: "i64", torch.int32: "i32"}


def kind_of(dtype) -> str:
    if dtype == torch.bool:
        return "b"
    return "f" if dtype.is_floating_point else "i"


def leaves(bsym, path=()):
    """The primitives ``bsym`` runs (its decomposition, recursively), as ``(bsym, path)``;
    raises :class:`Unsupported` for what has no code generation."""
    sid = bsym.sym.id
    if sid.startswith("prims."):
        if not (sid in TEMPLATES or sid in VIEWS or sid in REDUCTIONS or sid in INDEXING or sid in CREATION
                or sid.startswith("prims.py_")):
            where = f" (in {' > '.join(path)})" if path else ""
            raise Unsupported(f"no Triton code generation for {sid}{where}")
        yield bsym, path
        return
    if not bsym.subsymbols:
        if _identity(bsym):
            yield bsym, path
            return
        raise Unsupported(f"{sid} has no decomposition into primitives to generate code from")
    for s in bsym.subsymbols:
        yield from leaves(s, (*path, sid))


def _identity(bsym) -> bool:
    """Does ``bsym`` (without a decomposition) give its input's values unchanged? It returns
    its input (``to`` the same dtype), or it is a ``view`` of one tensor taking no other
    argument, of the same shape and dtype (``detach``)."""
    outs, args = bsym.flat_outs, [a for a in bsym.flat_args if isinstance(a, Proxy)]
    if len(outs) != 1 or len(args) < 1:
        return False
    if outs[0].name == args[0].name:
        return True
    a, o = args[0], outs[0]
    if not (isinstance(a, TensorProxy) and isinstance(o, TensorProxy)):  # (`torch.tensor(n)` of a number)
        return False
    same_shape = len(a.shape) == len(o.shape) and all(
        x is y or (type(x) is int and type(y) is int and x == y) for x, y in zip(a.shape, o.shape))
    return (has_trait(bsym, "view") and len(args) == 1 and len(bsym.args) == 1 and not bsym.kwargs
            and a.dtype == o.dtype and same_shape)


def check_leaves(bsym) -> str | None:
    try:
        for _ in leaves(bsym):
            pass
    except Unsupported as e:
        return str(e)
    return None


def strip(shape) -> tuple:
    """``shape`` without its leading 1s."""
    shape = tuple(shape)
    i = 0
    while i < len(shape) and shape[i] == 1:
        i += 1
    return shape[i:]


def aligns(shape, to) -> bool:
    """Does ``shape`` broadcast to ``to`` NumPy's way (right-aligned, each dim equal or 1)?"""
    shape, to = tuple(shape), tuple(to)
    if len(shape) > len(to):
        return all(s == 1 for s in shape[:len(shape) - len(to)]) and aligns(shape[len(shape) - len(to):], to)
    return all(s == t or s == 1 for s, t in zip(shape, to[len(to) - len(shape):]))


def _arg(b, pos, key, default=None):
    if len(b.args) > pos:
        return b.args[pos]
    return b.kwargs.get(key, default)


def _static(x, what: str) -> int:
    """A dim argument as an int (a symbolic one would be specialised without a guard here)."""
    if type(x) is NumberProxy:
        if x.value is None:
            raise Unsupported(f"the symbolic {what} {x.name}")
        return int(x.value)
    return int(x)


@dataclass(eq=False)
class Node:
    """One value of a kernel.

    :ivar op: ``"input"`` (a region input tensor: ``attrs["position"]``), ``"number"``,
        ``"literal"`` (``attrs["expr"]``), ``"prim"`` (a template: ``sid``), ``"view"``,
        ``"convert"``, ``"reduce"`` (``attrs["dims"]``), ``"gather"``, ``"scatter"``, ``"full"``.
    """

    op: str
    shape: tuple
    kind: str
    args: tuple = ()
    sid: str = ""
    attrs: dict = field(default_factory=dict)
    label: str = ""

    def __repr__(self):
        return f"<{self.op} {self.sid or self.label} {list(self.shape)}>"


class Graph:
    """The nodes of ``region`` in order, its outputs, and its sizes."""

    def __init__(self, region):
        self.region = region
        self.leaves = [b for top in region.bsyms for b, _ in leaves(top)]
        self.dims = Dims(region)
        check_io(region)
        self.nodes: list = []
        self.inputs: dict = {}     # position in region.inputs -> its input Node
        self._env: dict = {}       # id(proxy) -> Node
        self._position = {id(p): k for k, p in enumerate(region.inputs)}
        for b in self.leaves:
            self._add(b)
        self.outputs = [(p, self.value(p)) for p in region.outputs]

    # ---------------------------------------------------------------- building

    def value(self, x) -> Node:
        if isinstance(x, TensorProxy):
            node = self._env.get(id(x))
            if node is None:
                k = self._position.get(id(x))
                if k is None:
                    raise Unsupported(f"{x.name} is used before it is computed")
                node = self._env[id(x)] = self.inputs[k] = Node(
                    "input", self.dims.shape(x), kind_of(x.dtype), attrs={"position": k, "dtype": x.dtype},
                    label=x.name)
                self.nodes.append(node)
            return node
        if type(x) is NumberProxy:
            expr, kind = self.dims.number(x)
            node = Node("number" if x.value is None else "literal", (), kind, attrs={"expr": expr}, label=x.name)
        else:
            expr, kind = literal(x)
            node = Node("literal", (), kind, attrs={"expr": expr})
        self.nodes.append(node)
        return node

    def _add(self, b) -> None:
        sid = b.sym.id
        if sid.startswith("prims.py_"):
            return  # a host number primitive: the launcher computes what a kernel reads of it
        if not sid.startswith("prims."):  # an identity (leaves() let it through)
            self._env[id(b.flat_outs[0])] = self.value([a for a in b.flat_args if isinstance(a, Proxy)][0])
            return
        outs = b.flat_outs
        if len(outs) != 1 or not isinstance(outs[0], TensorProxy):
            raise Unsupported(f"{sid} has {len(outs)} outputs")
        out = outs[0]
        if out.dtype not in DTYPES:
            raise Unsupported(f"{sid} makes {out.name} of dtype {str(out.dtype).removeprefix('torch.')}")
        shape, kind = self.dims.shape(out), kind_of(out.dtype)
        if sid in ("prims.broadcast_in_dim", "prims.reshape", "prims.squeeze"):
            a = self.value(b.args[0])
            attrs = {"dims": tuple(_static(d, "dim") for d in _arg(b, 2, "broadcast_dimensions"))} \
                if sid == "prims.broadcast_in_dim" else {}
            node = Node("view", shape, a.kind, (a,), sid, attrs)
        elif sid == "prims.convert_element_type":
            node = Node("convert", shape, kind, (self.value(b.args[0]),), sid, {"dtype": out.dtype})
        elif sid in TEMPLATES:
            if b.kwargs:
                raise Unsupported(f"{sid} with keyword arguments {sorted(b.kwargs)}")
            args = tuple(self.value(a) for a in b.args)
            _, made = TEMPLATES[sid](*[(a.attrs.get("expr", "x"), a.kind) for a in args])
            if kind == "i" and (made != "i" or sid not in INT_RESULTS):
                raise Unsupported(f"{sid} with an integer result ({out.name})")
            node = Node("prim", shape, kind, args, sid)
        elif sid in REDUCTIONS:
            a = self.value(b.args[0])
            if a.kind == "i" or kind == "i":
                raise Unsupported(f"{sid} of integers ({out.name})")
            dims = tuple(sorted(_static(d, "dim") % max(len(a.shape), 1) for d in _arg(b, 1, "dims")))
            correction = _arg(b, 2, "correction", 1.0) if sid == "prims.var" else None
            if isinstance(correction, NumberProxy):
                raise Unsupported(f"prims.var with the symbolic correction {correction.name}")
            node = Node("reduce", shape, kind, (a,), sid, {"dims": dims, "correction": correction})
        elif sid == "prims.gather":
            a, index = self.value(b.args[0]), self.value(b.args[1])
            dim = _static(_arg(b, 2, "dim"), "dim") % len(a.shape)
            node = Node("gather", shape, kind, (a, index), sid, {"dim": dim})
        elif sid == "prims.scatter_add":
            a, index, src = (self.value(x) for x in b.args[:3])
            node = Node("scatter", shape, kind, (a, index, src), sid,
                        {"dim": _static(_arg(b, 3, "dim"), "dim") % len(a.shape)})
        elif sid == "prims.full":
            node = Node("full", shape, kind, (self.value(_arg(b, 0, "fill_value")),), sid)
        else:
            raise Unsupported(f"no Triton code generation for {sid}")
        if node.op in ("gather", "scatter") and node.args[1].kind != "i":
            raise Unsupported(f"{sid} with a non-integer index")
        node.label = out.name
        self._env[id(out)] = node
        self.nodes.append(node)

    # ---------------------------------------------------------------- which kernel

    def family(self) -> tuple[str, tuple]:
        """``(family, S)``: ``"pointwise"``, ``"row"`` or ``"reduce"``, and the iteration shape."""
        shaped = [(n.args[0].shape if n.op in ("reduce", "gather") else n.shape, n) for n in self.nodes
                  if n.op in ("reduce", "gather", "scatter")]
        if not shaped:
            return "pointwise", self.output_shape()

        def weight(s):
            return (len(strip(s)), sum(1 for d in s if d != 1),
                    math.prod(d for d in s if not isinstance(d, tuple)))

        full = max((s for s, _ in shaped), key=weight)
        last = len(full) - 1
        for s, n in shaped:
            if s == full and ((n.op == "reduce" and n.attrs["dims"] == (last,)) or
                              (n.op != "reduce" and n.attrs["dim"] == last)):
                return "row", full
        return "reduce", full

    def output_shape(self) -> tuple:
        """The iteration shape of a pointwise kernel: its outputs', up to leading 1s."""
        if not self.outputs:
            raise Unsupported("the region has no outputs")
        shape = max((n.shape for _, n in self.outputs), key=lambda s: (len(strip(s)), len(s)))
        for _, n in self.outputs:
            if strip(n.shape) != strip(shape):
                raise Unsupported(f"its outputs have different shapes ({self.dims.show(n.shape)} and "
                                  f"{self.dims.show(shape)}): a pointwise kernel writes one iteration shape")
        return shape


def check_io(region) -> None:
    """Raise Unsupported unless every input and output of ``region`` is a tensor of a dtype the
    kernels handle or a number."""
    for p in (*region.inputs, *region.outputs):
        if isinstance(p, TensorProxy):
            if p.dtype not in DTYPES:
                raise Unsupported(f"{p.name} is {p.dtype}")
        elif type(p) is NumberProxy:
            output = any(p is o for o in region.outputs)
            if p.python_type not in (int, float, bool) or output:
                raise Unsupported(f"the number {p.name} as a region {'output' if output else 'input'}")
        else:
            raise Unsupported(f"the input {p!r}")
