"""A Hypothesis state machine that audits the log (style guide item 19).

The same operations run against an in-memory and a SQLite store, each behind its own services
with its own ``SequentialIds`` (so ids line up) and one shared FixedClock. After every step the
invariants check that the two stores agree with each other, with a fold of their own logs, and
with the bitemporal rules (one value per single-valued slot at any instant, superseded claims
out of current recall but in history, gapless versions, replay equals live).

Lifecycle and forgetting (issue 4): maintenance passes expire and archive (a short-lived policy,
so a few clock moves reach both), archived claims are revived, claims, events, sessions and
subjects are forgotten, the SQLite store is backed up and restored from any earlier backup (the
in-memory store then mirrors it by replay), and the log is replayed into a fresh SQLite file. A
forgotten item is never recalled, explained beyond "forgotten at", exported (its stream's events
stay redacted in the log) or brought back by a restore; a claim with surviving evidence survives.

Evidence (issue 11): claims cite events from the bundle, forgotten ones included, and ids that
name no event; both stores must refuse the forgotten and unknown ones alike, and no live claim
ever rests on an event that is forgotten or missing.

Derived items (issue 17 item 6, ADR 0046): observation summaries and mental models are built on
both stores, and every service appends through the staleness guard. No item may cite a forgotten
claim or keep a forgotten claim's content in its log; no current item may rest on a claim that is
not active, checked at the end of every write transaction (``_StalenessAudit``), not just after
each rule; the projection equals the fold of the log, and replay rebuilds it.

Relations (issue 37 item 1, ADR 0081): every writing service appends through the relation guard
with relations enabled, so claims and the user's turns propose edges on both stores, and edges are
reviewed (accepted or rejected). No open (proposed or accepted) edge may rest on a claim that is
not active or an event that is forgotten, checked at the end of every write transaction; a
forgotten edge keeps no name in its state or its log; the projection equals the fold of the log on
both stores, and replay rebuilds it.

A failing run prints its seed (tests/conftest.py); ``pytest tests/stateful --hypothesis-seed=N``
replays it. Sequences the machine found are pinned as plain tests at the end of this file.
"""

from __future__ import annotations

import contextlib
import re
import shutil
import tempfile
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from hypothesis import currently_in_test_context
from hypothesis import event as _event
from hypothesis import strategies as st
from hypothesis.stateful import Bundle, RuleBasedStateMachine, initialize, invariant, precondition, rule

from hlmem.adapters.clock import FixedClock
from hlmem.adapters.ids import SequentialIds
from hlmem.adapters.inmemory.store import InMemoryStorage
from hlmem.adapters.inmemory.tombstones import InMemoryTombstoneLedger
from hlmem.adapters.sqlite.backup import backup
from hlmem.adapters.sqlite.restore import restore
from hlmem.adapters.sqlite.store import SQLiteStorage
from hlmem.adapters.text.segment import index_text
from hlmem.application.experience import ExperienceService
from hlmem.application.experience_forget import BothEnforcers, ExperienceForgetService
from hlmem.application.forgetting import ForgetService
from hlmem.application.derived import DerivedService
from hlmem.application.derived_guard import guarded
from hlmem.application.relation_guard import relation_guarded
from hlmem.application.relations import RelationService
from hlmem.application.indexing import state_index_text
from hlmem.application.inspect import InspectService
from hlmem.application.maintenance import CURSOR_KEY, MaintenanceService
from hlmem.application.recall import RecallService
from hlmem.application.replay import ReplayService
from hlmem.application.writes import WriteService
from hlmem.domain.commands import AssertClaim, RecordObservation
from hlmem.domain.derived import CURRENT, FORGOTTEN, STALE, project_derived
from hlmem.domain.derived import KINDS as DERIVED_KINDS
from hlmem.domain.events import Cardinality, DerivedBuilt, ItemForgotten
from hlmem.domain.evidence import evidence_problems
from hlmem.domain.forgetting import ForgetTarget
from hlmem.domain.lifecycle import LifecyclePolicy
from hlmem.domain.queries import holds, values_at
from hlmem.domain.redaction import is_redacted
from hlmem.domain.reducers import project
from hlmem.domain.relation_events import RelationProposed
from hlmem.domain.relations import OPEN as OPEN_EDGE
from hlmem.domain.relations import project_relations
from hlmem.domain.slot_catalog import DEFAULT_REGISTRY
from hlmem.domain.slots import normalize_key
from hlmem.domain.state import ClaimState, ClaimStatus
from hlmem.domain.experience_decisions import EndEpisode, RecordStep, StartEpisode
from hlmem.domain.experience_events import is_experience_stream
from hlmem.domain.experience_policy import PolicyThresholds
from hlmem.domain.experience_reducers import reduce_experience
from hlmem.domain.experience_counts import Counts, fold_counts, fold_support, trailing_failures
from hlmem.domain.experience_state import EpisodeState, PolicyState, ProcedureState

UTC = timezone.utc
T0 = datetime(2026, 3, 1, 9, 30, tzinfo=UTC)
DAY = timedelta(days=1)

# Small pools, so that slots fill up, values repeat (corroboration) and ids are reused.
SUBJECTS = ("user", "User", "小明")
#: (predicate as a caller types it, coordinates, values); "theme" is an alias, "likes" is multi-valued.
SLOTS = (
    ("theme", (), ("dark", "light", "Dark", "深色")),
    ("lives_in", (), ("Berlin", "上海", "Paris")),
    ("version", (("component", "jieba"),), ("1.2", "2.0")),
    ("version", (("component", "apsw"),), ("1.2", "3.45")),
    ("likes", (), ("tea", "咖啡", "Tea", "coffee")),
)
NAMESPACES = ("default", "work")
#: Most writes go to one namespace, so that slots collide; "work" checks isolation.
WRITE_NAMESPACES = ("default", "default", "default", "work")
TEXTS = ("I switched to dark mode", "我喜欢深色主题", "小明住在上海", "Alice moved to Berlin", "tea or 咖啡?",
         "upgrade jieba to 2.0", "my coworker Alice likes tea", "我表哥王伟住在上海")
QUERIES = (*SUBJECTS, "Alice", "dark", "深色", "theme", "主题", "Berlin", "住在", "version 1.2", "jieba", "tea", "咖啡",
           "喜欢", "mode")
SESSIONS = ("default", "s1", "s2")
#: Names a person may ask to forget everything about (claims' subjects and names in TEXTS).
FORGET_SUBJECTS = ("小明", "Alice", "User", "user")
#: Half-lives and grace short enough that a few clock moves reach expiry and archive.
POLICY = LifecyclePolicy(half_life_permanent=timedelta(days=20), half_life_temporal=timedelta(days=4),
                         temporal_ttl=timedelta(days=5), archive_grace=timedelta(days=3))
#: Regression switch (test_a_late_fact_inside_an_expired_claims_validity_supersedes_it below):
#: True would skip expired claims in the one-value check; decisions now count them.
SKIP_EXPIRED_IN_ONE_VALUE_CHECK = False
#: Regression switch (test_a_claim_left_citing_only_forgotten_events_is_forgotten below): evidence
#: forgotten before a claim cited it counts as gone in a later cascade.
EARLIER_FORGOTTEN_EVIDENCE_IS_DEAD = True
#: At most this many backups per run (each is a file copy).
MAX_BACKUPS = 3
#: Valid-time starts, in days from T0 (None: "from now"); negative ones land before known claims.
STARTS = (None, None, None, -30, -10, -3, -1, 0, 1, 2, 5, 10, 30)
LENGTHS = (None, None, 1, 3, 7, 40)
#: The experience channel's pools and its low thresholds (so policies and procedures come and go).
GOALS = ("fix the build", "Fix the build!", "deploy app v2", "deploy app v3")
APPROACHES = ("make", "ninja")
MACHINE_THRESHOLDS = PolicyThresholds(rule="wilson", min_support=2, min_reliability=0.2, min_lead=0.0, probation=1, retire_after=2,
                                      procedure_min_successes=2, procedure_min_reliability=0.2)

#: (subject, slot, value index, start, length, namespace) of one AssertClaim.
claim_commands = st.tuples(
    st.sampled_from(SUBJECTS), st.sampled_from(SLOTS), st.integers(0, 3), st.sampled_from(STARTS),
    st.sampled_from(LENGTHS), st.sampled_from(WRITE_NAMESPACES),
)


def count_event(label: str) -> None:
    """Count a label for ``--hypothesis-show-statistics``; a no-op when a plain test drives the machine."""
    if currently_in_test_context():
        _event(label)


def _outcome(call):
    """(result, None) or (None, exception type name): errors must agree between the stores too."""
    try:
        return call(), None
    except Exception as exc:  # noqa: BLE001 - any error must be the same error on both sides
        return None, type(exc).__name__


_END_OF_TIME = datetime.max.replace(tzinfo=UTC)


def _is_forgotten(state) -> bool:
    """Whether a claim or observation state is a tombstone (content blank)."""
    if isinstance(state, ClaimState):
        return state.status is ClaimStatus.FORGOTTEN and not state.subject and not state.value
    return state.forgotten and not state.text


def _rectangles_overlap(a, b) -> bool:
    """Whether two bitemporal rows share any (valid, known) instant (half-open, None = open)."""
    def meet(s1, e1, s2, e2) -> bool:
        e1, e2 = e1 or _END_OF_TIME, e2 or _END_OF_TIME
        return s1 < e1 and s2 < e2 and s1 < e2 and s2 < e1  # both non-empty, and they intersect

    return meet(a.valid_from, a.valid_to, b.valid_from, b.valid_to) and meet(
        a.recorded_from, a.recorded_to, b.recorded_from, b.recorded_to)


