"""What runs while SQLite's write lock is held (ADR 0064), and how writers wait for it.

The first test runs every write path in a fresh interpreter, as a new ``hlmem`` process does (the
first use of a module, a model or an encoder happens there), and records what happens between
``BEGIN IMMEDIATE`` and ``COMMIT``: no module may be imported, no text embedded, no extraction
run, no segmenter or stemmer loaded, no written text segmented, no event encoder built.

Nothing here asserts how long anything took.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import apsw
import pytest

from hlmem import Memory
from hlmem.adapters.embedders.hashing import HashEmbedder
from hlmem.adapters.sqlite import db as db_module
from hlmem.adapters.sqlite.lock_timing import LockTiming, from_environment
from hlmem.adapters.sqlite.store import SQLiteStorage
from hlmem.domain.forgetting import ForgottenContent

UNDER_THE_LOCK = r"""
import json, re, sys
from datetime import timedelta

import cattrs.converters
import jieba

found = []          # (what, detail) that happened under the lock
written = set()     # the texts the flows write (their segmentation must be prepared before the lock)
state = {"depth": 0, "modules": None}

def locked():
    return state["depth"] > 0

# Before hlmem is imported: its converter takes the method when it is made.
generate = cattrs.converters.Converter.gen_unstructure_attrs_fromdict
def spy_generate(self, cl):
    if locked():
        found.append(("encoder", cl.__name__))
    return generate(self, cl)
cattrs.converters.Converter.gen_unstructure_attrs_fromdict = spy_generate

from hlmem import Memory
from hlmem.adapters.embedders.hashing import HashEmbedder
from hlmem.adapters.sqlite import db as db_module
from hlmem.adapters.text import segment
from hlmem.application.pipeline import ExtractionPipeline

begin = db_module.Db._begin
def spy_begin(self, wait_ms):
    begin(self, wait_ms)
    state["depth"] += 1
    state["modules"] = set(sys.modules)
db_module.Db._begin = spy_begin

def timing(t):
    state["depth"] -= 1
    new = set(sys.modules) - state["modules"]
    if new:
        found.append(("import", f"{t.site}: {sorted(new)[:5]}"))

class SpyEmbedder(HashEmbedder):
    def embed_passages(self, texts):
        if locked():
            found.append(("embed", list(texts)[:2]))
        return super().embed_passages(texts)

initialize = jieba.Tokenizer.initialize
def spy_initialize(self, *args, **kwargs):
    if locked():
        found.append(("jieba load", ""))
    return initialize(self, *args, **kwargs)
jieba.Tokenizer.initialize = spy_initialize

tokens = segment._tokens
DAY_WORDS = re.compile(r"^\d+ [A-Z][a-z]+ \d{4} \d{4}年\d+月\d+日$")
def spy_tokens(text):
    if locked() and not DAY_WORDS.match(text):  # a context row's day words are not known before it
        found.append(("segment", text))
    return tokens(text)
segment._tokens = spy_tokens

english = segment._english
def spy_english():
    if locked() and english.cache_info().currsize == 0:
        found.append(("stemmer load", ""))
    return english()
segment._english = spy_english

candidates = ExtractionPipeline._candidates
def spy_candidates(self, sources, job_id):
    if locked():
        found.append(("extract", job_id))
    return candidates(self, sources, job_id)
ExtractionPipeline._candidates = spy_candidates

mem = Memory(sys.argv[1], embedder=SpyEmbedder(dim=64), now="2026-03-02T09:00:00+08:00")
mem.storage.db.on_timing = timing

def say(text, **kw):
    written.add(text)
    return mem.add(text, **kw)

# hlmem add (inline extraction), the first write of the process
say("我叫王小明，我住在杭州，喜欢喝龙井茶。", session="a")
# hlmem add --defer, then hlmem worker --once
mem.add_many([{"text": "My sister moved to Toronto in March and works as a data analyst."},
              {"text": "我对花生过敏。"}], process=False)
written.update(["My sister moved to Toronto in March and works as a data analyst.", "我对花生过敏。"])
mem.run_worker(once=True)
# hlmem remember, then a corroboration that revives an archived claim whose vector is not cached
snack = mem.remember("user", "favorite_snack", "pretzels", importance=0.2).id
mem.clock.advance(timedelta(days=400))
assert mem.maintain().archived >= 1
mem.storage.connection.execute("DELETE FROM embedding_cache")
again = mem.remember("User", "favorite_snack", "Pretzels", importance=0.2)
assert (again.id, again.outcome) == (snack, "corroborated"), again
assert mem.storage.get_claims([snack])[snack].archived is False
# hlmem import, hlmem forget
report = mem.import_jsonl([json.dumps({"type": "observation", "text": "We adopted a grey cat named Pixel.",
                                       "session": "imp"})])
