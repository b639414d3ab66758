"""Second half of corpus/control_flow.py (split to keep files under 1000 lines); its module-level
helpers are shared."""

import math

from . import control_flow as _first

globals().update({k: v for k, v in vars(_first).items() if not k.startswith(('case_', '__'))})


def case_star_unpacking_in_for_targets():
    out = []
    for first, *rest in [(1, 2, 3), (4,), "ab"]:
        out.append((first, rest))
    for *init, last in [[1, 2, 3], (9,)]:
        out.append((init, last))
    for a, (b, *c), d in [(1, (2, 3, 4), 5), (6, [7], 8)]:
        out.append((a, b, c, d))
    return out


def case_unpacking_too_many_values():
    a, b = [1, 2, 3]
    return a, b


def case_unpacking_not_enough_values():
    a, b, c = (1, 2)
    return a, b, c


def case_star_unpacking_not_enough_values():
    a, b, *c = [1]
    return a, b, c


def case_star_expressions_in_literals_and_calls():
    a = [1, 2]
    b = (3,)
    d1 = {"x": 1, "y": 2}
    d2 = {"y": 20, "z": 30}

    def f(*args, **kwargs):
        return args, sorted(kwargs.items())

    return [*a, *b, *"cd"], (*a,), {*a, *b}, {**d1, **d2}, f(*a, 0, *b, **d1, w=5)


# ---------------------------------------------------------------------------
# recursion
# ---------------------------------------------------------------------------


def case_recursion_fib_and_ackermann():
    return [fib(n) for n in range(15)], ackermann(2, 3), ackermann(1, 5), ackermann(3, 2)


def case_mutual_recursion():
    return [is_even(n) for n in range(8)], is_odd(51)


def case_recursive_closure_with_memo():
    memo = {}

    def count_paths(r, c):
        if r == 0 or c == 0:
            return 1
        if (r, c) not in memo:
            memo[(r, c)] = count_paths(r - 1, c) + count_paths(r, c - 1)
        return memo[(r, c)]

    return count_paths(10, 10), len(memo)


def case_recursive_hanoi_moves():
    moves = []

    def hanoi(n, src, dst, via):
        if n == 0:
            return
        hanoi(n - 1, src, via, dst)
        moves.append((n, src, dst))
        hanoi(n - 1, via, dst, src)

    hanoi(3, "A", "C", "B")
    return len(moves), moves[:4]


def case_recursive_flatten():
    def flatten(x):
        if isinstance(x, (list, tuple)):
            out = []
            for item in x:
                out.extend(flatten(item))
            return out
        return [x]

    return flatten([1, [2, [3, (4, 5)], []], [[[6]]]])


# ---------------------------------------------------------------------------
# augmented assignment
# ---------------------------------------------------------------------------


def case_augmented_assignment_all_int_ops():
    x = 100
    log = []
    x += 5
    log.append(x)
    x -= 3
    log.append(x)
    x *= 4
    log.append(x)
    x //= 3
    log.append(x)
    x %= 50
    log.append(x)
    x **= 2
    log.append(x)
    x <<= 3
    log.append(x)
    x >>= 1
    log.append(x)
    x &= 0xFF0
    log.append(x)
    x |= 0x0F
    log.append(x)
    x ^= 0x55
    log.append(x)
    x /= 4
    log.append(x)
    return log


def case_augmented_matmul_inplace_and_fallback():
    log = []
    a = Mat(2, log)
    alias = a
    a @= Mat(3, log)
    inplace_same = a is alias
    b = Mat(5, log) @ Mat(7, log)
    c = 3 @ Mat(4, log)
    m = MatNoInplace(1)
    m_alias = m
    m @= MatNoInplace(10)
    return a.v, inplace_same, b.v, c.v, log, m.v, m is m_alias, m_alias.v


def case_augmented_iadd_notimplemented_falls_back():
    a = AddOnly(1)
    a += AddOnly(2)
    b = AddOnly(5)
    b += RAdder(9)
    return a.v, b


def case_augmented_on_subscripts_and_attributes():
    class Box:
        pass

    calls = []
    d = {"k": [1]}

    def key():
        calls.append("key")
        return "k"

    d[key()] += [2]
    box = Box()
    box.n = 10
    box.n *= 3
    lst = [1, 2, 3]
    lst[1:2] += [9, 9]
    return d, calls, box.n, lst


def case_inplace_list_vs_tuple_aliasing():
    a = [1, 2]
    b = a
    a += [3]
    t = (1, 2)
    u = t
    t += (3,)
    c = [1, 2]
    e = c
    c = c + [3]
    s = "ab"
    s2 = s
    s += "c"
    return a, b, a is b, t, u, c, e, s, s2


def case_inplace_list_extend_with_any_iterable():
    a = [1]
    a += "xy"
    a += range(2)
    a += {9: 0}
    a *= 2
    return a


