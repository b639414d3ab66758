"""Ahead-of-time compiles of generated kernels for a GPU target, without a GPU.

Where kernels run in Triton's interpreter (``TRITON_INTERPRET=1``, read when triton is
imported), every ``@triton.jit`` function, triton's own library included, is an interpreted
one and cannot be compiled for a GPU in that process. Compiles then run in one worker process
(``python -m thunder_executor_triton.aot``, started without the interpreter and kept for later
compiles; a plain subprocess, so the user's main module is never re-imported as
multiprocessing's spawn would), and otherwise here.

Nothing in this module imports triton at import time: the worker must set its environment
before triton loads.
"""

from __future__ import annotations

import atexit
import importlib.util
import os
import pickle
import subprocess
import sys
import threading

_WORKER: list = []
_LOCK = threading.Lock()


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


def _worker() -> subprocess.Popen:
    if _WORKER and _WORKER[0].poll() is None:
        return _WORKER[0]
    env = dict(os.environ, TRITON_INTERPRET="0", PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    env.setdefault("TRITON_DEFAULT_FP_FUSION", "1")  # Triton 3.9's default, without its warning
    proc = subprocess.Popen([sys.executable, "-m", "thunder_executor_triton.aot"], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, env=env)
    _WORKER[:] = [proc]
    return proc


@atexit.register
def _stop_worker():
    for proc in _WORKER:
        proc.stdin.close()  # the worker's loop ends at EOF
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        proc.stdout.close()
    _WORKER.clear()


def compile_for_gpu(path: str, name: str, signature: dict, constexprs: dict, arch: int, num_warps: int) -> dict:
    import triton

    if not triton.knobs.runtime.interpret:
        return compile_file(path, name, signature, constexprs, arch, num_warps)
    with _LOCK:
        proc = _worker()
        pickle.dump((path, name, signature, constexprs, arch, num_warps), proc.stdin)
        proc.stdin.flush()
        try:
            ok, result = pickle.load(proc.stdout)
        except EOFError:
            raise RuntimeError(f"the Triton compile worker exited (status {proc.wait()})") from None
    if not ok:
        raise RuntimeError(f"compiling {name} ({path}) for sm_{arch} failed in the worker: {result}")
    return result


def _serve(stdout):
    """The worker's loop: one pickled request in, one pickled (ok, result) out."""
    stdin = sys.stdin.buffer
    while True:
        try:
            request = pickle.load(stdin)
        except EOFError:
            return
        try:
            reply = (True, compile_file(*request))
        except Exception as e:  # noqa: BLE001  (reported to the parent)
            reply = (False, f"{type(e).__name__}: {e}")
        pickle.dump(reply, stdout)
        stdout.flush()


if __name__ == "__main__":
    replies = sys.stdout.buffer
    sys.stdout = sys.stderr  # anything printed while compiling must not corrupt the replies
    _serve(replies)
