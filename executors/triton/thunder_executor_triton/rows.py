"""Row kernels: reductions over the last dim of a shape ``S`` with everything around them.

``S`` is viewed as ``R`` rows of ``C = S[-1]`` elements; a program owns ``BLOCK_R`` rows.
Values are tiles, per-row values or constants (:mod:`.rowspace`). A value reduced over all
rows (``[C]``: a norm's weight gradient; one number: a mean loss) is computed across the
kernel's programs (:mod:`.programs`): ``G`` programs (one per multiprocessor) loop
over row blocks and accumulate partial results in registers; the last one to finish combines
them, runs the elementwise epilogue and writes these outputs. So a layer norm's backward
(input gradient per row, weight and bias gradients over rows) is one kernel, and so is
``log_softmax`` + ``nll_loss``.

Gathers and scatters along the row with one index per row (``nll_loss``'s target logit, its
backward's one-hot gradient) are a masked sum over the row and a select.

**Whole rows** (``C`` up to ``tuning.WHOLE_ROW``): ``BLOCK_C >= C``, every row in registers,
reductions and their users in one straight sequence. **Looped rows** (longer: large
vocabularies): the row is walked in ``BLOCK_C`` chunks, once per *pass*. A reduction is
computed in the pass after the values it reads (``amax`` in pass 1, ``x - max`` in pass 2),
accumulated lane-wise over the chunks; a ``sum(exp(y - amax(y)))`` is folded into the
``amax``'s pass as an online softmax (running maximum and rescaled sum), so a softmax, a
log_softmax or a cross-entropy reads its row twice: statistics, then outputs. ``var`` merges
chunk statistics (Chan's parallel formula) in one pass. Full outputs are written in the first
pass that can compute them.
"""

from __future__ import annotations

from .emit import Kernel, Launch, assign, broadcast, convert
from .graph import strip
from .ops import REDUCTIONS, Unsupported
from .pointwise import BIG, needed
from .programs import combine, last_program, partials, reduce_all
from .rowspace import NEG_INF, POS_INF, RowKernel, corr
from .tuning import WHOLE_ROW, cdiv, programs, row_params


def _base(n):
    """The node a view chain starts from."""
    while n.op == "view":
        n = n.args[0]
    return n


def _online_sum(n):
    """The ``amax`` node M if ``n`` is ``sum(exp(y - M))`` with ``M = amax(y)`` over rows."""
    if n.op != "reduce" or n.sid != "prims.sum":
        return None
    e = n.args[0]
    if e.op != "prim" or e.sid != "prims.exp":
        return None
    z = e.args[0]
    if z.op != "prim" or z.sid != "prims.sub":
        return None
    y, b = z.args
    m = _base(b)
    if m.op == "reduce" and m.sid == "prims.amax" and m.args[0] is y and m.attrs["dims"] == n.attrs["dims"]:
        return m
    return None


