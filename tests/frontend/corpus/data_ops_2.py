"""Second half of corpus/data_ops.py (split to keep files under 1000 lines); its module-level
helpers are shared."""

import collections
import decimal
import fractions
import itertools
import json
import math
import operator

from . import data_ops as _first

globals().update({k: v for k, v in vars(_first).items() if not k.startswith(('case_', '__'))})


def case_zip_strict_error():
    return list(zip([1, 2, 3], [4, 5], strict=True))


def case_zip_strict_longer():
    try:
        list(zip([1], "ab", strict=True))
    except ValueError as e:
        return str(e)


def case_map_filter():
    return (
        list(map(lambda x: x * 2, [1, 2, 3])),
        list(map(pow, [2, 3], [3, 2])),
        list(filter(None, [0, 1, "", "a", None, [], [0]])),
        list(filter(lambda s: s.isdigit(), ["1", "a", "22"])),
        list(map(str.upper, "ab")),
        any(x > 2 for x in [1, 3]),
        all([]),
        any([]),
    )


def case_in_operator_containers():
    return (
        2 in [1, 2],
        "ell" in "hello",
        "x" in {"x": 1},
        1 in {"x": 1}.values(),
        3 in range(0, 10, 3),
        4 in range(0, 10, 3),
        (1, 2) in {(1, 2)},
        b"e" in b"hello",
        float("nan") in [float("nan")],
        None not in [0, False, ""],
    )


def case_tuple_comparison():
    return (
        (1, 2) < (1, 3),
        (1, 2) < (1, 2, 0),
        (2,) > (1, 99),
        (1, "a") == (1, "a"),
        [1, 2] == [1, 2.0],
        (1, 2) != [1, 2],
        max([(1, "b"), (1, "a"), (0, "z")]),
        "abc" < "abd",
        "Z" < "a",
    )


def case_chained_comparisons():
    x = 5
    calls = []

    def v(n):
        calls.append(n)
        return n

    r = v(1) < v(2) > v(3) < v(0) < v(99)
    return (1 < x < 10, 1 < x > 10, x == 5 == 5.0, 0 <= x <= 4, r, calls)


# ---------------------------------------------------------------------------
# collections / itertools / operator
# ---------------------------------------------------------------------------


def case_counter():
    c = collections.Counter("abracadabra")
    c2 = collections.Counter(a=1, z=2)
    return (
        c.most_common(2),
        c["a"],
        c["missing"],
        sorted((c + c2).items()),
        sorted((c - c2).items()),
        sorted(c.elements())[:6],
        sum(c.values()),
    )


def case_defaultdict():
    dd = collections.defaultdict(list)
    for k, v in [("a", 1), ("b", 2), ("a", 3)]:
        dd[k].append(v)
    counts = collections.defaultdict(int)
    for ch in "mississippi":
        counts[ch] += 1
    _ = dd["empty"]
    return (dict(dd), dict(counts), "empty" in dd, dd.get("nope"), "nope" in dd)


def case_deque():
    d = collections.deque([1, 2, 3], maxlen=5)
    d.appendleft(0)
    d.append(4)
    d.append(5)  # drops 0 because maxlen
    d.rotate(2)
    left = d.popleft()
    d.extendleft([8, 9])
    return (list(d), left, d.maxlen, d[0], d[-1], len(d))


def case_ordered_dict():
    od = collections.OrderedDict()
    od["a"] = 1
    od["b"] = 2
    od["c"] = 3
    od.move_to_end("a")
    od.move_to_end("c", last=False)
    last = od.popitem()
    first = od.popitem(last=False)
    eq_order_sensitive = collections.OrderedDict(x=1, y=2) == collections.OrderedDict(y=2, x=1)
    return (list(od.items()), last, first, eq_order_sensitive, dict(x=1, y=2) == dict(y=2, x=1))


