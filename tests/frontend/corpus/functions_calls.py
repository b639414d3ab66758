"""Differential test corpus: function definitions, parameters, call conventions.

Each ``case_*`` function takes no arguments and returns plain data or raises.
"""

import functools
import io
import operator

# ---------------------------------------------------------------------------
# module-level helpers
# ---------------------------------------------------------------------------


def two(a, b):
    return (a, b)


def one(x):
    return x


def kwonly(*, c):
    return c


def posonly(a, /, b, *, c):
    return (a, b, c)


def everything(a, b=2, /, c=3, *args, d, e=5, **kwargs):
    return (a, b, c, args, d, e, sorted(kwargs.items()))


def mod_fact(n):
    return 1 if n <= 1 else n * mod_fact(n - 1)


def call_recorder(*args, **kwargs):
    return (args, list(kwargs.items()))


def annotated(x: int, y: "str" = "d", *rest: float, z: bool = True, **kw: dict) -> list:
    """Annotated helper.

    Second paragraph."""
    return [x, y, rest, z, kw]


class MappingLike:
    """Non-dict mapping: only keys() and __getitem__."""

    def __init__(self, data):
        self._data = data

    def keys(self):
        return list(self._data)

    def __getitem__(self, k):
        return self._data[k] * 10


# ---------------------------------------------------------------------------
# parameter kinds
# ---------------------------------------------------------------------------


def case_positional_and_keyword():
    def f(a, b, c):
        return a * 100 + b * 10 + c

    return (f(1, 2, 3), f(1, c=3, b=2), f(c=1, a=3, b=2), f(*[1, 2], c=9))


def case_defaults():
    def f(a, b=10, c="x"):
        return (a, b, c)

    return (f(1), f(1, 2), f(1, c="z"), f.__defaults__, f(a=0))


def case_keyword_only():
    def f(a, *, flag=False, mode):
        return (a, flag, mode)

    return (f(1, mode="m"), f(2, mode="n", flag=True), f.__kwdefaults__)


def case_positional_only():
    def f(a, b, /, c, d=4):
        return (a, b, c, d)

    def g(x, /, **kw):
        return (x, sorted(kw.items()))

    # a positional-only name may also appear in **kwargs
    return (f(1, 2, 3), f(1, 2, c=3, d=5), g(1, x=2, y=3))


def case_all_parameter_kinds():
    return (
        everything(1, d=4),
        everything(1, 2, 3, 4, 5, d=6, e=7, f=8, g=9),
        everything(*range(3), d=None),
        everything(1, c=30, d=40, z=0),
    )


def case_varargs_kwargs_definition():
    def f(*args, **kwargs):
        return (type(args).__name__, args, type(kwargs).__name__, list(kwargs.items()))

    return (f(), f(1, 2), f(z=1, a=2, m=3), f(*(), **{}))


def case_kwargs_ordering_preserved():
    return (
        call_recorder(z=1, a=2, m=3),
        call_recorder(**{"b": 1, "a": 2}, c=3),
        call_recorder(x=1, **{"y": 2}, z=3, **{"w": 4}),
    )


def case_args_are_fresh_tuple_and_dict():
    def f(*args, **kwargs):
        kwargs["added"] = True
        return args, kwargs

    original = {"k": 1}
    t = (1, 2)
    args, kw = f(*t, **original)
    return (args == t, sorted(kw.items()), original)


# ---------------------------------------------------------------------------
# arity errors
# ---------------------------------------------------------------------------


def case_missing_positional_module_func():
    one()


def case_too_many_positional_module_func():
    two(1, 2, 3)


def case_unexpected_keyword_module_func():
    two(1, b=2, z=3)


def case_multiple_values_module_func():
    two(1, 2, a=3)


def case_positional_only_as_keyword():
    posonly(a=1, b=2, c=3)


def case_missing_keyword_only():
    kwonly()


def case_kwonly_given_positionally():
    kwonly(1)


def case_arity_error_messages_local():
    def f(x, y):
        return x + y

    def g(*, a, b):
        return a

    out = []
    for call in (lambda: f(1), lambda: f(), lambda: f(1, 2, 3), lambda: f(1, y=2, z=3), lambda: f(2, x=1), lambda: g(), lambda: g(1, a=2, b=3)):
        try:
            call()
        except TypeError as e:
            out.append(str(e))
    return out


def case_arity_error_method():
    class C:
        def m(self, x):
            return x

    out = []
    for call in (lambda: C().m(), lambda: C().m(1, 2), lambda: C.m(1)):
        try:
            call()
        except TypeError as e:
            out.append(str(e))
    return out


def case_lambda_arity_error():
    f = lambda x, y=1: x + y  # noqa: E731
    return f()


