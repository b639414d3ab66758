"""Second half of corpus/classes.py (split to keep files under 1000 lines); its module-level
helpers are shared."""

import abc
import collections
import dataclasses
import enum
import functools
import typing

from . import classes as _first

globals().update({k: v for k, v in vars(_first).items() if not k.startswith(('case_', '__'))})


def case_iadd_vs_add():
    class Acc:
        def __init__(self):
            self.items = []

        def __iadd__(self, other):
            self.items.append(other)
            return self

    class NoI:
        def __init__(self, v):
            self.v = v

        def __add__(self, other):
            return NoI(self.v + other)

    a = Acc()
    orig = a
    a += 1
    a += 2
    n = NoI(1)
    n0 = n
    n += 5
    return (a.items, a is orig, n.v, n is n0, n0.v)


def case_unsupported_operand_custom():
    class A:
        pass

    return A() + 1


def case_reflected_not_implemented_both():
    class A:
        def __add__(self, o):
            return NotImplemented

    class B:
        def __radd__(self, o):
            return NotImplemented

    try:
        A() + B()
    except TypeError as e:
        return str(e)


def case_container_dunders():
    class Grid:
        def __init__(self):
            self.d = {}

        def __getitem__(self, key):
            return self.d.get(key, 0)

        def __setitem__(self, key, v):
            self.d[key] = v

        def __delitem__(self, key):
            del self.d[key]

        def __len__(self):
            return len(self.d)

        def __contains__(self, key):
            return key in self.d

        def __iter__(self):
            return iter(sorted(self.d))

    g = Grid()
    g[1, 2] = 5
    g[0, 0] = 1
    g[3, 3] = 9
    del g[0, 0]
    return (g[1, 2], g[9, 9], len(g), (1, 2) in g, (0, 0) in g, list(g), bool(g))


def case_getitem_slice_and_iteration_fallback():
    class Seq:
        def __getitem__(self, i):
            if isinstance(i, slice):
                return ("slice", i.start, i.stop, i.step)
            if i >= 4:
                raise IndexError(i)
            return i * i

    s = Seq()
    return (s[1:5], s[::2], s[3], list(s), 9 in s, 5 in s)


def case_bool_and_len_truthiness():
    class L:
        def __init__(self, n):
            self.n = n

        def __len__(self):
            return self.n

    class B:
        def __bool__(self):
            return False

        def __len__(self):
            return 10

    class Plain:
        pass

    return (bool(L(0)), bool(L(2)), bool(B()), bool(Plain()), "yes" if L(1) else "no", not B())


def case_call_dunder():
    class Adder:
        def __init__(self, n):
            self.n = n

        def __call__(self, x, *, times=1):
            return (x + self.n) * times

    add5 = Adder(5)
    return (add5(1), add5(2, times=3), callable(add5), callable(Adder), list(map(add5, [0, 1])))


def case_repr_str_format():
    class Money:
        def __init__(self, cents):
            self.cents = cents

        def __repr__(self):
            return f"Money({self.cents})"

        def __str__(self):
            return f"${self.cents // 100}.{self.cents % 100:02d}"

        def __format__(self, spec):
            if spec == "c":
                return f"{self.cents}c"
            return format(str(self), spec)

    m = Money(1234)
    return (repr(m), str(m), f"{m}", f"{m!r}", f"{m:c}", f"{m:>10}", "{0:c}|{0!s}".format(m), [m].__repr__())


def case_hash_and_eq_in_dict():
    class Key:
        def __init__(self, k):
            self.k = k

        def __eq__(self, other):
            return isinstance(other, Key) and self.k.lower() == other.k.lower()

        def __hash__(self):
            return hash(self.k.lower())

    d = {Key("A"): 1}
    d[Key("a")] = 2
    d[Key("B")] = 3
    return (len(d), d[Key("b")], sorted(v for v in d.values()))


def case_comparison_fallback_reflected():
    class A:
        def __init__(self, v):
            self.v = v

        def __lt__(self, other):
            return self.v < other.v

    a, b = A(1), A(2)
    # b > a has no __gt__, falls back to a < b
    return (a < b, b > a, sorted([b, a])[0].v)


def case_lt_not_supported():
    class A:
        pass

    try:
        A() < A()
    except TypeError as e:
        return str(e)