class _StalenessAudit:
    """The store as the services see it, checking at the end of each outermost write transaction
    (inside it, before the commit) that no current derived item rests on a claim that is not
    active: staleness must be decided in the transaction that changed the source. Failures are
    recorded, not raised (a raise would roll back and look like a refusal to the rules)."""

    def __init__(self, store, failures: list) -> None:
        self._store = store
        self._failures = failures
        self._depth = 0

    def __getattr__(self, name: str):
        return getattr(self._store, name)

    def _check(self) -> None:
        store = self._store
        ids = sorted({d.derived_id for ns in NAMESPACES for d in store.derived_items(ns) if d.status == CURRENT})
        for item in store.get_derived(ids).values():
            claims = store.get_claims(list(item.source_ids))
            bad = [c for c in item.source_ids if c not in claims or claims[c].status is not ClaimStatus.ACTIVE]
            if bad:
                self._failures.append((item.derived_id, bad, store.last_position()))
        # Relations (ADR 0081): an open edge rests on active claims and recorded events only.
        edges = [r for ns in NAMESPACES for status in OPEN_EDGE
                 for r in store.relations.relations(ns, status=status, limit=10_000)]
        claims = store.get_claims([i for r in edges for i in r.claim_ids])
        events = store.get_observations([i for r in edges for i in r.event_ids])
        for r in edges:
            bad = [i for i in r.claim_ids if i not in claims or claims[i].status is not ClaimStatus.ACTIVE]
            bad += [i for i in r.event_ids if i not in events or events[i].forgotten]
            if bad:
                self._failures.append((r.relation_id, r.status, bad, store.last_position()))

    @contextlib.contextmanager
    def transaction(self):
        with self._store.transaction():
            self._depth += 1
            try:
                yield
            finally:
                self._depth -= 1
            if self._depth == 0:
                self._check()

    def append(self, events, index=None, **kwargs):
        position = self._store.append(events, index, **kwargs)
        if self._depth == 0:
            self._check()
        return position