def generate_row(g, S, device_type: str, variant, name: str) -> Kernel:
    dims = g.dims
    C = S[-1]
    if C == 1:
        raise Unsupported("a reduction over a dim of size 1")
    if variant is None:
        cols = dims.estimate([C])
        variant = (dims.estimate(S) >= BIG, cols > WHOLE_ROW[device_type])
    big, looped = variant
    k = RowKernel(g, S, device_type, big, looped)
    body = _body_looped(k) if looped else _body_whole(k)
    k.register(g.region.outputs)
    pointers = [("ws", "*fp32"), ("cnt", "*i32")] if k.colred else []
    scalars = ("G",) if k.colred else ()
    signature = k.signature(pointers, scalars, ("BLOCK_R", "BLOCK_C"))
    ops = " ".join(b.sym.id for b in g.region.bsyms)
    describe = (f"row kernel over {dims.show(S)} ({'looped over chunks of' if looped else 'whole'} rows"
                + (f", {len(k.colred)} reductions over all rows" if k.colred else "") + ")")
    text = [f"    # {ops}", f"    # {describe}"] + body
    widths = [[C] if k.space[n] == "col" else [] for n in k.colred]
    R_keys, whole_max = list(k.RS), WHOLE_ROW

    def launch(sizes, target, cx=None) -> Launch:
        rows, cols = dims.product(R_keys, sizes), dims.value(C, sizes)
        p = row_params(rows, cols, target, looped)
        blocks = cdiv(rows, p["BLOCK_R"])
        if not k.colred:
            cx = cx or {"BLOCK_R": p["BLOCK_R"], "BLOCK_C": p["BLOCK_C"]}
            return Launch((cdiv(rows, cx["BLOCK_R"]),), cx, p["num_warps"])
        cx = cx or {"BLOCK_R": p["BLOCK_R"], "BLOCK_C": p["BLOCK_C"]}
        G = programs(blocks, target)  # the programs loop over row blocks: any BLOCK_R fits G
        W = sum(dims.product(w, sizes) for w in widths)
        return Launch((G,), cx, p["num_warps"], (G,), ((G * W, _f32()), (1, _i32())))

    def choose(sizes, target) -> tuple:
        return (dims.product(S, sizes) >= BIG, dims.value(C, sizes) > whole_max[target.device_type])

    alternatives = ((big, not looped),) if isinstance(C, tuple) else ()
    return Kernel(k.source(name, signature, text), name, "row", variant, signature, dims,
                  tuple(dims.shape(p) for p in g.region.outputs), launch, describe, choose, alternatives)


def _f32():
    import torch

    return torch.float32


def _i32():
    import torch

    return torch.int32


# ---------------------------------------------------------------------------- whole rows

def _prologue(k) -> list:
    """Row and column index set-up shared by both layouts; returns the pre-loop lines."""
    dims = k.dims
    pre = k.lines = []
    assign(pre, "R", dims.prod(k.RS) if k.RS else "1")
    assign(pre, "C", dims.text(k.C))
    assign(pre, "pid", k.pid())
    return pre


def _row_block(k, lines: list, indent: str) -> None:
    lines += [f"{indent}rows = rb * BLOCK_R + tl.arange(0, BLOCK_R)[:, None]",
              f"{indent}rmask = rows < R",
              f"{indent}roffs = rows * C"]


def _stores(k, vals, outputs) -> list:
    """Store statements of the output nodes ``outputs`` from ``vals``: per-row outputs at their
    rows, the others as tiles (a per-row or constant value broadcast along the row)."""
    lines = k.lines = []
    for j, (p, n) in enumerate(k.g.outputs):
        if not any(n is o for o in outputs):
            continue
        expr, kind = vals[n]
        if k.per_row_output(n):
            if k.space[n] == "const":
                expr = broadcast(expr, kind, "[BLOCK_R, 1]")
            lines.append(f"    tl.store(out{j} + rows, {k.stored(j, p.dtype, (expr, kind))}, mask=rmask)  # {p.name}")
        else:
            if k.space[n] != "full":
                expr = broadcast(expr, kind, "[BLOCK_R, BLOCK_C]")
            lines.append(f"    tl.store(out{j} + offs, {k.stored(j, p.dtype, (expr, kind))}, mask=mask)  # {p.name}")
    return lines


def _per_row_outputs(k) -> list:
    return [n for _, n in k.g.outputs if k.per_row_output(n)]


def _full_outputs(k) -> list:
    return [n for _, n in k.g.outputs if k.space[n] not in ("col", "scalar") and not k.per_row_output(n)]


