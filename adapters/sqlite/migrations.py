"""Ordered, named schema migrations, recorded in ``_migrations``. Applied ones are never edited.

Each migration holds its own DDL, frozen as it was applied (ADR 0030): the feature modules that
read and write the tables (jobs, ledger, tombstones, activity, context) do not create them, so
editing one can never change what an applied migration did; a new column is a new migration.
tests/integration/test_sqlite_schema.py compares a fresh file's schema with a checked-in copy.

Event *payloads* are never migrated in place: old event versions are upcast when read
(:mod:`hlmem.adapters.serialization`). Migrations only shape tables.
"""

from __future__ import annotations

import itertools
import json
import os
from collections.abc import Callable

import apsw
from attrs import frozen

from hlmem.domain.errors import SchemaError


@frozen
class Migration:
    """One named step; ``transactional`` steps run inside the migration transaction with their record
    (:func:`migrate`); the others run alone and must be idempotent."""

    name: str
    apply: Callable[[apsw.Connection], None]
    transactional: bool = True


def _initial(con: apsw.Connection) -> None:
    con.execute(
        """
        CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;

        -- The log: envelopes here, payloads apart (forget erases a payload, never an envelope).
        CREATE TABLE events (
            position INTEGER PRIMARY KEY,
            event_id TEXT NOT NULL UNIQUE,
            stream_id TEXT NOT NULL,
            version INTEGER NOT NULL CHECK (version >= 1),
            tag TEXT NOT NULL,
            recorded_at TEXT NOT NULL,
            namespace TEXT NOT NULL,
            schema_version INTEGER NOT NULL,
            UNIQUE (stream_id, version)
        );
        CREATE TRIGGER events_refuse_update BEFORE UPDATE ON events
        BEGIN SELECT RAISE(ABORT, 'hlmem: the event log is append-only'); END;
        CREATE TRIGGER events_refuse_delete BEFORE DELETE ON events
        BEGIN SELECT RAISE(ABORT, 'hlmem: the event log is append-only'); END;

        CREATE TABLE event_payloads (
            position INTEGER PRIMARY KEY REFERENCES events(position),
            payload TEXT NOT NULL
        );
        -- The one audited path that may erase a payload: a row here first (lifecycle issue).
        CREATE TABLE payload_erasures (
            position INTEGER PRIMARY KEY REFERENCES events(position),
            erased_at TEXT NOT NULL,
            reason TEXT NOT NULL
        );
        CREATE TRIGGER payloads_refuse_update BEFORE UPDATE ON event_payloads
        BEGIN SELECT RAISE(ABORT, 'hlmem: event payloads are immutable'); END;
        CREATE TRIGGER payloads_guard_delete BEFORE DELETE ON event_payloads
        WHEN NOT EXISTS (SELECT 1 FROM payload_erasures WHERE position = OLD.position)
        BEGIN SELECT RAISE(ABORT, 'hlmem: payloads are erased only through forget'); END;

        -- Projections (caches of the log; rebuildable by replay).
        CREATE TABLE observations (
            event_id TEXT PRIMARY KEY,
            namespace TEXT NOT NULL,
            session_id TEXT NOT NULL,
            role TEXT NOT NULL,
            origin_class TEXT NOT NULL,
            session_kind TEXT NOT NULL,
            occurred_at INTEGER NOT NULL,
            recorded_at INTEGER NOT NULL,
            text TEXT NOT NULL,
            version INTEGER NOT NULL,
            forgotten INTEGER NOT NULL DEFAULT 0
        ) WITHOUT ROWID;
        CREATE INDEX observations_session ON observations(namespace, session_id);

        CREATE TABLE claims (
            claim_id TEXT PRIMARY KEY,
            namespace TEXT NOT NULL,
            slot_key TEXT NOT NULL,
            subject TEXT NOT NULL,
            subject_key TEXT NOT NULL,
            predicate TEXT NOT NULL,
            value TEXT NOT NULL,
            qualifiers TEXT NOT NULL,
            coordinates TEXT NOT NULL,
            polarity INTEGER NOT NULL,
            importance REAL NOT NULL,
            scope TEXT NOT NULL,
            cardinality TEXT NOT NULL,
            source TEXT NOT NULL,
            recorded_at INTEGER NOT NULL,
            version INTEGER NOT NULL,
            status TEXT NOT NULL,
            superseded_by TEXT,
            supersedes TEXT NOT NULL
        ) WITHOUT ROWID;
        CREATE INDEX claims_slot ON claims(slot_key);
        CREATE INDEX claims_subject ON claims(namespace, subject_key, predicate);

        CREATE TABLE claim_versions (
            claim_id TEXT NOT NULL,
            seq INTEGER NOT NULL,
            valid_from INTEGER NOT NULL,
            valid_to INTEGER,
            recorded_from INTEGER NOT NULL,
            recorded_to INTEGER,
            PRIMARY KEY (claim_id, seq)
        ) WITHOUT ROWID;

        CREATE TABLE claim_evidence (
            claim_id TEXT NOT NULL,
            event_id TEXT NOT NULL,
            seq INTEGER NOT NULL,
            PRIMARY KEY (claim_id, event_id)
        ) WITHOUT ROWID;
        CREATE INDEX claim_evidence_event ON claim_evidence(event_id);

        CREATE TABLE supersede_edges (
            position INTEGER NOT NULL,
            old_id TEXT NOT NULL,
            new_id TEXT NOT NULL,
            recorded_at INTEGER NOT NULL,
            PRIMARY KEY (position, old_id)
        ) WITHOUT ROWID;
        CREATE INDEX supersede_edges_old ON supersede_edges(old_id);
        CREATE INDEX supersede_edges_new ON supersede_edges(new_id);

        -- Search: one integer key per searchable item, shared by full text and vectors.
        CREATE TABLE items (
            item_key INTEGER PRIMARY KEY,
            item_id TEXT NOT NULL UNIQUE,
            kind TEXT NOT NULL,
            namespace TEXT NOT NULL
        );
        CREATE VIRTUAL TABLE items_fts USING fts5(
            body, tokenize='unicode61 remove_diacritics 2'
        );
        CREATE TABLE vectors (
            item_key INTEGER PRIMARY KEY REFERENCES items(item_key),
            vec BLOB NOT NULL
        );
        CREATE TABLE embedding_cache (
            model TEXT NOT NULL,
            content_hash TEXT NOT NULL,
            vec BLOB NOT NULL,
            PRIMARY KEY (model, content_hash)
        ) WITHOUT ROWID;
        """
    )


