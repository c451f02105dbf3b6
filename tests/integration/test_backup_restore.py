"""Backup and restore of a SQLite store (ADR 0016): a consistent snapshot while writes go on, a
verified file, identity checks, a restore that never leaves a half-restored store, and the
audit of governance actions."""

from __future__ import annotations

import hashlib
import os
import random
import shutil
import threading
from datetime import datetime, timedelta, timezone
from pathlib import Path

import apsw
import pytest

from hlmem import Memory
from hlmem.adapters.clock import FixedClock
from hlmem.adapters.ids import SequentialIds
from hlmem.adapters.inmemory.store import InMemoryStorage
from hlmem.adapters.memory_api import restore_store
from hlmem.adapters.sqlite import restore as restore_mod
from hlmem.adapters.sqlite.backup import backup, read_backup
from hlmem.adapters.sqlite.store import SQLiteStorage
from hlmem.application.audit import KINDS, AuditService
from hlmem.application.replay import ReplayService
from hlmem.application.writes import WriteService
from hlmem.domain.commands import AssertClaim, RecordObservation
from hlmem.domain.errors import BackupRejected, StorageError, UnsupportedOperation, ValidationError
from hlmem.domain.events import (
    AUDIT_EVENT_TYPES,
    ClaimRetracted,
    ConflictResolved,
    ObservationRecorded,
    StoreRestored,
)
from hlmem.domain.slot_catalog import DEFAULT_REGISTRY

UTC = timezone.utc
T0 = datetime(2026, 3, 1, 9, 30, tzinfo=UTC)
DAY = timedelta(days=1)
QUERIES = ("theme", "深色", "上海", "Berlin", "tea", "咖啡", "user")


# -- helpers ------------------------------------------------------------------------------------------


def populate(mem: Memory) -> dict[str, str]:
    """A varied history in Chinese and English: events, claims, supersede, a late fact, a retraction."""
    ids = {"ev_dark": mem.add("I switched to dark mode, 我喜欢深色主题", extract=False).id,
           "ev_sh": mem.add("我住在上海，喜欢喝咖啡", session="s2", extract=False).id}
    ids["theme"] = mem.remember("user", "theme", "dark", evidence=[ids["ev_dark"]]).id
    ids["city"] = mem.remember("user", "lives_in", "上海", evidence=[ids["ev_sh"]]).id
    mem.clock.advance(DAY)
    ids["theme2"] = mem.remember("user", "theme", "light").id
    ids["late"] = mem.remember("user", "lives_in", "Berlin", valid_from=T0 - 30 * DAY).id
    ids["tea"] = mem.remember("user", "likes", "tea").id
    mem.remember("user", "likes", "咖啡", evidence=[ids["ev_sh"]])
    mem.clock.advance(DAY)
    mem.retract(ids["tea"], "wrong")
    return ids


def open_memory(path: Path) -> Memory:
    return Memory(path, embedder="hash", now=T0)


def state_of(storage) -> dict:
    """Everything a restore must bring back: the log, every stream's projection rows, the counts."""
    events = [s.event for s in storage.read()]
    streams = sorted(storage.stream_versions())
    return {"events": events, "rows": storage.projection_fingerprints(streams), "counts": storage.counts(),
            "store_id": storage.store_id()}


def recall_ids(mem: Memory) -> dict[str, list[str]]:
    at = T0 + 2 * DAY  # the fixture's clock when it took the backup (a reopened Memory starts at T0)
    return {q: [i.id for i in mem.recall(q, k=50, valid_at=at, known_at=at).items] for q in QUERIES}


def file_digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.startswith(".") or p.name.endswith(".tmp"))


@pytest.fixture
def live(tmp_path: Path):
    """A populated store at ``tmp_path/live.db`` (closed) and a backup of it at ``backup.db``."""
    path = tmp_path / "live.db"
    with open_memory(path) as mem:
        ids = populate(mem)
        info = mem.backup(tmp_path / "backup.db")
        before = state_of(mem.storage)
        recalled = recall_ids(mem)
    return path, tmp_path / "backup.db", info, before, recalled, ids


# -- store identity and the log read by type ------------------------------------------------------------


