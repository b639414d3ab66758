"""The namespace of torch-level symbols: ``ltorch.<name>`` in printed traces.

Populated by ``registry.torch_op``; every attribute is a :class:`~thunder_core.ir.Symbol`
whose id is ``"ltorch.<name>"``."""