class MemoryMachine(RuleBasedStateMachine):
    """In-memory and SQLite stores driven in lockstep."""

    observations = Bundle("observations")
    claims = Bundle("claims")

    def __init__(self) -> None:
        super().__init__()
        self.dir = Path(tempfile.mkdtemp(prefix="hlmem-machine-"))
        self.path = self.dir / "m.db"
        self.clock = FixedClock(T0)
        self.mem = InMemoryStorage()
        self.mem_ids = SequentialIds(1)
        self.sql_ids = SequentialIds(1)
        self.sql: SQLiteStorage | None = None
        self.writes_since_reopen = 0
        self.generation = 0
        self._log_cache: dict[int, tuple] = {}
        self._checked: dict[str, tuple] = {}
        #: Every stream ever forgotten (restores never shrink it), and what each item said / where.
        self.forgotten: set[str] = set()
        self.texts: dict[str, tuple[str, str]] = {}
        #: (path, backup info) of each backup taken; their own ids never touch the stores' sequences.
        self.backups: list[tuple[Path, object]] = []
        self.backup_ids = SequentialIds(1)
        self.replays = 0
        #: Observations recorded inside batches with their own ids (``ev_batchN``).
        self.batch_events = 0
        self._open_sql()
        # One salt for both stores: forget fingerprints (in the log) must be equal on both sides.
        self.mem.tombstones = InMemoryTombstoneLedger(salt=self.sql.tombstones.salt())
        self._wire_mem()

    def _wire_mem(self) -> None:
        self.mem_writes = WriteService(self.mem, self.clock, self.mem_ids, DEFAULT_REGISTRY)
        self.mem_recall = RecallService(self.mem, self.clock)
        self.mem_inspect = InspectService(self.mem, DEFAULT_REGISTRY, self.mem.tombstones)
        self.mem_forget = ForgetService(self.mem, self.mem.tombstones, self.clock, self.mem_ids, DEFAULT_REGISTRY)
        self.mem_maintain = MaintenanceService(self.mem, self.clock, self.mem_ids, DEFAULT_REGISTRY, policy=POLICY)
        self._derived_wiring("mem")

    def _open_sql(self) -> None:
        # NORMAL keeps WAL commits fast; durability across real crashes is test_sqlite_log's job.
        self.sql = SQLiteStorage(self.path, synchronous="NORMAL")
        self.sql_writes = WriteService(self.sql, self.clock, self.sql_ids, DEFAULT_REGISTRY)
        self.sql_recall = RecallService(self.sql, self.clock)
        self.sql_inspect = InspectService(self.sql, DEFAULT_REGISTRY, self.sql.tombstones)
        self.sql_forget = self._forget_service(self.sql)
        self.sql_maintain = MaintenanceService(self.sql, self.clock, self.sql_ids, DEFAULT_REGISTRY, policy=POLICY)
        self.writes_since_reopen = 0
        self.generation += 1
        self._derived_wiring("sql")

    def _forget_service(self, store: SQLiteStorage) -> ForgetService:
        # Guarded like every service (ADR 0046): a restore's forget cascades to derived items too.
        return ForgetService(relation_guarded(guarded(store, self.sql_ids), self.sql_ids, DEFAULT_REGISTRY, True),
                             store.tombstones, self.clock, self.sql_ids, DEFAULT_REGISTRY)

    def _derived_wiring(self, side: str) -> None:
        """The writing services of one side over the staleness guard (and the audit), and its
        derived-item service; called wherever the machine (re)wires a side."""
        failures = self.__dict__.setdefault("staleness_failures", [])
        store, ids = (self.mem, self.mem_ids) if side == "mem" else (self.sql, self.sql_ids)
        audited = relation_guarded(guarded(_StalenessAudit(store, failures), ids), ids, DEFAULT_REGISTRY, True)
        setattr(self, f"{side}_writes", WriteService(audited, self.clock, ids, DEFAULT_REGISTRY))
        setattr(self, f"{side}_forget", ForgetService(audited, store.tombstones, self.clock, ids, DEFAULT_REGISTRY))
        setattr(self, f"{side}_maintain", MaintenanceService(audited, self.clock, ids, DEFAULT_REGISTRY, policy=POLICY))
        setattr(self, f"{side}_derived", DerivedService(store, self.clock, ids, DEFAULT_REGISTRY))
        setattr(self, f"{side}_relations", RelationService(_StalenessAudit(store, failures), self.clock, ids,
                                                           DEFAULT_REGISTRY))

    def _enforcer(self, store: SQLiteStorage) -> BothEnforcers:
        """Restore's tombstone enforcement on both channels (facts, then episodes: ADR 0045)."""
        return BothEnforcers(self._forget_service(store),
                             ExperienceForgetService(store, store.tombstones, self.clock, self.sql_ids))

    def teardown(self) -> None:
        if self.sql is not None:
            self.sql.close()
        shutil.rmtree(self.dir, ignore_errors=True)

    # -- helpers --------------------------------------------------------------------------------

    def _both(self, write):
        """Run one write on both services; they must do exactly the same thing."""
        mem = _outcome(lambda: write(self.mem_writes))
        sql = _outcome(lambda: write(self.sql_writes))
        assert mem == sql, f"in-memory {mem} != sqlite {sql}"
        self.writes_since_reopen += 1
        return mem[0]

    def _command(self, drawn, evidence: tuple[str, ...] = ()) -> AssertClaim:
        subject, (predicate, coords, values), pick, start, length, ns = drawn
        valid_from = None if start is None else T0 + start * DAY
        valid_to = None
        if length is not None:
            valid_to = (valid_from or self.clock.now()) + length * DAY
        return AssertClaim(subject=subject, predicate=predicate, value=values[pick % len(values)],
                           coordinates=coords, valid_from=valid_from, valid_to=valid_to, namespace=ns,
                           evidence=evidence)

    def _changed(self, check: str, *, with_clock: bool = False) -> bool:
        """Whether ``check`` has not yet run on the current state (skips re-auditing after reads)."""
        token = (self.generation, self.sql.last_position(), self.mem.last_position(),
                 self.clock.now() if with_clock else None)
        if self._checked.get(check) == token:
            return False
        self._checked[check] = token
        return True

    def _log(self, store):
        # The log is append-only, so a read is reusable until the next append (or reopen).
        key = (id(store), self.generation, store.last_position())
        if self._log_cache.get(id(store), (None,))[0] != key:
            self._log_cache[id(store)] = (key, [s.event for s in store.read()])
        return self._log_cache[id(store)][1]

    def _all_claims(self, store) -> dict[str, ClaimState]:
        ids = list(dict.fromkeys(e.stream_id for e in self._log(store) if e.stream_id.startswith("cl_")))
        return store.get_claims(ids)

    def _all_observations(self, store) -> dict:
        ids = list(dict.fromkeys(e.stream_id for e in self._log(store) if e.stream_id.startswith("ev_")))
        return store.get_observations(ids)

    # -- rules ----------------------------------------------------------------------------------

    @initialize(target=observations, text=st.sampled_from(TEXTS))
    def first_observation(self, text: str) -> str:
        return self.record(text, "default", None, "default")

    @rule(target=observations, text=st.sampled_from(TEXTS), ns=st.sampled_from(WRITE_NAMESPACES),
          occurred=st.sampled_from((None, -2, 0, 3)), session=st.sampled_from(SESSIONS))
    def record(self, text: str, ns: str, occurred: int | None, session: str) -> str:
        at = None if occurred is None else T0 + occurred * DAY
        result = self._both(lambda w: w.record(RecordObservation(text=text, namespace=ns, occurred_at=at,
                                                                 session_id=session)))
        self.texts.setdefault(result.id, (text, ns))
        return result.id

    def _claimed(self, drawn, result) -> str:
        if not result:
            return "cl_never"
        command = self._command(drawn)
        self.texts.setdefault(result.id, (f"{command.subject} {command.value}", command.namespace))
        return result.id

    @rule(target=claims, drawn=claim_commands)
    def assert_claim(self, drawn) -> str:
        return self._claimed(drawn, self._both(lambda w: w.remember(self._command(drawn))))

    @rule(target=claims, drawn=claim_commands, evidence=st.lists(observations, min_size=1, max_size=2))
    def assert_claim_with_evidence(self, drawn, evidence: list[str]) -> str:
        result = self._both(lambda w: w.remember(self._command(drawn, tuple(evidence))))
        # Evidence that was forgotten is refused (issue 11), and so is an event the log no longer
        # holds (recorded after the backup a restore went back to); live evidence is accepted.
        logged = {e.stream_id for e in self._log(self.sql)}
        forgotten = sorted(set(evidence) & self.forgotten)
        missing = sorted(set(evidence) - logged)
        assert (result is None) == bool(forgotten or missing), (evidence, forgotten, missing, result)
        count_event("claim with evidence: " + ("refused (forgotten)" if forgotten else
                                                "refused (lost by a restore)" if missing else "accepted"))
        return self._claimed(drawn, result)

    @rule(target=claims, drawn=claim_commands, evidence=st.lists(observations, max_size=1),
          missing=st.sampled_from(("ev_00000000000000000000009999", "ev_missing")))
    def assert_claim_citing_a_missing_event(self, drawn, evidence: list[str], missing: str) -> str:
        """An id that names no event is refused by both stores, alone or beside a real one."""
        result = self._both(lambda w: w.remember(self._command(drawn, (*evidence, missing))))
        assert result is None, f"a claim citing {missing} (no such event) was accepted: {result}"
        return self._claimed(drawn, result)

    @rule(drawn=st.lists(claim_commands, min_size=2, max_size=4), evidence=st.lists(observations, max_size=1),
          record_first=st.booleans())
    def assert_batch_with_evidence(self, drawn, evidence: list[str], record_first: bool) -> None:
        """A batch whose first claim cites a drawn event and, perhaps, one the batch records before
        it (as an import does: the observation carries its id); all or nothing on both stores."""
        cited = tuple(evidence)
        head = []
        if record_first:
            self.batch_events += 1
            event_id = f"ev_batch{self.batch_events}"
            head = [(RecordObservation(text=TEXTS[self.batch_events % len(TEXTS)], session_id="s2", event_id=event_id),
                     None)]
            cited = (*cited, event_id)
        before = self.sql.last_position()
        result = self._both(lambda w: w.write_batch([*head, (self._command(drawn[0], cited), None),
                                                     *((self._command(d), None) for d in drawn[1:])]))
        if result is None:
            assert self.sql.last_position() == before, "a refused batch wrote something"

    @rule(drawn=st.lists(claim_commands, min_size=2, max_size=4))
    def assert_batch(self, drawn) -> None:
        # Several claims (often of one slot) in one transaction: decisions must see earlier ones.
        self._both(lambda w: w.write_batch([(self._command(d), None) for d in drawn]))

    @rule(claim=claims, reason=st.sampled_from(("", "wrong", "用户更正")))
    def retract(self, claim: str, reason: str) -> None:
        self._both(lambda w: w.retract(claim, reason))

    @rule(hours=st.sampled_from((1, 6, 24, 24 * 3, 24 * 20)))
    def advance_clock(self, hours: int) -> None:
        self.clock.advance(timedelta(hours=hours))

    @precondition(lambda self: self.writes_since_reopen > 0)
    @rule()
    def reopen(self) -> None:
        self._log_cache.pop(id(self.sql), None)
        self.sql.close()
        self._open_sql()

    @rule(query=st.sampled_from(QUERIES), ns=st.sampled_from(NAMESPACES),
          valid=st.sampled_from((None, -20, -2, 0, 1, 4, 30)), known=st.sampled_from((None, 0, 1, 5)),
          archived=st.booleans())
    def recall(self, query: str, ns: str, valid: int | None, known: int | None, archived: bool) -> None:
        valid_at = None if valid is None else T0 + valid * DAY
        known_at = None if known is None else T0 + known * DAY
        got = []
        for service in (self.mem_recall, self.sql_recall):
            result = service.recall(query, k=200, namespace=ns, valid_at=valid_at, known_at=known_at,
                                    include_archived=archived)
            got.append({(i.id, i.kind, i.status, i.valid_from, i.valid_to) for i in result.items})
        assert got[0] == got[1], f"recall {query!r} disagrees: only in-memory {got[0] - got[1]}, " \
                                 f"only sqlite {got[1] - got[0]}"
        assert not {item[0] for item in got[0]} & self.forgotten, "a forgotten item was recalled"

    # -- lifecycle --------------------------------------------------------------------------------

    @rule(days=st.sampled_from((1, 3, 10, 40, 120)))
    def maintain(self, days: int) -> None:
        """Time passes and a maintenance pass expires and archives (both stores, same decisions)."""
        self.clock.advance(days * DAY)
        reports = []
        for service in (self.mem_maintain, self.sql_maintain):
            # No time budget: a slow disk must not make the SQLite pass stop earlier than the other.
            outcome = _outcome(lambda s=service: s.run(max_seconds=3600.0))
            # Not ``examined``: how many candidates an adapter pre-selects is its own business.
            reports.append(outcome if outcome[0] is None else (
                (outcome[0].expired, outcome[0].archived, outcome[0].reasons, outcome[0].complete), None))
        assert reports[0] == reports[1], reports
        self.writes_since_reopen += 1
        if reports[0][0] is not None:
            count_event(f"maintain: expired {min(reports[0][0][0], 1)}+, archived {min(reports[0][0][1], 1)}+")

    @precondition(lambda self: any(c.archived for c in self._all_claims(self.mem).values()))
    @rule(data=st.data())
    def revive(self, data) -> None:
        archived = sorted(cid for cid, c in self._all_claims(self.mem).items() if c.archived)
        claim = data.draw(st.sampled_from(archived))
        mem = _outcome(lambda: self.mem_maintain.revive(claim, reason="asked for it"))
        sql = _outcome(lambda: self.sql_maintain.revive(claim, reason="asked for it"))
        assert mem == sql, (mem, sql)
        assert mem[1] is None and not self.mem.get_claims([claim])[claim].archived
        count_event("revive: an archived claim came back")

    @rule(claim=claims)
    def revive_any(self, claim: str) -> None:
        """Revive whatever the bundle holds: refusals (not archived, forgotten) must agree too."""
        mem = _outcome(lambda: self.mem_maintain.revive(claim))
        sql = _outcome(lambda: self.sql_maintain.revive(claim))
        assert mem == sql, (mem, sql)

    # -- forgetting ---------------------------------------------------------------------------------

    def _forget(self, target: ForgetTarget) -> None:
        before = self._all_claims(self.mem)
        before_obs = self._all_observations(self.mem)
        outcomes = []
        for service in (self.mem_forget, self.sql_forget):
            report, error = _outcome(lambda s=service: s.forget(target, actor="machine", reason="rule"))
            outcomes.append((error,) if report is None else (
                report.target_kind, report.namespace, dict(report.counts), report.items, report.forget_id,
                report.already_forgotten))
        assert outcomes[0] == outcomes[1], outcomes
        self.writes_since_reopen += 1
        if len(outcomes[0]) == 1:
            count_event(f"forget {target.kind}: {outcomes[0][0]}")
            return
        items = set(outcomes[0][3])
        count_event(f"forget {target.kind}: " + ("already forgotten" if outcomes[0][5] else f"removed {min(len(items), 3)}+"))
        self.forgotten |= items
        after = self._all_claims(self.mem)
        dead = items | ({eid for eid, o in before_obs.items() if o.forgotten}
                        if EARLIER_FORGOTTEN_EVIDENCE_IS_DEAD else set())
        for cid, claim in before.items():
            if claim.status is ClaimStatus.FORGOTTEN:
                continue
            touched = set(claim.evidence) & items
            if cid in items:
                continue
            # Claims with surviving evidence survive, losing only the links to forgotten events.
            assert after[cid].status is not ClaimStatus.FORGOTTEN, cid
            assert after[cid].evidence == tuple(e for e in claim.evidence if e not in items), cid
            # ... and a claim whose every piece of evidence is now forgotten goes with it.
            assert not (touched and all(e in dead for e in claim.evidence)), (cid, claim.evidence, items)

    @rule(claim=claims, ns=st.sampled_from(NAMESPACES))
    def forget_claim(self, claim: str, ns: str) -> None:
        self._forget(ForgetTarget("claim", claim, ns))

    @rule(event=observations, ns=st.sampled_from(NAMESPACES))
    def forget_event(self, event: str, ns: str) -> None:
        self._forget(ForgetTarget("event", event, ns))

    @rule(session=st.sampled_from(SESSIONS), ns=st.sampled_from(NAMESPACES))
    def forget_session(self, session: str, ns: str) -> None:
        self._forget(ForgetTarget("session", session, ns))

    @rule(subject=st.sampled_from(FORGET_SUBJECTS), ns=st.sampled_from(NAMESPACES))
    def forget_subject(self, subject: str, ns: str) -> None:
        self._forget(ForgetTarget("subject", subject, ns))

    # -- backup, restore, replay --------------------------------------------------------------------

    @precondition(lambda self: len(self.backups) < MAX_BACKUPS)
    @rule()
    def take_backup(self) -> None:
        target = self.dir / f"backup-{len(self.backups)}.db"
        info = backup(self.sql, target, clock=self.clock, ids=self.backup_ids)
        assert info.position == self.sql.last_position()
        self.backups.append((target, info))

    @precondition(lambda self: bool(self.backups))
    @rule(data=st.data())
    def restore_backup(self, data) -> None:
        """Restore any earlier backup onto the SQLite store; the in-memory store then mirrors it."""
        target, info = data.draw(st.sampled_from(self.backups))
        self._log_cache.clear()
        self.sql.close()
        result = restore(self.path, target, clock=self.clock, ids=self.sql_ids, enforcer=self._enforcer,
                         actor="machine", reason="rule")
        self._open_sql()
        assert result.position == self.sql.last_position()
        assert result.ledger_applied and not result.forced
        count_event(f"restore: reapplied {min(result.reapplied, 2)}+")
        # The in-memory store becomes the restored one: its log replayed, its ledger, its accesses
        # (the activity table came back with the file) and maintenance cursor copied.
        mirror = InMemoryStorage()
        mirror.tombstones = InMemoryTombstoneLedger(salt=self.sql.tombstones.salt())
        ReplayService(DEFAULT_REGISTRY).rebuild(self.sql, mirror)
        mirror.tombstones.add(self.sql.tombstones.tombstones())
        claim_ids = [s for s in self.sql.stream_versions() if s.startswith("cl_")]
        for cid, act in self.sql.activity(claim_ids).items():
            if act.last_access is not None and act.accesses:
                mirror._activity._accesses[cid] = (act.last_access, act.accesses)  # test-only: mirror telemetry
        if (cursor := self.sql.meta(CURSOR_KEY)) is not None:
            mirror.set_meta(CURSOR_KEY, cursor)
        self.mem = mirror
        # Both sides go on from the same id: the restore used some of the SQLite side's.
        following = int(self.sql_ids.new("x").split("_")[1]) + 1
        self.mem_ids, self.sql_ids = SequentialIds(following), SequentialIds(following)
        self._wire_mem()
        self.sql_writes = WriteService(self.sql, self.clock, self.sql_ids, DEFAULT_REGISTRY)
        self.sql_forget = self._forget_service(self.sql)
        self.sql_maintain = MaintenanceService(self.sql, self.clock, self.sql_ids, DEFAULT_REGISTRY, policy=POLICY)
        self._derived_wiring("sql")
        self.generation += 1
        # Restoring an earlier backup never brings back what was forgotten since.
        states = {**self._all_claims(self.sql), **self._all_observations(self.sql)}
        back = [sid for sid in self.forgotten if sid in states and not _is_forgotten(states[sid])]
        assert not back, f"restore of {info.backup_id} resurrected {back}"
        # Enforcing the ledger may forget more than the live store had: an event whose text equals
        # a forgotten one's matches its fingerprint (docs/forgetting.md, "Restore"). Those are
        # forgotten now, and stay so.
        self.forgotten |= {e.stream_id for e in self._log(self.sql) if isinstance(e, ItemForgotten)}

    @precondition(lambda self: bool(self.backups))
    @rule(claim=claims, event=observations, data=st.data())
    def forget_then_restore(self, claim: str, event: str, data) -> None:
        """The issue's scenario, made likely: forget after a backup, then restore that backup."""
        self._forget(ForgetTarget("claim", claim, "default"))
        self._forget(ForgetTarget("event", event, "default"))
        self.restore_backup(data)

    @rule()
    def replay_into_sqlite(self) -> None:
        """Replay the log into a fresh SQLite file (payloads copied as stored, erased ones redacted)."""
        self.replays += 1
        fresh = SQLiteStorage(self.dir / f"replay-{self.replays}.db", synchronous="OFF")
        try:
            replay = ReplayService(DEFAULT_REGISTRY)
            assert replay.rebuild(self.sql, fresh) == self.sql.last_position()
            report = replay.compare(self.sql, fresh)
            assert report.equal, report.differences
        finally:
            fresh.close()

    # -- invariants -----------------------------------------------------------------------------

    @invariant()
    def logs_are_identical(self) -> None:
        mem, sql = list(self.mem.read()), list(self.sql.read())
        assert mem == sql
        assert [s.position for s in sql] == list(range(1, len(sql) + 1))
        assert self.mem.last_position() == self.sql.last_position() == len(sql)

    @invariant()
    def versions_are_gapless_per_stream(self) -> None:
        if not self._changed("versions_are_gapless_per_stream"):
            return
        seen: dict[str, int] = {}
        for event in self._log(self.sql):
            assert event.version == seen.get(event.stream_id, 0) + 1, event
            seen[event.stream_id] = event.version
        for sid, version in seen.items():
            assert self.sql.stream_version(sid) == self.mem.stream_version(sid) == version

    @invariant()
    def projection_equals_fold_of_the_log(self) -> None:
        if not self._changed("projection_equals_fold_of_the_log"):
            return
        for store in (self.mem, self.sql):
            view = project(self._log(store))
            assert store.get_claims(list(view.claims)) == dict(view.claims)
            assert store.get_observations(list(view.observations)) == dict(view.observations)

    @invariant()
    def stores_agree(self) -> None:
        if not self._changed("stores_agree"):
            return
        claims = self._all_claims(self.mem)
        assert self._all_claims(self.sql) == claims
        obs = [e.stream_id for e in self._log(self.mem) if e.stream_id.startswith("ev_")]
        assert self.sql.get_observations(obs) == self.mem.get_observations(obs)
        assert self.sql.counts() == self.mem.counts()
        for claim in claims.values():
            assert (sorted(c.claim_id for c in self.sql.slot_claims(claim.slot_key))
                    == sorted(c.claim_id for c in self.mem.slot_claims(claim.slot_key)))
        for event_id in obs:
            assert self.sql.claims_citing(event_id) == self.mem.claims_citing(event_id)

    @invariant()
    def live_claims_rest_on_live_evidence(self) -> None:
        """No claim that is not forgotten cites an event that is forgotten or missing (issue 11)."""
        if not self._changed("live_claims_rest_on_live_evidence"):
            return
        for store in (self.mem, self.sql):
            claims = [c for c in self._all_claims(store).values() if c.status is not ClaimStatus.FORGOTTEN]
            cited = store.get_observations(sorted({e for c in claims for e in c.evidence}))
            for claim in claims:
                assert not evidence_problems(claim.evidence, cited), (claim.claim_id, claim.evidence)

    @invariant()
    def single_valued_slots_hold_one_value_at_a_time(self) -> None:
        if not self._changed("single_valued_slots_hold_one_value_at_a_time"):
            return
        slots: dict[str, list[ClaimState]] = {}
        for claim in self._all_claims(self.mem).values():
            if DEFAULT_REGISTRY.cardinality(claim.predicate, claim.cardinality) is Cardinality.SINGLE:
                slots.setdefault(claim.slot_key, []).append(claim)
        for key, members in slots.items():
            rows = [(c, r) for c in members for r in c.versions]
            # Two half-open rectangles meet iff the larger of their lower corners lies in both, so
            # checking every pairwise corner is checking every boundary instant that matters.
            corners = {(max(r1.valid_from, r2.valid_from), max(r1.recorded_from, r2.recorded_from))
                       for _, r1 in rows for _, r2 in rows}
            for valid_at, known_at in corners:
                held = values_at(members, valid_at, known_at)
                if SKIP_EXPIRED_IN_ONE_VALUE_CHECK:
                    held = [c for c in held if c.status is not ClaimStatus.EXPIRED]
                assert len(held) <= 1, (key, valid_at, known_at, [(c.claim_id, c.value) for c in held])
            for (c1, r1) in rows:
                for (c2, r2) in rows:
                    if SKIP_EXPIRED_IN_ONE_VALUE_CHECK and ClaimStatus.EXPIRED in (c1.status, c2.status):
                        continue
                    if c1.claim_id < c2.claim_id and ClaimStatus.FORGOTTEN not in (c1.status, c2.status):
                        assert not _rectangles_overlap(r1, r2), (key, c1.claim_id, r1, c2.claim_id, r2)

    @invariant()
    def current_recall_shows_exactly_what_holds_now(self) -> None:
        if not self._changed("current_recall", with_clock=True):
            return
        now = self.clock.now()
        claims = self._all_claims(self.mem)
        for ns in NAMESPACES:
            for subject in {normalize_key(s) for s in SUBJECTS}:
                mine = [c for c in claims.values() if c.namespace == ns and normalize_key(c.subject) == subject]
                if not mine:
                    continue
                # Archived claims leave normal recall (lifecycle); forgotten ones have no subject left.
                expected = {c.claim_id for c in mine if holds(c, now, now) and not c.archived}
                for service in (self.mem_recall, self.sql_recall):
                    got = {i.id for i in service.recall(subject, k=200, namespace=ns, kinds=("claim",)).items}
                    assert got == expected, (ns, subject, got ^ expected)
                    for claim in mine:
                        if claim.status is ClaimStatus.SUPERSEDED and not holds(claim, now, now):
                            assert claim.claim_id not in got

    @invariant()
    def history_keeps_every_claim(self) -> None:
        if not self._changed("history_keeps_every_claim"):
            return
        for claim in self._all_claims(self.mem).values():
            if claim.status is ClaimStatus.FORGOTTEN:
                continue  # its subject and predicate are gone: there is no slot to look it up by
            for inspect in (self.mem_inspect, self.sql_inspect):
                history = inspect.history(claim.subject, claim.predicate, namespace=claim.namespace)
                assert claim.claim_id in [c.claim_id for c in history]

    @invariant()
    def replay_rebuilds_the_same_state(self) -> None:
        if not self._changed("replay_rebuilds_the_same_state"):
            return
        rebuilt = InMemoryStorage()
        replay = ReplayService(DEFAULT_REGISTRY)
        assert replay.rebuild(self.sql, rebuilt) == self.sql.last_position()
        report = replay.compare(self.sql, rebuilt)
        assert report.equal, report.differences
        assert self._all_claims(rebuilt) == self._all_claims(self.sql)


    @invariant()
    def forgotten_items_stay_forgotten(self) -> None:
        """Never recalled, explained beyond "forgotten at", exported, or brought back."""
        if not self.forgotten or not self._changed("forgotten_items_stay_forgotten"):
            return
        for store, recall, inspect in ((self.mem, self.mem_recall, self.mem_inspect),
                                       (self.sql, self.sql_recall, self.sql_inspect)):
            states = {**self._all_claims(store), **self._all_observations(store)}
            present = [sid for sid in sorted(self.forgotten) if sid in states]
            for sid in present:
                assert _is_forgotten(states[sid]), (sid, states[sid])
                explained = inspect.explain(sid)
                assert explained.kind == "forgotten" and explained.item_id == sid, explained
                assert (explained.claim, explained.observation, explained.evidence, explained.chain,
                        explained.cited_by) == (None, None, (), (), ()), explained
            searchable = {item_id for item_id, _kind in store.items()}
            assert not searchable & self.forgotten
            # "Exported": the log (what an export or a replay reads) keeps no content of them.
            for event in self._log(store):
                if event.stream_id in self.forgotten and not isinstance(event, ItemForgotten):
                    assert is_redacted(event), event
            for sid in present:
                text, ns = self.texts.get(sid, ("", "default"))
                if text:
                    found = recall.recall(text, k=200, namespace=ns, include_archived=True)
                    assert sid not in {i.id for i in found.items}, (sid, text)

    # -- the experience channel (issue 17, ADR 0045) ------------------------------------------------
    # Episodes run on both stores with the same ids; ending one runs its situation's policy
    # lifecycle. Thresholds are low, so that a few episodes make candidates, active policies and
    # procedures, and a few failures retire and demote them.

    episodes = Bundle("episodes")

    def _experience(self, store, ids):
        return ExperienceService(store, self.clock, ids, MACHINE_THRESHOLDS)

    def _both_experience(self, call):
        mem = _outcome(lambda: call(self._experience(self.mem, self.mem_ids)))
        sql = _outcome(lambda: call(self._experience(self.sql, self.sql_ids)))
        assert mem == sql, f"in-memory {mem} != sqlite {sql}"
        self.writes_since_reopen += 1
        return mem

    @rule(target=episodes, goal=st.sampled_from(GOALS), approach=st.sampled_from(APPROACHES))
    def start_episode(self, goal: str, approach: str) -> str:
        result, error = self._both_experience(lambda x: x.start(StartEpisode(goal=goal, approach=approach)))
        assert error is None, error
        return result.episode_id

    @rule(episode=episodes, action=st.sampled_from(("build", "test", "ship", "build")), failed=st.booleans(),
          evidence=st.lists(observations, max_size=1), cost=st.sampled_from((0.0, 1.5, -1.0)))
    def record_step(self, episode: str, action: str, failed: bool, evidence: list[str], cost: float) -> None:
        result, error = self._both_experience(lambda x: x.record_step(RecordStep(
            episode_id=episode, action=action, error="E42" if failed else "", evidence=tuple(evidence), cost=cost)))
        count_event(f"episode step: {error or 'recorded'}")
        if cost < 0:
            assert error is not None  # refused, and nothing was written (the logs still agree)

    @rule(episode=episodes, status=st.sampled_from(("succeeded", "succeeded", "failed", "cancelled")),
          reward=st.sampled_from((None, 0.0, 1.0, 1.5)))
    def end_episode(self, episode: str, status: str, reward: float | None) -> None:
        result, error = self._both_experience(lambda x: x.end(EndEpisode(episode_id=episode, status=status,
                                                                        reward=reward)))
        count_event(f"episode end: {error or 'ended'}")
        if result is not None:
            for e in result.changes:
                count_event(f"experience change: {type(e).__name__}")

    @rule(target=episodes, goal=st.sampled_from(GOALS), approach=st.sampled_from(APPROACHES),
          outcomes=st.lists(st.sampled_from(("succeeded", "succeeded", "failed")), min_size=2, max_size=4))
    def run_episodes(self, goal: str, approach: str, outcomes: list[str]) -> str:
        """Several whole episodes of one situation: what makes policies, procedures and their changes likely."""
        last = ""
        for status in outcomes:
            last = self.start_episode(goal, approach)
            self.record_step(last, "build", False, [], 0.0)
            self.end_episode(last, status, None)
        return last

    @rule(episode=episodes)
    def forget_episode(self, episode: str) -> None:
        outcomes = []
        for store, ids in ((self.mem, self.mem_ids), (self.sql, self.sql_ids)):
            service = ExperienceForgetService(store, store.tombstones, self.clock, ids)
            report, error = _outcome(lambda s=service: s.forget_episode(episode, actor="machine", reason="rule"))
            outcomes.append((error,) if report is None else (dict(report.counts), report.items, report.forget_id,
                                                             report.already_forgotten))
        assert outcomes[0] == outcomes[1], outcomes
        self.writes_since_reopen += 1
        if len(outcomes[0]) > 1:
            self.forgotten |= set(outcomes[0][1])
            count_event("forget episode: " + ("already forgotten" if outcomes[0][3] else
                                               f"removed {min(len(outcomes[0][1]), 3)}+"))

    def _experience_states(self, store) -> dict:
        ids = list(dict.fromkeys(e.stream_id for e in self._log(store) if is_experience_stream(e.stream_id)))
        x = store.experience
        return {**x.get_episodes(ids), **x.get_policies(ids), **x.get_procedures(ids)}

    @invariant()
    def experience_equals_fold_and_agrees(self) -> None:
        if not self._changed("experience_equals_fold_and_agrees"):
            return
        folded: dict = {}
        for event in self._log(self.sql):
            if is_experience_stream(event.stream_id):
                folded[event.stream_id] = reduce_experience(folded.get(event.stream_id), event)
        assert self._experience_states(self.sql) == folded
        assert self._experience_states(self.mem) == folded
        # The counts and support projections (ADR 0071) are folds of the same log, on both stores.
        counts: dict = {}
        for (ns, sig, approach), row in fold_counts(s for s in folded.values() if isinstance(s, EpisodeState)).items():
            counts.setdefault(ns, {}).setdefault(sig, {})[approach] = Counts(*row)
        links = {p: list(v.items()) for p, v in fold_support(self._log(self.sql)).items()}
        policy_ids = [sid for sid in folded if sid.startswith("po_")]
        for store in (self.sql, self.mem):
            for ns in {s.namespace for s in folded.values()} | set(counts):
                assert store.experience.situation_counts(ns) == counts.get(ns, {}), ns
            assert {p: list(v.items()) for p, v in store.experience.support_of(policy_ids).items()} == links
        for sid, state in folded.items():
            if isinstance(state, PolicyState):
                own = dict(links.get(sid, []))
                assert (state.successes, state.failures) == (sum(own.values()), len(own) - sum(own.values()))
                assert state.streak == trailing_failures(own.values()), state

    @invariant()
    def no_active_policy_without_support(self) -> None:
        if not self._changed("no_active_policy_without_support"):
            return
        states = self._experience_states(self.sql)
        for sid, state in states.items():
            if sid.startswith("po_") and state.status in ("candidate", "active"):
                assert state.support, state
                for eid in state.recent_episodes:
                    assert states[eid].status in ("succeeded", "failed"), (sid, eid, states[eid].status)
            if sid.startswith("pd_") and state.status == "active":
                assert states[state.policy_id].status == "active", (sid, states[state.policy_id])
                assert states[state.source_episode].status == "succeeded"
        live = [p for p in states.values() if isinstance(p, PolicyState) and p.status in ("candidate", "active")]
        per_situation = {(p.namespace, p.signature) for p in live}
        assert len(per_situation) == len(live), "two live policies for one situation"

    @invariant()
    def forgotten_episodes_leave_nothing(self) -> None:
        gone = {s for s in self.forgotten if s.startswith("ep_")}
        if not gone or not self._changed("forgotten_episodes_leave_nothing"):
            return
        for store in (self.mem, self.sql):
            states = self._experience_states(store)
            for eid in gone:
                if eid in states:  # (a restore of an older backup may predate the episode)
                    assert states[eid].status == "forgotten" and states[eid].goal == "", states[eid]
                    assert all(not s.action and not s.observation for s in states[eid].steps)
            for state in states.values():
                if isinstance(state, PolicyState):
                    assert not gone & set(state.recent_episodes), state
                elif isinstance(state, ProcedureState) and state.status != "forgotten":
                    assert state.source_episode not in gone, state


    # -- derived items (issue 17 item 6, ADR 0046) ----------------------------------------------------

    @rule(subject=st.sampled_from((None, *SUBJECTS)), ns=st.sampled_from(NAMESPACES))
    def derive(self, subject: str | None, ns: str) -> None:
        """Build observation summaries and mental models (one subject or all) on both stores."""
        got = [_outcome(lambda s=service: s.build(ns, subject)) for service in (self.mem_derived, self.sql_derived)]
        assert got[0] == got[1], got
        self.writes_since_reopen += 1
        if got[0][0] is not None:
            count_event(f"derive: built {min(len(got[0][0].built), 2)}+, rebuilt {min(len(got[0][0].rebuilt), 1)}+, "
                        f"removed {min(len(got[0][0].removed), 1)}+")

    @rule()
    def rebuild_stale(self) -> None:
        """What the worker's ``derive`` jobs do: rebuild every stale item (both stores alike)."""
        stale = [sorted(d.derived_id for ns in NAMESPACES for d in store.derived_items(ns) if d.status == STALE)
                 for store in (self.mem, self.sql)]
        assert stale[0] == stale[1], stale
        got = [_outcome(lambda s=service: s.rebuild(stale[0])) for service in (self.mem_derived, self.sql_derived)]
        assert got[0] == got[1], got
        self.writes_since_reopen += 1
        count_event(f"rebuild: {min(len(stale[0]), 2)}+ stale")
        for store in (self.mem, self.sql):
            left = [d for d in store.get_derived(stale[0]).values() if d.status == STALE]
            assert not left, left

    @rule(subject=st.sampled_from(SUBJECTS), ns=st.sampled_from(NAMESPACES))
    def recall_profile(self, subject: str, ns: str) -> None:
        """A profile question (ADR 0084): both stores serve the same derived items, each current and
        resting on active claims only; a stale one is never served."""
        got = []
        for store, service in ((self.mem, self.mem_recall), (self.sql, self.sql_recall)):
            items = [i for i in service.recall(f"what do you know about {subject}?", namespace=ns).items
                     if i.kind in DERIVED_KINDS]
            states = store.get_derived([i.id for i in items])
            claims = store.get_claims([c for i in items for c in i.evidence])
            for item in items:
                assert states[item.id].status == CURRENT and item.text == states[item.id].text, item
                assert all(claims[c].status is ClaimStatus.ACTIVE for c in item.evidence), item
            got.append([(i.id, i.kind) for i in items])
        assert got[0] == got[1]
        count_event(f"profile recall: {min(len(got[0]), 1)}+ derived")

    @invariant()
    def derived_items_follow_their_sources(self) -> None:
        """No derived item cites a forgotten claim or keeps its content in the log; a current one
        rests on active claims only, at the end of every write transaction; projection = fold."""
        failures = self.__dict__.get("staleness_failures", [])
        assert not failures, f"a current derived item outlived its source's transaction: {failures[:3]}"
        if not self._changed("derived_items_follow_their_sources"):
            return
        folds = []
        for store in (self.mem, self.sql):
            log = self._log(store)
            folded = project_derived(log)
            assert store.get_derived(list(folded)) == folded
            claims = self._all_claims(store)
            gone = {cid for cid, c in claims.items() if c.status is ClaimStatus.FORGOTTEN}
            for d in folded.values():
                if d.status == FORGOTTEN:
                    assert (d.text, d.subject, d.sources) == ("", "", ()), d
                    continue
                assert not gone.intersection(d.source_ids), (d.derived_id, gone.intersection(d.source_ids))
                assert all(c in claims for c in d.source_ids), d
                if d.status == CURRENT:
                    assert all(claims[c].status is ClaimStatus.ACTIVE for c in d.source_ids), d
            for event in log:
                if isinstance(event, DerivedBuilt) and gone.intersection(c for c, _ in event.sources):
                    assert is_redacted(event), event
            # Searchable iff current (ADR 0084): built and neither stale, removed nor forgotten.
            searchable = {i for i, kind in store.items() if kind == "derived"}
            assert searchable == {i for i, d in folded.items() if state_index_text(d)}, (searchable, folded)
            folds.append(folded)
        assert folds[0] == folds[1]
        if isinstance(self.sql, SQLiteStorage):  # (the PostgreSQL machine reuses these rules)
            # The full-text rows hold each current item's text as it is now, nothing of an earlier
            # version, a stale one or a forgotten source (secure-delete takes the bytes: ADR 0014).
            con = self.sql.connection
            bodies = dict(con.execute("SELECT i.item_id, f.body FROM items i JOIN derived_fts f "
                                      "ON f.rowid = i.item_key WHERE i.kind = 'derived'"))
            assert not con.execute("SELECT 1 FROM items i JOIN items_fts f ON f.rowid = i.item_key "
                                   "WHERE i.kind = 'derived'").fetchall()
            assert bodies == {i: index_text(state_index_text(d)) for i, d in folds[1].items() if state_index_text(d)}
        if folds[0]:
            count_event("derived items: " + ",".join(sorted({d.status for d in folds[0].values()})))

    # -- relations (issue 37 item 1, ADR 0081) ------------------------------------------------------

    @rule(data=st.data(), accept=st.booleans(), status=st.sampled_from(("proposed", "proposed", None)))
    def review_relation(self, data, accept: bool, status: str | None) -> None:
        """Accept or reject one edge (from the queue, or any edge) on both stores alike."""
        listed = [[r.relation_id for ns in NAMESPACES for r in svc.list(ns, status=status, limit=1000)]
                  for svc in (self.mem_relations, self.sql_relations)]
        assert listed[0] == listed[1], listed
        if not listed[0]:
            return
        rid = data.draw(st.sampled_from(listed[0]))
        got = [_outcome(lambda s=svc: (s.accept if accept else s.reject)(rid, actor="machine").relation)
               for svc in (self.mem_relations, self.sql_relations)]
        assert got[0] == got[1], got
        self.writes_since_reopen += 1
        count_event(f"review {'accept' if accept else 'reject'}: " + (got[0][1] or got[0][0].status))

    @rule(ns=st.sampled_from(NAMESPACES))
    def scan_relations(self, ns: str) -> None:
        """Propose from every current claim (a scan) on both stores alike: nothing new after the write path."""
        got = [_outcome(lambda s=svc: s.scan(ns)) for svc in (self.mem_relations, self.sql_relations)]
        assert got[0] == got[1], got
        assert got[0][0] is not None and not got[0][0].proposed and not got[0][0].corroborated, got[0]

    @invariant()
    def relations_follow_their_evidence(self) -> None:
        """No open edge without live evidence (checked at every transaction's end by the audit); a
        forgotten edge keeps no name in its state or its log; projection = fold, on both stores."""
        failures = self.__dict__.get("staleness_failures", [])
        assert not failures, f"an edge or derived item outlived its evidence's transaction: {failures[:3]}"
        if not self._changed("relations_follow_their_evidence"):
            return
        folds = []
        for store in (self.mem, self.sql):
            log = self._log(store)
            folded = project_relations(log)
            assert store.relations.get_relations(list(folded)) == folded
            claims, observations = self._all_claims(store), self._all_observations(store)
            gone = ({c for c, s in claims.items() if s.status is ClaimStatus.FORGOTTEN}
                    | {e for e, o in observations.items() if o.forgotten})
            for r in folded.values():
                if r.status == "forgotten":
                    assert (r.source_name, r.target_name, r.evidence) == ("", "", ()), r
                    continue
                assert not gone.intersection(r.evidence), (r.relation_id, gone.intersection(r.evidence))
            for event in log:
                if isinstance(event, RelationProposed) and folded[event.stream_id].status == "forgotten":
                    assert is_redacted(event), event
            folds.append(folded)
        assert folds[0] == folds[1]
        if folds[0]:
            count_event("relations: " + ",".join(sorted({r.status for r in folds[0].values()})))


