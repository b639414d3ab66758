"""Differential test corpus: control flow, scoping, arithmetic and strings.

Each ``case_*`` function takes no arguments and returns plain data or raises.
"""

import math


# ---------------------------------------------------------------------------
# module-level helpers
# ---------------------------------------------------------------------------

COUNTER = 0
SCRATCH = []


def classify(n):
    if n < 0:
        return "neg"
    elif n == 0:
        return "zero"
    elif n < 10:
        return "small"
    elif n < 100:
        return "medium"
    else:
        return "big"


class Falsy:
    def __bool__(self):
        return False


class LenZero:
    def __len__(self):
        return 0


class LenThree:
    def __len__(self):
        return 3


class BadBool:
    def __bool__(self):
        return 1


class Cmp:
    def __init__(self, v):
        self.v = v

    def __lt__(self, other):
        return f"lt{self.v}" if self.v < other.v else ""


class Mat:
    """Toy matrix-like object supporting @ and @= (in-place)."""

    def __init__(self, v, log):
        self.v = v
        self.log = log

    def __matmul__(self, other):
        self.log.append("matmul")
        return Mat(self.v * other.v, self.log)

    def __rmatmul__(self, other):
        self.log.append("rmatmul")
        return Mat(other * self.v + 1, self.log)

    def __imatmul__(self, other):
        self.log.append("imatmul")
        self.v = self.v * other.v + 1000
        return self


class MatNoInplace:
    def __init__(self, v):
        self.v = v

    def __matmul__(self, other):
        return MatNoInplace(self.v + other.v)


class AddOnly:
    def __init__(self, v):
        self.v = v

    def __iadd__(self, other):
        return NotImplemented

    def __add__(self, other):
        if isinstance(other, AddOnly):
            return AddOnly(self.v + other.v)
        return NotImplemented


class RAdder:
    def __init__(self, v):
        self.v = v

    def __radd__(self, other):
        return ("radd", other.v if isinstance(other, AddOnly) else other, self.v)


class ContainsOnly:
    def __contains__(self, item):
        return item % 2 == 0


class IterOnly:
    def __iter__(self):
        return iter([1, 2, 3])


class GetItemOnly:
    def __getitem__(self, i):
        if i >= 4:
            raise IndexError(i)
        return i * 10


def bump(n):
    global COUNTER
    COUNTER += n
    return COUNTER


def is_even(n):
    return True if n == 0 else is_odd(n - 1)


def is_odd(n):
    return False if n == 0 else is_even(n - 1)


def fib(n):
    return n if n < 2 else fib(n - 1) + fib(n - 2)


def ackermann(m, n):
    if m == 0:
        return n + 1
    if n == 0:
        return ackermann(m - 1, 1)
    return ackermann(m - 1, ackermann(m, n - 1))


def find_pair(nums, target):
    for i, a in enumerate(nums):
        for j in range(i + 1, len(nums)):
            if a + nums[j] == target:
                return i, j
    return None


# ---------------------------------------------------------------------------
# if / elif / else and truthiness
# ---------------------------------------------------------------------------


def case_if_elif_chain():
    return [classify(n) for n in (-5, 0, 3, 10, 99, 100, 12345)]


def case_if_truthiness_of_builtin_values():
    out = []
    for v in (0, 1, "", "a", [], [0], {}, {1: 2}, None, 0.0, -0.0, 0j, set(),
              frozenset({1}), b"", b"\x00", (), ((),), range(0), range(1)):
        if v:
            out.append(True)
        else:
            out.append(False)
    return out


def case_truthiness_dunders():
    return [
        bool(Falsy()),
        bool(LenZero()),
        bool(LenThree()),
        not Falsy(),
        1 if LenZero() else 2,
        "y" if LenThree() else "n",
    ]


def case_bad_bool_raises():
    if BadBool():
        return 1
    return 0


def case_nested_if_without_else():
    out = []
    for a in (0, 1):
        for b in (0, 1):
            if a:
                if b:
                    out.append("ab")
            elif b:
                out.append("b")
            else:
                pass
    return out


