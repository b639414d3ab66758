"""Output effects of Python calls, made on every call of a jitted function: ``print``,
``warnings.warn`` and ``logging`` (logger methods and the module-level functions, ``exc_info``
included: the exception handled while tracing is the one every call handles there).

While tracing, such a call is not made: it is recorded (an ``effect-call`` event, in program
order with the other writes) and the epilogue makes it after the computation on every call,
the first one included, with the run-time values of its arguments (tensors among them are
the computed tensors, so ``print(x)`` shows this call's ``x``). What eager derives from the
caller's frame is taken from the user's frame seen while tracing: a warning's filename and
line (and its ``stacklevel``), a log record's pathname, line and function name; filters,
levels and handlers are consulted at run time, as eager does.
"""

from __future__ import annotations

import functools
import logging
import os
import warnings

from .. import hookspecs
from ..frontend import events as ev


def _site(I, up: int = 1, skip=None):
    """(filename, line, function name, module globals) of the interpreted frame ``up`` levels
    from the innermost (1: the frame making the call; frames of the file ``skip`` do not count,
    as logging skips its own), or of the outermost one if there are fewer (the jitted function's
    own caller is not known while tracing)."""
    frames = I.frames
    n = len(frames)
    if skip is not None:
        while n > 1 and os.path.normcase(frames[n - 1].info.code.co_filename) == skip:
            n -= 1
    f = frames[max(n - max(up, 1), 0)]
    code = f.info.code
    return code.co_filename, f.lineno, code.co_name, f.globals


def _record(I, replay, args, kwargs):
    # ``replay`` is a constant of the epilogue (with the user's site bound into it); args and
    # kwargs are values of this call (rebuilt on every call: computed tensors, fetched objects)
    f = I.frames[-1]
    site = (f.info.code.co_filename, f.lineno, f.info.site_name)
    I.events.append(ev.Event(ev.CALL, None, replay, (tuple(args), dict(kwargs)), site))


def _print(I, args, kwargs):
    _record(I, print, args, kwargs)


def warn_at(filename, lineno, module_globals, message, category=None, stacklevel=1, source=None, **kw):
    """``warnings.warn`` as made from ``filename:lineno`` (the user's line seen while
    tracing): the same message, category, filters and once-per-location registry."""
    if isinstance(message, Warning):
        category = message.__class__
    elif category is None:
        category = UserWarning
    registry = module_globals.setdefault("__warningregistry__", {})
    warnings.warn_explicit(message, category, filename, lineno, module=module_globals.get("__name__"),
                           registry=registry, module_globals=module_globals, source=source)


def _warn(I, args, kwargs):
    stacklevel = kwargs.get("stacklevel", args[2] if len(args) > 2 else 1)
    filename, line, _, globals_ = _site(I, stacklevel if isinstance(stacklevel, int) else 1)
    _record(I, functools.partial(warn_at, filename, line, globals_), args, kwargs)


def log_at(logger, msg, *args, level, pathname, lineno, func, exc_info=None, extra=None, stack_info=False,
           stacklevel=1):
    """``logger.log(level, msg, *args)`` as made from the user's line seen while tracing
    (``Logger._log`` with the caller's frame known): the level check, record and handlers
    happen now. ``logger`` None: the root logger, configured on first use as the module-level
    ``logging.info`` does."""
    if logger is None:
        if not logging.root.handlers:
            logging.basicConfig()
        logger = logging.root
    if not logger.isEnabledFor(level):
        return
    sinfo = None
    if stack_info:
        sinfo = f"Stack (most recent call last):\n  File \"{pathname}\", line {lineno}, in {func}"
    record = logger.makeRecord(logger.name, level, pathname, lineno, msg, args, exc_info, func, extra, sinfo)
    logger.handle(record)


_LEVELS = {"debug": logging.DEBUG, "info": logging.INFO, "warning": logging.WARNING, "warn": logging.WARNING,
           "error": logging.ERROR, "critical": logging.CRITICAL, "fatal": logging.CRITICAL}


def _logger_method(level):
    def look(I, args, kwargs):
        logger, *rest = args
        _log(I, logger, level, rest, kwargs)
    return look


def _logger_log(I, args, kwargs):
    logger, level, *rest = args
    _log(I, logger, level, rest, kwargs)


def _module_function(level):
    def look(I, args, kwargs):
        _log(I, None, level, list(args), kwargs)
    return look


def _module_log(I, args, kwargs):
    level, *rest = args
    _log(I, None, level, rest, kwargs)


def _exc_info(I, exc_info):
    """``exc_info`` as ``Logger._log`` resolves it, now: the exception being handled exists only
    while tracing, and on every call it is this one (the trace took the same path to it)."""
    if isinstance(exc_info, BaseException):
        return type(exc_info), exc_info, exc_info.__traceback__
    if isinstance(exc_info, tuple):
        return exc_info
    e = I.topmost_exception()
    return (None, None, None) if e is None else (type(e), e, e.__traceback__)


def _log(I, logger, level, rest, kwargs):
    site = {}
    if kwargs.get("exc_info"):  # bound into the replay, like the user's line: a constant of the epilogue
        kwargs = dict(kwargs)
        site["exc_info"] = _exc_info(I, kwargs.pop("exc_info"))
    stacklevel = kwargs.get("stacklevel", 1)
    pathname, line, func, _ = _site(I, stacklevel if isinstance(stacklevel, int) else 1, logging._srcfile)
    _record(I, functools.partial(log_at, level=level, pathname=pathname, lineno=line, func=func, **site),
            (logger, *rest), kwargs)


@hookspecs.hookimpl
def thunder_core_lookasides():
    table = {print: _print, warnings.warn: _warn, logging.Logger.log: _logger_log, logging.log: _module_log}
    for name, level in _LEVELS.items():
        for owner, make in ((logging.Logger, _logger_method), (logging, _module_function)):
            fn = getattr(owner, name, None)  # (logging.warn is gone in Python 3.13)
            if fn is not None:
                table[fn] = make(level)
    return table
