"""The tensor dtypes a fusion takes, and nvFuser's names for them (``nvfuser_direct.DataType``).

Names, not objects: this module must import without nvFuser (the checker runs everywhere).
Complex, 8-bit and 16-bit integer and float8 tensors are declined: complex and float8
definitions are not exercised by this package's tests, and nvFuser has no 8/16-bit integer
types.
"""

from __future__ import annotations

import torch

#: torch dtype -> nvfuser_direct.DataType member name
DTYPES = {
    torch.float32: "Float", torch.float16: "Half", torch.bfloat16: "BFloat16", torch.float64: "Double",
    torch.int64: "Int", torch.int32: "Int32", torch.bool: "Bool",
}

HALF = frozenset({torch.float16, torch.bfloat16})


def scalar_type(x) -> str:
    """nvFuser's scalar type for a Python number or a dtype's kind: Bool, Int or Double."""
    if isinstance(x, torch.dtype):
        return "Bool" if x is torch.bool else "Double" if x.is_floating_point else "Int"
    if isinstance(x, type):
        return {bool: "Bool", int: "Int", float: "Double"}[x]
    if isinstance(x, bool):
        return "Bool"
    return "Int" if isinstance(x, int) else "Double"


def short(dtype) -> str:
    return str(dtype).removeprefix("torch.")