written.add("We adopted a grey cat named Pixel.")
first = say("明天下午三点和李雷开会。", session="b").id
mem.forget(first)
mem.close()
print(json.dumps({"found": found, "imported": report.written}))
"""


def test_nothing_heavy_runs_under_the_write_lock_in_a_new_process(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "-c", textwrap.dedent(UNDER_THE_LOCK), str(tmp_path / "m.db")],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    report = json.loads(done.stdout.strip().splitlines()[-1])
    assert report["imported"] == 1
    assert report["found"] == [], report["found"]


class HeldWriteLock:
    """Another connection inside ``BEGIN IMMEDIATE`` with an uncommitted write, until released."""

    def __init__(self, path: Path) -> None:
        self.con = apsw.Connection(str(path))
        self.con.execute("BEGIN IMMEDIATE")
        self.con.execute("INSERT OR REPLACE INTO meta (key, value) VALUES ('held', 'yes')")

    def release(self) -> None:
        self.con.execute("ROLLBACK")
        self.con.close()


def test_a_writer_behind_a_stuck_holder_fails_with_the_reason_and_writes_nothing(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "s.db"
    store = SQLiteStorage(path)
    monkeypatch.setattr(db_module, "BUSY_STEP_MS", 50)
    monkeypatch.setattr(db_module, "STALL_MS", 300)
    seen: list[LockTiming] = []
    store.db.on_timing = seen.append
    held = HeldWriteLock(path)
    try:
        with pytest.raises(Exception, match="the store is stuck: another process has held its write lock"), \
                store.transaction():
            store.set_meta("never", "written")
    finally:
        held.release()
    assert [t.outcome for t in seen] == ["busy"] and seen[0].wait_ms >= 300
    assert store.meta("never") is None
    store.set_meta("after", "written")  # the lock is free again: the next write goes through
    assert store.meta("after") == "written"
    store.close()


def test_a_bounded_wait_fails_fast_and_says_busy(tmp_path: Path) -> None:
    path = tmp_path / "s.db"
    store = SQLiteStorage(path)
    held = HeldWriteLock(path)
    try:
        with pytest.raises(Exception, match="the store is busy"), store.db.transaction(wait_ms=20):
            pass
    finally:
        held.release()
    store.close()


def test_each_outermost_transaction_is_timed_once_with_its_site(tmp_path: Path) -> None:
    store = SQLiteStorage(tmp_path / "s.db")
    seen: list[LockTiming] = []
    store.db.on_timing = seen.append
    with store.transaction(), store.transaction():  # nested: one transaction, one record
        store.set_meta("k", "v")
    with pytest.raises(RuntimeError), store.transaction():
        store.set_meta("k", "w")
        raise RuntimeError("undone")
    store.close()
    assert [t.outcome for t in seen[:2]] == ["commit", "rollback"]
    commit, rollback = seen[:2]
    assert commit.site.endswith("test_each_outermost_transaction_is_timed_once_with_its_site")
    assert 0 <= commit.commit_ms <= commit.hold_ms and commit.wait_ms >= 0 and rollback.commit_ms == 0
    assert commit.path.endswith("s.db") and commit.pid > 0


def test_the_trace_file_gets_one_json_line_per_transaction(tmp_path: Path) -> None:
    trace = tmp_path / "locks.jsonl"
    assert from_environment({}) is None
    store = SQLiteStorage(tmp_path / "s.db")
    store.db.on_timing = from_environment({"HLMEM_LOCK_TRACE": str(trace)})
    store.set_meta("a", "1")
    store.set_meta("b", "2")
    store.close()
    lines = [json.loads(line) for line in trace.read_text().splitlines()]
    assert {line["outcome"] for line in lines} == {"commit"}
    assert set(lines[0]) == {"started", "wait_ms", "hold_ms", "commit_ms", "outcome", "site", "pid", "path"}
    sites = [line["site"].rsplit(":", 1)[-1] for line in lines]
    # The two writes, then the statistics ``PRAGMA optimize`` refreshes when a connection that wrote closes.
    assert sites == ["test_the_trace_file_gets_one_json_line_per_transaction"] * 2 + ["optimize_on_close"]


def test_a_forget_that_commits_after_the_first_look_still_refuses_the_write(tmp_path: Path) -> None:
    """The guard looks before embedding; a forget committed between that look and the write's
    transaction is seen under the lock: nothing is written, not even the text's cached vector."""
    path = tmp_path / "m.db"
    secret = "我的银行卡密码是 123456"
    other = Memory(path, embedder=HashEmbedder(dim=384))

    class ForgetsWhileEmbedding(HashEmbedder):
        def embed_passages(self, texts):
            if secret in texts:  # after the first look, before the transaction: another process forgets it
                other.forget(other.add(secret, session="other", extract=False).id)
            return super().embed_passages(texts)

    mem = Memory(path, embedder=ForgetsWhileEmbedding(dim=384))
    try:
        with pytest.raises(ForgottenContent):
            mem.add(secret, session="mine")
        assert mem.storage.session_events("default", "mine") == []
        assert mem.storage.connection.execute("SELECT count(*) FROM jobs WHERE session_id = 'mine'").fetchone() == (0,)
    finally:
        mem.close()
        other.close()
    with Memory(path, embedder=HashEmbedder(dim=384)) as check:
        from hlmem.adapters.embedders.cached import content_hash

        model = check.storage.vector_model()[0]
        assert check.storage.embedding_cache.get_many(model, [content_hash(secret)]) == {}
