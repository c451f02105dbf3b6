"""The operator's half of the ``Memory`` facade: maintenance, backup, restore, audit, replay, re-embedding.

``Memory`` inherits these methods; each is one call into the application or one adapter
operation on the open store (docs/architecture.md).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from hlmem.adapters.arguments import Timestamp, when
from hlmem.adapters.restoring import refuse_postgres, reopen, restore_with
from hlmem.domain.errors import ConfigurationError, UnsupportedOperation, ValidationError

if TYPE_CHECKING:
    from hlmem.adapters.container import Container
    from hlmem.adapters.sqlite.backup import BackupInfo
    from hlmem.adapters.sqlite.restore import RestoreInfo
    from hlmem.application.audit import AuditEntry
    from hlmem.application.maintenance import MaintenanceReport
    from hlmem.application.ports import Clock, Storage
    from hlmem.application.replay import ReplayReport
    from hlmem.application.writes import WriteResult
    from hlmem.domain.lifecycle import LifecyclePolicy

_when = when


class Operations:
    """Maintenance and store administration over ``Memory``'s container and open store."""

    _container: Container
    storage: Storage
    path: str
    namespace: str
    embedder_name: str
    clock: Clock

    if TYPE_CHECKING:
        def close(self) -> None: ...

    # -- lifecycle (docs/lifecycle.md, ADR 0015) --------------------------------------------------

    def maintain(self, *, now: Timestamp = None, max_rows: int | None = None, max_seconds: float | None = None,
                 dry_run: bool = False) -> MaintenanceReport:
        """One bounded maintenance pass: expire, archive, prune old job and LLM-ledger rows.

        It resumes where the last pass stopped; ``report.complete`` says whether it reached the end.
        ``dry_run`` counts what a pass from the start would change, without writing.
        """
        return self._container.maintenance().run(now=_when(now, "now"), max_rows=max_rows,
                                                 max_seconds=max_seconds, dry_run=dry_run)

    def revive(self, claim_id: str, *, reason: str = "") -> WriteResult:
        """Bring an archived claim back into normal recall (an explicit lookup; it counts as an access)."""
        return self._container.maintenance().revive(claim_id, reason=reason)

    @property
    def lifecycle(self) -> LifecyclePolicy:
        """The lifecycle thresholds in force."""
        return self._container.lifecycle_policy()

    def stats(self) -> dict[str, Any]:
        """Counts of events, observations, claims by status and vectors, plus the model in use."""
        out: dict[str, Any] = dict(self.storage.counts())
        model = self.storage.vector_model()
        out["vector_model"] = model[0] if model else None
        out["embedder"] = self.embedder_name
        return out

    # -- progress of long operations -----------------------------------------------------------

    def progress_total(self, action: str) -> int:
        """How far ``replay`` (events in the log) or ``reembed`` (items to embed) will count, for
        a progress bar shown before they start."""
        if action == "replay":
            return self.storage.last_position()
        if action == "reembed":
            return sum(1 for _ in self.storage.items())
        raise ValidationError(f"no progress total for {action!r}; known: replay, reembed", field="action")

    # -- backup, restore and audit --------------------------------------------------------------

    def backup(self, path: str | os.PathLike[str], *, overwrite: bool = False) -> BackupInfo:
        """Copy this store to ``path`` (a new file, or a directory to name one in) while writes go on.

        :raises UnsupportedOperation: for an in-process (``:memory:``) store.
        """
        from hlmem.adapters.sqlite.backup import backup

        if self.path == ":memory:":
            raise UnsupportedOperation("backup needs a SQLite store file; an in-process (:memory:) store has none")
        refuse_postgres(self.path, "backup")
        return backup(self.storage, path, clock=self.clock, ids=self._container.ids(), overwrite=overwrite)

    def restore(self, backup: str | os.PathLike[str], *, force: bool = False, actor: str = "user",
                reason: str = "") -> RestoreInfo:
        """Replace this store with a backup, enforcing this store's tombstone ledger on it first,
        then reopen it (docs/backup.md). Restore is offline: this Memory closes its store for
        it, and every other connection to the file must be closed (it refuses otherwise).

        :param force: restore a backup of another store.
        :raises BackupRejected: corrupt, not a backup, newer hlmem, another store, store in use.
        """
        if self.path == ":memory:":
            raise UnsupportedOperation("restore needs a SQLite store file; an in-process (:memory:) store has none")
        refuse_postgres(self.path, "restore")
        clock, ids = self.clock, self._container.ids()
        self.close()
        try:
            return restore_with(self._container, self.path, backup, force=force, actor=actor, reason=reason,
                                namespace=self.namespace)
        finally:
            self.storage = reopen(self._container, clock, ids)

    def audit(self, *, since: Timestamp = None, kinds: Iterable[str] | None = None, limit: int = 50,
              namespace: str | None = None) -> list[AuditEntry]:
        """Governance actions (forget, expire, archive, revive, restore, conflict decisions,
        retractions), newest first; every namespace unless ``namespace`` is given."""
        return self._container.audit().list(since=_when(since, "since"), kinds=kinds, limit=limit,
                                            namespace=namespace)

    # -- replay and re-embedding ----------------------------------------------------------------

    def replay(self, *, into: str | os.PathLike[str] | None = None,
               progress: Callable[[int], None] | None = None, verify: bool = False) -> ReplayReport:
        """Rebuild every projection from the log into a fresh store and compare it with this one.

        :param into: where to keep the rebuilt store (a new file); a temporary file otherwise.
        :param verify: a health check first, the store's own (``report.integrity`` says what it
            examined): SQLite's ``integrity_check`` and full-text checks (a damaged index fails
            here although the log replays); on PostgreSQL, the log's positions and payloads.
        :raises StorageCorrupt: a damaged page, index or full-text index, or log bytes that do not
            decode (never "a newer hlmem" for those).
        """
        from attrs import evolve

        checked = self.storage.check_integrity(full=True) if verify else None
        with self._container.replay_target(into) as target:
            report = self._container.replay().replay(self.storage, target, progress)
        return evolve(report, integrity=checked or None) if verify else report

    def reembed(self, *, progress: Callable[[int], None] | None = None) -> int:
        """Re-embed every item with this Memory's embedder and switch the store to its model.

        This is the only way a store changes models: vectors of two models are never mixed.
        """
        from hlmem.application.reindex import reembed

        embedder = self._container.passage_embedder()
        if embedder is None:
            raise ConfigurationError("reembed needs an embedder (not 'none'); pass --embedder")
        count = reembed(self.storage, embedder, self._container.registry(), progress)
        if self.embedder_name != "custom":
            self.storage.set_meta("embedder_name", self.embedder_name)
        return count

