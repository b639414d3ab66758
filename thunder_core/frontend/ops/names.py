"""Globals, names (class bodies, exec), cells, attributes and imports.

Reads of outside data go through ``I.enter`` (logged, given to ``on_enter``, provenance
remembered); writes to outside state are logged with ``I.write`` after they happened.
"""

import sys
import types

from .. import events as ev
from .. import special
from ..code import PY
from ..frame import NULL
from ..provenance import ATTR, BUILTIN, CALL, CELL, GLOBAL, MODULE, Provenance
from ..special import HEAPTYPE, lookup
from . import op

CellType, FunctionType = types.CellType, types.FunctionType
_OBJECT_GETATTRIBUTE = object.__getattribute__
_M13 = PY >= (3, 13)


def _name_error(name):
    e = NameError(f"name {name!r} is not defined")
    e.name = name
    return e


def _global_prov(f, inst, name, d, kind):
    c = inst.cache
    if c is not None and c[0] is d:
        return c[1]
    p = Provenance(kind, None, name, d)
    inst.cache = (d, p)
    return p


def _load_global(I, f, inst, name, by_item=True):
    """Globals, then builtins. Globals that are not an exact dict are read with ``g[name]``
    (so ``__missing__`` works) by LOAD_GLOBAL (``by_item``), with the dict's own lookup by
    LOAD_NAME, as CPython does; builtins that are not an exact dict with ``b[name]`` by
    both. A KeyError means "not there"."""
    g = f.globals
    v = g.get(name, NULL) if type(g) is dict else (_lookup(g, name) if by_item else dict.get(g, name, NULL))
    if v is not NULL:
        return I.enter(v, _global_prov(f, inst, name, g, GLOBAL), ev.READ_GLOBAL, inst, name, g)
    b = f.builtins
    v = b.get(name, NULL) if type(b) is dict else _lookup(b, name)
    if v is NULL:
        raise _name_error(name)
    return I.enter(v, _global_prov(f, inst, name, b, BUILTIN), ev.READ_BUILTIN, inst, name, b)


@op("LOAD_GLOBAL")
def load_global(I, f, inst):
    name = inst.argval
    g = f.globals
    v = g.get(name, NULL) if type(g) is dict else NULL
    last = I._last_read.get(inst)
    # The same read as the last one at this instruction, with nothing to tell (no on_enter,
    # nothing written by this call): what I.enter would do is done already.
    if (v is NULL or last is None or last[1] is not v or last[0] is not g or I.on_enter is not None
            or I.written or I.mutated):
        v = _load_global(I, f, inst, name)
    s = f.stack
    if PY >= (3, 11) and inst.arg & 1:
        if _M13:
            s.append(v)
            s.append(NULL)
        else:
            s.append(NULL)
            s.append(v)
    else:
        s.append(v)


@op("STORE_GLOBAL")
def store_global(I, f, inst):
    name, v = inst.argval, f.stack.pop()
    if I.before_write is not None:
        I.before_write(f.globals)
    f.globals[name] = v
    I.write(ev.WRITE_GLOBAL, _global_prov(f, inst, name, f.globals, GLOBAL), name, v, inst, f.globals)


@op("DELETE_GLOBAL")
def delete_global(I, f, inst):
    name = inst.argval
    if name not in f.globals:
        raise _name_error(name)
    if I.before_write is not None:
        I.before_write(f.globals)
    del f.globals[name]
    I.write(ev.DELETE_GLOBAL, _global_prov(f, inst, name, f.globals, GLOBAL), name, None, inst, f.globals)


def _lookup(m, name):
    """``m[name]`` or NULL; any mapping (a metaclass __prepare__ may return one)."""
    if type(m) is dict:
        return m.get(name, NULL)
    try:
        return m[name]
    except KeyError:
        return NULL


def _locals_map(f):
    m = f.locals_map
    if m is None:
        raise SystemError("no locals found")
    return m


@op("LOAD_NAME")
def load_name(I, f, inst):
    name, m = inst.argval, _locals_map(f)
    v = _lookup(m, name)
    if v is NULL:
        v = _load_global(I, f, inst, name, False)
    f.stack.append(v)


@op("STORE_NAME")
def store_name(I, f, inst):
    _locals_map(f)[inst.argval] = f.stack.pop()


@op("DELETE_NAME")
def delete_name(I, f, inst):
    m = _locals_map(f)
    try:
        del m[inst.argval]
        missing = False
    except BaseException:  # CPython turns any failure of the mapping's __delitem__ into NameError
        missing = True
    if missing:  # raised outside the except block: CPython's NameError has no __context__
        raise _name_error(inst.argval)


@op("LOAD_LOCALS")
def load_locals(I, f, inst):
    f.stack.append(_locals_map(f))


@op("LOAD_FROM_DICT_OR_GLOBALS")
def load_from_dict_or_globals(I, f, inst):
    m, name = f.stack.pop(), inst.argval
    v = _lookup(m, name)
    if v is NULL:
        v = _load_global(I, f, inst, name, False)
    f.stack.append(v)


