"""Second half of corpus/with_match.py (split to keep files under 1000 lines); its module-level
helpers are shared."""

import collections
import contextlib
import dataclasses
import enum
import io

from . import with_match as _first

globals().update({k: v for k, v in vars(_first).items() if not k.startswith(('case_', '__'))})


def case_nullcontext_closing_redirect_stdout():
    class Resource:
        def __init__(self):
            self.closed = False

        def close(self):
            self.closed = True

    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        print("captured", 1, 2)
    res = Resource()
    with contextlib.closing(res) as r:
        inside = r.closed
    with contextlib.nullcontext("value") as v:
        pass
    return buf.getvalue(), inside, res.closed, v


# ---------------------------------------------------------------------------
# pattern matching: literals, captures, values
# ---------------------------------------------------------------------------


def case_match_literals():
    values = [None, True, False, 0, 1, 3, -1, 2.5, 1 + 2j, "helloworld", "", b"raw", "abc", 4, 1.0, 0.0, [1]]
    return [describe(v) for v in values]


def case_match_bool_literal_uses_identity():
    out = []
    for v in (True, 1, 1.0, False, 0):
        match v:
            case True:
                out.append("is True")
            case False:
                out.append("is False")
            case _:
                out.append("not a bool singleton")
    return out


def case_match_capture_and_wildcard():
    out = []
    for v in (5, "s", None):
        match v:
            case int(n):
                out.append(("int", n))
            case other:
                out.append(("other", other))
    match 99:
        case _:
            wildcard = "matched"
    return out, wildcard


def case_match_value_patterns_dotted_names():
    out = []
    for v in (42, "deep", Color.GREEN, 2, Color.RED):
        match v:
            case Consts.ANSWER:
                out.append("answer")
            case Consts.NAME:
                out.append("name")
            case Color.RED | Color.BLUE:
                out.append("red or blue")
            case Color.GREEN:
                out.append("green")
            case _:
                out.append("nothing")
    return out


def case_match_no_case_matches_returns_none():
    def f(v):
        match v:
            case 1:
                return "one"
            case "a":
                return "a"

    return f(2), f("b"), f(1)


def case_match_subject_evaluated_once():
    calls = []

    def subject():
        calls.append(1)
        return [1, 2]

    match subject():
        case [1]:
            r = "one"
        case [1, 2, 3]:
            r = "three"
        case [1, x]:
            r = ("two", x)
    return r, len(calls)


# ---------------------------------------------------------------------------
# sequences
# ---------------------------------------------------------------------------


def case_match_sequence_patterns_with_star():
    def f(seq):
        match seq:
            case []:
                return "empty"
            case [x]:
                return ("one", x)
            case [x, y]:
                return ("two", x, y)
            case [first, *middle, last] if len(middle) < 3:
                return ("star", first, middle, last)
            case [*_, last]:
                return ("long", last)

    return [f([]), f((7,)), f([1, 2]), f((1, 2, 3, 4)), f(list(range(10)))]


def case_match_sequence_types_accepted_and_rejected():
    def f(v):
        match v:
            case [a, b, c]:
                return ("seq3", a, c)
            case [*items]:
                return ("seq", len(items))
            case _:
                return "not a sequence"

    return [
        f([1, 2, 3]), f((1, 2, 3)), f(range(3)), f("abc"), f(b"abc"), f(bytearray(b"abc")),
        f({1: 2}), f({1, 2, 3}), f(iter([1, 2, 3])), f(collections.deque([1, 2, 3])), f(memoryview(b"xyz")),
    ]


def case_match_str_as_whole_value():
    def f(v):
        match v:
            case [c, *_]:
                return ("sequence", c)
            case str() as s if len(s) == 1:
                return ("char", s)
            case str(s):
                return ("str", s)

    return [f("abc"), f("x"), f(["abc"])]


def case_match_nested_sequences_and_captures():
    def f(v):
        match v:
            case [(x, y), [z, *rest]]:
                return ("pair-and-list", x, y, z, rest)
            case [[[deep]]]:
                return ("deep", deep)
            case [a, [b, [c, d]]]:
                return ("nested", a, b, c, d)

    return [f([(1, 2), [3, 4, 5]]), f([[[9]]]), f([1, [2, [3, 4]]]), f([1])]


def case_match_star_binds_list_even_for_tuple():
    match (1, 2, 3):
        case (a, *rest):
            return a, rest, type(rest).__name__


