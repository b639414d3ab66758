"""Compiling, caching and launching generated kernels; ahead-of-time PTX/cubin for tc.plan.

Generated sources are written to files in a private temporary directory (Triton reads a
kernel's source with ``inspect``) and imported from there, once per region structure
(``region_key``), device type and variant: two regions of the same structure (one per
transformer layer) share one kernel.

A region with symbolic sizes is lowered once per trace: its launcher computes the size
arguments from each call's inputs (:meth:`~.sizes.Dims.resolver`), picks the kernel variant
those sizes need (generated and cached on first use) and the launch parameters, so new sizes
never retrace the program. A call whose sizes need a variant the generator declines (looped
rows with a reduction over all rows: a norm's weight gradient over rows longer than one
program holds) runs the region with torch's kernels instead, the executor's own fallback
behind the same cache. Triton's own JIT specialises integer arguments (divisibility by 16)
and constexprs (block sizes) behind its cache.
"""

from __future__ import annotations

import importlib.util
import os
import struct
import tempfile
import threading

import torch

from thunder_core.extend import python_impls, region_callable, region_key, torch_impls

from .codegen import generate
from .ops import Unsupported
from .tuning import autotune_configs, autotune_enabled, target_for_device, target_for_profile

_LOCK = threading.Lock()
_DIR: list = []
_JIT: dict = {}      # (region_key, device type, variant) -> jitted function
_AOT: dict = {}      # (region_key, variant, target name, launch) -> [Artifact]

#: device profile name -> GPUTarget arch; Triton 3.9 turns 90 into sm_90a and 100 into sm_100a
ARCH = {"a100": 80, "h100": 90, "b200": 100}


def source_dir() -> str:
    if not _DIR:
        _DIR.append(tempfile.mkdtemp(prefix="thunder_triton_kernels_"))
    return _DIR[0]


def jitted(kernel, key):
    """The ``@triton.jit`` function of a generated kernel, imported once per ``key``."""
    with _LOCK:
        fn = _JIT.get(key)
        if fn is None:
            path = os.path.join(source_dir(), f"region_{len(_JIT)}.py")
            with open(path, "w") as f:
                f.write(kernel.source)
            spec = importlib.util.spec_from_file_location(f"thunder_triton_region_{len(_JIT)}", path)
            module = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(module)
            fn = _JIT[key] = getattr(module, kernel.name)
    return fn


def _device(p) -> torch.device:
    return torch.device(str(p.device))


class _Variant:
    """A kernel variant of one lowered region: its function and how to size its arguments."""

    def __init__(self, kernel, key):
        self.kernel, self.fn = kernel, jitted(kernel, (*key, kernel.variant))
        self.resolve = kernel.dims.resolver() if kernel.dims.symbolic else None
        self.size_names = [name for name, _ in kernel.dims.args()]


def lower(region):
    """The callable launching ``region``'s kernel: takes ``region.inputs`` (tensors and
    numbers), returns the tuple of ``region.outputs``, allocated here."""
    device = _device(region.outputs[0])
    target = target_for_device(device)
    key = (region_key(region), device.type)
    first = _Variant(generate(region, device.type), key)
    variants = {first.kernel.variant: first}
    dtypes = [p.dtype for p in region.outputs]
    static = first.resolve is None
    if static:  # everything fixed now: the per-call work is allocating and launching
        fixed = first.kernel.launch({}, target)
        fixed_shapes = [tuple(first.kernel.dims.product([k], {}) for k in s) for s in first.kernel.outputs]
    interpreted = device.type == "cpu"
    if interpreted:
        import numpy

    def launch(*inputs):
        if static:
            v, sizes, params, shapes = first, {}, fixed, fixed_shapes
        else:
            sizes = first.resolve(inputs)
            variant = first.kernel.choose(sizes, target)
            v = variants.get(variant)
            if v is None:
                try:
                    v = variants[variant] = _Variant(generate(region, device.type, variant), key)
                except Unsupported:  # no kernel for these sizes: torch's kernels run the region
                    v = variants[variant] = region_callable(region, {**torch_impls(), **python_impls()})
            if callable(v):
                return v(*inputs)
            if v is not first:
                sizes = v.resolve(inputs)
            params = v.kernel.launch(sizes, target)
            shapes = [tuple(v.kernel.dims.product([k], sizes) for k in s) for s in v.kernel.outputs]
        results = [torch.empty(s, dtype=d, device=device) for s, d in zip(shapes, dtypes)]
        if not all(params.grid):
            return tuple(results)
        args = [t.contiguous() for t in inputs if isinstance(t, torch.Tensor)]
        args += results
        # every program writes its row of the workspace before it is read; counters start at 0
        args += [(torch.zeros if dt == torch.int32 else torch.empty)(n, dtype=dt, device=device)
                 for n, dt in params.workspace]
        args += [sizes[name] for name in v.size_names]
        args += params.scalars
        if autotune_enabled():
            run = _autotuned(v, params, sizes, target, cpu_bench if interpreted else None)
        else:
            run = v.fn[params.grid]
            args.append(params.constexprs)
        if interpreted:  # masked-off lanes may compute log(0) and such: NumPy need not warn
            with numpy.errstate(all="ignore"):
                _call(run, args, params)
        else:
            _call(run, args, params)
        return tuple(results)

    launch.__name__ = region.name or "triton_region"
    launch.kernel = first.kernel
    return launch


