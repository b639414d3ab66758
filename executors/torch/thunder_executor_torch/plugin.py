"""Entry point module of the thunder_core plugin (group ``thunder_core``, name ``torch``)."""

from thunder_core.execution.executor import Executor
from thunder_core.hookspecs import hookimpl

from . import __version__, implementations

THUNDER_CORE_API = 1


@hookimpl
def thunder_core_executors():
    from . import inductor

    return [Executor("inductor", lambda: {}, version=__version__, api_version=THUNDER_CORE_API,
                     unavailable=inductor.unavailable, dispatch_us=inductor.DISPATCH_US, claim=inductor.claim),
            # per-op overhead measured on a 2-core CPU (calibrate refines it per machine)
            Executor("torch", implementations, version=__version__, api_version=THUNDER_CORE_API,
                     dispatch_us=1.0)]