def test_store_identity_is_made_once_kept_across_reopen_and_carried_by_backups(tmp_path: Path) -> None:
    store = SQLiteStorage(tmp_path / "a.db")
    first = store.store_id()
    assert first.startswith("st_") and len(first) == 35
    store.close()
    again = SQLiteStorage(tmp_path / "a.db")
    assert again.store_id() == first
    assert "0010_store_identity" in [r[0] for r in again.connection.execute("SELECT name FROM _migrations")]
    info = backup(again, tmp_path / "b.db", clock=FixedClock(T0), ids=SequentialIds())
    again.close()
    other = SQLiteStorage(tmp_path / "c.db")
    assert other.store_id() != first
    other.close()
    assert info.store_id == first == read_backup(tmp_path / "b.db").store_id
    assert InMemoryStorage().store_id() != InMemoryStorage().store_id()


@pytest.mark.parametrize("kind", ["memory", "sqlite"])
def test_read_types_filters_by_type_and_position_both_ways(kind: str, tmp_path: Path) -> None:
    store = InMemoryStorage() if kind == "memory" else SQLiteStorage(tmp_path / "t.db")
    writes = WriteService(store, FixedClock(T0), SequentialIds(), DEFAULT_REGISTRY)
    claims = [writes.remember(AssertClaim(subject="user", predicate="likes", value=v)).id for v in "abcdef"]
    for claim in claims[:4]:
        writes.record(RecordObservation(text=f"note {claim}"))
        writes.retract(claim, f"wrong {claim}")
    got = list(store.read_types([ClaimRetracted]))
    assert [s.event.stream_id for s in got] == claims[:4]
    assert [s.position for s in got] == sorted(s.position for s in got)
    newest = list(store.read_types([ClaimRetracted], newest_first=True, limit=3))
    assert [s.event.stream_id for s in newest] == claims[3:0:-1]
    middle = list(store.read_types(AUDIT_EVENT_TYPES, after=got[0].position, before=got[3].position))
    assert [s.event.stream_id for s in middle] == claims[1:3]
    assert len(list(store.read_types([ObservationRecorded]))) == 4
    assert list(store.read_types([ConflictResolved])) == []
    assert list(store.read_types([ClaimRetracted], limit=0)) == []
    everything = {s.position: s for s in store.read()}
    assert all(everything[s.position] == s for s in got)
    store.close()


# -- backup ----------------------------------------------------------------------------------------------


def test_backup_is_one_verified_self_contained_file(live) -> None:
    path, target, info, before, _recalled, _ids = live
    assert target.exists() and not Path(f"{target}-wal").exists() and not Path(f"{target}-shm").exists()
    assert leftovers(target.parent) == []
    assert info.position == len(before["events"]) and info.store_id == before["store_id"]
    assert info.created_at == T0 + 2 * DAY and info.backup_id.startswith("bk_") and info.size_bytes > 0
    read = read_backup(target)
    assert (read.backup_id, read.store_id, read.position, read.created_at) == (
        info.backup_id, info.store_id, info.position, info.created_at)
    con = apsw.Connection(str(target), flags=apsw.SQLITE_OPEN_READONLY)
    assert con.execute("PRAGMA journal_mode").fetchone()[0] == "delete"
    con.close()
    # The copy holds the same log and projections as the store at backup time.
    copy = SQLiteStorage(shutil.copy(target, target.parent / "copy.db"))
    assert [s.event for s in copy.read()] == before["events"]
    assert copy.projection_fingerprints(sorted(copy.stream_versions())) == before["rows"]
    copy.close()


def test_backup_refuses_an_existing_file_and_the_store_itself_and_names_files_in_a_directory(live) -> None:
    path, target, _info, _before, _recalled, _ids = live
    with open_memory(path) as mem:
        with pytest.raises(ValidationError, match="exists"):
            mem.backup(target)
        with pytest.raises(ValidationError, match="store itself"):
            mem.backup(path)
        again = mem.backup(target, overwrite=True)
        assert read_backup(target).backup_id == again.backup_id
        folder = target.parent / "backups"
        folder.mkdir()
        named = mem.backup(folder)
    assert Path(named.path).parent == folder and Path(named.path).name.startswith("live-20260301T093000Z-")
    assert read_backup(named.path).backup_id == named.backup_id


