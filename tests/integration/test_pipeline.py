"""The write pipeline on a SQLite file, in-process: durable jobs, conflicts, dedup and admission.

Time moves only through the store's ``FixedClock`` (``mem.clock.set/advance``); nothing sleeps.
Extraction is the rule extractor unless a test hands ``Memory`` a small scripted LLM (the LLM
port, below); the real HTTP server is in ``test_pipeline_llm.py``.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import apsw
import pytest

from hlmem import Memory
from hlmem.application.worker import Worker
from hlmem.domain.errors import ConcurrencyConflict, NotFound, ProviderUnavailable, ValidationError
from hlmem.domain.events import ClaimAsserted, ClaimCorroborated, ConflictOpened, ExtractionRecorded
from hlmem.domain.queries import current

T0 = datetime(2026, 3, 1, 9, 30, tzinfo=timezone.utc)
EXTRACT = "extract"


# --- helpers -----------------------------------------------------------------------------------


def open_memory(path: Path, **kwargs: Any) -> Memory:
    return Memory(path, embedder="none", now=T0, **kwargs)


@pytest.fixture
def mem(tmp_path: Path) -> Memory:
    with open_memory(tmp_path / "m.db") as m:
        yield m


def logged(mem: Memory, kind: type) -> list[Any]:
    """Every event of ``kind`` in the log, in order."""
    return [s.event for s in mem.storage.read() if isinstance(s.event, kind)]


def extractions_of(mem: Memory, event_id: str) -> list[ExtractionRecorded]:
    return [e for e in logged(mem, ExtractionRecorded) if event_id in e.source_events]


def job_of(mem: Memory, event_id: str):
    found = [j for j in mem.jobs.jobs(limit=10_000) if j.payload["event_id"] == event_id]
    assert len(found) == 1, found
    return found[0]


def drain(mem: Memory) -> int:
    """Run the worker once; how many windows it ran this time (its stats accumulate)."""
    stats = mem._container.worker().stats
    before = stats.windows
    mem.run_worker(once=True)
    return stats.windows - before


def current_values(mem: Memory, subject: str, predicate: str) -> list[str]:
    return sorted(c.value for c in current(mem.history(subject, predicate), mem.clock.now()))


class ScriptedLLM:
    """The LLM port, driven by a handler; records every call (no HTTP)."""

    model_id = "scripted:test"

    def __init__(self, handler: Callable[[list[dict[str, Any]]], Mapping[str, Any]]) -> None:
        self.handler = handler
        self.calls: list[list[dict[str, Any]]] = []

    def complete_json(self, system: str, user: str, schema: Mapping[str, Any], *, operation: str,
                      job_id: str | None = None) -> dict[str, Any]:
        events = json.loads(user.split("\n", 1)[1])["events"]
        self.calls.append(events)
        return dict(self.handler(events))


def failing(_events: Sequence[dict[str, Any]]) -> Mapping[str, Any]:
    raise ProviderUnavailable("scripted: server error (HTTP 503): overloaded", provider="scripted", status=503)


def one_claim_per_event(events: Sequence[dict[str, Any]]) -> Mapping[str, Any]:
    """Each event's last word as the user's ``lives_in``, quoting the whole text as evidence."""
    return {"claims": [{"event": e["event"], "subject": "user", "predicate": "lives_in", "value": e["text"].split()[-1],
                        "qualifiers": [], "polarity": True, "importance": 0.8, "scope": "permanent",
                        "valid_from": None, "valid_to": None, "evidence_quote": e["text"]} for e in events]}


# --- 1. jobs -----------------------------------------------------------------------------------


def test_an_observation_and_its_job_commit_together(mem: Memory) -> None:
    result = mem.add("I live in Hangzhou", session="s1", process=False)
    assert [s.event.stream_id for s in mem.storage.read()] == [result.id]
    job = job_of(mem, result.id)
    assert (job.kind, job.state, job.attempts, job.session_id) == (EXTRACT, "pending", 0, "s1")
    assert job.idempotency_key == f"{EXTRACT}:{result.id}"
    assert mem.storage.get_observations([result.id])[result.id].text == "I live in Hangzhou"
    assert mem.storage.claims_citing(result.id) == []  # left to the worker


def test_no_extract_records_the_event_without_a_job(mem: Memory) -> None:
    result = mem.add("I live in Hangzhou", extract=False)
    assert result.id in mem.storage.get_observations([result.id])
    assert mem.jobs.job_counts() == {}


@pytest.mark.parametrize("when", ["before_insert", "after_insert"])
def test_a_failure_inside_the_transaction_leaves_neither_event_nor_job(mem: Memory, when: str,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    queue = mem.jobs
    real = queue.enqueue

    def enqueue(**kwargs: Any) -> str:
        if when == "after_insert":
            real(**kwargs)
        raise RuntimeError("disk on fire")

    monkeypatch.setattr(queue, "enqueue", enqueue)
    with pytest.raises(RuntimeError, match="disk on fire"):
        mem.add("I live in Hangzhou", process=False)
    assert mem.storage.last_position() == 0
    assert mem.jobs.job_counts() == {}
    assert mem.storage.counts().get("observations", 0) == 0
    monkeypatch.undo()
    ok = mem.add("I live in Hangzhou", process=False)  # the store is usable afterwards
    assert job_of(mem, ok.id).state == "pending"


def test_a_crashed_workers_job_is_picked_up_after_its_lease_expires(mem: Memory) -> None:
    result = mem.add("I live in Hangzhou", session="s1", process=False)
    worker = mem._container.worker()
    lease = worker.config.lease_seconds
    # A worker takes the window, then dies before finishing it.
    taken = mem.jobs.claim_window(kind=EXTRACT, owner="crashed", now=mem.clock.now(), lease_seconds=lease,
                                  size=5, max_wait_seconds=120, flush=True)
    assert [j.payload["event_id"] for j in taken] == [result.id]
    assert drain(mem) == 0  # the lease still holds: nobody else may take it
    mem.clock.advance(timedelta(seconds=lease - 1))
    assert drain(mem) == 0
    mem.clock.advance(timedelta(seconds=2))
    stats = mem.run_worker()
    assert stats.windows == 1 and stats.jobs_succeeded == 1
    job = job_of(mem, result.id)
    assert (job.state, job.attempts, job.lease_owner) == ("succeeded", 2, None)
    assert len(mem.storage.claims_citing(result.id)) == 1
    assert len(extractions_of(mem, result.id)) == 1


def test_a_worker_that_lost_its_lease_cannot_write_its_window(mem: Memory) -> None:
    """The slow worker's window is rolled back whole: no second extraction, no duplicate claim."""
    result = mem.add("I live in Hangzhou", session="s1", process=False)
    pipeline = mem._container.pipeline()
    slow = mem.jobs.claim_window(kind=EXTRACT, owner="slow", now=mem.clock.now(), lease_seconds=10, size=5,
                                 max_wait_seconds=120, flush=True)
    mem.clock.advance(timedelta(seconds=11))
    assert mem.run_worker().jobs_succeeded == 1  # another worker took over and finished
    before = mem.storage.last_position()
    with pytest.raises(ConcurrencyConflict):
        pipeline.process(slow, owner="slow")
    assert mem.storage.last_position() == before
    assert len(extractions_of(mem, result.id)) == 1
    assert len(mem.storage.claims_citing(result.id)) == 1
    assert job_of(mem, result.id).state == "succeeded"


