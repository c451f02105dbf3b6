"""The PostgreSQL schema: the append-only log, projections as state documents, the search index, jobs,
and the operational tables (budget reservations, LLM calls, worker heartbeats; layout 5, ADR 0074), and
relations between people and things (layout 6, ADR 0081); layout 7 indexes derived items (ADR 0084).

Created on first open (``CREATE … IF NOT EXISTS`` under an advisory lock, so several processes
may open a fresh database at once). The version in ``meta`` (``pg_schema``) names this layout;
a later layout adds steps here keyed by that number. It is not part of the SQLite migration series.

The log refuses UPDATE and DELETE through triggers; a payload may be replaced only when a
``payload_erasures`` row for its position exists (the audited erasure path of ADR 0014).
"""

from __future__ import annotations

SCHEMA_VERSION = "7"

#: Advisory lock keys (single bigint space; slot locks use the two-int space).
SCHEMA_LOCK = 1847_0001
LOG_LOCK = 1847_0002
#: Taken by a budget reservation (check and insert under it: two processes never both win the last unit).
BUDGET_LOCK = 1847_0003

POSTINGS_DDL = """
CREATE TABLE IF NOT EXISTS postings (
    namespace text NOT NULL,
    token text COLLATE "C" NOT NULL,
    tf integer NOT NULL,
    nntok integer NOT NULL,
    item_key bigint NOT NULL,
    sig bigint NOT NULL,
    PRIMARY KEY (namespace, token, tf, nntok, item_key) INCLUDE (sig)
);
-- Look-ups of given items in a token's list: one probe each, whatever their frequency.
CREATE INDEX IF NOT EXISTS postings_item ON postings (namespace, token, item_key) INCLUDE (tf);
CREATE TABLE IF NOT EXISTS term_df (
    namespace text NOT NULL,
    token text COLLATE "C" NOT NULL,
    df bigint NOT NULL,
    tf_max integer NOT NULL,
    min_length integer NOT NULL,
    PRIMARY KEY (namespace, token)
);
CREATE TABLE IF NOT EXISTS text_totals (
    namespace text PRIMARY KEY,
    docs bigint NOT NULL,
    tokens bigint NOT NULL
);
"""

#: Relations between people and things (adapters/postgres/relations.py, ADR 0081; layout 6).
RELATIONS_DDL = """
CREATE TABLE IF NOT EXISTS relations (
    relation_id text COLLATE "C" PRIMARY KEY,
    namespace text NOT NULL,
    status text NOT NULL,
    source_id text COLLATE "C" NOT NULL,
    target_id text COLLATE "C" NOT NULL,
    state text NOT NULL
);
CREATE INDEX IF NOT EXISTS relations_status ON relations (namespace, status);
CREATE INDEX IF NOT EXISTS relations_source ON relations (source_id);
CREATE INDEX IF NOT EXISTS relations_target ON relations (target_id);
CREATE TABLE IF NOT EXISTS relation_evidence (
    item_id text COLLATE "C" NOT NULL,
    relation_id text COLLATE "C" NOT NULL,
    PRIMARY KEY (item_id, relation_id)
);
CREATE INDEX IF NOT EXISTS relation_evidence_relation ON relation_evidence (relation_id);
"""

EXPERIENCE_COUNTS_DDL = """
CREATE TABLE IF NOT EXISTS experience_counts (
    namespace text NOT NULL,
    signature text NOT NULL,
    approach text NOT NULL,
    successes integer NOT NULL,
    failures integer NOT NULL,
    PRIMARY KEY (namespace, signature, approach)
);
CREATE TABLE IF NOT EXISTS policy_links (
    policy_id text COLLATE "C" NOT NULL,
    seq integer NOT NULL,
    episode_id text COLLATE "C" NOT NULL,
    succeeded boolean NOT NULL,
    PRIMARY KEY (policy_id, seq)
);
CREATE UNIQUE INDEX IF NOT EXISTS policy_links_by_episode ON policy_links (episode_id, policy_id);
"""

