"""Differential test corpus: classes, attributes, inheritance, dunders, descriptors.

Each ``case_*`` function takes no arguments and returns plain data or raises.
"""

import abc
import collections
import dataclasses
import enum
import functools
import typing


# ---------------------------------------------------------------------------
# module-level helpers
# ---------------------------------------------------------------------------


class ModPoint:
    dims = 2

    def __init__(self, x, y):
        self.x = x
        self.y = y

    def norm1(self):
        return abs(self.x) + abs(self.y)

    def __repr__(self):
        return f"ModPoint({self.x}, {self.y})"


class ModBase:
    def greet(self):
        return "base:" + type(self).__name__


class ModChild(ModBase):
    def greet(self):
        return "child+" + super().greet()


class ModCounter:
    created = 0

    def __init__(self):
        ModCounter.created += 1
        self.n = ModCounter.created


def make_class_in_function(tag):
    class Local:
        label = tag

        def describe(self):
            return f"{type(self).__qualname__}:{self.label}"

    return Local


# ---------------------------------------------------------------------------
# basic classes
# ---------------------------------------------------------------------------


def case_module_class_basic():
    p = ModPoint(3, -4)
    return (p.x, p.y, p.norm1(), p.dims, ModPoint.dims, repr(p))


def case_local_class_basic():
    class Box:
        kind = "box"

        def __init__(self, v):
            self.v = v

        def double(self):
            return self.v * 2

    b = Box(21)
    return (b.double(), b.kind, Box.kind, Box.__name__, Box.__qualname__)


def case_class_in_function_qualname():
    C1 = make_class_in_function("a")
    C2 = make_class_in_function("b")
    return (C1().describe(), C2().describe(), C1 is C2, C1.__qualname__)


def case_instance_vs_class_attr_shadowing():
    class C:
        x = 1

    a = C()
    b = C()
    a.x = 10
    before = (a.x, b.x, C.x)
    C.x = 5
    mid = (a.x, b.x, C.x)
    del a.x
    after = (a.x, b.x, C.x)
    return (before, mid, after, sorted(vars(a).items()))


def case_class_attr_mutable_shared():
    class C:
        items = []

        def add(self, v):
            self.items.append(v)

    a, b = C(), C()
    a.add(1)
    b.add(2)
    return (C.items, a.items is b.items)


def case_vars_instance_dict():
    class C:
        def __init__(self):
            self.b = 2
            self.a = 1
            self._c = 3

    o = C()
    o.z = 26
    d = vars(o)
    return (list(d), sorted(d.items()), o.__dict__ is d)


def case_module_counter_reset():
    ModCounter.created = 0
    objs = [ModCounter() for _ in range(4)]
    return ([o.n for o in objs], ModCounter.created)


def case_class_attribute_error():
    class C:
        pass

    C().missing


def case_identity_checks():
    class C:
        pass

    a = C()
    b = a
    c = C()
    return (a is b, a is c, a is not c, a == c, a == b, [a] == [b], type(a) is C)


def case_bound_method_identity():
    class C:
        def m(self):
            return 1

    o = C()
    m1 = o.m
    m2 = o.m
    return (m1 == m2, m1.__self__ is o, m1.__func__ is C.m, m1.__name__)


# ---------------------------------------------------------------------------
# classmethod / staticmethod / property
# ---------------------------------------------------------------------------


def case_classmethod_staticmethod():
    class C:
        base = 10

        @classmethod
        def make(cls, n):
            return (cls.__name__, cls.base + n)

        @staticmethod
        def add(a, b):
            return a + b

    class D(C):
        base = 100

    return (C.make(1), D.make(1), D().make(2), C.add(2, 3), C().add(4, 5))


def case_classmethod_alt_constructor():
    class Temp:
        def __init__(self, c):
            self.c = c

        @classmethod
        def from_f(cls, f):
            return cls(round((f - 32) * 5 / 9, 2))

    class SubTemp(Temp):
        pass

    t = SubTemp.from_f(212)
    return (type(t).__name__, t.c)


