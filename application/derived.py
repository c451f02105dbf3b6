"""Observation summaries and mental models: build, rebuild (the worker's ``derive`` jobs) and read.

The offline builder is :mod:`hlmem.domain.derived_build` (deterministic: grouping by subject and
slot family, text from the claims' values); this service reads a subject's claims and its items
inside one write transaction, asks :func:`~hlmem.domain.derived_build.decide_builds` for the
events and appends them with the log position it read as their watermark. Staleness is not
decided here but by the write path itself (:mod:`hlmem.application.derived_guard`); a stale item
is rebuilt here, by a worker job or by :meth:`DerivedService.build` (docs/derived.md, ADR 0046).
"""

from __future__ import annotations

from collections.abc import Sequence

from attrs import frozen

from hlmem.application.derived_guard import DERIVE
from hlmem.application.indexing import NeedVectors, derived_text, passage_vectors, retrying_for_vectors
from hlmem.application.ports import Clock, DerivedStore, Embedder, IdGenerator, IndexEntry, Job, JobQueue
from hlmem.domain.derived import FORGOTTEN, KINDS, MENTAL_MODEL, OBSERVATION_SUMMARY, REMOVED, DerivedState
from hlmem.domain.derived_build import decide_builds, draft_items
from hlmem.domain.errors import NotFound, ValidationError
from hlmem.domain.events import DerivedBuilt, DerivedRemoved, DomainEvent
from hlmem.domain.slots import SlotRegistry
from hlmem.domain.state import ClaimState, ClaimStatus, subject_key

#: Subjects read per page when building a whole namespace.
PAGE = 500


@frozen
class BuildReport:
    """What one build did: items built, rebuilt and removed, by id."""

    built: tuple[str, ...] = ()
    rebuilt: tuple[str, ...] = ()
    removed: tuple[str, ...] = ()
    subjects: int = 0


@frozen
class SourceView:
    """One source claim of a derived item, as it stands now."""

    claim_id: str
    version: int
    status: str
    subject: str
    predicate: str
    value: str


@frozen
class DerivedView:
    """A derived item with its sources (what ``show``, ``observations`` and ``profile`` return)."""

    item: DerivedState
    sources: tuple[SourceView, ...]


