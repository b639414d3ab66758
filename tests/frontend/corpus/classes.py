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