def case_enter_exit_dunders():
    log = []

    class CM:
        def __init__(self, name):
            self.name = name

        def __enter__(self):
            log.append("enter " + self.name)
            return self.name.upper()

        def __exit__(self, et, ev, tb):
            log.append(("exit", self.name, et.__name__ if et else None))
            return et is KeyError

    with CM("a") as x, CM("b") as y:
        log.append(x + y)
    with CM("c"):
        raise KeyError("swallowed")
    return log


# ---------------------------------------------------------------------------
# descriptors and attribute hooks
# ---------------------------------------------------------------------------


def case_data_descriptor():
    class Positive:
        def __set_name__(self, owner, name):
            self.private = "_" + name

        def __get__(self, obj, objtype=None):
            if obj is None:
                return "descriptor"
            return getattr(obj, self.private, 0)

        def __set__(self, obj, value):
            if value < 0:
                raise ValueError("negative")
            setattr(obj, self.private, value)

    class Acct:
        balance = Positive()

    a = Acct()
    a.balance = 10
    try:
        a.balance = -1
    except ValueError as e:
        err = str(e)
    return (a.balance, Acct.balance, err, sorted(vars(a)))


def case_nondata_descriptor_shadowed_by_instance():
    class Lazy:
        def __init__(self, fn):
            self.fn = fn
            self.name = fn.__name__

        def __get__(self, obj, objtype=None):
            if obj is None:
                return self
            v = self.fn(obj)
            obj.__dict__[self.name] = v
            return v

    calls = []

    class C:
        @Lazy
        def expensive(self):
            calls.append(1)
            return 99

    c = C()
    return (c.expensive, c.expensive, len(calls), "expensive" in vars(c))


def case_getattr_fallback():
    class Proxy:
        def __init__(self):
            self.real = 1

        def __getattr__(self, name):
            if name.startswith("x_"):
                return name[2:] * 2
            raise AttributeError(name)

    p = Proxy()
    return (p.real, p.x_ab, getattr(p, "nope", "default"), hasattr(p, "x_q"), hasattr(p, "zz"))


def case_getattribute_override():
    class Loud:
        def __init__(self):
            self.a = 1

        def __getattribute__(self, name):
            if name == "secret":
                return "intercepted"
            v = object.__getattribute__(self, name)
            if isinstance(v, int):
                return v * 10
            return v

    o = Loud()
    return (o.a, o.secret, getattr(o, "a"))


def case_setattr_delattr_hooks():
    log = []

    class Rec:
        def __setattr__(self, name, value):
            log.append(("set", name, value))
            object.__setattr__(self, name, value)

        def __delattr__(self, name):
            log.append(("del", name))
            object.__delattr__(self, name)

    r = Rec()
    r.a = 1
    setattr(r, "b", 2)
    del r.a
    return (log, sorted(vars(r).items()))


# ---------------------------------------------------------------------------
# dataclasses
# ---------------------------------------------------------------------------


def case_dataclass_basic():
    @dataclasses.dataclass
    class Item:
        name: str
        qty: int = 1
        tags: list = dataclasses.field(default_factory=list)

    a = Item("apple")
    b = Item("pear", 3, ["x"])
    a.tags.append("t")
    c = Item("apple", 1, ["t"])
    return (repr(a), a == c, b.qty, Item("z").tags, dataclasses.asdict(b), [f.name for f in dataclasses.fields(Item)])


def case_dataclass_frozen_error():
    @dataclasses.dataclass(frozen=True)
    class P:
        x: int
        y: int = 0

    p = P(1)
    try:
        p.x = 5
    except Exception as e:
        return (type(e).__name__, str(e), hash(p) == hash(P(1)), repr(p), p == P(1))


def case_dataclass_order_and_post_init():
    @dataclasses.dataclass(order=True)
    class Card:
        rank: int
        suit: str = dataclasses.field(compare=False, default="s")
        label: str = dataclasses.field(init=False, repr=False, default="")

        def __post_init__(self):
            self.label = f"{self.rank}{self.suit}"

    cards = [Card(10, "h"), Card(2, "c"), Card(7)]
    return ([c.label for c in sorted(cards)], Card(3) < Card(4), Card(3, "a") == Card(3, "b"), repr(Card(5)))


