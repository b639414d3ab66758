"""What an executor is, to the core.

An :class:`Executor` is a name plus a table of implementations keyed by symbol id. For
this stage of the project an executor takes every bound symbol it has an implementation for;
the cost-model claims over regions (issue 4) replace this with competing claims.
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
    """

    name: str
    implementations: Callable[[], Mapping[str, Callable]]
    version: str = "0"
    api_version: int = 1
    unavailable: Callable[[], str | None] = field(default=lambda: None)

    def __repr__(self):
        return f"<Executor {self.name} {self.version}>"
