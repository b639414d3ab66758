"""Finding plugins: the ``thunder_core`` entry-point group, loaded into one :class:`Registry`.

The registry owns a pluggy ``PluginManager`` and every table derived from the plugins
(executors, lookasides, transforms, VJP rules, sharp-edge checkers), each computed on first
use and kept until the set of plugins changes. ``registry()`` is the current one;
``reload()`` drops it (the next ``registry()`` reads the entry points again);
``register(plugin, name)`` / ``unregister(name)`` add or remove a plugin at runtime. Other
modules that derive tables of their own from the plugins keep them with
``Registry.cached`` so one of these calls is all it takes to change what ``tc.jit`` sees.

Hooks are called through pluggy, ``pm.hook.<name>()``, once per table: pluggy calls the
latest registered plugin first, a ``tryfirst``/``trylast`` hookimpl moves ahead of or behind
the others, and hookwrappers see (and may change) the collected results. Entry points are
registered in reverse, so they are called the core's own first, then by entry-point name;
a plugin registered at runtime comes before them.

A plugin that fails to import, targets another API major version or raises in a hook is
disabled with a :class:`PluginWarning` naming it (and reported by ``doctor``); the others go
on, and ``import thunder_core`` never fails because of a plugin. Two plugins giving one name
(executor, transform, lookaside, checker, VJP rule) is an error naming both distributions.
Those are the rare paths: only there are hookimpls called one plugin at a time, to find
the culprit.
"""

from __future__ import annotations

import importlib.metadata
import sys
import warnings
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Callable

import pluggy

from . import hookspecs

__all__ = ["PluginWarning", "PluginRecord", "Registry", "RUNTIME", "registry", "reload", "register", "unregister",
           "executors", "executors_with_plugins", "lookasides", "transforms", "vjp_rules", "sharp_edge_checkers",
           "define_symbols"]

#: ``PluginRecord.distribution`` of a plugin added with :func:`register`.
RUNTIME = "(registered at runtime)"


class PluginWarning(UserWarning):
    """A plugin was disabled; the message says which and why."""


@dataclass
class PluginRecord:
    """One plugin as the registry knows it.

    :param name: its entry-point name (or the name given to :func:`register`).
    :param distribution: the distribution that installed it, or :data:`RUNTIME`.
    :param version: that distribution's version (a runtime plugin's ``__version__``, else "?").
    :param module: the plugin object (a module, or whatever was registered); None if it failed to import.
    :param problem: why it is disabled, or None while it is enabled.
    """

    name: str
    distribution: str
    version: str
    module: object | None
    problem: str | None = None


_EXECUTORS = "thunder_core_executors"
_SYMBOLS = "thunder_core_symbols"

# Symbols live in the op language's global tables, which have no removal, so a plugin's
# thunder_core_symbols runs once per process whichever registry calls it: _SYMBOLS_DEFINED
# maps id -> the plugin object (kept alive so its id stays its own). _symbols_wanted is set
# once thunder_core.ops has asked for plugin symbols; from then on a new registry or a
# runtime plugin defines its symbols straight away.
_SYMBOLS_DEFINED: dict[int, object] = {}
_symbols_wanted = False


