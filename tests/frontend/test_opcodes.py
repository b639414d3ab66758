"""Every opcode of the running Python is either handled or refused with a reason, and a
refused opcode raises an error naming the user's file:line."""

import dis
import sys

import pytest

from thunder_core.frontend import UnsupportedConstructError, interpret
from thunder_core.frontend.ops import HANDLERS, REFUSED


def test_every_opcode_is_handled_or_refused():
    missing = sorted(n for n in dis.opmap if n not in HANDLERS and n not in REFUSED)
    assert not missing, f"Python {sys.version_info[:2]}: opcodes neither handled nor refused: {missing}"


def test_refusals_have_reasons():
    for name, reason in REFUSED.items():
        assert isinstance(reason, str) and len(reason) > 10, name


def test_async_function_is_refused_with_file_and_line():
    async def coro():
        return 1

    def f():
        return coro()

    with pytest.raises(UnsupportedConstructError) as info:
        interpret(f)()
    msg = str(info.value)
    assert "test_opcodes.py:" in msg and "async" in msg


def test_async_generator_is_refused():
    async def agen():
        yield 1

    with pytest.raises(UnsupportedConstructError, match="async"):
        interpret(lambda: agen())()


def test_decoded_opcodes_of_a_large_function_are_all_known():
    """Decode every function of the corpus: no instruction falls back to the generic refusal."""
    from thunder_core.frontend.code import code_info
    from . import corpus
    import importlib
    import pkgutil
    import types

    def codes(c):
        yield c
        for k in c.co_consts:
            if isinstance(k, types.CodeType):
                yield from codes(k)

    seen = set()
    for m in pkgutil.iter_modules(corpus.__path__):
        mod = importlib.import_module(f"{corpus.__name__}.{m.name}")
        for v in vars(mod).values():
            if isinstance(v, types.FunctionType):
                for c in codes(v.__code__):
                    for inst in code_info(c, HANDLERS).insts:
                        seen.add(inst.opname)
    unknown = sorted(n for n in seen if n not in HANDLERS)
    assert not unknown, unknown
    # the corpus exercises a broad set of instructions
    assert len(seen) > 60
