"""Differential test corpus: generators, generator expressions and iterators.

Each ``case_*`` function takes no arguments and returns plain data or raises.
"""

import inspect
import itertools


# ---------------------------------------------------------------------------
# module-level helpers
# ---------------------------------------------------------------------------


def countdown(n):
    while n > 0:
        yield n
        n -= 1


def naturals():
    n = 0
    while True:
        yield n
        n += 1


def accumulator():
    total = 0
    while True:
        x = yield total
        if x is None:
            break
        total += x
    return total


def averager():
    total = 0.0
    count = 0
    avg = None
    while True:
        term = yield avg
        total += term
        count += 1
        avg = total / count


def sub_with_return(n):
    for i in range(n):
        yield i
    return n * 100


class CountIter:
    """Iterator protocol via __iter__/__next__."""

    def __init__(self, limit):
        self.i = 0
        self.limit = limit

    def __iter__(self):
        return self

    def __next__(self):
        if self.i >= self.limit:
            raise StopIteration
        self.i += 1
        return self.i * self.i


class Tree:
    def __init__(self, value, *children):
        self.value = value
        self.children = children

    def __iter__(self):
        yield self.value
        for child in self.children:
            yield from child

    def walk_depth(self, depth=0):
        yield depth, self.value
        for child in self.children:
            yield from child.walk_depth(depth + 1)


class Recorder:
    def __init__(self, log, name):
        self.log = log
        self.name = name

    def __enter__(self):
        self.log.append("enter " + self.name)
        return self

    def __exit__(self, exc_type, exc, tb):
        self.log.append("exit " + self.name + " " + (exc_type.__name__ if exc_type else "-"))
        return False


# ---------------------------------------------------------------------------
# basics
# ---------------------------------------------------------------------------


def case_simple_generator_to_list():
    return list(countdown(5)), list(countdown(0)), sum(countdown(4))


def case_generator_is_lazy():
    log = []

    def gen():
        log.append("start")
        yield 1
        log.append("middle")
        yield 2
        log.append("end")

    g = gen()
    before = list(log)
    first = next(g)
    after_first = list(log)
    rest = list(g)
    return before, first, after_first, rest, log


def case_independent_generator_instances():
    a = countdown(3)
    b = countdown(3)
    return next(a), next(a), next(b), next(a), next(b), list(a), list(b)


def case_generator_with_arguments_and_defaults():
    def rng(start, stop=None, step=1, *, scale=1):
        if stop is None:
            start, stop = 0, start
        i = start
        while i < stop:
            yield i * scale
            i += step

    return list(rng(4)), list(rng(2, 10, 3)), list(rng(3, scale=-1))


def case_generator_return_value_via_stopiteration():
    g = sub_with_return(2)
    out = [next(g), next(g)]
    try:
        next(g)
    except StopIteration as e:
        out.append(e.value)
        out.append(e.args)
    return out


def case_generator_return_without_yield_reached():
    def g():
        return 5
        yield  # makes this a generator  # noqa

    it = g()
    try:
        next(it)
    except StopIteration as e:
        return e.value, inspect.isgenerator(it)


def case_exhausted_generator_stays_exhausted():
    g = sub_with_return(1)
    out = [next(g)]
    for _ in range(3):
        try:
            next(g)
        except StopIteration as e:
            out.append(("stop", e.value))
    out.append(list(g))
    out.append(inspect.getgeneratorstate(g))
    return out


def case_next_with_default():
    g = countdown(2)
    return [next(g, "d"), next(g, "d"), next(g, "d"), next(g, None), next(iter([]), 0)]


def case_next_on_exhausted_raises():
    g = countdown(1)
    next(g)
    return next(g)


def case_generator_states():
    states = []

    def gen():
        states.append(inspect.getgeneratorstate(g))
        yield 1

    g = gen()
    states.append(inspect.getgeneratorstate(g))
    next(g)
    states.append(inspect.getgeneratorstate(g))
    try:
        next(g)
    except StopIteration:
        pass
    states.append(inspect.getgeneratorstate(g))
    return states