class Registry:
    """The plugins of this process and every table derived from them.

    Tables are computed on first use, through one pluggy call per hook, and kept until
    :meth:`register`, :meth:`unregister` or a plugin being disabled changes the plugins.
    Read them, don't change them (they are read-only mappings).

    :param entry_points: read the ``thunder_core`` entry-point group now (False: start empty,
        e.g. to assemble a registry of runtime plugins only).

    **Example**::

        from thunder_core import plugins

        reg = plugins.registry()
        reg.executors["torch"]            # an Executor
        reg.executor_plugins["torch"]     # the PluginRecord of the plugin that provides it
        [r.name for r in reg.records if r.problem]   # disabled plugins
    """

    def __init__(self, entry_points: bool = True):
        self.pm = pluggy.PluginManager("thunder_core")
        self.pm.add_hookspecs(hookspecs)
        self._records: dict[str, PluginRecord] = {}
        self._memo: dict = {}
        if entry_points:
            self._load_entry_points()

    # ------------------------------------------------------------------ the plugins

    @property
    def records(self) -> tuple[PluginRecord, ...]:
        """Every plugin found, enabled or not: the core's own, then by entry-point name, then
        runtime plugins in the order registered."""
        return tuple(self._records.values())

    def register(self, plugin, name: str | None = None) -> PluginRecord:
        """Add a plugin at runtime; the tables derived from the plugins are computed afresh.

        :param plugin: a module or any object holding ``@thunder_core.hookimpl`` functions
            named after the hooks (``thunder_core/hookspecs.py``). It may declare
            ``THUNDER_CORE_API``. Pluggy calls it before the plugins registered earlier
            (``@hookimpl(tryfirst=True)``/``trylast=True`` to move ahead of or behind all of them).
        :param name: the plugin's name (``unregister`` takes it); default: ``plugin.__name__``.
        :return: its :class:`PluginRecord` (``distribution`` is :data:`RUNTIME`).
        :raises ValueError: the name or the object is registered already, or the plugin was
            written for another plugin API version.
        :raises pluggy.PluginValidationError: a hookimpl's signature does not match its hook.

        If the op language is loaded already, the plugin's ``thunder_core_symbols`` runs now.
        Two plugins giving one name is an error when the table is next used.

        **Example**::

            from thunder_core import hookimpl, plugins

            class Lookasides:
                @hookimpl
                def thunder_core_lookasides(self):
                    return {slow_fn: lambda I, args, kwargs: I.call(fast_fn, args, kwargs)}

            plugins.register(Lookasides(), "fast-fn")
            ...                                  # tc.jit traces fast_fn wherever slow_fn is called
            plugins.unregister("fast-fn")
        """
        name = name or getattr(plugin, "__name__", None) or self.pm.get_canonical_name(plugin)
        if name in self._records:
            raise ValueError(f"A thunder_core plugin named {name!r} is registered already "
                             f"({self._records[name].distribution}): unregister it first or choose another name.")
        api = getattr(plugin, "THUNDER_CORE_API", hookspecs.API_VERSION)
        if api != hookspecs.API_VERSION:
            raise ValueError(f"thunder_core plugin {name!r} was written for plugin API {api}, this thunder_core "
                             f"has {hookspecs.API_VERSION}.")
        self.pm.register(plugin, name=name)   # raises for an object registered already, or a bad hookimpl
        record = self._records[name] = PluginRecord(name, RUNTIME, str(getattr(plugin, "__version__", "?")), plugin)
        self._changed()
        if _symbols_wanted:
            self.define_symbols()
        return record

    def unregister(self, name: str) -> PluginRecord:
        """Remove a plugin (an entry point's or a runtime one, enabled or disabled); the
        tables derived from the plugins are computed afresh. Symbols it defined stay defined.

        :param name: its name (``PluginRecord.name``).
        :return: its :class:`PluginRecord`.
        :raises ValueError: no plugin has that name.

        **Example**::

            plugins.unregister("fast-fn")
        """
        record = self._records.pop(name, None)
        if record is None:
            raise ValueError(f"No thunder_core plugin is named {name!r}. Plugins: {', '.join(self._records)}.")
        if not self.pm.unblock(name) and self.pm.has_plugin(name):
            self.pm.unregister(name=name)
        self._changed()
        return record

    # ------------------------------------------------------------------ derived tables

    @property
    def executors(self) -> Mapping:
        """name -> :class:`~thunder_core.execution.executor.Executor`, of every enabled
        plugin (available here or not), in pluggy's call order."""
        return self.cached("executors", Registry._executors)

    @property
    def executor_plugins(self) -> Mapping:
        """executor name -> the :class:`PluginRecord` of the plugin that provides it (None if
        it cannot be told: a hookwrapper made it up). Found by calling each plugin's hook
        alone, so only when asked for (``doctor`` does)."""
        return self.cached("executor_plugins", Registry._executor_plugins)

    @property
    def lookasides(self) -> Mapping:
        """callable -> replacement, of every enabled plugin (the core's own included); asked
        of the plugins again once the program has imported more modules (``per_imports``)."""
        return self.cached("lookasides", Registry._lookasides, per_imports=True)

    @property
    def transforms(self) -> Mapping:
        """name -> transform, of every enabled plugin."""
        return self.cached("transforms", Registry._transforms)

    @property
    def vjp_rules(self) -> Mapping:
        """symbol id -> VJP rule, of every enabled plugin."""
        return self.cached("vjp_rules", Registry._vjp_rules)

    @property
    def sharp_edge_checkers(self) -> Mapping:
        """name -> SharpEdgeChecker, of every enabled plugin (the core's own included)."""
        return self.cached("sharp_edge_checkers", Registry._sharp_edge_checkers)

    def cached(self, key, compute: Callable[[Registry], object], per_imports: bool = False):
        """``compute(self)``, computed once and kept until the plugins change: for tables
        other modules derive from the plugins (capture's lookasides merged with torch's).

        :param key: names the table (e.g. ``"capture.lookasides"``); one key, one table.
        :param compute: ``compute(registry) -> table``.
        :param per_imports: also compute it again when ``sys.modules`` has changed in size: for
            tables derived from the lookasides, which a plugin may give for a library only
            once the program has imported it (the hookspec ``thunder_core_lookasides``).
        :return: the table.
        """
        if per_imports:
            hit = self._memo.get(key)
            if hit is not None and hit[0] == len(sys.modules):
                return hit[1]
            value = compute(self)
            self._memo[key] = (len(sys.modules), value)  # (counted after: computing may import)
            return value
        try:
            return self._memo[key]
        except KeyError:
            value = compute(self)
            self._memo[key] = value
            return value

    def define_symbols(self) -> None:
        """Let every enabled plugin define its symbols (hook ``thunder_core_symbols``), each
        once per process. A plugin that raises is disabled with a warning."""
        global _symbols_wanted
        _symbols_wanted = True
        while True:
            done = [p for p in self.pm.get_plugins() if p is not None and id(p) in _SYMBOLS_DEFINED]
            hook = self.pm.subset_hook_caller(_SYMBOLS, done)
            impls = hook.get_hookimpls()
            if not impls:
                return
            try:
                hook()
            except Exception as e:  # noqa: BLE001 - a broken plugin must not break the others
                # Defining symbols has effects, so the culprit is found from the traceback, not
                # by calling hookimpls again; those pluggy called before it have run.
                culprit = _raiser(impls, e)
                if culprit is None:
                    raise
                order = impls[::-1]   # pluggy's call order
                for impl in order[:order.index(culprit)]:
                    _SYMBOLS_DEFINED[id(impl.plugin)] = impl.plugin
                self._disable(culprit.plugin_name, f"{_SYMBOLS} raised {type(e).__name__}: {e}")
                continue
            for impl in impls:
                _SYMBOLS_DEFINED[id(impl.plugin)] = impl.plugin
            return

    # ------------------------------------------------------------------ internals

    def _load_entry_points(self):
        # The core's own plugins (thunder_core/builtin/) are entry points of the thunder-core
        # distribution like everyone else's (pyproject.toml), loaded first; nothing in the core
        # imports them, so they sit at the top of its layering.
        found = sorted(importlib.metadata.entry_points(group="thunder_core"),
                       key=lambda ep: (_distribution(ep) != "thunder-core", ep.name))
        if not any(_distribution(ep) == "thunder-core" for ep in found):
            warnings.warn("thunder_core's own plugins (thunder_core.builtin) are not registered: the thunder-core "
                          "distribution is not installed. Install it (pip install -e . in a checkout) so tc.jit has "
                          "its built-in lookasides and sharp-edge checkers.", PluginWarning, stacklevel=3)
        loaded = []
        for ep in found:
            record = PluginRecord(ep.name, _distribution(ep), ep.dist.version if ep.dist else "?", None)
            self._records[ep.name] = record
            try:
                record.module = ep.load()
            except Exception as e:  # noqa: BLE001 - any failure disables only this plugin
                self._problem(record, f"import failed: {type(e).__name__}: {e}",
                              f"failed to import and is disabled: {type(e).__name__}: {e}")
                continue
            api = getattr(record.module, "THUNDER_CORE_API", hookspecs.API_VERSION)
            if api != hookspecs.API_VERSION:
                problem = api_mismatch(api, record.distribution, record.version)
                self._problem(record, problem, f"is disabled (it makes no claims): {problem}.")
                continue
            loaded.append(record)
        for record in reversed(loaded):   # pluggy calls the last registered first
            try:
                self.pm.register(record.module, name=record.name)
            except Exception as e:  # noqa: BLE001 - e.g. a hookimpl whose signature does not match its hook
                self._problem(record, f"could not be registered: {e}", f"is disabled: {e}")
        self._changed()
        if _symbols_wanted:
            self.define_symbols()

    def _problem(self, record, problem, message):
        record.problem = problem
        origin = "registered at runtime" if record.distribution == RUNTIME else f"{record.distribution} {record.version}"
        warnings.warn(f"thunder_core plugin {record.name!r} ({origin}) {message}", PluginWarning, stacklevel=4)

    def _changed(self):
        self._memo.clear()

    def _record(self, name) -> PluginRecord:
        record = self._records.get(name)
        if record is None:   # registered on self.pm directly
            record = self._records[name] = PluginRecord(name, RUNTIME, "?", self.pm.get_plugin(name))
        return record

    def _disable(self, name, problem):
        record = self._record(name)
        self.pm.set_blocked(name)
        self._changed()
        self._problem(record, problem, f"is disabled: {problem} (none of its hooks is called now).")

    def _call(self, hook_name) -> list:
        """The results of ``pm.hook.<hook_name>()``. If it raises, every plugin whose hookimpl
        raises alone (or, failing that, the one in the traceback) is disabled, and the hook is
        called again without it."""
        while True:
            try:
                return getattr(self.pm.hook, hook_name)()
            except Exception as e:  # noqa: BLE001 - a broken plugin must not break the others
                culprits = []
                for name in self._implementers(hook_name):
                    try:
                        self._alone(hook_name, name)
                    except Exception as alone:  # noqa: BLE001
                        culprits.append((name, alone))
                if not culprits:
                    impl = _raiser(getattr(self.pm.hook, hook_name).get_hookimpls(), e)
                    if impl is None:
                        raise
                    culprits.append((impl.plugin_name, e))
                for name, err in culprits:
                    self._disable(name, f"{hook_name} raised {type(err).__name__}: {err}")

    def _implementers(self, hook_name) -> list[str]:
        """Names of the plugins implementing the hook, in pluggy's call order."""
        return list(dict.fromkeys(i.plugin_name for i in reversed(getattr(self.pm.hook, hook_name).get_hookimpls())))

    def _alone(self, hook_name, name) -> list:
        """The hook's results with only the plugin ``name`` (for the rare paths)."""
        others = [p for n, p in self.pm.list_name_plugin() if n != name and p is not None]
        return self.pm.subset_hook_caller(hook_name, others)()

    def _results_by_plugin(self, hook_name):
        """(record, results of its hookimpl alone) of every plugin implementing the hook."""
        for name in self._implementers(hook_name):
            try:
                yield self._record(name), self._alone(hook_name, name)
            except Exception:  # noqa: BLE001 - _call disables it when the hook is next called
                continue

    def _providers(self, hook_name, key) -> list[PluginRecord]:
        return [r for r, results in self._results_by_plugin(hook_name) if any(key in _keys(x) for x in results)]

    def _unique(self, hook_name, what, pairs) -> Mapping:
        """A read-only {key: value} of (key, value) pairs; a repeated key is an error naming the
        plugins that give it."""
        out = {}
        for key, value in pairs:
            if key in out:
                who = [f"{r.distribution} (plugin {r.name!r})" for r in self._providers(hook_name, key)]
                which = (f"one from {who[0]}, one from {who[1]}" if len(who) > 1 else f"both from {who[0]}" if who
                         else "their plugins cannot be told apart (a hookwrapper added them)")
                raise RuntimeError(f"Two {what} are named {key!r}: {which}. Uninstall (or unregister) one of them.")
            out[key] = value
        return MappingProxyType(out)

    def _merged(self, hook_name, what) -> Mapping:
        found = self._call(hook_name)
        return self._unique(hook_name, what, ((k, v) for d in found for k, v in (d or {}).items()))

    def _lookasides(self):
        return self._merged("thunder_core_lookasides", "lookasides")

    def _transforms(self):
        return self._merged("thunder_core_transforms", "transforms")

    def _vjp_rules(self):
        return self._merged("thunder_core_vjp_rules", "VJP rules")

    def _sharp_edge_checkers(self):
        hook, what = "thunder_core_sharp_edge_checkers", "sharp-edge checkers"
        return self._unique(hook, what, ((c.name, c) for cs in self._call(hook) for c in cs or ()))

    def _executors(self) -> Mapping:
        def pairs():
            for exs in self._call(_EXECUTORS):
                for ex in exs or ():
                    if ex.api_version == hookspecs.API_VERSION:
                        yield ex.name, ex
                        continue
                    who = ", ".join(r.distribution for r in self._providers(_EXECUTORS, ex.name)) or "a plugin"
                    warnings.warn(f"executor {ex.name!r} of {who} targets plugin API {ex.api_version}, this "
                                  f"thunder_core has {hookspecs.API_VERSION}; it is disabled.", PluginWarning)
        return self._unique(_EXECUTORS, "executors", pairs())

    def _executor_plugins(self) -> Mapping:
        owners = {}
        for record, results in self._results_by_plugin(_EXECUTORS):
            for name in (n for exs in results for n in _keys(exs)):
                owners.setdefault(name, record)
        return MappingProxyType({name: owners.get(name) for name in self.executors})