TestMemoryMachine = MemoryMachine.TestCase


def test_a_late_fact_inside_an_expired_claims_validity_supersedes_it() -> None:
    """Found by the machine: expiry must not change what a later assertion decides.

    Without a maintenance pass the late 2.0 supersedes 1.2 from its start; after the pass expired
    1.2 (its valid_to passed), the same assertion is "created" and both values hold at T0+3d.
    """
    outcomes = []
    for maintain in (False, True):
        clock, store, ids = FixedClock(T0), InMemoryStorage(), SequentialIds(1)
        writes = WriteService(store, clock, ids, DEFAULT_REGISTRY)
        jieba = (("component", "jieba"),)
        old = writes.remember(AssertClaim(subject="user", predicate="version", value="1.2", coordinates=jieba,
                                          valid_from=T0 + DAY, valid_to=T0 + 4 * DAY)).id
        clock.advance(30 * DAY)
        if maintain:
            assert MaintenanceService(store, clock, ids, DEFAULT_REGISTRY).run().expired == 1
        writes.remember(AssertClaim(subject="user", predicate="version", value="2.0", coordinates=jieba,
                                    valid_from=T0 + 2 * DAY))
        slot = store.slot_claims(store.get_claims([old])[old].slot_key)
        outcomes.append([c.value for c in values_at(slot, T0 + 3 * DAY, clock.now())])
    assert outcomes == [["2.0"], ["2.0"]]