def case_chainmap():
    defaults = {"color": "red", "user": "guest"}
    overrides = {"user": "admin"}
    cm = collections.ChainMap(overrides, defaults)
    cm["new"] = 1
    child = cm.new_child({"color": "blue"})
    return (cm["user"], cm["color"], sorted(cm), overrides, child["color"], child["user"], len(child))


def case_itertools_basic():
    return (
        list(itertools.chain([1, 2], "ab", (3,))),
        list(itertools.chain.from_iterable([[1], [2, 3]])),
        list(itertools.product("ab", repeat=2)),
        list(itertools.product([1, 2], "x")),
        list(itertools.permutations([1, 2, 3], 2)),
        list(itertools.combinations("abcd", 2)),
        list(itertools.islice(itertools.count(5, 2), 4)),
        list(itertools.accumulate([1, 2, 3, 4])),
        list(itertools.accumulate([1, 2, 3, 4], operator.mul, initial=10)),
    )


def case_itertools_groupby():
    data = "aaabccdaa"
    groups = [(k, len(list(g))) for k, g in itertools.groupby(data)]
    recs = [("x", 1), ("x", 2), ("y", 3), ("x", 4)]
    by_key = [(k, [v for _, v in g]) for k, g in itertools.groupby(recs, key=lambda r: r[0])]
    return (groups, by_key)


def case_itertools_more():
    return (
        list(itertools.zip_longest("ab", [1, 2, 3], fillvalue="-")),
        list(itertools.takewhile(lambda x: x < 3, [1, 2, 3, 1])),
        list(itertools.dropwhile(lambda x: x < 3, [1, 2, 3, 1])),
        list(itertools.compress("abcd", [1, 0, 1, 0])),
        list(itertools.repeat("z", 3)),
        list(itertools.starmap(pow, [(2, 5), (3, 2)])),
        [list(t) for t in itertools.tee([1, 2], 2)],
        list(itertools.pairwise([1, 2, 3, 4])),
        list(itertools.filterfalse(None, [0, 1, 0, 2])),
    )


def case_operator_module():
    recs = [{"n": "b", "v": 2}, {"n": "a", "v": 1}]
    pts = [(1, "y"), (0, "z")]
    return (
        [operator.itemgetter("n")(r) for r in sorted(recs, key=operator.itemgetter("v"))],
        sorted(pts, key=operator.itemgetter(0)),
        operator.itemgetter(1, 0)("ab"),
        operator.attrgetter("real", "imag")(3 + 4j),
        operator.methodcaller("split", ",")("a,b"),
        operator.add(2, 3),
        operator.neg(5),
        operator.contains([1, 2], 2),
        operator.getitem("abc", 1),
        operator.truth([]),
        list(map(operator.mul, [1, 2], [3, 4])),
    )


# ---------------------------------------------------------------------------
# strings
# ---------------------------------------------------------------------------


def case_string_methods():
    s = "  Hello, World!  "
    return (
        s.strip(),
        s.lstrip(),
        s.rstrip(" !"),
        s.lower(),
        s.upper(),
        s.strip().split(", "),
        "a,b,,c".split(","),
        "a b  c".split(),
        "a,b,c".split(",", 1),
        "a,b,c".rsplit(",", 1),
        "-".join(["x", "y", "z"]),
        "hello".replace("l", "L"),
        "hello".find("l"),
        "hello".rfind("l"),
        "hello".find("z"),
        "Hello".startswith(("He", "x")),
        "file.py".endswith(".py"),
        "title case words".title(),
        "SwAp".swapcase(),
        "abc".center(9, "*"),
        "42".zfill(5),
        "-42".zfill(5),
        "a\tb".expandtabs(4),
    )


def case_string_methods_more():
    return (
        "key=value=x".partition("="),
        "key=value=x".rpartition("="),
        "line1\nline2\r\nline3".splitlines(),
        "prefix_name".removeprefix("prefix_"),
        "name.txt".removesuffix(".txt"),
        "abc".translate(str.maketrans("ab", "xy", "c")),
        "Straße".casefold(),
        "123".isdigit(),
        "abc123".isalnum(),
        "   ".isspace(),
        "Hello".count("l"),
        "ab" * 3,
        "abc"[::-1],
        ord("A"),
        chr(97),
        "x".join("abc"),
        "%".join([]),
    )


