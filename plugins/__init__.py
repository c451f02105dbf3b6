"""Provider plugins: entry-point discovery behind an allowlist, checked at start-up (docs/plugins.md, ADR 0032).

:mod:`hlmem.plugins.api` is what a plugin author imports (``PluginSpec``, ``PluginContext``,
``PLUGIN_API_VERSION``); :mod:`hlmem.plugins.registry` finds, allowlists, loads and validates
entry points. This package imports only the standard library and :mod:`hlmem.application`.
"""