def case_yield_tuple_and_expression_precedence():
    def gen():
        x = yield 1, 2
        y = yield x, x
        yield (yield y) + 1

    g = gen()
    return [next(g), g.send("a"), g.send("b"), g.send(10)]


def case_yield_in_lambda():
    f = lambda: (yield 1)  # noqa: E731
    g = f()
    first = next(g)
    try:
        g.send("back")
    except StopIteration as e:
        return first, e.value


def case_generator_local_state_preserved():
    def gen():
        seen = []
        for ch in "abc":
            seen.append(ch)
            yield "".join(seen)
        yield len(seen)

    return list(gen())


def case_generator_with_nested_loops_and_break():
    def pairs():
        for i in range(4):
            for j in range(4):
                if j > i:
                    break
                if (i + j) % 2:
                    continue
                yield i, j

    return list(pairs())


# ---------------------------------------------------------------------------
# generator expressions
# ---------------------------------------------------------------------------


def case_genexpr_reads_outer_variable_late():
    x = 10
    g = (x + i for i in range(3))
    x = 20
    return list(g)


def case_genexpr_first_iterable_evaluated_eagerly():
    r = [1, 2]
    g = (i * 10 for i in r)
    r = [9, 9, 9]
    return list(g), r


def case_genexpr_first_iterable_error_is_immediate():
    log = []
    try:
        g = (x for x in 5)
        log.append("created")
        list(g)
    except TypeError as e:
        log.append(str(e))
    return log


def case_genexpr_inner_iterable_is_lazy():
    log = []
    g = (a + b for a in range(2) for b in 5)
    log.append("created")
    try:
        next(g)
    except TypeError as e:
        log.append(str(e))
    return log


def case_nested_genexpr():
    rows = 3
    matrix = ((r * 10 + c for c in range(rows)) for r in range(rows))
    return [list(row) for row in matrix], sum(x for row in ((1, 2), (3,)) for x in row)


def case_genexpr_with_conditions_and_multiple_fors():
    return sorted(
        (a, b) for a in range(5) if a % 2 for b in range(a) if b != 1
    ), list(x for x in "hello" if x not in "l")


def case_genexpr_single_pass():
    g = (i * i for i in range(4))
    return list(g), list(g), sum(i for i in range(101))


def case_genexpr_in_class_body_cannot_see_class_vars():
    class A:
        factor = 3
        # The outermost iterable is evaluated in class scope, the rest is not.
        values = list(v for v in [factor, factor])
        try:
            bad = list(factor * v for v in range(2))
        except NameError as e:
            error = str(e)

    return A.values, A.error


def case_genexpr_stopiteration_becomes_runtimeerror():
    it = iter([1])
    g = (next(it) for _ in range(3))
    out = [next(g)]
    try:
        next(g)
    except RuntimeError as e:
        out.append(str(e))
        out.append(type(e.__cause__).__name__)
    return out


def case_listcomp_stopiteration_propagates_unchanged():
    it = iter([1])
    try:
        [next(it) for _ in range(3)]
    except StopIteration as e:
        return "StopIteration", e.args
    except RuntimeError:
        return "RuntimeError"


# ---------------------------------------------------------------------------
# send / throw / close
# ---------------------------------------------------------------------------


def case_send_accumulator():
    g = accumulator()
    out = [next(g)]
    for v in (5, 10, -3):
        out.append(g.send(v))
    try:
        g.send(None)
    except StopIteration as e:
        out.append(("done", e.value))
    return out


def case_send_averager():
    g = averager()
    next(g)
    return [g.send(10), g.send(20), g.send(0)]


def case_send_none_equivalent_to_next():
    g = countdown(3)
    return [g.send(None), next(g), g.send(None)]


def case_send_non_none_to_just_started_raises():
    g = countdown(3)
    return g.send(1)


def case_send_to_exhausted_raises_stopiteration():
    g = countdown(1)
    next(g)
    try:
        next(g)
    except StopIteration:
        pass
    try:
        g.send(5)
    except StopIteration as e:
        return "stopped", e.value


