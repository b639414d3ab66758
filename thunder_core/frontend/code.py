"""Decoding a code object once into what the run loop needs.

``code_info(code)`` is cached per code object. It holds the decoded instructions (with jump
targets as instruction indices and each instruction's exception handler resolved), the
names of the "fast locals plus" slots (locals, cells, free variables, in CPython's own
order), and a native *binder* function that binds call arguments with CPython's own rules
and error messages.
"""

from __future__ import annotations

import dis
import inspect
import os
import sys
import types

from .errors import refuse
from .tracebacks import path_forms

PY = sys.version_info[:2]

CO_GENERATOR = inspect.CO_GENERATOR
CO_COROUTINE = inspect.CO_COROUTINE
CO_ASYNC_GENERATOR = inspect.CO_ASYNC_GENERATOR
CO_ITERABLE_COROUTINE = inspect.CO_ITERABLE_COROUTINE
CO_VARARGS = inspect.CO_VARARGS
CO_VARKEYWORDS = inspect.CO_VARKEYWORDS

#: Directories whose code always runs natively when called from interpreted code, in each
#: spelling a code's filename may have (path_forms). Packages of the compiler add themselves
#: with ``run_natively(directory)``.
NATIVE_PATHS: tuple[str, ...] = path_forms(os.path.dirname(__file__))


def run_natively(directory: str) -> None:
    """Code under ``directory`` is called natively, never interpreted (compiler internals).
    Pass the directory as the package's ``__file__`` spells it (its code objects' filenames do)."""
    global NATIVE_PATHS
    NATIVE_PATHS = NATIVE_PATHS + tuple(p for p in path_forms(directory) if p not in NATIVE_PATHS)
_JUMPS = frozenset(dis.hasjrel) | frozenset(getattr(dis, "hasjabs", ()))


class Inst:
    """One decoded instruction. ``target`` is the jump target as an instruction index;
    ``handler`` the (target index, stack depth, push lasti) of the innermost exception
    table entry covering it, or None; ``site`` (filename, line, qualname) for events and
    error messages."""

    __slots__ = ("run", "opname", "arg", "argval", "target", "index", "offset", "lineno",
                 "handler", "site", "cache", "inline")

    def __repr__(self):
        return f"<{self.opname} {self.argval!r} @{self.offset} line {self.lineno}>"


class CodeInfo:
    __slots__ = ("code", "insts", "names", "nlocalsplus", "first_free", "ncells_start",
                 "binder", "nargs", "simple_args", "flags", "name", "site_name", "cell_slots",
                 "arg_cells", "stubs", "native")

    def __init__(self, code: types.CodeType, handlers: dict):
        self.code = code
        self.flags = code.co_flags
        self.name = code.co_name
        self.site_name = code.co_qualname
        names = list(code.co_varnames)
        names += [c for c in code.co_cellvars if c not in names]
        self.first_free = len(names)
        names += list(code.co_freevars)
        self.names = names
        self.nlocalsplus = len(names)
        nargs = code.co_argcount + code.co_kwonlyargcount
        nargs += bool(code.co_flags & CO_VARARGS) + bool(code.co_flags & CO_VARKEYWORDS)
        self.nargs = nargs
        self.simple_args = not (code.co_flags & (CO_VARARGS | CO_VARKEYWORDS)) and not code.co_kwonlyargcount
        self.binder = None
        self.stubs = {}  # (id(globals), line) -> stub generator for traceback entries (tracebacks.py)
        # Never interpret the interpreter itself (e.g. a nested `interpret(...)` wrapper) or the
        # compiler's own code (proxies, symbols): they run natively.
        self.native = code.co_filename.startswith(NATIVE_PATHS)
        self.insts = _decode(code, handlers)

    def bind(self, fn, args, kwargs):
        """Bind a call's arguments to the first ``nargs`` slots, exactly as CPython does
        (defaults, keyword-only, ``*args``, ``**kwargs``, and the same TypeErrors)."""
        b = self.binder
        if b is None:
            b = self.binder = _make_binder(self.code)
        b.__defaults__ = fn.__defaults__
        b.__kwdefaults__ = fn.__kwdefaults__
        b.__qualname__ = fn.__qualname__
        return b(*args, **kwargs)


def _make_binder(code):
    """A native function with the same parameters as ``code`` that returns them as a tuple
    in fast-locals order. Calling it performs CPython's argument binding."""
    vn = code.co_varnames
    npos, nposonly, nkw = code.co_argcount, code.co_posonlyargcount, code.co_kwonlyargcount
    params = []
    for j in range(npos):
        params.append(vn[j])
        if nposonly and j == nposonly - 1:
            params.append("/")
    star = None
    if code.co_flags & CO_VARARGS:
        star = vn[npos + nkw]
        params.append("*" + star)
    elif nkw:
        params.append("*")
    params += vn[npos:npos + nkw]
    if code.co_flags & CO_VARKEYWORDS:
        params.append("**" + vn[npos + nkw + bool(star)])
    order = list(vn[:npos + nkw])
    if star:
        order.append(star)
    if code.co_flags & CO_VARKEYWORDS:
        order.append(vn[npos + nkw + bool(star)])
    src = f"def {code.co_name if code.co_name.isidentifier() else '_f'}({', '.join(params)}):\n return ({''.join(n + ', ' for n in order)})\n"
    return native(src)


