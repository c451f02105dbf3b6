"""The conversational-context index: consecutive turns of a session indexed together, with their date.

Each pair of consecutive, not forgotten events of a session (oldest first by ``recorded_at,
event_id``) is one FTS5 row of ``context_fts`` (a session's lone turn is a pair with no second),
whose text is :func:`hlmem.application.indexing.context_text`: both turns' words and their date.
``context_pairs`` maps the row to the two events' ``items.item_key``. An event's context score is
its best pair's, so a turn is found with the turn before it and with the turn after it.

Rows are written once, when the second turn arrives, and deleted only when one of the two turns
leaves the index (forget): then the turns on either side are paired instead. Nothing is ever
rewritten in place, so adding a turn costs one insert, and FTS5 ``secure-delete`` (ADR 0014)
removes a forgotten turn's words from every row that held them. The bodies reuse the segmented
text of ``items_fts``. Searched by :func:`candidates` as the ``context`` ranking (docs/recall.md,
ADR 0019). A derived index like ``items_fts``: replay rebuilds it.
"""

from __future__ import annotations

import functools
from collections import defaultdict
from collections.abc import Iterable, Sequence
from datetime import datetime

import apsw

from hlmem.adapters.sqlite import search
from hlmem.adapters.text.segment import index_text
from hlmem.application.indexing import context_days
from hlmem.application.ports import Candidate
from hlmem.domain.events import ObservationRecorded
from hlmem.domain.time import from_micros, to_micros

FTS = "context_fts"
VOCAB = "context_vocab"
#: Joins a matching context row to the events of its pair (search.text_candidates' ``join``).
JOIN = "JOIN context_pairs p ON p.pair_key = f.rowid JOIN items i ON i.item_key IN (p.first_key, p.second_key)"

_NEIGHBOUR = (
    "SELECT o.event_id, i.item_key FROM observations o JOIN items i ON i.item_id = o.event_id "
    "WHERE o.namespace = ? AND o.session_id = ? AND o.forgotten = 0 AND (o.recorded_at, o.event_id) {op} (?, ?) "
    "ORDER BY o.recorded_at {order}, o.event_id {order} LIMIT 1"
)
_BEFORE = _NEIGHBOUR.format(op="<", order="DESC")
_AFTER = _NEIGHBOUR.format(op=">", order="ASC")


def backfill(con: apsw.Connection) -> int:
    """Pairs for every session of an existing store (its migration); returns the rows written."""
    rows = con.execute(
        "SELECT o.namespace, o.session_id, i.item_key FROM observations o JOIN items i ON i.item_id = o.event_id "
        "WHERE o.forgotten = 0 ORDER BY o.namespace, o.session_id, o.recorded_at, o.event_id").fetchall()
    written = 0
    for n, (namespace, session, key) in enumerate(rows):
        same_before = n > 0 and rows[n - 1][:2] == (namespace, session)
        same_after = n + 1 < len(rows) and rows[n + 1][:2] == (namespace, session)
        if same_after:
            written += _insert(con, key, rows[n + 1][2])
        elif not same_before:
            written += _insert(con, key, None)
    return written


def add(con: apsw.Connection, turns: Sequence[tuple[ObservationRecorded, int, str]]) -> int:
    """Pairs for newly indexed turns ``(event, item_key, indexed body)``, in bulk; returns the rows written.

    Per session: the turn already indexed before the first new one (its lone-turn row, if any,
    goes), then each consecutive pair. A session that already holds a later turn (an import out
    of order) takes the general path, :func:`refresh`.
    """
    sessions: dict[tuple[str, str], list[tuple[int, str, int, str, datetime]]] = defaultdict(list)
    for event, key, body in turns:
        sessions[(event.namespace, event.session_id)].append(
            (to_micros(event.recorded_at), event.stream_id, key, body, event.occurred_at))
    rows: list[tuple[int, int | None, str]] = []
    others: list[str] = []
    for (namespace, session), new in sessions.items():
        new.sort()
        if con.execute(_AFTER, (namespace, session, new[-1][0], new[-1][1])).fetchone() is not None:
            others += [t[1] for t in new]
            continue
        chain = [(key, body, when) for _r, _e, key, body, when in new]
        if before := con.execute(_BEFORE, (namespace, session, new[0][0], new[0][1])).fetchone():
            body, occurred = con.execute(
                "SELECT coalesce((SELECT body FROM items_fts WHERE rowid = ?), ''), occurred_at FROM observations "
                "WHERE event_id = ?", (before[1], before[0])).fetchone()
            _delete(con, [pk for (pk,) in con.execute(
                "SELECT pair_key FROM context_pairs WHERE first_key = ? AND second_key IS NULL", (before[1],))])
            chain.insert(0, (before[1], body, from_micros(occurred)))
        if len(chain) == 1:
            rows.append((chain[0][0], None, _body([chain[0][1]], [chain[0][2]])))
        rows += [(a[0], b[0], _body([a[1], b[1]], [a[2], b[2]])) for a, b in zip(chain, chain[1:])]
    written = 0
    rows = [r for r in rows if r[2]]
    if rows:
        first = con.execute("SELECT coalesce(max(pair_key), 0) + 1 FROM context_pairs").fetchone()[0]
        con.executemany("INSERT INTO context_pairs (pair_key, first_key, second_key) VALUES (?, ?, ?)",
                        [(first + n, a, b) for n, (a, b, _body_) in enumerate(rows)])
        con.executemany(f"INSERT INTO {FTS} (rowid, body) VALUES (?, ?)",
                        [(first + n, body) for n, (_a, _b, body) in enumerate(rows)])
        written = len(rows)
    return written + (refresh(con, others) if others else 0)


