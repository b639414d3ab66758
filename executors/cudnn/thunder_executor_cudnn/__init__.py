"""thunder_core's ``cudnn`` executor: attention and normalizations as cuDNN frontend graphs.

``plugin`` (the entry point) declares the Executor; ``specs`` reads a bound symbol into what
it asks for (or why cuDNN cannot run it); ``graphs`` builds the frontend graphs for a spec,
once per structure; ``claim`` and ``cost`` offer and price claims; ``aot`` validates graphs
ahead of time for ``tc.plan``; ``runtime`` executes them on a GPU.
"""

__version__ = "0.1.0.dev0"