# ---------------------------------------------------------------------------
# mappings
# ---------------------------------------------------------------------------


def case_match_mapping_patterns_with_rest():
    def f(v):
        match v:
            case {"type": "point", "x": x, "y": y, **rest}:
                return ("point", x, y, sorted(rest))
            case {"type": "tagged", **rest} if not rest:
                return "empty tagged"
            case {"type": str(t)}:
                return ("typed", t)
            case {}:
                return "any mapping"

    return [
        f({"type": "point", "x": 1, "y": 2, "z": 3, "w": 4}),
        f({"type": "tagged"}),
        f({"type": "tagged", "extra": 1}),
        f({"other": 1}),
        f({"type": 5}),
        f([("type", "point")]),
    ]


def case_match_mapping_rest_is_a_new_dict():
    src = {"a": 1, "b": 2, "c": 3}
    match src:
        case {"a": 1, **rest}:
            rest["z"] = 26
            return rest, src, type(rest).__name__


def case_match_dict_subclass_and_defaultdict():
    md = MyDict(a=1, b=2)
    dd = collections.defaultdict(list, {"present": [1]})
    out = []
    match md:
        case {"a": a, **rest}:
            out.append(("mydict", a, rest))
    match dd:
        case {"missing": _}:
            out.append("matched missing")
        case {"present": [p]}:
            out.append(("present", p))
    out.append(sorted(dd))  # mapping patterns must not create keys via __missing__
    match NotAMapping():
        case {"a": _}:
            out.append("wrongly matched")
        case _:
            out.append("not a mapping")
    return out


def case_match_mapping_value_pattern_keys():
    def f(d):
        match d:
            case {Color.RED: r, Consts.ANSWER: a}:
                return ("enum+const", r, a)
            case {1: one, "1": str_one}:
                return ("mixed", one, str_one)
            case _:
                return None

    return [f({Color.RED: "r", 42: "a"}), f({1: "int", "1": "str"}), f({1: "int"})]


def case_match_mapping_duplicate_value_keys_raises():
    class K:
        A = "k"
        B = "k"

    match {"k": 1, "j": 2}:  # needs >= 2 items, or the length check fails first
        case {K.A: _, K.B: _}:
            return "matched"


# ---------------------------------------------------------------------------
# class patterns
# ---------------------------------------------------------------------------


def case_match_class_positional_and_keyword():
    def f(p):
        match p:
            case Point3(x, y, z=0):
                return ("flat3", x, y)
            case Point3(x, y, z):
                return ("3d", x, y, z)
            case Point(0, y=yy):
                return ("on y axis", yy)
            case Point(x, 0):
                return ("on x axis", x)
            case Point(x=x, y=y) if x == y:
                return ("diagonal", x)
            case Point(a, b):
                return ("general", a, b)

    return [f(Point3(1, 2, 0)), f(Point3(1, 2, 3)), f(Point(0, 5)), f(Point(4, 0)), f(Point(3, 3)), f(Point(1, 2))]


def case_match_dataclass_patterns():
    shapes = [Circle((0, 0), 2), Circle((1, 1), -1), Rect(0, 0, 3, 3), Rect(0, 0, 2, 5), Point(0, 0), Point(1, 0), "x"]
    return [shape_area(s) for s in shapes], Circle.__match_args__


def case_match_builtin_self_matching_classes():
    def f(v):
        match v:
            case bool(b):
                return ("bool", b)
            case int(i):
                return ("int", i)
            case float(x) | (complex() as x):
                return ("number", x)
            case str(s) | bytes(s):
                return ("text", s)
            case list([x, *_]):
                return ("list with head", x)
            case tuple(t):
                return ("tuple", t)
            case dict(d):
                return ("dict", d)
            case frozenset() | set():
                return "some set"

    return [f(True), f(7), f(1.5), f(2j), f("s"), f(b"b"), f([9, 8]), f((1,)), f({"k": 1}), f({1}), f(frozenset()), f([])]


def case_match_class_pattern_too_many_positional():
    match Point(1, 2):
        case Point(a, b, c):
            return a, b, c


def case_match_builtin_too_many_positional():
    try:
        match 5:
            case int(a, b):
                return "impossible"
    except TypeError as e:
        return str(e)


def case_match_args_not_a_tuple():
    match BadMatchArgs():
        case BadMatchArgs(a):
            return a


def case_match_positional_and_keyword_same_attribute():
    try:
        match Point(1, 2):
            case Point(x, x=1):
                return "impossible"
    except TypeError as e:
        return str(e)