def case_property_get_set_delete():
    log = []

    class C:
        def __init__(self):
            self._v = 0

        @property
        def v(self):
            log.append("get")
            return self._v

        @v.setter
        def v(self, val):
            log.append(("set", val))
            self._v = val * 2

        @v.deleter
        def v(self):
            log.append("del")
            self._v = None

    o = C()
    o.v = 5
    r = o.v
    del o.v
    return (r, o._v, log)


def case_property_readonly_error():
    class C:
        @property
        def x(self):
            return 1

    o = C()
    try:
        o.x = 5
    except AttributeError as e:
        return ("AttributeError", o.x, "x" in str(e))
    return "no error"


def case_property_inheritance_override():
    class A:
        @property
        def name(self):
            return "A"

    class B(A):
        @property
        def name(self):
            return "B<" + super().name + ">"

    return (A().name, B().name)


# ---------------------------------------------------------------------------
# __slots__
# ---------------------------------------------------------------------------


def case_slots_basic():
    class P:
        __slots__ = ("x", "y")

        def __init__(self, x, y):
            self.x = x
            self.y = y

    p = P(1, 2)
    p.x = 10
    has_dict = hasattr(p, "__dict__")
    try:
        p.z = 3
        extra = "assigned"
    except AttributeError:
        extra = "AttributeError"
    return (p.x, p.y, has_dict, extra, P.__slots__)


def case_slots_unset_attribute():
    class P:
        __slots__ = ("x",)

    p = P()
    try:
        p.x
    except AttributeError:
        r1 = "unset"
    p.x = 4
    del p.x
    return (r1, hasattr(p, "x"))


# ---------------------------------------------------------------------------
# inheritance, MRO, super
# ---------------------------------------------------------------------------


def case_module_super_zero_arg():
    return (ModChild().greet(), ModBase().greet())


def case_diamond_mro():
    class A:
        def who(self):
            return ["A"]

    class B(A):
        def who(self):
            return ["B"] + super().who()

    class C(A):
        def who(self):
            return ["C"] + super().who()

    class D(B, C):
        def who(self):
            return ["D"] + super().who()

    return (D().who(), [k.__name__ for k in D.__mro__], [k.__name__ for k in D.mro()])


def case_super_in_init_chain():
    class A:
        def __init__(self, **kw):
            self.trace = ["A"]
            self.rest = sorted(kw)

    class B(A):
        def __init__(self, b=0, **kw):
            super().__init__(**kw)
            self.trace.append("B")
            self.b = b

    class C(A):
        def __init__(self, c=0, **kw):
            super().__init__(**kw)
            self.trace.append("C")
            self.c = c

    class D(B, C):
        def __init__(self, **kw):
            super().__init__(**kw)
            self.trace.append("D")

    d = D(b=1, c=2, extra=3)
    return (d.trace, d.b, d.c, d.rest)


def case_super_in_classmethod():
    class A:
        @classmethod
        def create(cls):
            return ["A." + cls.__name__]

    class B(A):
        @classmethod
        def create(cls):
            return super().create() + ["B." + cls.__name__]

    class C(B):
        pass

    return (B.create(), C.create(), C().create())


def case_super_in_staticmethod_like_new():
    class A:
        def __new__(cls, *args):
            inst = super().__new__(cls)
            inst.made_by = "A.__new__"
            return inst

        def __init__(self, v):
            self.v = v

    class B(A):
        def __new__(cls, v):
            inst = super().__new__(cls, v)
            inst.made_by += "+B"
            return inst

    b = B(7)
    return (b.made_by, b.v, type(b).__name__)


def case_super_two_arg():
    class A:
        def f(self):
            return "A"

    class B(A):
        def f(self):
            return "B"

    class C(B):
        def f(self):
            return "C"

    c = C()
    return (super(C, c).f(), super(B, c).f(), super(C, C).f(c))


