"""The governance roles' contracts (forgetting, ADR 0014), once per adapter: TombstoneLedger, Erasure, ForgetQueries.

One suite per role, each subclassed once per adapter (style guide item 18, ADR 0028).
"""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import numpy as np
import pytest

from hlmem.adapters.embedders.cached import CachedEmbedder
from hlmem.adapters.embedders.hashing import HashEmbedder
from hlmem.adapters.ids import SequentialIds
from hlmem.application.ports import Erasure, ForgetQueries, HasTombstoneLedger, IndexEntry, TombstoneLedger
from hlmem.domain.events import ClaimAsserted, ExtractionRecorded, ObservationRecorded, OriginClass, SessionKind
from hlmem.domain.forgetting import ERASED_TEXT
from hlmem.domain.errors import ValidationError
from hlmem.domain.redaction import CLAIM, OBSERVATION, Tombstone, fingerprint, redact

from support.stores import T0, InMemoryStore, SQLiteStore, StoreContract
from support.stores import PostgresStore


def obs(n: int, text: str, *, session: str = "s1", namespace: str = "default") -> ObservationRecorded:
    return ObservationRecorded(
        event_id=f"lg_o{n}", stream_id=f"ev_{n}", version=1, recorded_at=T0 + timedelta(seconds=n),
        namespace=namespace, text=text, role="user", session_id=session, origin_class=OriginClass.DIRECT_USER,
        session_kind=SessionKind.INTERACTIVE, occurred_at=T0,
    )


def asserted(n: int, subject: str, value: str, *, evidence: tuple[str, ...] = (),
             qualifiers: tuple[tuple[str, str], ...] = ()) -> ClaimAsserted:
    return ClaimAsserted(event_id=f"lg_c{n}", stream_id=f"cl_{n}", version=1, recorded_at=T0, namespace="default",
                         subject=subject, predicate="likes", value=value, valid_from=T0, evidence=evidence,
                         qualifiers=qualifiers)


def record(n: int, sources: tuple[str, ...]) -> ExtractionRecorded:
    return ExtractionRecorded(event_id=f"lg_x{n}", stream_id=f"ex_{n}", version=1, recorded_at=T0,
                              namespace="default", source_events=sources, extractor="rules",
                              rejected=(("张伟 · likes", ("admission.x",)),))


class FilledStore(StoreContract):
    """Adds ``filled``: the store holding events in two sessions and namespaces, claims and an extraction record."""

    @pytest.fixture
    def filled(self, store):
        events = [obs(1, "我和张伟吃饭"), obs(2, "Alice's plan", session="s2"), obs(3, "nothing here"),
                  obs(4, "张伟 in another namespace", namespace="other"),
                  asserted(5, "张伟", "tea", evidence=("ev_1",)), asserted(6, "user", "Alicent's cafe"),
                  asserted(7, "user", "coffee", qualifiers=(("with", "Alice"),)), record(8, ("ev_1", "ev_3"))]
        store.append(events, {e.stream_id: IndexEntry(e.text) for e in events if isinstance(e, ObservationRecorded)})
        return store