def _fts_vocab(con: apsw.Connection) -> None:
    # Document frequency per token, read to keep ranking cost bounded (search.text_candidates).
    con.execute("CREATE VIRTUAL TABLE items_vocab USING fts5vocab(items_fts, 'row')")


def _ledger(con: apsw.Connection) -> None:
    # The LLM ledger (adapters/sqlite/ledger.py): one row per HTTP attempt.
    con.execute(
        """
        CREATE TABLE llm_calls (
            seq INTEGER PRIMARY KEY,
            call_id TEXT NOT NULL,
            attempt INTEGER NOT NULL CHECK (attempt >= 1),
            provider TEXT NOT NULL,
            model TEXT NOT NULL,
            operation TEXT NOT NULL,
            job_id TEXT,
            status TEXT NOT NULL,
            error_class TEXT,
            http_status INTEGER,
            prompt_tokens INTEGER,
            completion_tokens INTEGER,
            latency_ms INTEGER NOT NULL,
            created_at TEXT NOT NULL,
            UNIQUE (call_id, attempt)
        );
        CREATE INDEX llm_calls_job ON llm_calls(job_id);
        CREATE INDEX llm_calls_created ON llm_calls(created_at);
        """
    )


def _jobs(con: apsw.Connection) -> None:
    # The jobs table (adapters/sqlite/jobs.py): operational state, not a projection of the log.
    con.execute(
        """
        CREATE TABLE jobs (
            job_id TEXT PRIMARY KEY,
            kind TEXT NOT NULL,
            idempotency_key TEXT NOT NULL UNIQUE,
            namespace TEXT NOT NULL,
            session_id TEXT NOT NULL,
            payload TEXT NOT NULL,
            state TEXT NOT NULL CHECK (state IN ('pending','running','succeeded','failed','dead')),
            attempts INTEGER NOT NULL DEFAULT 0,
            max_attempts INTEGER NOT NULL,
            available_at INTEGER NOT NULL,
            lease_owner TEXT,
            lease_until INTEGER,
            last_error TEXT,
            last_error_class TEXT,
            raw_response TEXT,
            created_at INTEGER NOT NULL,
            updated_at INTEGER NOT NULL
        ) WITHOUT ROWID;
        CREATE INDEX jobs_ready ON jobs(kind, state, available_at);
        CREATE INDEX jobs_window ON jobs(kind, namespace, session_id, state);
        """
    )


