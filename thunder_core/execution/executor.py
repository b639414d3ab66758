"""What an executor is, to the core: :class:`Executor`.

An executor is a name, a table of implementations keyed by symbol id (each entry is also a
claim on that symbol alone, costed with the executor's per-call overhead), optional checkers
that decline what an implementation cannot handle, and optionally a ``claim`` function
offering fused regions. The partitioner (partition.py) picks the cheapest cover.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Mapping

from .claims import Checker, ClaimFn


def _no_table():
    return {}


def _available():
    return None


@dataclass(frozen=True)
class Executor:
    """An executor, as a plugin returns it from ``thunder_core_executors``.

    :param name: the name users pass in ``executors=[...]``.
    :param implementations: ``() -> {symbol id: callable}``: each callable runs the symbol
        from its call in the trace (positional inputs, static keywords). Called when
        partitioning, so symbols registered after the executor are seen.
    :param version: the executor's distribution version.
    :param api_version: the plugin API major version it was written for
        (``thunder_core.extend.API_VERSION``).
    :param unavailable: ``() -> reason or None``: why it cannot run on this machine (library
        missing, no device), or None. ``tc.jit`` skips it when not named, refuses it when
        named; ``doctor`` shows the reason.
    :param device_types: the torch device types it compiles for. ``tc.plan(target=...)`` uses
        the executors whose device types include the target's: it runs nothing, so
        ``unavailable`` (which is about running here) does not matter there.
    :param can_plan: optional ``(profile) -> reason or None``: why it cannot plan for that
        target although it compiles for its device type (e.g. the library that builds its
        artifacts is missing); ``supports`` consults it after ``device_types``.
    :param dispatch_us: its per-call overhead in µs the cost model adds to each call it makes
        (one symbol, or one region): a number, or ``{device type or profile name: µs}``
        (``{"cpu": 1.0, "cuda": 6.0}``; a profile name wins over its device type).
        ``calibrate`` measures it on this machine and the measurement wins.
    :param checkers: ``() -> {symbol id: checker}``: a checker ``(bound_symbol) -> None or
        reason`` says whether this executor can run that call (dtypes, devices, shapes it
        supports). The partitioner consults it for single-symbol claims and for every symbol
        of a region claim; a declined claim and its reason show in ``tc.explain``.
    :param check: a checker applied to every symbol this executor claims (e.g. "only CUDA
        tensors"), before the per-symbol ones.
    :param claim: optional :class:`~thunder_core.execution.claims.ClaimFn`:
        ``claim(bsyms, ctx) -> iterable of Claim`` offering regions of the list ``bsyms``.
    :param fuses: True when its regions keep intermediates out of memory (a fusing
        executor). Autograd then lets the backward recompute cheap elementwise forward values
        instead of saving them (the min-cut of transforms/remat.py), because a recomputed op
        inside a fused backward costs no memory traffic. Default False.
    :param fallback: True for an executor that implements every symbol of the op language
        one call at a time (PyTorch eager), so that a cover of any trace exists. With
        ``executors=None`` (and in ``tc.plan``) fallbacks come after the others, so ties go to
        specialised executors; an explicit ``executors=[...]`` keeps the user's order.
    :param artifacts: optional ``(region, profile) -> iterable of Artifact``: what it can
        produce for a region ahead of time without a device (PTX, cubin, validated graphs,
        fusion definitions); ``tc.plan`` collects them.
    :param compiles: True when lowering its claims compiles (seconds, as ``torch.compile``
        does). ``tc.jit`` then never waits for it: a region it won runs op by op with the
        fallback executor's implementations while ``claim.lower(region)`` runs on a background
        thread, with ``region.example_inputs`` set from the region's first call; when ``lower``
        returns, its callable replaces the per-op tier for every later call (``tc.explain``
        shows which tier runs each region). ``lower`` must return a callable that is ready to
        run: a compiler that compiles on first call should call it once on
        ``region.example_inputs`` inside ``lower``. ``tc.jit(..., wait_for_compile=True)``
        compiles on the region's first call instead and runs it compiled, as it does when no
        fallback executor is among the executors. Default False.
    :param differentiable: True when each implementation, called with grad mode on, is
        recorded by PyTorch's autograd like the PyTorch op it implements (its implementations
        are PyTorch ops). A small trace that needs gradients may then run op by op under
        PyTorch's autograd instead of as a forward and a backward trace, when that is estimated
        to cost less (``execution/autograd_choice.py``); only differentiable executors run it.
        Default False (a region compiled on its own, a library kernel called directly).
    """

    name: str
    implementations: Callable[[], Mapping[str, Callable]] = _no_table
    version: str = "0"
    api_version: int = 1
    unavailable: Callable[[], str | None] = _available
    device_types: tuple[str, ...] = ("cpu", "cuda")
    can_plan: Callable | None = None
    dispatch_us: float | Mapping[str, float] = 5.0
    checkers: Callable[[], Mapping[str, Checker]] = _no_table
    check: Checker | None = None
    claim: ClaimFn | None = None
    fuses: bool = False
    fallback: bool = False
    artifacts: Callable | None = None
    compiles: bool = False
    differentiable: bool = False

    def overhead_us(self, target) -> float:
        """The declared per-call overhead on device profile ``target``."""
        d = self.dispatch_us
        if not isinstance(d, Mapping):
            return float(d)
        for key in (target.name, target.device_type, "default"):
            if key in d:
                return float(d[key])
        raise ValueError(f"executor {self.name!r} declares no dispatch_us for {target.name} "
                         f"({target.device_type}); give a 'default' entry.")

    def supports(self, target) -> str | None:
        """None if it can compile for device profile ``target``, else the reason."""
        if target.device_type not in self.device_types:
            return f"runs on {', '.join(self.device_types)}, not {target.device_type}"
        return self.can_plan(target) if self.can_plan is not None else None

    def __repr__(self):
        return f"<Executor {self.name} {self.version}>"
