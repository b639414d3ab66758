"""thunder_core's ``nvfuser`` executor: fusible regions of a trace as nvFuser ``FusionDefinition``s.

``plugin`` (the entry point) declares the Executor; ``ops`` holds the per-primitive
translation table; ``translate`` walks a region down to primitives and emits them to a
builder (a recorder that only checks, or a real definition); ``layout`` describes inputs
with contiguity and stride order; ``definition`` builds ``FusionDefinition``s with
``nvfuser_direct``; ``runtime`` caches and executes them; ``aot`` gives ``tc.plan`` each
region's printed definition and fusion math; ``claim`` decides what to claim.
"""

__version__ = "0.1.0.dev0"