def _body_whole(k) -> list:
    pre = _prologue(k)
    pre += ["    cols = tl.arange(0, BLOCK_C)[None, :]", "    cmask = cols < C"]
    loop: list = []
    vals: dict = {}
    persistent = bool(k.colred)
    roots = [n for _, n in k.g.outputs if k.space[n] not in ("col", "scalar")] + [n.args[0] for n in k.colred]

    def route(n):
        s = k.space[n]
        if s == "const" or (persistent and n.op == "input" and s == "full" and strip(n.shape) == (k.C,)):
            return pre  # loaded once per program
        return loop

    ind = "        " if persistent else "    "
    head = []
    if persistent:
        head.append("    for rb in range(pid, tl.cdiv(R, BLOCK_R), G):")
    else:
        head.append("    rb = pid")
    _row_block(k, head, ind)
    head += [f"{ind}mask = rmask & cmask", f"{ind}offs = roffs + cols"]
    k.emit_needed(roots, vals, route)
    per_row, whole = _stores(k, vals, _per_row_outputs(k)), _stores(k, vals, _full_outputs(k))
    k.lines = acc_lines = []
    init = []
    for j, n in enumerate(k.colred):
        x = convert(vals[n.args[0]], "f")[0]
        shape = "[1, BLOCK_C]" if k.space[n] == "col" else "[BLOCK_R, 1]"
        neutral = REDUCTIONS[n.sid][0]
        init.append(f"    acc{j} = tl.full({shape}, {neutral}, tl.float32)  # {n.sid} over all rows -> {n.label}")
        if k.space[n] == "col":
            part = k._reduce_tile(n.sid, x, 0, "mask")
        else:
            part = f"tl.where(rmask, {x}, {neutral})"
        acc_lines.append(f"    acc{j} = {combine(n.sid, f'acc{j}', part)}")
    body = loop + per_row + whole + acc_lines
    out = pre + init + head + [ind[4:] + line if persistent else line for line in body]
    if persistent:
        out += _combine_programs(k)
    return out


def _combine_programs(k) -> list:
    """Partial results to the workspace; the last program combines them and writes the
    reductions over all rows and their epilogue."""
    widths = ["C" if k.space[n] == "col" else "1" for n in k.colred]
    lines = [f"    W = {' + '.join(widths)}"]
    fin: list = []
    vals: dict = {}
    for j, n in enumerate(k.colred):
        off = " + ".join(widths[:j]) or "0"
        if k.space[n] == "col":
            lines.append(f"    tl.store(ws + pid * W + {off} + cols, acc{j}, mask=cmask)")
            fin += partials(j, n.sid, "[1, BLOCK_C]", f"gi * W + {off} + cols", " & cmask", "G")
        else:
            part = reduce_all(n.sid, f"acc{j}")
            lines.append(f"    tl.store(ws + pid * W + {off} + tl.zeros([1, 1], tl.int32), {part})")
            fin += partials(j, n.sid, "[1, 1]", f"gi * W + {off}", "", "G")
        vals[n] = (f"tot{j}", "f")
    lines += last_program("cnt", "G")
    # the epilogue on reduced values, and the outputs
    want = needed([n for _, n in k.g.outputs if k.space[n] in ("col", "scalar")], vals)
    k.lines = fin
    for n in k.g.nodes:
        if n in want and n not in vals:  # reduced values, constants, and what they make
            vals[n] = k.load(n, "0", "") if n.op == "input" else k._emit(n, vals)
    for j, (p, n) in enumerate(k.g.outputs):
        s = k.space[n]
        if s not in ("col", "scalar"):
            continue
        expr, kind = vals[n]
        where = "cols" if s == "col" else "tl.zeros([1, 1], tl.int32)"
        m = ", mask=cmask" if s == "col" else ""
        value = k.stored(j, p.dtype, (expr, kind))
        fin.append(f"    tl.store(out{j} + {where}, {value}{m})  # {p.name}")
    return lines + ["    " + line for line in fin]


# ---------------------------------------------------------------------------- looped rows

def _passes(k):
    """The pass of each row reduction/gather, online-softmax sums folded into their amax's,
    and the pass each value is ready after (0: before any)."""
    ready: dict = {}
    passes: dict = {}
    online: dict = {}   # sum node -> amax node

    def need(n) -> int:
        return ready.get(n, 0)

    for n in k.g.nodes:
        s = k.space[n]
        if n in k.row_ops:
            m = _online_sum(n)
            if m is not None and m in passes:
                online[n] = m
                passes[n] = passes[m]
            else:
                passes[n] = max(need(a) for a in n.args) + 1
            ready[n] = passes[n]
        elif s in ("col", "scalar"):
            ready[n] = 10 ** 9
        else:
            ready[n] = max((need(a) for a in n.args), default=0)
    return passes, ready, online