def _call(run, args, params) -> None:
    if args and isinstance(args[-1], dict):  # the heuristics' block sizes
        run(*args[:-1], **args[-1], num_warps=params.num_warps)
    else:
        run(*args)


def cpu_bench(kernel_call, quantiles=None):
    """A stand-in for Triton's CUDA-event timer under the interpreter (wall time of one run),
    so the autotuning path can be exercised without a GPU."""
    import time

    start = time.perf_counter()
    kernel_call()
    ms = (time.perf_counter() - start) * 1e3
    return [ms, ms, ms] if quantiles else ms


def _autotuned(v, params, sizes, target, do_bench=None):
    """``triton.autotune`` over the kernel's configs (:func:`~.tuning.autotune_configs`):
    Triton benchmarks them on the first launch of each size (``key``: the size arguments) and
    caches the fastest; the grid follows each config's block sizes. Used with
    THUNDER_TRITON_AUTOTUNE=1. On a GPU Triton times with CUDA events: NOT run here (no GPU);
    the tests run it under the interpreter with a CPU timer (``do_bench``)."""
    import triton

    tuned = v.__dict__.setdefault("_tuned", {})
    key = (params.grid, tuple(sorted(params.constexprs.items())), params.num_warps)
    if key not in tuned:
        configs = autotune_configs(v.kernel.family, {**params.constexprs, "num_warps": params.num_warps})
        names = list(params.constexprs)
        reset = ["cnt"] if "cnt" in v.kernel.signature else None
        fn = triton.autotune([triton.Config({k: c[k] for k in names}, num_warps=c["num_warps"]) for c in configs],
                             key=v.size_names, reset_to_zero=reset, do_bench=do_bench)(v.fn)
        grid = v.kernel.launch

        tuned[key] = lambda *args: fn[lambda meta: grid(sizes, target, {k: meta[k] for k in names}).grid](*args)
    return tuned[key]


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
    PTX and cubin Triton compiles for that GPU (an explicit GPUTarget: no device needed). With
    symbolic sizes the kernel takes them as arguments: one cubin serves every size whose
    block sizes are those of this trace's sizes."""
    from thunder_core.extend import Artifact

    from .aot import compile_for_gpu

    kernel = generate(region, "cuda")
    target = target_for_profile(profile)
    sizes = kernel.dims.hints()
    params = kernel.launch(sizes, target)
    key = (region_key(region), kernel.variant, profile.name, repr(params))
    with _LOCK:
        made = _AOT.get(key)
        if made:
            return made
        path = os.path.join(source_dir(), f"aot_{len(_AOT)}_{profile.name}.py")
        _AOT[key] = None  # reserves the file name
    with open(path, "w") as f:
        f.write(kernel.source)
    arch = ARCH.get(profile.name, 90)
    out = compile_for_gpu(path, kernel.name, kernel.signature, params.constexprs, arch, params.num_warps)
    ptx, cubin = out["ptx"], out["cubin"]
    sm = next((line.split()[1] for line in ptx.splitlines() if line.startswith(".target")), f"sm_{arch}")
    regs = registers(cubin)
    blocks = ", ".join(f"{k}={v}" for k, v in params.constexprs.items())
    symbolic = ""
    if sizes:
        symbolic = "; sizes as arguments (" + ", ".join(f"{n}={sizes[n]} here" for n in sizes) + ")"
    configs = autotune_configs(kernel.family, {**params.constexprs, "num_warps": params.num_warps})
    facts = (f"{kernel.describe}, {sm}, {blocks}, num_warps={out['num_warps']}, shared={out['shared']} B, "
             f"registers={regs if regs is not None else 'unknown'}, grid={params.grid}{symbolic}")
    note = f"{profile.name} ({sm}): compiled by Triton {out['triton']} without a GPU; not run"
    tune = ("autotune configs for a GPU (THUNDER_TRITON_AUTOTUNE=1; not run here): "
            + "; ".join(", ".join(f"{k}={v}" for k, v in c.items()) for c in configs))
    made = [Artifact("source", kernel.source, f"Triton kernel for {len(region.bsyms)} symbols; {facts}"),
            Artifact("ptx", ptx, f"{note}; {facts}"),
            Artifact("cubin", bytes(cubin), f"{note}; {facts}"),
            Artifact("autotune", tune, f"{len(configs)} configs around the heuristic choice")]
    with _LOCK:
        _AOT[key] = made
    return made
