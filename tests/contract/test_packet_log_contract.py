"""The packet log (ADR 0061): packets served per UTC day and the history they stood in for, once per adapter."""

from __future__ import annotations

from datetime import date, timedelta
from pathlib import Path

from hlmem.adapters.packet_log import session_tokens
from hlmem.adapters.sqlite.store import SQLiteStorage
from hlmem.application.ports import IndexEntry, PacketDay, PacketLog
from hlmem.domain.events import ItemForgotten, ObservationRecorded, OriginClass, SessionKind

from support.stores import DAY, T0, InMemoryStore, SQLiteStore, StoreContract

TRIP = ["We flew to Lisbon on Monday.", "The hotel was by the river.", "我们在里斯本吃了海鲜。"]
PETS = ["My cat is called Tom.", "Tom is nine years old."]


def obs(n: int, text: str, session: str, *, namespace: str = "default", minute: int = 0) -> ObservationRecorded:
    return ObservationRecorded(
        event_id=f"lg_o{n}", stream_id=f"ev_{n}", version=1, recorded_at=T0 + timedelta(seconds=n),
        namespace=namespace, text=text, role="user", session_id=session, origin_class=OriginClass.DIRECT_USER,
        session_kind=SessionKind.INTERACTIVE, occurred_at=T0 + timedelta(minutes=minute or n),
    )


def fill(store) -> None:
    events = [obs(i, t, "trip") for i, t in enumerate(TRIP, start=1)]
    events += [obs(10 + i, t, "pets") for i, t in enumerate(PETS, start=1)]
    events.append(obs(20, "A trip note in another namespace.", "trip", namespace="other"))
    store.append(events, {e.stream_id: IndexEntry(e.text) for e in events})


class PacketLogContract(StoreContract):
    """Cases every adapter's packet log must pass."""

    def test_the_store_has_one(self, store) -> None:
        assert isinstance(store.packet_log, PacketLog)

    def test_a_packet_stands_in_for_the_whole_sessions_of_its_evidence(self, store) -> None:
        fill(store)
        log = store.packet_log
        log.record_packet(T0, 120, ["ev_1", "ev_3"])  # two events of one session: the session once
        log.record_packet(T0 + timedelta(hours=1), 80, ["ev_2", "ev_11", "ev_ghost"])  # two sessions, one unknown id
        trip, pets = session_tokens(TRIP), session_tokens(PETS)
        assert log.packet_days(T0, T0) == [PacketDay(T0.date(), 2, 200, trip + (trip + pets))]

    def test_days_are_utc_days_within_the_period(self, store) -> None:
        fill(store)
        log = store.packet_log
        for n in range(3):
            log.record_packet(T0 + n * DAY, 50 + n, ["ev_11"])
        log.record_packet(T0, 10, [])  # nothing behind it: a packet of no history
        pets = session_tokens(PETS)
        assert log.packet_days(T0 + DAY, T0 + 5 * DAY) == [
            PacketDay(date(2026, 3, 2), 1, 51, pets), PacketDay(date(2026, 3, 3), 1, 52, pets)]
        assert log.packet_days(T0 - 3 * DAY, T0 - DAY) == []
        assert log.packet_days(T0, T0)[0] == PacketDay(date(2026, 3, 1), 2, 60, pets)

    def test_another_namespaces_session_of_the_same_name_is_not_counted(self, store) -> None:
        fill(store)
        store.packet_log.record_packet(T0, 30, ["ev_20"])
        assert store.packet_log.packet_days(T0, T0)[0].history_tokens == session_tokens(
            ["A trip note in another namespace."])

    def test_forgotten_events_are_no_history(self, store) -> None:
        fill(store)
        store.append([ItemForgotten(event_id="lg_f1", stream_id="ev_12", version=2, recorded_at=T0,
                                    namespace="default")])
        store.packet_log.record_packet(T0, 30, ["ev_11", "ev_12"])
        assert store.packet_log.packet_days(T0, T0)[0].history_tokens == session_tokens(PETS[:1])


class TestInMemoryPacketLog(InMemoryStore, PacketLogContract):
    pass


class TestSQLitePacketLog(SQLiteStore, PacketLogContract):
    synchronous = "OFF"

    def test_packets_survive_a_restart_as_numbers_only(self, tmp_path: Path) -> None:
        store = self.make_store(tmp_path)
        fill(store)
        store.packet_log.record_packet(T0, 120, ["ev_1"])
        assert store.connection.execute("SELECT count(*) FROM packet_activity").fetchone() == (0,)  # buffered
        store.close()
        again = SQLiteStorage(tmp_path / "store.db")
        try:
            assert again.packet_log.packet_days(T0, T0) == [PacketDay(T0.date(), 1, 120, session_tokens(TRIP))]
            rows = again.connection.execute("SELECT * FROM packet_activity").fetchall()
            assert rows == [("2026-03-01", 1, 120, session_tokens(TRIP))]  # no text, no id
            again.packet_log.record_packet(T0, 30, ["ev_11"])  # adds to the stored day
            assert again.packet_log.packet_days(T0, T0)[0].packets == 2
        finally:
            again.close()

    def test_a_session_is_estimated_again_only_when_it_changed(self, store) -> None:
        fill(store)
        log = store.packet_log
        log.record_packet(T0, 10, ["ev_1"])
        assert log.flush() == 1
        store.append([obs(4, "We took a tram up the hill.", "trip", minute=30)], {"ev_4": IndexEntry("tram")})
        log.record_packet(T0, 10, ["ev_1"])
        log.flush()
        assert log.packet_days(T0, T0)[0].history_tokens == session_tokens(TRIP) + session_tokens(
            TRIP[:3] + ["We took a tram up the hill."])

    def test_a_busy_store_keeps_packets_for_later(self, store, tmp_path: Path) -> None:
        fill(store)
        other = SQLiteStorage(tmp_path / "store.db")
        try:
            with other.transaction():  # another writer holds the lock
                store.packet_log.record_packet(T0, 10, ["ev_1"])
                assert store.packet_log.flush(wait=False) == 0
            assert store.packet_log.flush() == 1
            assert store.packet_log.packet_days(T0, T0)[0].packets == 1
        finally:
            other.close()