#: The machine's invariants, for the plain tests that drive it step by step.
INVARIANTS = tuple(re.findall(r"@invariant\(\)\s+def (\w+)", Path(__file__).read_text(encoding="utf-8")))


def _drive(steps) -> None:
    """Run ``steps`` (callables taking the machine) on a fresh machine, checking every invariant
    after each, as Hypothesis does; the rules' own assertions check each step."""
    machine = MemoryMachine()
    try:
        for step in steps:
            step(machine)
            for name in INVARIANTS:
                getattr(machine, name)()
    finally:
        machine.teardown()


def test_issue_11_claims_on_forgotten_evidence_are_refused_and_none_outlives_its_evidence() -> None:
    """The falsifying sequence of issue 11, on both stores.

    Record A; record B; forget B; assert user · theme with evidence [B] (accepted before the fix);
    the same claim with evidence [A] (corroborated: evidence (B, A)); a batch of two; retract one;
    assert again; forget session "default" (takes A). Before the fix the claim survived with every
    piece of its evidence forgotten. Now the claim on [B] is refused, the one on [A] is created,
    and forgetting A takes it.
    """
    theme = SLOTS[0]
    seen: dict[str, str] = {}

    def keep(name, call):
        return lambda m: seen.__setitem__(name, call(m))

    _drive([
        keep("a", lambda m: m.first_observation(TEXTS[0])),
        keep("b", lambda m: m.record(TEXTS[1], "default", None, "s1")),
        lambda m: m.forget_event(seen["b"], "default"),
        keep("on_b", lambda m: m.assert_claim_with_evidence(("user", theme, 0, None, None, "default"), [seen["b"]])),
        keep("on_a", lambda m: m.assert_claim_with_evidence(("user", theme, 0, None, None, "default"), [seen["a"]])),
        lambda m: m.assert_batch([("User", theme, 1, 2, None, "default"), ("小明", SLOTS[4], 1, None, None, "default")]),
        lambda m: m.retract(seen["on_a"], "wrong"),
        lambda m: m.assert_claim(("user", theme, 0, None, None, "default")),
        lambda m: m.forget_session("default", "default"),
    ])
    assert seen["on_b"] == "cl_never" and seen["on_a"].startswith("cl_")