def test_failed_jobs_back_off_exponentially_then_die_with_their_last_error(tmp_path: Path) -> None:
    llm = ScriptedLLM(failing)
    with open_memory(tmp_path / "m.db", llm=llm) as mem:
        result = mem.add("I live in Hangzhou", session="s1")  # processed now: the first attempt fails
        assert mem.storage.get_observations([result.id])  # the event is never lost
        delays = []
        job = job_of(mem, result.id)
        while job.state == "failed":
            assert job.last_error_class == "ProviderUnavailable"
            assert "HTTP 503" in job.last_error
            wait = job.available_at - mem.clock.now()
            delays.append(wait.total_seconds())
            mem.clock.advance(wait - timedelta(microseconds=1))
            assert drain(mem) == 0  # not before its backoff has passed
            mem.clock.advance(timedelta(microseconds=1))
            mem.run_worker()
            job = job_of(mem, result.id)
        assert job.state == "dead"
        assert job.attempts == job.max_attempts == 5
        assert len(llm.calls) == 5
        assert len(delays) == 4
        for shorter, longer in zip(delays, delays[1:]):
            assert longer == pytest.approx(2 * shorter, rel=1e-6)  # same jitter per job: exactly doubles
        assert 2 * 0.75 <= delays[0] <= 2 * 1.25  # backoff_base_seconds, jittered
        assert "HTTP 503" in job.last_error and job.last_error_class == "ProviderUnavailable"
        assert mem.storage.claims_citing(result.id) == []
        mem.clock.advance(timedelta(days=1))
        assert drain(mem) == 0  # dead jobs stay dead


