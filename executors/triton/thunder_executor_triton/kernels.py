"""Compiling, caching and launching generated kernels; ahead-of-time PTX/cubin for tc.plan.

Generated sources are written to files in a private temporary directory (Triton reads a
kernel's source with ``inspect``) and imported from there, once per ``region_key``.
"""

from __future__ import annotations

import importlib.util
import os
import struct
import tempfile
import threading

import torch

from thunder_core.extend import region_key

from .codegen import Kernel, generate

_LOCK = threading.Lock()
_DIR: list = []
_JIT: dict = {}      # (region_key, device type) -> (Kernel, jitted function)
_AOT: dict = {}      # (region_key, target name) -> [Artifact]

#: device profile name -> (GPUTarget arch, warp size); Triton 3.9 turns 90 into sm_90a and 100 into sm_100a
ARCH = {"a100": 80, "h100": 90, "b200": 100}


def source_dir() -> str:
    if not _DIR:
        _DIR.append(tempfile.mkdtemp(prefix="thunder_triton_kernels_"))
    return _DIR[0]


def _load(kernel: Kernel, key_index: int):
    path = os.path.join(source_dir(), f"region_{key_index}.py")
    with open(path, "w") as f:
        f.write(kernel.source)
    spec = importlib.util.spec_from_file_location(f"thunder_triton_region_{key_index}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return getattr(module, kernel.name)


def jitted(region, device_type: str, bandwidth_gbs: float = 0.0):
    """(Kernel, @triton.jit function) of ``region`` for a device type, generated once per
    region structure."""
    key = (region_key(region), device_type)
    with _LOCK:
        hit = _JIT.get(key)
        if hit is None:
            kernel = generate(region, device_type, bandwidth_gbs)
            hit = _JIT[key] = (kernel, _load(kernel, len(_JIT)))
    return hit


def _device(p) -> torch.device:
    return torch.device(str(p.device))


def lower(region):
    """The callable launching ``region``'s kernel: takes ``region.inputs`` (tensors), returns
    the tuple of ``region.outputs``, allocated here with the proxies' shapes/dtypes/devices."""
    device = _device(region.outputs[0])
    kernel, fn = jitted(region, device.type)
    outs = [(tuple(int(s) for s in p.shape), p.dtype, _device(p)) for p in region.outputs]
    grid, scalars, constexprs, warps = (kernel.grid,), kernel.scalars, kernel.constexprs, kernel.num_warps
    numel = kernel.numel
    interpreted = device.type == "cpu"
    if interpreted:
        import numpy

    def launch(*inputs):
        args = [t.contiguous() for t in inputs]
        results = [torch.empty(s, dtype=d, device=dev) for s, d, dev in outs]
        if numel:
            if interpreted:  # masked-off lanes may compute log(0) and such: NumPy need not warn
                with numpy.errstate(all="ignore"):
                    fn[grid](*args, *results, *scalars, **constexprs, num_warps=warps)
            else:
                fn[grid](*args, *results, *scalars, **constexprs, num_warps=warps)
        return tuple(results)

    launch.__name__ = region.name or "triton_region"
    launch.kernel = kernel
    return launch


def registers(cubin: bytes) -> int | None:
    """The register count ptxas recorded in a one-kernel cubin (the EIATTR_REGCOUNT record of
    its ``.nv.info`` section), or None if not found. Triton itself learns it only when the
    driver loads the cubin, which needs a GPU."""
    try:
        if cubin[:4] != b"\x7fELF" or cubin[4] != 2:
            return None
        shoff, = struct.unpack_from("<Q", cubin, 0x28)
        shentsize, shnum, shstrndx = struct.unpack_from("<HHH", cubin, 0x3A)
        sections = [struct.unpack_from("<IIQQQQIIQQ", cubin, shoff + i * shentsize) for i in range(shnum)]
        strtab = sections[shstrndx]
        names = cubin[strtab[4]:strtab[4] + strtab[5]]
        counts = []
        for s in sections:
            if names[s[0]:names.index(b"\0", s[0])] != b".nv.info":
                continue
            data, i = cubin[s[4]:s[4] + s[5]], 0
            while i + 4 <= len(data):
                fmt, attr, size = data[i], data[i + 1], struct.unpack_from("<H", data, i + 2)[0]
                if fmt == 0x04:  # EIFMT_SVAL: `size` bytes follow
                    if attr == 0x2F and size >= 8:  # EIATTR_REGCOUNT: (function symbol, count)
                        counts.append(struct.unpack_from("<II", data, i + 4)[1])
                    i += 4 + size
                else:  # the value is in the 4-byte header
                    i += 4
        return counts[0] if len(counts) == 1 else None
    except (struct.error, ValueError, IndexError):
        return None


def artifacts(region, profile):
    """Ahead-of-time artifacts of ``region`` for a CUDA ``profile``: the Triton source, and the
    PTX and cubin Triton compiles for that GPU (an explicit GPUTarget: no device needed)."""
    from thunder_core.extend import Artifact

    key = (region_key(region), profile.name)
    with _LOCK:
        made = _AOT.get(key)
    if made:
        return made
    from .aot import compile_for_gpu

    kernel = generate(region, "cuda", profile.bandwidth_gbs)
    arch = ARCH.get(profile.name, 90)
    with _LOCK:
        path = os.path.join(source_dir(), f"aot_{len(_AOT)}_{profile.name}.py")
        _AOT[key] = None  # reserves the file name
    with open(path, "w") as f:
        f.write(kernel.source)
    out = compile_for_gpu(path, kernel.name, kernel.signature, kernel.constexprs, arch, kernel.num_warps)
    ptx, cubin = out["ptx"], out["cubin"]
    sm = next((line.split()[1] for line in ptx.splitlines() if line.startswith(".target")), f"sm_{arch}")
    regs = registers(cubin)
    blocks = ", ".join(f"{k}={v}" for k, v in kernel.constexprs.items())
    facts = (f"{kernel.kind} kernel, {sm}, {blocks}, num_warps={out['num_warps']}, shared={out['shared']} B, "
             f"registers={regs if regs is not None else 'unknown'}, grid=({kernel.grid},)")
    note = f"{profile.name} ({sm}): compiled by Triton {out['triton']} without a GPU; not run"
    made = [Artifact("source", kernel.source, f"Triton kernel for {len(region.bsyms)} symbols; {facts}"),
            Artifact("ptx", ptx, f"{note}; {facts}"),
            Artifact("cubin", bytes(cubin), f"{note}; {facts}")]
    with _LOCK:
        _AOT[key] = made
    return made
