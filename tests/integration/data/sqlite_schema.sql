-- index budget_reservations_created on budget_reservations
CREATE INDEX budget_reservations_created ON budget_reservations(created_at);
-- index budget_reservations_day on budget_reservations
CREATE INDEX budget_reservations_day ON budget_reservations(day, state, expires_at);
-- index claim_evidence_event on claim_evidence
CREATE INDEX claim_evidence_event ON claim_evidence(event_id);
-- index claims_archived on claims
CREATE INDEX claims_archived ON claims(namespace) WHERE archived = 1;
-- index claims_lifecycle on claims
CREATE INDEX claims_lifecycle ON claims(claim_id, status, archived, scope, predicate, importance, recorded_at)
            WHERE status != 'forgotten';
-- index claims_slot on claims
CREATE INDEX claims_slot ON claims(slot_key);
-- index claims_subject on claims
CREATE INDEX claims_subject ON claims(namespace, subject_key, predicate);
-- index conflicts_slot on conflicts
CREATE INDEX conflicts_slot ON conflicts(slot_key, status);
-- index conflicts_status on conflicts
CREATE INDEX conflicts_status ON conflicts(namespace, status, opened_at);
-- index context_pairs_first on context_pairs
CREATE INDEX context_pairs_first ON context_pairs(first_key);
-- index context_pairs_second on context_pairs
CREATE INDEX context_pairs_second ON context_pairs(second_key);
-- index derived_items_subject on derived_items
CREATE INDEX derived_items_subject ON derived_items(namespace, subject_key);
-- index derived_sources_claim on derived_sources
CREATE INDEX derived_sources_claim ON derived_sources(claim_id);
-- index episodes_by_signature on episodes
CREATE INDEX episodes_by_signature ON episodes (namespace, signature);
-- index jobs_ready on jobs
CREATE INDEX jobs_ready ON jobs(kind, state, available_at);
-- index jobs_terminal on jobs
CREATE INDEX jobs_terminal ON jobs(state, updated_at);
-- index jobs_window on jobs
CREATE INDEX jobs_window ON jobs(kind, namespace, session_id, state);
-- index llm_calls_created on llm_calls
CREATE INDEX llm_calls_created ON llm_calls(created_at);
-- index llm_calls_job on llm_calls
CREATE INDEX llm_calls_job ON llm_calls(job_id);
-- index observations_session on observations
CREATE INDEX observations_session ON observations(namespace, session_id);
-- index observations_session_order on observations
CREATE INDEX observations_session_order ON observations(namespace, session_id, recorded_at, event_id);
-- index observations_speakers on observations
CREATE INDEX observations_speakers ON observations(namespace, forgotten, role);
-- index policies_by_signature on policies
CREATE INDEX policies_by_signature ON policies (namespace, signature);
-- index policy_links_by_episode on policy_links
CREATE UNIQUE INDEX policy_links_by_episode ON policy_links (episode_id, policy_id);
-- index procedures_by_policy on procedures
CREATE INDEX procedures_by_policy ON procedures (policy_id);
-- index procedures_by_source on procedures
CREATE INDEX procedures_by_source ON procedures (source_episode);
-- index relation_evidence_by_relation on relation_evidence
CREATE INDEX relation_evidence_by_relation ON relation_evidence (relation_id);
-- index relations_by_source on relations
CREATE INDEX relations_by_source ON relations (source_id);
-- index relations_by_status on relations
CREATE INDEX relations_by_status ON relations (namespace, status);
-- index relations_by_target on relations
CREATE INDEX relations_by_target ON relations (target_id);
-- index sqlite_autoindex__migrations_1 on _migrations (automatic)
-- index sqlite_autoindex_embedding_cache_1 on embedding_cache (automatic)
-- index sqlite_autoindex_events_1 on events (automatic)
-- index sqlite_autoindex_events_2 on events (automatic)
-- index sqlite_autoindex_items_1 on items (automatic)
-- index sqlite_autoindex_jobs_2 on jobs (automatic)
-- index sqlite_autoindex_llm_calls_1 on llm_calls (automatic)
-- index sqlite_autoindex_tombstones_1 on tombstones (automatic)
-- index supersede_edges_new on supersede_edges
CREATE INDEX supersede_edges_new ON supersede_edges(new_id);
-- index supersede_edges_old on supersede_edges
CREATE INDEX supersede_edges_old ON supersede_edges(old_id);
-- index tombstones_fingerprint on tombstones
CREATE INDEX tombstones_fingerprint ON tombstones(fingerprint);
-- index tombstones_stream on tombstones
CREATE INDEX tombstones_stream ON tombstones(stream_id);
-- table _migrations on _migrations
CREATE TABLE _migrations (name TEXT PRIMARY KEY, applied_at TEXT NOT NULL);
-- table budget_reservations on budget_reservations
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
-- table claim_activity on claim_activity
CREATE TABLE claim_activity (
            claim_id TEXT PRIMARY KEY,
            last_access INTEGER NOT NULL,
            accesses INTEGER NOT NULL
        ) WITHOUT ROWID;
