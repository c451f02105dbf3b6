"""The built-in ``memory`` storage plugin (entry point ``hlmem.storage``: ``memory``)."""

from __future__ import annotations

from hlmem.adapters.inmemory.store import InMemoryStorage
from hlmem.plugins.api import PLUGIN_API_VERSION, PluginContext, PluginSpec


def _make(context: PluginContext) -> InMemoryStorage:
    return InMemoryStorage()


#: Everything in dicts, gone when the process ends: the store of ``Memory(":memory:")``.
MEMORY = PluginSpec("storage", PLUGIN_API_VERSION, _make, InMemoryStorage, "in-process store (path :memory:)")
