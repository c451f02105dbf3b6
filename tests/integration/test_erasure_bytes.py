"""After forget (and the compaction it runs), the forgotten strings are nowhere in the store's files.

The raw bytes of the database file, its ``-wal`` and ``-shm`` are searched for the forgotten text
in Chinese and English, for the claim value the rule extractor took from it, for the tokens the
full-text index stored, and for the raw LLM answer a failed job kept. Each test first checks that
the strings *are* on disk before the forget (a test that cannot fail proves nothing).
"""

from __future__ import annotations

import json
import sys
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

_TESTS = str(Path(__file__).resolve().parents[1])
if _TESTS not in sys.path:  # tests/ has no __init__.py: make tests/support importable in any import mode
    sys.path.insert(0, _TESTS)

from support.llm_server import ScriptedLLMServer, completion, raw  # noqa: E402

from hlmem import Memory  # noqa: E402

T0 = datetime(2026, 3, 1, 9, 30, tzinfo=timezone.utc)
ZH = "紫罗兰色的秘密基地"
EN = "violet-secret-bunker-42"
#: The strings, the claim values the rule extractor takes, and the full-text tokens (jieba splits
#: the Chinese into 紫罗/罗兰/紫罗兰色/秘密/基地; unicode61 the English into violet/secret/bunker).
NEEDLES = (ZH, EN, "紫罗兰", "紫罗", "秘密", "基地", "violet", "secret", "bunker")


def store_files(db: Path) -> dict[str, bytes]:
    """Every file of the store: the database, its WAL and shared-memory index."""
    return {f.name: f.read_bytes() for f in sorted(db.parent.glob(db.name + "*"))}


def found(db: Path) -> dict[str, list[str]]:
    """Which needles each file holds, as UTF-8 or JSON-escaped (``\\u7d2b…``)."""
    out = {}
    for name, data in store_files(db).items():
        hits = [n for n in NEEDLES if n.encode() in data or json.dumps(n)[1:-1].encode() in data]
        if hits:
            out[name] = hits
    return out


def fts_blocks_holding(mem: Memory, token: str) -> int:
    """Full-text index pages (FTS5 segments) holding ``token`` whole (a term is stored whole unless
    it shares a prefix with the term before it: true of these English tokens in this store)."""
    return mem.storage.connection.execute(
        "SELECT count(*) FROM items_fts_data WHERE instr(block, CAST(? AS BLOB)) > 0", (token.encode(),)).fetchone()[0]


def fill(mem: Memory, n: int = 200) -> None:
    # Unrelated rows, so the forgotten ones share pages, segments and b-tree nodes with survivors.
    for i in range(n):
        mem.add(f"filler note number {i} about tea and weather", session="filler", extract=False)


def test_forget_leaves_no_byte_of_the_text_its_claims_or_index_tokens(tmp_path: Path) -> None:
    db = tmp_path / "store.db"
    with Memory(db, embedder="hash", now=T0, synchronous="OFF") as mem:
        fill(mem)
        mem.clock.advance(timedelta(days=1))
        zh = mem.add(f"我的暗号是{ZH}", session="s-private")  # (我住在…: the guard wants a place, not a phrase)
        en = mem.add(f"My favorite place is {EN}", session="s-private")
        values = {c.value for e in (zh, en) for c in mem.storage.get_claims(mem.storage.claims_citing(e.id)).values()}
        assert values == {ZH, EN}, "the rule extractor takes the strings as claim values"
        mem.remember("user", "note", f"{EN} and {ZH}")  # a claim that mentions them, no evidence
        mem.remember(EN, "colour", "purple")  # the string as a subject: a key of the claims_subject index
        # Planner samples (sqlite_stat4 keeps real index keys) and a checkpoint: the strings now sit
        # in the main file's pages, the full-text segments and the samples.
        mem.storage.connection.execute("ANALYZE")
        mem.storage.connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        before = found(db)
        assert set(before["store.db"]) == set(NEEDLES), before
        assert fts_blocks_holding(mem, "secret") and fts_blocks_holding(mem, "bunker")

        report = mem.forget(session="s-private")
        report_subject = mem.forget(subject=EN)

        assert report.counts["events"] == 2 and report.counts["claims"] == 2
        assert report_subject.counts["claims"] == 2
        assert found(db) == {}, "forgotten text left on disk after forget"
        assert fts_blocks_holding(mem, "secret") == 0 and fts_blocks_holding(mem, "bunker") == 0
        assert (tmp_path / "store.db-wal").stat().st_size == 0
        assert not {i.id for i in mem.recall(EN, k=50).items} & {zh.id, en.id}
        assert len(mem.recall("filler note", k=200).items) == 200  # the rest is intact
    assert found(db) == {}  # closing (PRAGMA optimize) brings nothing back