def case_dataclass_inheritance_and_replace():
    @dataclasses.dataclass
    class Base:
        a: int
        b: int = 2

    @dataclasses.dataclass
    class Derived(Base):
        c: int = 3

    d = Derived(1)
    e = dataclasses.replace(d, b=20)
    return (dataclasses.astuple(d), dataclasses.asdict(e), repr(e))


def case_dataclass_missing_arg():
    @dataclasses.dataclass
    class P:
        x: int
        y: int

    try:
        P(1)
    except TypeError as e:
        return type(e).__name__


# ---------------------------------------------------------------------------
# enum / namedtuple
# ---------------------------------------------------------------------------


def case_enum_basic():
    class Color(enum.Enum):
        RED = 1
        GREEN = 2
        BLUE = 3

    return (
        Color.RED.name,
        Color.RED.value,
        Color(2).name,
        Color["BLUE"].value,
        [c.name for c in Color],
        Color.RED is Color(1),
        Color.RED == 1,
        len(Color),
    )


def case_enum_auto_and_intenum():
    class Level(enum.IntEnum):
        LOW = enum.auto()
        MID = enum.auto()
        HIGH = enum.auto()

    return (
        [int(x) for x in Level],
        Level.MID + 1,
        Level.HIGH > Level.LOW,
        sorted([Level.HIGH, Level.LOW])[0].name,
        Level.MID == 2,
        Level(3).name,
    )


def case_enum_alias_and_methods():
    class Shape(enum.Enum):
        SQUARE = 4
        TRIANGLE = 3
        QUAD = 4

        def sides(self):
            return self.value

        @property
        def lower(self):
            return self.name.lower()

    return (
        [s.name for s in Shape],
        Shape.QUAD is Shape.SQUARE,
        Shape.TRIANGLE.sides(),
        Shape.QUAD.lower,
        sorted(Shape.__members__),
    )


def case_enum_bad_value():
    class E(enum.Enum):
        A = 1

    try:
        E(5)
    except ValueError as e:
        return (type(e).__name__, str(e))


def case_namedtuple():
    Pt = collections.namedtuple("Pt", ["x", "y"], defaults=[0])
    p = Pt(1)
    q = p._replace(y=5)
    x, y = q
    return (p, q, x + y, p._asdict(), Pt._fields, q[1], repr(q), p == (1, 0))


def case_typing_namedtuple():
    class Emp(typing.NamedTuple):
        name: str
        dept: str = "eng"

        def badge(self):
            return f"{self.name}@{self.dept}"

    e = Emp("ann")
    return (e, e.badge(), e._fields, Emp._field_defaults, tuple(e), isinstance(e, tuple))


# ---------------------------------------------------------------------------
# abstract base classes
# ---------------------------------------------------------------------------


def case_abc_instantiate_error():
    class Shape(abc.ABC):
        @abc.abstractmethod
        def area(self):
            ...

    class Sq(Shape):
        def __init__(self, s):
            self.s = s

        def area(self):
            return self.s**2

    r = [Sq(3).area(), isinstance(Sq(1), Shape)]
    try:
        Shape()
    except TypeError as e:
        r.append(type(e).__name__)
        r.append("Shape" in str(e))
    return r


def case_abc_register_and_subclasshook():
    class Quacker(abc.ABC):
        @classmethod
        def __subclasshook__(cls, C):
            if any("quack" in B.__dict__ for B in C.__mro__):
                return True
            return NotImplemented

    class Duck:
        def quack(self):
            return "q"

    class Stone:
        pass

    class Registered:
        pass

    Quacker.register(Registered)
    return (isinstance(Duck(), Quacker), isinstance(Stone(), Quacker), issubclass(Registered, Quacker))


# ---------------------------------------------------------------------------
# name mangling, class body scoping
# ---------------------------------------------------------------------------


def case_name_mangling():
    class Account:
        def __init__(self):
            self.__secret = 42
            self._semi = 1

        def reveal(self):
            return self.__secret

        def __private_method(self):
            return "pm"

        def call_private(self):
            return self.__private_method()

    a = Account()
    return (a.reveal(), a._Account__secret, sorted(vars(a)), a.call_private(), hasattr(a, "__secret"))