def _keys(result) -> list:
    """The names a hook result gives: a dict's keys, a list's items' ``name``."""
    if isinstance(result, Mapping):
        return list(result)
    return [getattr(x, "name", None) for x in result or ()]


def _raiser(impls, exc):
    """The hookimpl whose function is innermost in ``exc``'s traceback, or None."""
    by_code = {getattr(i.function, "__code__", None): i for i in impls}
    found, tb = None, exc.__traceback__
    while tb is not None:
        found = by_code.get(tb.tb_frame.f_code, found)
        tb = tb.tb_next
    return found


def api_mismatch(api, distribution: str, version: str) -> str:
    """Why a plugin written for plugin API ``api`` cannot be used, naming both versions and
    what to upgrade."""
    from . import __version__

    mine = f"thunder-core {__version__} speaks plugin API {hookspecs.API_VERSION}"
    if isinstance(api, int) and api > hookspecs.API_VERSION:
        fix = "upgrade thunder-core"
    else:
        fix = f"upgrade {distribution} to a release for plugin API {hookspecs.API_VERSION}, or install an older " \
              f"thunder-core"
    return f"{distribution} {version} was written for plugin API {api}, {mine}: {fix}"


def _distribution(ep) -> str:
    return ep.dist.name if ep.dist else "?"


