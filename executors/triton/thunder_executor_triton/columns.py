"""Reduction kernels: ``sum``/``amax``/``amin`` over any set of dims ``D`` of a shape ``S``
other than the last dim alone (that is a row kernel): a linear layer's bias gradient
(``sum(dim=0)`` of ``[N, C]``), a broadcast position embedding's (``(0,)`` of ``[B, T, C]``),
a convolution bias gradient (``(0, 2, 3)`` of ``[N, C, H, W]``), a middle dim, everything.

``S`` is viewed as ``O`` outputs (its kept dims ``K``, flattened) times ``RR`` reduced
elements (its dims ``D``, flattened): the flat offset of element ``(o, r)`` is
``obase(o) + rbase(r)``, each a sum of per-dim indices (``(o // inner) % size``) times ``S``'s
strides, which collapses to ``r * O + o`` for leading dims and ``o * RR + r`` for trailing
ones. A program owns ``BLOCK_O`` outputs and loops over its share of the reduced elements
``BLOCK_R`` at a time, computing the elementwise prologue of each ``[BLOCK_R, BLOCK_O]`` tile
and accumulating lane-wise in float32; after the loop it reduces the lanes, runs the
elementwise epilogue on the ``[1, BLOCK_O]`` results and stores the reduced outputs.

When few outputs reduce many elements (a bias gradient of a large batch, a full sum),
``SPLIT`` programs share each block of outputs: each writes its partial results to a
workspace, and the last one to finish (an atomic counter per block) combines them and runs
the epilogue. A full value that depends on a reduced one (``x - x.mean(0)``, two passes) is
not generated, and full outputs are not written: such regions are cut before them.
"""

from __future__ import annotations

from .emit import Emitter, Kernel, Launch, assign, broadcast, convert
from .graph import aligns, strip
from .ops import REDUCTIONS, Unsupported
from .pointwise import BIG, needed
from .programs import combine, last_program, partials, reduce_all
from .tuning import cdiv, reduce_params

NEG_INF = '-float("inf")'


def _padded(shape, S) -> tuple:
    return (1,) * (len(S) - len(shape)) + tuple(shape[len(shape) - len(S):] if len(shape) > len(S) else shape)