def case_chained_method_calls():
    text = "  The quick brown fox  "
    r = text.strip().lower().replace("quick", "slow").split()
    s = " ".join(w.capitalize() for w in r).center(24, ".").upper()
    return (r, s, "-".join(sorted(set("banana"))).upper().split("-"))


def case_str_concat_type_error():
    return "count: " + 5


def case_str_index_error():
    return "abc"[3]


# ---------------------------------------------------------------------------
# numbers
# ---------------------------------------------------------------------------


def case_big_integer_math():
    big = 2**200
    f = math.factorial(40)
    return (
        big,
        big // 3,
        big % 1000007,
        -big // 7,
        -big % 7,
        pow(3, 200, 10**9 + 7),
        f,
        len(str(f)),
        (10**50 + 1) * (10**50 - 1),
        int("9" * 60) + 1 == 10**60,
        (2**100).bit_length(),
        math.gcd(2**64, 6**30),
    )


def case_int_division_semantics():
    return (
        7 // 2,
        -7 // 2,
        7 // -2,
        7 % 3,
        -7 % 3,
        7 % -3,
        divmod(-7, 2),
        7 / 2,
        -7 / 2,
        7.5 // 2,
        -7.5 % 2,
        2**-1,
        (-8) ** (1 / 3) == (-8) ** (1 / 3),
        abs(-2**63),
    )


def case_bitwise_ops():
    a, b = 0b1100, 0b1010
    return (
        a & b,
        a | b,
        a ^ b,
        ~a,
        a << 3,
        a >> 2,
        -16 >> 2,
        -1 & 0xFF,
        (1 << 100) | 1,
        bin(a),
        hex(-255),
        oct(8),
        int("0b101", 0),
        int("ff", 16),
        (255).to_bytes(2, "big"),
        int.from_bytes(b"\x01\x00", "little"),
        (12).bit_count(),
    )


def case_math_module():
    return (
        math.sqrt(16),
        math.floor(-2.5),
        math.ceil(-2.5),
        math.trunc(-2.7),
        math.isqrt(10**20 + 1),
        math.comb(10, 3),
        math.perm(5, 2),
        math.lcm(4, 6, 10),
        math.fsum([0.1] * 10),
        math.isclose(0.1 + 0.2, 0.3),
        math.copysign(3, -0.0),
        math.fabs(-2),
        math.prod([1, 2, 3, 4]),
        math.log2(1024),
        math.log10(1000),
        math.pi > 3.14159,
        math.inf > 10**400,
        math.isnan(math.nan),
        math.hypot(3, 4),
        math.degrees(math.pi),
    )


def case_math_domain_error():
    return math.sqrt(-1)


