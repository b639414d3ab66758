"""Differential tests: every corpus program gives CPython's result (or CPython's exception
type and message) when run under the interpreter.

``KNOWN_LIMITATIONS`` lists the cases a pure-Python interpreter cannot pass, each with the
reason (also in the "What differs from CPython" section of thunder_core/frontend/__init__.py).
They are strict xfails: the suite fails if one starts passing, so the list stays honest.
"""

import importlib
import pkgutil

import pytest

from thunder_core.frontend import interpret

from . import corpus

_TB_FRAMES = ("traceback entries of interpreted frames point at stub frames (real frame objects cannot be "
              "made for interpreted code): ")
_GEN_OBJECT = ("an interpreted generator is the interpreter's driver generator: its gi_code, gi_frame, "
               "gi_yieldfrom and frame locals are the driver's, not the user function's")
KNOWN_LIMITATIONS = {
    "adversarial.case_tb_frame_locals_of_raising_frame": _TB_FRAMES + "their f_locals are empty",
    "adversarial.case_tb_frame_code_is_function_code": _TB_FRAMES + "their f_code is a copy of the stub's code "
                                                                    "with the user's names, not the function's code",
    "adversarial.case_tb_recursive_frames_are_distinct_and_linked": _TB_FRAMES + "one stub per (code, line) is "
                                                                                 "shared, and its f_back is None",
    "adversarial.case_tb_extract_tb_positions": _TB_FRAMES + "entries are made with tb_lasti=-1, so they carry no "
                                                             "column positions",
    "adversarial.case_generator_code_and_frame_line": _GEN_OBJECT,
    "adversarial.case_generator_gi_yieldfrom": _GEN_OBJECT,
    "adversarial.case_generator_locals_introspection": _GEN_OBJECT,
    "adversarial_2.case_object_read_from_global_container_is_released": (
        "by design: objects read from outside the call stay alive for the call's duration (provenance "
        "tracking keeps them, so ids stay unique for guards)"),
}

CASES = []
for _m in pkgutil.iter_modules(corpus.__path__):
    _mod = importlib.import_module(f"{corpus.__name__}.{_m.name}")
    for _name in sorted(vars(_mod)):
        if _name.startswith("case_") and callable(getattr(_mod, _name)):
            _id = f"{_m.name}.{_name}"
            _reason = KNOWN_LIMITATIONS.get(_id)
            _marks = [pytest.mark.xfail(strict=True, reason=_reason)] if _reason else []
            CASES.append(pytest.param(getattr(_mod, _name), id=_id, marks=_marks))


def outcome(fn):
    try:
        return ("ok", fn())
    except BaseException as e:  # noqa: BLE001 - we compare whatever CPython raises
        return ("raise", type(e).__name__, str(e))


def same(a, b):
    if a == b:
        return True
    return repr(a) == repr(b)


@pytest.mark.parametrize("case", CASES)
def test_same_as_cpython(case):
    native = outcome(case)
    interpreted = outcome(interpret(case))
    assert same(native, interpreted), f"CPython: {native!r}\ninterpreter: {interpreted!r}"


def test_corpus_size():
    assert len(CASES) >= 300


def test_known_limitations_name_existing_cases():
    ids = {p.id for p in CASES}
    missing = sorted(set(KNOWN_LIMITATIONS) - ids)
    assert not missing, f"KNOWN_LIMITATIONS names cases that do not exist: {missing}"
