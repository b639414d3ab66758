"""Second half of corpus/adversarial.py (split to keep files under 1000 lines); its module-level
helpers are shared."""

import builtins
import functools
import inspect
import os
import sys
import traceback
import types
import warnings
import weakref

from . import adversarial as _first

globals().update({k: v for k, v in vars(_first).items() if not k.startswith(('case_', '__'))})


def case_yielded_value_not_kept_alive_by_generator():
    def gen():
        yield Tracked("y")
        yield "second"

    g = gen()
    r = weakref.ref(next(g))
    return r() is None


def case_sent_value_not_kept_alive_by_generator():
    def gen():
        while True:
            x = yield
            del x

    g = gen()
    next(g)
    obj = Tracked("s")
    r = weakref.ref(obj)
    g.send(obj)
    del obj
    return r() is None


def case_thrown_exception_not_kept_alive_by_generator():
    def gen():
        while True:
            try:
                yield
            except TrackedError:
                pass

    g = gen()
    next(g)
    exc = TrackedError("t")
    r = weakref.ref(exc)
    g.throw(exc)
    del exc
    return r() is None


def case_suspended_generator_finalized_on_del():
    log = []

    def gen():
        try:
            yield 1
        finally:
            log.append("finally")

    g = gen()
    next(g)
    del g
    log.append("after-del")
    return log


def case_types_coroutine_generator_iterated_normally():
    @types.coroutine
    def gen():
        yield 1
        yield 2

    return list(gen())


def case_generator_return_value_through_two_delegations():
    def leaf():
        yield "leaf"
        return "L"

    def mid():
        r = yield from leaf()
        return r + "M"

    def top():
        r = yield from mid()
        yield r + "T"

    return list(top())


def case_genexpr_throw_and_close_semantics():
    ge = (x for x in range(5))
    out = [next(ge)]
    try:
        ge.throw(KeyError("into genexpr"))
    except KeyError as e:
        out.append(str(e))
    out.append(list(ge))
    return out


# ---------------------------------------------------------------------------
# classes
# ---------------------------------------------------------------------------


def case_super_first_argument_in_cell():
    class Base:
        def greet(self):
            return "base"

    class Child(Base):
        def greet(self):
            get_self = lambda: self  # noqa: E731 - self becomes a cell
            return (super().greet(), get_self() is self, __class__.__name__)

    return Child().greet()


def case_super_in_varargs_only_method():
    class A:
        def m(*args):
            return super().__repr__()

    try:
        return A().m()
    except RuntimeError as e:
        return "RuntimeError", str(e)
    except TypeError as e:
        return "TypeError", str(e)


def case_super_in_staticmethod_without_args():
    class A:
        @staticmethod
        def s():
            return super().__repr__()

    try:
        A.s()
    except RuntimeError as e:
        return str(e)


def case_super_in_classmethod_chain():
    class A:
        @classmethod
        def make(cls):
            return ["A", cls.__name__]

    class B(A):
        @classmethod
        def make(cls):
            return ["B"] + super().make()

    class C(B):
        pass

    return C.make(), B.make()


def case_init_subclass_kwargs_and_registry():
    registry = []

    class Plugin:
        def __init_subclass__(cls, /, name=None, **kw):
            super().__init_subclass__(**kw)
            registry.append((cls.__name__, name))

    class A(Plugin, name="alpha"):
        pass

    class B(A):
        pass

    try:
        class C(Plugin, bogus=1, name="c"):
            pass
    except TypeError as e:
        registry.append(("error", str(e).split("(")[0]))
    return registry


def case_prepare_mapping_records_lookups():
    def helper():
        return 3

    class A(metaclass=_RecordingMeta):
        x: int = 1
        y = helper()

    return A.gets, A.x, A.y, A.__annotations__


def case_prepare_returning_non_mapping():
    try:
        class A(metaclass=_NonMappingPrepareMeta):
            x = 1
    except TypeError as e:
        return str(e)


def case_class_body_del_mapping_error_becomes_nameerror():
    try:
        class A(metaclass=_NoDelMeta):
            x = 1
            del x
    except Exception as e:
        return type(e).__name__, str(e), e.__context__ is None


def case_class_body_nonlocal_and_enclosing_later_modified():
    counter = 0
    label = "before"

    class A:
        nonlocal counter
        counter += 10
        seen = label

        def read(self):
            return label

    label = "after"
    return counter, A.seen, A().read()