def _body(bodies: Sequence[str], whens: Sequence[datetime]) -> str:
    """A pair row's text: the turns' indexed words, then the days they were said (oldest first)."""
    return " ".join([*(b for b in bodies if b), *(_segmented(d) for d in context_days(whens))]).strip()


@functools.lru_cache(maxsize=1_024)
def _segmented(words: str) -> str:
    return index_text(words)


def refresh(con: apsw.Connection, event_ids: Iterable[str]) -> int:
    """Bring the pairs around ``event_ids`` in line with their sessions; returns the rows written.

    Call it after events were indexed (each joins the turns before and after it) or dropped (the
    turns around it are paired instead; its own pairs went with its items row, search.drop_items).
    """
    affected: dict[str, int] = {}
    written = 0
    for event_id in event_ids:
        row = con.execute(
            "SELECT o.namespace, o.session_id, o.recorded_at, o.event_id, i.item_key, o.forgotten FROM observations o "
            "LEFT JOIN items i ON i.item_id = o.event_id WHERE o.event_id = ?", (event_id,)).fetchone()
        if row is None:
            continue
        *position, key, forgotten = row
        before, after = (con.execute(query, position).fetchone() for query in (_BEFORE, _AFTER))
        if key is not None and not forgotten and after is None and event_id not in affected:
            # The common case, a turn appended to its session: one new pair, and the turn before
            # loses its lone-turn row if it had one.
            if before is not None:
                _delete(con, [pk for (pk,) in con.execute(
                    "SELECT pair_key FROM context_pairs WHERE first_key = ? AND second_key IS NULL", (before[1],))])
            written += _insert(con, before[1], key) if before is not None else _insert(con, key, None)
            continue
        if key is not None and not forgotten:
            affected[event_id] = key
        for found in (before, after):
            if found is not None:
                affected[found[0]] = found[1]
    for event_id, key in affected.items():
        namespace, session, recorded = con.execute(
            "SELECT namespace, session_id, recorded_at FROM observations WHERE event_id = ?", (event_id,)).fetchone()
        position = (namespace, session, recorded, event_id)
        before = con.execute(_BEFORE, position).fetchone()
        after = con.execute(_AFTER, position).fetchone()
        wanted = {(before[1], key)} if before else set()
        if after:
            wanted.add((key, after[1]))
        if not wanted:
            wanted.add((key, None))
        have = {(a, b): pk for pk, a, b in con.execute(
            "SELECT pair_key, first_key, second_key FROM context_pairs WHERE first_key = ? OR second_key = ?",
            (key, key))}
        _delete(con, [pk for pair, pk in have.items() if pair not in wanted])
        for first, second in wanted - have.keys():
            written += _insert(con, first, second)
    return written


def _delete(con: apsw.Connection, pair_keys: list[int]) -> None:
    if pair_keys:
        con.executemany(f"DELETE FROM {FTS} WHERE rowid = ?", [(pk,) for pk in pair_keys])
        con.executemany("DELETE FROM context_pairs WHERE pair_key = ?", [(pk,) for pk in pair_keys])


def _insert(con: apsw.Connection, first: int, second: int | None) -> int:
    """One pair row: both turns' indexed words (from items_fts) and their dates."""
    keys = (first,) if second is None else (first, second)
    marks = ",".join("?" * len(keys))
    bodies = dict(con.execute(f"SELECT rowid, body FROM items_fts WHERE rowid IN ({marks})", keys))
    whens = [from_micros(r[0]) for r in con.execute(
        f"SELECT o.occurred_at FROM items i JOIN observations o ON o.event_id = i.item_id WHERE i.item_key IN ({marks})",
        keys)]
    body = _body([bodies.get(k, "") for k in keys], whens)
    if not body:
        return 0
    con.execute("INSERT INTO context_pairs (first_key, second_key) VALUES (?, ?)", (first, second))
    con.execute(f"INSERT INTO {FTS} (rowid, body) VALUES (?, ?)", (con.last_insert_rowid(), body))
    return 1


def candidates(con: apsw.Connection, namespace: str, query: str, limit: int,
               frequencies: search.DocFrequencies) -> list[Candidate]:
    """Events whose pairs match ``query``, each at its best pair's rank; never exact (the words may be
    the other turn's)."""
    hits = search.text_candidates(con, namespace, query, limit, frequencies, fts=FTS, join=JOIN)
    return [Candidate(c.item_id, c.kind, c.rank, c.score, False) for c in hits]
