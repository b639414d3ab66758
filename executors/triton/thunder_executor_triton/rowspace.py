"""The spaces of a row kernel's values, and the statements that compute them.

A row kernel works on a shape ``S`` viewed as ``R`` rows of ``C = S[-1]`` elements; a program
owns ``BLOCK_R`` rows. A value of the kernel lives in one of these *spaces*:

- ``full``: a ``[BLOCK_R, BLOCK_C]`` tile (varies along the row);
- ``row``: one value per row, ``[BLOCK_R, 1]``, in a shape that broadcasts along the row (a
  kept reduced dim: a reduction's result reshaped to ``[..., 1]``, a ``[B, 1, 1]`` input);
- ``rowvec``: one value per row in the reduced shape (``x.mean(-1)`` of ``[R, C]`` is ``[R]``).
  NumPy broadcasting would pair it with columns, so it may only be viewed back along its rows,
  combined with other ``rowvec`` values, stored, or reduced over all rows;
- ``const``: a literal, a number, a 0-d tensor;
- ``col``/``scalar``: a ``full`` value reduced over all rows (``[C]``) or a per-row value
  reduced over all rows (one number), combined across programs (:mod:`.programs`).

:class:`RowKernel` classifies every value (declining, with the reason, what a row kernel
cannot compute) and emits values into the line list a layout (:mod:`.rows`) routes them to.
"""

from __future__ import annotations

from .emit import Emitter, assign, convert
from .graph import aligns, strip
from .ops import Unsupported
from .pointwise import needed

NEG_INF, POS_INF = '-float("inf")', 'float("inf")'
PER_ROW = ("row", "rowvec")


