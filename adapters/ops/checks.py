"""What a doctor check is, how the checks become an exit code, and the plugin check (ADR 0032, ADR 0035).

A check is a name, a status (``ok``, ``warn`` or ``fail``), one line of detail and, unless it is
``ok``, what to do about it. Statuses map to ``hlmem doctor``'s exit code: 0 every check ok,
1 at least one warn (and no fail), 2 at least one fail.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from attrs import frozen

from hlmem.plugins.api import PLUGIN_API_VERSION
from hlmem.plugins.registry import PluginRow, Registry

OK, WARN, FAIL = "ok", "warn", "fail"
STATUSES = (OK, WARN, FAIL)
#: ``hlmem doctor``'s exit code per worst status.
EXIT_CODES = {OK: 0, WARN: 1, FAIL: 2}


@frozen
class Check:
    """One check's result. ``action`` is what to do (None when ``ok``)."""

    name: str
    status: str
    detail: str
    action: str | None = None

    def __attrs_post_init__(self) -> None:
        if self.status not in STATUSES:
            raise ValueError(f"check status must be one of {', '.join(STATUSES)}, not {self.status!r}")
        if self.status != OK and not self.action:
            raise ValueError(f"check {self.name!r} is {self.status} and must say what to do")

    def as_dict(self) -> dict[str, Any]:
        """The stable JSON shape (docs/operations.md): name, status, detail, action."""
        return {"name": self.name, "status": self.status, "detail": self.detail, "action": self.action}


def exit_code(checks: Iterable[Check]) -> int:
    """0 when every check is ok, 1 with a warning (no failure), 2 with a failure."""
    return max((EXIT_CODES[c.status] for c in checks), default=0)


def worst(statuses: Iterable[str]) -> str:
    """The worst of ``statuses`` (``ok`` for none)."""
    return max(statuses, key=EXIT_CODES.__getitem__, default=OK)


# -- plugins: the registry's rows and its start-up check ------------------------------------------------


def plugin_check(registry: Registry) -> Check:
    """The ``plugins`` check of a registry: its rows (``Registry.report()``, which imports only
    allowlisted entry points) and its start-up check (``Registry.check()``: enabled plugins that
    are missing, duplicated or invalid)."""
    return check_plugins(registry.report(), api_version=PLUGIN_API_VERSION, problem=registry.problem())


def check_plugins(rows: Sequence[PluginRow | Sequence[Any]], *, api_version: int | None = None,
                  problem: str | None = None) -> Check:
    """The ``plugins`` check over the registry's rows (``PluginRow`` or tuples in its field order:
    group, name, distribution, version, allowed, enabled, loaded, api_version, error) and the
    registry's start-up ``problem`` (an enabled plugin that was not found is in no row).

    fail: an enabled plugin that is not allowlisted, not found, not loaded, has an error, or
    declares another API version than ``api_version``; warn: a plugin that is allowed but
    failed to load although not enabled; ok otherwise. Plugins found but not allowlisted are
    counted (they are listed, never imported) and are not a problem.
    """
    plugins = [r if isinstance(r, PluginRow) else PluginRow(**dict(zip(_FIELDS, r))) for r in rows]
    problems: list[str] = []
    warnings: list[str] = []
    for p in plugins:
        label = f"{p.group}:{p.name} ({p.distribution} {p.version or '?'})"
        if p.enabled and not p.allowed:
            problems.append(f"{label} is enabled but not on the allowlist")
        elif p.enabled and p.error:
            problems.append(f"{label}: {p.error}")
        elif p.enabled and api_version is not None and p.api_version is not None and p.api_version != api_version:
            problems.append(f"{label} declares plugin API {p.api_version}, this hlmem speaks {api_version}")
        elif p.enabled and not p.loaded:
            problems.append(f"{label} is enabled but was not loaded")
        elif p.allowed and p.error:
            warnings.append(f"{label}: {p.error}")
    if problem is not None:  # the registry's own words cover every enabled plugin's problem, found or not
        problems = [problem]
    loaded = sum(p.loaded for p in plugins)
    ignored = sum(not p.allowed for p in plugins)
    summary = f"{len(plugins)} found, {loaded} loaded, {ignored} not allowlisted (never imported)"
    if problems:
        return Check("plugins", FAIL, f"{summary}; " + "; ".join(problems),
                     "fix [plugins] in hlmem.toml: allowlist (group, name, distribution), install the "
                     "distribution, or disable the plugin (docs/plugins.md)")
    if warnings:
        return Check("plugins", WARN, f"{summary}; " + "; ".join(warnings),
                     "reinstall or remove the plugin's distribution (docs/plugins.md)")
    return Check("plugins", OK, summary)


_FIELDS = ("group", "name", "distribution", "version", "allowed", "enabled", "loaded", "api_version", "error")
