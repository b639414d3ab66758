"""Second half of corpus/closures_scopes.py (split to keep files under 1000 lines); its module-level
helpers are shared."""

import functools

from . import closures_scopes as _first

globals().update({k: v for k, v in vars(_first).items() if not k.startswith(('case_', '__'))})




def case_global_mutation_without_statement():
    CONFIG.clear()
    CONFIG["mode"] = "default"
    CONFIG["mode"] = "changed"
    r = CONFIG["mode"]
    CONFIG["mode"] = "default"
    return r


def case_global_in_nested_function():
    global COUNTER
    COUNTER = 0

    def outer():
        COUNTER = "local-outer"  # local to outer

        def inner():
            global COUNTER
            COUNTER = 99
            return COUNTER

        return inner(), COUNTER

    r = outer()
    return (r, COUNTER)


def case_global_created_by_function():
    g = globals()
    g.pop("DYNAMIC_GLOBAL", None)

    def create():
        global DYNAMIC_GLOBAL
        DYNAMIC_GLOBAL = [1, 2]

    before = "DYNAMIC_GLOBAL" in g
    create()
    after = g["DYNAMIC_GLOBAL"]
    del g["DYNAMIC_GLOBAL"]
    return (before, after)


def case_del_global_then_nameerror():
    global TEMP_GLOBAL
    TEMP_GLOBAL = "temp"
    first = read_temp_global()
    del TEMP_GLOBAL
    try:
        read_temp_global()
    except NameError as e:
        second = (type(e).__name__, str(e))
    finally:
        TEMP_GLOBAL = "temp"
    return (first, second, read_temp_global())


def case_undefined_global_nameerror():
    return this_name_is_not_defined_anywhere + 1  # noqa: F821


def case_global_shadows_builtin():
    g = globals()
    g["len"] = lambda x: "fake-len"
    try:
        shadowed = use_len([1, 2, 3])
    finally:
        del g["len"]
    restored = use_len([1, 2, 3])
    return (shadowed, restored)


def case_local_shadows_builtin():
    def f(items):
        max = lambda seq: "local-max"  # noqa: E731
        return max(items)

    def g(items):
        return max(items)

    return (f([1, 5]), g([1, 5]))


def case_builtins_lookups():
    import builtins

    return (
        builtins.len is len,
        abs(-3),
        divmod(17, 5),
        isinstance(builtins.__dict__["sum"]([1, 2]), int),
        type(None).__name__,
        getattr(builtins, "no_such_builtin", "missing"),
    )


def case_globals_access():
    g = globals()
    return (g["MODULE_CONST"], "case_globals_access" in g, g is globals(), "__name__" in g)


def case_locals_in_function():
    def f(a, b=2, *args, **kw):
        c = a + b
        d = [c]
        return sorted(locals())

    return f(1, 2, 3, k=4)


def case_locals_includes_free_vars():
    x = 1
    y = 2

    def inner():
        z = x + 1
        return sorted(locals().items())

    return inner()


def case_locals_snapshot_values():
    def f():
        a = 1
        snap = dict(locals())
        a = 2
        return (snap, a)

    return f()


# ---------------------------------------------------------------------------
# exec / eval
# ---------------------------------------------------------------------------


def case_eval_with_dicts():
    g = {"x": 10}
    l = {"y": 5}
    return (eval("x * y", g, l), eval("x + 1", g), eval("[y for _ in range(2)]", {"y": 3}), sorted(k for k in g if k != "__builtins__"))


def case_exec_defines_function():
    ns = {}
    exec("def sq(n):\n    return n * n\nresult = sq(7)\n", ns)
    return (ns["result"], ns["sq"](3), sorted(k for k in ns if k != "__builtins__"))


def case_exec_separate_locals():
    g = {}
    l = {}
    exec("a = 1\nb = a + 1", g, l)
    return (sorted(l.items()), sorted(k for k in g if k != "__builtins__"))


def case_exec_global_statement():
    g = {"counter": 0}
    exec("def inc():\n    global counter\n    counter += 1\ninc()\ninc()\n", g)
    return g["counter"]