class DerivedService:
    """Builds and reads the derived layer of one store."""

    def __init__(self, storage: DerivedStore, clock: Clock, ids: IdGenerator, registry: SlotRegistry, *,
                 jobs: JobQueue | None = None, embedder: Embedder | None = None) -> None:
        """:param embedder: the passage embedder that gives each built item its vector (None: full
            text only), as a write's claims get theirs (ADR 0084)."""
        self._storage = storage
        self._embedder = embedder
        self._clock = clock
        self._ids = ids
        self._registry = registry
        self._jobs = jobs

    # -- building ----------------------------------------------------------------------------------

    def build(self, namespace: str = "default", subject: str | None = None) -> BuildReport:
        """Build (or bring up to date) the items of one subject, or of every subject of the namespace."""
        if subject is not None and not subject.strip():
            raise ValidationError("subject is empty", field="subject")
        subjects = [subject] if subject is not None else self._subjects(namespace)
        reports = [self._build_subject(namespace, s) for s in subjects]
        return BuildReport(built=tuple(i for r in reports for i in r.built),
                           rebuilt=tuple(i for r in reports for i in r.rebuilt),
                           removed=tuple(i for r in reports for i in r.removed), subjects=len(subjects))

    def rebuild(self, derived_ids: Sequence[str]) -> BuildReport:
        """Rebuild the subjects of these items (stale ones come back current, or are removed)."""
        groups = self._groups(derived_ids)
        reports = [self._build_subject(ns, name) for ns, name in groups]
        return BuildReport(built=tuple(i for r in reports for i in r.built),
                           rebuilt=tuple(i for r in reports for i in r.rebuilt),
                           removed=tuple(i for r in reports for i in r.removed), subjects=len(groups))

    def _groups(self, derived_ids: Sequence[str]) -> list[tuple[str, str]]:
        """(namespace, subject) of each of these items' subjects, once each, in key order."""
        found = self._storage.get_derived(list(derived_ids))
        groups = sorted({(d.namespace, subject_key(d.subject)): d.subject for d in found.values()
                         if d.status != FORGOTTEN and d.subject}.items())
        return [(ns, name) for (ns, _), name in groups]

    def run_jobs(self, jobs: Sequence[Job], *, owner: str) -> BuildReport:
        """The worker's ``derive`` jobs: rebuild their items and complete the jobs, in one transaction."""
        if self._jobs is None:
            raise ValidationError("this service has no job queue", field="jobs")
        ids = [str(j.payload.get("derived_id", "")) for j in jobs]
        if self._embedder is not None:
            # Embedded (and cached by content) before the lock; the rebuild below finds them there.
            for namespace, subject in self._groups(ids):
                passage_vectors(self._embedder, self._storage, [
                    derived_text(d.kind, d.subject, d.label, d.text)
                    for d in draft_items(self._storage.subject_claims(namespace, subject), self._registry)])
        with self._storage.transaction():
            report = self.rebuild(ids)
            self._jobs.complete([j.job_id for j in jobs], owner=owner, now=self._clock.now())
        return report

    def _build_subject(self, namespace: str, subject: str) -> BuildReport:
        st = self._storage
        # The drafts' search texts are embedded before the write transaction (no model under the
        # lock); a claim changed in between makes a text nobody embedded: the write asks again.
        ahead = [derived_text(d.kind, d.subject, d.label, d.text)
                 for d in draft_items(st.subject_claims(namespace, subject), self._registry)]
        vectors = passage_vectors(self._embedder, st, ahead) if self._embedder is not None else {}

        def write(vectors: dict[str, bytes], last: bool) -> list[DomainEvent]:
            with st.transaction():
                claims = st.subject_claims(namespace, subject)
                existing = st.derived_items(namespace, subject=subject)
                events = decide_builds(draft_items(claims, self._registry), existing, namespace=namespace,
                                       new_id=self._ids.new, recorded_at=self._clock.now(),
                                       watermark=st.last_position())
                if events:
                    st.append(events, self._index(events, vectors, last))
            return events

        events = retrying_for_vectors(write, vectors, self._embedder, st)
        built = tuple(e.stream_id for e in events if isinstance(e, DerivedBuilt) and e.version == 1)
        rebuilt = tuple(e.stream_id for e in events if isinstance(e, DerivedBuilt) and e.version > 1)
        removed = tuple(e.stream_id for e in events if isinstance(e, DerivedRemoved))
        return BuildReport(built=built, rebuilt=rebuilt, removed=removed, subjects=1)

    def _index(self, events: Sequence[DomainEvent], vectors: dict[str, bytes], last: bool) -> dict[str, IndexEntry]:
        """Each built item's search entry (ADR 0084), with its vector when there is an embedder:
        one embedded ahead, else :class:`NeedVectors` (or, on the ``last`` try, embedded here)."""
        texts = {e.stream_id: t for e in events if isinstance(e, DerivedBuilt)
                 and (t := derived_text(e.kind, e.subject, e.label, e.text))}
        if self._embedder is not None:
            missing = [t for t in dict.fromkeys(texts.values()) if t not in vectors]
            if missing and not last:
                raise NeedVectors(missing)
            if missing:
                vectors.update(passage_vectors(self._embedder, self._storage, missing))
        return {sid: IndexEntry(t, vectors.get(t)) for sid, t in texts.items()}

    def _subjects(self, namespace: str) -> list[str]:
        """One name per subject key with a claim in ``namespace`` or a derived item (key order)."""
        st = self._storage
        names: dict[str, str] = {}
        after = None
        while True:
            page = st.claim_ids(namespace, after=after, limit=PAGE)
            if not page:
                break
            for claim in st.get_claims(page).values():
                if claim.subject and claim.status is not ClaimStatus.FORGOTTEN:
                    names.setdefault(subject_key(claim.subject), claim.subject)
            after = page[-1]
        for item in st.derived_items(namespace):
            if item.subject and item.live:
                names.setdefault(subject_key(item.subject), item.subject)
        return [names[k] for k in sorted(names)]

    # -- reading -----------------------------------------------------------------------------------

    def items(self, namespace: str = "default", *, subject: str | None = None, kind: str | None = None,
              include_removed: bool = False) -> list[DerivedView]:
        """Derived items of a namespace (one subject, one kind), current and stale, with sources."""
        if kind is not None and kind not in KINDS:
            raise ValidationError(f"kind must be one of {', '.join(KINDS)}, not {kind!r}", field="kind")
        found = [d for d in self._storage.derived_items(namespace, subject=subject, kind=kind)
                 if d.live or (include_removed and d.status == REMOVED)]
        return self._views(found)

    def observations(self, namespace: str = "default", *, subject: str | None = None) -> list[DerivedView]:
        """The observation summaries (of one subject)."""
        return self.items(namespace, subject=subject, kind=OBSERVATION_SUMMARY)

    def mental_model(self, subject: str, namespace: str = "default") -> DerivedView:
        """A subject's mental model.

        :raises NotFound: when none was built (``hlmem derive`` builds it) or it was removed.
        """
        found = self.items(namespace, subject=subject, kind=MENTAL_MODEL)
        if not found:
            raise NotFound(f"no mental model of {subject!r} in namespace {namespace!r} (run `hlmem derive`)")
        return found[0]

    def show(self, derived_id: str) -> DerivedView:
        """One derived item by id, whatever its status (a forgotten one is a blank tombstone)."""
        found = self._storage.get_derived([derived_id]).get(derived_id)
        if found is None:
            raise NotFound(f"no derived item {derived_id}")
        return self._views([found])[0]

    def _views(self, items: Sequence[DerivedState]) -> list[DerivedView]:
        claims: dict[str, ClaimState] = self._storage.get_claims(
            sorted({cid for d in items for cid in d.source_ids})) if items else {}
        out = []
        for d in items:
            sources = []
            for cid, version in d.sources:
                c = claims.get(cid)
                if c is not None:
                    sources.append(SourceView(cid, version, c.status.value, c.subject, c.predicate, c.value))
            out.append(DerivedView(d, tuple(sources)))
        return out


def is_derive_job(job: Job) -> bool:
    """Whether a job is a derived item's rebuild."""
    return job.kind == DERIVE