class TombstoneLedgerContract(FilledStore):
    """Cases every adapter's tombstone ledger (``store.tombstones``) must pass."""

    def test_the_ledger_satisfies_its_protocol(self, store) -> None:
        assert isinstance(store.tombstones, TombstoneLedger) and isinstance(store, HasTombstoneLedger)

    def test_the_salt_is_32_random_bytes_made_once(self, store, tmp_path: Path) -> None:
        salt = store.tombstones.salt()
        assert len(salt) == 32 and salt == store.tombstones.salt()
        assert salt != self.make_store(tmp_path / "another").tombstones.salt()

    def test_add_is_idempotent_and_rows_come_back_oldest_first(self, store) -> None:
        rows = [Tombstone("f1", OBSERVATION, "ev_1", T0, "fg_1"), Tombstone("f2", CLAIM, "cl_1", T0, "fg_1"),
                Tombstone("", OBSERVATION, "ev_2", T0 + timedelta(1), "fg_2")]
        store.tombstones.add(rows[:2])
        store.tombstones.add(rows)
        store.tombstones.add(rows[:1])
        assert store.tombstones.tombstones() == rows

    def test_matching_returns_the_held_fingerprints_and_never_the_empty_one(self, store) -> None:
        store.tombstones.add([Tombstone("f1", OBSERVATION, "ev_1", T0, "fg_1"),
                              Tombstone("", OBSERVATION, "ev_2", T0, "fg_1")])
        assert store.tombstones.matching(["f1", "f9", ""]) == {"f1"}
        assert store.tombstones.matching([]) == set()
        assert store.tombstones.matching([f"x{i}" for i in range(1200)] + ["f1"]) == {"f1"}

    def test_of_streams_gives_the_first_row_of_each_stream(self, store) -> None:
        first = Tombstone("f1", OBSERVATION, "ev_1", T0, "fg_1")
        store.tombstones.add([first, Tombstone("f3", OBSERVATION, "ev_1", T0 + timedelta(1), "fg_2")])
        assert store.tombstones.of_streams(["ev_1", "ev_nope"]) == {"ev_1": first}

    def test_a_rolled_back_transaction_takes_its_tombstones_with_it(self, store) -> None:
        with pytest.raises(RuntimeError), store.transaction():
            store.tombstones.add([Tombstone("f1", OBSERVATION, "ev_1", T0, "fg_1")])
            raise RuntimeError("abort")
        assert store.tombstones.tombstones() == []

    def test_a_fresh_ledger_adopts_another_stores_salt_and_its_fingerprints_then_match(self, store,
                                                                                      tmp_path: Path) -> None:
        other = self.make_store(tmp_path / "other")
        try:
            salt = other.tombstones.salt()
            mark = fingerprint(OBSERVATION, "my locker code is 4711", salt)
            with store.transaction():
                store.tombstones.adopt_salt(salt)
                store.tombstones.add([Tombstone(mark, OBSERVATION, "ev_1", T0, "fg_1")])
            assert store.tombstones.salt() == salt
            assert store.tombstones.matching([fingerprint(OBSERVATION, "My locker code is  4711",
                                                          store.tombstones.salt())]) == {mark}
            store.tombstones.adopt_salt(salt)  # the salt it has: nothing to do, rows or not
        finally:
            other.close()

    def test_a_ledger_with_rows_refuses_another_salt_and_a_malformed_one(self, store) -> None:
        salt = store.tombstones.salt()
        store.tombstones.add([Tombstone("f1", OBSERVATION, "ev_1", T0, "fg_1")])
        with pytest.raises(ValidationError, match="already has tombstones"):
            store.tombstones.adopt_salt(bytes(32))
        for bad in (b"short", "x" * 32, bytes(33)):
            with pytest.raises(ValidationError, match="32 bytes"):
                store.tombstones.adopt_salt(bad)
        assert store.tombstones.salt() == salt

    def test_an_adopted_salt_rolls_back_with_its_transaction(self, store) -> None:
        salt = store.tombstones.salt()
        with pytest.raises(RuntimeError), store.transaction():
            store.tombstones.adopt_salt(bytes(range(32)))
            assert store.tombstones.salt() == bytes(range(32))
            raise RuntimeError("abort")
        assert store.tombstones.salt() == salt


