"""SQLite errors map onto the hlmem tree: corrupt, no space left (with the path), the rest as they are."""

from __future__ import annotations

import errno
import re
from pathlib import Path
from types import SimpleNamespace

import apsw
import pytest

from hlmem.adapters.serialization import TAGS, decode
from hlmem.adapters.sqlite.errors import damage_or_full, storage_error
from hlmem.domain.errors import (
    STORAGE_REASON_CODES,
    SchemaError,
    StorageCorrupt,
    StorageError,
    StorageFull,
    ValidationError,
)

DB = "/data/hlmem/store.db"
ROOT = Path(__file__).resolve().parents[3]


def connection(system_errno: int) -> SimpleNamespace:
    """What :func:`storage_error` reads of a connection: its file and the last I/O errno."""
    return SimpleNamespace(filename=DB, system_errno=system_errno)


def test_sqlite_full_is_no_space_left_on_the_path_whatever_the_message() -> None:
    # The backup API raises SQLITE_FULL with the message "not an error".
    error = storage_error(apsw.FullError("not an error"), "backup", path="/mnt/usb/b.db")
    assert isinstance(error, StorageFull) and error.reason == "storage.no_space" and error.path == "/mnt/usb/b.db"
    assert str(error).startswith("no space left on /mnt/usb/b.db (backup)") and "not an error" not in str(error)


def test_an_io_error_with_enospc_is_no_space_left() -> None:
    error = storage_error(apsw.IOError("disk I/O error"), "opening it", con=connection(errno.ENOSPC))
    assert isinstance(error, StorageFull) and error.path == DB and f"no space left on {DB}" in str(error)


def test_another_io_error_stays_an_io_error() -> None:
    error = storage_error(apsw.IOError("disk I/O error"), "reading", con=connection(errno.EIO))
    assert type(error) is StorageError and str(error) == "reading: disk I/O error"


def test_without_a_connection_a_full_file_system_is_asked(tmp_path: Path, monkeypatch) -> None:
    import shutil

    monkeypatch.setattr(shutil, "disk_usage", lambda _p: SimpleNamespace(total=10, used=10, free=0))
    assert isinstance(storage_error(apsw.IOError("disk I/O error"), "opening it", path=tmp_path / "s.db"), StorageFull)
    monkeypatch.setattr(shutil, "disk_usage", lambda _p: SimpleNamespace(total=10, used=5, free=5))
    assert type(storage_error(apsw.IOError("disk I/O error"), "opening it", path=tmp_path / "s.db")) is StorageError


@pytest.mark.parametrize("exc", [apsw.CorruptError("database disk image is malformed"),
                                 apsw.NotADBError("file is not a database"),
                                 UnicodeDecodeError("utf-8", b"\xff", 0, 1, "invalid start byte")])
def test_damage_is_corrupt_with_advice(exc: BaseException) -> None:
    error = storage_error(exc, "reading the log", con=connection(0))
    assert isinstance(error, StorageCorrupt) and error.reason == "storage.corrupt" and error.path == DB
    assert str(error).startswith(f"{DB} is corrupt (reading the log: ") and "hlmem restore" in str(error)


def test_other_sqlite_errors_and_hlmem_errors_pass_unchanged() -> None:
    assert type(storage_error(apsw.ConstraintError("UNIQUE failed"), "appending", path=DB)) is StorageError
    mine = ValidationError("bad")
    assert storage_error(mine, "anything") is mine


def test_a_log_tag_of_no_hlmem_is_corrupt_and_a_well_formed_unknown_one_is_a_newer_schema() -> None:
    envelope = {"event_id": "lg_1", "stream_id": "ev_1", "version": 1, "recorded_at": "2026-03-01T09:30:00Z",
                "namespace": "default", "schema_version": 1}
    with pytest.raises(StorageCorrupt, match="which no hlmem writes"):
        decode("Observation.recorded.v1", envelope, "{}")
    with pytest.raises(SchemaError, match="newer hlmem, or the log is damaged") as caught:
        decode("observation.recorded.v9", envelope, "{}")
    assert not isinstance(caught.value, StorageCorrupt)
    with pytest.raises(StorageCorrupt, match="is not JSON"):
        decode("observation.recorded.v1", envelope, '#"text": 1}')
    with pytest.raises(StorageCorrupt, match="not a JSON object"):
        decode("observation.recorded.v1", envelope, "[1, 2]")
    assert all(re.fullmatch(r"[a-z][a-z_]*(?:\.[a-z_]+)+\.v[0-9]+", tag) for tag in TAGS)


def test_every_storage_reason_code_is_documented() -> None:
    doc = (ROOT / "docs" / "reason-codes.md").read_text(encoding="utf-8")
    section = doc[doc.index("## Storage errors"):]
    end = section.find("\n## ")
    section = section if end < 0 else section[:end]
    assert set(re.findall(r"^\| `([a-z_.]+)` \|", section, re.MULTILINE)) == set(STORAGE_REASON_CODES)


def test_the_clis_last_line_of_defence_names_only_sqlite_damage_and_full_disks() -> None:
    assert isinstance(damage_or_full(apsw.CorruptError("database disk image is malformed")), StorageCorrupt)
    assert isinstance(damage_or_full(apsw.FullError("not an error"), "/x/store.db"), StorageFull)
    assert damage_or_full(apsw.BusyError("database is locked")) is None
    # A file that is not UTF-8 outside SQLite (an import's input) is not damage to the store.
    assert damage_or_full(UnicodeDecodeError("utf-8", b"\xff", 0, 1, "invalid start byte")) is None