def test_retry_requeues_a_dead_job(tmp_path: Path) -> None:
    llm = ScriptedLLM(failing)
    with open_memory(tmp_path / "m.db", llm=llm) as mem:
        mem._container.ingest()._max_attempts = 1
        result = mem.add("I live in Hangzhou", session="s1")
        job = job_of(mem, result.id)
        assert job.state == "dead" and "HTTP 503" in job.last_error
        llm.handler = one_claim_per_event
        mem.retry_job(job.job_id)
        requeued = job_of(mem, result.id)
        assert (requeued.state, requeued.attempts, requeued.last_error) == ("pending", 0, job.last_error)
        mem.run_worker()
        assert job_of(mem, result.id).state == "succeeded"
        assert len(mem.storage.claims_citing(result.id)) == 1
        assert len(extractions_of(mem, result.id)) == 1
        with pytest.raises(ValidationError, match="succeeded"):  # nothing runs twice
            mem.retry_job(job.job_id)
        mem.run_worker()
        assert len(mem.storage.claims_citing(result.id)) == 1
        assert len(extractions_of(mem, result.id)) == 1
        assert len(llm.calls) == 2
        assert current_values(mem, "user", "lives_in") == ["Hangzhou"]
        with pytest.raises(NotFound):
            mem.retry_job("jb_does_not_exist")


def test_the_same_idempotency_key_gives_the_existing_job(mem: Memory) -> None:
    result = mem.add("I live in Hangzhou", session="s1", process=False)
    job = job_of(mem, result.id)
    again = mem.jobs.enqueue(kind=EXTRACT, idempotency_key=job.idempotency_key, namespace="default",
                             session_id="s1", payload={"event_id": result.id}, now=mem.clock.now())
    assert again == job.job_id
    assert mem.jobs.job_counts() == {EXTRACT: {"pending": 1}}


def test_run_once_drains_every_ready_job_partial_windows_included(mem: Memory) -> None:
    mem._container.worker().config.window_size = 5
    for i in range(7):
        mem.add(f"note {i} about the weather", session="s1", process=False)
        mem.clock.advance(timedelta(seconds=1))
    for i in range(2):
        mem.add(f"other note {i}", session="s2", process=False)
    assert mem.jobs.job_counts() == {EXTRACT: {"pending": 9}}
    stats = mem.run_worker(once=True)
    assert (stats.windows, stats.jobs_succeeded, stats.jobs_failed) == (3, 9, 0)  # s1: 5 + 2, s2: 2
    assert mem.jobs.job_counts() == {EXTRACT: {"succeeded": 9}}
    windows = [e.source_events for e in logged(mem, ExtractionRecorded)]
    assert sorted(len(w) for w in windows) == [2, 2, 5]
    assert drain(mem) == 0  # nothing left
    assert len(logged(mem, ExtractionRecorded)) == 3


def test_the_worker_runs_inside_an_embedding_process_until_stopped(mem: Memory) -> None:
    mem.add("I live in Hangzhou", session="s1", process=False)
    worker = mem._container.worker()
    seen: list[float] = []

    def sleep(seconds: float) -> None:  # an idle loop stops the worker instead of waiting
        seen.append(seconds)
        loop.stop_event.set()

    loop = Worker(mem.jobs, mem._container.pipeline(), mem.clock, owner="embedded", config=worker.config, sleep=sleep)
    loop.config.window_max_seconds = 0  # a window of one is due at once
    stats = loop.run()
    assert stats.jobs_succeeded == 1 and seen == [worker.config.idle_sleep_seconds]


# --- 6. conflicts and review -------------------------------------------------------------------


def _external_contradiction(mem: Memory) -> tuple[str, str]:
    """The user lives in Hangzhou; the agent's notes say "I live in Beijing" (restricted, not untrusted: an
    external page could not speak for the user at all). Returns (user claim, conflict)."""
    said = mem.add("I live in Hangzhou", session="chat")
    (user_claim,) = mem.storage.claims_citing(said.id)
    mem.clock.advance(timedelta(hours=1))
    web = mem.add("I live in Beijing", session="notes", origin="agent")
    assert mem.storage.claims_citing(web.id) == []
    (conflict,) = mem.conflicts()
    assert conflict.reason == "conflict.inference_vs_user_claim"
    assert conflict.existing == (user_claim,)
    assert conflict.candidate["value"] == "Beijing"
    (record,) = extractions_of(mem, web.id)
    assert record.conflicts == (conflict.conflict_id,)
    return user_claim, conflict.conflict_id