def test_backup_during_writes_of_another_connection_is_the_snapshot_at_its_position(tmp_path: Path) -> None:
    path = tmp_path / "live.db"
    store = SQLiteStorage(path, synchronous="NORMAL")
    clock = FixedClock(T0)
    writes = WriteService(store, clock, SequentialIds(), DEFAULT_REGISTRY)
    for n in range(300):
        writes.record(RecordObservation(text=f"observation {n}: 我在上海喝了第{n}杯咖啡 " + "padding " * 40))
    start = store.last_position()
    # Another connection (as another process would) writes between the backup's steps.
    other = SQLiteStorage(path, synchronous="NORMAL")
    other_writes = WriteService(other, clock, SequentialIds(10_000), DEFAULT_REGISTRY)
    steps: list[tuple[int, int]] = []

    def write_between_steps(done: int, total: int) -> None:
        steps.append((done, total))
        other_writes.record(RecordObservation(text=f"written during the backup, step {len(steps)}"))
        other_writes.remember(AssertClaim(subject="user", predicate="likes", value=f"thing {len(steps)}"))

    info = backup(store, tmp_path / "b.db", clock=clock, ids=SequentialIds(), pages_per_step=8,
                  progress=write_between_steps)
    assert len(steps) > 10, "the copy must take many steps for the test to mean anything"
    assert info.position == start < store.last_position() == start + 2 * len(steps)
    copy = SQLiteStorage(shutil.copy(tmp_path / "b.db", tmp_path / "copy.db"))
    assert [s.event for s in copy.read()] == [s.event for s in store.read(limit=start)]
    rebuilt = InMemoryStorage()
    replay = ReplayService(DEFAULT_REGISTRY)
    replay.rebuild(copy, rebuilt)
    assert replay.compare(copy, rebuilt).equal
    for s in (copy, other, store):
        s.close()


def test_backup_while_a_thread_writes_continuously_is_complete_up_to_its_position(tmp_path: Path) -> None:
    path = tmp_path / "live.db"
    store = SQLiteStorage(path, synchronous="NORMAL")
    seed = WriteService(store, FixedClock(T0), SequentialIds(), DEFAULT_REGISTRY)
    for n in range(200):
        seed.record(RecordObservation(text=f"seed {n} " + "x " * 100))
    stop = threading.Event()
    written = []

    def writer() -> None:
        own = SQLiteStorage(path, synchronous="NORMAL")
        service = WriteService(own, FixedClock(T0), SequentialIds(50_000), DEFAULT_REGISTRY)
        while not stop.is_set():
            written.append(service.record(RecordObservation(text=f"live {len(written)}")).id)
        own.close()

    thread = threading.Thread(target=writer)
    thread.start()
    try:
        while len(written) < 5:
            threading.Event().wait(0.005)
        info = backup(store, tmp_path / "b.db", clock=FixedClock(T0), ids=SequentialIds(), pages_per_step=4)
        while len(written) < 5 + info.position // 100:
            threading.Event().wait(0.005)
    finally:
        stop.set()
        thread.join()
    copy = SQLiteStorage(shutil.copy(tmp_path / "b.db", tmp_path / "copy.db"))
    assert copy.last_position() == info.position
    assert [s.event for s in copy.read()] == [s.event for s in store.read(limit=info.position)]
    assert store.last_position() > info.position
    copy.close()
    store.close()


def test_an_in_memory_store_has_no_backup_or_restore(tmp_path: Path) -> None:
    with Memory(":memory:", embedder="none") as mem:
        with pytest.raises(UnsupportedOperation, match="memory"):
            mem.backup(tmp_path / "b.db")
        with pytest.raises(UnsupportedOperation):
            mem.restore(tmp_path / "b.db")
        with pytest.raises(UnsupportedOperation):
            backup(mem.storage, tmp_path / "b.db", clock=mem.clock, ids=SequentialIds())
    assert not (tmp_path / "b.db").exists()


# -- restore --------------------------------------------------------------------------------------------