def _body_looped(k) -> list:
    passes, ready, online = _passes(k)
    full_outs = _full_outputs(k)
    last_red = max(passes.values(), default=0)
    out_pass = {n: ready[n] + 1 for n in full_outs}
    npass = max([last_red] + list(out_pass.values()) + [1])
    pre = _prologue(k)
    persistent = bool(k.colred)
    vals: dict = {}
    block: list = []        # the row block's statements
    ind = "        " if persistent else "    "
    head = ["    for rb in range(pid, tl.cdiv(R, BLOCK_R), G):"] if persistent else ["    rb = pid"]
    _row_block(k, head, ind)
    for p in range(1, npass + 1):
        seg: list = []      # per-row statements before this pass's loop
        chunk: list = []
        after: list = []
        reds = [n for n in k.row_ops if passes[n] == p]
        outs = [n for n in full_outs if out_pass[n] == p]

        def route(n, seg=seg, chunk=chunk):
            s = k.space[n]
            if s == "const":
                return pre
            if s in ("row", "rowvec"):
                return None if n in k.row_ops else seg
            return chunk

        chunk += ["    cols = c0 + tl.arange(0, BLOCK_C)[None, :]", "    cmask = cols < C",
                  "    mask = rmask & cmask", "    offs = roffs + cols"]
        cvals = {n: v for n, v in vals.items() if k.space[n] != "full"}
        roots = [a for n in reds for a in n.args if n not in online] + outs
        k.emit_needed(roots, cvals, route)
        for n in reds:
            j = k.row_ops.index(n)
            if n in online:
                continue
            x = cvals[n.args[0]]
            if n.op == "gather":  # the one element per row where the column is the index
                idx = cvals[n.args[1]][0]
                kind = "f" if n.kind == "f" else "i"
                zeros = "tl.float32" if kind == "f" else "tl.int64"
                seg.append(f"    g{j} = tl.zeros([BLOCK_R, BLOCK_C], {zeros})")
                chunk.append(f"    g{j} += tl.where(mask & (cols == {idx}), {convert(x, kind)[0]}, 0)")
                after.append(f"    r{j} = tl.sum(g{j}, axis=1, keep_dims=True)  # prims.gather -> {n.label}")
                vals[n] = convert((f"r{j}", kind), n.kind)
                continue
            xf = convert(x, "f")[0]
            if n.sid == "prims.sum":
                seg.append(f"    a{j} = tl.zeros([BLOCK_R, BLOCK_C], tl.float32)")
                chunk.append(f"    a{j} += tl.where(mask, {xf}, 0.0)")
                after.append(f"    r{j} = tl.sum(a{j}, axis=1, keep_dims=True)  # prims.sum -> {n.label}")
            elif n.sid in ("prims.amax", "prims.amin"):
                neutral = NEG_INF if n.sid == "prims.amax" else POS_INF
                fn = "tl.maximum" if n.sid == "prims.amax" else "tl.minimum"
                seg.append(f"    a{j} = tl.full([BLOCK_R, BLOCK_C], {neutral}, tl.float32)")
                sums = [s for s, m in online.items() if m is n]
                if sums:  # online softmax: a running maximum per lane and the sum rescaled to it
                    chunk.append(f"    y{j} = tl.where(mask, {xf}, {neutral})")
                    chunk.append(f"    om{j} = tl.maximum(a{j}, y{j}, propagate_nan=tl.PropagateNan.ALL)")
                    for s in sums:
                        i = k.row_ops.index(s)
                        seg.append(f"    a{i} = tl.zeros([BLOCK_R, BLOCK_C], tl.float32)")
                        chunk.append(f"    a{i} = a{i} * tl.where(om{j} == {NEG_INF}, 1.0, tl.exp(a{j} - om{j})) + "
                                     f"tl.where(om{j} == {NEG_INF}, 0.0, tl.exp(y{j} - om{j}))")
                    chunk.append(f"    a{j} = om{j}")
                else:
                    chunk.append(f"    a{j} = {fn}(a{j}, tl.where(mask, {xf}, {neutral}), "
                                 f"propagate_nan=tl.PropagateNan.ALL)")
                k.lines = after
                after.append(f"    r{j} = {k._reduce_tile(n.sid, f'a{j}', 1, 'rmask')}  # {n.sid} -> {n.label}")
                for s in sums:
                    i = k.row_ops.index(s)
                    after.append(f"    r{i} = tl.sum(a{i} * tl.where(a{j} == {NEG_INF}, 0.0, tl.exp(a{j} - r{j})), "
                                 f"axis=1, keep_dims=True)  # prims.sum (online) -> {s.label}")
                    vals[s] = (f"r{i}", "f")
            else:  # var: chunk statistics merged (Chan et al.)
                seg += [f"    {v}{j} = tl.zeros([BLOCK_R, 1], tl.float32)" for v in "nuq"]
                chunk += [f"    cn{j} = tl.sum(tl.where(mask, 1.0, 0.0), axis=1, keep_dims=True)",
                          f"    cu{j} = tl.sum(tl.where(mask, {xf}, 0.0), axis=1, keep_dims=True) / "
                          f"tl.maximum(cn{j}, 1.0)",
                          f"    cd{j} = tl.where(mask, {xf} - cu{j}, 0.0)",
                          f"    cq{j} = tl.sum(cd{j} * cd{j}, axis=1, keep_dims=True)",
                          f"    dl{j} = cu{j} - u{j}",
                          f"    tn{j} = n{j} + cn{j}",
                          f"    u{j} = u{j} + dl{j} * cn{j} / tl.maximum(tn{j}, 1.0)",
                          f"    q{j} = q{j} + cq{j} + dl{j} * dl{j} * n{j} * cn{j} / tl.maximum(tn{j}, 1.0)",
                          f"    n{j} = tn{j}"]
                after.append(f"    r{j} = q{j} / (C - {corr(n)})  # prims.var -> {n.label}")
            vals[n] = (f"r{j}", "f")
        whole = _stores(k, cvals, outs)
        block += seg + ["    for c0 in range(0, C, BLOCK_C):"] + ["    " + line for line in chunk + whole] + after
        for n, v in cvals.items():
            if k.space[n] != "full":
                vals.setdefault(n, v)
    # per-row values needed after the passes: per-row outputs and reductions over all rows
    tail: list = []

    def route_tail(n):
        s = k.space[n]
        if s == "const":
            return pre
        if s in ("row", "rowvec"):
            return None if n in k.row_ops else tail
        raise Unsupported(f"{n.label}: a full value needed after the row's passes")

    roots = _per_row_outputs(k) + [n.args[0] for n in k.colred]
    k.emit_needed(roots, vals, route_tail)
    per = _stores(k, vals, _per_row_outputs(k))
    init, accs = [], []
    for j, n in enumerate(k.colred):
        neutral = REDUCTIONS[n.sid][0]
        init.append(f"    acc{j} = tl.full([BLOCK_R, 1], {neutral}, tl.float32)  # {n.sid} over all rows -> {n.label}")
        x = convert(vals[n.args[0]], "f")[0]
        accs.append(f"    acc{j} = {combine(n.sid, f'acc{j}', f'tl.where(rmask, {x}, {neutral})')}")
    body = block + tail + per + accs
    out = pre + init + head + [ind[4:] + line if persistent else line for line in body]
    if persistent:
        out += ["    cols = tl.arange(0, BLOCK_C)[None, :]", "    cmask = cols < C"] + _combine_programs(k)
    return out
