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

**Row kernels.** A region with reductions over the last dim (``prims.sum``, ``amax``, ``amin``,
``var``: what ``sum``/``mean``/``amax``/``var`` over ``dim=-1``, ``softmax``, ``log_softmax``,
``layer_norm`` and ``rms_norm`` decompose into) is a *row kernel*: its full shape ``S`` (the
reduced values' shape) is viewed as ``R`` rows of ``C = S[-1]`` elements; a program loads a
``[BLOCK_R, BLOCK_C]`` tile (``BLOCK_C >= C``: a whole row per program row, masked), values
are full ``[BLOCK_R, BLOCK_C]`` or per-row ``[BLOCK_R, 1]`` (after a reduction, or loaded
from a ``[..., 1]`` input), and Triton's broadcasting combines them. Elementwise work before
(prologue) and after (epilogue) the reductions fuses in; outputs may be full or per-row
(``mean``/``rstd`` of a layer norm). Reductions over other dims are declined.

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


#: What a value of a row kernel is, besides its expression: "full" (a [BLOCK_R, BLOCK_C]
#: tile), "row" (one value per row, [BLOCK_R, 1], in a shape that broadcasts along the row:
#: the kept reduced dim, or already broadcast), "rowvec" (one value per row in the reduced
#: shape without the kept dim, which NumPy broadcasting would pair with columns: it may only
#: be reshaped or broadcast_in_dim'ed back along its rows, or combined with other rowvecs),
#: "const" (a literal or a 0-d tensor). Pointwise kernels have only "full" and "const".


def combine(spaces) -> str:
    found = set(spaces) - {"const"}
    if not found:
        return "const"
    if "rowvec" in found and len(found) > 1:
        raise Unsupported("a per-row value in its reduced shape combined with full or kept-dim values "
                          "(NumPy broadcasting would pair it with columns)")
    return "full" if "full" in found else found.pop()


def leaves(bsym, path=()):
    """The primitives ``bsym`` runs (its decomposition, recursively), as ``(bsym, path)``;
    raises :class:`Unsupported` for what has no template."""
    sid = bsym.sym.id
    if sid.startswith("prims."):
        if sid not in TEMPLATES and sid not in VIEWS and sid not in REDUCTIONS:
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


REDUCTIONS = frozenset({"prims.sum", "prims.amax", "prims.amin", "prims.var"})
#: the longest row a row kernel holds in one program (elements); longer rows would need a
#: split (two-pass) reduction, not generated
MAX_ROW = 1 << 15


@dataclass(frozen=True)
class Kernel:
    """Generated source of one region's kernel and how to launch it."""

    source: str
    name: str
    kind: str            # "pointwise" or "row"
    shape: tuple         # the iteration (full) shape
    numel: int
    grid: int            # programs
    scalars: tuple       # runtime scalar arguments after the pointers (N or R)
    constexprs: dict     # BLOCK sizes
    num_warps: int
    signature: dict      # argument name -> Triton type, for ahead-of-time compiles


def _arg(b, pos, key):
    if len(b.args) > pos:
        return b.args[pos]
    return b.kwargs[key]


def _pow2(n: int) -> int:
    return max(1, 1 << (max(n, 1) - 1).bit_length())


def pointwise_params(numel: int, device_type: str, bandwidth_gbs: float = 0.0) -> tuple[int, int]:
    """(BLOCK, num_warps). Under the CPU interpreter one program runs a whole block as NumPy
    arrays, so blocks are as large as possible (fewer programs). On a GPU: 1024 elements per
    program, 4 warps (8 elements per thread: 16-byte vector loads of halves), 2048 and 8
    warps for large tensors on high-bandwidth parts; heuristics, not tuned on a GPU here."""
    n = _pow2(numel)
    if device_type == "cpu":
        return min(n, 1 << 15), 4
    block = 2048 if numel >= (1 << 22) and bandwidth_gbs >= 3000 else 1024
    block = max(128, min(n, block))
    return block, max(1, min(8, block // 256))


def row_params(rows: int, cols: int, device_type: str) -> tuple[int, int, int]:
    """(BLOCK_R, BLOCK_C, num_warps) of a row kernel: a whole row per program row; several rows
    per program when rows are short (a tile of about 2048 elements on a GPU, 4 warps, 8 warps
    from 8192-element rows; as large as 16384 elements in the interpreter, fewer programs).
    Heuristics, not tuned on a GPU here."""
    block_c = _pow2(cols)
    budget = 1 << 14 if device_type == "cpu" else 2048
    block_r = max(1, min(_pow2(rows), budget // block_c))
    warps = 4 if block_c < 8192 else 8
    return block_r, block_c, warps


def _leaves_of(region):
    out = []
    for top in region.bsyms:
        out.extend(leaves(top))
    return out


def full_shape(region, leaf_list) -> tuple:
    """The iteration shape: a reduction's input for a row kernel, else the outputs' shape."""
    for b, _ in leaf_list:
        if b.sym.id in REDUCTIONS:
            return tuple(int(s) for s in b.args[0].shape)
    if not region.outputs:
        raise Unsupported("the region has no outputs")
    for p in region.outputs:
        if not isinstance(p, TensorProxy):
            raise Unsupported(f"the output {p.name} is not a tensor")
    shape = max((tuple(int(s) for s in p.shape) for p in region.outputs), key=lambda s: (math.prod(s), len(s)))
    for p in region.outputs:
        if _strip(p.shape) != _strip(shape):
            raise Unsupported(f"its outputs have different shapes ({list(p.shape)} and {list(shape)}): "
                              f"a pointwise kernel writes one iteration shape")
    return shape


def check_io(region) -> None:
    """Raise Unsupported unless every input and output of ``region`` is a tensor of a dtype the
    kernels handle."""
    for p in (*region.inputs, *region.outputs):
        if not isinstance(p, TensorProxy):
            raise Unsupported(f"the scalar input {p.name} (constants are baked in; symbolic numbers are not)")
        if p.dtype not in DTYPES:
            raise Unsupported(f"{p.name} is {p.dtype}")


def generate(region, device_type: str, bandwidth_gbs: float = 0.0, name: str = "triton_region") -> Kernel:
    """The kernel of ``region`` (raises :class:`Unsupported` with the reason)."""
    leaf_list = _leaves_of(region)
    from .columns import generate_column, is_column_reduction

    if any(is_column_reduction(b) for b, _ in leaf_list):
        return generate_column(region, leaf_list, device_type, name)
    row = any(b.sym.id in REDUCTIONS for b, _ in leaf_list)
    shape = full_shape(region, leaf_list)
    numel = math.prod(shape)
    big = numel >= 2 ** 31 - 1
    if row:
        if not shape or shape[-1] < 2:
            raise Unsupported(f"a reduction over a dim of size {shape[-1] if shape else 0}")
        cols = shape[-1]
        nrows = numel // cols
        if cols > MAX_ROW:
            raise Unsupported(f"rows of {cols} elements (a row kernel holds at most {MAX_ROW} in one program)")
        row_shape = _strip(shape[:-1])
    inputs = list(region.inputs)
    check_io(region)
    in_names = {p.name: f"in{k}" for k, p in enumerate(inputs)}
    env: dict = {}          # proxy name -> (expression, kind, space); see combine()
    body: list = []
    index_vars: dict = {}

    def is_row_shape(shp) -> bool:
        """A per-row value's shape: the full shape reduced over its last dim (kept or not)."""
        shp = tuple(int(x) for x in shp)
        return row and (_strip(shp) == row_shape or (bool(shp) and shp[-1] == 1 and _strip(shp[:-1]) == row_shape))

    def index(d, base):  # the index along dim d of the full shape, from a flat index `base`
        if (d, base) not in index_vars:
            inner = math.prod(shape[d + 1:])
            expr = base if inner == 1 else f"({base} // {inner})"
            if d > 0:
                expr = f"({expr} % {shape[d]})"
            var = index_vars[(d, base)] = f"i{len(index_vars)}"
            body.append(f"    {var} = {expr}")
        return index_vars[(d, base)]

    def load(p):
        ptr = in_names[p.name]
        pshape = tuple(int(x) for x in p.shape)
        space = "full"
        if aligns(pshape, shape) and not (row and (not pshape or pshape[-1] == 1)):
            base, m = "offs", "mask"
        elif row and aligns(pshape, shape):
            space, base, m = "row", "roffs", "rmask"
        elif row and _strip(pshape) == row_shape:
            space, base, m = "rowvec", "roffs", "rmask"
        else:
            raise Unsupported(f"the input {p.name} of shape {list(pshape)} does not broadcast to the iteration "
                              f"shape {list(shape)}")
        if space in ("row", "rowvec") and _strip(pshape) in (row_shape, _strip((*shape[:-1], 1))):
            off = "rows"  # one value per row, rows in order
        elif row and space == "full" and _strip(pshape) == (cols,):
            off, m = "cols", f"(cols < {cols})"  # a weight/bias along the row: one [1, BLOCK_C] load
        elif _strip(pshape) == _strip(shape):
            off = base
        else:
            terms, stride = [], 1
            offset = len(shape) - len(pshape)
            for d in range(len(pshape) - 1, -1, -1):
                if pshape[d] != 1:
                    v = index(d + offset, base)
                    terms.append(v if stride == 1 else f"{v} * {stride}")
                stride *= pshape[d]
            off = " + ".join(reversed(terms)) or "0"
        var = f"x{len(env)}"
        if off == "0":  # a 0-d (or all-ones) tensor: one scalar load
            body.append(f"    {var} = tl.load({ptr})")
            space = "const"
        else:
            body.append(f"    {var} = tl.load({ptr} + {off}, mask={m})")
        kind = "b" if p.dtype == torch.bool else "f"
        if kind == "f":
            body[-1] += ".to(tl.float32)"
        body[-1] += f"  # {p.name}: {str(p.dtype).removeprefix('torch.')}{list(pshape)}"
        env[p.name] = (var, kind, space)
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
        return (*literal(x), "const")

    def check_shape(p, what):
        if isinstance(p, TensorProxy) and not aligns(tuple(p.shape), shape) and not is_row_shape(p.shape):
            raise Unsupported(f"{what} makes {p.name} of shape {list(p.shape)}, which does not broadcast to the "
                              f"iteration shape {list(shape)}")

    for b, path in leaf_list:
        sid = b.sym.id
        if len(b.flat_outs) != 1:
            raise Unsupported(f"{sid} has {len(b.flat_outs)} outputs")
        out = b.flat_outs[0]
        check_shape(out, sid)
        if sid == "prims.broadcast_in_dim":
            a, bshape, dims = _arg(b, 0, "a"), _arg(b, 1, "shape"), _arg(b, 2, "broadcast_dimensions")
            rank, arank = len(bshape), len(a.shape)
            v = value(a)
            trailing = tuple(dims) == tuple(range(rank - arank, rank))
            per_row = v[2] == "rowvec" and tuple(dims) == tuple(range(arank)) and rank == arank + 1
            if per_row:
                env[out.name] = (v[0], v[1], "row")
            elif trailing and v[2] != "rowvec":
                env[out.name] = v
            else:
                raise Unsupported(f"prims.broadcast_in_dim of {a.name} {list(a.shape)} onto dims {tuple(dims)} of "
                                  f"{list(bshape)} (only NumPy broadcasting onto trailing dims, or a per-row value "
                                  f"along its row)")
        elif sid in ("prims.reshape", "prims.squeeze"):
            a = b.args[0]
            v = value(a)
            same = _strip(a.shape) == _strip(out.shape)
            if v[2] in ("row", "rowvec") and is_row_shape(a.shape) and is_row_shape(out.shape):
                kept = len(out.shape) == 0 or int(out.shape[-1]) == 1
                env[out.name] = (v[0], v[1], "row" if kept else "rowvec")
            elif same:
                env[out.name] = v
            else:
                raise Unsupported(f"{sid} from {list(a.shape)} to {list(out.shape)} (only adding or removing "
                                  f"leading 1s{', or a kept reduced dim' if row else ''})")
        elif sid == "prims.convert_element_type":
            a, dtype = value(_arg(b, 0, "a")), _arg(b, 1, "dtype")
            if dtype == torch.bool:
                env[out.name] = (f"({a[0]} != 0)", "b", a[2]) if a[1] == "f" else a
            elif dtype in (torch.float32, torch.float16, torch.bfloat16, float):
                env[out.name] = (f"{a[0]}.to(tl.float32)", "f", a[2]) if a[1] == "b" else a
            else:
                raise Unsupported(f"conversion to {dtype}")
        elif sid in REDUCTIONS:
            a = b.args[0]
            dims = tuple(_arg(b, 1, "dims"))
            if dims != (len(a.shape) - 1,) or tuple(int(x) for x in a.shape) != shape:
                raise Unsupported(f"{sid} over dims {dims} of a {list(a.shape)} tensor (row kernels reduce the "
                                  f"last dim of the full shape {list(shape)})")
            expr, kind, space = value(a)
            if space != "full":
                raise Unsupported(f"{sid} of a value constant along its rows")
            x = expr if kind == "f" else f"{expr}.to(tl.float32)"
            var = f"v{len(body)}"
            if sid == "prims.sum":
                body.append(f"    {var} = tl.sum(tl.where(mask, {x}, 0.0), axis=1, keep_dims=True)  # {sid}")
            elif sid in ("prims.amax", "prims.amin"):
                fn, neutral = ("tl.max", '-float("inf")') if sid == "prims.amax" else ("tl.min", 'float("inf")')
                body.append(f"    {var} = {fn}(tl.where(mask, {x}, {neutral}), axis=1, keep_dims=True)  # {sid}")
            else:  # var: two passes over the tile in registers
                correction = float(_arg(b, 2, "correction")) if (len(b.args) > 2 or "correction" in b.kwargs) else 1.0
                body.append(f"    {var}m = tl.sum(tl.where(mask, {x}, 0.0), axis=1, keep_dims=True) / {cols}")
                body.append(f"    {var}d = tl.where(mask, {x} - {var}m, 0.0)")
                body.append(f"    {var} = tl.sum({var}d * {var}d, axis=1, keep_dims=True) / {float(cols - correction)!r}"
                            f"  # {sid}")
            env[out.name] = (var, "f", "rowvec")
        else:
            if b.kwargs:
                raise Unsupported(f"{sid} with keyword arguments {sorted(b.kwargs)}")
            args = [value(a) for a in b.args]
            expr, kind = TEMPLATES[sid](*[(a[0], a[1]) for a in args])
            space = combine(a[2] for a in args)
            var = f"v{len(body)}"
            body.append(f"    {var} = {expr}  # {sid} -> {out.name}")
            env[out.name] = (var, kind, space)

    signature = {f"in{k}": "*" + DTYPES[p.dtype] for k, p in enumerate(inputs)}
    for k, p in enumerate(region.outputs):
        signature[f"out{k}"] = "*" + DTYPES[p.dtype]
        expr, kind, space = env[p.name] if p.name in env else value(p)
        if p.dtype == torch.bool and kind == "f":
            expr = f"({expr} != 0)"
        if p.dtype == torch.bfloat16 and device_type == "cpu":
            # Triton's interpreter converts float32 to bfloat16 by truncation (a GPU rounds to
            # nearest even): round the bits first, so the truncation is exact
            body.append(f"    rb{k} = {expr}.to(tl.uint32, bitcast=True)")
            body.append(f"    rb{k} = ((rb{k} + 0x7FFF + ((rb{k} >> 16) & 1)) & 0xFFFF0000).to(tl.float32, bitcast=True)")
            body.append(f"    rb{k} = tl.where({expr} != {expr}, {expr}, rb{k})  # NaN stays NaN")
            expr = f"rb{k}"
        if row and is_row_shape(p.shape) and space != "full" and _strip(p.shape) != _strip(shape):
            if space == "full":
                raise Unsupported(f"the per-row output {p.name} holds a full value")
            where, m = "rows", "rmask"
        else:
            where, m = "offs", "mask"
            if space == "rowvec":
                raise Unsupported(f"the output {p.name} pairs per-row values with columns")
            if row and space != "full":  # a per-row value written out at full shape
                expr = f"({expr} + tl.zeros([BLOCK_R, BLOCK_C], tl.float32))"
            if _strip(p.shape) != _strip(shape):
                raise Unsupported(f"the output {p.name} of shape {list(p.shape)} is neither full {list(shape)} nor "
                                  f"per row")
        body.append(f"    tl.store(out{k} + {where}, {expr}.to(out{k}.dtype.element_ty), mask={m})  # {p.name}")
    ops = " ".join(b.sym.id for b in region.bsyms)
    if row:
        block_r, block_c, warps = row_params(nrows, cols, device_type)
        signature["R"] = "i64" if big else "i32"
        signature["BLOCK_R"] = signature["BLOCK_C"] = "constexpr"
        pid = "tl.program_id(0).to(tl.int64)" if big else "tl.program_id(0)"
        prologue = [
            f"def {name}({', '.join(n for n in signature if not n.startswith('BLOCK'))}, BLOCK_R: tl.constexpr, "
            f"BLOCK_C: tl.constexpr):",
            f"    # {ops}",
            f"    # row kernel: full shape {list(shape)} as {nrows} rows of {cols}",
            f"    rows = {pid} * BLOCK_R + tl.arange(0, BLOCK_R)[:, None]",
            "    cols = tl.arange(0, BLOCK_C)[None, :]",
            "    rmask = rows < R",
            f"    mask = rmask & (cols < {cols})",
            f"    roffs = rows * {cols}",
            "    offs = roffs + cols",
        ]
        grid, scalars, constexprs = -(-nrows // block_r), (nrows,), {"BLOCK_R": block_r, "BLOCK_C": block_c}
    else:
        block, warps = pointwise_params(numel, device_type, bandwidth_gbs)
        signature["N"] = "i64" if big else "i32"
        signature["BLOCK"] = "constexpr"
        pid = "tl.program_id(0).to(tl.int64)" if big else "tl.program_id(0)"
        prologue = [
            f"def {name}({', '.join(n for n in signature if n != 'BLOCK')}, BLOCK: tl.constexpr):",
            f"    # {ops}",
            f"    # iteration shape {list(shape)}, flattened",
            f"    offs = {pid} * BLOCK + tl.arange(0, BLOCK)",
            "    mask = offs < N",
        ]
        grid, scalars, constexprs = -(-numel // block), (numel,), {"BLOCK": block}
    source = "\n".join(["import triton", "import triton.language as tl", "", "", "@triton.jit"] + prologue + body) + "\n"
    return Kernel(source, name, "row" if row else "pointwise", shape, numel, grid, scalars, constexprs, warps,
                  signature)