# ---------------------------------------------------------------------- the current registry

_current: Registry | None = None


def registry() -> Registry:
    """The current :class:`Registry`, created (reading the entry points) on first use.

    :return: the registry every ``tc.jit`` consults.

    **Example**::

        from thunder_core import plugins

        sorted(plugins.registry().executors)   # ['inductor', 'torch', ...]
    """
    reg = _current
    return reg if reg is not None else _create()


def _create() -> Registry:
    global _current
    # Made current before the entry points load: a plugin that imports thunder_core.ops
    # (which asks for plugin symbols) finds this registry, not a second one.
    reg = _current = Registry(entry_points=False)
    reg._load_entry_points()
    return reg


def reload() -> None:
    """Forget the current registry: the next :func:`registry` reads the entry points again
    (plugins installed or uninstalled since, or a test's fake entry points), and every
    table derived from the plugins is computed afresh. Runtime plugins are dropped.

    **Example**::

        plugins.reload()
        plugins.registry().executors   # entry points read again
    """
    global _current
    _current = None


def register(plugin, name: str | None = None) -> PluginRecord:
    """Add a plugin to the current registry at runtime: see :meth:`Registry.register`.

    :param plugin: a module or object holding ``@thunder_core.hookimpl`` functions.
    :param name: its name (default ``plugin.__name__``), for :func:`unregister`.
    :return: its :class:`PluginRecord`.

    **Example**::

        import my_plugin                      # a module with @hookimpl functions
        plugins.register(my_plugin, "mine")
    """
    return registry().register(plugin, name)