def case_eval_lambda_cannot_see_eval_locals():
    f = eval("lambda: hidden", {}, {"hidden": 1})
    try:
        f()
    except NameError as e:
        return str(e)


def case_exec_does_not_change_function_locals():
    x = "original"
    exec("x = 'changed'")
    return x


def case_exec_syntax_error():
    try:
        exec("def h():\n    x = 1\n    global x\n")
    except SyntaxError as e:
        return (type(e).__name__, e.msg)


def case_eval_nameerror_uncaught():
    return eval("undefined_in_eval + 1", {"__builtins__": {}})


def case_compile_and_exec():
    code = compile("total = sum(range(n))", "<corpus>", "exec")
    results = []
    for n in (3, 5):
        ns = {"n": n}
        exec(code, ns)
        results.append(ns["total"])
    return (results, code.co_filename)


# ---------------------------------------------------------------------------
# lambdas and default arguments
# ---------------------------------------------------------------------------


def case_lambda_capture_and_nesting():
    k = 3
    mul = lambda x: x * k  # noqa: E731
    compose = lambda f, g: lambda x: f(g(x))  # noqa: E731
    inc = lambda x: x + 1  # noqa: E731
    k = 4
    return (mul(2), compose(mul, inc)(1), compose(inc, mul)(1), (lambda *a, **kw: (a, sorted(kw)))(1, 2, z=3))


def case_mutable_default_accumulates():
    def append_to(v, bucket=[]):
        bucket.append(v)
        return list(bucket)

    return (append_to(1), append_to(2), append_to(3, []), append_to(4))


def case_mutable_default_reset_via_defaults():
    def append_to(v, bucket=[]):
        bucket.append(v)
        return bucket

    append_to(1)
    append_to(2)
    before = append_to.__defaults__
    append_to.__defaults__ = ([],)
    return (before, append_to(3), append_to.__defaults__)


def case_default_evaluated_at_def_time():
    base = 10

    def f(x=base * 2):
        return x

    base = 1000
    calls = []

    def g(x=calls.append("evaluated") or 5):
        return x

    return (f(), g(), g(), calls)


def case_kwdefaults_modified():
    def f(a, *, scale=2, offset=0):
        return a * scale + offset

    r1 = f(3)
    f.__kwdefaults__ = {"scale": 10, "offset": 1}
    return (r1, f(3), sorted(f.__kwdefaults__.items()))


# ---------------------------------------------------------------------------
# decorators
# ---------------------------------------------------------------------------


def case_simple_decorator():
    @simple_decorator
    def add(a, b):
        return a + b

    return (add(1, 2), add.__name__)


def case_decorator_with_args():
    def repeat(times):
        def deco(fn):
            @functools.wraps(fn)
            def wrapper(*args):
                return [fn(*args) for _ in range(times)]

            return wrapper

        return deco

    @repeat(3)
    def hello(name):
        """Say hello."""
        return "hi " + name

    return (hello("bob"), hello.__name__, hello.__doc__, hello.__wrapped__("x"))


def case_stacked_decorators_order():
    trace = []

    def tag(label):
        trace.append("factory " + label)

        def deco(fn):
            trace.append("apply " + label)

            def wrapper():
                return label + "(" + fn() + ")"

            return wrapper

        return deco

    @tag("outer")
    @tag("inner")
    def base():
        return "base"

    return (base(), trace)


def case_decorator_stateful_call_count():
    def counted(fn):
        def wrapper(*a, **k):
            wrapper.calls += 1
            return fn(*a, **k)

        wrapper.calls = 0
        return wrapper

    @counted
    def sq(x):
        return x * x

    vals = [sq(i) for i in range(4)]
    return (vals, sq.calls)