def _conflicts(con: apsw.Connection) -> None:
    # The conflicts projection (adapters/sqlite/conflict_rows.py).
    con.execute(
        """
        CREATE TABLE conflicts (
            conflict_id TEXT PRIMARY KEY,
            namespace TEXT NOT NULL,
            slot_key TEXT NOT NULL,
            status TEXT NOT NULL,
            version INTEGER NOT NULL,
            opened_at TEXT NOT NULL,
            data TEXT NOT NULL
        ) WITHOUT ROWID;
        CREATE INDEX conflicts_status ON conflicts(namespace, status, opened_at);
        CREATE INDEX conflicts_slot ON conflicts(slot_key, status);
        """
    )


def _embedding_cache_rowid(con: apsw.Connection) -> None:
    # WITHOUT ROWID keeps at most ~1 KB of a row on its b-tree page and sends the rest of each
    # 1.5 KB vector to an overflow page: the cache took 3x its data. A rowid table stores two
    # such rows per 4 KiB page; the unique index keeps the (model, content_hash) look-ups.
    con.execute(
        """
        CREATE TABLE embedding_cache_rowid (
            id INTEGER PRIMARY KEY,
            model TEXT NOT NULL,
            content_hash TEXT NOT NULL,
            vec BLOB NOT NULL,
            UNIQUE (model, content_hash)
        )
        """
    )
    # Moved in slices, deleting as it goes, so the pages each slice frees hold the next one
    # and an existing file barely grows.
    while rows := con.execute(
        "SELECT model, content_hash, vec FROM embedding_cache ORDER BY model, content_hash LIMIT 2000"
    ).fetchall():
        con.executemany("INSERT INTO embedding_cache_rowid (model, content_hash, vec) VALUES (?,?,?)", rows)
        con.executemany("DELETE FROM embedding_cache WHERE model = ? AND content_hash = ?",
                        [(model, key) for model, key, _ in rows])
    con.execute("DROP TABLE embedding_cache")
    con.execute("ALTER TABLE embedding_cache_rowid RENAME TO embedding_cache")


def _feedback(con: apsw.Connection) -> None:
    # Usefulness (FeedbackRecorded) on both kinds of recallable item.
    for table in ("claims", "observations"):
        con.execute(f"ALTER TABLE {table} ADD COLUMN helpful INTEGER NOT NULL DEFAULT 0")
        con.execute(f"ALTER TABLE {table} ADD COLUMN unhelpful INTEGER NOT NULL DEFAULT 0")


def _store_identity(con: apsw.Connection) -> None:
    # Backup and restore: a random id, made once per store, that its backups carry; restore
    # refuses another store's backup unless forced (adapters/sqlite/backup.py, ADR 0016).
    import secrets

    con.execute("INSERT OR IGNORE INTO meta (key, value) VALUES ('store_id', ?)", (f"st_{secrets.token_hex(16)}",))


def _forget(con: apsw.Connection) -> None:
    # Forgetting: the tombstone ledger, the store's salt, FTS5 secure delete (ADR 0014;
    # adapters/sqlite/tombstones.py reads them).
    con.execute(
        """
        CREATE TABLE tombstones (
            seq INTEGER PRIMARY KEY,
            fingerprint TEXT NOT NULL,
            kind TEXT NOT NULL,
            stream_id TEXT NOT NULL,
            forgotten_at TEXT NOT NULL,
            forget_id TEXT NOT NULL,
            UNIQUE (fingerprint, kind, stream_id)
        );
        CREATE INDEX tombstones_fingerprint ON tombstones(fingerprint);
        CREATE INDEX tombstones_stream ON tombstones(stream_id);
        """
    )
    con.execute("INSERT OR IGNORE INTO meta (key, value) VALUES (?, ?)", ("tombstone_salt", os.urandom(32).hex()))
    # Persistent in the index's config table: every later delete rewrites the doclists at once.
    con.execute("INSERT INTO items_fts (items_fts, rank) VALUES ('secure-delete', 1)")


