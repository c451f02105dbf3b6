"""The built-in ``memory`` storage plugin (entry point ``hlmem.storage``: ``memory``)."""

from __future__ import annotations

from hlmem.adapters.inmemory.backend import memory_backend
from hlmem.adapters.inmemory.store import InMemoryStorage
from hlmem.application.ports.backend import Backend
from hlmem.plugins.api import PLUGIN_API_VERSION, PluginContext, PluginSpec


def _make(context: PluginContext) -> Backend:
    return memory_backend(new_id=context.new_id)


#: Everything in dicts, gone when the process ends: the store of ``Memory(":memory:")``.
MEMORY = PluginSpec("storage", PLUGIN_API_VERSION, _make, InMemoryStorage, "in-process store (path :memory:)")
