"""The composition root's side of the plugin registry: one registry per settings, and building a role's adapter.

The container calls these; the registry itself (hlmem.plugins) knows neither settings nor adapters.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hlmem.adapters.settings_sections import ENTRY_POINT_GROUPS, PluginSettings
from hlmem.plugins.api import PluginError
from hlmem.plugins.registry import Registry

__all__ = ["build_plugin", "make_plugin_registry", "only_enabled"]


def make_plugin_registry(settings: PluginSettings | None = None) -> Registry:
    """A registry of the four groups with ``settings``' allowlist, enabled plugins and options.

    Discovery reads metadata only (cached per process while ``sys.path`` is unchanged).
    """
    settings = settings or PluginSettings()
    return Registry(ENTRY_POINT_GROUPS, allow=settings.allow, enabled=settings.enabled, options=settings.options)


def build_plugin(registry: Registry, kind: str, name: str | None, *, settings: Mapping[str, Any] | None = None,
                 **context: Any) -> object | None:
    """The adapter of plugin ``name`` of ``kind`` (None for ``none``): the registry checks, the factory builds.

    :param settings: the role's plain mapping (LLM and reranker); None values are dropped.
    :param context: the other :class:`~hlmem.plugins.api.PluginContext` fields.
    """
    if name is None or name == "none":
        return None
    plain = {k: v for k, v in (settings or {}).items() if v is not None}
    return registry.build(kind, name, settings=plain, **context)


def only_enabled(registry: Registry, kind: str, setting: str) -> str | None:
    """The plugin of ``kind`` chosen by being the only one enabled (the role's setting is unset).

    :param setting: how messages name the role's setting (``HLMEM_RERANK``).
    :raises PluginError: several are enabled (the setting must choose).
    """
    names = registry.enabled(kind)
    if len(names) > 1:
        raise PluginError(f"several {kind} plugins are enabled ({', '.join(names)}) and {setting} does not say "
                          f"which to use; set it to one of them")
    return names[0] if names else None
