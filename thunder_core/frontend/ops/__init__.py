"""Opcode handlers, one family per module. ``HANDLERS[opname](interp, frame, inst)`` runs one
instruction; it returns None to continue, or a run-loop signal (RETURN, YIELD, GENERATOR).
``REFUSED[opname]`` says why an opcode is not handled (pseudo-instructions never appear in
code objects; async opcodes are refused with a clear error)."""

HANDLERS: dict = {}
REFUSED: dict = {}


def op(*names):
    def register(fn):
        for n in names:
            HANDLERS[n] = fn
        return fn
    return register


from . import stack, names, arith, build, control, calls, exceptions, generators, match, refused  # noqa: E402,F401