-- table claim_evidence on claim_evidence
CREATE TABLE claim_evidence (
            claim_id TEXT NOT NULL,
            event_id TEXT NOT NULL,
            seq INTEGER NOT NULL,
            PRIMARY KEY (claim_id, event_id)
        ) WITHOUT ROWID;
-- table claim_versions on claim_versions
CREATE TABLE claim_versions (
            claim_id TEXT NOT NULL,
            seq INTEGER NOT NULL,
            valid_from INTEGER NOT NULL,
            valid_to INTEGER,
            recorded_from INTEGER NOT NULL,
            recorded_to INTEGER,
            PRIMARY KEY (claim_id, seq)
        ) WITHOUT ROWID;
-- table claims on claims
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
        , archived INTEGER NOT NULL DEFAULT 0, helpful INTEGER NOT NULL DEFAULT 0, unhelpful INTEGER NOT NULL DEFAULT 0) WITHOUT ROWID;
-- table conflicts on conflicts
CREATE TABLE conflicts (
            conflict_id TEXT PRIMARY KEY,
            namespace TEXT NOT NULL,
            slot_key TEXT NOT NULL,
            status TEXT NOT NULL,
            version INTEGER NOT NULL,
            opened_at TEXT NOT NULL,
            data TEXT NOT NULL
        ) WITHOUT ROWID;
-- table context_fts on context_fts
CREATE VIRTUAL TABLE context_fts USING fts5(body, tokenize='unicode61 remove_diacritics 2');
-- table context_fts_config on context_fts_config
CREATE TABLE 'context_fts_config'(k PRIMARY KEY, v) WITHOUT ROWID;
-- table context_fts_content on context_fts_content
CREATE TABLE 'context_fts_content'(id INTEGER PRIMARY KEY, c0);
-- table context_fts_data on context_fts_data
CREATE TABLE 'context_fts_data'(id INTEGER PRIMARY KEY, block BLOB);
-- table context_fts_docsize on context_fts_docsize
CREATE TABLE 'context_fts_docsize'(id INTEGER PRIMARY KEY, sz BLOB);
-- table context_fts_idx on context_fts_idx
CREATE TABLE 'context_fts_idx'(segid, term, pgno, PRIMARY KEY(segid, term)) WITHOUT ROWID;
-- table context_pairs on context_pairs
CREATE TABLE context_pairs (
            pair_key INTEGER PRIMARY KEY,
            first_key INTEGER NOT NULL,
            second_key INTEGER
        );
-- table context_vocab on context_vocab
CREATE VIRTUAL TABLE context_vocab USING fts5vocab(context_fts, 'row');
-- table derived_fts on derived_fts
CREATE VIRTUAL TABLE derived_fts USING fts5(body, tokenize='unicode61 remove_diacritics 2');
-- table derived_fts_config on derived_fts_config
CREATE TABLE 'derived_fts_config'(k PRIMARY KEY, v) WITHOUT ROWID;
-- table derived_fts_content on derived_fts_content
CREATE TABLE 'derived_fts_content'(id INTEGER PRIMARY KEY, c0);
-- table derived_fts_data on derived_fts_data
CREATE TABLE 'derived_fts_data'(id INTEGER PRIMARY KEY, block BLOB);
-- table derived_fts_docsize on derived_fts_docsize
CREATE TABLE 'derived_fts_docsize'(id INTEGER PRIMARY KEY, sz BLOB);
-- table derived_fts_idx on derived_fts_idx
CREATE TABLE 'derived_fts_idx'(segid, term, pgno, PRIMARY KEY(segid, term)) WITHOUT ROWID;
-- table derived_items on derived_items
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
-- table derived_sources on derived_sources
CREATE TABLE derived_sources (
            derived_id TEXT NOT NULL,
            seq INTEGER NOT NULL,
            claim_id TEXT NOT NULL,
            claim_version INTEGER NOT NULL,
            PRIMARY KEY (derived_id, seq)
        ) WITHOUT ROWID;