#: The operational tables every process of the store shares (ADR 0074), like SQLite's of migration
#: 0013: budget reservations, the LLM-call ledger, worker heartbeats. Not projections: replay
#: leaves them alone.
OPERATIONS_DDL = """
CREATE TABLE IF NOT EXISTS budget_reservations (
    reservation_id text COLLATE "C" PRIMARY KEY,
    day text NOT NULL,
    what text NOT NULL,
    state text NOT NULL,
    requests bigint NOT NULL,
    tokens bigint NOT NULL,
    cost double precision,
    created_at bigint NOT NULL,
    expires_at bigint NOT NULL,
    settled_at bigint
);
CREATE INDEX IF NOT EXISTS budget_reservations_day ON budget_reservations (day, state, expires_at);
CREATE TABLE IF NOT EXISTS llm_calls (
    seq bigserial PRIMARY KEY,
    call_id text NOT NULL,
    attempt integer NOT NULL,
    provider text NOT NULL,
    model text NOT NULL,
    operation text NOT NULL,
    job_id text,
    status text NOT NULL,
    error_class text,
    http_status integer,
    prompt_tokens bigint,
    completion_tokens bigint,
    latency_ms bigint NOT NULL,
    created_at text COLLATE "C" NOT NULL,
    capability text NOT NULL,
    items bigint,
    cost double precision
);
CREATE INDEX IF NOT EXISTS llm_calls_created ON llm_calls (created_at);
CREATE INDEX IF NOT EXISTS llm_calls_job ON llm_calls (job_id);
CREATE TABLE IF NOT EXISTS worker_heartbeats (
    owner text COLLATE "C" PRIMARY KEY,
    pid bigint NOT NULL,
    host text NOT NULL,
    started_at text COLLATE "C" NOT NULL,
    last_beat text COLLATE "C" NOT NULL,
    state text NOT NULL,
    jobs_done bigint NOT NULL,
    last_error text
);
"""

#: Steps from an older layout to this one, keyed by the layout they start from.
UPGRADES = {
    # 1 -> 2: full text moves from a GIN-indexed tsvector (every match scored) to posting lists
    # read from their heads (ADR 0051); ``postings.rebuild`` then makes the lists from the items'
    # stored tokens (it needs the segmenter, so it is Python, not SQL).
    "1": POSTINGS_DDL + """
DROP INDEX IF EXISTS items_tsv;
ALTER TABLE items DROP COLUMN IF EXISTS tsv;
""",
    # 2 -> 3: items index the stems of their English words too (ADR 0058); ``postings.add_stems``
    # adds them to the stored tokens and makes the lists again.
    "2": "TRUNCATE postings, term_df, text_totals;",
    # 3 -> 4: per-approach outcome counts and ordered support links (ADR 0071); ``experience.upgrade``
    # then fills them and rewrites the policies' states as counts.
    "3": EXPERIENCE_COUNTS_DDL,
    # 4 -> 5: the shared operational tables (ADR 0074); a store of layout 4 kept these per process.
    "4": OPERATIONS_DDL,
    # 5 -> 6: relations between people and things (adapters/postgres/relations.py, ADR 0081).
    "5": RELATIONS_DDL,
    # 6 -> 7: derived items are searchable while current (ADR 0084); no table changes, and
    # ``derived.index_current`` then gives each current item its full-text row (kind 'derived').
    "6": "SELECT 1;",
}