def test_restore_brings_back_exactly_the_store_at_backup_time(live) -> None:
    path, target, info, before, recalled, ids = live
    with open_memory(path) as mem:
        mem.remember("user", "theme", "solarized")
        mem.add("written after the backup: 我搬到了柏林", extract=False)
        mem.retract(ids["city"], "moved")
        assert state_of(mem.storage)["rows"] != before["rows"]
        result = mem.restore(target, reason="rolled back a bad import")
        after = state_of(mem.storage)
        assert after["rows"] == before["rows"]
        assert after["events"][:-1] == before["events"]
        restored = after["events"][-1]
        assert isinstance(restored, StoreRestored) and restored.stream_id == result.restored_id
        assert (restored.backup_id, restored.backup_position, restored.reapplied, restored.reason) == (
            info.backup_id, info.position, 0, "rolled back a bad import")
        assert {k: v for k, v in after["counts"].items() if k != "events"} == \
               {k: v for k, v in before["counts"].items() if k != "events"}
        assert after["counts"]["events"] == before["counts"]["events"] + 1
        assert after["store_id"] == before["store_id"] and result.previous_store_id == before["store_id"]
        assert recall_ids(mem) == recalled
        assert (result.position, result.ledger_applied, result.forced) == (info.position + 1, True, False)
        # The reopened Memory works on the restored file, with the clock where the test left it.
        assert mem.remember("user", "theme", "sepia").outcome == "superseded"
        assert mem.storage.read_types([ClaimRetracted]) is not None
    assert leftovers(path.parent) == []
    with open_memory(path) as mem:
        assert mem.storage.meta("backup_id") is None
        assert mem.replay().equal


def test_restore_onto_a_missing_store_is_disaster_recovery(live, tmp_path: Path) -> None:
    _path, target, info, before, recalled, _ids = live
    fresh = tmp_path / "elsewhere" / "new.db"
    result = restore_store(fresh, target, now=T0 + 3 * DAY)
    assert not result.ledger_applied and result.previous_store_id is None and result.reapplied == 0
    assert any("no tombstone ledger" in note for note in result.notes)
    with open_memory(fresh) as mem:
        assert state_of(mem.storage)["rows"] == before["rows"]
        assert mem.storage.store_id() == info.store_id
        assert recall_ids(mem) == recalled


def test_a_backup_of_another_store_is_refused_unless_forced(live, tmp_path: Path) -> None:
    path, _target, _info, before, _recalled, ids = live
    with open_memory(path) as mem:
        mem.forget(ids["tea"])  # a ledger the refusal must not even open the store to read
    other_path = tmp_path / "other.db"
    with open_memory(other_path) as other:
        other.remember("alice", "lives_in", "Paris")
        foreign = other.backup(tmp_path / "other-backup.db")
    digest = file_digest(path)
    with pytest.raises(BackupRejected, match="another store|not of this store") as refused:
        restore_store(path, foreign.path)
    assert refused.value.reason == "other-store"
    assert file_digest(path) == digest and leftovers(tmp_path) == []
    result = restore_store(path, foreign.path, force=True)
    assert result.forced and result.previous_store_id == before["store_id"] and result.ledger_applied
    with open_memory(path) as mem:
        assert mem.storage.store_id() == foreign.store_id
        assert [i.value for i in mem.recall("alice Paris").items if i.kind == "claim"] == ["Paris"]


def test_an_empty_live_store_takes_any_backup(live, tmp_path: Path) -> None:
    _path, target, info, before, _recalled, _ids = live
    fresh = tmp_path / "fresh.db"
    with open_memory(fresh) as mem:  # opening made an empty store with an identity of its own
        assert mem.storage.store_id() != info.store_id
        result = mem.restore(target)
        assert state_of(mem.storage)["rows"] == before["rows"]
    assert any("was empty" in note for note in result.notes)


def test_a_backup_of_a_newer_hlmem_is_refused(live) -> None:
    path, target, _info, before, _recalled, _ids = live
    con = apsw.Connection(str(target))
    con.execute("INSERT INTO _migrations (name, applied_at) VALUES ('9999_from_the_future', '2030-01-01')")
    con.close()
    with pytest.raises(BackupRejected, match="newer hlmem") as refused:
        restore_store(path, target)
    assert refused.value.reason == "newer-schema"
    with open_memory(path) as mem:
        assert state_of(mem.storage)["rows"] == before["rows"]


def _flip_payload_byte(target: Path) -> None:
    data = bytearray(target.read_bytes())
    at = data.find('"text":"我住在上海'.encode())
    assert at > 0
    data[at + 9] ^= 0x01
    target.write_bytes(bytes(data))


def _garbage_pages(target: Path) -> None:
    with open(target, "r+b") as f:
        f.seek(3 * 4096)
        f.write(random.Random(7).randbytes(3 * 4096))