@op("SETUP_ANNOTATIONS")
def setup_annotations(I, f, inst):
    m = _locals_map(f)
    if type(m) is dict:
        if "__annotations__" not in m:
            m["__annotations__"] = {}
        return
    try:  # any other mapping: m["__annotations__"], a KeyError meaning "not there"
        m["__annotations__"]
        return
    except KeyError:
        pass
    m["__annotations__"] = {}


# ------------------------------------------------------------------ cells

def _unbound_cell(f, i):
    name = f.info.names[i]
    if i < f.info.first_free:
        return UnboundLocalError(f"cannot access local variable {name!r} where it is not associated with a value")
    e = NameError(f"cannot access free variable {name!r} where it is not associated with a value in enclosing scope")
    e.name = name
    return e


@op("MAKE_CELL")
def make_cell(I, f, inst):
    loc, i = f.localsplus, inst.arg
    v = loc[i]
    c = CellType() if v is NULL else CellType(v)
    I.created_cells[id(c)] = c
    loc[i] = c


@op("COPY_FREE_VARS")
def copy_free_vars(I, f, inst):
    f.localsplus[f.info.first_free:f.info.first_free + inst.arg] = f.func.__closure__


def _contents(c):
    try:
        return c.cell_contents
    except ValueError:
        return NULL


def _deref(I, f, inst, i):
    c = f.localsplus[i]
    v = _contents(c)
    if v is NULL:
        raise _unbound_cell(f, i)
    if id(c) not in I.created_cells:
        name = f.info.names[i]
        v = I.enter(v, Provenance(CELL, None, name, c), ev.READ_CELL, inst, name, c)
    return v


@op("LOAD_DEREF")
def load_deref(I, f, inst):
    f.stack.append(_deref(I, f, inst, inst.arg))


@op("LOAD_CLASSDEREF")
def load_classderef(I, f, inst):
    v = _lookup(_locals_map(f), f.info.names[inst.arg])
    if v is NULL:
        v = _deref(I, f, inst, inst.arg)
    f.stack.append(v)


@op("LOAD_FROM_DICT_OR_DEREF")
def load_from_dict_or_deref(I, f, inst):
    v = _lookup(f.stack.pop(), f.info.names[inst.arg])
    if v is NULL:
        v = _deref(I, f, inst, inst.arg)
    f.stack.append(v)


@op("STORE_DEREF")
def store_deref(I, f, inst):
    c, v = f.localsplus[inst.arg], f.stack.pop()
    if I.before_write is not None and id(c) not in I.created_cells:
        I.before_write(c)
    c.cell_contents = v
    if id(c) not in I.created_cells:
        name = f.info.names[inst.arg]
        I.write(ev.WRITE_CELL, Provenance(CELL, None, name, c), name, v, inst, c)


@op("DELETE_DEREF")
def delete_deref(I, f, inst):
    c = f.localsplus[inst.arg]
    if _contents(c) is NULL:
        raise _unbound_cell(f, inst.arg)
    if I.before_write is not None and id(c) not in I.created_cells:
        I.before_write(c)
    del c.cell_contents
    if id(c) not in I.created_cells:
        name = f.info.names[inst.arg]
        I.write(ev.DELETE_CELL, Provenance(CELL, None, name, c), name, None, inst, c)


# ------------------------------------------------------------------ attributes

def _python_property(t, name):
    """The property ``name`` of instances of ``t`` if reading it runs a getter written in
    Python: ``t`` is a Python class with object's own ``__getattribute__`` and the first
    class of its MRO defining ``name`` holds a plain ``property`` (a data descriptor, so the
    instance dict cannot shadow it) whose fget is a Python function. Else None."""
    if not t.__flags__ & HEAPTYPE or t.__getattribute__ is not _OBJECT_GETATTRIBUTE:
        return None
    p = lookup(t, name)
    return p if type(p) is property and type(p.fget) is FunctionType else None


def _read_property(I, o, t, name, p):
    """``o.name`` through the Python getter of property ``p``, interpreted, so it sees the
    interpreter's state (the exception being handled, frames). If it raises AttributeError
    and the class has ``__getattr__``, that is called instead (slot_tp_getattr_hook)."""
    try:
        return I.call(p.fget, (o,))
    except AttributeError:
        ga = lookup(t, "__getattr__")
        if ga is NULL:
            raise
        I._propagating = None
    return special.call_bound(I, ga, o, t, (name,))  # outside the except: no __context__