def case_name_mangling_subclass():
    class A:
        def __init__(self):
            self.__x = "A"

        def ax(self):
            return self.__x

    class B(A):
        def __init__(self):
            super().__init__()
            self.__x = "B"

        def bx(self):
            return self.__x

    b = B()
    return (b.ax(), b.bx(), sorted(vars(b).items()))


def case_name_mangling_attribute_error():
    class A:
        def __init__(self):
            self.__hidden = 1

    A().__hidden


def case_class_body_reads_enclosing_locals():
    factor = 3
    name = "outer"

    class C:
        scaled = factor * 10
        label = name + "!"

        def get(self):
            return factor

    factor = 4
    return (C.scaled, C.label, C().get())


def case_class_body_name_vs_enclosing():
    x = "enclosing"

    class C:
        y = x  # enclosing function local (x is never assigned in the class body)
        z = y + "!"

        def meth(self):
            return x  # methods skip class scope -> enclosing

    return (C.y, C.z, C().meth())


def case_class_body_assigned_name_skips_enclosing():
    x = "enclosing"

    class C:
        # x is assigned below, so it is local to the class body: this read
        # looks in class namespace, then globals, then builtins -- NOT the
        # enclosing function -> NameError.
        y = x
        x = "class"

        def meth(self):
            return x

    return C.y


def case_class_body_assigned_name_falls_back_to_global():
    class C:
        # ModPoint is assigned in the class body, so the first read is a
        # name lookup that finds the module global.
        before = ModPoint.__name__
        ModPoint = "shadow"
        after = ModPoint

    return (C.before, C.after, ModPoint.__name__)


def case_class_body_free_var_prefers_prepared_namespace():
    v = "enclosing"

    class Meta(type):
        @classmethod
        def __prepare__(mcls, name, bases):
            return {"v": "prepared"}

    class C(metaclass=Meta):
        r = v  # free variable in class body: class namespace checked first

        def meth(self):
            return v

    class D:
        r = v

    return (C.r, C().meth(), D.r)


def case_class_body_comprehension_nameerror():
    try:

        class C:
            base = 10
            vals = [base + i for i in range(3)]

    except NameError as e:
        return (type(e).__name__, str(e))
    return "no error"


def case_class_body_comprehension_first_iterable_ok():
    class C:
        items = [1, 2, 3]
        doubled = [i * 2 for i in items]  # outermost iterable evaluated in class scope
        n = 5
        pairs = {k: k + 1 for k in range(n)}

    return (C.doubled, C.pairs)


def case_class_body_executes_statements():
    trace = []

    class C:
        trace.append("start")
        total = 0
        for i in range(4):
            total += i
        if total > 5:
            big = True
        else:
            big = False
        del i
        trace.append("end")

    return (trace, C.total, C.big, hasattr(C, "i"))


def case_class_body_namespace_is_not_closure():
    class C:
        a = 1

        def f(self):
            return a  # 'a' is not visible from method -> global lookup

    try:
        C().f()
    except NameError as e:
        return str(e)


def case_class_closure_method_counter():
    def make_counter_class(start):
        count = start

        class Counter:
            def inc(self):
                nonlocal count
                count += 1
                return count

        return Counter

    C = make_counter_class(10)
    a, b = C(), C()
    return (a.inc(), b.inc(), a.inc(), make_counter_class(0)().inc())


def case_class_attribute_lookup_dunder_on_type():
    class C:
        def __len__(self):
            return 5

    c = C()
    c.__len__ = lambda: 99  # instance attr ignored by len()
    return (len(c), c.__len__())


def case_qualname_nested():
    class Outer:
        class Inner:
            def m(self):
                pass

    return (Outer.__qualname__, Outer.Inner.__qualname__, Outer.Inner.m.__qualname__, Outer.Inner.__name__)


def case_class_doc_and_module():
    class C:
        """Doc of C."""

        def m(self):
            """Doc of m."""

    class D:
        pass

    return (C.__doc__, C.m.__doc__, D.__doc__, C.__module__ == __name__)


def case_instance_method_via_class_unbound():
    class C:
        def __init__(self, v):
            self.v = v

        def add(self, n):
            return self.v + n

    f = C.add
    return (f(C(2), 3), C.add(C(10), 1), list(map(C.add, [C(1), C(2)], [10, 20])))


def case_missing_self_error():
    class C:
        def m():
            return 1

    C().m()