def case_set_name_and_descriptor_in_function_class():
    log = []

    class Field:
        def __set_name__(self, owner, name):
            self.name = name
            log.append((owner.__name__, name))

        def __get__(self, obj, objtype=None):
            if obj is None:
                return self
            return obj.__dict__.get("_" + self.name, "unset")

        def __set__(self, obj, value):
            obj.__dict__["_" + self.name] = value * 2

    class Rec:
        a = Field()
        b = Field()

    r = Rec()
    r.a = 5
    return log, r.a, r.b, type(Rec.a).__name__


def case_property_attributeerror_falls_back_to_getattr():
    class P:
        @property
        def val(self):
            raise AttributeError("inner missing")

        def __getattr__(self, name):
            return f"fallback:{name}"

    class Q:
        @property
        def val(self):
            raise AttributeError("no fallback")

    out = [P().val, getattr(P(), "other")]
    try:
        Q().val
    except AttributeError as e:
        out.append(str(e))
    return out


def case_slots_with_dict_and_weakref():
    class S:
        __slots__ = ("a", "__dict__", "__weakref__")

    s = S()
    s.a = 1
    s.b = 2
    r = weakref.ref(s)
    return s.a, s.__dict__, r() is s, sorted(S.__slots__)


def case_class_getitem_and_mro_entries():
    class G:
        def __class_getitem__(cls, item):
            return (cls.__name__, item)

    class Entry:
        def __mro_entries__(self, bases):
            return (dict,)

    class D(Entry()):
        pass

    return G[int, str], [b.__name__ for b in D.__mro__], [type(b).__name__ for b in D.__orig_bases__]


def case_type_three_arg_inside_function():
    def init(self, v):
        self.v = v

    Base = type("Base", (), {"__init__": init, "kind": "base"})
    Derived = type("Derived", (Base,), {"double": lambda self: self.v * 2})
    d = Derived(21)
    return d.double(), d.kind, [c.__name__ for c in Derived.__mro__], Derived.__qualname__


def case_exception_subclass_custom_init_requires_args():
    class E(Exception):
        def __init__(self, code, msg):
            super().__init__(msg)
            self.code = code

        def __str__(self):
            return f"E{self.code}: {self.args[0]}"

    out = []
    try:
        raise E(4, "four")
    except E as e:
        out.append(str(e))
    try:
        raise E
    except TypeError as e:
        out.append(str(e).split(".")[-1])
    return out


def case_callable_with_staticmethod_call():
    class C:
        @staticmethod
        def __call__(x):
            return ("static", x)

    return C()(5)


def case_callable_with_classmethod_call():
    class C:
        @classmethod
        def __call__(cls, x):
            return (cls.__name__, x)

    return C()(5)


def case_staticmethod_init():
    log = []

    class C:
        __init__ = staticmethod(lambda x: log.append(x))

    C(7)
    return log


def case_python_new_with_classmethod_init():
    log = []

    class C:
        def __new__(cls, *args):
            return super().__new__(cls)

        @classmethod
        def __init__(cls, *args):
            log.append((cls.__name__, [type(a).__name__ for a in args]))

    C(1, 2)
    return log


def case_staticmethod_next_dunder():
    class It:
        def __iter__(self):
            return self

        @staticmethod
        def __next__():
            raise StopIteration

    out = []
    for x in It():
        out.append(x)
    return out


def case_iter_dunder_replaced_on_class_after_use():
    class C:
        def __iter__(self):
            return iter([1, 2])

    first = []
    for x in C():
        first.append(x)
    C.__iter__ = lambda self: iter([3])
    second = []
    for x in C():
        second.append(x)
    return first, second


def case_next_dunder_replaced_on_class_after_use():
    class It:
        def __init__(self):
            self.n = 0

        def __iter__(self):
            return self

        def __next__(self):
            self.n += 1
            if self.n > 2:
                raise StopIteration
            return self.n

    first = [x for x in It()]

    def other_next(self):
        self.n += 1
        if self.n > 1:
            raise StopIteration
        return "replaced"

    It.__next__ = other_next
    second = []
    for x in It():
        second.append(x)
    return first, second


