"""Differential test corpus: comprehensions, unpacking, containers, formatting, stdlib data ops.

Each ``case_*`` function takes no arguments and returns plain data or raises.
"""

import collections
import decimal
import fractions
import itertools
import json
import math
import operator

# ---------------------------------------------------------------------------
# comprehensions
# ---------------------------------------------------------------------------


def case_list_comprehension_basic():
    return ([x * x for x in range(6)], [x for x in range(20) if x % 3 == 0 if x % 2 == 0], [c.upper() for c in "abc"])


def case_comprehension_multiple_for():
    return (
        [(i, j) for i in range(3) for j in range(i)],
        [c + str(n) for c in "ab" for n in (1, 2) if not (c == "b" and n == 1)],
        [y for row in [[1, 2], [3], []] for y in row],
    )


def case_nested_comprehension_matrix():
    m = [[r * 3 + c for c in range(3)] for r in range(3)]
    transposed = [[row[i] for row in m] for i in range(3)]
    return (m, transposed, [[x for x in row if x % 2] for row in m])


def case_dict_set_comprehensions():
    words = ["apple", "bob", "cat", "avocado", "bee"]
    by_first = {w[0]: [v for v in words if v[0] == w[0]] for w in words}
    lengths = {len(w) for w in words}
    inv = {v: k for k, v in {"a": 1, "b": 2}.items()}
    return (by_first, sorted(lengths), inv)


def case_comprehension_shadowing_outer_name():
    x = "outer"
    items = [x for x in range(3)]
    pairs = [(x, y) for x in "ab" for y in [x * 2]]
    return (x, items, pairs)


def case_comprehension_inside_comprehension_condition():
    data = [[1, 2, 3], [4, 5], [6], []]
    return [row for row in data if sum(v for v in row if v % 2) > 2]


def case_comprehension_uses_enclosing_and_args():
    def scale_all(values, factor):
        offset = 1
        return [v * factor + offset for v in values]

    return scale_all([1, 2, 3], 10)


def case_generator_expression_consumed_once():
    g = (i * 2 for i in range(4))
    first = list(g)
    second = list(g)
    return (first, second, sum(i for i in range(101)), max((len(w), w) for w in ["aa", "b", "ccc"]))


