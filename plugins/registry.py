"""The plugin registry: which entry points may be imported, which are enabled, and the loaded, checked specs.

The allowlist is checked on (group, name, distribution) *before* ``EntryPoint.load()``: an entry
point that is not allowed is listed and never imported. Built-ins (distribution ``hlmem``) are
allowed by default; any other distribution needs an ``[plugins] allow`` entry (docs/plugins.md).
:meth:`Registry.check` is the start-up check: every enabled plugin is found, allowed and valid,
and no two allowed entry points share a (group, name).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from hlmem.application.ports.backend import Backend
from hlmem.plugins.api import KINDS, PLUGIN_API_VERSION, PluginContext, PluginError, PluginSpec
from hlmem.plugins.builtin import BUILTIN_DISTRIBUTION
from hlmem.plugins.contract import missing_members
from hlmem.plugins.discovery import Found, canonical, installed

__all__ = ["PluginRow", "Registry"]


@dataclass(frozen=True)
class PluginRow:
    """One line of :meth:`Registry.report` (``hlmem plugins list``, ``hlmem doctor``).

    :param loaded: the spec was imported and passed every check; ``error`` says why not.
    :param api_version: the spec's declared version (None: not loaded).
    """

    group: str
    name: str
    distribution: str
    version: str
    allowed: bool
    enabled: bool
    loaded: bool
    api_version: int | None
    error: str | None
    description: str = ""


class Registry:
    """Entry points of the plugin groups, the allowlist and what is enabled.

    :param groups: kind -> entry-point group (``ENTRY_POINT_GROUPS``: taken as data, so this
        package does not import the adapters).
    :param allow: third-party entries, each with ``group``, ``name`` and ``distribution``.
    :param enabled: names to load at start-up: ``name`` or ``group:name`` (group as a kind or
        a group name).
    :param options: per-plugin options, keyed as in ``enabled``.
    :param found: what discovery found (default: :func:`~hlmem.plugins.discovery.installed`;
        tests pass entry points they built).
    """

    def __init__(self, groups: Mapping[str, str], *, allow: Collection[Any] = (), enabled: Sequence[str] = (),
                 options: Mapping[str, Mapping[str, Any]] | None = None,
                 found: Sequence[Found] | Callable[[], Sequence[Found]] | None = None) -> None:
        unknown = sorted(set(groups) - set(KINDS))
        if unknown:
            raise PluginError(f"unknown plugin kind(s) {', '.join(unknown)}; known: {', '.join(KINDS)}")
        self.groups = MappingProxyType(dict(groups))
        self._allow = {(a.group, a.name, canonical(a.distribution)) for a in allow}
        self._enabled = tuple(enabled)
        self._options = MappingProxyType(dict(options or {}))
        if found is None:
            self.found = tuple(installed(self.groups))
        else:
            self.found = tuple(found() if callable(found) else found)
        self._specs: dict[tuple[str, str, str], PluginSpec] = {}
        self._errors: dict[tuple[str, str, str], str] = {}

    # -- what is there ------------------------------------------------------------------------

    def is_allowed(self, found: Found) -> bool:
        """Built-ins, and entries whose (group, name, distribution) is on the allowlist."""
        return canonical(found.distribution) == canonical(BUILTIN_DISTRIBUTION) or \
            (found.group, found.name, canonical(found.distribution)) in self._allow

    def names(self, kind: str) -> list[str]:
        """The names found for ``kind`` (allowed or not), for messages."""
        return sorted({f.name for f in self.found if f.kind == kind})

    def has(self, kind: str, name: str) -> bool:
        """Whether an entry point ``name`` of ``kind`` was found (allowed or not)."""
        return any(f.kind == kind and f.name == name for f in self.found)

    def _kind(self, text: str) -> str | None:
        if text in self.groups:
            return text
        return next((k for k, g in self.groups.items() if g == text), None)

    def _parse(self, entry: str) -> tuple[str | None, str]:
        group, sep, name = entry.strip().rpartition(":")
        return (self._kind(group) if sep else None), name

    def _resolve_enabled(self, entry: str) -> list[Found]:
        kind, name = self._parse(entry)
        return [f for f in self.found if f.name == name and (kind is None or f.kind == kind)]

    def enabled(self, kind: str) -> list[str]:
        """The names of ``kind`` that ``[plugins] enabled`` names (found ones only)."""
        out: list[str] = []
        for entry in self._enabled:
            for f in self._resolve_enabled(entry):
                if f.kind == kind and f.name not in out:
                    out.append(f.name)
        return out

    def _is_enabled(self, found: Found) -> bool:
        return any(found in self._resolve_enabled(e) for e in self._enabled)

    def options(self, kind: str, name: str) -> Mapping[str, Any]:
        """The ``[plugins.options.NAME]`` table of a plugin (``name`` or ``kind:name`` key)."""
        for key, table in self._options.items():
            k, n = self._parse(key)
            if n == name and k in (None, kind):
                return MappingProxyType(dict(table))
        return MappingProxyType({})

    # -- loading and checking -----------------------------------------------------------------

    def _candidates(self, kind: str, name: str) -> Found:
        matching = [f for f in self.found if f.kind == kind and f.name == name]
        group = self.groups[kind]
        if not matching:
            known = ", ".join(self.names(kind)) or "none"
            raise PluginError(f"no {kind} plugin named {name!r} (entry-point group {group}); found: {known}. "
                              f"Install the distribution that provides it, or fix the name")
        allowed = [f for f in matching if self.is_allowed(f)]
        if len(allowed) > 1:
            raise PluginError(self._duplicate_message(group, name, allowed))
        if not allowed:
            f = matching[0]
            raise PluginError(
                f"{kind} plugin {name!r} from distribution {f.distribution} {f.version} is installed but not "
                f"allowed, so it was not imported; to trust it add "
                f'{{group = "{group}", name = "{name}", distribution = "{f.distribution}"}} to [plugins] allow')
        return allowed[0]

    @staticmethod
    def _duplicate_message(group: str, name: str, found: Sequence[Found]) -> str:
        dists = ", ".join(f"{f.distribution} {f.version}" for f in found)
        return (f"two allowed entry points are named {name!r} in {group} ({dists}); keep one allowed "
                f"(remove the other's [plugins] allow entry or uninstall it)")

    def _load(self, found: Found) -> PluginSpec:
        key = (found.group, found.name, canonical(found.distribution))
        if key in self._specs:
            return self._specs[key]
        if key in self._errors:
            raise PluginError(self._errors[key])
        try:
            spec = self._validate(found, self._import(found))
        except PluginError as exc:
            self._errors[key] = str(exc)
            raise
        self._specs[key] = spec
        return spec

    @staticmethod
    def _import(found: Found) -> object:
        if not found.entry_point.module:
            raise PluginError(f"entry point {found.group}:{found.name} of distribution {found.distribution} "
                              f"has no module in its value {found.entry_point.value!r}; it must be 'module:SPEC'")
        try:
            return found.entry_point.load()
        except Exception as exc:  # anything a plugin's import raises is the plugin's failure
            raise PluginError(
                f"could not import {found.kind} plugin {found.name!r} from distribution {found.distribution} "
                f"{found.version} (module {found.entry_point.module}): {type(exc).__name__}: {exc}; fix or "
                f"reinstall that distribution, or take the plugin out of [plugins] enabled") from exc

    @staticmethod
    def _validate(found: Found, spec: object) -> PluginSpec:
        where = f"{found.kind} plugin {found.name!r} from distribution {found.distribution} {found.version}"
        if not isinstance(spec, PluginSpec):
            raise PluginError(f"{where}: its entry point {found.entry_point.value!r} names a "
                              f"{type(spec).__name__}, not a hlmem.plugins.api.PluginSpec; point the entry point "
                              f"at a PluginSpec object (docs/plugins.md)")
        if spec.api_version != PLUGIN_API_VERSION:
            raise PluginError(f"{where} was written for plugin API version {spec.api_version!r}, but this hlmem "
                              f"speaks version {PLUGIN_API_VERSION}; install a release of the plugin made for "
                              f"API {PLUGIN_API_VERSION}")
        if spec.kind != found.kind:
            raise PluginError(f"{where} says it is a {spec.kind!r} plugin but is registered in {found.group} "
                              f"(kind {found.kind!r}); register it in the group of its kind")
        if not callable(spec.factory):
            raise PluginError(f"{where}: its factory {spec.factory!r} is not callable")
        if not isinstance(spec.implements, type):
            raise PluginError(f"{where}: implements must be the adapter's class, not {spec.implements!r}")
        if missing := missing_members(spec.implements, found.kind):
            raise PluginError(f"{where}: {spec.implements.__qualname__} does not satisfy the {found.kind} port; "
                              f"it lacks {', '.join(missing)}")
        return spec

    def spec(self, kind: str, name: str) -> PluginSpec:
        """The loaded, checked spec of plugin ``name`` of ``kind``.

        :raises PluginError: not found, not allowed, a duplicate, an import failure or a bad spec.
        """
        return self._load(self._candidates(kind, name))

    def check(self) -> None:
        """The start-up check: no duplicate (group, name) among allowed entry points, and every
        enabled plugin found, allowed, importable and valid (imported now, not at first use).

        :raises PluginError: listing every problem found.
        """
        problem = self.problem()
        if problem is not None:
            raise PluginError(problem)

    def problem(self) -> str | None:
        """What :meth:`check` would raise, as text (None: start-up would pass); for reports."""
        problems: list[str] = []
        by_key: dict[tuple[str, str], list[Found]] = {}
        for f in self.found:
            if self.is_allowed(f):
                by_key.setdefault((f.group, f.name), []).append(f)
        problems += [self._duplicate_message(g, n, fs) for (g, n), fs in by_key.items() if len(fs) > 1]
        for entry in self._enabled:
            kind, name = self._parse(entry)
            kinds = sorted({f.kind for f in self._resolve_enabled(entry)})
            if not kinds:
                where = f"{kind} plugin" if kind else "plugin"
                problems.append(f"[plugins] enabled names {entry!r} but no {where} {name!r} is installed "
                                f"(groups: {', '.join(self.groups.values())}); install it or remove it from enabled")
                continue
            if kind is None and len(kinds) > 1:
                problems.append(f"[plugins] enabled names {entry!r}, which is a plugin of several kinds "
                                f"({', '.join(kinds)}); write kind:name, e.g. {kinds[0]}:{name}")
                continue
            try:
                self.spec(kinds[0], name)
            except PluginError as exc:
                if str(exc) not in problems:
                    problems.append(str(exc))
        if not problems:
            return None
        return problems[0] if len(problems) == 1 else f"{len(problems)} plugin problems: " + "; ".join(problems)

    def build(self, kind: str, name: str, **context: Any) -> object:
        """Build plugin ``name``'s adapter: ``spec.factory(PluginContext(...))``.

        :param context: the :class:`~hlmem.plugins.api.PluginContext` fields other than
            ``name`` and ``options`` (which come from the registry).
        :raises PluginError: as :meth:`spec`, or when the factory returns something that is not
            an instance of the spec's ``implements`` (a storage plugin: not a :class:`Backend`
            whose ``store`` is one, ADR 0074).
        """
        spec = self.spec(kind, name)
        made = spec.factory(PluginContext(name=name, options=self.options(kind, name), **context))
        adapter = made
        if kind == "storage":
            if not isinstance(made, Backend):
                _close_quietly(made)
                raise PluginError(f"storage plugin {name!r}: its factory returned a {type(made).__name__}, not a "
                                  "Backend; a storage plugin builds the whole backend (the store with its job "
                                  "queue, budget ledger, call ledger, heartbeats and replay target, all shared by "
                                  "every process of the store: ADR 0074); fix the plugin's factory")
            adapter = made.store
        if not isinstance(adapter, spec.implements):
            raise PluginError(f"{kind} plugin {name!r}: its factory returned a {type(made).__name__}, not the "
                              f"{spec.implements.__qualname__} its spec declares; fix the plugin's factory")
        return made

    # -- reporting ----------------------------------------------------------------------------

    def report(self, *, load: bool = True) -> list[PluginRow]:
        """One row per entry point found, in group then name order. Never raises for a plugin.

        :param load: import and check every *allowed* entry point to fill ``loaded``,
            ``api_version`` and ``error`` (entry points that are not allowed are never imported).
        """
        rows = []
        for f in self.found:
            allowed = self.is_allowed(f)
            spec, error = None, None
            key = (f.group, f.name, canonical(f.distribution))
            if allowed and (load or key in self._specs or key in self._errors):
                try:
                    spec = self._load(f)
                except PluginError as exc:
                    error = str(exc)
            elif not allowed:
                error = "not allowed: listed, never imported"
            rows.append(PluginRow(f.group, f.name, f.distribution, f.version, allowed, self._is_enabled(f),
                                  spec is not None, None if spec is None else spec.api_version, error,
                                  "" if spec is None else spec.description))
        return rows


def _close_quietly(made: object) -> None:
    """Close what a refused factory made (it may hold a connection); its error is not the news."""
    close = getattr(made, "close", None)
    if callable(close):
        try:
            close()
        except Exception:  # noqa: BLE001 - the refusal is what the caller needs to see
            pass
