"""The ClaimReader role's contract (projection queries over claims, observations, conflicts), once per adapter."""

from __future__ import annotations

from datetime import datetime

import pytest
from attrs import evolve

from hlmem.adapters.clock import FixedClock
from hlmem.application.ports import ClaimReader, Storage
from hlmem.application.writes import WriteService
from hlmem.domain.commands import AssertClaim, RecordObservation
from hlmem.domain.errors import ConcurrencyConflict
from hlmem.domain.events import ConflictOpened, ConflictResolved
from hlmem.domain.reducers import project
from hlmem.domain.state import ClaimStatus, slot_key

from support.stores import DAY, T0, InMemoryStore, SQLiteStore, StoreContract
from support.stores import PostgresStore


class ClaimsContract(StoreContract):
    """Cases every adapter's claim reader must pass."""

    def test_satisfies_the_role(self, store: Storage) -> None:
        assert isinstance(store, ClaimReader)

    def test_get_claims_and_observations(self, store: Storage, writes: WriteService) -> None:
        ev = writes.record(RecordObservation(text="I prefer dark mode", session_id="s9", role="user")).id
        cl = writes.remember(AssertClaim(subject="user", predicate="theme", value="dark", evidence=(ev,))).id
        claims = store.get_claims([cl, "cl_missing", cl])
        assert list(claims) == [cl]
        claim = claims[cl]
        assert (claim.subject, claim.predicate, claim.value, claim.status) == (
            "user", "preferred_ui_theme", "dark", ClaimStatus.ACTIVE)
        assert claim.evidence == (ev,) and claim.version == 1
        obs = store.get_observations([ev, "ev_missing"])
        assert list(obs) == [ev]
        assert (obs[ev].text, obs[ev].session_id, obs[ev].recorded_at) == ("I prefer dark mode", "s9", T0)
        assert store.get_claims([]) == {} and store.get_observations([]) == {}
        assert store.get_claims([ev]) == {} and store.get_observations([cl]) == {}

    def test_slot_claims(self, store: Storage, writes: WriteService, clock: FixedClock) -> None:
        a = writes.remember(AssertClaim(subject="user", predicate="theme", value="dark")).id
        clock.advance(DAY)
        b = writes.remember(AssertClaim(subject="User ", predicate="preferred ui theme", value="light")).id
        other = writes.remember(AssertClaim(subject="user", predicate="version", value="1.2",
                                            coordinates=(("component", "jieba"),))).id
        writes.remember(AssertClaim(subject="user", predicate="theme", value="dark", namespace="work"))
        key = slot_key("default", "user", "preferred_ui_theme", ())
        got = {c.claim_id: c for c in store.slot_claims(key)}
        assert set(got) == {a, b}
        assert got[a].status is ClaimStatus.SUPERSEDED and got[a].superseded_by == b
        assert got[b].supersedes == (a,)
        assert [c.claim_id for c in store.slot_claims(slot_key("default", "user", "version",
                                                                   (("component", "jieba"),)))] == [other]
        assert store.slot_claims(slot_key("default", "user", "version", ())) == []

    def test_subject_claims(self, store: Storage, writes: WriteService) -> None:
        theme = writes.remember(AssertClaim(subject="Alice  Smith", predicate="theme", value="dark")).id
        likes = writes.remember(AssertClaim(subject="alice smith", predicate="likes", value="tea")).id
        writes.remember(AssertClaim(subject="alice smith", predicate="likes", value="tea", namespace="work"))
        writes.remember(AssertClaim(subject="bob", predicate="likes", value="tea"))
        assert {c.claim_id for c in store.subject_claims("default", "ALICE SMITH")} == {theme, likes}
        assert [c.claim_id for c in store.subject_claims("default", "alice smith", "likes")] == [likes]
        assert [c.claim_id for c in store.subject_claims("default", "alice smith", "preferred ui-theme")] == [theme]
        assert store.subject_claims("default", "nobody") == []
        assert len(store.subject_claims("work", "alice smith")) == 1

    def test_stored_subjects_answers_as_subject_claims_does_in_one_read(self, store: Storage,
                                                                        writes: WriteService) -> None:
        writes.remember(AssertClaim(subject="Alice  Smith", predicate="theme", value="dark"))
        writes.remember(AssertClaim(subject="bob", predicate="likes", value="tea", namespace="work"))
        writes.retract(writes.remember(AssertClaim(subject="Carol", predicate="likes", value="tea")).id)
        asked = ["ALICE SMITH", "alice smith", "bob", "carol", "nobody", ""]
        assert store.stored_subjects("default", asked) == {"ALICE SMITH", "alice smith", "carol"}
        assert store.stored_subjects("default", asked) == {s for s in asked if store.subject_claims("default", s)}
        assert store.stored_subjects("work", asked) == {"bob"}
        assert store.stored_subjects("default", []) == set()

    def test_claim_ids_pages_every_claim_of_a_namespace_in_id_order(self, store: Storage,
                                                                     writes: WriteService) -> None:
        made = [writes.remember(AssertClaim(subject=f"p{i}", predicate="likes", value=f"v{i}")).id for i in range(7)]
        writes.remember(AssertClaim(subject="x", predicate="likes", value="tea", namespace="work"))
        writes.retract(made[2])
        writes.remember(AssertClaim(subject="p3", predicate="lives_in", value="Oslo"))
        every = store.claim_ids("default", limit=100)
        assert every == sorted(every) and set(made) <= set(every) and len(every) == 8
        pages, after = [], None
        while page := store.claim_ids("default", after=after, limit=3):
            assert len(page) <= 3
            pages += page
            after = page[-1]
        assert pages == every
        assert store.claim_ids("default", after=every[-1]) == []
        assert len(store.claim_ids("work")) == 1 and store.claim_ids("nowhere") == []

    def test_claims_citing(self, store: Storage, writes: WriteService) -> None:
        e1 = writes.record(RecordObservation(text="one")).id
        e2 = writes.record(RecordObservation(text="two")).id
        c1 = writes.remember(AssertClaim(subject="user", predicate="likes", value="tea", evidence=(e1,))).id
        c2 = writes.remember(AssertClaim(subject="user", predicate="lives_in", value="Berlin", evidence=(e1, e2))).id
        # Corroboration adds evidence to the existing claim.
        assert writes.remember(AssertClaim(subject="user", predicate="likes", value="Tea", evidence=(e2,))).id == c1
        assert store.claims_citing(e1) == sorted([c1, c2])
        assert store.claims_citing(e2) == sorted([c1, c2])
        assert store.claims_citing("ev_nobody") == []
        assert store.get_claims([c1])[c1].evidence == (e1, e2)
        e3 = writes.record(RecordObservation(text="three")).id
        # One read for many events: each cited event as claims_citing answers it; the rest left out.
        assert store.claims_citing_events([e2, e1, e3, "ev_nobody", e1]) == {e1: sorted([c1, c2]), e2: sorted([c1, c2])}
        assert store.claims_citing_events([]) == {}

    def test_counts(self, store: Storage, writes: WriteService, clock: FixedClock) -> None:
        writes.record(RecordObservation(text="one"))
        a = writes.remember(AssertClaim(subject="user", predicate="theme", value="dark")).id
        clock.advance(DAY)
        writes.remember(AssertClaim(subject="user", predicate="theme", value="light"))
        writes.remember(AssertClaim(subject="user", predicate="likes", value="tea"))
        writes.retract(writes.remember(AssertClaim(subject="user", predicate="likes", value="coffee")).id)
        counts = store.counts()
        assert counts["events"] == store.last_position() == 7
        assert counts["observations"] == 1
        assert counts["claims"] == 4
        assert counts["claims_active"] == 2 and counts["claims_superseded"] == 1 and counts["claims_retracted"] == 1
        assert counts["vectors"] == 0
        assert store.get_claims([a])[a].version == 2

    def test_conflicts_are_projected(self, store: Storage) -> None:
        def opened(n: int, ns: str = "default", at: datetime = T0) -> ConflictOpened:
            return ConflictOpened(
                event_id=f"lg_cf{n}", stream_id=f"cf_{n}", version=1, recorded_at=at, namespace=ns,
                slot_key=slot_key(ns, "user", "lives_in", ()), existing=("cl_1",), subject="user",
                predicate="lives_in", value="上海", qualifiers=(("reason", "moved"),), valid_from=at - DAY,
                valid_to=at + DAY, evidence=("ev_1",), reason="conflict.same_window_contradiction",
            )

        events = [opened(1, at=T0 + DAY), opened(2), opened(3, ns="work"),
                  ConflictResolved(event_id="lg_r1", stream_id="cf_1", version=2, recorded_at=T0 + 2 * DAY,
                                   namespace="default", decision="keep-new", claim_id="cl_9")]
        store.append(events)
        expected = project(events).conflicts
        got = store.get_conflicts(["cf_1", "cf_2", "cf_3", "cf_missing"])
        assert got == dict(expected)
        assert got["cf_1"].status == "resolved" and got["cf_1"].decision == "keep-new"
        assert got["cf_1"].version == 2 and got["cf_1"].resolved_at == T0 + 2 * DAY
        assert [c.conflict_id for c in store.conflicts("default")] == ["cf_2"]
        assert [c.conflict_id for c in store.conflicts("default", None)] == ["cf_2", "cf_1"]  # oldest first
        assert [c.conflict_id for c in store.conflicts("default", "resolved")] == ["cf_1"]
        assert [c.conflict_id for c in store.conflicts("work")] == ["cf_3"]
        counts = store.counts()
        assert counts["conflicts_open"] == 2 and counts["conflicts_resolved"] == 1
        with pytest.raises(ConcurrencyConflict):
            store.append([evolve(events[-1], event_id="lg_r2")])  # resolved twice from the same version


class TestInMemoryClaims(InMemoryStore, ClaimsContract):
    pass


class TestSQLiteClaims(SQLiteStore, ClaimsContract):
    pass


# --- PostgreSQL (adapters/postgres/, issue 18): the same suite on a fresh database per test ----------


class TestPostgresClaims(PostgresStore, ClaimsContract):
    pass