def _claims_archived(con: apsw.Connection) -> None:
    # Lifecycle: an archived claim leaves normal recall and the search index (ClaimArchived).
    con.execute("ALTER TABLE claims ADD COLUMN archived INTEGER NOT NULL DEFAULT 0")



def _lifecycle(con: apsw.Connection) -> None:
    # Lifecycle: access telemetry and the indexes maintenance selects candidates with (ADR 0015;
    # adapters/sqlite/activity.py).
    con.execute(
        """
        CREATE TABLE claim_activity (
            claim_id TEXT PRIMARY KEY,
            last_access INTEGER NOT NULL,
            accesses INTEGER NOT NULL
        ) WITHOUT ROWID;
        -- Expiry and archive candidates, in id order: every column the formulas read, so the
        -- selection scans this index instead of the wide claims rows. One index, not one per
        -- kind: each costs every claim write (one measured ~7% of ingest).
        CREATE INDEX claims_lifecycle ON claims(claim_id, status, archived, scope, predicate, importance, recorded_at)
            WHERE status != 'forgotten';
        -- include_archived recall: archived claims by namespace.
        CREATE INDEX claims_archived ON claims(namespace) WHERE archived = 1;
        -- Pruning terminal jobs by age.
        CREATE INDEX jobs_terminal ON jobs(state, updated_at);
        """
    )

def _context(con: apsw.Connection) -> None:
    # Recall: consecutive turns indexed together with their dates, apart from each turn (ADR 0019;
    # adapters/sqlite/context.py): the index, its pairs, its vocabulary (document counts bound the
    # ranking cost) and the session order.
    con.execute("CREATE VIRTUAL TABLE context_fts USING fts5(body, tokenize='unicode61 remove_diacritics 2')")
    con.execute("CREATE VIRTUAL TABLE context_vocab USING fts5vocab(context_fts, 'row')")
    # Forgetting rewrites doclists at once, as for items_fts (ADR 0014).
    con.execute("INSERT INTO context_fts (context_fts, rank) VALUES ('secure-delete', 1)")
    con.execute("""
        CREATE TABLE context_pairs (
            pair_key INTEGER PRIMARY KEY,
            first_key INTEGER NOT NULL,
            second_key INTEGER
        )""")
    con.execute("CREATE INDEX context_pairs_first ON context_pairs(first_key)")
    con.execute("CREATE INDEX context_pairs_second ON context_pairs(second_key)")
    con.execute("CREATE INDEX observations_session_order ON observations(namespace, session_id, recorded_at, event_id)")
    # The one data step, and the one import of a feature module: the pairs of an existing store
    # are written by the code that writes them for new turns (its segmenter and date words), so
    # that an old store and a new one index alike. It reads and writes rows, never the schema.
    from hlmem.adapters.sqlite import context

    context.backfill(con)
    # Who said things (search.speakers): one probe per role instead of a scan of the events.
    con.execute("CREATE INDEX observations_speakers ON observations(namespace, forgotten, role)")


def _budget(con: apsw.Connection) -> None:
    # The daily budget (adapters/sqlite/budget.py, ADR 0034): one row per attempt's reservation;
    # an open row counts until expires_at, a settled one is spending of its day. Times in UTC microseconds.
    con.execute(
        """
        CREATE TABLE budget_reservations (
            reservation_id TEXT PRIMARY KEY,
            day TEXT NOT NULL,
            what TEXT NOT NULL,
            state TEXT NOT NULL CHECK (state IN ('open', 'settled')),
            requests INTEGER NOT NULL,
            tokens INTEGER NOT NULL,
            cost REAL,
            created_at INTEGER NOT NULL,
            expires_at INTEGER NOT NULL,
            settled_at INTEGER
        ) WITHOUT ROWID;
        CREATE INDEX budget_reservations_day ON budget_reservations(day, state, expires_at);
        CREATE INDEX budget_reservations_created ON budget_reservations(created_at);
        -- The LLM call ledger learns what each attempt priced: capability, items, cost (NULL: unknown).
        ALTER TABLE llm_calls ADD COLUMN capability TEXT NOT NULL DEFAULT 'chat';
        ALTER TABLE llm_calls ADD COLUMN items INTEGER;
        ALTER TABLE llm_calls ADD COLUMN cost REAL;
        UPDATE llm_calls SET capability = 'rerank' WHERE operation = 'rerank';
        """
    )