class ReduceKernel(Emitter):
    def __init__(self, g, S, device_type: str, big: bool, split: bool):
        super().__init__(g, device_type, big)
        self.S, self.split = S, split
        reds = [n for n in g.nodes if n.op == "reduce"]
        moved = next((n for n in g.nodes if n.op in ("gather", "scatter")), None)
        if moved is not None or not reds:
            raise Unsupported(f"{moved.sid} along dim {moved.attrs['dim']} of {self.dims.show(moved.args[0].shape)} "
                              f"(only along the last dim, one index per row)")
        first = reds[0]
        self.D = first.attrs["dims"]
        self.K = tuple(d for d in range(len(S)) if d not in self.D)
        self.space: dict = {}
        for n in g.nodes:
            self.space[n] = self._classify(n)
        want = needed([n for _, n in g.outputs])
        self.reds = [n for n in reds if n in want]
        for p, n in g.outputs:
            if self.space[n] not in ("out", "const") or not self._is_out_shape(n.shape):
                raise Unsupported(f"the output {p.name} {self.dims.show(n.shape)} is not a reduced value (reduction "
                                  f"kernels write only their reduced results)")

    def _varies(self, shape) -> set:
        """The dims of ``S`` along which a value of ``shape`` (NumPy-aligned) varies."""
        P = _padded(shape, self.S)
        return {d for d, k in enumerate(P) if k != 1}

    def _is_out_shape(self, shape) -> bool:
        return [k for k in shape if k != 1] == [self.S[d] for d in self.K if self.S[d] != 1]

    def _classify(self, n) -> str:
        sp, dims = self.space, self.dims
        if n.op in ("literal", "number", "full"):
            return "const"
        if n.op == "input":
            return "const" if all(k == 1 for k in n.shape) else "input"
        a = n.args[0] if n.args else None
        if n.op == "convert":
            return sp[a]
        if n.op == "view":
            s = sp[a]
            if s in ("const",):
                return s
            if s == "out":
                if [k for k in a.shape if k != 1] != [k for k in n.shape if k != 1]:
                    raise Unsupported(f"{n.sid} of the reduced value {a.label} to {dims.show(n.shape)}")
                return s
            if n.sid == "prims.broadcast_in_dim":
                rank, arank = len(n.shape), len(a.shape)
                if n.attrs["dims"] != tuple(range(rank - arank, rank)):
                    raise Unsupported(f"prims.broadcast_in_dim onto dims {n.attrs['dims']} (only trailing dims)")
            elif strip(a.shape) != strip(n.shape):
                raise Unsupported(f"{n.sid} from {dims.show(a.shape)} to {dims.show(n.shape)}")
            return "loop" if s == "input" else s
        if n.op == "prim":
            found = {"loop" if sp[x] == "input" else sp[x] for x in n.args} - {"const"}
            if "out" in found:
                for x in n.args:
                    if sp[x] == "loop" or (sp[x] == "input" and not self._varies(x.shape) <= set(self.K)):
                        raise Unsupported(f"{x.label} is used by the rows after being reduced (a two-pass kernel)")
                return "out"
            if found and not aligns(n.shape, self.S):
                raise Unsupported(f"{n.sid} makes {n.label} {dims.show(n.shape)}, which does not broadcast to "
                                  f"{dims.show(self.S)}")
            return "loop" if found else "const"
        if n.op == "reduce":
            s = sp[a]
            if n.sid == "prims.var" or n.attrs["dims"] != self.D or a.shape != self.S or s not in ("loop", "input"):
                raise Unsupported(f"{n.sid} over dims {n.attrs['dims']} of {a.label} {dims.show(a.shape)} in a "
                                  f"reduction kernel over dims {self.D} of {dims.show(self.S)}")
            return "out"
        raise Unsupported(f"{n.sid} in a reduction kernel")

    # ---------------------------------------------------------------- offsets

    def base(self, which: str, var: str) -> str:
        """The part of the flat offset into ``S`` from the kept (``"o"``) or reduced
        (``"r"``) index ``var``: runs of adjacent dims count as one (``(0, 2, 3)`` of
        ``[N, C, H, W]`` is ``(r // HW) * C*H*W + r % HW``)."""
        sub = [d for d in (self.K if which == "o" else self.D) if self.S[d] != 1]
        runs: list = []
        for d in sub:
            if runs and runs[-1][-1] == d - 1 or runs and all(self.S[x] == 1 for x in range(runs[-1][-1] + 1, d)):
                runs[-1].append(d)
            else:
                runs.append([d])
        terms = []
        for j, run in enumerate(runs):
            size = [self.S[d] for d in run]
            inner = [self.S[d] for r in runs[j + 1:] for d in r]
            idx = var if not inner else f"({var} // {self.dims.prod(inner)})"
            if j > 0:
                idx = f"({idx} % {self.dims.prod(size)})"
            stride = [k for k in self.S[run[-1] + 1:] if k != 1]
            terms.append(idx if not stride else f"{idx} * {self.dims.prod(stride)}")
        return " + ".join(terms) or "0"

    def load_input(self, n, section: str):
        varies = self._varies(n.shape)
        if section == "post" or (varies <= set(self.K) and varies):
            if not varies <= set(self.K):
                raise Unsupported(f"the input {n.label} {self.dims.show(n.shape)} used after the reduction varies "
                                  f"along reduced dims")
            sub = [d for d in self.K]
            shape = tuple(_padded(n.shape, self.S)[d] for d in sub)
            off = self.offset(shape, tuple(self.S[d] for d in sub), "o")
            return self.load(n, off, "omask")
        return self.load(n, self.offset(n.shape, self.S, "offs"), "mask")


