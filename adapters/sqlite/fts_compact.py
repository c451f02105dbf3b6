"""Keep the full-text indexes in few segments as they grow (ADR 0088).

FTS5 writes each transaction's new rows as a segment of their own and merges segments in the
background of later writes (``automerge``: four segments of one level become one of the next), so
a store written one event per transaction keeps 8–16 segments in ``items_fts`` and ``context_fts``
from a few hundred events on. A query reads every query term in every segment (an index probe and
a leaf page per term and segment, then a merge of the doclists), so a ranked search over 8 and
13 segments costs about one and a half times what it costs over 2 and 5; the ranking itself (bm25 over
the same rows, with the same statistics) does not depend on the segments, so the hits are the same.

Each table's ``usermerge`` is 2 (migration 0024): after a write transaction (inside it, before
``COMMIT``) a table with at least :data:`MIN_SEGMENTS` segments, two of them on one level, gets
FTS5's incremental ``merge`` of at most :data:`MERGE_PAGES` leaf pages — every level of two or more
segments becomes one segment of the next level. That is a log-structured merge with fan-out two:
a few segments whatever the size (3–6 measured from 400 to 4,000 events), each page rewritten
about once per level, the work of one write bounded by the budget (a merge larger than that
continues over the next writes). Only a transaction in which an append indexed text ends with a
merge step (``SQLiteStorage._ending``).
"""

from __future__ import annotations

from collections.abc import Sequence

import apsw

#: The tables kept compact: the events' and claims' index and the context pairs' index.
TABLES = ("items_fts", "context_fts")
#: Segments a table may have before a merge is asked for.
MIN_SEGMENTS = 6
#: Leaf pages one merge may write (FTS5's ``merge`` budget); the rest waits for the next write.
MERGE_PAGES = 16
#: The structure record's row in ``<table>_data`` (FTS5_STRUCTURE_ROWID).
_STRUCTURE_ROWID = 10
_STRUCTURE_V2 = b"\xff\x00\x00\x01"


def _varint(data: bytes, i: int) -> tuple[int, int]:
    """SQLite's variable-length integer at ``data[i]``: its value and the offset after it."""
    value = 0
    for n in range(9):
        byte = data[i]
        i += 1
        if n == 8:
            return (value << 8) | byte, i
        value = (value << 7) | (byte & 0x7F)
        if not byte & 0x80:
            return value, i
    return value, i  # pragma: no cover - the loop always returns


def structure(record: bytes) -> tuple[int, int, int]:
    """Segments, leaf pages and the most segments on one level of an FTS5 index, from its structure record.

    :raises ValueError: a record this reader does not understand (a truncated or newer format).
    """
    try:
        i = 4  # the cookie
        v2 = record[i:i + 4] == _STRUCTURE_V2
        if v2:
            i += 4
        levels, i = _varint(record, i)
        declared, i = _varint(record, i)
        _writes, i = _varint(record, i)
        segments = pages = widest = 0
        for _ in range(levels):
            _merge, i = _varint(record, i)
            count, i = _varint(record, i)
            widest = max(widest, count)
            for _ in range(count):
                _segid, i = _varint(record, i)
                first, i = _varint(record, i)
                last, i = _varint(record, i)
                if v2:
                    for _ in range(5):  # origins, tombstone pages and entries, entries
                        _skip, i = _varint(record, i)
                segments += 1
                pages += max(0, last - first + 1)
    except IndexError as exc:
        raise ValueError("truncated FTS5 structure record") from exc
    if segments != declared:
        raise ValueError(f"FTS5 structure record lists {segments} segments, declares {declared}")
    return segments, pages, widest


def segments(con: apsw.Connection, table: str) -> tuple[int, int, int] | None:
    """``(segments, leaf pages, most segments on one level)`` of ``table``'s index (what the last
    flush wrote: a transaction's own rows become a segment at its end); None when unknown."""
    row = con.execute(f"SELECT block FROM {table}_data WHERE id = ?", (_STRUCTURE_ROWID,)).fetchone()
    if row is None or not isinstance(row[0], bytes):
        return None
    try:
        return structure(row[0])
    except ValueError:
        return None


def worth_merging(found: tuple[int, int, int] | None, *, min_segments: int = MIN_SEGMENTS) -> bool:
    """Whether an index of ``found`` (segments, pages, widest level) is given a merge now: enough
    segments, and a level that ``merge`` would fold (two segments or more with ``usermerge`` 2)."""
    if found is None:
        return False
    count, _pages, widest = found
    return count >= min_segments and widest >= 2


def compact(con: apsw.Connection, tables: Sequence[str] = TABLES, *, min_segments: int = MIN_SEGMENTS,
            pages: int = MERGE_PAGES) -> list[str]:
    """Give each of ``tables`` that is :func:`worth_merging` an incremental merge of at most ``pages``
    leaf pages (inside the caller's transaction); return the tables merged."""
    merged = []
    for table in tables:
        if worth_merging(segments(con, table), min_segments=min_segments):
            con.execute(f"INSERT INTO {table} ({table}, rank) VALUES ('merge', ?)", (pages,))
            merged.append(table)
    return merged


def set_usermerge(con: apsw.Connection, tables: Sequence[str] = TABLES) -> None:
    """Let ``merge`` fold every level of two segments or more (FTS5's default waits for four)."""
    for table in tables:
        con.execute(f"INSERT INTO {table} ({table}, rank) VALUES ('usermerge', 2)")
