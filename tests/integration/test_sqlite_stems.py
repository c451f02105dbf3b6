"""English stems in the SQLite full text (ADR 0058): indexed after the words, searched beside them,
and added to an older store's bodies by migration 0017."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime, timezone
from pathlib import Path

from hlmem import Memory
from hlmem.adapters.sqlite.connection import open_connection
from hlmem.adapters.text import segment

T0 = datetime(2026, 3, 1, 9, 30, tzinfo=timezone.utc)
TEXTS = ["We went camping by the lake", "The camp fire was warm", "我的居住地是北京", "lakes and ships"]


def _bodies(path: Path, table: str) -> dict[int, str]:
    con = open_connection(str(path))
    try:
        return dict(con.execute(f"SELECT rowid, body FROM {table}").fetchall())
    finally:
        con.close()


def test_a_word_finds_its_other_forms(tmp_path: Path) -> None:
    with Memory(tmp_path / "m.db", embedder="none", now=T0) as mem:
        ids = [mem.add(text, session="s", extract=False).id for text in TEXTS]
        assert {i.id for i in mem.recall("Where has Melanie camped?", k=5).items} >= {ids[0], ids[1]}
        found = mem.storage.text_candidates("default", "lake", 10)
        assert {c.item_id for c in found} == {ids[0], ids[3]}  # "lake" and "lakes"
        assert mem.storage.text_candidates("default", "居住地", 10)[0].item_id == ids[2]


def _store(path: Path) -> list[str]:
    """Write TEXTS to a new store at ``path``; their ids."""
    with Memory(path, embedder="none", now=T0) as mem:
        ids = [mem.add(text, session="s", extract=False).id for text in TEXTS]
    return ids


def _found(path: Path, ids: list[str]) -> dict[str, list[tuple[int, float]]]:
    """What each query finds in the store at ``path``: (text number or context rank, score)."""
    with Memory(path, embedder="none", now=T0) as mem:
        out = {q: [(ids.index(c.item_id), round(c.score, 9)) for c in mem.storage.text_candidates("default", q, 10)]
               for q in ("camped", "lake", "居住地", "ships")}
        out["context"] = [(c.rank, round(c.score, 9)) for c in mem.storage.context_candidates("default", "camped", 10)]
        return out


@contextmanager
def _without_stems(monkeypatch) -> Iterator[None]:
    """Index as code before ADR 0058 did: no stemmer, and no body stemmed earlier in this process."""
    with monkeypatch.context() as patch:
        segment.clear_stem_caches()
        patch.setattr(segment, "english_stem", lambda token: None)
        try:
            yield
        finally:
            segment.clear_stem_caches()


def test_migration_0017_adds_the_stems_to_an_older_store(tmp_path: Path, monkeypatch) -> None:
    fresh_ids = _store(tmp_path / "new.db")
    with _without_stems(monkeypatch):  # a store written before ADR 0058: words, no stems
        old_ids = _store(tmp_path / "old.db")
        assert "camp" not in _bodies(tmp_path / "old.db", "items_fts")[1].split()
    con = open_connection(str(tmp_path / "old.db"))
    con.execute("DELETE FROM _migrations WHERE name = '0017_english_stems'")
    con.close()
    migrated = _found(tmp_path / "old.db", old_ids)  # opening migrates
    assert migrated == _found(tmp_path / "new.db", fresh_ids)
    assert {i for i, _score in migrated["camped"]} == {0, 1}
    for table in ("items_fts", "context_fts"):  # the same words and stems (in another order for pairs)
        old, new = _bodies(tmp_path / "old.db", table), _bodies(tmp_path / "new.db", table)
        assert {k: sorted(v.split()) for k, v in old.items()} == {k: sorted(v.split()) for k, v in new.items()}


def test_after_migration_0017_forget_still_leaves_no_token(tmp_path: Path, monkeypatch) -> None:
    path = tmp_path / "old.db"
    with _without_stems(monkeypatch):
        with Memory(path, embedder="none", now=T0) as mem:
            for i in range(50):
                mem.add(f"filler note number {i} about tea and weather", session="f", extract=False)
            secret = mem.add("the zqxwvplough rendezvous happened yesterday", session="p", extract=False).id
    con = open_connection(str(path))
    con.execute("DELETE FROM _migrations WHERE name = '0017_english_stems'")
    con.close()
    with Memory(path, embedder="none", now=T0) as mem:  # migrates: secure-delete off, optimize, on again
        blocks = ("SELECT count(*) FROM items_fts_data WHERE instr(block, CAST(? AS BLOB)) > 0")
        assert mem.storage.connection.execute(blocks, (b"rendezv",)).fetchone()[0] > 0  # the stem, indexed
        mem.forget(secret)
        for token in (b"zqxwvplough", b"rendezvous", b"rendezv"):
            assert mem.storage.connection.execute(blocks, (token,)).fetchone()[0] == 0, token