def case_duplicate_keyword_via_double_star():
    def f(**kw):
        return kw

    try:
        f(a=1, **{"a": 2})
    except TypeError as e:
        return (type(e).__name__, "multiple values for keyword argument 'a'" in str(e))


def case_duplicate_keyword_two_double_stars():
    def f(a, b):
        return a

    try:
        f(**{"a": 1}, **{"a": 2, "b": 3})
    except TypeError as e:
        return str(e).split("() ")[-1]


def case_keywords_must_be_strings():
    def f(**kw):
        return kw

    return f(**{1: 2})


def case_star_non_iterable_in_call():
    def f(*a):
        return a

    try:
        f(*5)
    except TypeError as e:
        return str(e).split("() ")[-1]


def case_double_star_non_mapping_in_call():
    def f(**kw):
        return kw

    try:
        f(**[("a", 1)])
    except TypeError as e:
        return str(e).split("() ")[-1]


def case_call_non_callable():
    x = 5
    return x()


# ---------------------------------------------------------------------------
# ** with non-dict mappings, * with generators
# ---------------------------------------------------------------------------


def case_double_star_mapping_like():
    def f(a, b, c=0):
        return (a, b, c)

    m = MappingLike({"a": 1, "b": 2})
    return (f(**m), f(**m, c=3), {**m}, dict(m))


def case_star_generator_in_call():
    def f(*args):
        return args

    gen = (i * i for i in range(4))
    consumed = []

    def tracked():
        for v in "xyz":
            consumed.append(v)
            yield v

    return (f(*gen), f(0, *tracked(), 9), consumed, f(*range(2), *"ab"))


def case_generators_as_arguments():
    return (
        sum(x * x for x in range(5)),
        max((len(w), w) for w in "a bbb cc".split()),
        "".join(c.upper() for c in "abc" if c != "b"),
        sorted((-x for x in [3, 1, 2]), reverse=True),
        dict((k, len(k)) for k in ["ab", "c"]),
        list(zip((i for i in range(3)), "abc")),
    )


# ---------------------------------------------------------------------------
# recursion
# ---------------------------------------------------------------------------


def case_recursion_factorial():
    return (mod_fact(50), mod_fact(0), mod_fact(1))


def case_recursive_flatten():
    def flatten(x):
        if isinstance(x, (list, tuple)):
            out = []
            for item in x:
                out.extend(flatten(item))
            return out
        return [x]

    return flatten([1, [2, (3, [4, [5, []]])], [[[[6]]]], "s"])


def case_recursion_via_rebound_name():
    def fact(n):
        return 1 if n <= 1 else n * fact(n - 1)

    original = fact
    r1 = original(5)

    def fact(n):  # noqa: F811 -- rebinding the name the original recurses through
        return -1

    r2 = original(5)  # original now calls the new `fact` for n-1
    return (r1, r2)


def case_mutual_recursion_depth():
    def ping(n, acc):
        return acc if n == 0 else pong(n - 1, acc + ["ping"])

    def pong(n, acc):
        return acc if n == 0 else ping(n - 1, acc + ["pong"])

    return (ping(5, []), len(ping(60, [])))


def case_recursive_fib_memo_dict():
    memo = {}

    def fib(n):
        if n in memo:
            return memo[n]
        r = n if n < 2 else fib(n - 1) + fib(n - 2)
        memo[n] = r
        return r

    return (fib(90), len(memo))


def case_recursion_ackermann_small():
    def ack(m, n):
        if m == 0:
            return n + 1
        if n == 0:
            return ack(m - 1, 1)
        return ack(m - 1, ack(m, n - 1))

    return [ack(2, n) for n in range(4)]


# ---------------------------------------------------------------------------
# higher-order functions
# ---------------------------------------------------------------------------


def case_higher_order_compose():
    def compose(*fns):
        def composed(x):
            for f in reversed(fns):
                x = f(x)
            return x

        return composed

    inc = lambda x: x + 1  # noqa: E731
    dbl = lambda x: x * 2  # noqa: E731
    return (compose(inc, dbl)(5), compose(dbl, inc)(5), compose()(7), compose(str, inc, inc)(0))


def case_function_returning_function():
    def multiplier(n):
        def mul(x):
            return x * n

        mul.factor = n
        return mul

    fns = [multiplier(k) for k in range(1, 4)]
    return ([f(10) for f in fns], [f.factor for f in fns], fns[0].__name__, multiplier(2)(multiplier(3)(1)))


def case_functools_reduce():
    return (
        functools.reduce(operator.add, [1, 2, 3, 4]),
        functools.reduce(lambda acc, x: acc + [x * 2], [1, 2, 3], []),
        functools.reduce(lambda a, b: a if a > b else b, [3, 9, 2]),
        functools.reduce(operator.mul, [], 1),
        functools.reduce(lambda d, kv: {**d, kv[0]: kv[1]}, [("a", 1), ("b", 2)], {}),
    )