def case_calling_object_does_not_hash_it():
    hashed = []

    class C:
        def __call__(self, x):
            return x * 2

        def __hash__(self):
            hashed.append(1)
            return 7

    c = C()
    return c(3), c(4), len(hashed)


def case_calling_object_with_failing_hash():
    class C:
        def __call__(self):
            return "called"

        def __hash__(self):
            raise ValueError("do not hash me")

    return C()()


def case_metaclass_dropping_classcell():
    class Meta(type):
        def __new__(mcs, name, bases, ns):
            ns = {k: v for k, v in ns.items() if k != "__classcell__"}
            return super().__new__(mcs, name, bases, ns)

    try:
        class A(metaclass=Meta):
            def m(self):
                return __class__
    except RuntimeError as e:
        return str(e).split(" defining ")[0], "__classcell__" in str(e)


def case_with_enter_is_none():
    log = []

    class CM:
        __enter__ = None

        def __exit__(self, *a):
            log.append("exit")

    try:
        with CM():
            log.append("body")
    except TypeError as e:
        log.append(str(e))
    return log


def case_with_exit_is_none():
    log = []

    class CM:
        def __enter__(self):
            log.append("enter")
            return self

        __exit__ = None

    try:
        with CM():
            log.append("body")
    except TypeError as e:
        log.append(str(e))
    return log


def case_instance_method_replaced_and_bound_builtin():
    class C:
        def m(self):
            return "class"

    c = C()
    c.m = lambda: "instance"
    d = C()
    joined = str.join("-", ["a", "b"])
    upper = str.upper
    return c.m(), d.m(), joined, list(map(upper, ["x", "y"])), C.m(d)


# ---------------------------------------------------------------------------
# calls
# ---------------------------------------------------------------------------


def case_double_star_dict_subclass_ignores_overrides():
    class D(dict):
        def keys(self):
            return ["a", "zz"]

        def __getitem__(self, k):
            return "overridden"

    def f(**kw):
        return sorted(kw.items())

    return f(**D(a=1)), f(x=0, **D(a=1)), sorted({**D(a=1)}.items())


def case_double_star_mapping_getitem_raises_attributeerror():
    class Mp:
        def keys(self):
            return ["a"]

        def __getitem__(self, k):
            raise AttributeError("nope")

    def f(**kw):
        return kw

    out = []
    for thunk in (lambda: f(x=0, **Mp()), lambda: {**Mp()}):
        try:
            thunk()
        except Exception as e:
            out.append((type(e).__name__, str(e).split(".")[-1]))
    return out


def case_star_unpack_class_with_iter_none():
    class NoIter:
        __iter__ = None

    def f(*a):
        return a

    out = []
    for thunk in (lambda: [*NoIter()], lambda: f(*NoIter()), lambda: (*NoIter(),)):
        try:
            thunk()
        except TypeError as e:
            out.append(str(e))
    return out


def case_kwargs_non_string_keys_into_var_keyword():
    def f(**kw):
        return kw

    out = []
    for bad in ({1: 2}, {"ok": 1, (1,): 2}):
        try:
            f(**bad)
        except TypeError as e:
            out.append(str(e).split(".")[-1])
    return out


def case_positional_only_and_kwargs_same_name():
    def f(a, b=2, /, **kw):
        return a, b, sorted(kw.items())

    return f(1, a=10, b=20), f(1, 2, a=3)


def case_partial_of_partial_and_keyword_override():
    def f(a, b, c=0, *, d=1):
        return (a, b, c, d)

    p = functools.partial(f, 1, d=5)
    pp = functools.partial(p, 2, d=6)
    return (pp(), pp(c=3), pp(d=7), type(pp.func).__name__, pp.args, sorted(pp.keywords.items()))


def case_y_combinator_lambdas():
    Y = lambda f: (lambda x: x(x))(lambda y: f(lambda *a: y(y)(*a)))  # noqa: E731
    fact = Y(lambda self: lambda n: 1 if n == 0 else n * self(n - 1))
    fib = Y(lambda self: lambda n: n if n < 2 else self(n - 1) + self(n - 2))
    return fact(10), [fib(i) for i in range(10)]


def case_kwdefaults_and_defaults_mutated_between_calls():
    def f(a, b=1, *, c=2):
        return a, b, c

    out = [f(0)]
    f.__defaults__ = (10,)
    f.__kwdefaults__ = {"c": 20}
    out.append(f(0))
    f.__kwdefaults__ = None
    try:
        f(0)
    except TypeError as e:
        out.append(str(e).split(".")[-1])
    return out