def test_an_external_statement_never_overrides_a_user_fact_it_opens_a_conflict(mem: Memory) -> None:
    _external_contradiction(mem)
    assert current_values(mem, "user", "lives_in") == ["Hangzhou"]


@pytest.mark.parametrize(("decision", "values"), [
    ("keep-new", ["Beijing"]),
    ("keep-old", ["Hangzhou"]),
    ("coexist", ["Beijing", "Hangzhou"]),
])
def test_resolving_a_conflict(mem: Memory, decision: str, values: list[str]) -> None:
    user_claim, conflict_id = _external_contradiction(mem)
    mem.clock.advance(timedelta(minutes=5))
    resolution = mem.resolve_conflict(conflict_id, decision, expected_version=1)
    assert current_values(mem, "user", "lives_in") == values
    assert mem.conflicts() == []
    (done,) = mem.conflicts(status=None)
    assert (done.status, done.decision, done.version) == ("resolved", decision, 2)
    old = mem.storage.get_claims([user_claim])[user_claim]
    if decision == "keep-new":
        assert old.superseded_by == resolution.claim_id
        assert mem.storage.get_claims([resolution.claim_id])[resolution.claim_id].value == "Beijing"
    elif decision == "keep-old":
        assert resolution.claim_id is None and old.superseded_by is None
    else:
        assert old.superseded_by is None and resolution.claim_id is not None


def test_a_decision_on_a_stale_view_is_refused(mem: Memory) -> None:
    _, conflict_id = _external_contradiction(mem)
    mem.clock.advance(timedelta(hours=1))
    mem.add("I live in Shanghai", session="chat")  # the user moved meanwhile: the slot changed
    assert current_values(mem, "user", "lives_in") == ["Shanghai"]
    with pytest.raises(ConcurrencyConflict, match="changed since it opened"):
        mem.resolve_conflict(conflict_id, "keep-new")
    assert [c.conflict_id for c in mem.conflicts()] == [conflict_id]  # still open, nothing written
    assert current_values(mem, "user", "lives_in") == ["Shanghai"]


def test_resolving_twice_or_on_an_old_version_is_refused(mem: Memory) -> None:
    _, conflict_id = _external_contradiction(mem)
    with pytest.raises(ConcurrencyConflict):
        mem.resolve_conflict(conflict_id, "keep-new", expected_version=2)
    mem.resolve_conflict(conflict_id, "keep-old")
    with pytest.raises(ConcurrencyConflict, match="already decided"):
        mem.resolve_conflict(conflict_id, "keep-new")
    assert current_values(mem, "user", "lives_in") == ["Hangzhou"]
    with pytest.raises(NotFound):
        mem.resolve_conflict("cf_missing", "keep-old")
    with pytest.raises(ValidationError):
        mem.resolve_conflict(conflict_id, "merge")


# --- 7. dedup and admission through the pipeline (rule extractor) -------------------------------


def test_deploy_v1_2_and_v1_3_never_merge(mem: Memory) -> None:
    first = mem.add("我们部署了 v1.2", session="ops")
    mem.clock.advance(timedelta(hours=1))
    second = mem.add("我们部署了 v1.3", session="ops")
    (a,) = mem.storage.claims_citing(first.id)
    (b,) = mem.storage.claims_citing(second.id)
    assert a != b
    claims = mem.storage.get_claims([a, b])
    assert (claims[a].value, claims[b].value) == ("v1.2", "v1.3")
    assert claims[a].evidence == (first.id,) and claims[b].evidence == (second.id,)  # no evidence merged
    assert logged(mem, ClaimCorroborated) == []
    assert claims[a].superseded_by == b  # a new version of one deployment, both kept in history
    # The same statement again is the same claim: the funnel does link equal evidence.
    mem.clock.advance(timedelta(hours=1))
    third = mem.add("我们部署了 v1.3", session="ops")
    assert mem.storage.claims_citing(third.id) == [b]
    assert len(logged(mem, ClaimAsserted)) == 2


