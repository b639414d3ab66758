"""thunder_core: a source-to-source compiler for PyTorch programs.

``import thunder_core`` must work without torch (the bytecode interpreter in
``thunder_core.frontend`` is standard library only), so everything that needs torch is
imported lazily on first attribute access.
"""

__version__ = "0.1.0.dev0"

# Names of the public surface (shared/DESIGN.md) that live in torch-dependent modules.
# They are resolved on first access; a name listed here that has no module yet raises
# AttributeError with a clear message instead of failing at import time.
_LAZY: dict[str, str] = {
    name: ".api" for name in ("jit", "last_traces", "last_backward_traces", "last_prologue_traces", "cache_hits",
                              "cache_misses", "explain", "wait_for_compiles")
}
_LAZY["hookimpl"] = ".hookspecs"
_LAZY["plan"] = _LAZY["Plan"] = ".planning"  # (a module named plan would shadow tc.plan once imported)
_LAZY["SharpEdgeError"] = _LAZY["SharpEdgeWarning"] = ".sharp_edges"


def __getattr__(name: str):
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'thunder_core' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(module, __name__), name)
    globals()[name] = value
    return value