def case_super_nested_function_lambda_uses_class_cell():
    class A:
        def val(self):
            return 1

    class B(A):
        def val(self):
            # a lambda taking self explicitly: zero-arg super uses its first arg
            g = lambda self: super().val() + 10
            return g(self)

    return B().val()


def case_super_nested_function_no_args_error():
    class A:
        def val(self):
            return 1

    class B(A):
        def val(self):
            def inner():
                return super().val()

            return inner()

    try:
        B().val()
    except RuntimeError as e:
        return (type(e).__name__, str(e))
    return "no error"


def case_super_outside_class_error():
    def f(self):
        return super().__repr__()

    try:
        f(1)
    except RuntimeError as e:
        return (type(e).__name__, str(e))
    return "no error"


def case_class_cell_dunder_class():
    class A:
        def get_cls(self):
            return __class__

    class B(A):
        pass

    return (A().get_cls() is A, B().get_cls() is A, B().get_cls().__name__)


def case_super_attribute_not_found():
    class A:
        pass

    class B(A):
        def f(self):
            return super().nope

    B().f()


def case_method_resolution_override_order():
    class A:
        x = "A"

        def f(self):
            return "A.f"

    class B(A):
        x = "B"

    class C(A):
        def f(self):
            return "C.f"

    class D(B, C):
        pass

    return (D.x, D().f(), D.__mro__[1].__name__)


def case_inconsistent_mro_error():
    class A:
        pass

    class B(A):
        pass

    try:

        class C(A, B):
            pass

    except TypeError as e:
        return (type(e).__name__, "MRO" in str(e))
    return "no error"


def case_isinstance_issubclass():
    class A:
        pass

    class B(A):
        pass

    class C:
        pass

    b = B()
    return (
        isinstance(b, A),
        isinstance(b, (C, A)),
        isinstance(b, C),
        issubclass(B, A),
        issubclass(A, B),
        issubclass(B, (C, object)),
        isinstance(3, int),
        isinstance(True, int),
    )


def case_isinstance_abc_collections():
    import collections.abc as cabc

    class MyIter:
        def __iter__(self):
            return iter(())

    class Sized:
        def __len__(self):
            return 3

    return (
        isinstance([], cabc.Sequence),
        isinstance({}, cabc.Mapping),
        isinstance(MyIter(), cabc.Iterable),
        isinstance(Sized(), cabc.Sized),
        isinstance(Sized(), cabc.Iterable),
        issubclass(dict, cabc.MutableMapping),
        issubclass(tuple, cabc.MutableSequence),
        isinstance(frozenset(), cabc.Set),
    )


# ---------------------------------------------------------------------------
# __init_subclass__, __set_name__, class decorators, metaclasses
# ---------------------------------------------------------------------------


def case_init_subclass():
    registry = []

    class Base:
        def __init_subclass__(cls, tag=None, **kw):
            super().__init_subclass__(**kw)
            cls.tag = tag
            registry.append((cls.__name__, tag))

    class A(Base, tag="alpha"):
        pass

    class B(A):
        pass

    class C(Base, tag="gamma"):
        pass

    return (registry, A.tag, B.tag, C.tag)


def case_set_name():
    class Field:
        def __set_name__(self, owner, name):
            self.owner = owner.__name__
            self.name = name

        def __get__(self, obj, objtype=None):
            if obj is None:
                return self
            return (self.owner, self.name)

    class Model:
        alpha = Field()
        beta = Field()

    m = Model()
    return (m.alpha, m.beta, Model.alpha.name)


def case_class_decorator():
    def register(cls):
        cls.registered = True
        cls.tagged_name = cls.__name__.upper()
        return cls

    def add_method(cls):
        def hello(self):
            return "hello from " + type(self).__name__

        cls.hello = hello
        return cls

    @register
    @add_method
    class Thing:
        pass

    return (Thing.registered, Thing.tagged_name, Thing().hello())


