"""Keeping the full-text indexes in few segments (ADR 0088): the structure read right, the rule, the
merges bounded, and the ranking unchanged — the same rows with the same bm25 floats, ties broken
the same way."""

from __future__ import annotations

from pathlib import Path

import apsw
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from hlmem.adapters.sqlite import fts_compact
from hlmem.adapters.sqlite.fts_compact import compact, segments, structure, worth_merging

WORDS = ["tom", "anna", "paris", "camping", "dog", "red", "blue", "work", "x"]


def _table(con: apsw.Connection, name: str, usermerge: bool = True) -> None:
    con.execute(f"CREATE VIRTUAL TABLE {name} USING fts5(body, tokenize='unicode61 remove_diacritics 2')")
    con.execute(f"INSERT INTO {name} ({name}, rank) VALUES ('secure-delete', 1)")
    if usermerge:
        fts_compact.set_usermerge(con, [name])


def test_each_transaction_writes_a_segment_and_a_merge_folds_a_level() -> None:
    con = apsw.Connection(":memory:")
    _table(con, "t")
    for n in range(3):  # below automerge (4): three segments of one page each
        with con:
            con.execute("INSERT INTO t (rowid, body) VALUES (?, ?)", (n + 1, f"tom {n}"))
    assert segments(con, "t") == (3, 3, 3)
    with con:
        assert compact(con, ["t"], min_segments=3) == ["t"]
    count, pages, widest = segments(con, "t")
    assert count == 1 and pages >= 1 and widest == 1  # the level of three folded into one segment
    with con:
        assert compact(con, ["t"], min_segments=1) == []  # nothing left to fold: no merge asked


def test_a_merge_writes_at_most_its_budget_and_goes_on_at_the_next_write() -> None:
    con = apsw.Connection(":memory:")
    _table(con, "t")
    body = " ".join(f"word{i}" for i in range(600))  # a few pages per row
    for n in range(8):
        with con:
            con.execute("INSERT INTO t (rowid, body) VALUES (?, ?)", (n + 1, body))
    before = segments(con, "t")
    with con:
        compact(con, ["t"], min_segments=2, pages=1)
    during = segments(con, "t")
    assert during[0] >= before[0]  # one page of work: the merge is under way, its output partial
    for _ in range(200):
        with con:
            if not compact(con, ["t"], min_segments=2, pages=1):
                break
    assert segments(con, "t")[0] < before[0]


def test_an_empty_or_unreadable_structure_is_unknown() -> None:
    con = apsw.Connection(":memory:")
    _table(con, "t")
    assert segments(con, "t") in (None, (0, 0, 0))  # no structure record yet, or an empty one
    assert not worth_merging(None)
    with pytest.raises(ValueError):
        structure(b"\x00\x00\x00\x01\x02")  # truncated: two levels declared, none there
    with pytest.raises(ValueError):
        structure(b"\x00\x00\x00\x01\x01\x05\x00\x00\x01\x07\x01\x01")  # declares 5 segments, lists 1


def test_a_contentless_delete_table_structure_is_read_too() -> None:
    # contentless_delete tables use the second structure format (tombstone fields per segment).
    con = apsw.Connection(":memory:")
    try:
        con.execute("CREATE VIRTUAL TABLE c USING fts5(body, content='', contentless_delete=1)")
    except apsw.SQLError:
        pytest.skip("this SQLite has no contentless_delete")
    for n in range(3):
        with con:
            con.execute("INSERT INTO c (rowid, body) VALUES (?, ?)", (n + 1, f"anna {n}"))
    with con:
        con.execute("DELETE FROM c WHERE rowid = 2")
    assert segments(con, "c")[0] == 3


@pytest.mark.parametrize(("found", "merged"), [
    ((5, 4, 3), False),       # too few segments
    ((6, 20, 2), True),       # six segments, two on one level
    ((7, 5000, 1), False),    # one per level: nothing for ``merge`` to fold
    ((13, 48, 5), True),
    ((16, 5000, 4), True),    # a large index too: the merge's budget bounds the work
])
def test_the_rule(found: tuple[int, int, int], merged: bool) -> None:
    assert worth_merging(found) is merged


