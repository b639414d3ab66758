"""Differential test corpus: special-method binding (static/class methods as dunders,
metaclasses, ``__prepare__``), ``**`` merging, name lookup in mapping namespaces, property
getters, ``warnings.warn`` attribution, frame views, recursion limits and generator corners.

Each ``case_*`` function takes no arguments and returns plain data or raises.
"""

import inspect
import os
import sys
import traceback
import types
import warnings

PROTO_CONST = 41


def chain(e):
    out = []
    while e is not None and len(out) < 10:
        out.append((type(e).__name__, str(e)))
        e = e.__cause__ if e.__cause__ is not None else e.__context__
    return out


# ---------------------------------------------------------------------------
# special methods and their descriptor kinds
# ---------------------------------------------------------------------------


def case_classmethod_next_dunder():
    class It:
        n = 0

        def __iter__(self):
            return self

        @classmethod
        def __next__(cls):
            cls.n += 1
            if cls.n > 2:
                raise StopIteration
            return (cls.__name__, cls.n)

    return list(It())


def case_staticmethod_iter_dunder():
    class C:
        @staticmethod
        def __iter__():
            return iter("ab")

    try:
        return [x for x in C()]
    except TypeError as e:
        return str(e)


def case_builtin_as_call_dunder():
    class C:
        __call__ = len

    try:
        return C()()
    except TypeError as e:
        return str(e)


def case_callable_object_as_init_dunder():
    log = []

    class Recorder:  # not a descriptor: called without the instance
        def __call__(self, *args):
            log.append(len(args))

    class C:
        __init__ = Recorder()

    C(1, 2)
    return log


def case_metaclass_python_call():
    class Meta(type):
        def __call__(cls, *args, **kw):
            return ("made", cls.__name__, args, sorted(kw.items()))

    class A(metaclass=Meta):
        pass

    return A(1, k=2)


def case_init_returning_value():
    class C:
        def __init__(self):
            return 5

    try:
        C()
    except TypeError as e:
        return str(e)


def case_new_returning_other_type_skips_init():
    log = []

    class Other:
        pass

    class C:
        def __new__(cls):
            return Other()

        def __init__(self):
            log.append("init")

    return type(C()).__name__, log


def case_python_new_with_object_init_and_args():
    class C:
        def __new__(cls, *args):
            return super().__new__(cls)

    try:
        C(1)
        return "ok"
    except TypeError as e:
        return str(e)


def case_call_dunder_replaced_after_use():
    class C:
        def __call__(self):
            return "first"

    c = C()
    a = c()
    C.__call__ = lambda self: "second"
    return a, c()


def case_instance_call_attribute_is_not_used():
    class C:
        def __call__(self):
            return "class"

    c = C()
    c.__call__ = lambda: "instance"
    return c()


# ---------------------------------------------------------------------------
# properties
# ---------------------------------------------------------------------------


def case_property_attributeerror_falls_back_to_interpreted_getattr():
    class P:
        @property
        def v(self):
            raise AttributeError("inner")

        def __getattr__(self, name):
            return (name, repr(sys.exception()))

    try:
        raise KeyError("outer")
    except KeyError:
        return P().v


def case_property_getter_raises_inside_handler():
    class P:
        @property
        def v(self):
            raise ValueError("in getter")

    try:
        raise KeyError("outer")
    except KeyError:
        try:
            P().v
        except ValueError as e:
            return chain(e)


def case_property_beats_instance_dict_and_can_be_replaced():
    class P:
        @property
        def v(self):
            return "property"

    p = P()
    p.__dict__["v"] = "instance"
    out = [p.v]
    P.v = property(lambda self: "replaced")
    out.append(p.v)
    del P.v
    out.append(p.v)
    return out


def case_property_on_class_with_custom_getattribute():
    log = []

    class P:
        def __getattribute__(self, name):
            log.append(name)
            return object.__getattribute__(self, name)

        @property
        def v(self):
            return 3

    return P().v, log


# ---------------------------------------------------------------------------
# ** merging and mapping namespaces
# ---------------------------------------------------------------------------


def case_double_star_dict_subclass_with_own_iter_uses_keys():
    class D(dict):
        def __iter__(self):
            return iter(["a"])

        def keys(self):
            return ["a", "b"]

    def f(**kw):
        return sorted(kw.items())

    return f(**D(a=1, b=2)), sorted({**D(a=1, b=2)}.items())


def case_double_star_keyerror_from_getitem():
    class Mp:
        def keys(self):
            return ["a"]

        def __getitem__(self, k):
            raise KeyError(k)

    def f(**kw):
        return kw

    out = []
    for thunk in (lambda: f(**Mp()), lambda: {**Mp()}):
        try:
            thunk()
        except (KeyError, TypeError) as e:
            out.append((type(e).__name__, str(e).split(".")[-1]))
    return out


def case_double_star_keys_not_iterable():
    class Mp:
        def keys(self):
            return 5

        def __getitem__(self, k):
            return k

    def f(**kw):
        return kw

    out = []
    for thunk in (lambda: f(**Mp()), lambda: {**Mp()}):
        try:
            thunk()
        except TypeError as e:
            out.append(str(e).split(".")[-1])
    return out


def case_double_star_duplicate_keyword():
    def f(**kw):
        return kw

    try:
        f(a=1, **{"a": 2})
    except TypeError as e:
        return str(e).split(".")[-1]


