"""Block sizes, warps and program counts, from a kernel's sizes and the device.

Two kinds of device run these kernels. Under Triton's CPU interpreter (``TRITON_INTERPRET=1``,
device type ``cpu``) one program runs a whole block as NumPy arrays, so blocks are as large as
possible (fewer programs run faster). On a GPU the figures below are the usual starting points
of hand-written Triton kernels (8 elements per thread for pointwise code: 16-byte vector loads
of halves; about 2048-element tiles for rows held in registers; twice as many programs as
streaming multiprocessors for kernels whose programs loop); they are heuristics, **not tuned on
a GPU here** (there is none). :func:`autotune_configs` lists the alternatives a GPU run can
choose among (``THUNDER_TRITON_AUTOTUNE=1`` makes the launcher benchmark them with
``triton.autotune`` on first use of each size).
"""

from __future__ import annotations

import os
from dataclasses import dataclass

#: streaming multiprocessors of the profiles' parts (SXM): programs that run at once
SMS = {"a100": 108, "h100": 132, "b200": 148}

#: the longest row a row kernel holds in registers in one program; longer rows are looped
#: over in chunks of CHUNK elements (two passes for a softmax: online max and sum, then the
#: outputs)
WHOLE_ROW = {"cpu": 1 << 15, "cuda": 1 << 13}
CHUNK = {"cpu": 1 << 13, "cuda": 1 << 12}


@dataclass(frozen=True)
class Target:
    """What the heuristics know of the device a kernel runs on."""

    device_type: str          # "cpu" (Triton's interpreter) or "cuda"
    name: str                 # the profile's name ("h100"), or "cpu"
    sms: int                  # programs that run at once
    bandwidth_gbs: float = 0.0


CPU = Target("cpu", "cpu", 4)


def target_for_profile(profile) -> Target:
    return Target(profile.device_type, profile.name, SMS.get(profile.name, 132), profile.bandwidth_gbs)


def target_for_device(device) -> Target:
    if device.type != "cuda":
        return CPU
    import torch

    props = torch.cuda.get_device_properties(device)
    return Target("cuda", props.name, props.multi_processor_count, 3000.0)


def pow2(n: int) -> int:
    return max(1, 1 << (max(int(n), 1) - 1).bit_length())


def cdiv(a: int, b: int) -> int:
    return -(-a // b)


def pointwise_params(numel: int, t: Target) -> dict:
    """BLOCK and num_warps of a pointwise kernel: 1024 elements and 4 warps on a GPU, 2048 and
    8 for tensors of 4M elements or more on parts of 3 TB/s or more."""
    n = pow2(numel)
    if t.device_type == "cpu":
        return {"BLOCK": min(n, 1 << 15), "num_warps": 4}
    block = 2048 if numel >= (1 << 22) and t.bandwidth_gbs >= 3000 else 1024
    block = max(128, min(n, block))
    return {"BLOCK": block, "num_warps": max(1, min(8, block // 256))}


def row_params(rows: int, cols: int, t: Target, looped: bool) -> dict:
    """BLOCK_R, BLOCK_C and num_warps of a row kernel. Whole rows: a tile of about 2048
    elements on a GPU (several short rows per program); looped rows: one row per program in
    CHUNK-element steps on a GPU. 4 warps, 8 from 4096-element tiles, 16 from 16384 (at most
    about 32 elements of a tile per thread: fewer registers per value)."""
    if looped:
        block_c = CHUNK[t.device_type]
        block_r = 1 if t.device_type == "cuda" else max(1, min(pow2(rows), (1 << 14) // block_c))
    else:
        block_c = pow2(cols)
        budget = 1 << 14 if t.device_type == "cpu" else 2048
        block_r = max(1, min(pow2(rows), budget // block_c))
    tile = block_r * block_c
    warps = 4 if tile < 4096 else 8 if tile < 16384 else 16
    return {"BLOCK_R": block_r, "BLOCK_C": block_c, "num_warps": warps}


def programs(blocks: int, t: Target) -> int:
    """Programs of a row kernel that also reduces over all rows: its programs loop over row
    blocks and the last one to finish combines their partial results alone, reading
    ``programs x C`` floats; one per multiprocessor on a GPU keeps that serial tail short
    (a [8192, 768] layer-norm backward on an h100: 132 x 768 floats), at most 4 in the
    interpreter (enough to test the combining)."""
    return max(1, min(blocks, 4 if t.device_type == "cpu" else t.sms))


def reduce_params(outputs: int, reduced: int, t: Target) -> dict:
    """BLOCK_R (reduced elements per step), BLOCK_O (outputs per program), num_warps and SPLIT
    (programs sharing one block of outputs: partial results combined by the last one to
    finish) of a reduction kernel. A GPU gets about two programs per multiprocessor: few
    outputs over many elements (a bias gradient, a full sum) are split."""
    if t.device_type == "cpu":
        block_o = min(pow2(outputs), 1024)
        block_r = max(1, min(pow2(reduced), 4096 // block_o))
        split = max(1, min(4, cdiv(reduced, block_r)))
        return {"BLOCK_R": block_r, "BLOCK_O": block_o, "num_warps": 4, "SPLIT": split}
    block_o = min(pow2(outputs), 64)
    block_r = max(1, min(pow2(reduced), 4096 // block_o))
    o_blocks = cdiv(outputs, block_o)
    split = 1 if o_blocks >= 2 * t.sms else max(1, min(cdiv(2 * t.sms, o_blocks), cdiv(reduced, 4 * block_r)))
    return {"BLOCK_R": block_r, "BLOCK_O": block_o, "num_warps": 4 if block_r * block_o < 8192 else 8,
            "SPLIT": split}


def autotune_configs(family: str, chosen: dict, sizes: dict | None = None) -> list[dict]:
    """Alternatives to the heuristic choice ``chosen`` (itself first) for ``triton.autotune``
    on a GPU: block sizes around it and 2, 4, 8 or 16 warps. Row kernels keep BLOCK_C (a
    whole row, or the chunk), pointwise kernels vary BLOCK, reduction kernels BLOCK_R and
    BLOCK_O. Not run here (no GPU)."""
    out = [dict(chosen)]

    def add(**c):
        c = {**chosen, **c}
        if c not in out:
            out.append(c)

    if family == "pointwise":
        for block in (512, 1024, 2048, 4096):
            for warps in (2, 4, 8):
                if block // (32 * warps) >= 2:
                    add(BLOCK=block, num_warps=warps)
    elif family == "row":
        tile = chosen["BLOCK_R"] * chosen["BLOCK_C"]
        for scale in (0.25, 0.5, 1, 2, 4):
            block_r = int(chosen["BLOCK_R"] * scale)
            if block_r >= 1 and 256 <= block_r * chosen["BLOCK_C"] <= max(tile, 16384):
                for warps in (4, 8, 16):
                    add(BLOCK_R=block_r, num_warps=warps)
    else:
        for block_o in (16, 32, 64, 128):
            for block_r in (16, 32, 64, 128):
                for warps in (4, 8):
                    add(BLOCK_O=min(block_o, max(chosen["BLOCK_O"], 16)), BLOCK_R=block_r, num_warps=warps)
    return out


def autotune_enabled() -> bool:
    return os.environ.get("THUNDER_TRITON_AUTOTUNE", "0") == "1"
