"""What an executor is, to the core.

An :class:`Executor` is a name, a table of implementations keyed by symbol id (each entry is
also a claim on that symbol alone, costed with ``dispatch_us``), and optionally a ``claim``
function offering fused regions. The partitioner (partition.py) picks the cheapest cover.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Mapping


@dataclass(frozen=True)
class Executor:
    """:param name: the name users pass in ``executors=[...]`` (``"torch"``).
    :param implementations: ``() -> {symbol id: callable}``; called when lowering (so ops
        registered later, e.g. opaque ones, are seen).
    :param version: the executor's distribution version.
    :param api_version: the core plugin API major version it was written for.
    :param unavailable: ``() -> reason or None``; a non-None reason means it cannot run here.
    :param dispatch_us: per-op overhead (µs) the cost model charges each symbol it runs alone.
    :param claim: optional ``claim(bsyms, cost_model, last_use) -> [Claim]`` offering
        regions of the list ``bsyms`` (``last_use``: id(proxy) -> last position reading it,
        ``len(bsyms)`` if needed after; ``claims.region_boundary`` uses it to find a
        region's inputs and outputs).
    """

    name: str
    implementations: Callable[[], Mapping[str, Callable]]
    version: str = "0"
    api_version: int = 1
    unavailable: Callable[[], str | None] = field(default=lambda: None)
    dispatch_us: float = 5.0
    claim: Callable | None = None

    def __repr__(self):
        return f"<Executor {self.name} {self.version}>"
