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
            # CUDA, eager's host-side cost of one launch through the dispatcher (typical, not
            # measured here)
            Executor("torch", implementations, version=__version__, api_version=THUNDER_CORE_API,
                     dispatch_us={"cpu": 1.0, "cuda": 5.0}, fallback=True)]
