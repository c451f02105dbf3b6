"""``SQLiteTombstoneLedger``: the TombstoneLedger port on the store's ``tombstones`` table and salt.

Migration ``0008_forget`` creates the table, the store's salt (32 random bytes in ``meta``, made
once, so a backup carries it) and switches the full-text index to FTS5's ``secure-delete`` mode,
so that deleting a row removes its tokens from the index instead of adding a delete marker.
"""

from __future__ import annotations

import os
from collections.abc import Collection, Sequence

from hlmem.adapters.sqlite.db import Db
from hlmem.domain.errors import ValidationError
from hlmem.domain.redaction import REFUSED_SALT, Tombstone, check_salt
from hlmem.domain.time import format_timestamp, parse_timestamp

#: The ``meta`` key of the store's salt (hex).
SALT_KEY = "tombstone_salt"


def _row(row: Sequence) -> Tombstone:
    return Tombstone(row[0], row[1], row[2], parse_timestamp(row[3], field="forgotten_at"), row[4])


_COLUMNS = "fingerprint, kind, stream_id, forgotten_at, forget_id"


class SQLiteTombstoneLedger:
    """The ledger on the store's connection; writes join the store's transaction."""

    def __init__(self, db: Db) -> None:
        self._db = db
        self._salt: bytes | None = None

    def salt(self) -> bytes:
        if self._salt is None:
            value = self._db.meta(SALT_KEY)
            if value is None:
                # A store migrated before its salt was readable (never in practice): make it now, once.
                with self._db.transaction():
                    self._db.con.execute("INSERT OR IGNORE INTO meta (key, value) VALUES (?, ?)",
                                                   (SALT_KEY, os.urandom(32).hex()))
                value = self._db.meta(SALT_KEY)
            salt = bytes.fromhex(value)
            if self._db.depth:
                return salt  # a transaction may still change it (adopt_salt) or roll it back
            self._salt = salt
        return self._salt

    def adopt_salt(self, salt: bytes) -> None:
        check_salt(salt)
        if salt == self.salt():
            return
        with self._db.transaction():
            if self._db.con.execute("SELECT EXISTS (SELECT 1 FROM tombstones)").fetchone()[0]:
                raise ValidationError(REFUSED_SALT, field="salt")
            self._salt = None
            self._db.con.execute("UPDATE meta SET value = ? WHERE key = ?", (salt.hex(), SALT_KEY))

    def tombstones(self) -> list[Tombstone]:
        with self._db.lock:
            rows = self._db.con.execute(f"SELECT {_COLUMNS} FROM tombstones ORDER BY seq").fetchall()
        return [_row(r) for r in rows]

    def add(self, tombstones: Sequence[Tombstone]) -> None:
        if not tombstones:
            return
        with self._db.transaction():
            self._db.con.executemany(
                f"INSERT OR IGNORE INTO tombstones ({_COLUMNS}) VALUES (?,?,?,?,?)",
                [(t.fingerprint, t.kind, t.stream_id, format_timestamp(t.forgotten_at), t.forget_id)
                 for t in tombstones])

    def matching(self, fingerprints: Collection[str]) -> set[str]:
        wanted = sorted({f for f in fingerprints if f})
        found: set[str] = set()
        with self._db.lock:
            for start in range(0, len(wanted), 500):
                chunk = wanted[start:start + 500]
                marks = ",".join("?" * len(chunk))
                found.update(r[0] for r in self._db.con.execute(
                    f"SELECT DISTINCT fingerprint FROM tombstones WHERE fingerprint IN ({marks})", chunk))
        return found

    def of_streams(self, stream_ids: Sequence[str]) -> dict[str, Tombstone]:
        ids = list(dict.fromkeys(stream_ids))
        out: dict[str, Tombstone] = {}
        with self._db.lock:
            for start in range(0, len(ids), 500):
                chunk = ids[start:start + 500]
                marks = ",".join("?" * len(chunk))
                for row in self._db.con.execute(
                        f"SELECT {_COLUMNS} FROM tombstones WHERE stream_id IN ({marks}) ORDER BY seq", chunk):
                    out.setdefault(row[2], _row(row))
        return out