def case_zero_division_messages():
    out = []
    for expr in (lambda: 1 / 0, lambda: 1 // 0, lambda: 1 % 0, lambda: 1.0 / 0, lambda: divmod(5, 0)):
        try:
            expr()
        except ZeroDivisionError as e:
            out.append(str(e))
    return out


def case_int_parse_errors():
    out = []
    for s, base in (("abc", 10), ("12", 2), ("", 10), (" 42 ", 10), ("1_000", 10), ("0x1F", 16), ("z", 36)):
        try:
            out.append(int(s, base))
        except ValueError as e:
            out.append(str(e))
    return out


def case_fractions():
    F = fractions.Fraction
    a = F(1, 3)
    b = F("2/7")
    return (
        str(a + b),
        str(a * b),
        str(a / b),
        a < b,
        str(F(0.75)),
        str(F(6, -4)),
        (a + b).numerator,
        (a + b).denominator,
        float(F(1, 8)),
        str(F(1, 3) ** 2),
        str(sum([F(1, n) for n in range(1, 5)])),
        F(1, 2) == 0.5,
    )


def case_decimal_with_context():
    D = decimal.Decimal
    with decimal.localcontext() as ctx:
        ctx.prec = 10
        ctx.rounding = decimal.ROUND_HALF_EVEN
        r = (
            str(D(1) / D(7)),
            str(D("0.1") + D("0.2")),
            str(D("2.675").quantize(D("0.01"))),
            str(D("2.665").quantize(D("0.01"))),
            str(D("1.10") * 3),
            str(D(2).sqrt()),
            D("1.0") == D("1.00"),
            str(D("-0")),
            str(D(10) ** 20),
        )
    return r


def case_decimal_invalid():
    try:
        decimal.Decimal("not a number")
    except decimal.InvalidOperation as e:
        return (type(e).__name__, isinstance(e, ArithmeticError))


def case_complex_numbers():
    z = complex(3, 4)
    return (abs(z), z.conjugate(), z * 1j, (1 + 2j) + (3 - 1j), z.real, z.imag, repr(2j), z == 3 + 4j)


def case_unsupported_operand_error():
    return 1 + "a"


def case_various_type_errors():
    out = []
    for fn in (lambda: [1] + (2,), lambda: "x" * "y", lambda: -"a", lambda: len(5), lambda: {1} + {2}, lambda: None < 1):
        try:
            fn()
        except TypeError as e:
            out.append(str(e))
    return out


# ---------------------------------------------------------------------------
# json
# ---------------------------------------------------------------------------


def case_json_round_trip():
    data = {"name": "Zoë", "nums": [1, 2.5, -3], "nested": {"ok": True, "none": None}, "tuple": (1, 2)}
    s = json.dumps(data, sort_keys=True)
    back = json.loads(s)
    pretty = json.dumps({"b": [1, {"c": 2}], "a": "x"}, indent=2, sort_keys=True)
    compact = json.dumps([1, {"k": "v"}], separators=(",", ":"))
    return (s, back, pretty, compact, json.dumps("é", ensure_ascii=False), json.loads("[1e3, 2, \"\\u00e9\"]"))


def case_json_int_keys_and_errors():
    s = json.dumps({1: "one", 2.5: "x", None: "n", True: "t"})
    try:
        json.loads("{bad")
    except ValueError as e:
        err = (type(e).__name__, str(e))
    try:
        json.dumps({"s": {1, 2}})
    except TypeError as e:
        err2 = type(e).__name__
    return (s, err, err2)


# ---------------------------------------------------------------------------
# misc container behaviour
# ---------------------------------------------------------------------------


def case_aliasing_and_copies():
    import copy

    a = [[1, 2], [3]]
    b = a
    c = a[:]
    d = copy.deepcopy(a)
    a[0].append(99)
    a.append([4])
    grid = [[0] * 2] * 2
    grid[0][0] = 1
    return (b, c, d, grid, a is b, c[0] is a[0], d[0] is a[0])


def case_augmented_assignment_on_containers():
    lst = [1]
    alias = lst
    lst += [2]  # in-place
    t = (1,)
    talias = t
    t += (2,)  # new object
    d = {"k": [0]}
    d["k"] += [1]
    s = "a"
    s *= 3
    idx = [0]
    calls = []

    def key():
        calls.append("k")
        return 0

    idx[key()] += 5  # key evaluated once
    return (alias, t, talias, d, s, idx, calls)


def case_augmented_assign_tuple_item_error():
    t = ([1],)
    try:
        t[0] += [2]
    except TypeError as e:
        return (str(e), t)


def case_range_objects():
    r = range(2, 20, 3)
    return (list(r), len(r), r[2], r[-1], list(r[1:4]), 11 in r, r.index(8), list(range(5, 0, -2)), range(0) == range(2, 2), list(range(-3)))


def case_iter_sentinel_and_next_default():
    items = iter([3, 2, 1, 0, 5])
    got = list(iter(lambda: next(items), 0))
    it = iter([1])
    return (got, next(it), next(it, "done"), list(items))


def case_stop_iteration_uncaught():
    it = iter([])
    return next(it)
