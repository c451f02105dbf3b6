"""What a backup killed mid-copy leaves, and who removes it (issue 33 item 6; docs/backup.md).

A real backup process is SIGKILLed while it copies: its full-size temporary and lock file stay.
While it was alive, another backup left its files alone and the doctor called them in use; once
it is dead, the doctor reports them (warn) without touching them, and the next backup removes
them and says so. Temporaries without a lock file (an older hlmem's) are removed only once a
day old.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from hlmem.adapters.clock import SystemClock
from hlmem.adapters.ids import UlidGenerator
from hlmem.adapters.memory_api import Memory
from hlmem.adapters.ops.checks import OK, WARN
from hlmem.adapters.ops.store_checks import temporaries
from hlmem.adapters.sqlite.backup import read_backup
from hlmem.adapters.sqlite.restore import restore
from hlmem.application.forgetting import ForgetService
from hlmem.domain.slot_catalog import DEFAULT_REGISTRY
from hlmem.adapters.sqlite.temp_files import (
    IN_USE,
    STALE,
    UNPROVEN,
    UNPROVEN_AFTER,
    find_leftovers,
    held_temp,
    remove_stale,
)

pytestmark = pytest.mark.skipif(os.name != "posix", reason="flock and SIGKILL are POSIX")

#: A backup that copies one page per step and stops after the third, to be killed there.
SLOW_BACKUP = textwrap.dedent("""
    import sys, time
    from pathlib import Path
    from hlmem.adapters.clock import SystemClock
    from hlmem.adapters.ids import UlidGenerator
    from hlmem.adapters.sqlite.backup import backup
    from hlmem.adapters.sqlite.store import SQLiteStorage

    store, target, marker = SQLiteStorage(sys.argv[1]), sys.argv[2], Path(sys.argv[3])

    def progress(done, total):
        if done >= 3:
            marker.write_text(f"{done} of {total}")
            time.sleep(600)

    backup(store, target, clock=SystemClock(), ids=UlidGenerator(), pages_per_step=1, progress=progress)
