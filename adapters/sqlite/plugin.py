"""The built-in ``sqlite`` storage plugin (entry point ``hlmem.storage``: ``sqlite``)."""

from __future__ import annotations

from hlmem.adapters.sqlite.store import SQLiteStorage
from hlmem.application.ports.backend import Backend
from hlmem.plugins.api import PLUGIN_API_VERSION, PluginContext, PluginSpec


def _make(context: PluginContext) -> Backend:
    from hlmem.adapters.sqlite.backend import open_backend

    return open_backend(context.store_path, synchronous=context.synchronous, new_id=context.new_id)


#: One SQLite file (APSW, WAL): the default for every path but ``:memory:``.
SQLITE = PluginSpec("storage", PLUGIN_API_VERSION, _make, SQLiteStorage, "one SQLite file (APSW, WAL)")
