"""Differential test corpus: closures, scoping rules, globals, builtins, decorators.

Each ``case_*`` function takes no arguments and returns plain data or raises.
Cases that mutate module globals reset them at the start.
"""

import functools

# ---------------------------------------------------------------------------
# module-level state and helpers
# ---------------------------------------------------------------------------

COUNTER = 0
CONFIG = {"mode": "default"}
MODULE_CONST = "module-constant"
TEMP_GLOBAL = "temp"


def bump_counter(n=1):
    global COUNTER
    COUNTER += n
    return COUNTER


def read_counter():
    return COUNTER


def use_len(x):
    # resolved at call time: module globals first, then builtins
    return len(x)


def uses_later_defined():
    return LATER_DEFINED * 2


LATER_DEFINED = 21


def read_temp_global():
    return TEMP_GLOBAL


def make_adder(n):
    def add(x):
        return x + n

    return add


def simple_decorator(fn):
    def wrapper(*args, **kwargs):
        return ("decorated", fn(*args, **kwargs))

    return wrapper


# ---------------------------------------------------------------------------
# closures: late binding, capture, depth
# ---------------------------------------------------------------------------


def case_late_binding_loop():
    fns = []
    for i in range(4):
        fns.append(lambda: i * 10)
    return [f() for f in fns]


def case_early_binding_default_arg():
    fns = []
    for i in range(4):
        fns.append(lambda i=i: i * 10)
    return [f() for f in fns]


def case_late_binding_sees_later_assignment():
    x = 1

    def get():
        return x

    a = get()
    x = 2
    b = get()
    x = "three"
    return (a, b, get())


def case_closure_captures_argument():
    def outer(a, b=5):
        def inner(c):
            return a * 100 + b * 10 + c

        return inner

    f = outer(1)
    g = outer(2, b=3)
    return (f(7), g(7), f(0))


def case_closure_argument_rebound_after_capture():
    def outer(v):
        def get():
            return v

        v = v + 1000
        return get

    return outer(1)()


def case_module_level_closure_factory():
    a5 = make_adder(5)
    a10 = make_adder(10)
    return (a5(1), a10(1), a5.__closure__[0].cell_contents, a5.__code__.co_freevars)


def case_three_level_nesting():
    def level1(a):
        def level2(b):
            def level3(c):
                return (a, b, c, a + b + c)

            return level3

        return level2

    return (level1(1)(20)(300), level1("x")("y")("z"))


def case_three_level_skip_middle():
    def outer():
        value = "outer"

        def middle():
            def inner():
                return value  # passes through middle as a free var

            return inner

        return middle()

    return outer()()


def case_shared_cell_between_closures():
    def make():
        data = []

        def push(v):
            data.append(v)
            return len(data)

        def snapshot():
            return list(data)

        return push, snapshot

    push, snap = make()
    push(1)
    push(2)
    push2, snap2 = make()
    push2("other")
    return (snap(), snap2())


def case_closure_cell_contents():
    def outer():
        x = 10
        y = "why"

        def inner():
            return x, y

        return inner

    f = outer()
    return (sorted(f.__code__.co_freevars), sorted(c.cell_contents for c in f.__closure__ if isinstance(c.cell_contents, int)))


def case_recursive_inner_function():
    def outer(n):
        def fact(k):
            return 1 if k <= 1 else k * fact(k - 1)

        return fact(n)

    return (outer(10), outer(1))


def case_mutual_recursion_inner():
    def is_even(n):
        return True if n == 0 else is_odd(n - 1)

    def is_odd(n):
        return False if n == 0 else is_even(n - 1)

    return [is_even(k) for k in range(6)] + [is_odd(7)]


def case_closures_in_list_comprehension():
    fns = [lambda: i for i in range(3)]
    fns2 = [(lambda j: lambda: j)(i) for i in range(3)]
    return ([f() for f in fns], [f() for f in fns2])


def case_closures_in_generator_expression():
    gen = (lambda: k * 2 for k in range(3))
    # each lambda is called right after being produced -> sees current k
    eager = [f() for f in gen]
    fns = list(lambda: k * 2 for k in range(3))
    return (eager, [f() for f in fns])


def case_closure_in_dict_comprehension():
    ops = {name: (lambda x, n=n: x * n) for name, n in [("double", 2), ("triple", 3)]}
    return sorted((k, f(7)) for k, f in ops.items())


def case_generator_closure():
    def counter_gen(limit):
        step = 1

        def advance(v):
            return v + step

        v = 0
        while v < limit:
            yield v
            v = advance(v)
            step += 1

    return list(counter_gen(20))


# ---------------------------------------------------------------------------
# nonlocal
# ---------------------------------------------------------------------------


def case_nonlocal_counter():
    def make_counter():
        count = 0

        def inc(by=1):
            nonlocal count
            count += by
            return count

        return inc

    c1 = make_counter()
    c2 = make_counter()
    return (c1(), c1(), c1(5), c2(), c1())