-- table derived_vocab on derived_vocab
CREATE VIRTUAL TABLE derived_vocab USING fts5vocab(derived_fts, 'row');
-- table embedding_cache on embedding_cache
CREATE TABLE "embedding_cache" (
            id INTEGER PRIMARY KEY,
            model TEXT NOT NULL,
            content_hash TEXT NOT NULL,
            vec BLOB NOT NULL,
            UNIQUE (model, content_hash)
        );
-- table episodes on episodes
CREATE TABLE episodes (
            episode_id TEXT PRIMARY KEY,
            namespace TEXT NOT NULL,
            signature TEXT NOT NULL,
            status TEXT NOT NULL,
            state TEXT NOT NULL
        ) WITHOUT ROWID;
-- table event_payloads on event_payloads
CREATE TABLE event_payloads (
            position INTEGER PRIMARY KEY REFERENCES events(position),
            payload TEXT NOT NULL
        );
-- table events on events
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
-- table experience_counts on experience_counts
CREATE TABLE experience_counts (
            namespace TEXT NOT NULL,
            signature TEXT NOT NULL,
            approach TEXT NOT NULL,
            successes INTEGER NOT NULL,
            failures INTEGER NOT NULL,
            PRIMARY KEY (namespace, signature, approach)
        ) WITHOUT ROWID;
-- table items on items
CREATE TABLE items (
            item_key INTEGER PRIMARY KEY,
            item_id TEXT NOT NULL UNIQUE,
            kind TEXT NOT NULL,
            namespace TEXT NOT NULL
        );
-- table items_fts on items_fts
CREATE VIRTUAL TABLE items_fts USING fts5(
            body, tokenize='unicode61 remove_diacritics 2'
        );
-- table items_fts_config on items_fts_config
CREATE TABLE 'items_fts_config'(k PRIMARY KEY, v) WITHOUT ROWID;
-- table items_fts_content on items_fts_content
CREATE TABLE 'items_fts_content'(id INTEGER PRIMARY KEY, c0);
-- table items_fts_data on items_fts_data
CREATE TABLE 'items_fts_data'(id INTEGER PRIMARY KEY, block BLOB);
-- table items_fts_docsize on items_fts_docsize
CREATE TABLE 'items_fts_docsize'(id INTEGER PRIMARY KEY, sz BLOB);
-- table items_fts_idx on items_fts_idx
CREATE TABLE 'items_fts_idx'(segid, term, pgno, PRIMARY KEY(segid, term)) WITHOUT ROWID;
-- table items_vocab on items_vocab
CREATE VIRTUAL TABLE items_vocab USING fts5vocab(items_fts, 'row');
-- table jobs on jobs
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
-- table llm_calls on llm_calls
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
            created_at TEXT NOT NULL, capability TEXT NOT NULL DEFAULT 'chat', items INTEGER, cost REAL,
            UNIQUE (call_id, attempt)
        );
-- table meta on meta
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
-- table observations on observations
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
        , helpful INTEGER NOT NULL DEFAULT 0, unhelpful INTEGER NOT NULL DEFAULT 0) WITHOUT ROWID;
-- table packet_activity on packet_activity
CREATE TABLE packet_activity (
            day TEXT PRIMARY KEY,
            packets INTEGER NOT NULL,
            tokens INTEGER NOT NULL,
            history_tokens INTEGER NOT NULL
        ) WITHOUT ROWID;
-- table payload_erasures on payload_erasures
CREATE TABLE payload_erasures (
            position INTEGER PRIMARY KEY REFERENCES events(position),
            erased_at TEXT NOT NULL,
            reason TEXT NOT NULL
        );