def _worker_heartbeats(con: apsw.Connection) -> None:
    # One row per worker (adapters/sqlite/heartbeat.py, ADR 0035): doctor and ops report read it.
    con.execute(
        """
        CREATE TABLE worker_heartbeats (
            owner TEXT PRIMARY KEY,
            pid INTEGER NOT NULL,
            host TEXT NOT NULL,
            started_at TEXT NOT NULL,
            last_beat TEXT NOT NULL,
            state TEXT NOT NULL CHECK (state IN ('running','idle','stopped')),
            jobs_done INTEGER NOT NULL DEFAULT 0,
            last_error TEXT
        ) WITHOUT ROWID
        """
    )


def _experience(con: apsw.Connection) -> None:
    # The experience channel's projections (adapters/sqlite/experience.py, ADR 0045): each state is
    # the reducer's value as JSON, with the columns the reads filter on beside it.
    con.execute(
        """
        CREATE TABLE episodes (
            episode_id TEXT PRIMARY KEY,
            namespace TEXT NOT NULL,
            signature TEXT NOT NULL,
            status TEXT NOT NULL,
            state TEXT NOT NULL
        ) WITHOUT ROWID;
        CREATE INDEX episodes_by_signature ON episodes (namespace, signature);
        CREATE TABLE policies (
            policy_id TEXT PRIMARY KEY,
            namespace TEXT NOT NULL,
            signature TEXT NOT NULL,
            status TEXT NOT NULL,
            state TEXT NOT NULL
        ) WITHOUT ROWID;
        CREATE INDEX policies_by_signature ON policies (namespace, signature);
        CREATE TABLE policy_support (
            episode_id TEXT NOT NULL,
            policy_id TEXT NOT NULL,
            PRIMARY KEY (episode_id, policy_id)
        ) WITHOUT ROWID;
        CREATE TABLE procedures (
            procedure_id TEXT PRIMARY KEY,
            namespace TEXT NOT NULL,
            policy_id TEXT NOT NULL,
            source_episode TEXT NOT NULL,
            status TEXT NOT NULL,
            state TEXT NOT NULL
        ) WITHOUT ROWID;
        CREATE INDEX procedures_by_policy ON procedures (policy_id);
        CREATE INDEX procedures_by_source ON procedures (source_episode);
        """
    )


def _derived(con: apsw.Connection) -> None:
    # Observation summaries and mental models (adapters/sqlite/derived_rows.py, ADR 0046): the
    # projection of the dv_ streams, and which claims each was built from (staleness looks up by claim).
    con.execute(
        """
        CREATE TABLE derived_items (
            derived_id TEXT PRIMARY KEY,
            namespace TEXT NOT NULL,
            kind TEXT NOT NULL,
            subject TEXT NOT NULL,
            subject_key TEXT NOT NULL,
            family TEXT NOT NULL,
            label TEXT NOT NULL,
            text TEXT NOT NULL,
            language TEXT NOT NULL,
            watermark INTEGER NOT NULL,
            builder TEXT NOT NULL,
            built_at INTEGER NOT NULL,
            version INTEGER NOT NULL,
            status TEXT NOT NULL CHECK (status IN ('current','stale','removed','forgotten')),
            stale_since INTEGER,
            stale_reason TEXT NOT NULL
        ) WITHOUT ROWID;
        CREATE INDEX derived_items_subject ON derived_items(namespace, subject_key);
        CREATE TABLE derived_sources (
            derived_id TEXT NOT NULL,
            seq INTEGER NOT NULL,
            claim_id TEXT NOT NULL,
            claim_version INTEGER NOT NULL,
            PRIMARY KEY (derived_id, seq)
        ) WITHOUT ROWID;
        CREATE INDEX derived_sources_claim ON derived_sources(claim_id);
        """
    )


