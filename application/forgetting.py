"""Forget: plan the cascade, then erase everything derived from the target in one transaction.

One forget, in one write transaction (docs/forgetting.md, ADR 0014):

1. gather the states the target reaches and plan the cascade (:mod:`hlmem.domain.forgetting`);
2. erase the payloads of every event of every forgotten stream and of the extraction records
   citing forgotten events, through the storage's one audited path (``erase_payloads``);
3. delete the embedding-cache entries of the forgotten texts and scrub job rows;
4. append one ``ForgetRequested``, one ``ItemForgotten`` per stream and ``EvidenceForgotten``
   per surviving claim (the append drops FTS rows and vectors);
5. add the tombstones to the ledger.

After the commit, ``compact_erased`` makes the bytes go away (WAL checkpoint and the like). When
another connection's read transaction keeps old pages alive, the report says the erasure is
pending (``erasure_pending``); the store recorded it in the forget's transaction and finishes it
later by itself. A dry run does steps 1–5 for real inside the transaction and rolls it back, so
its counts are exactly what a forget would remove.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from types import MappingProxyType

from attrs import evolve, frozen

from hlmem.application.indexing import claim_text
from hlmem.application.ports import Clock, ForgetStore, IdGenerator, TombstoneLedger
from hlmem.application.reingest import ReingestGuard
from hlmem.domain.errors import NotFound
from hlmem.domain.forgetting import (
    PLAN_COUNTS,
    TOMBSTONES,
    ForgetPlan,
    ForgetTarget,
    Gathered,
    claim_fingerprint,
    forget_events,
    is_self,
    observation_fingerprint,
    plan_forget,
    stream_fingerprints,
    subject_fingerprint,
    tombstones_for,
    validate_target,
)
from hlmem.domain.redaction import CLAIM, OBSERVATION, SUBJECT, Tombstone
from hlmem.domain.slots import SlotRegistry
from hlmem.domain.state import ClaimState, ClaimStatus, ConflictState, ObservationState, subject_key

#: Every count a report holds, in display order.
REPORT_COUNTS = (*PLAN_COUNTS, "payloads", "fts_rows", "vectors", "cache_entries", "jobs")


@frozen(kw_only=True)
class ForgetReport:
    """What a forget removed (or, for a dry run, would remove), by kind.

    ``already_forgotten`` is True when the target was forgotten before and nothing was left to
    do (every count is 0); ``forgotten_at`` then says when, if the ledger knows.
    ``erasure_pending`` is True when the forget is done (nothing is recalled, explained or
    re-ingested) but erased bytes are still in the store's files, because another connection
    holds a read transaction on the old pages; the store finishes the erasure later by itself.
    """

    target_kind: str
    target: str
    namespace: str
    counts: MappingProxyType
    items: tuple[str, ...] = ()
    forget_id: str | None = None
    dry_run: bool = False
    already_forgotten: bool = False
    forgotten_at: datetime | None = None
    notes: tuple[str, ...] = ()
    erasure_pending: bool = False

    @property
    def removed(self) -> int:
        """How many streams became tombstones."""
        return len(self.items)


def compacted(report: ForgetReport, done: Mapping[str, int]) -> ForgetReport:
    """``report`` once the store compacted the erased bytes (``compact_erased``'s answer): pending
    or not, and a note when stale temporary copies of the store (killed backups, restores or
    replays, each holding its text from before) were removed beside it."""
    notes = report.notes
    if done.get("stale_copies"):
        n = done["stale_copies"]
        notes += ((f"removed {n} stale temporary cop{'y' if n == 1 else 'ies'} of the store beside it (left by a "
                   "killed backup, restore or replay; they held its text from before this forget)"),)
    return evolve(report, erasure_pending=bool(done.get("pending")), notes=notes)


class _DryRun(Exception):
    """Rolls the forget's transaction back once its report is made."""

    def __init__(self, report: ForgetReport) -> None:
        super().__init__("dry run")
        self.report = report


def _counts(values: dict[str, int] | None = None) -> MappingProxyType:
    values = values or {}
    return MappingProxyType({k: int(values.get(k, 0)) for k in REPORT_COUNTS})


class ForgetService:
    """Forgets claims, events, sessions and subjects with the full cascade; enforces tombstones."""

    def __init__(self, storage: ForgetStore, ledger: TombstoneLedger, clock: Clock, ids: IdGenerator,
                 registry: SlotRegistry, *, block_reingest: bool = True) -> None:
        self._storage = storage
        self._ledger = ledger
        self._clock = clock
        self._ids = ids
        self._registry = registry
        #: Re-ingest blocking of the facade's writes and of extraction (``block_reingest``).
        self.guard = ReingestGuard(ledger, registry, enabled=block_reingest)

    def is_blocked(self, *, text: str | None = None, claim: tuple[str, str, str] | None = None) -> bool:
        """Whether this event text or claim content was forgotten and re-ingest blocking is on."""
        return self.guard.is_blocked(text=text, claim=claim)

    # -- public ---------------------------------------------------------------------------------

    def plan(self, target: ForgetTarget) -> ForgetReport:
        """What ``forget(target)`` would remove, without removing anything (a dry run).

        :raises NotFound: for an unknown id, an empty session or a subject nothing mentions.
        """
        return self._run(validate_target(target), actor="user", reason="", dry_run=True)

    def forget(self, target: ForgetTarget, *, actor: str = "user", reason: str = "") -> ForgetReport:
        """Forget ``target`` with its cascade; idempotent (a second call reports ``already_forgotten``).

        :param reason: kept in the audit event — do not put the forgotten text in it.
        :raises NotFound: for an unknown id, an empty session or a subject nothing mentions.
        """
        return self._run(validate_target(target), actor=actor, reason=reason, dry_run=False)

    def enforce_tombstones(self, tombstones: Sequence[Tombstone], *, actor: str, reason: str) -> int:
        """Forget, with the full cascade, every stream of this store that ``tombstones`` name by id
        or match by content fingerprint (same salt); return how many streams it newly forgot.

        Restore calls this on the restored copy before it goes live, with the live ledger's rows.
        """
        ids = {t.stream_id for t in tombstones}
        wanted = {(t.kind, t.fingerprint) for t in tombstones if t.fingerprint}
        if not ids and not wanted:
            return 0
        salt = self._ledger.salt()
        self._storage.prepare_index(())  # the context rows around forgotten turns are indexed again
        with self._storage.transaction():
            g = self._gather_matching(ids, wanted, salt)
            plan = plan_forget(g)
            if plan.empty:
                return 0
            self._execute(g, plan, salt, namespace="default", target_kind=TOMBSTONES,
                          target=f"{len(tombstones)} tombstones", actor=actor, reason=reason)
        self._storage.compact_erased()  # a restore's private copy: nobody else reads it
        return len(plan.streams)

    # -- one forget -------------------------------------------------------------------------------

    def _run(self, target: ForgetTarget, *, actor: str, reason: str, dry_run: bool) -> ForgetReport:
        salt = self._ledger.salt()
        self._storage.prepare_index(())  # the context rows around forgotten turns are indexed again
        try:
            with self._storage.transaction():
                g, namespace = self._gather(target)
                plan = plan_forget(g)
                if plan.empty:
                    report = self._nothing_left(target, namespace, salt, dry_run)
                else:
                    shown = subject_fingerprint(target.value, salt) if target.kind == "subject" else target.value
                    report = self._execute(g, plan, salt, namespace=namespace, target_kind=target.kind,
                                           target=shown, actor=actor, reason=reason, subject=target.value
                                           if target.kind == "subject" else None)
                    report = evolve(report, target=target.value, notes=self._notes(target, g, plan))
                    if dry_run:
                        raise _DryRun(evolve(report, dry_run=True, forget_id=None, forgotten_at=None))
        except _DryRun as done:
            return done.report
        if dry_run or (report.already_forgotten and self._storage.pending_erasure() is None):
            return report
        # A repeat also finishes (or reports) an erasure an earlier forget left pending.
        return compacted(report, self._storage.compact_erased())

    def _execute(self, g: Gathered, plan: ForgetPlan, salt: bytes, *, namespace: str, target_kind: str,
                 target: str, actor: str, reason: str, subject: str | None = None) -> ForgetReport:
        now = self._clock.now()
        forget_id = self._ids.new("fg")
        fingerprints = stream_fingerprints(g, plan, salt)
        index = self._storage.indexed(plan.streams)
        counts = plan.counts
        counts["payloads"] = self._storage.erase_payloads([*plan.streams, *plan.extractions],
                                                          reason=f"forget {forget_id}", at=now)
        counts["fts_rows"] = sum(1 for text, _ in index.values() if text)
        counts["vectors"] = sum(1 for _, vector in index.values() if vector)
        texts, fragments = self._forgotten_texts(g, plan)
        if subject and not is_self(subject):
            fragments.append(subject)
        counts["cache_entries"] = self._storage.drop_cached_vectors(texts)
        counts["jobs"] = self._storage.scrub_jobs(plan.events, fragments)
        # Recorded with the forget itself: bytes left on disk are finished later even after a crash.
        self._storage.mark_erasure_pending(forget_id)
        events = forget_events(g, plan, forget_id=forget_id, new_id=self._ids.new, recorded_at=now,
                               namespace=namespace, target_kind=target_kind, target=target, actor=actor,
                               reason=reason, counts=_counts(counts), fingerprints=fingerprints)
        self._storage.append(events)
        subject_fp = subject_fingerprint(subject, salt) if subject else None
        self._ledger.add(tombstones_for(plan, fingerprints, forget_id=forget_id, forgotten_at=now,
                                        subject_fp=subject_fp))
        return ForgetReport(target_kind=target_kind, target=target, namespace=namespace, counts=_counts(counts),
                            items=plan.streams, forget_id=forget_id, forgotten_at=now)

    def _forgotten_texts(self, g: Gathered, plan: ForgetPlan) -> tuple[list[str], list[str]]:
        """The texts as they were embedded (for the cache) and fragments to look for in job rows."""
        texts: list[str] = []
        fragments: list[str] = []
        for eid in plan.events:
            texts.append(g.events[eid].text)
            fragments.append(g.events[eid].text)
        for cid in plan.claims:
            c = g.claims[cid]
            texts.append(claim_text(c.subject, c.predicate, c.value, c.qualifiers, c.coordinates, c.polarity,
                                    self._registry))
            fragments.append(c.value)
        for cf_id in plan.conflicts:
            cand = g.conflicts[cf_id].candidate
            if cand:
                texts.append(claim_text(cand["subject"], cand["predicate"], cand["value"],
                                        tuple(cand["qualifiers"]), tuple(cand["coordinates"]), cand["polarity"],
                                        self._registry))
                fragments.append(str(cand["value"]))
        return [t for t in texts if t], [f for f in fragments if f]

    def _notes(self, target: ForgetTarget, g: Gathered, plan: ForgetPlan) -> tuple[str, ...]:
        if target.kind != "claim":
            return ()
        kept = sorted({e for cid in plan.claims for e in g.claims[cid].evidence})
        if not kept:
            return ()
        return (f"the claim's {len(kept)} evidence event(s) keep their text ({', '.join(kept[:5])}"
                f"{', …' if len(kept) > 5 else ''}); forget them by id to remove it too",)

    def _nothing_left(self, target: ForgetTarget, namespace: str, salt: bytes, dry_run: bool) -> ForgetReport:
        """An empty plan: the target was forgotten before (honestly said), or it never existed."""
        when = None
        if target.kind in ("claim", "event"):
            found = self._ledger.of_streams([target.value]).get(target.value)
            when = found.forgotten_at if found else None
        elif target.kind == "subject":
            fp = subject_fingerprint(target.value, salt)
            if not self._ledger.matching([fp]):
                raise NotFound(f"nothing in namespace {namespace!r} is about or mentions {target.value!r}")
            when = max((t.forgotten_at for t in self._ledger.tombstones() if t.fingerprint == fp), default=None)
        return ForgetReport(target_kind=target.kind, target=target.value, namespace=namespace, counts=_counts(),
                            dry_run=dry_run, already_forgotten=True, forgotten_at=when)

    # -- gathering ---------------------------------------------------------------------------------

    def _gather(self, target: ForgetTarget) -> tuple[Gathered, str]:
        st = self._storage
        namespace = target.namespace
        events: dict[str, ObservationState] = {}
        seeds: dict[str, ClaimState] = {}
        subject = None
        if target.kind == "claim":
            claim = st.get_claims([target.value]).get(target.value)
            if claim is None:
                raise NotFound(f"no claim {target.value}")
            namespace, seeds = claim.namespace, {claim.claim_id: claim}
        elif target.kind == "event":
            obs = st.get_observations([target.value]).get(target.value)
            if obs is None:
                raise NotFound(f"no event {target.value}")
            namespace, events = obs.namespace, {obs.event_id: obs}
        elif target.kind == "session":
            ids = st.session_events(namespace, target.value)
            if not ids:
                raise NotFound(f"no events in session {target.value!r} of namespace {namespace!r}")
            events = st.get_observations(ids)
        else:
            subject = subject_key(target.value)
            found = {c.claim_id: c for c in st.subject_claims(namespace, target.value)}
            if not is_self(target.value):
                found.update(st.get_claims(st.claims_mentioning(namespace, target.value)))
            seeds = {cid: c for cid, c in found.items() if c.status is not ClaimStatus.FORGOTTEN}
            event_ids = {e for c in seeds.values() for e in c.evidence}
            if not is_self(target.value):
                event_ids.update(st.events_mentioning(namespace, target.value))
            events = st.get_observations(sorted(event_ids))
        conflicts = {c.conflict_id: c for c in st.conflicts(namespace, status=None)}
        return self._gathered(events, seeds, conflicts, frozenset(), subject), namespace

    def _gathered(self, events: dict[str, ObservationState], seeds: dict[str, ClaimState],
                  conflicts: dict[str, ConflictState], seed_conflicts: frozenset[str],
                  subject: str | None) -> Gathered:
        """Add what the cascade reads: claims citing the events, conflicts' existing claims, records."""
        st = self._storage
        live = [e for e, obs in events.items() if not obs.forgotten]
        citing = {cid for e in live for cid in st.claims_citing(e)}
        existing = {cid for c in conflicts.values() for cid in c.existing}
        claims = dict(st.get_claims(sorted((citing | existing) - seeds.keys())))
        claims.update(seeds)
        others = sorted({e for c in claims.values() for e in c.evidence} - events.keys())
        found = st.get_observations(others) if others else {}
        dead = frozenset(e for e in others if e not in found or found[e].forgotten)
        return Gathered(events=events, claims=claims, seed_claims=frozenset(seeds), conflicts=conflicts,
                        seed_conflicts=seed_conflicts, extractions=frozenset(st.extractions_citing(live)) if live
                        else frozenset(), subject=subject, dead_evidence=dead)

    def _gather_matching(self, ids: set[str], wanted: set[tuple[str, str]], salt: bytes) -> Gathered:
        """Every live stream named by id or matching a fingerprint (a scan of the whole store)."""
        st = self._storage
        streams = sorted(st.stream_versions())
        events: dict[str, ObservationState] = {}
        seeds: dict[str, ClaimState] = {}
        conflicts: dict[str, ConflictState] = {}
        for start in range(0, len(streams), 500):
            chunk = streams[start:start + 500]
            for eid, obs in st.get_observations([s for s in chunk if s.startswith("ev_")]).items():
                if not obs.forgotten and (eid in ids or (OBSERVATION, observation_fingerprint(obs.text, salt)) in wanted):
                    events[eid] = obs
            for cid, c in st.get_claims([s for s in chunk if s.startswith("cl_")]).items():
                if c.status is not ClaimStatus.FORGOTTEN and (
                        cid in ids or (CLAIM, claim_fingerprint(c.subject, c.predicate, c.value, salt)) in wanted
                        or (SUBJECT, subject_fingerprint(c.subject, salt)) in wanted):
                    seeds[cid] = c
            conflicts.update(st.get_conflicts([s for s in chunk if s.startswith("cf_")]))
        seed_conflicts = set()
        for cf_id, conflict in conflicts.items():
            cand = conflict.candidate
            if conflict.status == "forgotten" or not (cf_id in ids or cand):
                continue
            if cf_id in ids or (CLAIM, claim_fingerprint(cand["subject"], cand["predicate"], cand["value"], salt)) \
                    in wanted or (SUBJECT, subject_fingerprint(cand["subject"], salt)) in wanted:
                seed_conflicts.add(cf_id)
        return self._gathered(events, seeds, conflicts, frozenset(seed_conflicts), None)
