"""Kernel source for a region: a ``@triton.jit`` function computing the region's outputs.

**Pointwise kernels.** A region of elementwise symbols has one *iteration shape* ``S``: the
shape of its outputs (all of them must have it, up to leading 1s). The kernel walks ``S``
flattened to 1-D in blocks of ``BLOCK`` elements, masking the ragged last block. Every
value of the region, inputs and intermediates, must broadcast to ``S`` the NumPy way
(right-aligned, each dim equal or 1): an input of shape ``S`` is loaded at the flat offset;
a broadcast input (a bias ``[C]``, a ``[B, 1]`` column, a 0-d tensor) is loaded at an offset
computed from the flat offset with its own strides, 0 along broadcast dims. Intermediates
never leave registers, so a smaller intermediate is simply computed at every point of ``S``.
Inputs are made contiguous by the launcher; shapes are baked into the source (one kernel per
``region_key``, which includes the shapes).

Torch-level symbols are inlined through their decompositions down to primitives, which are
emitted with the templates of :mod:`.ops`; everything computes in float32.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch

from thunder_core.extend import Proxy, TensorProxy

from .ops import TEMPLATES, VIEWS, Unsupported, literal

#: tensor dtypes a kernel loads and stores (and their Triton pointer types for AOT signatures)
DTYPES = {torch.float32: "fp32", torch.float16: "fp16", torch.bfloat16: "bf16", torch.bool: "i1"}


def _strip(shape) -> tuple:
    shape = tuple(int(s) for s in shape)
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


def leaves(bsym, path=()):
    """The primitives ``bsym`` runs (its decomposition, recursively), as ``(bsym, path)``;
    raises :class:`Unsupported` for what has no template."""
    sid = bsym.sym.id
    if sid.startswith("prims."):
        if sid not in TEMPLATES and sid not in VIEWS:
            where = f" (in {' > '.join(path)})" if path else ""
            raise Unsupported(f"no Triton code generation for {sid}{where}")
        yield bsym, path
        return
    if not bsym.subsymbols:
        outs, args = bsym.flat_outs, [a for a in bsym.flat_args if isinstance(a, Proxy)]
        if len(outs) == 1 and args and outs[0].name == args[0].name:
            return  # returns its input (``to`` the same dtype): nothing to emit
        raise Unsupported(f"{sid} has no decomposition into primitives to generate code from")
    for s in bsym.subsymbols:
        yield from leaves(s, (*path, sid))


def check_leaves(bsym) -> str | None:
    try:
        for _ in leaves(bsym):
            pass
    except Unsupported as e:
        return str(e)
    return None


@dataclass(frozen=True)
class Kernel:
    """Generated source of one region's kernel and how to launch it."""

    source: str
    name: str
    shape: tuple         # the iteration shape
    numel: int
    n_inputs: int
    n_outputs: int
    block: int
    num_warps: int
    signature: dict      # argument name -> Triton type, for ahead-of-time compiles


def _arg(b, pos, key):
    if len(b.args) > pos:
        return b.args[pos]
    return b.kwargs[key]


def iteration_shape(region) -> tuple:
    if not region.outputs:
        raise Unsupported("the region has no outputs")
    for p in region.outputs:
        if not isinstance(p, TensorProxy):
            raise Unsupported(f"the output {p.name} is not a tensor")
    shape = max((tuple(p.shape) for p in region.outputs), key=lambda s: (math.prod(s), len(s)))
    for p in region.outputs:
        if _strip(p.shape) != _strip(shape):
            raise Unsupported(f"its outputs have different shapes ({list(p.shape)} and {list(shape)}): "
                              f"a pointwise kernel writes one iteration shape")
    return shape