def case_reduce_empty_no_initial():
    try:
        functools.reduce(operator.add, [])
    except TypeError as e:
        return type(e).__name__


def case_map_with_lambda_and_multiple_iterables():
    return (
        list(map(lambda x: x**2, range(5))),
        list(map(lambda a, b: a + b, [1, 2, 3], [10, 20])),
        list(map(lambda s: s[::-1], ["ab", "cd"])),
        list(map(len, ["", "x", "yy"])),
    )


def case_sorted_with_keyword_arguments():
    words = ["banana", "Apple", "cherry", "date"]
    return (
        sorted(words, key=str.lower),
        sorted(words, key=len, reverse=True),
        sorted(words, reverse=True),
        sorted(words, key=lambda w: (len(w), w)),
    )


def case_builtin_keyword_arguments():
    return (
        int("ff", base=16),
        int("0o17", base=0),
        int("z", 36),
        round(3.14159, ndigits=2),
        max([1, 5, 3], key=lambda v: -v),
        min([], default=None),
        "a-b-c".split(sep="-", maxsplit=1),
        dict(a=1, b=2),
        list(enumerate("ab", start=1)),
        sum([1, 2], start=10),
        pow(2, 10, mod=1000),
    )


def case_print_with_keywords():
    buf = io.StringIO()
    print("a", "b", 3, sep="-", end="!\n", file=buf)
    print(file=buf)
    print("x", "y", sep="", file=buf, end="")
    print(*[1, 2, 3], file=buf)
    print("flush", file=buf, flush=True)
    return buf.getvalue()


# ---------------------------------------------------------------------------
# methods, bound methods, callables
# ---------------------------------------------------------------------------


def case_bound_method_stored_and_called_later():
    class Counter:
        def __init__(self):
            self.n = 0

        def inc(self, by=1):
            self.n += by
            return self.n

    c = Counter()
    inc = c.inc
    handlers = [inc, c.inc, Counter().inc]
    results = [h() for h in handlers]
    results.append(inc(by=10))
    return (results, c.n)


def case_method_via_class_explicit_self():
    class Greeter:
        def __init__(self, name):
            self.name = name

        def greet(self, greeting="hi"):
            return f"{greeting} {self.name}"

    g = Greeter("ann")
    return (Greeter.greet(g), Greeter.greet(g, "yo"), Greeter.greet(self=g, greeting="hey"), list(map(Greeter.greet, [g, Greeter("bo")])))


def case_builtin_bound_methods():
    lst = []
    push = lst.append
    for i in range(3):
        push(i)
    upper = "abc".upper
    get = {"a": 1}.get
    return (lst, upper(), get("a"), get("b", 0), list(map("{}!".format, [1, 2])), list.__len__([1, 2]), str.join(",", "ab"))


def case_callable_objects():
    class Poly:
        def __init__(self, *coeffs):
            self.coeffs = coeffs

        def __call__(self, x):
            return sum(c * x**i for i, c in enumerate(self.coeffs))

    p = Poly(1, 0, 2)  # 1 + 2x^2
    return ([p(x) for x in range(4)], list(map(p, [5])), callable(p), callable(Poly), callable(3))


def case_staticmethod_classmethod_calls():
    class K:
        factor = 2

        @staticmethod
        def s(x, y=1):
            return x + y

        @classmethod
        def c(cls, x):
            return cls.factor * x

    class K2(K):
        factor = 3

    k = K2()
    return (K.s(1), k.s(1, y=5), K.c(5), K2.c(5), k.c(5), getattr(k, "c")(1))


def case_method_call_on_literal_and_chain():
    return ("  a b ".strip().split(" "), [3, 1, 2].__len__(), (1).__add__(2), 1.5.is_integer(), {"k": [1]}.get("k").copy())


def case_getattr_setattr_hasattr_delattr():
    class Obj:
        cls_attr = "c"

    o = Obj()
    setattr(o, "dyn", 42)
    r = [getattr(o, "dyn"), getattr(o, "missing", "default"), getattr(o, "cls_attr"), hasattr(o, "dyn"), hasattr(o, "nope")]
    delattr(o, "dyn")
    r.append(hasattr(o, "dyn"))
    setattr(Obj, "added", lambda self: "method!")
    r.append(o.added())
    delattr(Obj, "added")
    r.append(hasattr(o, "added"))
    return r


def case_getattr_missing_no_default():
    class Obj:
        pass

    return getattr(Obj(), "absent")


def case_delattr_missing():
    class Obj:
        pass

    o = Obj()
    try:
        delattr(o, "nope")
    except AttributeError:
        return "AttributeError"


# ---------------------------------------------------------------------------
# function attributes, annotations, docstrings
# ---------------------------------------------------------------------------