def case_comprehension_error_propagates():
    return [10 // x for x in (5, 2, 0, 1)]


# ---------------------------------------------------------------------------
# unpacking
# ---------------------------------------------------------------------------


def case_starred_assignment():
    a, *b, c = range(6)
    *d, e = "xyz"
    f, *g = [1]
    (h, i), *j = [(1, 2), 3, 4]
    return (a, b, c, d, e, f, g, h, i, j)


def case_nested_unpacking():
    data = [("a", (1, 2)), ("b", (3, 4))]
    out = []
    for name, (x, y) in data:
        out.append(f"{name}{x + y}")
    [p, [q, r]] = [1, (2, 3)]
    return (out, p, q, r)


def case_swap_and_chained_assignment():
    a, b = 1, 2
    a, b = b, a
    x = y = [0]
    y.append(1)
    i = 0
    lst = [10, 20, 30]
    i, lst[i] = 1, 99  # i assigned first, then lst[1]
    return (a, b, x, x is y, i, lst)


def case_unpack_too_many():
    a, b = [1, 2, 3]
    return a, b


def case_unpack_not_enough():
    a, b, c = (1, 2)
    return a, b, c


def case_unpack_starred_not_enough():
    try:
        a, *b, c = [1]
    except ValueError as e:
        return str(e)


def case_unpack_non_iterable():
    try:
        a, b = 5
    except TypeError as e:
        return str(e)


def case_unpack_dict_and_string():
    k1, k2 = {"x": 1, "y": 2}
    c1, c2, c3 = "abc"
    (m, n), = [("p", "q")]
    return (k1, k2, c1 + c2 + c3, m, n)


def case_starred_literals():
    a = [1, 2]
    b = (3,)
    d1 = {"x": 1, "y": 2}
    d2 = {"y": 20, "z": 30}
    return ([*a, *b, *"hi"], (*a,), {*a, *b, 2}, {**d1, **d2}, {**d2, **d1, "w": 0}, [*range(3), *{}.keys()])


def case_starred_in_call():
    def f(*args, **kwargs):
        return (args, sorted(kwargs.items()))

    return (f(*[1, 2], *(3,), 4, **{"a": 1}, b=2, **{"c": 3}), f(*(i * i for i in range(3))), f(*"ab"))


def case_starred_non_iterable_literal():
    try:
        [*5]
    except TypeError as e:
        return str(e)


def case_dict_unpack_non_mapping():
    try:
        {**{1: 2}, **[1]}
    except TypeError as e:
        return str(e)


# ---------------------------------------------------------------------------
# list / tuple / dict / set methods
# ---------------------------------------------------------------------------


def case_list_methods():
    lst = [3, 1, 2]
    lst.append(5)
    lst.extend((7, 0))
    lst.insert(1, 9)
    lst.insert(-1, 8)
    lst.insert(100, 4)
    popped = (lst.pop(), lst.pop(0))
    lst.remove(2)
    idx = lst.index(7)
    cnt = [1, 1, 2].count(1)
    c = lst.copy()
    lst.reverse()
    c.sort()
    return (lst, popped, idx, cnt, c, [0] * 3, [1, 2] + [3])


def case_list_index_error():
    lst = [1, 2, 3]
    return lst[3]


def case_list_remove_missing():
    [1, 2].remove(3)


def case_tuple_ops():
    t = (1, 2, 3, 2)
    return (t.count(2), t.index(3), t + (4,), t * 2, t[1:3], len(t), 2 in t, (1,) + (), tuple([5, 6]), hash((1, 2)) == hash((1, 2)))


def case_tuple_index_error():
    return (1, 2)[-3]


def case_dict_methods():
    d = {"b": 2, "a": 1}
    d["c"] = 3
    d.update({"a": 10}, d=4)
    d.setdefault("e", [])
    d.setdefault("a", 999)
    got = (d.get("zz"), d.get("zz", "dflt"), d.pop("b"), d.pop("missing", None))
    last = d.popitem()
    fk = dict.fromkeys("xy", 0)
    return (list(d.items()), got, last, fk, len(d), "a" in d, 10 in d)


def case_dict_ordering_preserved():
    d = {}
    for k in ["z", "a", "m"]:
        d[k] = len(d)
    d["a"] = 100  # update keeps position
    del d["z"]
    d["z"] = 5  # reinsertion goes to end
    return (list(d), list(d.values()))


def case_dict_views():
    d = {"a": 1, "b": 2, "c": 3}
    ks = d.keys()
    vs = d.values()
    it = d.items()
    d["d"] = 4
    return (list(ks), list(vs), list(it), sorted(ks & {"a", "d", "x"}), sorted(ks - {"a"}), ("a", 1) in it, len(ks))


def case_dict_merge_operators():
    a = {"x": 1, "y": 2}
    b = {"y": 3, "z": 4}
    c = a | b
    a |= {"w": 0}
    return (c, a, b | a)


def case_dict_key_error():
    d = {"a": 1}
    return d["b"]


def case_dict_key_error_tuple_key():
    try:
        {}[(1, 2)]
    except KeyError as e:
        return (str(e), e.args)


def case_dict_mutation_during_iteration():
    d = {1: 1, 2: 2}
    try:
        for k in d:
            d[k + 10] = 0
    except RuntimeError as e:
        return str(e)


def case_set_operations():
    a = {1, 2, 3, 4}
    b = {3, 4, 5}
    s = set()
    s.add(1)
    s.update([2, 3])
    s.discard(99)
    s.remove(1)
    return (
        sorted(a | b),
        sorted(a & b),
        sorted(a - b),
        sorted(a ^ b),
        a <= {1, 2, 3, 4, 5},
        a.isdisjoint({9}),
        sorted(s),
        {1, 2} == {2, 1},
        {1, 2} < {1, 2, 3},
    )


def case_frozenset_ops():
    f = frozenset([1, 2, 3])
    g = f | {4}
    d = {f: "frozen"}
    return (type(g).__name__, sorted(g), d[frozenset([3, 2, 1])], f == {1, 2, 3}, sorted(f.union([9])), frozenset() == set())


def case_set_remove_missing():
    s = {1}
    s.remove(2)


# ---------------------------------------------------------------------------
# slicing
# ---------------------------------------------------------------------------


def case_slicing_get():
    s = list(range(10))
    return (s[2:5], s[::-1], s[::3], s[-3:], s[:-7], s[8:2:-2], s[100:], s[-100:2], "hello"[1::2], (1, 2, 3)[::-1])


def case_slicing_set_and_del():
    s = list(range(10))
    s[2:4] = ["a", "b", "c"]
    s[::4] = ["X", "Y", "Z"]
    del s[1:3]
    del s[::2]
    t = [1, 2, 3]
    t[len(t):] = [4, 5]
    t[:0] = [0]
    return (s, t)


def case_slice_objects():
    sl = slice(1, 8, 3)
    s = "abcdefghij"
    return (s[sl], sl.indices(5), slice(None, None, -1).indices(4), s[slice(3)], (sl.start, sl.stop, sl.step))


def case_extended_slice_size_mismatch():
    s = [1, 2, 3, 4]
    s[::2] = [9]


def case_slice_step_zero():
    return [1, 2, 3][::0]


# ---------------------------------------------------------------------------
# formatting
# ---------------------------------------------------------------------------


def case_fstring_format_specs():
    pi = 3.14159265
    n = 1234567
    return (
        f"{pi:.2f}|{pi:10.3f}|{pi:<10.1f}|{pi:e}",
        f"{n:,}|{n:_}|{n:>12,}|{n:x}|{n:#o}|{n:#b}",
        f"{42:08.3f}|{-42:+d}|{42:+d}|{42: d}|{0.5:%}|{0.125:.1%}",
        f"{'txt':^9}|{'txt':*>6}|{'txt':.2}",
    )


def case_fstring_conversions():
    s = "caf\u00e9"
    return (f"{s!r}", f"{s!s}", f"{s!a}", f"{[1, 'a']!r}", f"{s!r:>10}")


def case_fstring_nested_specs():
    width = 8
    prec = 3
    val = 2.718281828
    align = "^"
    return (f"{val:{width}.{prec}f}", f"{'x':{align}{width}}", f"{f'{val:.1f}':>6}", f"{val:{'>' if width > 5 else '<'}{width}}")


def case_fstring_debug_specifier():
    x = 10
    name = "Ann"
    return (f"{x=}", f"{x * 2 = }", f"{name=!s}", f"{name=}", f"{x=:05d}")


def case_fstring_dict_and_expressions():
    d = {"key": "value", 1: "one"}
    items = [1, 2, 3]
    obj = {"nested": {"k": [10, 20]}}
    return (
        f"{d['key']}-{d[1]}",
        f"{len(items)} items, last={items[-1]}",
        f"{obj['nested']['k'][1] + 1}",
        f"{'yes' if items else 'no'}",
        f"{{literal}} {items!r}",
        f"{3 + 4j}",
    )


def case_str_format_method():
    return (
        "{} + {} = {}".format(1, 2, 3),
        "{1}{0}{1}".format("a", "b"),
        "{name}:{age:03d}".format(name="Bo", age=7),
        "{0[1]}|{1[k]}|{2.real}".format([5, 6], {"k": "v"}, 4),
        "{:>{w}}".format("r", w=4),
        "{!r:^8}".format("q"),
        format(255, "#06x"),
    )


def case_str_format_missing_index():
    return "{0} {2}".format("a", "b")


def case_percent_formatting():
    return (
        "%s-%r-%d" % ("s", "r", 42),
        "%5.2f|%-5d|%05d" % (3.14159, 7, 42),
        "%x %o %X %e" % (255, 8, 255, 12345.678),
        "%(a)s/%(b)d" % {"a": "A", "b": 2},
        "%c%c" % (72, "i"),
        "100%%" % (),
        "%s" % ((1, 2),),
    )


def case_percent_format_error():
    try:
        "%d" % "a"
    except TypeError as e:
        r1 = str(e)
    try:
        "%s %s" % (1,)
    except TypeError as e:
        r2 = str(e)
    return (r1, r2)


def case_int_float_formatting_and_repr():
    return (
        repr(0.1 + 0.2),
        str(1e16),
        str(1e15),
        repr(1 / 3),
        str(-0.0),
        format(1e-7, "g"),
        format(123456789.0, "g"),
        round(2.5),
        round(3.5),
        round(2.675, 2),
        round(1234, -2),
        int(-3.9),
        float("inf") > 1e308,
        str(float("nan")),
    )


# ---------------------------------------------------------------------------
# bytes / bytearray
# ---------------------------------------------------------------------------


def case_bytes_ops():
    b = b"Hello, World"
    return (
        b[0],
        b[1:5],
        b.lower(),
        b.split(b", "),
        b.find(b"o"),
        b.replace(b"l", b"L", 2),
        bytes([65, 66]),
        b.hex(),
        bytes.fromhex("deadbeef"),
        list(b"ab"),
        b"ab" * 2,
        b"x" in b,
        "é".encode("utf-8"),
        b"\xc3\xa9".decode("utf-8"),
    )


def case_bytearray_mutation():
    ba = bytearray(b"abc")
    ba[0] = 65
    ba.append(100)
    ba.extend(b"ef")
    ba[1:3] = b"XYZ"
    del ba[-1]
    ba.reverse()
    return (bytes(ba), len(ba), ba.count(b"X"), bytes(bytearray(3)))


def case_bytes_str_concat_error():
    return b"a" + "a"


def case_bytes_value_error():
    try:
        bytes([300])
    except ValueError as e:
        return str(e)


# ---------------------------------------------------------------------------
# sorting, min/max/sum, builtins over iterables
# ---------------------------------------------------------------------------


def case_sorting_key_reverse_stable():
    recs = [("bob", 25), ("alice", 30), ("carol", 25), ("dave", 30), ("eve", 22)]
    by_age = sorted(recs, key=lambda r: r[1])
    by_age_desc = sorted(recs, key=lambda r: r[1], reverse=True)  # stable even reversed
    multi = sorted(recs, key=lambda r: (-r[1], r[0]))
    lst = ["b", "A", "c", "B"]
    lst.sort(key=str.lower)
    return (by_age, by_age_desc, multi, lst, sorted("hello"), sorted([3, 1, 2], reverse=True))


def case_sort_mixed_types_error():
    return sorted([1, "a", 2])


def case_min_max_sum():
    words = ["pear", "fig", "banana", "kiwi"]
    return (
        min(words, key=len),
        max(words, key=len),
        max(words),
        min([], default="empty"),
        max(3, 7, 5),
        min((2, "b"), (2, "a")),
        sum([1, 2, 3], 10),
        sum([[1], [2]], []),
        sum(x / 4 for x in range(4)),
        max([1, 5, 5, 2], key=lambda v: v % 5),
    )


def case_min_empty_error():
    try:
        min([])
    except ValueError as e:
        return type(e).__name__


def case_zip_enumerate_reversed():
    return (
        list(zip("abc", range(5))),
        list(zip()),
        list(zip(*[(1, "a"), (2, "b")])),
        list(enumerate("xyz", start=10)),
        list(reversed([1, 2, 3])),
        list(reversed(range(0, 10, 3))),
        "".join(reversed("abc")),
        list(reversed({"a": 1, "b": 2})),
    )