def case_wraps_preserves_metadata():
    def deco(fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            return fn(*args, **kwargs)

        return wrapper

    @deco
    def documented(x: int) -> str:
        """Docstring here."""
        return str(x)

    return (
        documented.__name__,
        documented.__qualname__,
        documented.__doc__,
        sorted(documented.__annotations__),
        documented(5),
    )


def case_class_based_decorator():
    class Memo:
        def __init__(self, fn):
            self.fn = fn
            self.cache = {}

        def __call__(self, n):
            if n not in self.cache:
                self.cache[n] = self.fn(n)
            return self.cache[n]

    @Memo
    def fib(n):
        return n if n < 2 else fib(n - 1) + fib(n - 2)

    return (fib(30), len(fib.cache))


def case_decorator_on_method():
    def logged(fn):
        def wrapper(self, *args):
            self.log.append(fn.__name__)
            return fn(self, *args)

        return wrapper

    class Svc:
        def __init__(self):
            self.log = []

        @logged
        def run(self, x):
            return x + 1

    s = Svc()
    return (s.run(1), s.run(2), s.log)


# ---------------------------------------------------------------------------
# functools
# ---------------------------------------------------------------------------


def case_partial():
    def power(base, exp, *, mod=None):
        r = base**exp
        return r % mod if mod else r

    sq = functools.partial(power, exp=2)
    cube_mod = functools.partial(power, exp=3, mod=10)
    p2 = functools.partial(power, 2)
    p2p = functools.partial(p2, mod=7)
    return (sq(5), cube_mod(4), p2(10), p2p(10), sq(3, exp=4), p2.args, sorted(cube_mod.keywords.items()))


def case_lru_cache_inner():
    calls = []

    @functools.lru_cache(maxsize=None)
    def slow_sq(n):
        calls.append(n)
        return n * n

    vals = [slow_sq(i % 3) for i in range(9)]
    info = slow_sq.cache_info()
    slow_sq.cache_clear()
    slow_sq(1)
    return (vals, calls, (info.hits, info.misses, info.currsize))


def case_lru_cache_recursive():
    @functools.lru_cache(maxsize=128)
    def ways(n):
        if n < 0:
            return 0
        if n == 0:
            return 1
        return ways(n - 1) + ways(n - 2) + ways(n - 3)

    return (ways(30), ways.cache_info().currsize)


def case_cached_property_in_function_class():
    class Data:
        def __init__(self, vals):
            self.vals = vals
            self.computed = 0

        @functools.cached_property
        def total(self):
            self.computed += 1
            return sum(self.vals)

    d = Data([1, 2, 3])
    return (d.total, d.total, d.computed, "total" in vars(d))


# ---------------------------------------------------------------------------
# class-level closures
# ---------------------------------------------------------------------------


def case_class_methods_close_over_function_locals():
    def make(prefix):
        count = 0

        class Greeter:
            def greet(self, name):
                nonlocal count
                count += 1
                return f"{prefix}{name}#{count}"

            @staticmethod
            def total():
                return count

        return Greeter

    G = make("Hi ")
    g = G()
    return (g.greet("a"), g.greet("b"), G.total(), make("Yo ")().greet("c"))


def case_class_body_lambda_closure():
    factor = 7

    class C:
        scale = lambda self, v: v * factor  # noqa: E731
        consts = [factor]

    return (C().scale(3), C.consts)


# ---------------------------------------------------------------------------
# imports inside functions
# ---------------------------------------------------------------------------


def case_import_inside_function():
    import math
    from collections import OrderedDict
    import os.path
    import collections.abc as cabc
    from itertools import islice as take

    od = OrderedDict([("b", 1), ("a", 2)])
    od.move_to_end("b")
    return (
        math.isqrt(99),
        list(od.items()),
        os.path.join("a", "b"),
        isinstance([], cabc.Sequence),
        list(take(range(10), 3)),
        sorted(k for k in locals() if k != "od"),
    )


def case_import_binds_top_package():
    import os.path

    return (os.__name__, os.path.basename("/x/y.txt"), "path" in dir(os))


def case_import_missing_module():
    try:
        import this_module_does_not_exist_xyz  # noqa: F401
    except ImportError as e:
        return (type(e).__name__, e.name)


def case_from_import_missing_name():
    try:
        from math import does_not_exist  # noqa: F401
    except ImportError as e:
        return (type(e).__name__, "does_not_exist" in str(e))