def _english_stems(con: apsw.Connection) -> None:
    # Full text indexes the stems of English words after the words (ADR 0058): every indexed body,
    # of an item and of a pair of turns, gets them, as the code that indexes new text adds them.
    # A body's stems follow from its tokens alone, so no item's text is read again. The index is
    # made anew (same definition, same settings, same rowids) rather than updated row by row: with
    # secure-delete (ADR 0014) each update rewrites doclists in place, which took a 100k-item store
    # over ten minutes, and updating with it off left terms behind that a later forget missed.
    from hlmem.adapters.text.segment import add_stems

    for table in ("items_fts", "context_fts"):
        rows = con.execute(f"SELECT rowid, body FROM {table}").fetchall()
        stemmed = [(rowid, add_stems(body)) for rowid, body in rows]
        if stemmed == rows:
            continue
        sql = con.execute("SELECT sql FROM sqlite_schema WHERE type = 'table' AND name = ?", (table,)).fetchone()[0]
        settings = con.execute(f"SELECT k, v FROM {table}_config WHERE k != 'version'").fetchall()
        con.execute(f"DROP TABLE {table}")
        con.execute(sql)
        for key, value in settings:
            con.execute(f"INSERT INTO {table} ({table}, rank) VALUES (?, ?)", (key, value))
        con.executemany(f"INSERT INTO {table} (rowid, body) VALUES (?, ?)", stemmed)



def _experience_counts(con: apsw.Connection) -> None:
    # Per-approach outcome counts and ordered support links (adapters/sqlite/experience.py,
    # ADR 0071): an episode's end reads its situation's counts in a few rows, and a policy's state
    # keeps counts and its latest 16 episodes instead of its whole support. Existing stores get
    # the counts of their counted episodes, the links of their policies' support lists, and those
    # states rewritten as counts (the JSON the converter writes for the new PolicyState).
    con.execute(
        """
        CREATE TABLE experience_counts (
            namespace TEXT NOT NULL,
            signature TEXT NOT NULL,
            approach TEXT NOT NULL,
            successes INTEGER NOT NULL,
            failures INTEGER NOT NULL,
            PRIMARY KEY (namespace, signature, approach)
        ) WITHOUT ROWID;
        CREATE TABLE policy_links (
            policy_id TEXT NOT NULL,
            seq INTEGER NOT NULL,
            episode_id TEXT NOT NULL,
            succeeded INTEGER NOT NULL,
            PRIMARY KEY (policy_id, seq)
        ) WITHOUT ROWID;
        CREATE UNIQUE INDEX policy_links_by_episode ON policy_links (episode_id, policy_id);
        INSERT INTO experience_counts (namespace, signature, approach, successes, failures)
            SELECT namespace, signature, json_extract(state, '$.approach'),
                   sum(status = 'succeeded'), sum(status = 'failed')
            FROM episodes WHERE status IN ('succeeded', 'failed') AND json_extract(state, '$.approach') != ''
            GROUP BY 1, 2, 3;
        DROP TABLE policy_support;
        """
    )
    rows = con.execute("SELECT policy_id, state FROM policies").fetchall()
    for policy_id, text in rows:
        state = json.loads(text)
        support = [(e, bool(ok)) for e, ok in state.pop("support", [])]
        state.pop("since_proposal", None)
        state["successes"] = sum(1 for _, ok in support if ok)
        state["failures"] = len(support) - state["successes"]
        state["recent"] = [[e, ok] for e, ok in support[-16:]]
        con.execute("UPDATE policies SET state = ? WHERE policy_id = ?",
                    (json.dumps(state, ensure_ascii=False, sort_keys=True, separators=(",", ":")), policy_id))
        con.executemany("INSERT INTO policy_links (policy_id, seq, episode_id, succeeded) VALUES (?, ?, ?, ?)",
                        [(policy_id, i, e, int(ok)) for i, (e, ok) in enumerate(dict(support).items(), 1)])

