"""Restore a store from a backup with this configuration's tombstones enforced on the copy (docs/backup.md)."""

from __future__ import annotations

import os
from typing import Any

from hlmem.adapters.di import providers

from hlmem.adapters.arguments import Timestamp, when
from hlmem.adapters.container import Container
from hlmem.adapters.sqlite.restore import RestoreInfo
from hlmem.application.experience_forget import BothEnforcers
from hlmem.domain.errors import UnsupportedOperation

__all__ = ["refuse_postgres", "reopen", "restore_store", "restore_with"]


def restore_store(path: str | os.PathLike[str], backup: str | os.PathLike[str], *, force: bool = False,
                  actor: str = "user", reason: str = "", now: Timestamp = None,
                  namespace: str = "default") -> RestoreInfo:
    """Restore the store at ``path`` from ``backup`` without opening it first: the store may be
    missing (disaster recovery) or unreadable (with ``force``). See :meth:`Memory.restore`."""
    refuse_postgres(str(path), "restore")
    fixed = when(now, "now")
    container = Container()
    container.config.from_dict({
        "storage": {"kind": "sqlite", "path": str(path), "synchronous": "FULL"},
        "clock": {"kind": "fixed" if fixed else "system", "at": fixed},
        "embedder": {"name": "none"}, "llm": {"kind": "none", "settings": {}}, "dedup": {"audit": False},
        "provenance": {"mode": "enforce"}, "worker": {"owner": "restore"},
    })
    return restore_with(container, str(path), backup, force=force, actor=actor, reason=reason, namespace=namespace)


def restore_with(container: Container, path: str, backup: str | os.PathLike[str], *, force: bool, actor: str,
                 reason: str, namespace: str) -> RestoreInfo:
    """Restore ``path`` from ``backup``; the copy's forget service is wired like ``container``."""
    refuse_postgres(path, "restore")
    from hlmem.adapters.sqlite.restore import restore

    clock, ids = container.clock(), container.ids()

    def enforcer(storage: Any) -> Any:
        # The forget service of the restored copy: this configuration, wired to the copy.
        copy = Container()
        copy.config.from_dict(container.config())
        from hlmem.adapters.sqlite.backend import backend_of

        copy.backend.override(providers.Object(backend_of(storage, new_id=ids.new)))
        copy.clock.override(providers.Object(clock))
        copy.ids.override(providers.Object(ids))
        copy.raw_embedder.override(providers.Object(None))  # forgetting embeds nothing
        # Both channels: the facts' tombstones, then episodes, policies and procedures (ADR 0045).
        return BothEnforcers(copy.forget(), copy.experience_forget())

    return restore(path, backup, clock=clock, ids=ids, enforcer=enforcer, force=force, actor=actor, reason=reason,
                   namespace=namespace)


def reopen(container: Container, clock: Any, ids: Any) -> Any:
    """The container's store opened again on whatever file is there now; the clock and ids carry
    on (a FixedClock keeps the time a test moved it to)."""
    container.clock.override(providers.Object(clock))
    container.ids.override(providers.Object(ids))
    container.reset_singletons()
    return container.storage()


def refuse_postgres(path: str, what: str) -> None:
    """Backup and restore copy a SQLite file; a PostgreSQL store (issue 18) has none."""
    if str(path).startswith(("postgresql://", "postgres://")):
        raise UnsupportedOperation(
            f"{what} needs a SQLite store file; a PostgreSQL store is backed up with the server's own tools "
            "(pg_dump), or copied out with `hlmem replay --into FILE.db` (docs/postgres.md)")