def case_function_attributes():
    def f(a, b=2, *args, c, d=4, **kw):
        "doc of f"
        x = a
        return x

    code = f.__code__
    return (
        f.__name__,
        f.__qualname__,
        f.__defaults__,
        f.__kwdefaults__,
        f.__doc__,
        code.co_argcount,
        code.co_kwonlyargcount,
        code.co_posonlyargcount,
        code.co_varnames[:7],
        f.__module__ == __name__,
    )


def case_module_function_attributes():
    return (
        everything.__name__,
        everything.__qualname__,
        everything.__defaults__,
        everything.__kwdefaults__,
        everything.__code__.co_posonlyargcount,
        posonly.__code__.co_kwonlyargcount,
        mod_fact.__doc__,
    )


def case_annotations():
    ann = annotated.__annotations__
    plain = {k: (v.__name__ if isinstance(v, type) else v) for k, v in ann.items()}

    def local(a: 1, b: "two") -> 3.0:
        pass

    def none_ann(x):
        pass

    return (list(plain.items()), local.__annotations__, none_ann.__annotations__)


def case_docstrings():
    def no_doc():
        pass

    def with_doc():
        """Single line."""

    def not_doc():
        x = 1
        "this is not a docstring"
        return x

    lam = lambda: None  # noqa: E731
    return (no_doc.__doc__, with_doc.__doc__, not_doc.__doc__, lam.__doc__, annotated.__doc__.splitlines()[0])


def case_function_custom_attributes_and_dict():
    def f():
        return f.calls

    f.calls = 3
    f.tags = ["a"]
    return (f(), sorted(vars(f)), f.__dict__["tags"])


def case_function_defaults_mutation():
    def f(a, b=1, c=2):
        return (a, b, c)

    f.__defaults__ = (10, 20)
    r1 = f(0)
    f.__defaults__ = (30,)
    r2 = f(0, 1)
    try:
        f(0)
    except TypeError as e:
        r3 = str(e)
    return (r1, r2, r3)


# ---------------------------------------------------------------------------
# evaluation order & misc call semantics
# ---------------------------------------------------------------------------


def case_argument_evaluation_order():
    log = []

    def t(v):
        log.append(v)
        return v

    def f(*a, **k):
        return (a, sorted(k.items()))

    r = t(f)(t(1), *[t(2)], k=t(3), **{"m": t(4)})
    return (r, log[1:])


def case_default_arg_object_identity():
    sentinel_log = []

    def f(x=None, acc=None):
        if acc is None:
            acc = []
            sentinel_log.append("fresh")
        acc.append(x)
        return acc

    return (f(1), f(2), sentinel_log)


def case_return_multiple_and_none():
    def nothing():
        pass

    def bare():
        return

    def many():
        return 1, "two", [3]

    a, b, c = many()
    return (nothing(), bare(), many(), a, b, c)


def case_exception_inside_called_function_propagates():
    def inner(x):
        return {"a": 1}[x]

    def outer(x):
        return inner(x) + 1

    return outer("missing")


def case_exception_from_nested_call_caught():
    def risky(n):
        if n > 2:
            raise ValueError(f"too big: {n}")
        return n

    out = []
    for n in range(5):
        try:
            out.append(risky(n))
        except ValueError as e:
            out.append(str(e))
    return out


def case_keyword_argument_names_from_dict_comprehension():
    def f(**kw):
        return sorted(kw.items())

    return f(**{f"k{i}": i for i in range(3)})


def case_partial_and_keyword_override():
    def f(a, b, c=0):
        return (a, b, c)

    p = functools.partial(f, 1, c=5)
    return (p(2), p(2, c=9), p(b=3), p.func is f)


def case_call_with_unpacked_module_func():
    args = (1,)
    kwargs = {"b": 2}
    return (two(*args, **kwargs), two(*"xy"), two(**{"b": 0, "a": 1}))


def case_recursion_limit_not_hit_deep_but_bounded():
    def depth(n):
        return 0 if n == 0 else 1 + depth(n - 1)

    return depth(200)


def case_kwargs_named_like_parameters():
    def f(a, *args, **kwargs):
        return (a, args, sorted(kwargs.items()))

    return (f(1, **{"kwargs": 2, "args": 3}), f(a=0, b=1), f(*[1, 2], kw=3))


def case_method_self_passed_as_keyword():
    class C:
        def m(self, **kw):
            return sorted(kw)

    c = C()
    r = [c.m(x=1), C.m(self=c, y=2)]
    try:
        c.m(self=1)
    except TypeError as e:
        r.append(str(e).split("() ")[-1])
    return r


def case_generator_function_with_arguments():
    def countdown(start, *, step=1, stop=0):
        while start > stop:
            yield start
            start -= step

    return (list(countdown(5)), list(countdown(10, step=3)), list(countdown(3, stop=5)), sum(countdown(4, stop=1)))