# ---------------------------------------------------------------------------
# while / for with else, break, continue
# ---------------------------------------------------------------------------


def case_while_else_no_break():
    i = 0
    log = []
    while i < 3:
        log.append(i)
        i += 1
    else:
        log.append("else")
    return log


def case_while_else_with_break_and_continue():
    i = 0
    log = []
    while True:
        i += 1
        if i > 6:
            break
        if i % 2:
            continue
        log.append(i)
    else:
        log.append("never")
    return log, i


def case_while_false_runs_else_only():
    log = []
    while False:
        log.append("body")
    else:
        log.append("else")
    return log


def case_for_else_primes():
    primes = []
    for n in range(2, 40):
        for d in range(2, n):
            if n % d == 0:
                break
        else:
            primes.append(n)
    return primes


def case_for_else_empty_iterable():
    log = []
    for x in []:
        log.append(x)
    else:
        log.append("else-ran")
    return log


def case_break_in_finally_swallows_exception():
    log = []
    for i in range(3):
        for j in range(3):
            try:
                if j == 1:
                    raise ValueError(j)
                log.append((i, j))
            finally:
                if j == 1:
                    break
        log.append(("after", i))
    return log


def case_continue_in_finally():
    log = []
    for i in range(5):
        try:
            if i % 2:
                raise KeyError(i)
            log.append(i)
        finally:
            continue
    return log


def case_return_in_loop_runs_finally_each_level():
    log = []

    def f():
        for i in range(5):
            try:
                for j in range(5):
                    try:
                        if i == 1 and j == 2:
                            return (i, j)
                    finally:
                        log.append(("inner", i, j))
            finally:
                log.append(("outer", i))
        return None

    return f(), log


def case_early_return_nested_loops():
    return [
        find_pair([1, 2, 3, 4, 5], 9),
        find_pair([1, 2, 3], 100),
        find_pair([5, 5], 10),
    ]


def case_nested_loop_break_only_inner():
    out = []
    for i in range(4):
        for j in range(4):
            if j > i:
                break
            out.append(i * 10 + j)
    return out


# ---------------------------------------------------------------------------
# comparisons and boolean operators
# ---------------------------------------------------------------------------


def case_chained_comparison_side_effects():
    log = []

    def v(x):
        log.append(x)
        return x

    r1 = v(1) < v(2) < v(3)
    r2 = v(3) < v(2) < v(1)
    r3 = v(1) == v(1) != v(2)
    r4 = v(0) <= v(5) >= v(5) > v(4)
    return r1, r2, r3, r4, log


def case_chained_comparison_middle_evaluated_once():
    calls = []

    def mid():
        calls.append("mid")
        return 5

    return (1 < mid() < 10), (10 < mid() < 1), len(calls)


def case_chained_comparison_nonbool_results():
    a, b, c = Cmp(1), Cmp(2), Cmp(3)
    return (a < b < c), (c < b < a), (a < c < b)


def case_and_or_return_operands():
    return [
        0 or "x",
        "" or [] or None,
        3 and "y",
        [] and 1 / 0,
        "a" or 1 / 0,
        None and 5,
        0 or 0.0,
        (1 and 2) or 3,
        not [] and "z",
        (0 or None) is None,
        1 and 0 and 1 / 0,
    ]


def case_boolean_short_circuit_side_effects():
    log = []

    def t(name, val):
        log.append(name)
        return val

    a = t("a", 0) and t("b", 1)
    b = t("c", 1) or t("d", 1)
    c = t("e", 0) or t("f", 0) or t("g", "last")
    d = not (t("h", 1) and t("i", 0))
    return a, b, c, d, log


def case_conditional_expression_nested_and_lazy():
    res = [("neg" if n < 0 else "zero" if n == 0 else "pos") for n in (-1, 0, 1)]
    lazy = 1 / 0 if False else "safe"
    lazy2 = "safe2" if True else 1 / 0
    return res, lazy, lazy2