def case_match_missing_attribute_fails_quietly():
    out = []
    match GhostArgs():
        case GhostArgs(g):
            out.append(("ghost", g))
        case GhostArgs():
            out.append("no ghost attribute")
    match Point(1, 2):
        case Point(z=z):
            out.append("has z")
        case Point(x=1):
            out.append("x is 1")
    return out


def case_match_class_pattern_not_a_type():
    class Holder:
        not_a_type = len

    try:
        match 5:
            case Holder.not_a_type():
                return "impossible"
    except TypeError as e:  # wording changed in 3.12 ("type" -> "class")
        return type(e).__name__, "called match pattern must be a" in str(e)


def case_match_class_without_match_args_positional():
    class Plain:
        def __init__(self):
            self.v = 1

    try:
        match Plain():
            case Plain(v):
                return v
    except TypeError as e:
        return str(e)


def case_match_subclass_instances():
    out = []
    for p in (Point(1, 2), Point3(1, 2, 3)):
        match p:
            case Point3():
                out.append("point3")
            case Point():
                out.append("point")
    match True:
        case int():
            out.append("bool is an int")
    return out


# ---------------------------------------------------------------------------
# or / as / guards / nesting
# ---------------------------------------------------------------------------


def case_match_or_patterns_with_bindings():
    def f(v):
        match v:
            case [x, 0] | [0, x]:
                return ("axis", x)
            case {"a": x} | {"b": x}:
                return ("key", x)
            case (1 | 2 | 3) as small:
                return ("small", small)
            case Point(x=x, y=0) | Point(x=0, y=x):
                return ("point axis", x)

    return [f([5, 0]), f([0, 6]), f({"b": 7}), f({"a": 1, "b": 2}), f(2), f(Point(0, 9)), f([1, 1])]


def case_match_as_patterns():
    def f(v):
        match v:
            case [int() as a, str() as b] as whole:
                return ("pair", a, b, whole)
            case {"k": [*_] as lst} as mapping:
                return ("mapping", lst, len(mapping))
            case (Point(x=0) | Point(y=0)) as p:
                return ("axis point", p.x, p.y)

    return [f([1, "a"]), f({"k": [1, 2]}), f(Point(0, 4)), f(Point(1, 1))]


def case_match_guards_with_side_effects():
    log = []

    def check(name, result):
        log.append(name)
        return result

    match [1, 2]:
        case [a, b] if check("g1", a > b):
            r = "first"
        case [a, b] if check("g2", a < b):
            r = "second"
        case _ if check("g3", True):
            r = "third"
    return r, log


def case_match_capture_bound_even_when_guard_fails():
    x = "before"
    match 10:
        case x if x > 100:
            r = "big"
        case _:
            r = "fallback"
    return r, x


def case_match_nested_patterns_deep():
    event = {"kind": "click", "pos": Point(3, 4), "buttons": ["left", "right"], "meta": {"ctrl": True}}
    match event:
        case {"kind": "click", "pos": Point(x, y), "buttons": [*_, "right"], "meta": {"ctrl": True as ctrl}}:
            return ("right-click", x, y, ctrl)
        case {"kind": "click"}:
            return "click"


def case_match_command_interpreter():
    def run(cmd):
        match cmd.split():
            case ["go", ("north" | "south" | "east" | "west") as direction]:
                return ("move", direction)
            case ["get", obj] | ["pick", "up", obj]:
                return ("take", obj)
            case ["drop", *objs] if objs:
                return ("drop", objs)
            case ["quit" | "exit"]:
                return "bye"
            case []:
                return "nothing"
            case [verb, *_]:
                return ("unknown", verb)

    cmds = ["go north", "go up", "get lamp", "pick up key", "drop a b", "drop", "exit", "", "dance now"]
    return [run(c) for c in cmds]


def case_match_numeric_equality_semantics():
    out = []
    for v in (0, 0.0, -0.0, False, 1.0, 1, True, 2 + 0j, float("nan")):
        match v:
            case 0:
                out.append("zero-like")
            case 1:
                out.append("one-like")
            case 2:
                out.append("two-like")
            case _:
                out.append("other")
    return out


def case_match_in_loop_with_break_continue():
    out = []
    for item in [1, "skip", 2, None, 3]:
        match item:
            case "skip":
                continue
            case None:
                break
            case int(n):
                out.append(n * 10)
    return out