def case_throw_caught_inside_generator():
    def gen():
        while True:
            try:
                yield "waiting"
            except ValueError as e:
                yield "caught " + str(e)

    g = gen()
    return [next(g), g.throw(ValueError("boom")), next(g), g.throw(ValueError("again"))]


def case_throw_uncaught_propagates_and_closes():
    log = []

    def gen():
        try:
            yield 1
            yield 2
        finally:
            log.append("finally")

    g = gen()
    next(g)
    try:
        g.throw(KeyError("k"))
    except KeyError as e:
        log.append(("out", repr(e)))
    log.append(inspect.getgeneratorstate(g))
    log.append(next(g, "exhausted"))
    return log


def case_throw_into_unstarted_generator():
    log = []

    def gen():
        log.append("body ran")
        try:
            yield 1
        finally:
            log.append("finally")

    g = gen()
    try:
        g.throw(ValueError("early"))
    except ValueError as e:
        log.append(str(e))
    log.append(inspect.getgeneratorstate(g))
    return log


def case_throw_exception_class():
    def gen():
        try:
            yield 1
        except IndexError as e:
            yield ("got", type(e).__name__, e.args)

    g = gen()
    next(g)
    return g.throw(IndexError)


def case_throw_uncaught_reaches_caller():
    g = countdown(3)
    next(g)
    g.throw(LookupError("thrown and not caught"))


def case_close_runs_finally():
    log = []

    def gen():
        try:
            yield 1
            yield 2
        except GeneratorExit:
            log.append("GeneratorExit")
            raise
        finally:
            log.append("finally")

    g = gen()
    next(g)
    g.close()
    log.append(inspect.getgeneratorstate(g))
    g.close()
    log.append(next(g, "after-close"))
    return log


def case_close_unstarted_and_exhausted_are_noops():
    log = []

    def gen():
        try:
            yield 1
        finally:
            log.append("finally")

    a = gen()
    a.close()
    b = gen()
    list(b)
    b.close()
    return log, inspect.getgeneratorstate(a), inspect.getgeneratorstate(b)


def case_close_generator_ignoring_generatorexit():
    ignored = []

    def stubborn():
        while True:
            try:
                yield 1
            except GeneratorExit:
                if ignored:
                    raise  # second close() is honoured, so finalization is clean
                ignored.append(True)

    g = stubborn()
    next(g)
    try:
        g.close()  # ignored -> RuntimeError escapes the case
    finally:
        g.close()


def case_close_generator_raising_other_exception():
    def gen():
        try:
            yield 1
        except GeneratorExit:
            raise ValueError("raised during close")

    g = gen()
    next(g)
    try:
        g.close()
    except ValueError as e:
        return str(e), type(e.__context__).__name__, inspect.getgeneratorstate(g)


def case_stopiteration_inside_generator_becomes_runtimeerror():
    def gen():
        yield 1
        raise StopIteration("inner")

    g = gen()
    next(g)
    try:
        next(g)
    except RuntimeError as e:
        return str(e), type(e.__cause__).__name__, str(e.__cause__)


def case_stopiteration_uncaught_runtimeerror():
    def gen():
        yield next(iter([]))

    return list(gen())


def case_reentrant_generator_raises():
    def gen():
        yield 1
        yield next(g)

    g = gen()
    next(g)
    return next(g)


# ---------------------------------------------------------------------------
# yield from
# ---------------------------------------------------------------------------


def case_yield_from_generator_return_value():
    def outer():
        a = yield from sub_with_return(2)
        b = yield from sub_with_return(1)
        return a + b

    g = outer()
    items = []
    while True:
        try:
            items.append(next(g))
        except StopIteration as e:
            return items, e.value


def case_yield_from_delegates_send():
    def outer():
        result = yield from accumulator()
        yield ("sub returned", result)

    g = outer()
    return [next(g), g.send(1), g.send(2), g.send(None)]


