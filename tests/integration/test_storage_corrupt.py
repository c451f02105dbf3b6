"""A damaged store file says "corrupt": from ``replay --verify``, recall and add, never a traceback.

Copies of one store get garbage written into specific pages, found with ``dbstat``: the cells of
two index b-trees' leaf pages (``observations_session``, a SQLite index, and ``items_fts_idx``,
the full-text index's own b-tree), or single bytes of the log's text (an event's tag, its
payload). ``replay --verify`` runs ``integrity_check`` and the FTS checks first and then reads
the whole log, so each damage is named ``corrupt`` (``StorageCorrupt``, exit code 4) — not
"database disk image is malformed" alone, not an internal ``UnicodeDecodeError``, and never "a
newer hlmem". Each test checks the undamaged copy passes first.
"""

from __future__ import annotations

import random
import shutil
import sys
from pathlib import Path

import apsw
import pytest

_TESTS = str(Path(__file__).resolve().parents[1])
if _TESTS not in sys.path:  # tests/ has no __init__.py: make tests/support importable in any import mode
    sys.path.insert(0, _TESTS)

from support.cli import HLMEM, Run, cli_env, run_cli  # noqa: E402

from hlmem import Memory  # noqa: E402
from hlmem.domain.errors import StorageCorrupt  # noqa: E402

pytestmark = pytest.mark.skipif(HLMEM is None, reason="the hlmem console script is not installed")


@pytest.fixture(scope="module")
def pristine(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A checkpointed store of 300 events, closed (one file, no WAL)."""
    db = tmp_path_factory.mktemp("pristine") / "store.db"
    with Memory(db, embedder="hash", synchronous="OFF") as mem:
        mem.import_jsonl([f'{{"type": "observation", "text": "note number {i} about tea, weather and Berlin", '
                          f'"session": "s{i % 5}", "occurred_at": "2026-03-01T09:30:00Z"}}' for i in range(300)],
                         extract=False)
    assert not Path(f"{db}-wal").exists()
    return db


def copy(pristine: Path, tmp_path: Path) -> Path:
    db = tmp_path / "store.db"
    shutil.copyfile(pristine, db)
    return db


def leaf_pages(db: Path, name: str) -> list[int]:
    con = apsw.Connection(str(db), flags=apsw.SQLITE_OPEN_READONLY)
    try:
        return [r[0] for r in con.execute(
            "SELECT pageno FROM dbstat WHERE name = ? AND pagetype = 'leaf' ORDER BY pageno", (name,))]
    finally:
        con.close()


def page_size(db: Path) -> int:
    con = apsw.Connection(str(db), flags=apsw.SQLITE_OPEN_READONLY)
    try:
        return con.execute("PRAGMA page_size").fetchone()[0]
    finally:
        con.close()


def scramble_cells(db: Path, name: str, *, pages: int = 2, seed: int = 7) -> list[int]:
    """Garbage over the second half of the first ``pages`` leaf pages of ``name`` (the cells;
    the page header and cell pointers stay, so the b-tree still looks like one)."""
    size, found = page_size(db), leaf_pages(db, name)[:pages]
    assert found, f"{name} has no leaf page"
    rnd = random.Random(seed)
    with db.open("r+b") as f:
        for page in found:
            f.seek((page - 1) * size + size // 2)
            f.write(bytes(rnd.randrange(256) for _ in range(size - size // 2)))
    return found


def patch_bytes(db: Path, name: str, needle: bytes, replacement: bytes) -> int:
    """Replace the first ``needle`` on a leaf page of ``name`` by ``replacement`` (same length)."""
    assert len(needle) == len(replacement)
    size = page_size(db)
    with db.open("r+b") as f:
        for page in leaf_pages(db, name):
            f.seek((page - 1) * size)
            data = bytearray(f.read(size))
            at = data.find(needle)
            if at >= 0:
                data[at:at + len(needle)] = replacement
                f.seek((page - 1) * size)
                f.write(data)
                return page
    raise AssertionError(f"{needle!r} is on no page of {name}")


def hlmem(db: Path, *args: str) -> Run:
    run = run_cli(db, list(args), env=cli_env(db, HLMEM_EMBEDDER="hash"), timeout=120)
    text = run.out + run.err
    assert "Traceback" not in text and "internal error" not in text and "newer hlmem" not in text, run
    return run


def corrupt(run: Run) -> bool:
    return run.code == 4 and run.err.startswith("error: ") and "corrupt" in run.err


def test_the_undamaged_copy_passes_verify(pristine: Path, tmp_path: Path) -> None:
    db = copy(pristine, tmp_path)
    run = hlmem(db, "replay", "--verify")
    assert run.code == 0 and "passed first: the file's integrity_check and its full-text indexes' checks" in run.out, run
    data = hlmem(db, "replay", "--verify", "--json").json()
    assert data["integrity"] == "ok" and "integrity_check" in data["integrity_checked"]


def test_corrupt_index_pages_are_corrupt_for_verify_recall_and_add(pristine: Path, tmp_path: Path) -> None:
    db = copy(pristine, tmp_path)
    scramble_cells(db, "observations_session")
    scramble_cells(db, "items_fts_idx", pages=1)

    verify = hlmem(db, "replay", "--verify")
    recall = hlmem(db, "recall", "tea weather")
    add = hlmem(db, "add", "one more note about tea")

    assert corrupt(verify) and f"{db} is corrupt" in verify.err, verify
    assert corrupt(recall), recall
    assert corrupt(add), add
    with Memory(db, embedder="hash") as mem, pytest.raises(StorageCorrupt) as caught:
        mem.replay(verify=True)
    assert caught.value.reason == "storage.corrupt" and caught.value.path == str(db)


@pytest.mark.parametrize(("table", "needle", "replacement", "why"), [
    ("events", b"observation.recorded", b"\xffbservation.recorded", "text that is not UTF-8"),
    ("events", b"observation.recorded", b"Observation.recorded", "which no hlmem writes"),
    ("event_payloads", b"note number 17 ", b"note number 17\xff", "text that is not UTF-8"),
    ("event_payloads", b'{"', b"#\"", "is not JSON"),
], ids=["tag-not-utf8", "tag-of-no-hlmem", "payload-not-utf8", "payload-not-json"])
def test_a_damaged_log_page_is_corrupt_never_a_newer_hlmem(pristine: Path, tmp_path: Path, table: str,
                                                            needle: bytes, replacement: bytes, why: str) -> None:
    db = copy(pristine, tmp_path)
    patch_bytes(db, table, needle, replacement)

    verify = hlmem(db, "replay", "--verify")
    replay = hlmem(db, "replay")

    assert corrupt(verify) and why in verify.err, verify
    assert corrupt(replay) and why in replay.err, replay
    # Commands that never read the damaged bytes work; none may fail with anything but "corrupt".
    for run in (hlmem(db, "recall", "tea"), hlmem(db, "add", "one more note")):
        assert run.code == 0 or corrupt(run), run