def test_issue_11_by_hand_every_write_path_refuses_forgotten_and_unknown_evidence() -> None:
    """remember, corroborate and batch refuse; the forget of A then takes the claim that cited it."""
    from hlmem import Memory
    from hlmem.domain.evidence import EVIDENCE_FORGOTTEN, EVIDENCE_UNKNOWN, UnusableEvidence

    with Memory(":memory:", embedder="none", now=T0) as mem:
        a = mem.add("I switched to dark mode", extract=False).id
        b = mem.add("我喜欢深色主题", session="s1", extract=False).id
        mem.forget(b)
        before = mem.storage.last_position()
        for evidence, reason in (([b], EVIDENCE_FORGOTTEN), (["ev_nosuchevent"], EVIDENCE_UNKNOWN),
                                 ([a, b], EVIDENCE_FORGOTTEN)):
            with pytest.raises(UnusableEvidence, match=reason) as refused:
                mem.remember("user", "theme", "dark", evidence=evidence)
            assert refused.value.reason == reason
        assert mem.storage.last_position() == before, "a refused write wrote something"
        claim = mem.remember("user", "theme", "dark", evidence=[a]).id
        with pytest.raises(UnusableEvidence):  # corroboration of the same claim
            mem.remember("user", "theme", "dark", evidence=[b])
        assert mem.storage.get_claims([claim])[claim].evidence == (a,)
        mem.forget(session="default")
        assert mem.storage.get_claims([claim])[claim].status is ClaimStatus.FORGOTTEN