def case_yield_from_delegates_throw_caught_by_subgen():
    def inner():
        try:
            yield "inner-1"
        except KeyError:
            yield "inner handled"
        return "inner-done"

    def outer():
        r = yield from inner()
        yield r

    g = outer()
    return [next(g), g.throw(KeyError("x")), next(g)]


def case_yield_from_throw_propagates_to_outer():
    def inner():
        yield 1
        yield 2

    def outer():
        try:
            yield from inner()
        except ValueError as e:
            yield "outer caught " + str(e)

    g = outer()
    return [next(g), g.throw(ValueError("v")), next(g, "end")]


def case_yield_from_close_delegates():
    log = []

    def inner():
        try:
            yield 1
            yield 2
        finally:
            log.append("inner finally")

    def outer():
        try:
            yield from inner()
        finally:
            log.append("outer finally")

    g = outer()
    next(g)
    g.close()
    return log


def case_yield_from_iterables():
    def gen():
        yield from [1, 2]
        yield from range(3, 5)
        yield from "ab"
        yield from CountIter(3)
        yield from (x * 2 for x in range(2))
        yield from {"k": 1}
        r = yield from []
        yield r

    return list(gen())


def case_yield_from_iterator_without_throw():
    def outer():
        try:
            yield from CountIter(5)
        except ValueError:
            yield "outer caught"

    g = outer()
    return [next(g), g.throw(ValueError("x")), next(g, "done")]


def case_yield_from_send_to_non_generator_raises():
    def outer():
        yield from CountIter(5)

    g = outer()
    next(g)
    try:
        g.send("value")
    except AttributeError:
        return "AttributeError"


def case_yield_from_subgen_raises_stopiteration():
    def inner():
        yield 1
        raise StopIteration

    def outer():
        try:
            yield from inner()
        except RuntimeError as e:
            yield "outer saw: " + str(e)

    return list(outer())


def case_recursive_yield_from_tree():
    t = Tree(1, Tree(2, Tree(4)), Tree(3, Tree(5), Tree(6)))
    return list(t), list(t.walk_depth())


def case_recursive_permutations_generator():
    def perms(items):
        if len(items) <= 1:
            yield list(items)
            return
        for i, head in enumerate(items):
            for rest in perms(items[:i] + items[i + 1:]):
                yield [head] + rest

    return ["".join(p) for p in perms("abc")]


# ---------------------------------------------------------------------------
# iterators and pipelines
# ---------------------------------------------------------------------------


def case_iterator_protocol_class():
    it = CountIter(4)
    first = next(it)
    rest = list(it)
    return first, rest, list(it), iter(it) is it


def case_iter_callable_sentinel():
    data = [3, 2, 1, 0, 5, 6]
    pos = [0]

    def read():
        v = data[pos[0]]
        pos[0] += 1
        return v

    return list(iter(read, 0)), pos[0]


def case_iter_getitem_sequence_protocol():
    class Seq:
        def __getitem__(self, i):
            if i > 3:
                raise IndexError
            return chr(ord("a") + i)

    return list(Seq()), list(reversed(list(iter(Seq()))))


def case_generator_pipeline():
    def numbers():
        yield from range(1, 20)

    def evens(src):
        for n in src:
            if n % 2 == 0:
                yield n

    def squared(src):
        for n in src:
            yield n * n

    def take(n, src):
        for i, v in enumerate(src):
            if i >= n:
                return
            yield v

    return list(take(4, squared(evens(numbers()))))


def case_infinite_generator_with_islice():
    return (
        list(itertools.islice(naturals(), 5)),
        list(itertools.islice(naturals(), 2, 12, 3)),
        list(itertools.takewhile(lambda x: x < 4, naturals())),
        next(itertools.dropwhile(lambda x: x < 7, naturals())),
    )


def case_itertools_over_generators():
    def letters():
        yield from "aabbbc"

    grouped = [(k, len(list(g))) for k, g in itertools.groupby(letters())]
    a, b = itertools.tee(countdown(3))
    return grouped, list(a), list(b), list(itertools.chain(countdown(2), "xy", countdown(1)))