def _packet_activity(con: apsw.Connection) -> None:
    # Context packets served per UTC day, their tokens and the history they stood in for (ADR 0061):
    # numbers only, no text and no ids, so forgetting has nothing to erase here.
    con.execute(
        """
        CREATE TABLE packet_activity (
            day TEXT PRIMARY KEY,
            packets INTEGER NOT NULL,
            tokens INTEGER NOT NULL,
            history_tokens INTEGER NOT NULL
        ) WITHOUT ROWID;
        """
    )


def _vector_fills(con: apsw.Connection) -> None:
    # Items whose vector the worker stored after the item was indexed (ADR 0080), in the order it
    # stored them: a connection's in-memory vector index loads new vectors by item key, and these
    # sit below keys it has already loaded. Keys only, no text: forgetting has nothing to erase here.
    con.execute("CREATE TABLE vector_fills (seq INTEGER PRIMARY KEY, item_key INTEGER NOT NULL)")


def _relations(con: apsw.Connection) -> None:
    # Relations between people and things (adapters/sqlite/relations.py, ADR 0081): each edge's state
    # as the reducer's JSON, the columns the reads filter on, and its evidence (lookups by claim or event).
    con.execute(
        """
        CREATE TABLE relations (
            relation_id TEXT PRIMARY KEY,
            namespace TEXT NOT NULL,
            status TEXT NOT NULL,
            source_id TEXT NOT NULL,
            target_id TEXT NOT NULL,
            state TEXT NOT NULL
        ) WITHOUT ROWID;
        CREATE INDEX relations_by_status ON relations (namespace, status);
        CREATE INDEX relations_by_source ON relations (source_id);
        CREATE INDEX relations_by_target ON relations (target_id);
        CREATE TABLE relation_evidence (
            item_id TEXT NOT NULL,
            relation_id TEXT NOT NULL,
            PRIMARY KEY (item_id, relation_id)
        ) WITHOUT ROWID;
        CREATE INDEX relation_evidence_by_relation ON relation_evidence (relation_id);
        """
    )


def _derived_index(con: apsw.Connection) -> None:
    # Derived items are searchable while current (ADR 0084). Their rows are `items` of kind
    # 'derived' (namespace '<ns>#derived') with their words in a full-text table of their own, so
    # that they never change the claims' and events' bm25 statistics; secure-delete as items_fts
    # (ADR 0014). Each current item is indexed here as a build indexes it from now on. No vector
    # (no model runs in a migration): `hlmem reembed`, or the item's next rebuild, gives one.
    from hlmem.adapters.text.segment import index_text

    # The search text as application/indexing.py's derived_text composed it when this was written.
    words = {"mental_model": "profile 画像 概况", "observation_summary": "summary 总结 概况"}

    con.execute(
        """
        CREATE VIRTUAL TABLE derived_fts USING fts5(body, tokenize='unicode61 remove_diacritics 2');
        CREATE VIRTUAL TABLE derived_vocab USING fts5vocab(derived_fts, 'row');
        INSERT INTO derived_fts (derived_fts, rank) VALUES ('secure-delete', 1);
        """
    )
    rows = con.execute("SELECT derived_id, kind, namespace, subject, label, text FROM derived_items "
                       "WHERE status = 'current' AND derived_id NOT IN (SELECT item_id FROM items) "
                       "ORDER BY derived_id").fetchall()
    for did, kind, namespace, subject, label, body in rows:
        text = index_text(" ".join(w for w in (subject, label, words.get(kind, ""), body) if w)) if body.strip() else ""
        if text:
            con.execute("INSERT INTO items (item_id, kind, namespace) VALUES (?, 'derived', ?)",
                        (did, namespace + "#derived"))
            con.execute("INSERT INTO derived_fts (rowid, body) VALUES (?, ?)", (con.last_insert_rowid(), text))


def _fts_merge(con: apsw.Connection) -> None:
    # FTS5's incremental merge folds every level of two segments or more, so that the full-text
    # indexes stay in a few segments as they grow (ADR 0088; the merges run after writes,
    # adapters/sqlite/fts_compact.py). A setting of each table: no row changes.
    con.execute("INSERT INTO items_fts (items_fts, rank) VALUES ('usermerge', 2)")
    con.execute("INSERT INTO context_fts (context_fts, rank) VALUES ('usermerge', 2)")