def read_attr(I, inst, o, name):
    """``o.name`` as the interpreted program reads it: a Python property's getter is
    interpreted, and an attribute of an outside object enters the call. ``inst``: the
    LOAD_ATTR instruction (its cache slot holds the site's last type), or None (``getattr``)."""
    r = I.replaced
    if r and id(o) in r:  # x.unsqueeze_(0); x.shape: the shape x has now
        o = r[id(o)]
    t = type(o)
    if inst is None:
        p = _python_property(t, name)
    else:
        # Per-site cache (CPython specialises LOAD_ATTR per site too): the type last seen here
        # and its Python property for ``name`` or None. A cached property is re-checked before
        # use; a class that gains a property after a site was cached reads it natively there.
        c = inst.cache
        if c is None or c[0] is not t:
            c = inst.cache = (t, _python_property(t, name))
        p = c[1]
    if p is not None and getattr(t, name, None) is p and t.__getattribute__ is _OBJECT_GETATTRIBUTE:
        return _read_property(I, o, t, name, p)  # its reads are recorded inside the getter
    v = getattr(o, name)
    e = I.outside.get(id(o))
    if e is not None:
        v = I.enter(v, Provenance(ATTR, e[1], name), ev.READ_ATTR, inst or I._current_inst(), name, o)
    return v



if PY >= (3, 12):
    @op("LOAD_ATTR")
    def load_attr(I, f, inst):
        s = f.stack
        v = read_attr(I, inst, s[-1], inst.argval)
        if inst.arg & 1:  # method form: [NULL, bound] (3.12) / [bound, NULL] (3.13)
            if _M13:
                s[-1] = v
                s.append(NULL)
            else:
                s[-1] = NULL
                s.append(v)
        else:
            s[-1] = v
else:
    @op("LOAD_ATTR")
    def load_attr(I, f, inst):
        s = f.stack
        s[-1] = read_attr(I, inst, s[-1], inst.argval)

    @op("LOAD_METHOD")
    def load_method(I, f, inst):
        s = f.stack
        v = read_attr(I, inst, s[-1], inst.argval)
        s[-1] = NULL
        s.append(v)


@op("STORE_ATTR")
def store_attr(I, f, inst):
    s = f.stack
    o, v = s.pop(), s.pop()
    if I.before_write is not None and id(o) in I.outside:
        I.before_write(o)
    setattr(o, inst.argval, v)
    e = I.outside.get(id(o))
    if e is not None:
        I.write(ev.WRITE_ATTR, e[1], inst.argval, v, inst, o)


@op("DELETE_ATTR")
def delete_attr(I, f, inst):
    o = f.stack.pop()
    if I.before_write is not None and id(o) in I.outside:
        I.before_write(o)
    delattr(o, inst.argval)
    e = I.outside.get(id(o))
    if e is not None:
        I.write(ev.DELETE_ATTR, e[1], inst.argval, None, inst, o)


@op("LOAD_SUPER_ATTR")
def load_super_attr(I, f, inst):
    s = f.stack
    sup_fn, cls, self_ = s[-3], s[-2], s[-1]
    del s[-3:]
    sup = I.call(sup_fn, (cls, self_) if inst.arg & 2 else ())
    v = getattr(sup, inst.argval)
    if inst.arg & 1:
        if _M13:
            s.append(v)
            s.append(NULL)
        else:
            s.append(NULL)
            s.append(v)
    else:
        s.append(v)


# ------------------------------------------------------------------ imports

@op("IMPORT_NAME")
def import_name(I, f, inst):
    s = f.stack
    fromlist = s.pop()
    level = s.pop()
    b = f.builtins
    imp = b.get("__import__", NULL) if type(b) is dict else getattr(b, "__import__", NULL)
    if imp is NULL:
        raise ImportError("__import__ not found")
    m = I.call(imp, (inst.argval, f.globals, f.locals_map, fromlist, level))
    name = getattr(m, "__name__", None)
    e = I.outside.get(id(m))
    if (e is None or e[1].kind == CALL) and isinstance(name, str) and sys.modules.get(name) is m:
        # a module is read from sys.modules (what `import` returns for a module already loaded)
        I.outside.pop(id(m), None)
        m = I.enter(m, Provenance(MODULE, None, name), ev.READ_GLOBAL, inst, name, sys.modules)
    elif e is None:
        I.outside[id(m)] = (m, Provenance(CALL, None, f"import {inst.argval}", imp))
    s.append(m)


@op("IMPORT_FROM")
def import_from(I, f, inst):
    import sys

    m, name = f.stack[-1], inst.argval
    v = getattr(m, name, NULL)
    if v is NULL:
        pkg = getattr(m, "__name__", None)
        v = sys.modules.get(f"{pkg}.{name}") if isinstance(pkg, str) else None
        if v is None:
            loc = getattr(m, "__file__", None) or "unknown location"
            err = ImportError(f"cannot import name {name!r} from {pkg if pkg is not None else '<unknown module name>'!r} ({loc})",
                              name=pkg, path=getattr(m, "__file__", None))
            err.name_from = name
            raise err
    else:
        e = I.outside.get(id(m))
        if e is not None:
            v = I.enter(v, Provenance(ATTR, e[1], name), ev.READ_ATTR, inst, name, m)
    f.stack.append(v)


def import_star(f, m):
    names = getattr(m, "__all__", None)
    if names is None:
        names = [k for k in vars(m) if not k.startswith("_")]
    loc = _locals_map(f)
    for k in names:
        loc[k] = getattr(m, k)


@op("IMPORT_STAR")
def import_star_op(I, f, inst):
    import_star(f, f.stack.pop())
