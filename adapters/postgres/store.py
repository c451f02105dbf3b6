"""``PostgresStorage``: the Storage port on a PostgreSQL database with pgvector (issue 18, ADR 0048).

This module connects to the database and owns the shared state (connection, lock, searcher), the
transaction and the close; each storage role is a mix-in in its own module, over that state, as in
the other stores (ADR 0056): :mod:`.store_log` (EventLog, StoreIdentity), :mod:`.store_claims`
(ClaimReader), :class:`.derived.DerivedReads` (DerivedReader), :mod:`.store_search` (SearchIndex),
:mod:`.store_forget` (ForgetQueries, Erasure) and :mod:`.store_activity` (ActivityLog). Tombstones,
activity and the embedding cache are objects of their own on the store's ``PgDb``
(:mod:`.governance`); jobs are :mod:`.jobs`'.

Events and their projections are written in one transaction (:mod:`.projection`). Many processes
may use one database at once: readers never wait, job leasing skips locked rows, and the only
serialisation is the log's own (the append's advisory lock, held until commit) and the slots a
write transaction reads (one advisory lock per slot, so two writers deciding about the same slot
take turns while writers of other slots go on).
"""

from __future__ import annotations

from contextlib import AbstractContextManager

from hlmem.adapters.postgres import derived, derived_index, experience, postings, search
from hlmem.adapters.postgres.db import PgDb, connect, ensure_schema, redacted_url, translated
from hlmem.adapters.postgres.experience import PostgresExperience
from hlmem.adapters.postgres.relations import PostgresRelations
from hlmem.adapters.postgres.governance import PostgresActivity, PostgresEmbeddingCache, PostgresTombstoneLedger
from hlmem.adapters.postgres.store_activity import PostgresActivityLog
from hlmem.adapters.postgres.store_claims import PostgresClaims
from hlmem.adapters.postgres.store_forget import PostgresForgetting
from hlmem.adapters.postgres.store_log import PostgresLog
from hlmem.adapters.postgres.store_search import PostgresSearch

__all__ = ["PostgresStorage"]


class PostgresStorage(PostgresLog, PostgresClaims, derived.DerivedReads, PostgresSearch, PostgresForgetting,
                      PostgresActivityLog):
    """One PostgreSQL database holding the log, its projections, the search index and the caches.

    One instance serves one thread at a time (a lock guards its connection); vector search runs on
    a second connection of its own.
    """

    embedding_cache: PostgresEmbeddingCache
    tombstones: PostgresTombstoneLedger
    experience: PostgresExperience
    relations: PostgresRelations

    def __init__(self, url: str) -> None:
        self.path = url
        self.url = url
        con = connect(url)
        try:
            # Layout 1 -> 2: list every item (ADR 0051); 2 -> 3: index English stems (ADR 0058).
            ensure_schema(con, {"1": postings.rebuild, "2": postings.add_stems, "3": experience.upgrade,
                                "6": derived_index.index_current})
            from pgvector.psycopg import register_vector

            register_vector(con)
        except BaseException:
            con.close()
            raise
        self.db = PgDb(con, undone=self._undone)
        self._con = con
        self._lock = self.db.lock
        self._searcher = search.VectorSearcher(url)
        self._model: tuple[str, int] | None = None
        self.embedding_cache = PostgresEmbeddingCache(self.db)
        self.tombstones = PostgresTombstoneLedger(self.db)
        self._activity = PostgresActivity(self.db)
        #: The experience channel's projection (ADR 0045), written by each append's transaction.
        self.experience = PostgresExperience(self.db)
        #: Relations between people and things (ADR 0081), written by each append's transaction.
        self.relations = PostgresRelations(self.db)

    def __repr__(self) -> str:
        return f"PostgresStorage({redacted_url(self.url)})"

    # -- transactions ---------------------------------------------------------------------------

    def transaction(self) -> AbstractContextManager[None]:
        return self.db.transaction()

    def _undone(self) -> None:
        self._model = None

    def close(self) -> None:
        with self._lock:
            try:
                self._activity.flush()
            finally:
                self._searcher.close()
                self._con.close()

    def check_integrity(self, *, full: bool = True) -> str:
        """What hlmem can check of a database the server looks after: the log's tables answer, its
        positions run 1…N without a gap, and every event has its payload. The pages themselves are
        the server's (its data checksums, WAL); returns what was checked, in words.

        :raises StorageCorrupt: a gap in the log, or an event without its payload.
        """
        from hlmem.domain.errors import StorageCorrupt

        with self._lock, translated("checking the store"):
            count, top = self._con.execute("SELECT count(*), coalesce(max(position), 0) FROM events").fetchone()
            orphans = self._con.execute("SELECT count(*) FROM events e WHERE NOT EXISTS "
                                        "(SELECT 1 FROM event_payloads p WHERE p.position = e.position)").fetchone()[0]
            checksums = self._con.execute("SHOW data_checksums").fetchone()[0]
        if count != top:
            raise StorageCorrupt(f"the log has gaps: {count} events at positions up to {top}")
        if orphans:
            raise StorageCorrupt(f"{orphans} events of the log have no payload")
        return (f"the log's {count} positions without gaps and a payload for each; pages are the server's "
                f"own (data checksums {checksums})")