def _truncate(target: Path) -> None:
    with open(target, "r+b") as f:
        f.truncate(os.path.getsize(target) // 2)


def _text_file(target: Path) -> None:
    target.write_text("not a database at all\n" * 200)


def _plain_copy(target: Path) -> None:
    con = apsw.Connection(str(target))
    con.execute("DELETE FROM meta WHERE key LIKE 'backup_%'")
    con.close()


@pytest.mark.parametrize(("damage", "reason"), [
    (_flip_payload_byte, "corrupt"), (_garbage_pages, "corrupt"), (_truncate, "corrupt"), (_text_file, "corrupt"),
    (_plain_copy, "not-a-backup"), (Path.unlink, "not-a-backup"),
])
def test_a_damaged_backup_is_refused_and_the_live_store_stays(live, damage, reason: str) -> None:
    path, target, _info, before, _recalled, _ids = live
    damage(target)
    with pytest.raises(BackupRejected) as refused:
        restore_store(path, target)
    assert refused.value.reason == reason, refused.value
    with open_memory(path) as mem:
        assert state_of(mem.storage)["rows"] == before["rows"]
    assert leftovers(path.parent) == []


@pytest.mark.parametrize("where", ["make_self_contained", "verify", "_swap"])
def test_a_failure_before_the_swap_leaves_the_live_store_untouched(live, monkeypatch, where: str) -> None:
    path, target, _info, _before, _recalled, ids = live
    with open_memory(path) as mem:
        mem.remember("user", "theme", "written after the backup")
        current = state_of(mem.storage)
    real = getattr(restore_mod, where)
    calls = []

    def failing(*args, **kwargs):
        calls.append(where)
        if where == "_swap":
            raise OSError("disk vanished just before the rename")
        real(*args, **kwargs)
        raise StorageError(f"injected failure after {where}")

    monkeypatch.setattr(restore_mod, where, failing)
    with pytest.raises((StorageError, OSError)):
        restore_store(path, target)
    assert calls == [where]
    assert leftovers(path.parent) == []
    monkeypatch.undo()
    with open_memory(path) as mem:
        assert state_of(mem.storage) == current
        assert list(mem.storage.read_types([StoreRestored])) == []


def test_restore_refuses_while_the_store_is_open(live) -> None:
    path, target, _info, before, _recalled, _ids = live
    holder = SQLiteStorage(path)
    holder.counts()
    try:
        with pytest.raises(BackupRejected, match="is open") as refused:
            restore_store(path, target)
        assert refused.value.reason == "in-use"
    finally:
        holder.close()
    assert leftovers(path.parent) == []
    restore_store(path, target)  # closed: now it may


def test_an_unreadable_live_store_is_replaced_only_when_forced(live) -> None:
    path, target, _info, before, _recalled, _ids = live
    path.write_bytes(b"this store was destroyed " * 1000)
    with pytest.raises(BackupRejected) as refused:
        restore_store(path, target)
    assert refused.value.reason == "live-unreadable"
    result = restore_store(path, target, force=True)
    assert not result.ledger_applied and any("could not be read" in n for n in result.notes)
    with open_memory(path) as mem:
        assert state_of(mem.storage)["rows"] == before["rows"]


# -- audit ------------------------------------------------------------------------------------------------


def test_audit_lists_governance_actions_newest_first_with_the_restore(live) -> None:
    path, target, info, _before, _recalled, ids = live
    with open_memory(path) as mem:
        mem.restore(target, reason="drill")  # recorded at T0: a reopened Memory's clock
        mem.clock.advance(5 * DAY)
        mem.retract(ids["theme2"], "不对")
        entries = mem.audit()
        assert [(e.kind, e.target) for e in entries] == [
            ("retract", ids["theme2"]), ("restore", info.backup_id), ("retract", ids["tea"])]
        retract, restored, _ = entries
        assert (retract.actor, retract.detail, retract.at) == ("user", "不对", T0 + 5 * DAY)
        assert restored.detail == "drill" and dict(restored.extra) == {
            "backup_position": str(info.position), "reapplied": "0"}
        assert restored.stream_id.startswith("rs_")
        assert [e.kind for e in mem.audit(kinds=["restore"])] == ["restore"]
        assert [e.kind for e in mem.audit(since=T0 + 5 * DAY)] == ["retract"]
        # ``since`` is recorded time, not log order: the restore (T0) goes, the older retraction stays.
        assert [e.target for e in mem.audit(since=T0 + DAY)] == [ids["theme2"], ids["tea"]]
        assert len(mem.audit(limit=1)) == 1
        assert mem.audit(namespace="work") == []
        with pytest.raises(ValidationError, match="unknown audit kind"):
            mem.audit(kinds=["delete"])
        with pytest.raises(ValidationError, match="limit"):
            mem.audit(limit=0)


def test_audit_names_every_governance_event_type() -> None:
    assert set(KINDS.values()) == set(AUDIT_EVENT_TYPES)
    assert AuditService(InMemoryStorage()).list() == []


# -- forgetting survives a restore ------------------------------------------------------------------------

SECRET_ZH = "我的护照号码是E12345678，住在杭州西湖区"
SECRET_EN = "my passport number is X99887766 zanzibar"


def store_files(path: Path) -> list[Path]:
    return [p for p in path.parent.iterdir() if p.name.startswith(path.name)]


def test_what_was_forgotten_after_a_backup_stays_forgotten_when_that_backup_is_restored(tmp_path: Path) -> None:
    path = tmp_path / "live.db"
    with open_memory(path) as mem:
        keep = mem.add("我喜欢深色主题", extract=False).id
        zh = mem.add(SECRET_ZH, extract=False).id
        en = mem.add(SECRET_EN, session="travel", extract=False).id
        alice = mem.remember("alice", "lives_in", "Reykjavik").id
        mem.remember("alice", "likes", "licorice")
        kept_claim = mem.remember("user", "theme", "dark", evidence=[keep, zh]).id
        info = mem.backup(tmp_path / "backup.db")
        mem.clock.advance(DAY)
        mem.forget(zh, reason="asked by the user")
        mem.forget(session="travel")
        mem.forget(subject="alice")
        mem.clock.advance(DAY)
        result = mem.restore(info.path, reason="restore drill")
        assert result.ledger_applied and result.tombstones > 0
        assert result.reapplied >= 4  # two events, two claims of alice (and whatever their cascade holds)
        for query in ("护照", "杭州", "passport", "zanzibar", "alice", "Reykjavik", "licorice"):
            found = mem.recall(query, k=50).items
            assert not [(i.id, i.text) for i in found if i.id in (zh, en, alice) or i.subject == "alice"], query
        for item in (zh, en, alice):
            explained = mem.explain(item)
            assert explained.kind == "forgotten" and explained.forgotten_at is not None
            assert explained.claim is None and explained.observation is None
        # The claim with surviving evidence survives, without the forgotten link.
        survivor = mem.storage.get_claims([kept_claim])[kept_claim]
        assert survivor.status.value == "active" and survivor.evidence == (keep,)
        kinds = [e.kind for e in mem.audit()]
        assert kinds[:2] == ["restore", "forget"], kinds
        assert mem.replay().equal
        # A second restore of the same backup enforces the (now carried-over) ledger again.
        again = mem.restore(info.path)
        assert again.reapplied == result.reapplied
    for secret in (SECRET_ZH, "E12345678", "杭州西湖区", SECRET_EN, "X99887766", "zanzibar", "Reykjavik", "licorice"):
        needle = secret.encode()
        for file in store_files(path):
            assert needle not in file.read_bytes(), (secret, file.name)


def test_a_backup_whose_context_index_disagrees_with_its_rows_is_refused(tmp_path: Path) -> None:
    """verify runs FTS5's consistency check on the conversational-context index too (ADR 0019)."""
    import apsw

    from hlmem import Memory
    from hlmem.domain.errors import StorageError

    with Memory(tmp_path / "live.db", embedder="none") as mem:
        for text in ("How long have you been painting?", "Seven years now"):
            mem.add(text, session="chat", extract=False)
        info = mem.backup(tmp_path / "b.db")
    assert read_backup(info.path).backup_id == info.backup_id
    con = apsw.Connection(str(info.path))
    con.execute("UPDATE context_fts_content SET c0 = 'tampered words' WHERE id = (SELECT min(id) FROM context_fts_content)")
    con.close()
    with pytest.raises(StorageError):
        read_backup(info.path)
