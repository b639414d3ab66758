"""The demo: what thunder_core can do today.

It runs a small program under the bytecode interpreter, checks the result against CPython,
and prints what the interpreter saw: every read of outside data and every write that escapes
the call, each with its provenance and the user's source line, then the interpreter's
overhead on this program. (The jit of a GPT-style model joins the demo once the trace IR and
the torch executor land.)
"""

from __future__ import annotations

import statistics
import time

from .frontend import Interpreter, events

SCALE = 3
HISTORY: list = []


class Accumulator:
    def __init__(self):
        self.total = 0

    def add(self, v):
        self.total += v
        return self.total


def make_program():
    offset = 10

    def program(xs, acc):
        def squares():
            for x in xs:
                yield x * x
        result = {f"sq{i}": v * SCALE + offset for i, v in enumerate(squares())}
        acc.add(sum(result.values()))
        HISTORY.append(len(result))
        return result

    return program


def main() -> int:
    program = make_program()
    expected = program([1, 2, 3], Accumulator())
    HISTORY.clear()
    interp = Interpreter()
    got = interp.run(program, ([1, 2, 3], Accumulator()), {})
    print("thunder_core demo: the bytecode interpreter\n")
    print(f"result under the interpreter: {got}")
    print(f"same as CPython:              {got == expected}\n")
    print("events (reads of outside data, writes that escape the call):")
    for e in interp.events:
        if e.kind in events.READS or e.kind in events.WRITES:
            key = "" if e.key is None else f" {e.key!r}"
            print(f"  {e.kind:<13} {e.prov!r}{key:<12}  line {e.site[1]} in {e.site[2]}")

    def best(f, n=200):
        ts = []
        for _ in range(n):
            t = time.perf_counter_ns()
            f()
            ts.append(time.perf_counter_ns() - t)
        return statistics.median(ts) / 1e3

    native = best(lambda: program(list(range(50)), Accumulator()))
    interpreted = best(lambda: Interpreter().run(program, (list(range(50)), Accumulator()), {}))
    HISTORY.clear()
    print(f"\nper call on 50 items: CPython {native:.1f} us, interpreted {interpreted:.1f} us "
          f"({interpreted / native:.0f}x)")
    return 0 if got == expected else 1