class _Drawn:
    """Stands in for ``st.data()`` when a plain test drives a rule that draws: ``draw`` gives ``value``."""

    def __init__(self, value) -> None:
        self.value = value

    def draw(self, _strategy):
        return self.value


def test_an_event_lost_by_a_restore_is_unknown_evidence() -> None:
    """Found by the thorough run (seed 2427155683): an event recorded after a backup is gone once
    that backup is restored, so a claim citing it is refused as ``evidence.unknown`` by both stores."""
    seen: dict[str, str] = {}
    _drive([
        lambda m: m.first_observation(TEXTS[0]),
        lambda m: m.take_backup(),
        lambda m: seen.__setitem__("late", m.record(TEXTS[0], "default", None, "default")),
        lambda m: m.restore_backup(_Drawn(m.backups[0])),
        lambda m: seen.__setitem__("claim", m.assert_claim_with_evidence(("user", SLOTS[0], 0, None, None, "default"),
                                                                         [seen["late"]])),
    ])
    assert seen["claim"] == "cl_never"


def test_evidence_after_a_restore_that_enforced_a_forgotten_text_follows_the_restored_store() -> None:
    """Found by the thorough run (seeds 3640356220, 924229099): the restore's ledger enforcement
    forgets, by fingerprint, an event that repeats a forgotten event's text, although the live
    store kept it (it forgot the other by id). The machine must take the restored log's forgets
    as its own; a claim citing that event is then refused, by both stores alike."""
    seen: dict[str, str] = {}
    _drive([
        lambda m: seen.__setitem__("first", m.first_observation(TEXTS[0])),
        lambda m: seen.__setitem__("claim", m.assert_claim(("user", SLOTS[0], 0, None, None, "default"))),
        lambda m: m.take_backup(),
        lambda m: seen.__setitem__("repeat", m.record(TEXTS[0], "default", None, "default")),
        lambda m: m.forget_then_restore(seen["claim"], seen["repeat"], _Drawn(m.backups[0])),
        lambda m: seen.__setitem__("cited", m.assert_claim_with_evidence(("user", SLOTS[0], 0, None, None, "default"),
                                                                         [seen["first"]])),
    ])
    assert seen["cited"].startswith("cl_")  # "cl_never" when refused: the rule checked which is right


def test_recall_agrees_when_many_turns_tie_on_full_text_score() -> None:
    """Found by the thorough run (seed 2051717004): ten copies of one turn across sessions, a few
    other turns. The adapters returned full-text ties in different orders (in-memory by id, SQLite
    newest first), so the neighbouring-turn stage lifted different turns; both now put the item
    indexed last first."""
    dark, likes, lives = TEXTS[0], TEXTS[1], TEXTS[2]
    turns = [("default", 3, "default", dark), ("default", None, "s2", dark), ("default", 3, "default", dark),
             ("default", None, "default", likes), ("work", None, "default", dark), ("default", None, "default", lives),
             ("default", None, "s1", dark), ("work", None, "default", dark), ("default", None, "s1", dark),
             ("default", None, "default", likes), ("default", -2, "s2", likes), ("default", None, "default", dark),
             ("default", None, "default", dark)]
    _drive([lambda m: m.first_observation(dark),
            *(lambda m, t=t: m.record(t[3], t[0], t[1], t[2]) for t in turns),
            lambda m: m.recall("mode", "default", None, None, False)])


def _legacy_claim(store, claim_id: str, evidence: tuple[str, ...]) -> None:
    """Append, as a version before issue 11 did, a claim citing ``evidence`` whatever its state."""
    from hlmem.domain.events import ClaimAsserted

    store.append([ClaimAsserted(
        event_id=f"lg_{claim_id}", stream_id=claim_id, version=1, recorded_at=T0, namespace="default",
        subject="user", predicate="preferred_ui_theme", value="dark", valid_from=T0, evidence=evidence)])


@pytest.mark.parametrize("sqlite", [False, True], ids=["memory", "sqlite"])
def test_a_legacy_claim_left_citing_only_forgotten_events_is_forgotten_and_its_log_replays(
        sqlite: bool, tmp_path: Path) -> None:
    """Found by the machine: evidence forgotten before a claim cited it is dead in a later cascade.

    Writes now refuse such a claim, but a log written before the rule may hold one: it must
    replay (reducers never raise on accepted events), and forgetting its last live evidence takes it.
    """
    clock = FixedClock(T0)
    store = SQLiteStorage(tmp_path / "legacy.db") if sqlite else InMemoryStorage()
    ids = SequentialIds(1)
    try:
        writes = WriteService(store, clock, ids, DEFAULT_REGISTRY)
        forget = ForgetService(store, store.tombstones, clock, ids, DEFAULT_REGISTRY)
        first = writes.record(RecordObservation(text="I switched to dark mode")).id
        forget.forget(ForgetTarget("event", first))
        second = writes.record(RecordObservation(text="my theme is dark", session_id="s1")).id
        _legacy_claim(store, "cl_legacy", (first, second, "ev_neverrecorded"))
        rebuilt = InMemoryStorage()
        replay = ReplayService(DEFAULT_REGISTRY)
        assert replay.rebuild(store, rebuilt) == store.last_position()
        assert replay.compare(store, rebuilt).equal
        report = forget.forget(ForgetTarget("event", second))
        assert "cl_legacy" in report.items
        assert store.get_claims(["cl_legacy"])["cl_legacy"].status is ClaimStatus.FORGOTTEN
    finally:
        store.close()