class ErasureContract(FilledStore):
    """Cases every adapter's erasure path must pass."""

    def test_satisfies_the_role(self, store) -> None:
        assert isinstance(store, Erasure)

    def test_erase_payloads_redacts_content_and_keeps_the_log_order(self, filled) -> None:
        before = [s.event for s in filled.read()]
        with filled.transaction():
            n = filled.erase_payloads(["ev_1", "cl_5", "ex_8", "cl_missing"], reason="forget fg_1", at=T0)
        assert n == 3
        after = [s.event for s in filled.read()]
        assert [e.event_id for e in after] == [e.event_id for e in before]
        for old, new in zip(before, after):
            assert new == (redact(old) if old.stream_id in ("ev_1", "cl_5", "ex_8") else old)
        assert after[0].text == "" and after[4].value == "" and after[7].rejected == (("", ("admission.x",)),)
        # Erasure is the log's business only: projections change through the tombstone events.
        assert filled.get_observations(["ev_1"])["ev_1"].text == "我和张伟吃饭"
        with filled.transaction():
            assert filled.erase_payloads(["ev_1", "cl_5", "ex_8"], reason="again", at=T0) == 0

    def test_an_erasure_rolls_back_with_its_transaction(self, filled) -> None:
        before = [s.event for s in filled.read()]
        with pytest.raises(RuntimeError), filled.transaction():
            filled.erase_payloads(["ev_1"], reason="x", at=T0)
            raise RuntimeError("abort")
        assert [s.event for s in filled.read()] == before

    def test_drop_cached_vectors_deletes_the_entries_of_the_texts_embedded(self, store) -> None:
        embedder = CachedEmbedder(HashEmbedder(dim=16), store.embedding_cache)
        embedder.embed_passages(["紫罗兰色的秘密基地", "keep me"])
        model = embedder.model_id
        from hlmem.adapters.embedders.cached import content_hash

        keys = [content_hash("紫罗兰色的秘密基地"), content_hash("keep me")]
        assert len(store.embedding_cache.get_many(model, keys)) == 2
        assert store.drop_cached_vectors(["紫罗兰色的秘密基地", "never cached"]) == 1
        assert list(store.embedding_cache.get_many(model, keys)) == [keys[1]]

    def test_scrub_jobs_blanks_errors_of_forgotten_events_and_of_errors_quoting_them(self, store) -> None:
        queue = self.make_queue(store, SequentialIds().new)
        ids = {e: queue.enqueue(kind="extract", idempotency_key=f"k{e}", namespace="default", session_id="s",
                                payload={"event_id": e}, now=T0) for e in ("ev_1", "ev_2", "ev_3")}
        jobs = queue.claim_window(kind="extract", owner="w", now=T0, lease_seconds=60, size=8, max_wait_seconds=0,
                                  flush=True)
        assert len(jobs) == 3
        queue.fail([ids["ev_1"]], owner="w", now=T0, error="boom", error_class="X", retry_at=T0)
        queue.fail([ids["ev_2"]], owner="w", now=T0, error='bad answer: {"value": "\\u7d2b\\u7f57\\u5170"}',
                   error_class="MalformedResponse", retry_at=T0, raw_response="紫罗兰 raw")
        queue.fail([ids["ev_3"]], owner="w", now=T0, error="timeout", error_class="ProviderTimeout", retry_at=T0)
        assert store.scrub_jobs(["ev_1"], ["紫罗兰"]) == 2
        errors = {j.payload["event_id"]: (j.last_error, j.last_error_class) for j in queue.jobs()}
        assert errors == {"ev_1": (ERASED_TEXT, "X"), "ev_2": (ERASED_TEXT, "MalformedResponse"),
                          "ev_3": ("timeout", "ProviderTimeout")}
        assert queue.raw_response(ids["ev_2"]) is None

    def test_a_compaction_nobody_holds_back_leaves_no_erasure_pending(self, filled) -> None:
        with filled.transaction():
            filled.erase_payloads(["ev_1"], reason="forget fg_1", at=T0)
            filled.mark_erasure_pending("fg_1")
        done = filled.compact_erased()
        assert done.get("pending", 0) == 0
        assert filled.pending_erasure() is None


class ForgetQueriesContract(FilledStore):
    """Cases every adapter's forget look-ups must pass."""

    def test_satisfies_the_role(self, store) -> None:
        assert isinstance(store, ForgetQueries)

    def test_session_events_lists_a_sessions_events_oldest_first(self, filled) -> None:
        filled.append([obs(9, "later", session="s2")])
        assert filled.session_events("default", "s2") == ["ev_2", "ev_9"]
        assert filled.session_events("other", "s2") == []

    def test_sessions_events_reads_several_sessions_as_session_events_does(self, filled) -> None:
        filled.append([obs(9, "later", session="s2")])
        sessions = [o.session_id for o in filled.get_observations(["ev_1", "ev_2"]).values()] + ["nowhere"]
        both = filled.sessions_events("default", sessions)
        assert both == {s: filled.session_events("default", s) for s in sessions}
        assert both["s2"] == ["ev_2", "ev_9"] and both["nowhere"] == [] and len(both[sessions[0]]) == 2
        assert filled.sessions_events("other", ["s2"]) == {"s2": []} and filled.sessions_events("default", []) == {}

    def test_mentions_follow_the_domain_rule_within_one_namespace(self, filled) -> None:
        assert filled.events_mentioning("default", "张伟") == ["ev_1"]
        assert filled.events_mentioning("other", "张伟") == ["ev_4"]
        assert filled.events_mentioning("default", "alice") == ["ev_2"]
        assert filled.claims_mentioning("default", "张伟") == ["cl_5"]
        # "Alicent" is not Alice; a qualifier value is.
        assert filled.claims_mentioning("default", "Alice") == ["cl_7"]
        assert filled.claims_mentioning("default", "with") == []  # a qualifier key is not content

    def test_extractions_citing_finds_records_by_source_event(self, filled) -> None:
        assert filled.extractions_citing(["ev_3"]) == ["ex_8"]
        assert filled.extractions_citing(["ev_2"]) == []
        assert filled.extractions_citing([]) == []

    def test_indexed_says_what_the_search_index_holds(self, store) -> None:
        store.bind_vector_model("m", 4)
        vec = np.ones(4, dtype="<f4").tobytes()
        store.append([obs(1, "text"), obs(2, "vector too")],
                     {"ev_1": IndexEntry("text"), "ev_2": IndexEntry("vector too", vec)})
        assert store.indexed(["ev_1", "ev_2", "ev_3"]) == {"ev_1": (True, False), "ev_2": (True, True)}


