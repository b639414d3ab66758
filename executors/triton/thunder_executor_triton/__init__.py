"""thunder_core's ``triton`` executor: regions of the trace as generated ``@triton.jit`` kernels.

``plugin`` (the entry point) declares the Executor; ``ops`` holds the per-primitive Triton
templates; ``codegen`` turns a region into kernel source; ``kernels`` compiles, caches,
launches (under ``TRITON_INTERPRET=1`` on a CPU) and compiles ahead of time for a GPU target.
"""

__version__ = "0.1.0.dev0"
