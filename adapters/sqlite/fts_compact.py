"""Keep the full-text indexes of a small store in few segments (ADR 0088).

FTS5 writes each transaction's new rows as a segment of their own and merges segments in the
background of later writes (``automerge``: four segments of one level become one of the next), so
a store written one event per transaction keeps 8–13 segments in ``items_fts`` and ``context_fts``
at a thousand events. A query reads every query term in every segment (an index probe and a leaf
page per term and segment, then a merge of the doclists), so at that size a ranked search costs
about twice what it costs over one segment; the ranking itself (bm25 over the same rows, with the
same statistics) does not depend on the segments, so the hits are the same.

After a write transaction (inside it, before ``COMMIT``) a table with at least
:data:`MIN_SEGMENTS` segments is merged into one (FTS5's ``optimize``) when that rewrites at most
:data:`PAGES_PER_SEGMENT` leaf pages per segment it removes: the cost of a merge is then bounded
by the segments it saves, a store of some thousand events is merged every ten to thirty writes,
and a large index is left to FTS5's own incremental merging (the merge would rewrite it whole).
"""

from __future__ import annotations

from collections.abc import Sequence

import apsw

#: The tables kept compact: the events' and claims' index and the context pairs' index.
TABLES = ("items_fts", "context_fts")
#: Segments a table may have before a merge is considered.
MIN_SEGMENTS = 6
#: Leaf pages a merge may rewrite per segment it removes.
PAGES_PER_SEGMENT = 4
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


def structure(record: bytes) -> tuple[int, int]:
    """Segments and leaf pages of an FTS5 index, from its structure record.

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
        segments = pages = 0
        for _ in range(levels):
            _merge, i = _varint(record, i)
            count, i = _varint(record, i)
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
    return segments, pages


def segments(con: apsw.Connection, table: str) -> tuple[int, int] | None:
    """``(segments, leaf pages)`` of ``table``'s index as committed so far; None when unknown."""
    row = con.execute(f"SELECT block FROM {table}_data WHERE id = ?", (_STRUCTURE_ROWID,)).fetchone()
    if row is None or not isinstance(row[0], bytes):
        return None
    try:
        return structure(row[0])
    except ValueError:
        return None


def worth_merging(found: tuple[int, int] | None, *, min_segments: int = MIN_SEGMENTS,
                  pages_per_segment: int = PAGES_PER_SEGMENT) -> bool:
    """Whether an index of ``found`` (segments, pages) is merged into one now."""
    if found is None:
        return False
    count, pages = found
    return count >= min_segments and pages <= pages_per_segment * (count - 1)


def compact(con: apsw.Connection, tables: Sequence[str] = TABLES) -> list[str]:
    """Merge each of ``tables`` that is :func:`worth_merging` into one segment (inside the caller's
    transaction); return the tables merged."""
    merged = []
    for table in tables:
        if worth_merging(segments(con, table)):
            con.execute(f"INSERT INTO {table} ({table}) VALUES ('optimize')")
            merged.append(table)
    return merged