GENERATED_FILE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "<generated>")


def native(src: str):
    """Compile a one-function source into a native function whose frames count as the
    interpreter's own (dropped from user tracebacks)."""
    ns: dict = {}
    exec(compile(src, GENERATED_FILE, "exec"), ns)
    return next(v for v in ns.values() if isinstance(v, types.FunctionType))


def _decode(code, handlers):
    raw = list(dis.get_instructions(code))
    index_of = {ins.offset: k for k, ins in enumerate(raw)}
    table = dis._parse_exception_table(code)
    filename, qualname = code.co_filename, code.co_qualname
    lineno = code.co_firstlineno
    out = []
    for k, ins in enumerate(raw):
        i = Inst()
        i.opname, i.arg, i.argval, i.index, i.offset = ins.opname, ins.arg, ins.argval, k, ins.offset
        pos = ins.positions
        if pos is not None and pos.lineno is not None:
            lineno = pos.lineno
        i.lineno = lineno
        i.site = (filename, lineno, qualname)
        i.target = index_of.get(ins.argval) if ins.opcode in _JUMPS else None
        i.cache = None
        i.handler = None
        for e in table:  # entries do not overlap; the first covering one is the handler
            if e.start <= ins.offset < e.end:
                i.handler = (index_of[e.target], e.depth, e.lasti)
                break
        i.inline = _INLINE.get(ins.opname, 0)
        if ins.opname == "BINARY_OP" and ins.arg not in _INPLACE_OPS:
            # Plain binary operators run inline; in-place ones keep the handler (it logs
            # mutations of outside objects).
            i.inline, i.cache = 11, _BINARY_FNS[ins.arg]
        elif ins.opname == "COMPARE_OP" and ins.argval in _COMPARE_FNS and ins.argval not in ("==", "!="):
            # Comparisons too, by the same path (3.13's "convert to bool" form calls bool());
            # not == and != (object.__eq__ compares identity: the handler guards it)
            i.inline, i.cache = 11, _COMPARE_FNS[ins.argval][PY >= (3, 13) and bool(ins.arg & 16)]
        run = handlers.get(ins.opname)
        if run is None:
            run = _refusal(ins.opname)
        i.run = run
        out.append(i)
    return out


import operator as _operator

_BINARY_FNS = [getattr(_operator, {"+": "add", "&": "and_", "//": "floordiv", "<<": "lshift", "@": "matmul",
                                   "*": "mul", "%": "mod", "|": "or_", "**": "pow", ">>": "rshift", "-": "sub",
                                   "/": "truediv", "^": "xor"}.get(sym, "add")) for _, sym in dis._nb_ops]
#: comparison symbol -> its function (the COMPARE_OP handler uses it too)
COMPARE = {"<": _operator.lt, "<=": _operator.le, "==": _operator.eq, "!=": _operator.ne,
           ">": _operator.gt, ">=": _operator.ge}
_COMPARE_FNS = {sym: (fn, lambda a, b, fn=fn: bool(fn(a, b))) for sym, fn in COMPARE.items()}
_INPLACE_OPS = frozenset(k for k, (_, sym) in enumerate(dis._nb_ops) if sym.endswith("="))

# Instructions the run loop executes inline (see Interpreter._run).
_INLINE = {"LOAD_FAST": 1, "LOAD_FAST_CHECK": 1, "LOAD_CONST": 2, "STORE_FAST": 3,
           "NOP": 4, "RESUME": 4, "PRECALL": 4, "EXTENDED_ARG": 4, "CACHE": 4,
           "POP_JUMP_IF_FALSE": 5, "POP_JUMP_FORWARD_IF_FALSE": 5, "POP_JUMP_BACKWARD_IF_FALSE": 5,
           "POP_JUMP_IF_TRUE": 6, "POP_JUMP_FORWARD_IF_TRUE": 6, "POP_JUMP_BACKWARD_IF_TRUE": 6,
           "JUMP_FORWARD": 7, "JUMP_BACKWARD": 7, "JUMP_BACKWARD_NO_INTERRUPT": 7,
           "POP_TOP": 8, "RETURN_VALUE": 9, "RETURN_CONST": 10}


def _refusal(opname):
    def run(interp, frame, inst):
        refuse(frame, inst, f"the {opname} instruction is not supported by the interpreter")
    return run


_infos: dict = {}


def code_info(code, handlers) -> CodeInfo:
    info = _infos.get(code)
    if info is None:
        info = _infos[code] = CodeInfo(code, handlers)
    return info