def case_function_with_wrapped_and_signature():
    def deco(fn):
        @functools.wraps(fn)
        def wrapper(*a, **k):
            return ("wrapped", fn(*a, **k))
        return wrapper

    @deco
    def target(x, y=2):
        return x + y

    return target(1), target.__name__, target.__wrapped__(1), str(inspect.signature(target))


def case_deep_recursion_500():
    def depth(n):
        return 0 if n == 0 else 1 + depth(n - 1)

    return depth(500)


# ---------------------------------------------------------------------------
# scoping, eval/exec, frames
# ---------------------------------------------------------------------------


def case_walrus_in_nested_comprehension_binds_function_scope():
    rows = [[1, 2], [3, 4], [5, 6]]
    flat = [(last := x) for row in rows for x in row if x % 2]
    totals = [sum(acc := [y * 2 for y in row]) for row in rows]
    return flat, last, totals, acc


def case_nested_comprehension_reads_outer_comprehension_variable():
    data = {"a": [1, 2], "b": [3]}
    pairs = [(k, [v * len(k) for v in vs]) for k, vs in data.items()]
    nested = [[(i, j) for j in range(i)] for i in range(3)]
    lazy = [list(g) for g in [(i + j for j in range(2)) for i in range(2)]]
    return pairs, nested, lazy


def case_del_then_reuse_in_loop():
    out = []
    for i in range(3):
        tmp = i * 10
        out.append(tmp)
        del tmp
        try:
            tmp
        except UnboundLocalError as e:
            out.append(str(e))
    return out


def case_eval_with_none_globals_uses_caller_globals():
    return eval("ADV_CONST", None, {"y": 1}), eval("ADV_CONST + y", None, {"y": "!"})


def case_eval_passed_to_map_sees_caller_locals():
    a, b = 3, 4
    return list(map(eval, ["a + b", "a * b"]))


def case_eval_and_exec_with_free_variables():
    x = 10

    def inner():
        y = 5
        assert x is not None  # makes x a free variable of inner
        return eval("x + y"), sorted(k for k in locals() if not k.startswith("__"))

    ns = {}
    exec("def made(q):\n    return q + offset\noffset = 7", ns)
    return inner(), ns["made"](1)


def case_function_with_dict_subclass_globals():
    src = "def probe():\n    return undefined_name_xyz\n"
    ns = _DefaultGlobals(__builtins__=builtins)
    exec(src, ns)
    return ns["probe"]()


def case_getframe_in_callback_called_by_builtin():
    def adv_key(v):
        return sys._getframe(1).f_code.co_name

    return list(map(adv_key, [1]))


def case_getframe_f_lineno_is_live():
    fr = sys._getframe()
    a = fr.f_lineno
    b = fr.f_lineno
    return b - a


def case_getframe_f_locals_sees_later_assignments():
    fr = sys._getframe()
    late = 5
    return "late" in fr.f_locals, fr.f_locals.get("late")


def case_inspect_getframeinfo_of_current_frame():
    info = inspect.getframeinfo(inspect.currentframe())
    return info.function, info.lineno - case_inspect_getframeinfo_of_current_frame.__code__.co_firstlineno


def case_warning_attributed_to_user_line():
    def adv_deprecated():
        warnings.warn("old api", DeprecationWarning, stacklevel=2)

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        warnings.warn("careful", UserWarning)
        adv_deprecated()
    first = case_warning_attributed_to_user_line.__code__.co_firstlineno
    return [(w.category.__name__, str(w.message), os.path.basename(w.filename), w.lineno - first)
            for w in caught]


def case_object_read_from_global_container_is_released():
    _ADV_REGISTRY["k"] = Tracked("g")
    r = weakref.ref(_ADV_REGISTRY["k"])
    del _ADV_REGISTRY["k"]
    return r() is None


def case_global_declared_in_nested_function_only():
    def setter(v):
        global _ADV_TEMP_GLOBAL
        _ADV_TEMP_GLOBAL = v

    def getter():
        return _ADV_TEMP_GLOBAL

    setter(41)
    a = getter()
    setter(a + 1)
    b = getter()
    del globals()["_ADV_TEMP_GLOBAL"]
    try:
        getter()
    except NameError as e:
        return a, b, str(e)