-- table policies on policies
CREATE TABLE policies (
            policy_id TEXT PRIMARY KEY,
            namespace TEXT NOT NULL,
            signature TEXT NOT NULL,
            status TEXT NOT NULL,
            state TEXT NOT NULL
        ) WITHOUT ROWID;
-- table policy_links on policy_links
CREATE TABLE policy_links (
            policy_id TEXT NOT NULL,
            seq INTEGER NOT NULL,
            episode_id TEXT NOT NULL,
            succeeded INTEGER NOT NULL,
            PRIMARY KEY (policy_id, seq)
        ) WITHOUT ROWID;
-- table procedures on procedures
CREATE TABLE procedures (
            procedure_id TEXT PRIMARY KEY,
            namespace TEXT NOT NULL,
            policy_id TEXT NOT NULL,
            source_episode TEXT NOT NULL,
            status TEXT NOT NULL,
            state TEXT NOT NULL
        ) WITHOUT ROWID;
-- table relation_evidence on relation_evidence
CREATE TABLE relation_evidence (
            item_id TEXT NOT NULL,
            relation_id TEXT NOT NULL,
            PRIMARY KEY (item_id, relation_id)
        ) WITHOUT ROWID;
-- table relations on relations
CREATE TABLE relations (
            relation_id TEXT PRIMARY KEY,
            namespace TEXT NOT NULL,
            status TEXT NOT NULL,
            source_id TEXT NOT NULL,
            target_id TEXT NOT NULL,
            state TEXT NOT NULL
        ) WITHOUT ROWID;
-- table supersede_edges on supersede_edges
CREATE TABLE supersede_edges (
            position INTEGER NOT NULL,
            old_id TEXT NOT NULL,
            new_id TEXT NOT NULL,
            recorded_at INTEGER NOT NULL,
            PRIMARY KEY (position, old_id)
        ) WITHOUT ROWID;
-- table tombstones on tombstones
CREATE TABLE tombstones (
            seq INTEGER PRIMARY KEY,
            fingerprint TEXT NOT NULL,
            kind TEXT NOT NULL,
            stream_id TEXT NOT NULL,
            forgotten_at TEXT NOT NULL,
            forget_id TEXT NOT NULL,
            UNIQUE (fingerprint, kind, stream_id)
        );
-- table vector_fills on vector_fills
CREATE TABLE vector_fills (seq INTEGER PRIMARY KEY, item_key INTEGER NOT NULL);
-- table vectors on vectors
CREATE TABLE vectors (
            item_key INTEGER PRIMARY KEY REFERENCES items(item_key),
            vec BLOB NOT NULL
        );
-- table worker_heartbeats on worker_heartbeats
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
        ;
-- trigger events_refuse_delete on events
CREATE TRIGGER events_refuse_delete BEFORE DELETE ON events
        BEGIN SELECT RAISE(ABORT, 'hlmem: the event log is append-only'); END;
-- trigger events_refuse_update on events
CREATE TRIGGER events_refuse_update BEFORE UPDATE ON events
        BEGIN SELECT RAISE(ABORT, 'hlmem: the event log is append-only'); END;
-- trigger payloads_guard_delete on event_payloads
CREATE TRIGGER payloads_guard_delete BEFORE DELETE ON event_payloads
        WHEN NOT EXISTS (SELECT 1 FROM payload_erasures WHERE position = OLD.position)
        BEGIN SELECT RAISE(ABORT, 'hlmem: payloads are erased only through forget'); END;
-- trigger payloads_refuse_update on event_payloads
CREATE TRIGGER payloads_refuse_update BEFORE UPDATE ON event_payloads
        BEGIN SELECT RAISE(ABORT, 'hlmem: event payloads are immutable'); END;
-- meta keys: store_id, tombstone_salt
-- migrations: 0001_initial, 0002_fts_vocab, 0003_llm_ledger, 0004_jobs, 0005_conflicts, 0006_embedding_cache_rowid, 0007_claims_archived, 0008_forget, 0011_feedback, 0010_store_identity, 0009_lifecycle, 0012_context_fts, 0013_budget, 0014_worker_heartbeats, 0015_experience, 0016_derived, 0017_english_stems, 0019_experience_counts, 0020_packet_activity, 0021_vector_fills, 0022_relations, 0023_derived_index, 0024_fts_merge