def case_list_plus_str_raises():
    a = [1]
    a = a + "xy"
    return a


def case_tuple_item_iadd_mutates_then_raises():
    t = ([1],)
    try:
        t[0] += [2]
    except TypeError as e:
        return t, str(e)
    return None


# ---------------------------------------------------------------------------
# names: del, global, nonlocal, lambdas
# ---------------------------------------------------------------------------


def case_del_local_then_use_raises():
    x = 1
    y = x + 1
    del x
    return x + y


def case_del_list_items_and_slices():
    a = list(range(10))
    del a[0]
    del a[-1]
    del a[::3]
    d = {"a": 1, "b": 2}
    del d["a"]
    return a, d




def case_global_list_mutation_without_global_stmt():
    SCRATCH.clear()
    for i in range(3):
        SCRATCH.append(i * i)
    return list(SCRATCH)


def case_nonlocal_counter_and_nested_levels():
    def make():
        count = 0
        total = 0

        def inc(n):
            nonlocal count

            def inner():
                nonlocal total
                total += n
                return total

            count += 1
            return count, inner()

        return inc

    inc = make()
    inc2 = make()
    return [inc(1), inc(10), inc2(5), inc(100)]


def case_closure_cell_sees_later_rebinding():
    x = 1

    def get():
        return x

    first = get()
    x = 2
    return first, get()


def case_lambda_default_capture_in_loop():
    late = [lambda: i for i in range(3)]
    early = [lambda i=i: i for i in range(3)]
    fs = []
    for j in range(3):
        fs.append(lambda k=j * 10: k + j)
    return [f() for f in late], [f() for f in early], [f() for f in fs]


def case_closure_free_var_unbound_raises():
    def outer():
        def inner():
            return v

        r = inner
        v = 1  # noqa: F841
        del v
        return r()

    return outer()


def case_pass_and_empty_bodies():
    class Empty:
        pass

    def noop():
        pass

    for _ in range(3):
        pass
    while False:
        pass
    if True:
        pass
    return noop(), Empty.__name__


def case_deep_nesting():
    total = 0
    for a in range(3):
        if a != 1:
            for b in range(3):
                while b < 2:
                    try:
                        if (a + b) % 2 == 0:
                            for c in range(2):
                                if c:
                                    total += a * 100 + b * 10 + c
                                else:
                                    total -= 1
                        else:
                            total += 1000
                    finally:
                        b += 1
    return total


# ---------------------------------------------------------------------------
# assert
# ---------------------------------------------------------------------------


def case_assert_passes_and_message_is_lazy():
    assert 1 < 2, "nope"
    assert True, 1 / 0
    return "ok"


def case_assert_fails_with_message():
    x = 3
    assert x == 4, f"x was {x}"
    return x


def case_assert_fails_without_message():
    try:
        assert [], None
    except AssertionError as e:
        r1 = (e.args, str(e))
    try:
        assert 0
    except AssertionError as e:
        r2 = (e.args, str(e))
    return r1, r2


def case_assert_with_tuple_message():
    assert False, ("a", 1)


# ---------------------------------------------------------------------------
# arithmetic corner cases
# ---------------------------------------------------------------------------


def case_zero_division_messages():
    out = []
    for thunk in (lambda: 1 / 0, lambda: 1 // 0, lambda: 1 % 0, lambda: divmod(1, 0),
                  lambda: 1.0 / 0, lambda: 1 / 0.0, lambda: 0.0 / 0.0):
        try:
            thunk()
        except ZeroDivisionError as e:
            out.append(str(e))
    return out


def case_float_zero_division_kinds():
    out = []
    for thunk in (lambda: 1.0 // 0.0, lambda: 1.0 % 0.0, lambda: divmod(1.0, 0.0),
                  lambda: (1 + 1j) / 0):
        try:
            thunk()
        except ZeroDivisionError as e:
            out.append(type(e).__name__)
    return out


def case_integer_division_raises_uncaught():
    n = 10
    d = n - 10
    return n // d


def case_divmod_negatives():
    return [
        divmod(-7, 2), divmod(7, -2), divmod(-7, -2), divmod(7, 2),
        -7 // 2, -7 % 2, 7 % -3, -7.5 // 2, -7.5 % 2,
        divmod(-7.5, 2), math.fmod(-7, 2), int(-3.7), round(-3.5),
        math.floor(-3.5), math.ceil(-3.5), math.trunc(-3.5),
    ]


def case_big_integers():
    big = 2 ** 200
    return [
        big,
        big // 3 ** 50,
        big % 1000003,
        (-2) ** 63,
        -(2 ** 63) - 1,
        pow(3, 100, 7),
        pow(2, -1, 7),
        (10 ** 40 + 7) * (10 ** 40 - 7),
        (1 << 100) >> 99,
        -1 >> 10,
        ~(2 ** 70),
        (2 ** 64 - 1) & -(2 ** 32),
        big.bit_length(),
        len(str(3 ** 1000)),
        int("9" * 50) + 1 == 10 ** 50,
    ]