def generate_reduce(g, S, device_type: str, variant, name: str) -> Kernel:
    dims = g.dims
    if variant is None:
        from .tuning import CPU, Target

        t = CPU if device_type == "cpu" else Target("cuda", "cuda", 132)
        k0 = [d for d in range(len(S))]
        reds = [n for n in g.nodes if n.op == "reduce"]
        D = reds[0].attrs["dims"] if reds else ()
        O = dims.estimate([S[d] for d in k0 if d not in D])
        RR = dims.estimate([S[d] for d in D])
        # symbolic sizes: always the split layout (SPLIT=1 when one program suffices), so one
        # kernel serves every size
        variant = (dims.estimate(S) >= BIG, reduce_params(O, RR, t)["SPLIT"] > 1 or _symbolic(S))
    big, split = variant
    k = ReduceKernel(g, S, device_type, big, split)
    O_keys = [S[d] for d in k.K]
    R_keys = [S[d] for d in k.D]
    pre = k.lines = []
    assign(pre, "O", dims.prod(O_keys) if O_keys else "1")
    assign(pre, "RR", dims.prod(R_keys))
    assign(pre, "po", k.pid(0))
    assign(pre, "o", "po * BLOCK_O + tl.arange(0, BLOCK_O)[None, :]")
    assign(pre, "omask", "o < O")
    if split:
        assign(pre, "ps", k.pid(1))
        assign(pre, "step", "tl.cdiv(tl.cdiv(RR, SPLIT), BLOCK_R) * BLOCK_R")
        assign(pre, "r_lo", "ps * step")
        assign(pre, "r_hi", "tl.minimum(r_lo + step, RR)")
    else:
        pre += ["    r_lo = 0", "    r_hi = RR"]
    assign(pre, "obase", k.base("o", "o"))
    loop: list = []
    post: list = []
    vals: dict = {}         # node -> value, per section
    loop_vals: dict = {}
    for j, n in enumerate(k.reds):
        neutral = REDUCTIONS[n.sid][0]
        pre.append(f"    acc{j} = tl.full([BLOCK_R, BLOCK_O], {neutral}, tl.float32)  # {n.sid} -> {n.label}")
    loop_head = ["    for r0 in range(r_lo, r_hi, BLOCK_R):",
                 "        r = r0 + tl.arange(0, BLOCK_R)[:, None]",
                 "        mask = (r < r_hi) & omask",
                 f"        offs = {k.base('r', 'r')} + obase"]
    # the prologue of every reduction, in the loop
    want_loop = needed([n.args[0] for n in k.reds])
    k.lines = loop
    for n in g.nodes:
        if n not in want_loop:
            continue
        s = k.space[n]
        if s == "const" and n.op != "input":
            loop_vals[n] = _value(k, n, loop_vals)
        elif n.op == "input":
            k.lines = pre if s == "const" else loop
            loop_vals[n] = k.load(n, "0", "") if s == "const" else k.load_input(n, "loop")
            k.lines = loop
        else:
            loop_vals[n] = _value(k, n, loop_vals)
    for j, n in enumerate(k.reds):
        x = convert(loop_vals[n.args[0]], "f")[0]
        neutral = REDUCTIONS[n.sid][0]
        loop.append(f"    acc{j} = {combine(n.sid, f'acc{j}', f'tl.where(mask, {x}, {neutral})')}")
    for j, n in enumerate(k.reds):
        post.append(f"    red{j} = {reduce_all(n.sid, f'acc{j}')}")
    epilogue: list = []
    for j, n in enumerate(k.reds):
        if split:  # partial results of this program's share; the last one combines
            post.append(f"    tl.store(ws + ({j} * SPLIT + ps) * O + o, red{j}, mask=omask)")
            epilogue += partials(j, n.sid, "[1, BLOCK_O]", f"({j} * SPLIT + gi) * O + o", " & omask", "SPLIT")
        vals[n] = (f"tot{j}" if split else f"red{j}", "f")
    if split:
        post += last_program("cnt + po", "SPLIT")
    k.lines = epilogue
    want = needed([n for _, n in g.outputs], vals)
    for n in g.nodes:
        if n in want and n not in vals:
            s = k.space[n]
            if n.op == "input":
                vals[n] = k.load(n, "0", "") if s == "const" else k.load_input(n, "post")
            elif s in ("out", "const"):
                vals[n] = _value(k, n, vals)
    for j, (p, n) in enumerate(g.outputs):
        expr, kind = vals[n]
        if k.space[n] == "const":
            expr = broadcast(expr, kind, "[1, BLOCK_O]")
        epilogue.append(f"    tl.store(out{j} + o, {k.stored(j, p.dtype, (expr, kind))}, mask=omask)  # {p.name}")
    k.register(g.region.outputs)
    pointers = [("ws", "*fp32"), ("cnt", "*i32")] if split else []
    signature = k.signature(pointers, ("SPLIT",) if split else (), ("BLOCK_R", "BLOCK_O"))
    describe = (f"reduction kernel: dims {k.D} of {dims.show(S)}" + (", split across programs" if split else ""))
    ops = " ".join(b.sym.id for b in g.region.bsyms)
    body = [f"    # {ops}", f"    # {describe}"] + pre + loop_head + ["    " + line for line in loop] + post
    body += (["    " + line for line in epilogue] if split else epilogue)
    nreds = len(k.reds)

    def launch(sizes, target, cx=None) -> Launch:
        O, RR = dims.product(O_keys, sizes), dims.product(R_keys, sizes)
        p = reduce_params(O, RR, target)
        cx = cx or {"BLOCK_R": p["BLOCK_R"], "BLOCK_O": p["BLOCK_O"]}
        blocks = max(1, cdiv(O, cx["BLOCK_O"]))
        if not split:
            return Launch((blocks if O else 0,), cx, p["num_warps"])
        # counters for as many blocks as any BLOCK_O of 16 or more (or at least O) makes
        return Launch((blocks if O else 0, p["SPLIT"]), cx, p["num_warps"], (p["SPLIT"],),
                      ((nreds * p["SPLIT"] * O, _f32()), (max(1, cdiv(O, 16)), _i32())))

    def choose(sizes, target) -> tuple:
        return (dims.product(S, sizes) >= BIG, split)

    alternatives = ()
    return Kernel(k.source(name, signature, body), name, "reduce", variant, signature, dims,
                  tuple(dims.shape(p) for p in g.region.outputs), launch, describe, choose, alternatives)


def _symbolic(S) -> bool:
    return any(isinstance(k, tuple) for k in S)


def _value(k, n, vals):
    args = [vals[a] for a in n.args]
    if n.op in ("literal", "number"):
        return n.attrs["expr"], n.kind
    if n.op in ("full", "convert"):
        return convert(args[0], n.kind)
    if n.op == "view":
        return args[0]
    if n.op == "prim":
        return k.template(n, args)
    raise Unsupported(f"{n.sid} in a reduction kernel")


def _f32():
    import torch

    return torch.float32


def _i32():
    import torch

    return torch.int32