def case_nonlocal_visible_to_outer():
    total = 0
    names = []

    def add(v):
        nonlocal total
        total += v
        names.append(v)  # mutation, no nonlocal needed

    for v in (3, 4, 5):
        add(v)
    return (total, names)


def case_nonlocal_rebind_vs_local_shadow():
    x = "outer"

    def shadow():
        x = "shadow"  # local, does not affect outer
        return x

    def rebind():
        nonlocal x
        x = "rebound"

    r1 = (shadow(), x)
    rebind()
    return (r1, x)


def case_nonlocal_two_levels():
    def outer():
        n = 0

        def middle():
            def inner():
                nonlocal n
                n += 1

            inner()
            inner()
            return n

        return middle(), n

    return outer()


def case_nonlocal_parameter():
    def outer(acc):
        def add(v):
            nonlocal acc
            acc = acc + [v]
            return acc

        add(1)
        add(2)
        return acc

    seed = [0]
    return (outer(seed), seed)


def case_nonlocal_del_then_read():
    def outer():
        x = 1

        def killer():
            nonlocal x
            del x

        killer()
        return x

    return outer()


def case_nonlocal_del_then_reassign():
    def outer():
        x = 1

        def killer():
            nonlocal x
            del x

        def setter():
            nonlocal x
            x = "back"

        killer()
        try:
            x
        except NameError as e:
            first = type(e).__name__
        setter()
        return (first, x)

    return outer()


def case_del_captured_local_then_call_inner():
    def outer():
        x = 1

        def inner():
            return x

        del x
        return inner()

    return outer()


def case_del_captured_local_message():
    def outer():
        x = 1

        def inner():
            return x

        del x
        try:
            inner()
        except NameError as e:
            return (type(e).__name__, str(e))

    return outer()


def case_except_var_captured_then_cleared():
    def outer():
        try:
            raise ValueError("boom")
        except ValueError as e:
            def get():
                return e

            inside = str(get())
        try:
            get()
        except NameError as exc:
            return (inside, type(exc).__name__, str(exc))

    return outer()


def case_except_var_deleted_after_block():
    def f():
        e = "before"
        try:
            1 / 0
        except ZeroDivisionError as e:
            pass
        return e

    try:
        f()
    except UnboundLocalError as err:
        return (type(err).__name__, str(err))


# ---------------------------------------------------------------------------
# UnboundLocalError and local detection
# ---------------------------------------------------------------------------


def case_unbound_local_read_before_assign():
    def f():
        r = MODULE_CONST  # noqa: F841 -- MODULE_CONST is a local below
        MODULE_CONST = "local"
        return r

    f()


def case_unbound_local_message():
    y = 10

    def f():
        try:
            y += 1
        except UnboundLocalError as e:
            return str(e)

    return f()


def case_unbound_local_conditional_assign():
    def f(flag):
        if flag:
            v = "set"
        return v

    r = [f(True)]
    try:
        f(False)
    except UnboundLocalError as e:
        r.append(str(e))
    return r


def case_del_local_then_read():
    def f():
        a = 1
        del a
        return a

    f()


def case_loop_variable_survives_loop():
    for i in range(5):
        pass
    for j in []:
        pass
    try:
        j
    except UnboundLocalError:
        j_state = "unbound"
    return (i, j_state)


def case_comprehension_variable_does_not_leak():
    k = "outer-k"
    vals = [k * 2 for k in range(3)]
    s = {k for k in "ab"}
    d = {k: k for k in (1,)}
    g = list(k for k in [9])
    return (k, vals, sorted(s), d, g)


def case_walrus_in_comprehension_binds_enclosing():
    last = None
    squares = [last := n * n for n in range(5)]
    total = 0
    running = [total := total + v for v in (1, 2, 3)]
    return (squares, last, running, total)


def case_walrus_in_comprehension_nested_function():
    def outer():
        found = None

        def search(items):
            nonlocal found
            if any((found := x) > 10 for x in items):
                return found
            return None

        return (search([1, 20, 30]), found, search([1, 2]), found)

    return outer()


def case_generator_first_iterable_evaluated_eagerly():
    data = [1, 2, 3]
    gen = (x * 10 for x in data)
    data = [100]  # rebinding does not affect already-evaluated iterable
    return list(gen)


def case_generator_inner_iterable_late():
    ys = [1, 2]
    gen = ((x, y) for x in range(2) for y in ys)
    ys = [7]  # inner iterable is looked up lazily through the closure
    return list(gen)


# ---------------------------------------------------------------------------
# globals and builtins
# ---------------------------------------------------------------------------


def case_read_global():
    return (MODULE_CONST, CONFIG["mode"], uses_later_defined())

def case_global_statement_write():
    global COUNTER
    COUNTER = 0
    bump_counter()
    bump_counter(5)
    COUNTER += 10
    return (COUNTER, read_counter())