def test_deploy_v1_2_and_v1_3_in_one_window_never_merge(mem: Memory) -> None:
    first = mem.add("我们部署了 v1.2", session="ops", process=False)
    mem.clock.advance(timedelta(seconds=30))
    second = mem.add("我们部署了 v1.3", session="ops", process=False)
    assert drain(mem) == 1
    assert logged(mem, ClaimCorroborated) == []
    values = {c.value for c in mem.history("用户", "version")}
    assert values == {"v1.2", "v1.3"}
    assert mem.storage.claims_citing(first.id) != mem.storage.claims_citing(second.id)


def test_deploy_v1_2_never_splits_the_version(mem: Memory) -> None:
    # A bare "部署 v1.2" names no subject: no claim is better than subject "v", version "1.2".
    result = mem.add("部署 v1.2", session="ops")
    for claim in mem.storage.get_claims(mem.storage.claims_citing(result.id)).values():
        assert claim.subject != "v" and claim.value == "v1.2"


SECRET = "sk-proj-Zq8vT3xLm2Nw9Rb4Kc7Yd1Hf"


def _cells_with(path: Path, needle: str) -> dict[str, int]:
    """Tables whose text cells contain ``needle``, with how many cells."""
    con = apsw.Connection(str(path), flags=apsw.SQLITE_OPEN_READONLY)
    try:
        tables = [r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type = 'table' "
                                            "AND name NOT LIKE 'items_fts%'")]
        found: dict[str, int] = {}
        for table in tables:
            n = sum(1 for row in con.execute(f'SELECT * FROM "{table}"') for cell in row
                    if (isinstance(cell, str) and needle in cell)
                    or (isinstance(cell, bytes) and needle.encode() in cell))
            if n:
                found[table] = n
        return found
    finally:
        con.close()


def _file_bytes(path: Path) -> bytes:
    return b"".join(Path(str(path) + s).read_bytes() for s in ("", "-wal") if Path(str(path) + s).exists())


def test_a_secret_never_becomes_a_claim_and_only_the_verbatim_event_holds_it(tmp_path: Path) -> None:
    """The rejection is logged by reason code; the secret lives only in the verbatim observation.

    The observation itself is always kept (the issue's rule), so the DB file holds the secret
    exactly as often as a store that recorded the same text without extracting it.
    """
    text = f"my api key is {SECRET}"  # a key the rules read (they leave a capitalised key alone)
    with open_memory(tmp_path / "m.db") as mem:
        result = mem.add(text, session="s1")
        assert mem.storage.claims_citing(result.id) == []
        (record,) = extractions_of(mem, result.id)
        assert record.claims == ()
        assert len(record.rejected) == 1
        label, reasons = record.rejected[0]
        assert reasons and all(r.startswith("admission.secret") for r in reasons)
        assert SECRET not in label
        for stored in mem.storage.read():
            if stored.event.stream_id != result.id:
                assert SECRET not in repr(stored.event)
        assert not mem.recall("API key", kinds=("claim",)).items
    with open_memory(tmp_path / "baseline.db") as base:
        base.add(text, session="s1", extract=False)
    assert _cells_with(tmp_path / "m.db", SECRET) == _cells_with(tmp_path / "baseline.db", SECRET) \
        == {"event_payloads": 1, "observations": 1}
    assert _file_bytes(tmp_path / "m.db").count(SECRET.encode()) \
        == _file_bytes(tmp_path / "baseline.db").count(SECRET.encode())


def test_a_password_is_rejected_with_its_reason_code(mem: Memory) -> None:
    result = mem.add("My password is hunter2", session="s1")
    assert mem.storage.claims_citing(result.id) == []
    (record,) = extractions_of(mem, result.id)
    assert [reasons for _, reasons in record.rejected] == [("admission.secret_credential",)]
    assert all("hunter2" not in label for label, _ in record.rejected)


def test_projections_equal_a_replay_after_the_pipeline(mem: Memory) -> None:
    mem.add("I live in Hangzhou", session="chat")
    mem.clock.advance(timedelta(hours=1))
    mem.add("I live in Beijing", session="notes", origin="agent")
    mem.add(f"my API key is {SECRET}", session="chat")
    mem.add("我们部署了 v1.2", session="ops", process=False)
    mem.run_worker()
    (conflict,) = mem.conflicts()
    mem.resolve_conflict(conflict.conflict_id, "keep-new")
    assert len(logged(mem, ConflictOpened)) == 1
    assert mem.replay().equal