MIGRATIONS: tuple[Migration, ...] = (
    Migration("0001_initial", _initial),
    Migration("0002_fts_vocab", _fts_vocab),
    Migration("0003_llm_ledger", _ledger),
    Migration("0004_jobs", _jobs),
    Migration("0005_conflicts", _conflicts),
    Migration("0006_embedding_cache_rowid", _embedding_cache_rowid),
    Migration("0007_claims_archived", _claims_archived),
    Migration("0008_forget", _forget),
    Migration("0011_feedback", _feedback),
    Migration("0010_store_identity", _store_identity),
    Migration("0009_lifecycle", _lifecycle),
    Migration("0012_context_fts", _context),
    Migration("0013_budget", _budget),
    Migration("0014_worker_heartbeats", _worker_heartbeats),
    Migration("0015_experience", _experience),
    Migration("0016_derived", _derived),
    Migration("0017_english_stems", _english_stems),
    Migration("0019_experience_counts", _experience_counts),
    Migration("0020_packet_activity", _packet_activity),
    Migration("0021_vector_fills", _vector_fills),
    Migration("0022_relations", _relations),
    Migration("0023_derived_index", _derived_index),
    Migration("0024_fts_merge", _fts_merge),
)


def applied(con: apsw.Connection) -> list[str]:
    """Names of the migrations already applied, in order (none when ``_migrations`` is missing).

    Only reads: a store that another process is creating shows its last committed state.
    """
    if con.execute("SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = '_migrations'").fetchone() is None:
        return []
    return [row[0] for row in con.execute("SELECT name FROM _migrations ORDER BY rowid")]


def _pending(con: apsw.Connection) -> list[Migration]:
    """The known migrations not applied yet, in order.

    :raises SchemaError: when the database has migrations this code does not know (a newer hlmem).
    """
    done = applied(con)
    known = {m.name for m in MIGRATIONS}
    unknown = [name for name in done if name not in known]
    if unknown:
        raise SchemaError(f"database was written by a newer hlmem (unknown migrations: {', '.join(unknown)})")
    return [m for m in MIGRATIONS if m.name not in done]


def _record(con: apsw.Connection, migration: Migration, now_iso: str) -> None:
    con.execute("INSERT OR IGNORE INTO _migrations(name, applied_at) VALUES (?, ?)", (migration.name, now_iso))


def migrate(con: apsw.Connection, now_iso: str) -> list[str]:
    """Apply every pending migration in order; return the names applied now (by this connection).

    Safe when several processes open one new file at once (ADR 0024): an up-to-date store is only
    read, never locked; otherwise the pending steps run inside one ``BEGIN IMMEDIATE`` that looks
    at ``_migrations`` again once it holds the write lock, so the first process creates the schema
    and the others, waiting on the lock (busy timeout), find nothing left to do. A reader opening
    a store being created waits the same way and never sees half a schema. A step marked
    ``transactional=False`` cannot run inside that transaction: it runs on its own between two
    locked groups and must therefore be idempotent (two processes may both run it).

    :raises SchemaError: when the database has migrations this code does not know (a newer hlmem).
    """
    ran: list[str] = []
    while _pending(con):
        con.execute("BEGIN IMMEDIATE")
        try:
            con.execute("CREATE TABLE IF NOT EXISTS _migrations (name TEXT PRIMARY KEY, applied_at TEXT NOT NULL)")
            pending = _pending(con)  # again, under the lock: another process may have migrated meanwhile
            group = list(itertools.takewhile(lambda m: m.transactional, pending))
            for migration in group:
                migration.apply(con)
                _record(con, migration, now_iso)
        except BaseException:
            if con.in_transaction:  # SQLite may have rolled back already (a full disk, say)
                con.execute("ROLLBACK")
            raise
        con.execute("COMMIT")
        ran += [m.name for m in group]
        if len(group) < len(pending):
            step = pending[len(group)]
            step.apply(con)
            _record(con, step, now_iso)
            ran.append(step.name)
    return ran