def case_zip_map_filter_over_generators():
    log = []

    def gen(name, n):
        for i in range(n):
            log.append((name, i))
            yield i

    zipped = list(zip(gen("a", 5), gen("b", 2)))
    mapped = list(map(lambda x, y: x * y, gen("c", 3), gen("d", 3)))
    filtered = list(filter(None, gen("e", 3)))
    return zipped, mapped, filtered, log


def case_sum_any_all_short_circuit_side_effects():
    log = []

    def gen(values):
        for v in values:
            log.append(v)
            yield v

    r1 = any(gen([0, 0, 3, 4, 5]))
    log.append("|")
    r2 = all(gen([1, 2, 0, 4]))
    log.append("|")
    r3 = sum(gen([1, 2, 3]))
    log.append("|")
    r4 = any(x > 10 for x in gen([5, 11, 12]))
    return r1, r2, r3, r4, log


def case_builtins_consuming_generators():
    return (
        max(countdown(4)),
        min(x * -1 for x in countdown(3)),
        sorted(countdown(4)),
        tuple(countdown(2)),
        dict((str(i), i) for i in range(3)),
        set(x % 3 for x in range(10)),
        "-".join(str(x) for x in countdown(3)),
        list(enumerate(countdown(2))),
    )


def case_generator_methods_in_class():
    class Bag:
        def __init__(self, *items):
            self.items = list(items)

        def evens(self):
            for x in self.items:
                if x % 2 == 0:
                    yield x

        def __iter__(self):
            return (x for x in self.items)

        @staticmethod
        def repeat(v, n):
            for _ in range(n):
                yield v

        @classmethod
        def names(cls):
            yield cls.__name__

    b = Bag(1, 2, 3, 4)
    return list(b.evens()), list(b), list(Bag.repeat("z", 3)), list(Bag.names()), 3 in b


# ---------------------------------------------------------------------------
# try / except / finally / with inside generators
# ---------------------------------------------------------------------------


def case_yield_inside_except_and_finally():
    def gen():
        try:
            yield "try"
            raise ValueError("v")
        except ValueError as e:
            yield "except " + str(e)
        else:
            yield "else"
        finally:
            yield "finally"
        yield "after"

    return list(gen())


def case_generator_try_finally_on_exhaustion():
    log = []

    def gen():
        try:
            for i in range(2):
                yield i
        finally:
            log.append("cleanup")

    out = list(gen())
    return out, log


def case_generator_finally_runs_on_break_then_close():
    log = []

    def gen():
        try:
            yield from range(10)
        finally:
            log.append("finally")

    g = gen()
    for x in g:
        if x == 2:
            break
    log.append(("broke", inspect.getgeneratorstate(g)))
    g.close()
    return log


def case_yield_inside_with_block():
    log = []

    def gen():
        with Recorder(log, "cm"):
            yield 1
            yield 2
        log.append("after with")

    g = gen()
    log.append(next(g))
    g.close()
    h = gen()
    log.extend(list(h))
    return log


def case_throw_into_yield_inside_with_block():
    log = []

    def gen():
        with Recorder(log, "cm"):
            yield 1

    g = gen()
    next(g)
    try:
        g.throw(TypeError("t"))
    except TypeError as e:
        log.append("caught " + str(e))
    return log


def case_exception_context_inside_generator():
    def gen():
        try:
            raise KeyError("first")
        except KeyError:
            yield "in handler"
            raise ValueError("second")

    g = gen()
    out = [next(g)]
    try:
        next(g)
    except ValueError as e:
        out.append((type(e.__context__).__name__, str(e.__context__)))
    return out


def case_generator_raises_uncaught_custom_message():
    def gen():
        yield 1
        raise ArithmeticError("generator failed at step 2")

    return list(gen())


def case_generator_catches_exception_then_continues():
    def safe_div(pairs):
        for a, b in pairs:
            try:
                yield a / b
            except ZeroDivisionError:
                yield None

    return list(safe_div([(1, 2), (1, 0), (9, 3)]))
