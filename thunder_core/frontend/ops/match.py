"""Structural pattern matching (``match`` statements)."""

from ..code import PY
from . import op

_SEQUENCE, _MAPPING, _MATCH_SELF = 1 << 5, 1 << 6, 1 << 22


@op("MATCH_MAPPING")
def match_mapping(I, f, inst):
    s = f.stack
    s.append(bool(type(s[-1]).__flags__ & _MAPPING))


@op("MATCH_SEQUENCE")
def match_sequence(I, f, inst):
    s = f.stack
    s.append(bool(type(s[-1]).__flags__ & _SEQUENCE))


_DUMMY = object()


@op("MATCH_KEYS")
def match_keys(I, f, inst):
    s = f.stack
    subject, keys = s[-2], s[-1]
    if not keys:
        s.append(())
        return
    get = subject.get
    seen, values = set(), []
    for k in keys:
        if k in seen:
            raise ValueError(f"mapping pattern checks duplicate key ({k!r})")
        seen.add(k)
        v = get(k, _DUMMY)
        if v is _DUMMY:
            s.append(None)
            return
        values.append(v)
    s.append(tuple(values))


def _tp_name(t):
    if t.__flags__ & (1 << 9) or t.__module__ == "builtins":
        return t.__name__
    return f"{t.__module__}.{t.__qualname__}"


_NOATTR = object()


def _class_attr(subject, cls, name, seen):
    if name in seen:
        raise TypeError(f"{_tp_name(cls)}() got multiple sub-patterns for attribute {name!r}")
    seen.add(name)
    try:
        return getattr(subject, name)
    except AttributeError:
        return _NOATTR


def match_class(subject, cls, nargs, kwnames):
    if not isinstance(cls, type):
        raise TypeError("called match pattern must be a " + ("type" if PY == (3, 11) else "class"))
    if not isinstance(subject, cls):
        return None
    seen, attrs = set(), []
    if nargs:
        match_self = False
        match_args = getattr(cls, "__match_args__", _NOATTR)
        if match_args is _NOATTR:
            match_args = ()
            match_self = bool(cls.__flags__ & _MATCH_SELF)
        elif type(match_args) is not tuple:
            raise TypeError(f"{_tp_name(cls)}.__match_args__ must be a tuple (got {type(match_args).__name__})")
        allowed = 1 if match_self else len(match_args)
        if allowed < nargs:
            plural = "" if allowed == 1 else "s"
            raise TypeError(f"{_tp_name(cls)}() accepts {allowed} positional sub-pattern{plural} ({nargs} given)")
        if match_self:
            attrs.append(subject)
        else:
            for name in match_args[:nargs]:
                if type(name) is not str:
                    raise TypeError(f"__match_args__ elements must be strings (got {type(name).__name__})")
                a = _class_attr(subject, cls, name, seen)
                if a is _NOATTR:
                    return None
                attrs.append(a)
    for name in kwnames:
        a = _class_attr(subject, cls, name, seen)
        if a is _NOATTR:
            return None
        attrs.append(a)
    return tuple(attrs)


@op("MATCH_CLASS")
def match_class_op(I, f, inst):
    s = f.stack
    names = s.pop()
    cls = s.pop()
    s[-1] = match_class(s[-1], cls, inst.arg, names)