def test_the_experience_rules_by_hand_policies_procedures_forget_restore_replay() -> None:
    """A pinned run through the experience rules: episodes make an active policy and a procedure,
    a backup is taken, an episode is forgotten, failures retire the policy, the backup is restored
    (the forgotten episode stays forgotten) and the log is replayed; every invariant after each step."""
    ids: list[str] = []

    class Draw:
        def draw(self, _strategy):
            return MemoryMachine_backups[0]

    MemoryMachine_backups: list = []

    def remember_backup(m):
        m.take_backup()
        MemoryMachine_backups.append(m.backups[-1])

    def assert_learnt(m):
        assert [p.status for p in m.sql.experience.policies("default")] == ["active"]
        assert [p.status for p in m.sql.experience.procedures("default")] == ["active"]

    steps = [lambda m: ids.append(m.run_episodes("fix the build", "make", ["succeeded"] * 4)),
             lambda m: ids.append(m.run_episodes("Fix the build!", "make", ["succeeded", "succeeded"])),
             lambda m: assert_learnt(m),
             remember_backup,
             lambda m: m.forget_episode(ids[0]),
             lambda m: m.run_episodes("fix the build", "make", ["failed", "failed", "failed"]),
             lambda m: m.restore_backup(Draw()),
             lambda m: m.run_episodes("deploy app v2", "ninja", ["succeeded", "failed", "succeeded"]),
             lambda m: m.forget_episode(ids[1]),
             lambda m: m.replay_into_sqlite()]
    _drive(steps)


def test_derived_items_go_stale_in_the_source_transaction_and_forget_takes_their_text() -> None:
    """The derived layer's rules on one sequence (issue 17 item 6): build, supersede a source (stale
    at once, on both stores), rebuild, back up, forget one source (scrubbed: the text erased, the
    id dropped), forget the subject (the sole support gone: tombstones), restore the backup (the
    ledger's forgets cascade to the restored items), replay. Every invariant runs after each step."""
    likes, theme = SLOTS[4], SLOTS[0]
    seen: dict[str, str] = {}

    def keep(name, call):
        return lambda m: seen.__setitem__(name, call(m))

    def statuses(m) -> list[str]:
        return sorted(d.status for d in m.sql.derived_items("default"))

    def expect(want):
        def check(m):
            assert statuses(m) == want and statuses(m) == sorted(d.status for d in m.mem.derived_items("default"))
        return check

    def served(models: int):
        def check(m):
            m.recall_profile("user", "default")
            got = m.sql_recall.recall("what do you know about user?")
            assert sum(i.kind == "mental_model" for i in got.items) == models, got.items
            assert models or any("stale item(s)" in n for n in got.notes), got.notes
        return check

    _drive([
        lambda m: m.first_observation(TEXTS[0]),
        keep("tea", lambda m: m.assert_claim(("user", likes, 0, None, None, "default"))),
        keep("coffee", lambda m: m.assert_claim(("user", likes, 1, None, None, "default"))),
        keep("dark", lambda m: m.assert_claim(("user", theme, 0, None, None, "default"))),
        lambda m: m.derive(None, "default"),
        expect(["current", "current"]),  # the preferences summary (likes, theme), the user's model
        served(1),  # a profile question gets the user's model (ADR 0084)
        lambda m: m.assert_claim(("user", theme, 1, None, None, "default")),  # dark -> light
        expect(["stale", "stale"]),
        served(0),  # stale: left out, with a note
        lambda m: m.rebuild_stale(),
        expect(["current", "current"]),
        served(1),
        lambda m: m.take_backup(),
        lambda m: m.forget_claim(seen["tea"], "default"),
        expect(["stale", "stale"]),
        lambda m: m.rebuild_stale(),  # coffee and light are left: both rebuilt without tea
        expect(["current", "current"]),
        lambda m: m.forget_claim(seen["coffee"], "default"),
        lambda m: m.rebuild_stale(),  # one preference left: the summary goes, the model stays
        expect(["current", "removed"]),
        lambda m: m.forget_subject("user", "default"),
        expect(["forgotten", "forgotten"]),
        lambda m: m.restore_backup(_Drawn(m.backups[0])),
        lambda m: m.replay_into_sqlite(),
    ])


def test_relations_follow_their_evidence_through_review_supersede_forget_restore_and_replay() -> None:
    """The relation rules on one sequence (issue 37 item 1): a claim and a turn propose edges on
    both stores, one is accepted and one rejected, superseding the accepted edge's claim retires it
    in the same transaction, a backup is taken, forgetting the turn and the subject tombstones their
    edges (names gone from state and log), the restore's ledger forgets them again on the restored
    copy, and replay rebuilds the projection. Every invariant runs after each step."""
    lives = SLOTS[1]
    seen: dict[str, str] = {}

    def keep(name, call):
        return lambda m: seen.__setitem__(name, call(m))

    def edges(m, **where) -> dict[str, str]:
        got = [{f"{r.source_name}>{r.relation}>{r.target_name}" if r.target_name else r.relation_id: r.status
                for r in svc.list("default", limit=1000, **where)} for svc in (m.mem_relations, m.sql_relations)]
        assert got[0] == got[1], got
        return got[0]

    def relation_of(m, target: str) -> str:
        return next(r.relation_id for r in m.sql_relations.list("default") if r.target_name == target)

    def expect(want: dict[str, str]):
        def check(m):
            got = {k: v for k, v in edges(m).items() if not k.startswith("rl_")}
            assert got == want, got
        return check

    def all_forgotten(m) -> None:
        got = edges(m, status="forgotten")
        assert len(got) == 3 and all(k.startswith("rl_") for k in got), got  # names blank
        assert not edges(m), edges(m)  # nothing else is left: every edge rested on 小明 or the turn

    _drive([
        lambda m: m.first_observation(TEXTS[0]),
        keep("turn", lambda m: m.record(TEXTS[6], "default", None, "s1")),  # my coworker Alice…
        keep("berlin", lambda m: m.assert_claim(("小明", lives, 0, None, None, "default"))),
        expect({"user>colleague>Alice": "proposed", "小明>lives_in>Berlin": "proposed"}),
        lambda m: m.review_relation(_Drawn(relation_of(m, "Berlin")), True, "proposed"),
        lambda m: m.review_relation(_Drawn(relation_of(m, "Alice")), False, "proposed"),
        expect({"user>colleague>Alice": "rejected", "小明>lives_in>Berlin": "accepted"}),
        lambda m: m.advance_clock(24),
        lambda m: m.assert_claim(("小明", lives, 1, None, None, "default")),  # Berlin -> 上海
        expect({"user>colleague>Alice": "rejected", "小明>lives_in>Berlin": "retired", "小明>lives_in>上海": "proposed"}),
        lambda m: m.scan_relations("default"),
        lambda m: m.take_backup(),
        lambda m: m.forget_event(seen["turn"], "default"),
        lambda m: m.forget_subject("小明", "default"),
        all_forgotten,
        lambda m: m.restore_backup(_Drawn(m.backups[0])),
        all_forgotten,
        lambda m: m.replay_into_sqlite(),
    ])


def test_an_edge_forgotten_after_a_backup_stays_forgotten_when_its_claim_is_said_again_after_the_restore() -> None:
    """Pinned from a fresh seed (2026-12-08, seed 3193512167): backup; a claim proposes its edge;
    forgetting the claim tombstones the edge; restoring the backup (older than the edge) leaves the
    edge's tombstone and no stream. Saying the claim again found the edge again and proposed it on
    its tombstoned stream: the live store held its names, replay redacted them."""
    lives = SLOTS[1]
    berlin = ("user", lives, 0, None, None, "default")
    seen: dict[str, str] = {}

    def no_open_edge(m) -> None:
        got = [[(r.relation_id, r.status) for r in svc.list("default", limit=100)]
               for svc in (m.mem_relations, m.sql_relations)]
        assert got[0] == got[1] and not [s for _, s in got[0] if s != "forgotten"], got

    _drive([
        lambda m: seen.__setitem__("turn", m.first_observation("I switched to dark mode")),
        lambda m: m.take_backup(),
        lambda m: seen.__setitem__("claim", m.assert_claim(berlin)),
        lambda m: m.forget_then_restore(seen["claim"], seen["turn"], _Drawn(m.backups[0])),
        lambda m: m.assert_batch([("user", SLOTS[0], 0, None, None, "default"), berlin]),
        no_open_edge,
        lambda m: m.scan_relations("default"),
        no_open_edge,
        lambda m: m.replay_into_sqlite(),
    ])


def test_a_claim_said_again_on_new_evidence_corroborates_its_edge_on_the_write_path() -> None:
    """Pinned from CI (seed of 2026-12-07): a claim first asserted with no evidence proposes its
    edge on its id alone; a batch that records a turn and repeats the claim citing it corroborates
    the claim, and the edge gains that evidence in the same transaction — a scan finds nothing new."""
    lives = SLOTS[1]
    paris = ("user", lives, 2, None, None, "default")

    def edge_evidence(m) -> None:
        got = [[(r.target_name, len(r.evidence)) for r in svc.list("default")]
               for svc in (m.mem_relations, m.sql_relations)]
        assert got[0] == got[1] == [("Paris", 2)], got

    _drive([
        lambda m: m.first_observation(TEXTS[0]),
        lambda m: m.assert_claim(paris),
        lambda m: m.assert_batch_with_evidence([paris, ("user", SLOTS[0], 0, None, None, "default")], [], True),
        edge_evidence,
        lambda m: m.scan_relations("default"),
    ])
