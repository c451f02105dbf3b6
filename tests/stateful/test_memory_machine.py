"""A Hypothesis state machine that audits the log (style guide item 19).

The same operations run against an in-memory and a SQLite store, each behind its own
WriteService with its own ``SequentialIds`` (so ids line up) and one shared FixedClock. After
every step the invariants check that the two stores agree with each other, with a fold of their
own logs, and with the bitemporal rules (one value per single-valued slot at any instant,
superseded claims out of current recall but in history, gapless versions, replay equals live).
"""

from __future__ import annotations

import shutil
import tempfile
from datetime import datetime, timedelta, timezone
from pathlib import Path

from hypothesis import strategies as st
from hypothesis.stateful import Bundle, RuleBasedStateMachine, initialize, invariant, precondition, rule

from hlmem.adapters.clock import FixedClock
from hlmem.adapters.ids import SequentialIds
from hlmem.adapters.memory import InMemoryStorage
from hlmem.adapters.sqlite.store import SQLiteStorage
from hlmem.application.inspect import InspectService
from hlmem.application.recall import RecallService
from hlmem.application.replay import ReplayService
from hlmem.application.writes import WriteService
from hlmem.domain.commands import AssertClaim, RecordObservation
from hlmem.domain.events import Cardinality
from hlmem.domain.queries import holds, values_at
from hlmem.domain.reducers import project
from hlmem.domain.slot_catalog import DEFAULT_REGISTRY
from hlmem.domain.slots import normalize_key
from hlmem.domain.state import ClaimState, ClaimStatus

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
         "upgrade jieba to 2.0")
QUERIES = (*SUBJECTS, "Alice", "dark", "深色", "theme", "主题", "Berlin", "住在", "version 1.2", "jieba", "tea", "咖啡",
           "喜欢", "mode")
#: Valid-time starts, in days from T0 (None: "from now"); negative ones land before known claims.
STARTS = (None, None, None, -30, -10, -3, -1, 0, 1, 2, 5, 10, 30)
LENGTHS = (None, None, 1, 3, 7, 40)

#: (subject, slot, value index, start, length, namespace) of one AssertClaim.
claim_commands = st.tuples(
    st.sampled_from(SUBJECTS), st.sampled_from(SLOTS), st.integers(0, 3), st.sampled_from(STARTS),
    st.sampled_from(LENGTHS), st.sampled_from(WRITE_NAMESPACES),
)


def _outcome(call):
    """(result, None) or (None, exception type name): errors must agree between the stores too."""
    try:
        return call(), None
    except Exception as exc:  # noqa: BLE001 - any error must be the same error on both sides
        return None, type(exc).__name__


_END_OF_TIME = datetime.max.replace(tzinfo=UTC)


def _rectangles_overlap(a, b) -> bool:
    """Whether two bitemporal rows share any (valid, known) instant (half-open, None = open)."""
    def meet(s1, e1, s2, e2) -> bool:
        e1, e2 = e1 or _END_OF_TIME, e2 or _END_OF_TIME
        return s1 < e1 and s2 < e2 and s1 < e2 and s2 < e1  # both non-empty, and they intersect

    return meet(a.valid_from, a.valid_to, b.valid_from, b.valid_to) and meet(
        a.recorded_from, a.recorded_to, b.recorded_from, b.recorded_to)


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
        self._open_sql()
        self.mem_writes = WriteService(self.mem, self.clock, self.mem_ids, DEFAULT_REGISTRY)
        self.mem_recall = RecallService(self.mem, self.clock)
        self.mem_inspect = InspectService(self.mem, DEFAULT_REGISTRY)

    def _open_sql(self) -> None:
        # NORMAL keeps WAL commits fast; durability across real crashes is test_sqlite_log's job.
        self.sql = SQLiteStorage(self.path, synchronous="NORMAL")
        self.sql_writes = WriteService(self.sql, self.clock, self.sql_ids, DEFAULT_REGISTRY)
        self.sql_recall = RecallService(self.sql, self.clock)
        self.sql_inspect = InspectService(self.sql, DEFAULT_REGISTRY)
        self.writes_since_reopen = 0
        self.generation += 1

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

    # -- rules ----------------------------------------------------------------------------------

    @initialize(target=observations, text=st.sampled_from(TEXTS))
    def first_observation(self, text: str) -> str:
        return self.record(text, "default", None)

    @rule(target=observations, text=st.sampled_from(TEXTS), ns=st.sampled_from(WRITE_NAMESPACES),
          occurred=st.sampled_from((None, -2, 0, 3)))
    def record(self, text: str, ns: str, occurred: int | None) -> str:
        at = None if occurred is None else T0 + occurred * DAY
        result = self._both(lambda w: w.record(RecordObservation(text=text, namespace=ns, occurred_at=at)))
        return result.id

    @rule(target=claims, drawn=claim_commands)
    def assert_claim(self, drawn) -> str:
        result = self._both(lambda w: w.remember(self._command(drawn)))
        return result.id if result else "cl_never"

    @rule(target=claims, drawn=claim_commands, evidence=st.lists(observations, min_size=1, max_size=2))
    def assert_claim_with_evidence(self, drawn, evidence: list[str]) -> str:
        result = self._both(lambda w: w.remember(self._command(drawn, tuple(evidence))))
        return result.id if result else "cl_never"

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
          valid=st.sampled_from((None, -20, -2, 0, 1, 4, 30)), known=st.sampled_from((None, 0, 1, 5)))
    def recall(self, query: str, ns: str, valid: int | None, known: int | None) -> None:
        valid_at = None if valid is None else T0 + valid * DAY
        known_at = None if known is None else T0 + known * DAY
        got = []
        for service in (self.mem_recall, self.sql_recall):
            result = service.recall(query, k=200, namespace=ns, valid_at=valid_at, known_at=known_at)
            got.append({(i.id, i.kind, i.status, i.valid_from, i.valid_to) for i in result.items})
        assert got[0] == got[1], f"recall {query!r} disagrees: only in-memory {got[0] - got[1]}, " \
                                 f"only sqlite {got[1] - got[0]}"

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
                assert len(held) <= 1, (key, valid_at, known_at, [(c.claim_id, c.value) for c in held])
            for (c1, r1) in rows:
                for (c2, r2) in rows:
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
                expected = {c.claim_id for c in mine if holds(c, now, now)}
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


TestMemoryMachine = MemoryMachine.TestCase
