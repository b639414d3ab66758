"""The namespace of primitives: ``prims.<name>`` in printed traces.

Populated by ``registry.prim`` from the ``prims_*.py`` modules; every attribute is a
primitive :class:`~thunder_core.ir.Symbol` whose id is ``"prims.<name>"``."""
