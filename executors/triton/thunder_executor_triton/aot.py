"""Ahead-of-time compiles of generated kernels for a GPU target, without a GPU.

Where kernels run in Triton's interpreter (``TRITON_INTERPRET=1``, read when triton is
imported), every ``@triton.jit`` function, triton's own library included, is an interpreted
one and cannot be compiled for a GPU in that process. Compiles then run in one worker process
started without the interpreter (and kept for later compiles); otherwise here.

Nothing in this module imports triton at import time: the worker must set its environment
before triton loads.
"""

from __future__ import annotations

import importlib.util
import os
import threading

_POOL: list = []
_LOCK = threading.Lock()


def _worker_init():
    os.environ["TRITON_INTERPRET"] = "0"
    os.environ.setdefault("TRITON_DEFAULT_FP_FUSION", "1")  # Triton 3.9's default, without its warning


def compile_file(path: str, name: str, signature: dict, constexprs: dict, arch: int, num_warps: int) -> dict:
    """Compile kernel ``name`` of the source file ``path`` for ``sm_<arch>``: its PTX, cubin and
    metadata, as plain data."""
    import triton
    from triton.backends.compiler import GPUTarget

    spec = importlib.util.spec_from_file_location(f"thunder_triton_aot_{abs(hash(path))}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    src = triton.compiler.ASTSource(fn=getattr(module, name), signature=signature, constexprs=constexprs)
    compiled = triton.compile(src, target=GPUTarget("cuda", arch, 32), options={"num_warps": num_warps})
    md = compiled.metadata
    return {"ptx": compiled.asm["ptx"], "cubin": bytes(compiled.asm["cubin"]), "shared": md.shared,
            "num_warps": md.num_warps, "name": md.name, "triton": triton.__version__}


def compile_for_gpu(path: str, name: str, signature: dict, constexprs: dict, arch: int, num_warps: int) -> dict:
    import triton

    if not triton.knobs.runtime.interpret:
        return compile_file(path, name, signature, constexprs, arch, num_warps)
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    with _LOCK:
        if not _POOL:
            _POOL.append(ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn"),
                                             initializer=_worker_init))
        pool = _POOL[0]
    return pool.submit(compile_file, path, name, signature, constexprs, arch, num_warps).result()
