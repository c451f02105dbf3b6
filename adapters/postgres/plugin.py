"""The ``postgres`` storage plugin (entry point ``hlmem.storage``: ``postgres``; extra ``hlmem[postgres]``).

The store's path is a libpq connection URL (``postgresql://user@host:5432/db``); docs/postgres.md.
"""

from __future__ import annotations

from hlmem.adapters.postgres.store import PostgresStorage
from hlmem.application.ports.backend import Backend
from hlmem.plugins.api import PLUGIN_API_VERSION, PluginContext, PluginSpec


def _make(context: PluginContext) -> Backend:
    from hlmem.adapters.postgres.backend import open_backend

    return open_backend(context.store_path, new_id=context.new_id)


#: A PostgreSQL database with pgvector: many processes, one store.
POSTGRES = PluginSpec("storage", PLUGIN_API_VERSION, _make, PostgresStorage,
                      "a PostgreSQL database with pgvector (postgresql://…; hlmem[postgres])")
