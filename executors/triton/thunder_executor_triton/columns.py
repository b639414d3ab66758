"""Column kernels: reductions over leading dims (``sum(dim=0)`` of a ``[N, C]`` tensor, the
bias gradient of a linear layer; ``sum(dim=0)`` of a ``[B, T, C]`` one, a broadcast position
embedding's; ``amax``/``amin`` likewise).

The full shape ``S`` (the reduced input's) reduced over its first ``k`` dims is viewed as
``R = prod(S[:k])`` rows of ``C = prod(S[k:])`` columns. A
program owns ``BLOCK_C`` columns and loops over the rows ``BLOCK_R`` at a time, computing the
elementwise prologue of each tile and accumulating it in a float32 ``[BLOCK_R, BLOCK_C]``
accumulator; after the loop the accumulator is reduced over its rows, the elementwise
epilogue runs on the ``[1, BLOCK_C]`` results, and only reduced values (shape ``[C]`` or
``[1, ..., 1, C]``) are stored. Values are "full" (a tile, inside the loop), "col" (after
the loop) or "const". A full value may not depend on a reduced one (``x - x.mean(0)``: two
passes, not generated), and full outputs are not written (declined): the region is cut
before them.

One program per ``BLOCK_C`` columns means little parallelism for few columns and many rows;
a GPU kernel would split the rows across programs (atomics or a second pass). Not done here.
"""

from __future__ import annotations

import math

import torch

from thunder_core.extend import Proxy, TensorProxy

from .codegen import DTYPES, Kernel, _arg, _pow2, _strip, aligns, check_io
from .ops import TEMPLATES, Unsupported, literal

COLUMN_REDUCTIONS = {"prims.sum": ("0.0", "+"), "prims.amax": ('-float("inf")', "max"),
                     "prims.amin": ('float("inf")', "min")}


def leading_dims(b) -> int:
    """k when ``b`` reduces the first k dims of its input (1 <= k < rank), else 0."""
    if b.sym.id not in COLUMN_REDUCTIONS:
        return 0
    rank, dims = len(b.args[0].shape), tuple(_arg(b, 1, "dims"))
    return len(dims) if 1 <= len(dims) < rank and dims == tuple(range(len(dims))) else 0


def is_column_reduction(b) -> bool:
    return leading_dims(b) > 0