class RowKernel(Emitter):
    def __init__(self, g, S, device_type: str, big: bool, looped: bool):
        super().__init__(g, device_type, big)
        self.S, self.looped = S, looped
        self.RS = S[:-1]
        self.C = S[-1]
        self.space: dict = {}
        self.colred: list = []      # reductions over all rows, in order
        self.row_ops: list = []     # row reductions and gathers, in order
        for n in g.nodes:
            self.space[n] = self._classify(n)
        for p, n in g.outputs:
            self._check_output(p, n)
        want = needed([n for _, n in g.outputs])
        self.colred = [n for n in self.colred if n in want]
        self.row_ops = [n for n in self.row_ops if n in want]

    # ---------------------------------------------------------------- spaces

    def per_row_shape(self, shape) -> bool:
        rs = strip(self.RS)
        return strip(shape) == rs or (bool(shape) and shape[-1] == 1 and strip(shape[:-1]) == rs)

    def per_row_output(self, n) -> bool:
        """Is output ``n`` written one value per row (not a tile, not reduced over all rows)?"""
        s = self.space[n]
        return s == "rowvec" or (s in ("row", "const") and self.per_row_shape(n.shape))

    def _input_space(self, n) -> str:
        P = n.shape
        if all(k == 1 for k in P):
            return "const"
        if aligns(P, self.S) and P[-1] == self.C:
            return "full"
        if aligns(P, self.S) and P[-1] == 1:
            return "row"
        if strip(P) == strip(self.RS):
            return "rowvec"
        raise Unsupported(f"the input {n.label} of shape {self.dims.show(P)} is neither a tile, a row value nor "
                          f"a per-row value of the row kernel over {self.dims.show(self.S)}")

    def _classify(self, n) -> str:
        sp, dims = self.space, self.dims
        if n.op == "input":
            return self._input_space(n)
        if n.op in ("literal", "number", "full"):
            if n.op == "full" and sp[n.args[0]] != "const":
                raise Unsupported("prims.full of a computed value")
            return "const"
        a = n.args[0] if n.args else None
        if n.op == "convert":
            return sp[a]
        if n.op == "view":
            s = sp[a]
            if s == "const":
                return s
            if n.sid == "prims.broadcast_in_dim":
                rank, arank, bdims = len(n.shape), len(a.shape), n.attrs["dims"]
                if s == "rowvec" and bdims == tuple(range(arank)) and rank == arank + 1:
                    return "row"
                if bdims == tuple(range(rank - arank, rank)) and s != "rowvec" and aligns(n.shape, self.S):
                    return s
            elif s in PER_ROW and self.per_row_shape(a.shape) and self.per_row_shape(n.shape):
                return "row" if (not n.shape or n.shape[-1] == 1) and aligns(n.shape, self.S) else "rowvec"
            elif s in ("col", "scalar") and strip(tuple(k for k in n.shape if k != 1)) == \
                    strip(tuple(k for k in a.shape if k != 1)):
                return s
            elif strip(a.shape) == strip(n.shape) and s != "rowvec":
                return s
            raise Unsupported(f"{n.sid} of {a.label} {dims.show(a.shape)} to {dims.show(n.shape)} in a row kernel "
                              f"(only NumPy broadcasting, leading 1s, or a per-row value along its row)")
        if n.op == "prim":
            found = {sp[x] for x in n.args} - {"const"}
            if not found:
                return "const"
            if found & {"col", "scalar"}:
                if found - {"col", "scalar"}:
                    raise Unsupported(f"{n.sid} uses a value reduced over all rows together with the rows' values "
                                      f"(two passes over the rows)")
                return "col" if "col" in found else "scalar"
            if "rowvec" in found and len(found) > 1:
                raise Unsupported("a per-row value in its reduced shape combined with full or kept-dim values "
                                  "(NumPy broadcasting would pair it with columns)")
            if "full" not in found and "rowvec" not in found and not aligns(n.shape, self.S):
                raise Unsupported(f"{n.sid} makes {n.label} {dims.show(n.shape)}, not aligned to the rows of "
                                  f"{dims.show(self.S)}")
            if "full" in found and not aligns(n.shape, self.S):
                raise Unsupported(f"{n.sid} makes {n.label} of shape {dims.show(n.shape)}, which does not broadcast to "
                                  f"the iteration shape {dims.show(self.S)}")
            return "full" if "full" in found else found.pop()
        if n.op == "reduce":
            s, last = sp[a], len(a.shape) - 1
            if s == "full" and a.shape == self.S and n.attrs["dims"] == (last,):
                self.row_ops.append(n)
                return "rowvec"
            if s == "full" and a.shape == self.S and n.attrs["dims"] == tuple(range(last)) and n.sid != "prims.var":
                if self.looped:
                    raise Unsupported("a reduction over all rows of values along rows longer than one program holds")
                self.colred.append(n)
                return "col"
            if s in PER_ROW and n.sid != "prims.var" and \
                    all(d in n.attrs["dims"] for d, k in enumerate(a.shape) if k != 1):
                self.colred.append(n)
                return "scalar"
            raise Unsupported(f"{n.sid} over dims {n.attrs['dims']} of {a.label} {dims.show(a.shape)} in a row kernel "
                              f"over {dims.show(self.S)} (rows: the last dim; or over all rows)")
        if n.op in ("gather", "scatter"):
            x, idx = n.args[0], n.args[1]
            last = len(self.S) - 1
            src_ok = n.op == "gather" or (sp[n.args[2]] in ("row", "const") and self.per_row_shape(n.args[2].shape))
            if n.attrs["dim"] != last or sp[idx] != "row" or not self.per_row_shape(idx.shape) or not src_ok or \
                    (n.op == "gather" and (sp[x] != "full" or x.shape != self.S)) or \
                    (n.op == "scatter" and (sp[x] not in ("full", "const") or n.shape != self.S)):
                raise Unsupported(f"{n.sid} of {x.label} {dims.show(x.shape)} along dim {n.attrs['dim']} with index "
                                  f"{idx.label} {dims.show(idx.shape)} (row kernels move one value per row along the "
                                  f"last dim)")
            if n.op == "gather":
                self.row_ops.append(n)
                return "row"
            return "full"
        raise Unsupported(f"{n.sid} in a row kernel")

    def _check_output(self, p, n) -> None:
        s = self.space[n]
        if s in ("col", "scalar"):
            if s == "col" and [k for k in n.shape if k != 1] != [self.C]:
                raise Unsupported(f"the output {p.name} {self.dims.show(n.shape)} of a reduction over all rows")
            return
        if s == "rowvec" or (s in ("row", "const") and self.per_row_shape(n.shape)):
            if not self.per_row_shape(n.shape):
                raise Unsupported(f"the output {p.name} pairs per-row values with columns")
            return
        if strip(n.shape) != strip(self.S):
            raise Unsupported(f"the output {p.name} of shape {self.dims.show(n.shape)} is neither full "
                              f"{self.dims.show(self.S)} nor per row")

    # ---------------------------------------------------------------- emission helpers

    def _load(self, n, sp: str):
        P = n.shape
        if sp == "const":
            return self.load(n, "0", "")
        if sp == "full":
            if strip(P) == (self.C,):
                return self.load(n, "cols", "cmask")
            return self.load(n, self.offset(P, self.S, "offs"), "mask")
        if sp == "rowvec" or strip(P[:-1]) == strip(self.RS):
            return self.load(n, "rows", "rmask")
        return self.load(n, self.offset(P[:-1], self.RS, "rows"), "rmask")

    def _reduce_tile(self, sid: str, x: str, axis: int, mask: str) -> str:
        """A reduction of a tile along ``axis`` (keep_dims), NaN-propagating for amax/amin."""
        if sid == "prims.sum":
            return f"tl.sum(tl.where({mask}, {x}, 0.0), axis={axis}, keep_dims=True)"
        fn, neutral = ("tl.max", NEG_INF) if sid == "prims.amax" else ("tl.min", POS_INF)
        m = assign(self.lines, self.fresh("mr"), f"{fn}(tl.where({mask}, {x}, {neutral}), axis={axis}, keep_dims=True)")
        nan = f"tl.max(tl.where({mask} & ({x} != {x}), 1, 0), axis={axis}, keep_dims=True)"
        return f"tl.where({nan} > 0, float(\"nan\"), {m})"

    def _emit(self, n, vals: dict):
        """Emit ``n`` into the current scope from its arguments' values in ``vals``."""
        sp = self.space[n]
        args = [vals[a] for a in n.args]
        if n.op == "input":
            return self._load(n, sp)
        if n.op in ("literal", "number"):
            return n.attrs["expr"], n.kind
        if n.op == "full":
            return convert(args[0], n.kind)
        if n.op == "view":
            return args[0]
        if n.op == "convert":
            return convert(args[0], n.kind)
        if n.op == "prim":
            return self.template(n, args)
        if n.op == "scatter":
            base, idx, src = args
            v = f"{base[0]} + tl.where(cols == {idx[0]}, {convert(src, base[1])[0]}, 0)"
            return assign(self.lines, self.fresh("v"), v, f"prims.scatter_add -> {n.label}"), base[1]
        if n.op == "gather":  # whole rows: the one element per row where the column is the index
            x, idx = args
            kind = "f" if n.kind == "f" else "i"
            v = f"tl.sum(tl.where(mask & (cols == {idx[0]}), {convert(x, kind)[0]}, 0), axis=1, keep_dims=True)"
            return convert((assign(self.lines, self.fresh("v"), v, f"prims.gather -> {n.label}"), kind), n.kind)
        if n.op == "reduce":  # whole rows, inline
            x = convert(args[0], "f")[0]
            if n.sid == "prims.var":
                m = assign(self.lines, self.fresh("vm"), f"tl.sum(tl.where(mask, {x}, 0.0), axis=1, keep_dims=True) "
                                                         f"/ {self.dims.text(self.C)}")
                d = assign(self.lines, self.fresh("vd"), f"tl.where(mask, {x} - {m}, 0.0)")
                v = f"tl.sum({d} * {d}, axis=1, keep_dims=True) / ({self.dims.text(self.C)} - {corr(n)})"
            else:
                v = self._reduce_tile(n.sid, x, 1, "mask")
            return assign(self.lines, self.fresh("v"), v, f"{n.sid} -> {n.label}"), "f"
        raise Unsupported(f"{n.sid} in a row kernel")

    def emit_needed(self, roots, vals: dict, route) -> None:
        """Emit, in graph order, what ``roots`` need and ``vals`` lacks; ``route(node)`` gives
        the line list each goes to (None: must already be in ``vals``)."""
        want, todo = set(), [r for r in roots if r not in vals]
        while todo:
            n = todo.pop()
            if n in want or n in vals:
                continue
            if route(n) is None:
                raise AssertionError(f"{n} is not computed yet")
            want.add(n)
            if not (self.looped and n in self.row_ops):
                todo.extend(n.args)
        saved = self.lines
        for n in self.g.nodes:
            if n in want:
                self.lines = route(n)
                vals[n] = self._emit(n, vals)
        self.lines = saved


def corr(n) -> str:
    c = n.attrs["correction"]
    return repr(float(c if c is not None else 1.0))