def case_is_and_in_operators():
    a = []
    b = a
    c = []
    d = {"k": 1}
    return [
        a is b, a is c, a is not c, a == c,
        None is None, "k" in d, 1 in d, 1 not in d,
        "" in "abc", "bc" in "abc", "cb" in "abc",
        3 in range(0, 10, 3), 4 in range(0, 10, 3),
        (1, 2) in [(1, 2)], [1] in [[1]],
    ]


def case_in_protocol_fallbacks():
    return [
        4 in ContainsOnly(), 3 in ContainsOnly(),
        2 in IterOnly(), 5 in IterOnly(),
        30 in GetItemOnly(), 40 in GetItemOnly(),
        7 not in ContainsOnly(),
    ]


def case_nan_comparisons():
    nan = float("nan")
    return [
        nan == nan, nan != nan, nan < 1.0, nan > 1.0, nan >= nan,
        [nan] == [nan],
        [float("nan")] == [float("nan")],
        nan in [nan],
        math.isnan(nan),
        sorted([3.0, 1.0, 2.0]) == [1.0, 2.0, 3.0],
        max(1.0, 2.0), min(-0.0, 0.0) == 0.0,
    ]


# ---------------------------------------------------------------------------
# walrus
# ---------------------------------------------------------------------------


def case_walrus_running_total_in_comprehension():
    data = [1, 5, 2, 8, 3]
    total = 0
    running = [total := total + x for x in data]
    return running, total


def case_walrus_in_filter_leaks_last_value():
    def f(x):
        return x * x - 10

    res = [y for x in range(6) if (y := f(x)) > 0]
    return res, y


def case_walrus_in_while():
    it = iter([3, 1, 4, 1, 5, 0, 9, 2])
    out = []
    while (n := next(it)) != 0:
        out.append(n)
    return out, n, list(it)


def case_walrus_in_any_captures_witness():
    nums = [1, 3, 5, 6, 7, 8]
    found = any((w := n) % 2 == 0 for n in nums)
    return found, w


# ---------------------------------------------------------------------------
# iteration over builtins
# ---------------------------------------------------------------------------


def case_for_over_dict_views():
    d = {"b": 1, "a": 2, "c": 3}
    out = []
    for k in d:
        out.append(k)
    for v in d.values():
        out.append(v)
    for k, v in d.items():
        out.append(k * v)
    for k in reversed(d):
        out.append(k)
    return out


def case_for_over_set_str_range():
    out = []
    for n in {3, 1, 2}:
        out.append(n)
    for ch in "h\u00e9llo":
        out.append(ch)
    for i in range(10, 0, -3):
        out.append(i)
    for i in range(-5, -1):
        out.append(i)
    for b in b"AZ":
        out.append(b)
    return out


def case_for_over_enumerate_zip_reversed():
    out = []
    for i, ch in enumerate("ab", start=5):
        out.append((i, ch))
    for a, b in zip([1, 2, 3], "xy"):
        out.append((a, b))
    for x in reversed([1, 2, 3]):
        out.append(x)
    for x in reversed(range(3)):
        out.append(x)
    for a, (b, c) in zip("pq", enumerate("rs")):
        out.append(a + str(b) + c)
    return out


def case_dict_mutation_during_iteration():
    d = {1: 1, 2: 2}
    for k in d:
        d[k + 10] = k


def case_list_mutation_during_iteration():
    items = [1, 2, 3, 4, 5, 6]
    seen = []
    for x in items:
        seen.append(x)
        if x % 2 == 0:
            items.remove(x)
    return seen, items


def case_loop_variable_leaks_after_loop():
    for i in range(5):
        pass
    for k, v in {"a": 1, "z": 26}.items():
        pass
    try:
        for j in []:
            pass
        j  # noqa: B018
    except UnboundLocalError as e:
        msg = str(e)
    return i, k, v, msg


def case_comprehension_variable_does_not_leak():
    x = "outer"
    squares = [x * x for x in range(4)]
    gen_total = sum(x for x in range(10))
    d = {x: x for x in "ab"}
    return x, squares, gen_total, d

def case_global_statement():
    global COUNTER
    COUNTER = 0
    bump(5)
    bump(7)
    before = COUNTER
    COUNTER -= 2
    return before, COUNTER, bump(0)
