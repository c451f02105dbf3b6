"""``SQLiteEmbeddingCache``: the EmbeddingCache port on the store's ``embedding_cache`` table."""

from __future__ import annotations

from collections.abc import Sequence

from hlmem.adapters.sqlite.db import Db
from hlmem.adapters.sqlite.db import translated as _translated


class SQLiteEmbeddingCache:
    """The ``EmbeddingCache`` port on the store's ``embedding_cache`` table."""

    def __init__(self, db: Db) -> None:
        self._db = db

    def get_many(self, model_id: str, hashes: Sequence[str]) -> dict[str, bytes]:
        con = self._db.con
        out: dict[str, bytes] = {}
        with self._db.lock, _translated("reading the embedding cache"):
            for start in range(0, len(hashes), 500):
                chunk = list(hashes[start:start + 500])
                marks = ",".join("?" * len(chunk))
                out.update(con.execute(
                    f"SELECT content_hash, vec FROM embedding_cache WHERE model = ? AND content_hash IN ({marks})",
                    (model_id, *chunk),
                ).fetchall())
        return out

    def put_many(self, model_id: str, items: Sequence[tuple[str, bytes]]) -> None:
        if not items or self._db.read_only is not None:
            return  # a read-only store (adapters/sqlite/read_only.py) keeps no new vectors; it still reads
        with self._db.transaction(), _translated("writing the embedding cache"):
            self._db.con.executemany(
                "INSERT OR IGNORE INTO embedding_cache (model, content_hash, vec) VALUES (?,?,?)",
                [(model_id, h, v) for h, v in items],
            )