def test_merging_full_text_segments_around_a_forget_brings_nothing_back(tmp_path: Path, monkeypatch) -> None:
    """A small store's segments are merged after writes (ADR 0088): merges before the forget moved the
    tokens into new pages, merges after it rewrite the index; neither leaves a forgotten byte."""
    from hlmem.adapters.sqlite import fts_compact

    merges: list[str] = []
    compact = fts_compact.compact
    monkeypatch.setattr(fts_compact, "compact", lambda con, tables=fts_compact.TABLES: merges.extend(
        compact(con, tables)) or [])
    db = tmp_path / "merged.db"
    with Memory(db, embedder="none", now=T0, synchronous="OFF") as mem:
        fill(mem, 40)
        ev = mem.add(f"My favorite place is {EN}", session="s-private", extract=False)
        fill(mem, 20)  # merges with the event's tokens in the index
        assert "items_fts" in merges and "context_fts" in merges
        mem.storage.connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        assert {"violet", "secret", "bunker"} <= set(found(db).get("merged.db", ()))
        merged_before = len(merges)

        mem.forget(ev.id)
        fill(mem, 30)  # merges after the forget

        assert len(merges) > merged_before
        assert found(db) == {}, "forgotten text left on disk after forget and merges"
        mem.storage.connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        assert found(db) == {}
    assert found(db) == {}

def test_a_failed_llm_jobs_raw_answer_is_scrubbed(tmp_path: Path) -> None:
    db = tmp_path / "llm.db"
    with ScriptedLLMServer() as server:
        settings = {"provider": "local", "base_url": server.base_url, "model": "m", "max_retries": 0,
                    "timeout_s": 5.0}
        with Memory(db, embedder="none", now=T0, llm=settings, synchronous="OFF") as mem:
            fill(mem, 50)
            # First answer: not JSON, quoting the text (kept as the job's raw response for diagnosis).
            server.script(raw(f"Sure! The user lives in {ZH} and likes {EN}. {{not json"))
            ev = mem.add(f"我住在{ZH}, my password hint is {EN}", session="s-llm")
            job = next(j for j in mem.jobs.jobs(limit=1000) if j.payload["event_id"] == ev.id)
            assert job.state == "failed" and mem.jobs.raw_response(job.job_id)
            # The retry succeeds: a claim whose value is the string.
            server.script(completion({"claims": [{
                "event": 1, "subject": "user", "predicate": "lives_in", "value": ZH, "qualifiers": [],
                "polarity": True, "importance": 0.8, "scope": "permanent", "valid_from": None, "valid_to": None,
                "evidence_quote": f"我住在{ZH}"}]}))
            mem.clock.set(job.available_at + timedelta(seconds=1))
            mem.run_worker()
            assert [c.value for c in mem.storage.get_claims(mem.storage.claims_citing(ev.id)).values()] == [ZH]
            mem.storage.connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            assert {ZH, EN} <= set(found(db).get("llm.db", ())), found(db)

            report = mem.forget(ev.id)

            assert report.counts["jobs"] == 1 and report.counts["claims"] == 1
            assert mem.jobs.raw_response(job.job_id) is None
            assert found(db) == {}, "forgotten text left on disk after forget"
            # The LLM ledger never held prompts or answers: its rows stay, with no text in them.
            assert mem._container.ledger().totals()["attempts"] == 2


@pytest.mark.parametrize("secure", [True, False])
def test_the_byte_check_fails_without_secure_delete(tmp_path: Path, secure: bool) -> None:
    """The check above can fail: with SQLite's secure delete off, erased text stays in freed space."""
    db = tmp_path / "plain.db"
    with Memory(db, embedder="none", now=T0, synchronous="OFF") as mem:
        fill(mem, 30)
        ev = mem.add(f"My favorite place is {EN}", extract=False)
        mem.storage.connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        if not secure:
            mem.storage.connection.pragma("secure_delete", "OFF")
        mem.forget(ev.id)
        assert (found(db) == {}) is secure


def context_blocks_holding(mem: Memory, token: str) -> int:
    """Pages of the conversational-context index (``context_fts``) holding ``token``."""
    return mem.storage.connection.execute(
        "SELECT count(*) FROM context_fts_data WHERE instr(block, CAST(? AS BLOB)) > 0", (token.encode(),)).fetchone()[0]


def test_a_forgotten_turn_leaves_its_neighbours_context_rows(tmp_path: Path) -> None:
    """The turns before and after a forgotten one held its words in their context rows; forget rewrites them."""
    db = tmp_path / "ctx.db"
    with Memory(db, embedder="hash", now=T0, synchronous="OFF") as mem:
        fill(mem)
        before = mem.add("Where should we meet tomorrow?", session="chat", extract=False)
        secret = mem.add(f"At {EN}, it is {ZH}", session="chat", extract=False)
        after = mem.add("Fine, see you there at noon", session="chat", extract=False)
        mem.storage.connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        hits = {c.item_id for c in mem.storage.context_candidates("default", "bunker", 10)}
        assert hits == {before.id, secret.id, after.id}, "the neighbours' context rows hold the secret"
        assert context_blocks_holding(mem, "bunker")

        mem.forget(secret.id)

        assert mem.storage.context_candidates("default", "bunker", 10) == []
        assert context_blocks_holding(mem, "bunker") == 0
        assert found(db) == {}, "forgotten text left on disk after forget"
        # The survivors are now each other's neighbours.
        assert {c.item_id for c in mem.storage.context_candidates("default", "noon", 10)} == {before.id, after.id}