def _ranked(con: apsw.Connection, table: str, match: str) -> list[tuple[int, float]]:
    return con.execute(f"SELECT rowid, rank FROM {table} WHERE {table} MATCH ? ORDER BY rank, rowid DESC",
                       (match,)).fetchall()


docs = st.lists(st.sampled_from(WORDS), min_size=1, max_size=8).map(" ".join)
steps = st.lists(st.one_of(st.tuples(st.just("add"), docs), st.tuples(st.just("drop"), st.integers(0, 60))),
                 min_size=1, max_size=60)
queries = st.lists(st.lists(st.sampled_from(WORDS), min_size=1, max_size=3), min_size=1, max_size=4)


@settings(max_examples=40, deadline=None)
@given(steps=steps, queries=queries, min_segments=st.integers(1, 6), pages=st.integers(1, 64))
@example(steps=[("add", "tom tom")] * 12 + [("drop", 3)] + [("add", "tom anna")] * 3,
         queries=[["tom"], ["tom", "anna"]], min_segments=2, pages=1)
def test_merging_never_changes_a_ranking(steps, queries, min_segments, pages) -> None:
    """Two indexes written one transaction at a time, one merged whenever the rule allows: every OR
    and AND query returns the same rows in the same order with the same bm25 floats."""
    con = apsw.Connection(":memory:")
    _table(con, "plain", usermerge=False)
    _table(con, "merged")
    rowid = 0
    for op, arg in steps:
        with con:
            for table in ("plain", "merged"):
                if op == "add":
                    con.execute(f"INSERT INTO {table} (rowid, body) VALUES (?, ?)", (rowid + 1, arg))
                else:
                    con.execute(f"DELETE FROM {table} WHERE rowid = ?", (arg,))
            rowid += op == "add"
            compact(con, ["merged"], min_segments=min_segments, pages=pages)
    for words in queries:
        for joiner in (" OR ", " AND "):
            match = joiner.join(f'"{w}"' for w in words)
            assert _ranked(con, "merged", match) == _ranked(con, "plain", match)


def _written(path: Path) -> dict[str, int]:
    from hlmem import Memory

    with Memory(path, embedder="none") as mem:
        for n in range(60):
            mem.add(f"turn {n}: Tom went camping with Anna near Paris", session="s1", extract=False)
        assert [i.text for i in mem.recall("camping Paris turn 7", k=1).items] == ["turn 7: Tom went camping with Anna near Paris"]
    con = apsw.Connection(str(path))
    return {table: segments(con, table)[0] for table in fts_compact.TABLES}


def test_a_store_written_one_event_at_a_time_keeps_few_segments(tmp_path: Path, monkeypatch) -> None:
    merged = _written(tmp_path / "merged.db")
    monkeypatch.setattr(fts_compact, "compact", lambda con, tables=fts_compact.TABLES, **_: [])
    plain = _written(tmp_path / "plain.db")
    for table in fts_compact.TABLES:
        # The last write's segment comes after the check, a merge may be under way: at most two more.
        assert merged[table] <= fts_compact.MIN_SEGMENTS + 2
        assert merged[table] < plain[table]


def test_only_a_transaction_that_indexed_text_asks_for_a_merge(tmp_path: Path, monkeypatch) -> None:
    from hlmem import Memory

    calls: list[int] = []
    monkeypatch.setattr(fts_compact, "compact", lambda con, tables=fts_compact.TABLES, **_: calls.append(1) or [])
    with Memory(tmp_path / "m.db", embedder="none") as mem:
        mem.add("Tom went camping", session="s1", extract=False)
        assert len(calls) == 1
        with mem.storage.transaction():  # a write that indexes nothing (telemetry, say): no merge step
            mem.storage.connection.execute("CREATE TABLE scratch (x)")
        with pytest.raises(RuntimeError), mem.storage.transaction():  # undone: its flag goes with it
            mem.storage._fts_written = True
            raise RuntimeError("undone")
        with mem.storage.transaction():
            pass
        assert len(calls) == 1
