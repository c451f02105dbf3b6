"""A full file system reads "no space left on <path>": backup onto it, a store on it, at open and at write.

A real full disk, small: a tmpfs of 8 MiB mounted for the test (this needs root and ``mount``;
the tests skip, saying why, where they are not available), then filled with a file until the
kernel says ``ENOSPC``. Before, SQLite's words reached the user: "backup … failed: not an error"
and, at open, "disk I/O error".
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

_TESTS = str(Path(__file__).resolve().parents[1])
if _TESTS not in sys.path:  # tests/ has no __init__.py: make tests/support importable in any import mode
    sys.path.insert(0, _TESTS)

from support.cli import HLMEM, cli_env, run_cli  # noqa: E402

from hlmem import Memory  # noqa: E402
from hlmem.domain.errors import StorageFull  # noqa: E402

#: Chunks the filler writes at most (8 MiB in 64 KiB chunks, and some slack): the loop is bounded.
MAX_CHUNKS = 8 * 16 + 64


@pytest.fixture
def small(tmp_path: Path) -> Iterator[Path]:
    """A fresh 8 MiB tmpfs, unmounted afterwards."""
    if os.name != "posix" or os.geteuid() != 0 or shutil.which("mount") is None:
        pytest.skip("needs root and mount(8) to mount a small tmpfs (a real full file system)")
    where = tmp_path / "small"
    where.mkdir()
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=8m", "tmpfs", str(where)], capture_output=True,
                          text=True, timeout=30)
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.strip() or done.returncode}")
    try:
        yield where
    finally:
        subprocess.run(["umount", "-l", str(where)], capture_output=True, timeout=30)


def fill(where: Path) -> None:
    """Write a filler file until the file system is full."""
    chunk = b"\0" * 65536
    with (where / "filler").open("wb", buffering=0) as f:
        for _ in range(MAX_CHUNKS):
            try:
                f.write(chunk)
            except OSError:
                break
        else:
            raise AssertionError("the file system never filled up")
    with (where / "filler").open("ab", buffering=0) as f:
        for size in (4096, 512, 1):  # the last blocks, too
            try:
                while True:
                    f.write(b"\0" * size)
            except OSError:
                pass
    assert shutil.disk_usage(where).free == 0


def store(db: Path, n: int = 30) -> None:
    with Memory(db, embedder="hash", synchronous="OFF") as mem:
        for i in range(n):
            mem.add(f"note {i} about tea and the weather", extract=False)


def test_backup_onto_a_full_file_system_says_no_space_left_and_leaves_nothing(small: Path, tmp_path: Path) -> None:
    db = tmp_path / "store.db"
    store(db, 200)
    fill(small)
    target = small / "backup.db"
    with Memory(db, embedder="hash") as mem, pytest.raises(StorageFull) as caught:
        mem.backup(target)
    assert caught.value.path == str(target) and caught.value.reason == "storage.no_space"
    assert str(caught.value).startswith(f"no space left on {target}") and "not an error" not in str(caught.value)
    assert sorted(p.name for p in small.iterdir()) == ["filler"], "no backup and no temporary file is left"

    if HLMEM is not None:
        run = run_cli(db, ["backup", str(target)], env=cli_env(db, HLMEM_EMBEDDER="hash"))
        assert run.code == 1 and run.err.startswith(f"error: no space left on {target}"), run
        assert "Traceback" not in run.err and "not an error" not in run.err


def test_a_store_on_a_full_file_system_says_no_space_left_at_open_and_at_write(small: Path) -> None:
    db = small / "store.db"
    store(db)
    with Memory(db, embedder="hash") as mem:
        fill(small)
        with pytest.raises(StorageFull, match=r"^no space left on "):
            for i in range(1000):  # bounded: the WAL grows into the full file system within a few
                mem.add(f"a long note {i} " + "about tea " * 400, extract=False)
    # Closing checkpointed the WAL away and freed its space: fill what it left, then open.
    fill(small)
    with pytest.raises(StorageFull) as caught:
        Memory(db, embedder="hash")
    assert caught.value.path == str(db) and str(caught.value).startswith(f"no space left on {db}")

    if HLMEM is not None:
        for args in (["stats"], ["recall", "tea"], ["add", "hello"]):
            run = run_cli(db, args, env=cli_env(db, HLMEM_EMBEDDER="hash"))
            assert run.code == 1 and run.err.startswith(f"error: no space left on {db}"), run
            assert "disk I/O error" not in run.err and "Traceback" not in run.err

    (small / "filler").unlink()  # with room again, the store works and lost nothing it acknowledged
    with Memory(db, embedder="hash") as mem:
        assert mem.stats()["observations"] >= 30
