"""Opcodes the interpreter does not run, each with the reason. Pseudo-instructions and
instrumented/specialised forms never appear in the code objects ``dis`` decodes; async
instructions are refused with an error naming the user's file:line."""

import dis
import opcode as _opcode

from ..errors import refuse
from . import HANDLERS, REFUSED, op

_ASYNC = ("GET_AWAITABLE", "GET_AITER", "GET_ANEXT", "END_ASYNC_FOR", "BEFORE_ASYNC_WITH",
          "ASYNC_GEN_WRAP", "SETUP_ASYNC_WITH")


@op(*_ASYNC)
def async_op(I, f, inst):
    refuse(f, inst, f"async code ({inst.opname}) is not supported",
           "Run coroutines and async generators outside of the jitted function.")


for _name in _ASYNC:
    REFUSED[_name] = "async code is refused with an error naming the user's file:line"

_MIN_PSEUDO = getattr(_opcode, "MIN_PSEUDO_OPCODE", 256)
for _name, _code in dis.opmap.items():
    if _name in HANDLERS and _name not in REFUSED:
        continue
    if _code >= _MIN_PSEUDO:
        REFUSED[_name] = "pseudo-instruction: exists only inside the compiler"
    elif _name.startswith("INSTRUMENTED_") or _name in ("ENTER_EXECUTOR", "INTERPRETER_EXIT", "RESERVED"):
        REFUSED[_name] = "never decoded by dis (instrumentation, executors, interpreter internals)"