def unregister(name: str) -> PluginRecord:
    """Remove a plugin from the current registry: see :meth:`Registry.unregister`.

    :param name: the plugin's name.
    :return: its :class:`PluginRecord`.

    **Example**::

        plugins.unregister("mine")
    """
    return registry().unregister(name)


# Thin functions over the current registry, each returning a new dict (callers may change it).

def executors() -> dict:
    """name -> Executor, for every executor of every enabled plugin (available here or not)."""
    return dict(registry().executors)


def executors_with_plugins() -> dict:
    """name -> (Executor, the PluginRecord that provided it)."""
    reg = registry()
    owners = reg.executor_plugins
    return {name: (ex, owners.get(name)) for name, ex in reg.executors.items()}


def lookasides() -> dict:
    """callable -> replacement, from every enabled plugin (built-ins included)."""
    return dict(registry().lookasides)


def transforms() -> dict:
    """name -> transform, from every enabled plugin."""
    return dict(registry().transforms)


def vjp_rules() -> dict:
    """symbol id -> VJP rule, from every enabled plugin."""
    return dict(registry().vjp_rules)


def sharp_edge_checkers() -> dict:
    """name -> SharpEdgeChecker from every enabled plugin (built-ins included)."""
    return dict(registry().sharp_edge_checkers)


def define_symbols() -> None:
    """Let every enabled plugin define its symbols (thunder_core_symbols), once per process."""
    registry().define_symbols()