def case_float_arithmetic_corners():
    inf = float("inf")
    return [
        0.1 + 0.2, 0.1 + 0.2 == 0.3, 1e308 * 10, -inf < -1e308, inf - inf != inf - inf,
        7 / 2, -7 / 2, 2 ** -1, 0 ** 0, 0.0 ** 0, round(2.5), round(3.5), round(2.675, 2),
        str(-0.0), -0.0 == 0.0, math.copysign(1.0, -0.0), 1e16 + 1, float(2 ** 53 + 1),
        int(1e20), 10 / 4, 3 * 0.1, repr(1 / 3), (1.5).as_integer_ratio(),
    ]


def case_complex_arithmetic():
    z = (1 + 2j) * (3 - 4j)
    return [
        z, abs(3 + 4j), (1 + 2j).conjugate(), (2j) ** 2, z.real, z.imag,
        complex("1+2j") == 1 + 2j, (1 + 0j) == 1, (8 + 6j) / (3 + 4j), -(1j),
    ]


def case_bool_and_mixed_arithmetic():
    return [
        True + True, True * 10, -True, ~int(True), True / 2, 3 + 2.5, 3 == 3.0, hash(3) == hash(3.0),
        1 + True + 0.5, True & False, True | 0, True ^ True, int(True), isinstance(True, int),
    ]


def case_bitwise_and_shifts():
    return [
        -5 & 0xFF, ~5, -1 >> 10, 1 << 100, 0b1010 ^ 0b0110, 0o17 | 0x10,
        (-8) >> 1, 5 >> 10, (-(2 ** 65)) >> 64, (255).bit_count() if hasattr(int, "bit_count") else 8,
    ]


def case_negative_shift_raises():
    n = -1
    return 1 << n


def case_int_parsing_and_bases():
    return [
        int("0x1f", 16), int("1f", 16), int(" 42 "), int("4_2"), int("-0b101", 0),
        int("z", 36), hex(255), oct(8), bin(-5), format(255, "08b"), int("0o17", 8),
        float("  -1.5e3 "), float("inf") > 10 ** 300,
    ]


def case_int_parse_failure_message():
    return int("12abc")


# ---------------------------------------------------------------------------
# strings and slicing
# ---------------------------------------------------------------------------


def case_string_methods():
    s = "  Hello, World  "
    t = s.strip()
    return [
        t.lower(), t.upper(), t.swapcase(), t.split(", "), "-".join(["a", "b", "c"]),
        t.replace("l", "L", 2), t.find("o"), t.rfind("o"), t.find("zz"), t.count("l"),
        t.partition(", "), t.rpartition("o"), t.startswith(("He", "X")), t.endswith("d"),
        "a,b,,c".split(","), " a  b ".split(), "abc" * 3, "ab" < "b", "Z" < "a",
        "\u00df".casefold(), "x".center(5, "*"), "42".zfill(5), "a\tb".expandtabs(4),
        "Title case words".title(), "abc".isalpha(), "12".isdigit(), "".join(reversed("abc")),
    ]


def case_string_formatting():
    x = 3.14159
    name = "bob"
    n = 255
    return [
        f"{x:.2f}", f"{name!r:>8}", f"{n:#x}", f"{n:,}", f"{1234567:_}", f"{x:10.3e}",
        f"{'nested'}-{n + 1}", "%s is %d years, %.1f%%" % (name, 30, 99.5), "%5s|%-5s|" % ("a", "b"),
        "{0}-{1}-{0}".format("a", "b"), "{name}:{n:04d}".format(name=name, n=7),
        f"{name=}", f"{[1, 2]!s}", f"{{literal}}", format(0.5, "%"), f"{-0.0:+}",
    ]


def case_slicing_negative_steps():
    s = "abcdefghij"
    lst = list(range(10))
    return [
        s[::-1], s[-2:-8:-2], s[8:2:-3], s[::-3], s[2:8:-1], s[-100:100], s[5:-100:-1],
        lst[::-2], lst[-1:-4:-1], lst[1::4], lst[7:2:-2], (0, 1, 2, 3)[::-1][1:],
        slice(None, None, -1).indices(5), slice(-3, None).indices(10), range(10)[::-3],
        b"hello"[::-2], s[3], s[-1],
    ]


def case_slice_assignment_and_extended_slice_error():
    a = list(range(6))
    a[1:3] = ["x", "y", "z"]
    a[::2] = [0, 0, 0, 0]
    b = list(range(6))
    try:
        b[::2] = [1, 2]
    except ValueError as e:
        msg = str(e)
    b[len(b):] = [99]
    return a, msg, b


def case_string_index_out_of_range():
    s = "abc"
    return s[3]


def case_string_immutable_raises():
    s = "abc"
    s[0] = "z"
    return s
