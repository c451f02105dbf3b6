"""Row codecs and queries of derived items (``derived_items``, ``derived_sources``; migration 0016)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence

import apsw

from hlmem.domain.derived import DerivedState
from hlmem.domain.state import subject_key
from hlmem.domain.time import from_micros, to_micros

_COLUMNS = ("derived_id, namespace, kind, subject, family, label, text, language, watermark, builder, built_at, "
            "version, status, stale_since, stale_reason")


def _chunks(ids: Sequence[str], size: int = 500):
    for start in range(0, len(ids), size):
        yield ids[start:start + size]


def load(con: apsw.Connection, ids: Sequence[str]) -> dict[str, DerivedState]:
    """States of the derived items among ``ids`` (others are absent)."""
    ids = list(dict.fromkeys(ids))
    base: dict[str, tuple] = {}
    sources: dict[str, list[tuple[str, int]]] = defaultdict(list)
    for chunk in _chunks(ids):
        marks = ",".join("?" * len(chunk))
        for row in con.execute(f"SELECT {_COLUMNS} FROM derived_items WHERE derived_id IN ({marks})", chunk):
            base[row[0]] = row
        for did, cid, ver in con.execute(f"SELECT derived_id, claim_id, claim_version FROM derived_sources "
                                         f"WHERE derived_id IN ({marks}) ORDER BY derived_id, seq", chunk):
            sources[did].append((cid, ver))
    out = {}
    for did in ids:
        row = base.get(did)
        if row is None:
            continue
        (_, ns, kind, subject, family, label, text, language, watermark, builder, built_at, version, status,
         stale_since, stale_reason) = row
        out[did] = DerivedState(
            derived_id=did, namespace=ns, kind=kind, subject=subject, family=family, label=label, text=text,
            language=language, sources=tuple(sources.get(did, ())), watermark=watermark, builder=builder,
            built_at=from_micros(built_at), version=version, status=status,
            stale_since=None if stale_since is None else from_micros(stale_since), stale_reason=stale_reason)
    return out


def save(con: apsw.Connection, states: Sequence[DerivedState]) -> None:
    """Write these states (replacing their rows and their sources)."""
    if not states:
        return
    con.executemany(
        "INSERT OR REPLACE INTO derived_items (derived_id, namespace, kind, subject, subject_key, family, label, "
        "text, language, watermark, builder, built_at, version, status, stale_since, stale_reason) "
        "VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
        [(s.derived_id, s.namespace, s.kind, s.subject, subject_key(s.subject) if s.subject else "", s.family,
          s.label, s.text, s.language, s.watermark, s.builder, to_micros(s.built_at), s.version, s.status,
          None if s.stale_since is None else to_micros(s.stale_since), s.stale_reason) for s in states])
    con.executemany("DELETE FROM derived_sources WHERE derived_id = ?", [(s.derived_id,) for s in states])
    con.executemany("INSERT INTO derived_sources (derived_id, seq, claim_id, claim_version) VALUES (?,?,?,?)",
                    [(s.derived_id, i, cid, ver) for s in states for i, (cid, ver) in enumerate(s.sources)])


def citing(con: apsw.Connection, claim_ids: Sequence[str]) -> dict[str, DerivedState]:
    """Every derived item built from any of ``claim_ids``."""
    ids: list[str] = []
    for chunk in _chunks(list(dict.fromkeys(claim_ids))):
        marks = ",".join("?" * len(chunk))
        ids += [r[0] for r in con.execute(
            f"SELECT DISTINCT derived_id FROM derived_sources WHERE claim_id IN ({marks})", chunk)]
    return load(con, sorted(set(ids)))


def items(con: apsw.Connection, namespace: str, subject: str | None, kind: str | None) -> list[DerivedState]:
    """A namespace's derived items in id order (of one subject and kind if given)."""
    sql, args = "SELECT derived_id FROM derived_items WHERE namespace = ?", [namespace]
    if subject is not None:
        sql, args = sql + " AND subject_key = ?", [*args, subject_key(subject)]
    if kind is not None:
        sql, args = sql + " AND kind = ?", [*args, kind]
    ids = [r[0] for r in con.execute(sql + " ORDER BY derived_id", args)]
    return list(load(con, ids).values())


def fingerprints(con: apsw.Connection, ids: Sequence[str]) -> dict[str, object]:
    """The undecoded rows of each derived item (equal rows decode to equal states)."""
    out: dict[str, object] = {}
    for chunk in _chunks(list(dict.fromkeys(ids))):
        marks = ",".join("?" * len(chunk))
        sources: dict[str, list[tuple]] = defaultdict(list)
        for row in con.execute(f"SELECT * FROM derived_sources WHERE derived_id IN ({marks}) "
                               "ORDER BY derived_id, seq", chunk):
            sources[row[0]].append(row)
        for row in con.execute(f"SELECT * FROM derived_items WHERE derived_id IN ({marks})", chunk):
            out[row[0]] = ("sqlite.derived", row, tuple(sources.get(row[0], ())))
    return out


def counts(con: apsw.Connection) -> dict[str, int]:
    """``derived_<status>`` counts and ``derived`` in all."""
    out = {f"derived_{status}": n for status, n in
           con.execute("SELECT status, count(*) FROM derived_items GROUP BY status")}
    if out:
        out["derived"] = sum(out.values())
    return out
