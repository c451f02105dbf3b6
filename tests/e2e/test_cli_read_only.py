"""A store this OS user can read but not write, and a second OS user (issue 33 item 8).

The commands run as another user (``nobody``, whose home does not exist) on a store owned by the
test's user, in a folder ``nobody`` may not write: SQLite cannot make the store's ``-wal`` and
``-shm`` there. Read commands work; writes refuse with one clear line saying why and what to do,
and change nothing (the file's bytes stay, no ``-wal``/``-shm`` appears). The segmenter cache of
a user without a usable cache folder goes to a private temporary folder: no warning, no rebuild
on the next run. Run by root (CI); an ordinary user cannot act as another, and the test skips.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from hlmem import Memory

from support.cli import HLMEM

NOBODY = 65534
pytestmark = pytest.mark.skipif(os.name != "posix" or os.geteuid() != 0 or HLMEM is None,
                                reason="needs root to run commands as another OS user, and the hlmem script")


@pytest.fixture
def shared() -> Iterator[Path]:
    """A folder every user can enter (pytest's own tmp folder is private to root)."""
    folder = Path(tempfile.mkdtemp(prefix="hlmem-ro-"))
    folder.chmod(0o755)
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def as_nobody(db: Path, *args: str, tmp: Path) -> subprocess.CompletedProcess[str]:
    env = {"PATH": os.environ["PATH"], "HOME": "/nonexistent", "TMPDIR": str(tmp), "HLMEM_EMBEDDER": "hash",
           "PYTHONIOENCODING": "utf-8", "LANG": "C.UTF-8", "NO_COLOR": "1", "COLUMNS": "200"}
    return subprocess.run([HLMEM, "--db", str(db), *args], capture_output=True, text=True, env=env,
                          user=NOBODY, group=NOBODY, extra_groups=[], cwd="/", timeout=180)


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_a_read_only_store_reads_and_refuses_writes_clearly(shared: Path) -> None:
    store = shared / "store"
    store.mkdir(mode=0o755)
    db = store / "memory.db"
    with Memory(db, embedder="hash") as mem:
        mem.add("我住在杭州。")
        mem.remember("Alice", "works_in", "Boston")
    tmp = shared / "tmp"
    tmp.mkdir(mode=0o1777)
    tmp.chmod(0o1777)
    out = shared / "out"
    out.mkdir()
    os.chown(out, NOBODY, NOBODY)
    before = _digest(db)

    said = {}
    for args in (("stats",), ("recall", "杭州"), ("history", "--subject", "Alice", "--predicate", "works_in"),
                 ("audit",), ("replay", "--verify"), ("backup", str(out / "copy.db"))):
        run = said[args[0]] = as_nobody(db, *args, tmp=tmp)
        assert run.returncode == 0, (args, run.stdout, run.stderr)
        assert run.stderr == "", (args, run.stderr)  # no segmenter warning either (a second user)
    assert "杭州" in said["recall"].stdout
    assert "full-text indexes' checks write" in said["replay"].stdout

    (out / "lines.jsonl").write_text('{"type": "observation", "text": "新的一条"}\n', encoding="utf-8")
    os.chown(out / "lines.jsonl", NOBODY, NOBODY)
    for args in (("add", "新的一条"), ("remember", "--subject", "Alice", "--predicate", "likes", "--value", "tea"),
                 ("forget", "--subject", "Alice", "--yes"), ("import", str(out / "lines.jsonl"))):
        run = as_nobody(db, *args, tmp=tmp)
        assert run.returncode == 1, (args, run.stdout, run.stderr)
        (line,) = run.stderr.splitlines()
        assert line.startswith(f"error: the store {db} is read-only here: ") and "Reading works" in line, line
        assert "not writable by nobody" in line and "backup COPY.db" in line and "Traceback" not in line, line
    assert _digest(db) == before and sorted(p.name for p in store.iterdir()) == ["memory.db"]
    # The jieba cache of a user without a home: in its own temporary folder, made once (the copy
    # of the dictionary a short command reads word by word, ADR 0079).
    cache = tmp / f"hlmem-{NOBODY}"
    assert cache.is_dir() and cache.stat().st_uid == NOBODY and any(cache.glob("jieba-*.sqlite"))


def test_writes_waiting_in_a_wal_without_its_shm_are_refused_saying_so(shared: Path) -> None:
    store = shared / "store"
    store.mkdir(mode=0o755)
    db = store / "memory.db"
    script = ("import os, signal, sys\nfrom hlmem import Memory\nm = Memory(sys.argv[1], embedder='hash')\n"
              "m.add('我住在杭州。')\nos.kill(os.getpid(), signal.SIGKILL)\n")
    subprocess.run([sys.executable, "-c", script, str(db)], timeout=180)
    assert Path(f"{db}-wal").stat().st_size > 0
    Path(f"{db}-shm").unlink()
    tmp = shared / "tmp"
    tmp.mkdir()
    tmp.chmod(0o1777)
    run = as_nobody(db, "stats", tmp=tmp)
    assert run.returncode == 1 and "holds writes not yet folded into it" in run.stderr, run
    assert "Traceback" not in run.stderr and len(run.stderr.splitlines()) == 1
