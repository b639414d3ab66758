"""The systems compared by ``python -m benchmarks``: eager PyTorch, ``torch.compile``,
``thunder_core.jit`` (default executors and ``executors=["torch"]``) and Lightning Thunder's
``thunder.jit`` when an importable ``thunder`` is installed.

A system turns a function or module into a fresh callable (``prepare``) and, where it can,
counts how many times it compiled (``compiles``; cumulative, the suite takes differences).
"""

from __future__ import annotations

import contextlib
import importlib.util
import subprocess
import sys

import torch


class System:
    name = "?"
    description = ""

    def unavailable(self):
        """None when the system can run here, else the reason it is skipped."""
        return None

    def prepare(self, fn):
        raise NotImplementedError

    def compiles(self, obj):
        """Compiles so far (cumulative); None when the system cannot tell."""
        return None

    def settle(self, obj):
        """Wait until ``obj`` runs its steady state (compiles still running in the background
        after its first call have finished); the seconds waited, or None when the system
        never compiles in the background."""
        return None


class Eager(System):
    name = "eager"
    description = "PyTorch eager (the baseline of every ratio)"

    def prepare(self, fn):
        return fn


class TorchCompile(System):
    name = "torch.compile"
    description = "torch.compile, default mode (inductor)"

    def prepare(self, fn):
        import torch._dynamo

        torch._dynamo.reset()
        return torch.compile(fn)

    def compiles(self, obj):
        from torch._dynamo.utils import counters

        return int(counters["stats"]["unique_graphs"])  # graphs compiled (global counter)


@contextlib.contextmanager
def cold_compile_settings():
    """Inductor's on-disk caches off while the suite runs (so compile times are cold and do not
    depend on earlier runs; this covers tc.jit's inductor executor too), restored on exit, with
    dynamo's state (the suite may run inside a test session that uses torch.compile afterwards)."""
    import torch._inductor.config as inductor_config

    before = inductor_config.force_disable_caches
    inductor_config.force_disable_caches = True
    try:
        yield
    finally:
        inductor_config.force_disable_caches = before
        if "torch._dynamo" in sys.modules:
            sys.modules["torch._dynamo"].reset()


class TcJit(System):
    def __init__(self, executors=None):
        self.executors = executors
        self.name = "tc.jit" if executors is None else f"tc.jit[{','.join(executors)}]"

    @property
    def description(self):
        if self.executors is None:
            return f"thunder_core.jit, default executors (here: {', '.join(default_tc_executors()) or 'none'})"
        return f"thunder_core.jit(executors={self.executors!r})"

    def prepare(self, fn):
        import thunder_core as tc

        return tc.jit(fn, executors=self.executors)

    def compiles(self, obj):
        import thunder_core as tc

        return tc.cache_misses(obj)

    def settle(self, obj):
        import time

        import thunder_core as tc

        t = time.perf_counter()
        tc.wait_for_compiles()
        return time.perf_counter() - t


def default_tc_executors():
    """Names of the executors ``tc.jit(fn)`` uses here, preferred first."""
    from thunder_core import plugins

    chosen = [ex for ex in plugins.executors().values() if ex.unavailable() is None]
    chosen.sort(key=lambda ex: ex.name == "torch")  # as thunder_core.api: the per-op fallback last
    return [ex.name for ex in chosen]


_THUNDER_PROBE = "import thunder, sys; sys.exit(0 if callable(getattr(thunder, 'jit', None)) else 3)"


class LightningThunder(System):
    name = "thunder.jit"
    description = "Lightning Thunder (thunder.jit, its default executors)"

    def __init__(self):
        self._reason = None
        self._checked = False

    def unavailable(self):
        if not self._checked:
            self._checked = True
            self._reason = self._probe()
        return self._reason

    @staticmethod
    def _probe():
        try:
            if importlib.util.find_spec("thunder") is None:
                return "not installed: no module named 'thunder' in this environment"
        except Exception as e:  # noqa: BLE001 - a broken package can fail even here
            return f"import thunder failed: {type(e).__name__}: {e}"
        # Import it in a child process first: a package that fails half-way through its import
        # may have patched torch already, which would skew the other systems in this process.
        p = subprocess.run([sys.executable, "-c", _THUNDER_PROBE], capture_output=True, text=True, timeout=300)
        if p.returncode == 3:
            return "the importable 'thunder' module is not Lightning Thunder (it has no thunder.jit)"
        if p.returncode != 0:
            lines = [ln for ln in p.stderr.strip().splitlines() if ln.strip()]
            return f"import thunder failed: {lines[-1] if lines else f'exit code {p.returncode}'}"
        try:
            import thunder  # noqa: F401
        except Exception as e:  # noqa: BLE001
            return f"import thunder failed: {type(e).__name__}: {e}"
        return None

    def prepare(self, fn):
        import thunder

        return thunder.jit(fn)

    def compiles(self, obj):
        import thunder

        try:
            return int(thunder.cache_misses(obj))
        except Exception:  # noqa: BLE001
            return None


def all_systems():
    return [Eager(), TorchCompile(), TcJit(), TcJit(["torch"]), LightningThunder()]


def select(names=None):
    """The systems named (all when None), in the canonical order; unknown names are an error."""
    systems = all_systems()
    if names is None:
        return systems
    known = {s.name: s for s in systems}
    unknown = [n for n in names if n not in known]
    if unknown:
        raise SystemExit(f"unknown system(s) {', '.join(unknown)}; choose from {', '.join(known)}")
    chosen = [s for s in systems if s.name in names]
    if "eager" not in names:  # every ratio is to eager, and every output is checked against it
        chosen.insert(0, known["eager"])
    return chosen