def case_class_decorator_replaces():
    def to_tuple_factory(cls):
        def make(*args):
            return (cls.__name__,) + args

        return make

    @to_tuple_factory
    class Point:
        pass

    return Point(1, 2)


def case_metaclass_new_and_prepare():
    order = []

    class Meta(type):
        @classmethod
        def __prepare__(mcls, name, bases, **kw):
            order.append(("prepare", name))
            d = {"injected": 42}
            return d

        def __new__(mcls, name, bases, ns, **kw):
            order.append(("new", name, sorted(k for k in ns if not k.startswith("__"))))
            ns["upper_name"] = name.upper()
            return super().__new__(mcls, name, bases, ns)

    class Foo(metaclass=Meta):
        a = 1

        def m(self):
            return self.injected + self.a

    return (order, Foo.upper_name, Foo().m(), type(Foo).__name__)


def case_metaclass_call():
    class Singleton(type):
        def __call__(cls, *args, **kw):
            if not hasattr(cls, "_inst"):
                cls._inst = super().__call__(*args, **kw)
            return cls._inst

    class S(metaclass=Singleton):
        def __init__(self, v):
            self.v = v

    a = S(1)
    b = S(2)
    return (a is b, a.v, b.v)


def case_metaclass_kwargs_and_inheritance():
    class Meta(type):
        def __new__(mcls, name, bases, ns, flavor="plain"):
            cls = super().__new__(mcls, name, bases, ns)
            cls.flavor = flavor
            return cls

        def __init__(cls, name, bases, ns, flavor="plain"):
            super().__init__(name, bases, ns)

    class A(metaclass=Meta, flavor="spicy"):
        pass

    class B(A):
        pass

    return (A.flavor, B.flavor, type(B).__name__)


def case_type_three_arg():
    def meth(self):
        return self.v * 3

    C = type("Dyn", (object,), {"v": 5, "meth": meth})
    D = type("Dyn2", (C,), {"v": 7})
    return (C().meth(), D().meth(), D.__name__, [k.__name__ for k in D.__mro__])


def case_class_getitem():
    class Box:
        def __class_getitem__(cls, item):
            return (cls.__name__, item if isinstance(item, tuple) else (item,))

    return (Box[int][1][0].__name__, Box["a", "b"], Box[1])


# ---------------------------------------------------------------------------
# dunder methods
# ---------------------------------------------------------------------------


def case_total_ordering():
    @functools.total_ordering
    class Version:
        def __init__(self, *parts):
            self.parts = parts

        def __eq__(self, other):
            return self.parts == other.parts

        def __lt__(self, other):
            return self.parts < other.parts

        def __hash__(self):
            return hash(self.parts)

    a, b, c = Version(1, 2), Version(1, 10), Version(1, 2)
    return (
        a < b,
        a <= c,
        b > a,
        b >= a,
        a == c,
        a != b,
        len({a, b, c}),
        [v.parts for v in sorted([b, a, Version(0, 9)])],
    )


def case_eq_without_hash_unhashable():
    class C:
        def __eq__(self, other):
            return True

    try:
        hash(C())
    except TypeError as e:
        return (C.__hash__ is None, str(e))
    return "hashable"


def case_arithmetic_dunders():
    class V:
        def __init__(self, x):
            self.x = x

        def __add__(self, other):
            if isinstance(other, V):
                return V(self.x + other.x)
            if isinstance(other, int):
                return V(self.x + other)
            return NotImplemented

        def __radd__(self, other):
            return V(other * 100 + self.x)

        def __mul__(self, k):
            return V(self.x * k)

        def __neg__(self):
            return V(-self.x)

    a = V(2)
    r = [(a + V(3)).x, (a + 4).x, (5 + a).x, (a * 3).x, (-a).x, sum([V(1), V(2)], V(0)).x]
    return r


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