def pointwise_params(numel: int, device_type: str, bandwidth_gbs: float = 0.0) -> tuple[int, int]:
    """(BLOCK, num_warps). Under the CPU interpreter one program runs a whole block as NumPy
    arrays, so blocks are as large as possible (fewer programs). On a GPU: 1024 elements per
    program, 4 warps (8 elements per thread: 16-byte vector loads of halves), 2048 and 8
    warps for large tensors on high-bandwidth parts; heuristics, not tuned on a GPU here."""
    n = max(1, 1 << (max(numel, 1) - 1).bit_length())
    if device_type == "cpu":
        return min(n, 1 << 15), 4
    block = 2048 if numel >= (1 << 22) and bandwidth_gbs >= 3000 else 1024
    block = max(128, min(n, block))
    return block, max(1, min(8, block // 256))


def generate(region, device_type: str, bandwidth_gbs: float = 0.0, name: str = "triton_region") -> Kernel:
    """The kernel of ``region`` (raises :class:`Unsupported` with the reason)."""
    shape = iteration_shape(region)
    numel = math.prod(shape)
    big = numel >= 2 ** 31 - 1
    inputs = [p for p in region.inputs]
    for p in (*inputs, *region.outputs):
        if not isinstance(p, TensorProxy):
            raise Unsupported(f"the scalar input {p.name} (constants are baked in; symbolic numbers are not)")
        if p.dtype not in DTYPES:
            raise Unsupported(f"{p.name} is {p.dtype}")
    in_names = {p.name: f"in{k}" for k, p in enumerate(inputs)}
    env: dict = {}          # proxy name -> (expression, kind)
    body: list = []
    index_vars: dict = {}

    def index(d):  # i_d, the index along dim d of the iteration shape
        if d not in index_vars:
            inner = math.prod(shape[d + 1:])
            expr = "offs" if inner == 1 else f"(offs // {inner})"
            if d > 0:
                expr = f"({expr} % {shape[d]})"
            index_vars[d] = f"i{d}"
            body.append(f"    i{d} = {expr}")
        return index_vars[d]

    def load(p):
        ptr = in_names[p.name]
        pshape = tuple(int(s) for s in p.shape)
        if not aligns(pshape, shape):
            raise Unsupported(f"the input {p.name} of shape {list(pshape)} does not broadcast to the iteration "
                              f"shape {list(shape)}")
        if _strip(pshape) == _strip(shape):
            off = "offs"
        else:
            terms, stride = [], 1
            offset = len(shape) - len(pshape)
            for d in range(len(pshape) - 1, -1, -1):
                if pshape[d] != 1:
                    v = index(d + offset)
                    terms.append(v if stride == 1 else f"{v} * {stride}")
                stride *= pshape[d]
            off = " + ".join(reversed(terms)) or "0"
        var = f"x{len(env)}"
        if off == "0":  # a 0-d (or all-ones) tensor: one scalar load
            body.append(f"    {var} = tl.load({ptr})")
        else:
            body.append(f"    {var} = tl.load({ptr} + {off}, mask=mask)")
        kind = "b" if p.dtype == torch.bool else "f"
        if kind == "f":
            body[-1] += ".to(tl.float32)"
        body[-1] += f"  # {p.name}: {str(p.dtype).removeprefix('torch.')}{list(pshape)}"
        env[p.name] = (var, kind)
        return env[p.name]

    def value(x):
        if isinstance(x, TensorProxy):
            if x.name in env:
                return env[x.name]
            if x.name in in_names:
                return load(x)
            raise Unsupported(f"{x.name} is used before it is computed")
        if isinstance(x, Proxy):
            raise Unsupported(f"the symbolic number {x.name}")
        return literal(x)

    def check_shape(p, what):
        if isinstance(p, TensorProxy) and not aligns(tuple(p.shape), shape):
            raise Unsupported(f"{what} makes {p.name} of shape {list(p.shape)}, which does not broadcast to the "
                              f"iteration shape {list(shape)}")

    for top in region.bsyms:
        for b, path in leaves(top):
            sid = b.sym.id
            if len(b.flat_outs) != 1:
                raise Unsupported(f"{sid} has {len(b.flat_outs)} outputs")
            out = b.flat_outs[0]
            check_shape(out, sid)
            if sid == "prims.broadcast_in_dim":
                a, bshape, dims = _arg(b, 0, "a"), _arg(b, 1, "shape"), _arg(b, 2, "broadcast_dimensions")
                rank, arank = len(bshape), len(a.shape)
                if tuple(dims) != tuple(range(rank - arank, rank)):
                    raise Unsupported(f"prims.broadcast_in_dim onto dims {tuple(dims)} of {rank} (only trailing "
                                      f"dims, NumPy broadcasting)")
                env[out.name] = value(a)
            elif sid in ("prims.reshape", "prims.squeeze"):
                a = b.args[0]
                if _strip(a.shape) != _strip(out.shape):
                    raise Unsupported(f"{sid} from {list(a.shape)} to {list(out.shape)} (only adding or removing "
                                      f"leading 1s)")
                env[out.name] = value(a)
            elif sid == "prims.convert_element_type":
                a, dtype = value(_arg(b, 0, "a")), _arg(b, 1, "dtype")
                if dtype == torch.bool:
                    env[out.name] = (f"({a[0]} != 0)", "b") if a[1] == "f" else a
                elif dtype in (torch.float32, torch.float16, torch.bfloat16, float):
                    env[out.name] = (f"{a[0]}.to(tl.float32)", "f") if a[1] == "b" else a
                else:
                    raise Unsupported(f"conversion to {dtype}")
            else:
                if b.kwargs:
                    raise Unsupported(f"{sid} with keyword arguments {sorted(b.kwargs)}")
                args = [value(a) for a in b.args]
                expr, kind = TEMPLATES[sid](*args)
                var = f"v{len(body)}"
                body.append(f"    {var} = {expr}  # {sid} -> {out.name}")
                env[out.name] = (var, kind)

    signature = {f"in{k}": "*" + DTYPES[p.dtype] for k, p in enumerate(inputs)}
    for k, p in enumerate(region.outputs):
        signature[f"out{k}"] = "*" + DTYPES[p.dtype]
        if p.name in env:
            expr, kind = env[p.name]
        else:
            expr, kind = value(p)
        if p.dtype == torch.bool and kind == "f":
            expr = f"({expr} != 0)"
        if p.dtype == torch.bfloat16 and device_type == "cpu":
            # Triton's interpreter converts float32 to bfloat16 by truncation (a GPU rounds to
            # nearest even): round the bits first, so the truncation is exact
            body.append(f"    r{k} = {expr}.to(tl.uint32, bitcast=True)")
            body.append(f"    r{k} = ((r{k} + 0x7FFF + ((r{k} >> 16) & 1)) & 0xFFFF0000).to(tl.float32, bitcast=True)")
            body.append(f"    r{k} = tl.where({expr} != {expr}, {expr}, r{k})  # NaN stays NaN")
            expr = f"r{k}"
        body.append(f"    tl.store(out{k} + offs, {expr}.to(out{k}.dtype.element_ty), mask=mask)  # {p.name}")
    signature["N"] = "i64" if big else "i32"
    signature["BLOCK"] = "constexpr"
    block, warps = pointwise_params(numel, device_type, bandwidth_gbs)
    pid = "tl.program_id(0).to(tl.int64)" if big else "tl.program_id(0)"
    ops = " ".join(b.sym.id for b in region.bsyms)
    head = [
        "import triton",
        "import triton.language as tl",
        "",
        "",
        "@triton.jit",
        f"def {name}({', '.join(n for n in signature if n != 'BLOCK')}, BLOCK: tl.constexpr):",
        f"    # {ops}",
        f"    # iteration shape {list(shape)}, flattened",
        f"    offs = {pid} * BLOCK + tl.arange(0, BLOCK)",
        "    mask = offs < N",
    ]
    source = "\n".join(head + body) + "\n"
    return Kernel(source, name, shape, numel, len(inputs), len(region.outputs), block, warps, signature)