class FastSQLiteStore(SQLiteStore):
    """These suites test no durability across a crash: the store may skip syncing."""

    synchronous = "OFF"


class TestInMemoryTombstoneLedger(InMemoryStore, TombstoneLedgerContract):
    pass


class TestSQLiteTombstoneLedger(FastSQLiteStore, TombstoneLedgerContract):
    def test_the_salt_survives_reopening(self, tmp_path: Path) -> None:
        store = self.make_store(tmp_path)
        salt = store.tombstones.salt()
        store.tombstones.add([Tombstone("f1", OBSERVATION, "ev_1", T0, "fg_1")])
        store.close()
        again = self.make_store(tmp_path)
        assert again.tombstones.salt() == salt and again.tombstones.matching(["f1"]) == {"f1"}
        again.close()

    def test_an_adopted_salt_survives_reopening(self, tmp_path: Path) -> None:
        store = self.make_store(tmp_path)
        store.tombstones.adopt_salt(bytes(range(32)))
        store.close()
        again = self.make_store(tmp_path)
        assert again.tombstones.salt() == bytes(range(32))
        again.close()


class TestInMemoryErasure(InMemoryStore, ErasureContract):
    def test_scrub_jobs_blanks_errors_of_forgotten_events_and_of_errors_quoting_them(self, store) -> None:
        # The in-memory queue keeps no raw responses; errors are scrubbed the same way.
        queue = self.make_queue(store, SequentialIds().new)
        job = queue.enqueue(kind="extract", idempotency_key="k", namespace="default", session_id="s",
                            payload={"event_id": "ev_2"}, now=T0)
        queue.claim_window(kind="extract", owner="w", now=T0, lease_seconds=60, size=8, max_wait_seconds=0, flush=True)
        queue.fail([job], owner="w", now=T0, error="answer quoted 紫罗兰", error_class="M", retry_at=T0)
        assert store.scrub_jobs([], ["紫罗兰"]) == 1
        assert queue.jobs()[0].last_error == ERASED_TEXT


class TestSQLiteErasure(FastSQLiteStore, ErasureContract):
    def test_every_erasure_is_audited_and_the_triggers_still_guard_the_log(self, filled) -> None:
        with filled.transaction():
            filled.erase_payloads(["ev_1"], reason="forget fg_1", at=T0)
        con = filled.connection
        assert con.execute("SELECT e.event_id, x.reason FROM payload_erasures x JOIN events e "
                           "ON e.position = x.position").fetchall() == [("lg_o1", "forget fg_1")]
        import apsw

        with pytest.raises(apsw.ConstraintError):
            con.execute("DELETE FROM event_payloads WHERE position = 2")
        with pytest.raises(apsw.ConstraintError):
            con.execute("UPDATE event_payloads SET payload = '{}' WHERE position = 1")

    def test_a_reader_holding_old_pages_leaves_the_erasure_pending_until_it_ends(self, filled) -> None:
        import apsw

        with filled.transaction():
            filled.mark_erasure_pending("fg_1")
        assert filled.pending_erasure() == "fg_1"
        reader = apsw.Connection(filled.path)
        reader.execute("BEGIN")
        reader.execute("SELECT count(*) FROM events").fetchone()
        with filled.transaction():  # a write after the reader's snapshot: its pages are newer
            filled.erase_payloads(["ev_1"], reason="forget fg_1", at=T0)
        timeout = filled.connection.pragma("busy_timeout")
        assert filled.compact_erased(wait_ms=0)["pending"] == 1
        assert filled.pending_erasure() == "fg_1"
        assert filled.connection.pragma("busy_timeout") == timeout > 0  # the shortened wait is put back
        reader.execute("COMMIT")
        reader.close()
        assert filled.compact_erased()["pending"] == 0 and filled.pending_erasure() is None

    def test_compact_erased_truncates_the_wal_and_refuses_inside_a_transaction(self, filled) -> None:
        from hlmem.domain.errors import StorageError

        with pytest.raises(StorageError), filled.transaction():
            filled.compact_erased()
        done = filled.compact_erased()
        assert done["wal_busy"] == 0
        assert Path(filled.path + "-wal").stat().st_size == 0


class TestInMemoryForgetQueries(InMemoryStore, ForgetQueriesContract):
    pass


class TestSQLiteForgetQueries(FastSQLiteStore, ForgetQueriesContract):
    pass


# --- PostgreSQL (adapters/postgres/, issue 18): the same suite on a fresh database per test ----------


class TestPostgresTombstoneLedger(PostgresStore, TombstoneLedgerContract):
    pass


class TestPostgresErasure(PostgresStore, ErasureContract):
    pass


class TestPostgresForgetQueries(PostgresStore, ForgetQueriesContract):
    pass
