"""Backup names over the network: a plain file name into the server's folder, or nothing (ADR 0059)."""

from __future__ import annotations

from pathlib import Path

import os

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

pytest.importorskip("fastapi", reason="the server package's tests need the extra: pip install 'hlmem[server]'")

from hlmem.adapters.server.backups import (  # noqa: E402
    BackupExists,
    UnsafeName,
    backup_directory,
    backup_file_name,
    backup_into,
    default_backup_directory,
)


@pytest.mark.parametrize(("name", "file"), [
    (None, None), ("nightly", "nightly.db"), ("nightly.db", "nightly.db"), ("2026-03-01_full", "2026-03-01_full.db"),
    ("备份-三月", "备份-三月.db"), ("a.b.c", "a.b.c.db"), ("m.db-wal", "m.db-wal.db"),
])
def test_a_plain_name_is_kept_with_db_added(name: str | None, file: str | None) -> None:
    assert backup_file_name(name) == file


@pytest.mark.parametrize(("name", "why"), [
    ("x\x00y", "NUL byte"), ("/etc/cron.d/x", "path separator"), ("a/b", "path separator"),
    ("..\\x", "path separator"), ("..", "'..'"), ("a..b", "'..'"), (".hidden", "starts with '.'"),
    ("", "may hold only"), (" x", "may hold only"), ("x\n", "may hold only"), ("C:x", "may hold only"),
    ("a b", "may hold only"), ("x" * 121, "longer than 120"), ("$(rm -rf)", "may hold only"),
    ("\u2215etc\u2215passwd", "may hold only"), ("\uff0e\uff0e", "may hold only"), ("x\u202e.db", "may hold only"),
    ("%2e%2e%2fx", "may hold only"), ("~root", "may hold only"),
])
def test_anything_else_is_refused_saying_why(name: str, why: str) -> None:
    with pytest.raises(UnsafeName) as caught:
        backup_file_name(name)
    assert why in str(caught.value) and caught.value.field == "name" and "\n" not in str(caught.value)


@given(st.text(max_size=40) | st.text(alphabet="./\\\x00ab:~", max_size=12))
@example("../x")
@example("/etc/cron.d/x")
@example("..")
@example("x/..")
def test_no_accepted_name_leaves_the_folder_or_hides(name: str) -> None:
    try:
        file = backup_file_name(name)
    except UnsafeName:
        return
    folder = Path("/srv/backups")
    target = folder / file
    assert target.parent == folder and os.path.normpath(target) == str(target)
    assert not file.startswith(".") and file.endswith(".db") and "\x00" not in file


def test_the_directory_is_the_setting_or_the_user_data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    assert default_backup_directory() == tmp_path / "data" / "hlmem" / "backups"
    assert backup_directory(None) == (tmp_path / "data" / "hlmem" / "backups").resolve()
    (tmp_path / "real").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "real")
    assert backup_directory(str(tmp_path / "link")) == (tmp_path / "real").resolve()  # the operator's link


class _Memory:
    """Records where a backup was asked for."""

    def __init__(self) -> None:
        self.asked: list[Path] = []

    def backup(self, path: Path, *, overwrite: bool) -> str:
        assert overwrite is False
        self.asked.append(Path(path))
        return "info"


def test_backup_into_makes_a_private_folder_and_never_overwrites(tmp_path: Path) -> None:
    mem, folder = _Memory(), tmp_path / "backups"
    assert backup_into(mem, folder, "nightly") == "info" and mem.asked == [folder / "nightly.db"]
    assert folder.stat().st_mode & 0o777 == 0o700
    backup_into(mem, folder, None)
    assert mem.asked[-1] == folder  # the backup names the file
    (folder / "taken.db").write_text("")
    with pytest.raises(BackupExists):
        backup_into(mem, folder, "taken.db")
    (folder / "link.db").symlink_to(tmp_path / "elsewhere")
    with pytest.raises(UnsafeName, match="symbolic link"):
        backup_into(mem, folder, "link")
    assert len(mem.asked) == 2