# ---------------------------------------------------------------------------
# evaluation order and misc
# ---------------------------------------------------------------------------


def case_augassign_subscript_evaluation_order():
    log = []

    class L(list):
        def __getitem__(self, i):
            log.append(("get", i))
            return super().__getitem__(i)

        def __setitem__(self, i, v):
            log.append(("set", i, v))
            super().__setitem__(i, v)

    def idx():
        log.append("idx")
        return 1

    def val():
        log.append("val")
        return 5

    def target():
        log.append("target")
        return data

    data = L([0, 10, 20])
    target()[idx()] += val()
    return log, list(data)


def case_augassign_attribute_evaluation_order():
    log = []

    class O:
        def __getattribute__(self, name):
            log.append(("get", name))
            return object.__getattribute__(self, name)

        def __setattr__(self, name, v):
            log.append(("set", name, v))
            object.__setattr__(self, name, v)

    o = O()
    o.x = 1

    def obj():
        log.append("obj")
        return o

    def val():
        log.append("val")
        return 2

    obj().x *= val()
    return log


def case_dict_literal_evaluation_order_duplicates():
    log = []

    def k(x):
        log.append(("k", x))
        return x

    def v(x):
        log.append(("v", x))
        return x

    d = {k("a"): v(1), k("b"): v(2), k("a"): v(3), **{k("b"): v(4)}}
    return log, d


def case_star_unpacking_generators_side_effects():
    log = []

    def gen(tag, n):
        for i in range(n):
            log.append((tag, i))
            yield i

    def f(*a, **k):
        return a, sorted(k.items())

    r = f(*gen("a", 2), log.append("mid") or 9, *gen("b", 1), **{"z": len(log)})
    first, *mid, last = gen("c", 4)
    return r, first, mid, last, log


def case_argument_and_chained_comparison_order():
    log = []

    class V:
        def __init__(self, n):
            self.n = n

        def __lt__(self, other):
            log.append(("lt", self.n, other.n))
            return self.n < other.n

    def mk(n):
        log.append(("mk", n))
        return V(n)

    res = mk(1) < mk(2) < mk(0) < mk(5)
    return res, log


def case_fstring_nested_spec_expressions():
    log = []

    def w():
        log.append("w")
        return 8

    def p():
        log.append("p")
        return 3

    x = 3.14159
    s = f"{x:>{w()}.{p()}f}|{'ab'!r:^{w()}}|{x=:.2f}|{{literal}}"
    return s, log


def case_match_guards_side_effects_and_property_match_args():
    log = []

    class Pt:
        __match_args__ = ("x", "y")

        def __init__(self, x, y):
            self._x, self._y = x, y

        @property
        def x(self):
            log.append("x")
            return self._x

        @property
        def y(self):
            log.append("y")
            return self._y

    def guard(tag, result):
        log.append(("guard", tag))
        return result

    out = []
    for pt in (Pt(0, 1), Pt(2, 2), Pt(3, 4)):
        match pt:
            case Pt(0, y) if guard("first", y > 5):
                out.append("first")
            case Pt(x, y) if guard("second", x == y):
                out.append(("diag", x))
            case Pt(x=x) if guard("third", True):
                out.append(("other", x))
    return out, log


def case_match_class_attribute_raising_non_attributeerror():
    class Bad:
        __match_args__ = ("v",)

        @property
        def v(self):
            raise KeyError("boom")

    try:
        match Bad():
            case Bad(1):
                return "matched"
            case _:
                return "no"
    except KeyError as e:
        return "KeyError", str(e)


def case_identity_of_fresh_objects_and_singletons():
    a = [1]
    b = [1]
    t1 = tuple(a)
    return (a is b, a == b, None is None, ... is Ellipsis, NotImplemented is NotImplemented,
            t1 == (1,), type(a) is list, (lambda: 0) is (lambda: 0))


def case_exception_group_context_in_except_star():
    try:
        try:
            raise KeyError("ctx")
        except KeyError:
            raise ExceptionGroup("eg", [ValueError("v"), TypeError("t")])
    except* ValueError as g:
        vctx = type(g.__context__).__name__
        vmsg = [str(x) for x in g.exceptions]
    except* TypeError as g:
        tctx = type(g.__context__).__name__
    return vctx, vmsg, tctx
