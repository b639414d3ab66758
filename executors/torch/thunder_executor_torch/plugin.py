"""Entry point module of the thunder_core plugin (group ``thunder_core``, name ``torch``)."""

from thunder_core.extend import API_VERSION, Executor, hookimpl

from . import __version__, implementations

THUNDER_CORE_API = API_VERSION


@hookimpl
def thunder_core_executors():
    from . import inductor

    return [Executor("inductor", version=__version__, api_version=THUNDER_CORE_API, unavailable=inductor.unavailable,
                     dispatch_us=inductor.DISPATCH_US, claim=inductor.claim, fuses=True, compiles=True),
            # per-op overhead: measured on a 2-core CPU (calibrate refines it per machine); on
            # CUDA, the host-side cost of one op through the dispatcher beyond the profile's
            # 3 µs launch: an 8-element torch.add took 10.5-10.8 µs on an H100 (torch 2.11,
            # 2026-11-27)
            Executor("torch", implementations, version=__version__, api_version=THUNDER_CORE_API,
                     dispatch_us={"cpu": 1.0, "cuda": 8.0}, fallback=True, differentiable=True)]
