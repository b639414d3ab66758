"""What the differential corpus cannot see: object lifetimes, the recursion limit as the
process sees it, crash safety, and how interpreted property getters show up in the event
log."""

import gc
import subprocess
import sys
import textwrap
import weakref

import pytest

from thunder_core.frontend import events as ev, interpret
from thunder_core.frontend.driver import write_unraisable


class Big:
    pass


def _raise_with_local(x):
    local = Big()  # noqa: F841 - must not outlive the call
    raise ValueError(x)


def test_traceback_stub_frames_pin_no_interpreter_frames_or_locals():
    refs = []

    def f():
        obj = Big()
        refs.append(weakref.ref(obj))
        _raise_with_local(1)

    with pytest.raises(ValueError) as info:
        interpret(f)()
    tb = info.value.__traceback__
    while tb.tb_next is not None:
        tb = tb.tb_next
    fr = tb.tb_frame
    assert fr.f_code.co_name == "_raise_with_local"
    assert fr.f_back is None  # a suspended generator's frame: nothing of the interpreter behind it
    assert fr.f_globals is globals()
    assert fr.f_lineno == tb.tb_lineno == _raise_with_local.__code__.co_firstlineno + 2
    del info, tb, fr
    assert refs[0]() is None  # no interpreter frame kept `obj` alive


def test_locals_die_with_the_call_without_gc():
    refs = []

    def f():
        obj = Big()
        refs.append(weakref.ref(obj))
        del obj
        return refs[0]() is None

    gc.disable()
    try:
        assert interpret(f)() is True
    finally:
        gc.enable()


def test_recursion_limit_is_the_users_inside_and_restored_after():
    before = sys.getrecursionlimit()
    seen = interpret(lambda: sys.getrecursionlimit())()
    assert seen == before and sys.getrecursionlimit() == before


def test_user_recursion_reaches_cpythons_depth():
    def depth(n):
        return 0 if n == 0 else 1 + depth(n - 1)

    assert interpret(depth)(sys.getrecursionlimit() - 100) == sys.getrecursionlimit() - 100


_NATIVE_RECURSION = textwrap.dedent("""
    import sys
    sys.path.insert(0, {root!r})
    from thunder_core.frontend import interpret

    def via_sorted(n):  # recursion through a C builtin: deep C stack per level
        return sorted([n], key=via_sorted)

    def main():
        try:
            via_sorted(0)
        except RecursionError:
            return "RecursionError"

    print(interpret(main)())
""")


def test_native_recursion_inside_interpreted_code_does_not_overflow_the_c_stack():
    import os

    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    r = subprocess.run([sys.executable, "-c", _NATIVE_RECURSION.format(root=root)],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-2000:]
    assert r.stdout.strip() == "RecursionError"


class Holder:
    def __init__(self):
        self._value = [1, 2]

    @property
    def value(self):
        return self._value


def test_interpreted_property_getter_reads_are_events_of_the_owner():
    h = Holder()

    def f(holder):
        return holder.value

    out = []
    assert interpret(f, interpreter_out=out)(h) is h._value
    I = out[0]
    reads = [repr(e.prov) for e in I.events if e.kind == ev.READ_ATTR]
    assert "args[0]._value" in reads  # read inside the interpreted getter
    assert repr(I.provenance(h._value)) == "args[0]._value"


def test_unraisable_hook_failure_is_reported_by_the_default_hook(capsys):
    old = sys.unraisablehook

    def bad_hook(args):
        raise RuntimeError("hook failed")

    sys.unraisablehook = bad_hook
    try:
        write_unraisable(ValueError("lost"), "some object")
    finally:
        sys.unraisablehook = old
    err = capsys.readouterr().err
    assert "Exception ignored in sys.unraisablehook" in err and "hook failed" in err