""")


def _store(tmp_path: Path) -> Path:
    db = tmp_path / "memory.db"
    with Memory(db, embedder="hash") as mem:
        for n in range(40):
            mem.add(f"note {n}: " + "内容" * 200, extract=False)
    return db


def _paused_backup(db: Path, target: Path, tmp_path: Path) -> subprocess.Popen:
    marker = tmp_path / f"copying-{target.name}"
    proc = subprocess.Popen([sys.executable, "-c", SLOW_BACKUP, str(db), str(target), str(marker)])
    deadline = time.monotonic() + 120
    while not marker.exists():
        assert proc.poll() is None, "the backup process ended before it was paused"
        assert time.monotonic() < deadline, "the backup process never reached its third page"
        time.sleep(0.05)
    return proc


def _kill(proc: subprocess.Popen) -> None:
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=30)


def test_a_backup_killed_mid_copy_is_reported_then_cleaned_by_the_next_backup(tmp_path: Path) -> None:
    db = _store(tmp_path)
    backups = tmp_path / "backups"
    backups.mkdir()
    proc = _paused_backup(db, backups / "first.db", tmp_path)
    try:
        # Alive: its files are in use; neither the doctor nor another backup touches them.
        [running] = find_leftovers(backups)
        assert running.state == IN_USE and running.path.exists() and running.size > 0
        with Memory(db, embedder="hash") as mem:
            second = mem.backup(backups / "second.db")
        assert second.removed == () and running.path.exists()
    finally:
        _kill(proc)
    [left] = find_leftovers(backups)
    assert left.state == STALE and left.path.name.startswith(".first.db.backup-")
    assert {p.name for p in left.files} >= {left.path.name, left.path.name + ".lock"}
    assert left.size > 0 and left.path.exists()

    # The doctor says so (beside the store: a killed backup into the store's own folder).
    proc = _paused_backup(db, tmp_path / "beside.db", tmp_path)
    assert temporaries(db).status == OK and "running" in temporaries(db).detail
    _kill(proc)
    report = temporaries(db)
    assert report.status == WARN and "provably stale" in report.detail and "hlmem backup" in report.action
    assert find_leftovers(tmp_path)[0].path.exists(), "the doctor removes nothing"

    # The next backup removes both folders' stale files, and says what it removed.
    with Memory(db, embedder="hash") as mem:
        third = mem.backup(backups / "third.db")
    assert sorted(x.path.name.split(".backup-")[0] for x in third.removed) == [".beside.db", ".first.db"]
    assert find_leftovers(backups) == [] and find_leftovers(tmp_path) == []
    assert read_backup(backups / "third.db").position == 40
    assert temporaries(db).status == OK


def test_the_cli_doctor_and_backup_say_what_was_left_and_removed(tmp_path: Path) -> None:
    from support.cli import run_cli

    db = _store(tmp_path)
    _kill(_paused_backup(db, tmp_path / "b1.db", tmp_path))
    doctor = run_cli(db, ["--embedder", "hash", "doctor", "--json"])
    check = {c["name"]: c for c in json.loads(doctor.out)["checks"]}["temporaries"]
    assert doctor.code == 1 and check["status"] == "warn" and ".b1.db.backup-" in check["detail"], doctor
    run = run_cli(db, ["--embedder", "hash", "backup", str(tmp_path / "b2.db"), "--json"])
    assert run.code == 0 and "removed 1 stale temporary of an interrupted backup, restore or replay" in run.err, run
    [gone] = json.loads(run.out)["stale_removed"]
    assert ".b1.db.backup-" in gone["path"] and gone["size_bytes"] > 0
    assert find_leftovers(tmp_path) == []


def test_restore_removes_stale_files_beside_the_store_and_holds_its_own(tmp_path: Path) -> None:
    db = _store(tmp_path)
    with Memory(db, embedder="hash") as mem:
        saved = mem.backup(tmp_path / "saved.db")
        mem.forget(sorted(mem.storage.stream_versions())[0])  # a tombstone: the restore enforces it
    _kill(_paused_backup(db, tmp_path / "other.db", tmp_path))
    seen: list[str] = []

    def enforcer(copy):
        seen.extend(x.state for x in find_leftovers(tmp_path))  # the restore's own temporary, while it works
        return ForgetService(copy, copy.tombstones, SystemClock(), UlidGenerator(), DEFAULT_REGISTRY)

    info = restore(db, saved.path, clock=SystemClock(), ids=UlidGenerator(), enforcer=enforcer)
    assert any("removed 1 stale temporary" in n for n in info.notes), info.notes
    assert seen == [IN_USE] and info.reapplied == 1
    assert find_leftovers(tmp_path) == []


def test_temporaries_without_a_lock_file_go_only_once_a_day_old(tmp_path: Path) -> None:
    """What an hlmem from before the lock files left: nothing proves it stale but its age."""
    young = tmp_path / ".memory.db.backup-0a1b2c3d.tmp"
    old = tmp_path / ".memory.db.restore-deadbeef.tmp"
    for path in (young, old):
        path.write_bytes(b"\0" * 4096)
        Path(f"{path}-journal").write_bytes(b"\0" * 512)
    orphan = tmp_path / ".memory.db.backup-00000000.tmp-journal"  # its database already gone
    orphan.write_bytes(b"\0" * 512)
    aged = time.time() - UNPROVEN_AFTER - 60
    for path in (old, Path(f"{old}-journal"), orphan):
        os.utime(path, (aged, aged))
    states = {x.path.name: x.state for x in find_leftovers(tmp_path)}
    assert states == {young.name: UNPROVEN, old.name: STALE, orphan.name[:-len("-journal")]: STALE}
    removed = remove_stale(tmp_path)
    assert sorted(x.path.name for x in removed) == sorted([old.name, orphan.name[:-len("-journal")]])
    assert young.exists() and Path(f"{young}-journal").exists() and not old.exists() and not orphan.exists()
    assert not Path(f"{old}-journal").exists()
    (tmp_path / "memory.db.backup-0a1b2c3d.tmp").write_bytes(b"not ours: no leading dot")
    (tmp_path / ".memory.db.backup-nothex!.tmp").write_bytes(b"not ours: not the pattern")
    assert {x.path.name for x in find_leftovers(tmp_path)} == {young.name}


def test_a_held_temporary_is_in_use_in_this_process_too_and_leaves_nothing(tmp_path: Path) -> None:
    beside = tmp_path / "x.db"
    with held_temp(beside, "backup") as tmp:
        tmp.write_bytes(b"\0" * 100)
        Path(f"{tmp}-journal").write_bytes(b"\0" * 10)
        assert [x.state for x in find_leftovers(tmp_path)] == [IN_USE]
        assert remove_stale(tmp_path) == [] and tmp.exists()
    assert list(tmp_path.iterdir()) == []


#: ``replay --into`` that stops after its 20th event, to be killed there.
SLOW_REPLAY = textwrap.dedent("""
    import sys, time
    from pathlib import Path
    from hlmem.adapters.memory_api import Memory

    db, into, marker = sys.argv[1], sys.argv[2], Path(sys.argv[3])

    def progress(n):
        if n >= 20:
            marker.write_text(str(n))
            time.sleep(600)

    with Memory(db, embedder="hash") as mem:
        mem.replay(into=into, progress=progress)
""")


def test_a_killed_replay_is_reported_and_a_forget_removes_its_copy_of_the_text(tmp_path: Path) -> None:
    db = _store(tmp_path)
    with Memory(db, embedder="hash") as mem:
        secret = mem.add("my locker code is Zq-90817", extract=False)
    marker = tmp_path / "replaying"
    proc = subprocess.Popen([sys.executable, "-c", SLOW_REPLAY, str(db), str(tmp_path / "rebuilt.db"), str(marker)])
    try:
        deadline = time.monotonic() + 120
        while not marker.exists():
            assert proc.poll() is None, "the replay ended before it was paused"
            assert time.monotonic() < deadline, "the replay never reached its 20th event"
            time.sleep(0.05)
        [running] = find_leftovers(tmp_path)
        assert running.state == IN_USE and running.path.name.startswith(".rebuilt.db.rebuild-")
        assert "running" in temporaries(db).detail
    finally:
        _kill(proc)
    [left] = find_leftovers(tmp_path)
    assert left.state == STALE and not (tmp_path / "rebuilt.db").exists()
    report = temporaries(db)
    assert report.status == WARN and ".rebuilt.db.rebuild-" in report.detail and "forget" in report.action
    copy = b"".join(p.read_bytes() for p in left.files)
    assert b"Zq-90817" in copy, "the killed replay's copy holds the text (else this test proves nothing)"

    with Memory(db, embedder="hash") as mem:
        forgot = mem.forget(secret.id)
    assert any("removed 1 stale temporary copy of the store" in n for n in forgot.notes), forgot.notes
    assert find_leftovers(tmp_path) == [] and temporaries(db).status == OK
    assert not any(b"Zq-90817" in p.read_bytes() for p in tmp_path.iterdir() if p.is_file())