def case_builtins_mapping_with_missing():
    class B(dict):
        def __missing__(self, key):
            return f"<builtin {key}>"

    ns = {"__builtins__": B(len=len)}
    exec("def probe():\n    return len('ab'), not_a_name\n", ns)
    return ns["probe"]()


def case_exec_with_none_globals_and_locals_mapping():
    d = {}
    exec("z = PROTO_CONST + 1", None, d)
    return d


def case_prepare_on_non_type_metaclass_returning_non_mapping():
    class M:
        def __prepare__(self, name, bases):
            return 1

        def __call__(self, name, bases, ns):
            return name

    try:
        class A(metaclass=M()):
            pass
    except TypeError as e:
        return str(e)


def case_prepare_classmethod_receives_keywords():
    log = []

    class Meta(type):
        @classmethod
        def __prepare__(mcs, name, bases, **kw):
            log.append(("prepare", name, sorted(kw)))
            return {}

        def __new__(mcs, name, bases, ns, **kw):
            log.append(("new", name, sorted(kw)))
            return super().__new__(mcs, name, bases, ns)

        def __init__(cls, name, bases, ns, **kw):
            super().__init__(name, bases, ns)

    class A(metaclass=Meta, flag=True):
        pass

    return log


# ---------------------------------------------------------------------------
# warnings, frames, recursion
# ---------------------------------------------------------------------------


def case_warn_with_instance_and_bad_category():
    out = []
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        warnings.warn(DeprecationWarning("as instance"))
        warnings.warn("no category")
        try:
            warnings.warn("bad", int)
        except TypeError as e:
            out.append(str(e))
    first = case_warn_with_instance_and_bad_category.__code__.co_firstlineno
    out += [(w.category.__name__, str(w.message), w.lineno - first, w.line) for w in caught]
    return out


def case_warn_once_uses_module_registry():
    def hit():
        warnings.warn("only once", UserWarning)

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("once")
        for _ in range(3):
            hit()
    return len(caught), str(caught[0].message)


def case_warn_skip_file_prefixes():
    here = os.path.dirname(os.path.abspath(__file__))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            warnings.warn("skipped", UserWarning, skip_file_prefixes=(here,))
        except TypeError as e:  # 3.11 has no skip_file_prefixes
            return str(e)
    return [os.path.basename(w.filename) for w in caught]


def case_extract_stack_sees_interpreted_frames():
    def inner():
        return [(fs.name, fs.lineno - case_extract_stack_sees_interpreted_frames.__code__.co_firstlineno)
                for fs in traceback.extract_stack()[-2:]]

    return inner()


def case_inspect_stack_function_names():
    def inner():
        return [fi.function for fi in inspect.stack()[:2]]

    return inner()


def case_getframe_f_back_and_lasti():
    def inner():
        fr = sys._getframe(1)
        return fr.f_code.co_name, fr.f_lasti >= 0, isinstance(fr, types.FrameType)

    return inner()


def case_infinite_recursion_is_recursion_error():
    def f(n):
        return f(n + 1)

    try:
        f(0)
    except RecursionError as e:
        return str(e)


def case_recursion_limit_as_seen_and_set():
    old = sys.getrecursionlimit()
    depth = [0]

    def dive(n):
        depth[0] = n
        dive(n + 1)

    sys.setrecursionlimit(250)
    try:
        dive(0)
    except RecursionError:
        pass
    finally:
        sys.setrecursionlimit(old)
    return old == sys.getrecursionlimit(), 100 < depth[0] < 250


def case_recursion_through_constructors_ends():
    class Node:
        def __init__(self, n):
            self.child = Node(n + 1)

    try:
        Node(0)
    except RecursionError:
        return "RecursionError"


# ---------------------------------------------------------------------------
# generators
# ---------------------------------------------------------------------------


def case_types_coroutine_generator_send_and_return():
    @types.coroutine
    def gen():
        x = yield 1
        return x * 2

    g = gen()
    first = next(g)
    try:
        g.send(21)
    except StopIteration as e:
        return first, e.value


def case_generator_name_set_before_call():
    def gen():
        yield 1

    gen.__qualname__ = "Renamed.gen"
    a = gen()
    gen.__qualname__ = "Later.gen"
    return a.__qualname__, gen().__qualname__


def case_throw_into_unstarted_generator_does_not_chain():
    def gen():
        yield 1

    g = gen()
    try:
        raise KeyError("handling")
    except KeyError:
        try:
            g.throw(ValueError("into unstarted"))
        except ValueError as e:
            return chain(e), inspect.getgeneratorstate(g)


def case_yield_from_delegate_throw_method_is_interpreted():
    class Sub:
        def __iter__(self):
            return self

        def __next__(self):
            return 1

        def throw(self, exc, *rest):
            return ("sub saw", repr(sys.exception()))

    def outer():
        yield from Sub()

    g = outer()
    next(g)
    try:
        raise KeyError("caller")
    except KeyError:
        return g.throw(ValueError("t"))


class _FalsyBoom:
    def __bool__(self):
        raise ValueError("no truth value")


def case_bool_raising_in_if_is_caught_by_enclosing_try():
    out = []
    try:
        if _FalsyBoom():
            out.append("then")
    except ValueError as e:
        out.append(("caught", str(e)))
    try:
        while _FalsyBoom():
            break
    except ValueError:
        out.append("while caught")
    try:
        out.append(not _FalsyBoom())
    except ValueError:
        out.append("not caught")
    return out


def case_bool_raising_in_condition_propagates():
    x = _FalsyBoom()
    if x:
        return "unreachable"
    return "also unreachable"