DDL = r"""
CREATE TABLE IF NOT EXISTS meta (key text COLLATE "C" PRIMARY KEY, value text NOT NULL);

CREATE TABLE IF NOT EXISTS events (
    position bigint PRIMARY KEY,
    event_id text COLLATE "C" NOT NULL UNIQUE,
    stream_id text COLLATE "C" NOT NULL,
    version integer NOT NULL,
    tag text NOT NULL,
    recorded_at text NOT NULL,
    namespace text NOT NULL,
    schema_version integer NOT NULL,
    UNIQUE (stream_id, version)
);
CREATE INDEX IF NOT EXISTS events_tag ON events (tag, position);

CREATE TABLE IF NOT EXISTS event_payloads (
    position bigint PRIMARY KEY REFERENCES events (position),
    payload text NOT NULL
);
CREATE TABLE IF NOT EXISTS payload_erasures (
    position bigint PRIMARY KEY REFERENCES events (position),
    erased_at text NOT NULL,
    reason text NOT NULL
);

CREATE OR REPLACE FUNCTION hlmem_refuse() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN RAISE EXCEPTION 'hlmem: the event log is append-only (% on %)', TG_OP, TG_TABLE_NAME; END $$;
CREATE OR REPLACE FUNCTION hlmem_guard_payload() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM payload_erasures WHERE position = OLD.position) THEN
        RAISE EXCEPTION 'hlmem: payloads are erased only through forget (position %)', OLD.position;
    END IF;
    IF TG_OP = 'UPDATE' AND NEW.position <> OLD.position THEN
        RAISE EXCEPTION 'hlmem: a payload keeps its position';
    END IF;
    IF TG_OP = 'DELETE' THEN RETURN OLD; END IF;
    RETURN NEW;
END $$;
CREATE OR REPLACE FUNCTION hlmem_refuse_erasure_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN RAISE EXCEPTION 'hlmem: erasure records are permanent'; END $$;

DROP TRIGGER IF EXISTS events_append_only ON events;
CREATE TRIGGER events_append_only BEFORE UPDATE OR DELETE ON events
    FOR EACH ROW EXECUTE FUNCTION hlmem_refuse();
DROP TRIGGER IF EXISTS events_no_truncate ON events;
CREATE TRIGGER events_no_truncate BEFORE TRUNCATE ON events
    FOR EACH STATEMENT EXECUTE FUNCTION hlmem_refuse();
DROP TRIGGER IF EXISTS payloads_guarded ON event_payloads;
CREATE TRIGGER payloads_guarded BEFORE UPDATE OR DELETE ON event_payloads
    FOR EACH ROW EXECUTE FUNCTION hlmem_guard_payload();
DROP TRIGGER IF EXISTS erasures_permanent ON payload_erasures;
CREATE TRIGGER erasures_permanent BEFORE UPDATE OR DELETE ON payload_erasures
    FOR EACH ROW EXECUTE FUNCTION hlmem_refuse_erasure_change();

-- Projections: each state as its JSON document (states.py) with the columns queries filter on.
CREATE TABLE IF NOT EXISTS claims (
    claim_id text COLLATE "C" PRIMARY KEY,
    namespace text NOT NULL,
    subject_key text NOT NULL,
    predicate text NOT NULL,
    slot_key text NOT NULL,
    status text NOT NULL,
    archived boolean NOT NULL,
    scope text NOT NULL,
    importance double precision NOT NULL,
    recorded_at bigint NOT NULL,
    -- Of the versions still known (recorded_to NULL): the earliest end, and the earliest start of an open one.
    current_valid_to bigint,
    open_valid_from bigint,
    state text NOT NULL
);
CREATE INDEX IF NOT EXISTS claims_slot ON claims (slot_key);
CREATE INDEX IF NOT EXISTS claims_subject ON claims (namespace, subject_key, predicate);
CREATE TABLE IF NOT EXISTS claim_evidence (
    claim_id text COLLATE "C" NOT NULL,
    event_id text COLLATE "C" NOT NULL,
    PRIMARY KEY (event_id, claim_id)
);
CREATE TABLE IF NOT EXISTS observations (
    event_id text COLLATE "C" PRIMARY KEY,
    namespace text NOT NULL,
    session_id text NOT NULL,
    role text NOT NULL,
    forgotten boolean NOT NULL,
    recorded_at bigint NOT NULL,
    state text NOT NULL
);
CREATE INDEX IF NOT EXISTS observations_session ON observations (namespace, session_id, recorded_at, event_id);
CREATE TABLE IF NOT EXISTS conflicts (
    conflict_id text COLLATE "C" PRIMARY KEY,
    namespace text NOT NULL,
    status text NOT NULL,
    opened_at bigint NOT NULL,
    state text NOT NULL
);
CREATE INDEX IF NOT EXISTS conflicts_namespace ON conflicts (namespace, status);
CREATE TABLE IF NOT EXISTS supersede_edges (
    position bigint NOT NULL,
    old_id text COLLATE "C" NOT NULL,
    new_id text COLLATE "C" NOT NULL,
    recorded_at bigint NOT NULL
);
CREATE TABLE IF NOT EXISTS extraction_sources (
    stream_id text COLLATE "C" NOT NULL,
    event_id text COLLATE "C" NOT NULL,
    PRIMARY KEY (event_id, stream_id)
);

-- The search index: hlmem's own tokens (jieba + unicode61 rules) per item, and posting lists in
-- impact order (tf descending, length ascending as nntok = -length descending, key descending) with
-- document frequencies and totals per namespace (adapters/postgres/postings.py, ADR 0051); vectors apart.
CREATE TABLE IF NOT EXISTS items (
    item_key bigserial PRIMARY KEY,
    item_id text COLLATE "C" NOT NULL UNIQUE,
    kind text NOT NULL,
    namespace text NOT NULL,
    tokens text NOT NULL,
    ntok integer NOT NULL
);
CREATE INDEX IF NOT EXISTS items_namespace ON items (namespace, item_key);
""" + POSTINGS_DDL + r"""
CREATE TABLE IF NOT EXISTS vectors (
    item_key bigint PRIMARY KEY REFERENCES items (item_key) ON DELETE CASCADE,
    namespace text NOT NULL,
    vec vector NOT NULL
);
CREATE INDEX IF NOT EXISTS vectors_namespace ON vectors (namespace, item_key);

CREATE TABLE IF NOT EXISTS embedding_cache (
    model text NOT NULL,
    content_hash text NOT NULL,
    vec bytea NOT NULL,
    PRIMARY KEY (model, content_hash)
);
CREATE TABLE IF NOT EXISTS tombstones (
    seq bigserial PRIMARY KEY,
    fingerprint text NOT NULL,
    kind text NOT NULL,
    stream_id text COLLATE "C" NOT NULL,
    forgotten_at text NOT NULL,
    forget_id text NOT NULL,
    UNIQUE (fingerprint, kind, stream_id, forget_id)
);
CREATE INDEX IF NOT EXISTS tombstones_stream ON tombstones (stream_id, seq);
CREATE TABLE IF NOT EXISTS claim_activity (
    claim_id text COLLATE "C" PRIMARY KEY,
    last_access bigint NOT NULL,
    accesses bigint NOT NULL
);

CREATE TABLE IF NOT EXISTS jobs (
    job_id text COLLATE "C" PRIMARY KEY,
    kind text NOT NULL,
    idempotency_key text NOT NULL UNIQUE,
    namespace text NOT NULL,
    session_id text NOT NULL,
    payload text NOT NULL,
    state text NOT NULL,
    attempts integer NOT NULL,
    max_attempts integer NOT NULL,
    available_at bigint NOT NULL,
    created_at bigint NOT NULL,
    updated_at bigint NOT NULL,
    lease_owner text,
    lease_until bigint,
    last_error text,
    last_error_class text,
    raw_response text
);
CREATE INDEX IF NOT EXISTS jobs_ready ON jobs (kind, state, available_at);
CREATE INDEX IF NOT EXISTS jobs_session ON jobs (namespace, session_id, created_at);

-- Derived items (adapters/postgres/derived.py, ADR 0046).
CREATE TABLE IF NOT EXISTS derived_items (
    derived_id text COLLATE "C" PRIMARY KEY,
    namespace text NOT NULL,
    kind text NOT NULL,
    subject_key text NOT NULL,
    status text NOT NULL,
    state text NOT NULL
);
CREATE INDEX IF NOT EXISTS derived_items_subject ON derived_items (namespace, subject_key);
CREATE TABLE IF NOT EXISTS derived_sources (
    derived_id text COLLATE "C" NOT NULL,
    claim_id text COLLATE "C" NOT NULL,
    PRIMARY KEY (derived_id, claim_id)
);
CREATE INDEX IF NOT EXISTS derived_sources_claim ON derived_sources (claim_id);

-- The experience channel (adapters/postgres/experience.py, ADR 0045).
CREATE TABLE IF NOT EXISTS episodes (
    episode_id text COLLATE "C" PRIMARY KEY,
    namespace text NOT NULL,
    signature text NOT NULL,
    status text NOT NULL,
    state text NOT NULL
);
CREATE INDEX IF NOT EXISTS episodes_signature ON episodes (namespace, signature);
CREATE TABLE IF NOT EXISTS policies (
    policy_id text COLLATE "C" PRIMARY KEY,
    namespace text NOT NULL,
    signature text NOT NULL,
    status text NOT NULL,
    state text NOT NULL
);
CREATE INDEX IF NOT EXISTS policies_signature ON policies (namespace, signature);
CREATE TABLE IF NOT EXISTS procedures (
    procedure_id text COLLATE "C" PRIMARY KEY,
    namespace text NOT NULL,
    policy_id text COLLATE "C" NOT NULL,
    source_episode text COLLATE "C" NOT NULL,
    status text NOT NULL,
    state text NOT NULL
);
CREATE INDEX IF NOT EXISTS procedures_policy ON procedures (policy_id);
CREATE INDEX IF NOT EXISTS procedures_episode ON procedures (source_episode);
""" + EXPERIENCE_COUNTS_DDL + OPERATIONS_DDL + RELATIONS_DDL