def column_params(nrows: int, ncols: int, device_type: str) -> tuple[int, int, int]:
    """(BLOCK_R, BLOCK_C, num_warps): 64 columns x 64 rows per step and 4 warps on a GPU (not
    tuned on one); as large as possible in the interpreter."""
    if device_type == "cpu":
        block_c = min(_pow2(ncols), 1024)
        return max(1, min(_pow2(nrows), (1 << 14) // block_c)), block_c, 4
    block_c = min(_pow2(ncols), 64)
    return max(1, min(_pow2(nrows), 4096 // block_c)), block_c, 4


def generate_column(region, leaf_list, device_type: str, name: str = "triton_region") -> Kernel:
    first = next(b for b, _ in leaf_list if is_column_reduction(b))
    shape = tuple(int(s) for s in first.args[0].shape)
    lead = leading_dims(first)
    ncols, numel = math.prod(shape[lead:]), math.prod(shape)
    nrows = numel // max(ncols, 1)
    if ncols < 1 or nrows < 2:
        raise Unsupported(f"a column reduction of {list(shape)}")
    big = numel >= 2 ** 31 - 1
    col_shape = _strip(shape[lead:])
    inputs = list(region.inputs)
    check_io(region)
    in_names = {p.name: f"in{k}" for k, p in enumerate(inputs)}
    loop: list = []     # statements inside the loop over rows
    post: list = []     # after it
    init: list = []     # accumulators, before it
    env: dict = {}      # (proxy name, section) -> (expression, kind, space) for loads; name -> value otherwise
    values: dict = {}
    counter = [0]

    def fresh(prefix):
        counter[0] += 1
        return f"{prefix}{counter[0]}"

    def is_col_shape(shp) -> bool:
        return _strip(shp) == col_shape or _strip(shp) == ()

    def load(p, section):
        key = (p.name, section)
        if key in env:
            return env[key]
        ptr, pshape = in_names[p.name], tuple(int(x) for x in p.shape)
        kind = "b" if p.dtype == torch.bool else "f"
        var = fresh("x")
        conv = ".to(tl.float32)" if kind == "f" else ""
        if _strip(pshape) == ():
            line, space = f"    {var} = tl.load({ptr}){conv}", "const"
        elif section == "post":
            if _strip(pshape) != col_shape:
                raise Unsupported(f"the input {p.name} {list(pshape)} used after a column reduction of {list(shape)}")
            line, space = f"    {var} = tl.load({ptr} + cols, mask=cmask){conv}", "col"
        else:
            if not aligns(pshape, shape):
                raise Unsupported(f"the input {p.name} of shape {list(pshape)} does not broadcast to {list(shape)}")
            if _strip(pshape) == _strip(shape):
                off = "offs"
            elif _strip(pshape) == (ncols,) and len(col_shape) == 1:
                off = "cols"  # constant over the rows: one [1, BLOCK_C] load per step
            else:
                terms, stride, offset = [], 1, len(shape) - len(pshape)
                for d in range(len(pshape) - 1, -1, -1):
                    if pshape[d] != 1:
                        d0 = d + offset
                        inner = math.prod(shape[d0 + 1:])
                        idx = "offs" if inner == 1 else f"(offs // {inner})"
                        idx = f"({idx} % {shape[d0]})" if d0 > 0 else idx
                        terms.append(idx if stride == 1 else f"{idx} * {stride}")
                    stride *= pshape[d]
                off = " + ".join(reversed(terms))
            m = "cmask" if off == "cols" else "mask"
            line, space = f"    {var} = tl.load({ptr} + {off}, mask={m}){conv}", "full"
        (loop if section == "loop" else post).append(line + f"  # {p.name}")
        env[key] = (var, kind, space)
        return env[key]

    def value(x, section):
        if isinstance(x, TensorProxy):
            if x.name in values:
                v = values[x.name]
                if section == "loop" and v[2] == "col":
                    raise Unsupported(f"{x.name} is used by the rows after being reduced (a two-pass kernel)")
                if section == "post" and v[2] == "full":
                    raise Unsupported(f"{x.name} is a full value used after a column reduction")
                return v
            if x.name in in_names:
                return load(x, section)
            raise Unsupported(f"{x.name} is used before it is computed")
        if isinstance(x, Proxy):
            raise Unsupported(f"the symbolic number {x.name}")
        return (*literal(x), "const")

    def section_of(args):
        """Where a leaf runs: after the loop if it reads a reduced value, else in it."""
        for a in args:
            if isinstance(a, TensorProxy) and a.name in values and values[a.name][2] == "col":
                return "post"
        return "loop"

    for b, _ in leaf_list:
        sid, out = b.sym.id, b.flat_outs[0]
        if len(b.flat_outs) != 1:
            raise Unsupported(f"{sid} has {len(b.flat_outs)} outputs")
        if sid in COLUMN_REDUCTIONS:
            if leading_dims(b) != lead or tuple(int(s) for s in b.args[0].shape) != shape:
                raise Unsupported(f"{sid} over dims {tuple(_arg(b, 1, 'dims'))} of {list(b.args[0].shape)} in a "
                                  f"column kernel of {list(shape)}")
            expr, kind, space = value(b.args[0], "loop")
            if space != "full":
                raise Unsupported(f"{sid} of a value that is not a full tile")
            neutral, op = COLUMN_REDUCTIONS[sid]
            acc = fresh("acc")
            init.append(f"    {acc} = tl.full([BLOCK_R, BLOCK_C], {neutral}, tl.float32)")
            x = f"tl.where(mask, {expr}{'.to(tl.float32)' if kind == 'b' else ''}, {neutral})"
            loop.append(f"    {acc} = {acc} + {x}" if op == "+" else
                        f"    {acc} = tl.{'maximum' if op == 'max' else 'minimum'}({acc}, {x})")
            res = fresh("v")
            fn = {"+": "tl.sum", "max": "tl.max", "min": "tl.min"}[op]
            post.append(f"    {res} = {fn}({acc}, axis=0, keep_dims=True)  # {sid} -> {out.name}")
            values[out.name] = (res, "f", "col")
        elif sid in ("prims.broadcast_in_dim", "prims.reshape", "prims.squeeze"):
            a = b.args[0]
            v = value(a, section_of([a]))
            if v[2] == "col":
                if not is_col_shape(out.shape):
                    raise Unsupported(f"{sid} of the reduced value {a.name} to {list(out.shape)}")
            elif sid == "prims.broadcast_in_dim":
                bshape, dims = _arg(b, 1, "shape"), tuple(_arg(b, 2, "broadcast_dimensions"))
                if dims != tuple(range(len(bshape) - len(a.shape), len(bshape))):
                    raise Unsupported(f"prims.broadcast_in_dim onto dims {dims} (only trailing dims)")
            elif _strip(a.shape) != _strip(out.shape):
                raise Unsupported(f"{sid} from {list(a.shape)} to {list(out.shape)}")
            values[out.name] = v
        elif sid == "prims.convert_element_type":
            a, dtype = b.args[0], _arg(b, 1, "dtype")
            v = value(a, section_of([a]))
            if dtype == torch.bool:
                values[out.name] = (f"({v[0]} != 0)", "b", v[2]) if v[1] == "f" else v
            elif dtype in (torch.float32, torch.float16, torch.bfloat16, float):
                values[out.name] = (f"{v[0]}.to(tl.float32)", "f", v[2]) if v[1] == "b" else v
            else:
                raise Unsupported(f"conversion to {dtype}")
        elif sid in TEMPLATES:
            if b.kwargs:
                raise Unsupported(f"{sid} with keyword arguments {sorted(b.kwargs)}")
            section = section_of(b.args)
            args = [value(a, section) for a in b.args]
            expr, kind = TEMPLATES[sid](*[(a[0], a[1]) for a in args])
            spaces = {a[2] for a in args} - {"const"}
            space = spaces.pop() if spaces else "const"
            if section == "post" and not is_col_shape(out.shape):
                raise Unsupported(f"{sid} after a column reduction makes {out.name} {list(out.shape)}")
            var = fresh("v")
            (post if section == "post" else loop).append(f"    {var} = {expr}  # {sid} -> {out.name}")
            values[out.name] = (var, kind, space if section == "loop" else "col")
        else:
            raise Unsupported(f"{sid} in a column kernel")

    signature = {f"in{k}": "*" + DTYPES[p.dtype] for k, p in enumerate(inputs)}
    for k, p in enumerate(region.outputs):
        signature[f"out{k}"] = "*" + DTYPES[p.dtype]
        v = values.get(p.name)
        if v is None or v[2] != "col" or not is_col_shape(p.shape) or math.prod(p.shape) != ncols:
            raise Unsupported(f"the output {p.name} {list(p.shape)} is not a reduced value (column kernels write "
                              f"only their [{ncols}] results)")
        expr = v[0]
        if p.dtype == torch.bfloat16 and device_type == "cpu":  # the interpreter truncates: round first
            post.append(f"    rb{k} = {expr}.to(tl.uint32, bitcast=True)")
            post.append(f"    rb{k} = ((rb{k} + 0x7FFF + ((rb{k} >> 16) & 1)) & 0xFFFF0000).to(tl.float32, bitcast=True)")
            post.append(f"    rb{k} = tl.where({expr} != {expr}, {expr}, rb{k})")
            expr = f"rb{k}"
        post.append(f"    tl.store(out{k} + cols, {expr}.to(out{k}.dtype.element_ty), mask=cmask)  # {p.name}")
    block_r, block_c, warps = column_params(nrows, ncols, device_type)
    signature["R"] = "i64" if big else "i32"
    signature["BLOCK_R"] = signature["BLOCK_C"] = "constexpr"
    ops = " ".join(b.sym.id for b in region.bsyms)
    head = [
        "import triton", "import triton.language as tl", "", "", "@triton.jit",
        f"def {name}({', '.join(n for n in signature if not n.startswith('BLOCK'))}, BLOCK_R: tl.constexpr, "
        f"BLOCK_C: tl.constexpr):",
        f"    # {ops}",
        f"    # column kernel: {list(shape)} as {nrows} rows of {ncols}, reduced over the rows (dims 0..{lead - 1})",
        "    cols = tl.program_id(0) * BLOCK_C + tl.arange(0, BLOCK_C)[None, :]",
        f"    cmask = cols < {ncols}",
        *init,
        "    for r0 in range(0, R, BLOCK_R):",
        f"        rows = r0 + tl.arange(0, BLOCK_R)[:, None]{'.to(tl.int64)' if big else ''}",
        "        mask = (rows < R) & cmask",
        f"        offs = rows * {ncols} + cols",
    ]
    source = "\n".join(head + ["    " + line for line in loop] + post) + "\n"
    return Kernel(source, name, "column", shape, numel, -(-ncols // block_c), (nrows,),
                  {"BLOCK_R": block_r, "BLOCK_C": block_c}, warps, signature)
