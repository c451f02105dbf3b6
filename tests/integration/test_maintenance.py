"""Lifecycle end to end on both adapters, with a fixed clock moved forward: TTL, decay, archive, revive,
bounded resumable passes, pruning of old job and LLM-ledger rows, the worker's schedule, replay."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from attrs import evolve

from hlmem import Memory
from hlmem.adapters.llm.ledger import LLMCall
from hlmem.application.maintenance import CURSOR_KEY
from hlmem.application.ports import StoredEvent
from hlmem.application.worker import WorkerConfig
from hlmem.domain.errors import ConfigurationError, DomainRuleViolation, NotFound
from hlmem.domain.events import ClaimArchived, ClaimExpired, ClaimRevived
from hlmem.domain.state import ClaimState, ClaimStatus

UTC = timezone.utc
NOW = "2026-03-02T09:00:00+08:00"  # a Monday morning in Beijing
T0 = datetime(2026, 3, 2, 1, 0, tzinfo=UTC)
DAY = timedelta(days=1)


@pytest.fixture(params=["memory", "sqlite"])
def mem(request, tmp_path: Path):
    path = ":memory:" if request.param == "memory" else tmp_path / "m.db"
    with Memory(path, embedder="hash", now=NOW) as m:
        yield m


def later(mem: Memory, delta: timedelta) -> None:
    mem.clock.advance(delta)  # type: ignore[attr-defined]


def claims_of(mem: Memory, event_id: str) -> list[ClaimState]:
    return list(mem.storage.get_claims(mem.storage.claims_citing(event_id)).values())


def only_claim(mem: Memory, text: str) -> ClaimState:
    found = claims_of(mem, mem.add(text).id)
    assert len(found) == 1, found
    return found[0]


def state(mem: Memory, claim_id: str) -> ClaimState:
    return mem.storage.get_claims([claim_id])[claim_id]


def recalled(mem: Memory, query: str, **kw) -> list[str]:
    return [i.id for i in mem.recall(query, kinds=("claim",), **kw).items]


def lifecycle_events(mem: Memory, claim_id: str) -> list[StoredEvent]:
    kinds = (ClaimExpired, ClaimArchived, ClaimRevived)
    return [s for s in mem.storage.read() if s.event.stream_id == claim_id and isinstance(s.event, kinds)]


# -- TTL ------------------------------------------------------------------------------------------


def test_a_plan_expires_after_its_day_and_stays_in_history(mem: Memory) -> None:
    plan = only_claim(mem, "明天下午三点开会")
    assert plan.predicate == "plan" and plan.status is ClaimStatus.ACTIVE
    later(mem, DAY)  # the meeting's day: it holds, nothing expires
    assert mem.maintain().expired == 0
    assert plan.claim_id in recalled(mem, "开会")
    later(mem, DAY)  # past the day's end
    report = mem.maintain()
    assert (report.expired, dict(report.reasons)) == (1, {"ttl.plan_passed": 1})
    after = state(mem, plan.claim_id)
    assert after.status is ClaimStatus.EXPIRED and after.valid_to == plan.valid_to
    assert plan.claim_id not in recalled(mem, "开会")
    assert plan.claim_id in recalled(mem, "开会", valid_at=plan.valid_from)  # what held then
    history = mem.history("用户", "plan")
    assert [(c.claim_id, c.status) for c in history] == [(plan.claim_id, ClaimStatus.EXPIRED)]
    event = lifecycle_events(mem, plan.claim_id)[0].event
    assert isinstance(event, ClaimExpired) and (event.actor, event.reason) == ("system", "ttl.plan_passed")
    assert mem.maintain().expired == 0  # idempotent


def test_this_week_in_berlin_expires_at_the_weeks_end(mem: Memory) -> None:
    plan = only_claim(mem, "This week I am in Berlin")
    assert plan.valid_to is not None
    mem.clock.set(plan.valid_to - timedelta(seconds=1))  # type: ignore[attr-defined]
    assert mem.maintain().expired == 0
    mem.clock.set(plan.valid_to)  # type: ignore[attr-defined]
    assert mem.maintain().expired == 1
    assert state(mem, plan.claim_id).status is ClaimStatus.EXPIRED


def test_a_temporary_fact_expires_after_its_ttl_and_a_permanent_one_never(mem: Memory) -> None:
    temp = only_claim(mem, "我暂时用浅色主题")
    name = only_claim(mem, "我的名字是王伟")
    assert dict(temp.qualifiers) == {"temporary": "暂时"} and temp.importance == 0.6
    later(mem, timedelta(days=15.4) - timedelta(minutes=1))  # TTL = 14 d × (0.5 + 0.6)
    assert mem.maintain().expired == 0
    later(mem, timedelta(minutes=1))
    report = mem.maintain()
    assert dict(report.reasons) == {"ttl.temporal_ttl": 1}
    assert state(mem, temp.claim_id).valid_to == T0 + timedelta(days=15.4)
    assert temp.claim_id not in recalled(mem, "主题")
    later(mem, 3650 * DAY)
    mem.maintain()
    kept = state(mem, name.claim_id)
    assert kept.status is ClaimStatus.ACTIVE and not kept.archived
    assert name.claim_id in recalled(mem, "名字")


# -- decay and archive ----------------------------------------------------------------------------


def test_an_unused_low_importance_claim_is_archived_after_decay_and_grace(mem: Memory) -> None:
    low = mem.remember("user", "favorite_snack", "pretzels", importance=0.2).id
    vectors = mem.stats()["vectors"]
    later(mem, 104 * DAY - timedelta(seconds=1))  # one half-life to the floor (90 d) + 14 d grace
    assert mem.maintain().archived == 0
    later(mem, timedelta(seconds=1))
    report = mem.maintain()
    assert (report.archived, dict(report.reasons)) == (1, {"decay.below_floor": 1})
    archived = state(mem, low)
    assert archived.archived and archived.status is ClaimStatus.ACTIVE and archived.importance == 0.2
    assert low not in recalled(mem, "favorite snack pretzels")
    assert mem.stats()["vectors"] == vectors - 1
    assert mem.explain(low).claim.archived
    assert [c.archived for c in mem.history("user", "favorite_snack")] == [True]
    event = lifecycle_events(mem, low)[0].event
    assert isinstance(event, ClaimArchived) and event.activation == pytest.approx(0.2 * 2 ** (-104 / 90), abs=1e-6)


@pytest.mark.parametrize("path", [":memory:", "file"])
def test_include_archived_finds_archived_claims_by_their_own_words(path: str, tmp_path: Path) -> None:
    with Memory(tmp_path / "t.db" if path == "file" else path, embedder="none", now=NOW) as mem:
        low = mem.remember("user", "favorite_snack", "pretzels", importance=0.05).id
        mem.remember("user", "lives_in", "Berlin")
        hike = mem.remember("用户", "likes", "爬山", importance=0.05).id
        later(mem, 20 * DAY)
        assert mem.maintain().archived == 2
        assert recalled(mem, "favorite snack pretzels") == []
        wide = mem.recall("favorite snack pretzels", include_archived=True, kinds=("claim",))
        assert [(i.id, i.archived, i.status) for i in wide.items] == [(low, True, "active")]
        assert recalled(mem, "我喜欢爬山吗", include_archived=True) == [hike]
        only_events = mem.recall("pretzels", include_archived=True, kinds=("event",))
        assert only_events.items == ()
        assert mem.explain(low).claim.archived  # still archived: a recall does not revive
        assert mem.storage.activity([low])[low].accesses == 1  # but it counts as an access


def test_include_archived_survives_the_similarity_floor() -> None:
    with Memory(":memory:", embedder="hash", now=NOW) as mem:
        low = mem.remember("user", "favorite_snack", "pretzels", importance=0.05).id
        later(mem, 20 * DAY)
        assert mem.maintain().archived == 1
        assert recalled(mem, "favorite snack pretzels", include_archived=True) == [low]


def test_access_keeps_a_claim_alive(mem: Memory) -> None:
    used = mem.remember("user", "favorite_snack", "pretzels", importance=0.2).id
    unused = mem.remember("user", "favorite_drink", "kvass", importance=0.2).id
    for _ in range(12):  # two years, recalled every two months
        later(mem, 60 * DAY)
        assert recalled(mem, "pretzels", k=1) == [used]  # the top item only: the other is never returned
        mem.maintain()
    assert not state(mem, used).archived
    assert state(mem, unused).archived
    activity = mem.storage.activity([used])[used]
    assert activity.accesses == 12 and activity.last_access == mem.clock.now()


def test_revive_on_explicit_lookup(mem: Memory) -> None:
    low = mem.remember("user", "favorite_snack", "pretzels", importance=0.2).id
    with pytest.raises(DomainRuleViolation, match="not archived"):
        mem.revive(low)
    with pytest.raises(NotFound):
        mem.revive("cl_missing")
    later(mem, 200 * DAY)
    assert mem.maintain().archived == 1
    result = mem.revive(low, reason="the user asked about snacks")
    assert result.outcome == "revived"
    assert low in recalled(mem, "favorite snack pretzels")
    event = lifecycle_events(mem, low)[-1].event
    assert isinstance(event, ClaimRevived) and (event.reason, event.actor) == ("the user asked about snacks", "user")
    assert mem.maintain().archived == 0  # revival counted as an access: the clock restarted
    later(mem, 104 * DAY)
    assert mem.maintain().archived == 0  # two accesses (revive, recall): half-life × (1 + ln 3)
    later(mem, 300 * DAY)
    assert mem.maintain().archived == 1


def test_revive_on_corroboration_by_remember_and_by_the_pipeline(mem: Memory) -> None:
    snack = mem.remember("user", "favorite_snack", "pretzels", importance=0.2).id
    hike = only_claim(mem, "我喜欢爬山")
    later(mem, 400 * DAY)
    assert mem.maintain().archived == 2
    again = mem.remember("User", "favorite_snack", "Pretzels", importance=0.2)
    assert (again.id, again.outcome) == (snack, "corroborated")
    assert not state(mem, snack).archived and snack in recalled(mem, "favorite snack pretzels")
    mem.add("我喜欢爬山")
    revived = state(mem, hike.claim_id)
    assert not revived.archived and len(revived.evidence) == 2
    assert hike.claim_id in recalled(mem, "爬山")
    reasons = [(s.event.reason, s.event.actor) for cid in (snack, hike.claim_id)
               for s in lifecycle_events(mem, cid) if isinstance(s.event, ClaimRevived)]
    assert reasons == [("corroborated", "system"), ("corroborated", "system")]


def test_history_shows_expired_and_archived_claims(mem: Memory) -> None:
    first = mem.remember("user", "plan", "dentist", valid_from="2026-03-03T09:00:00+08:00", importance=0.3).id
    second = mem.remember("user", "plan", "trip to Hangzhou", valid_from="2026-03-10T09:00:00+08:00").id
    later(mem, 5 * DAY)
    assert mem.maintain().expired == 1  # the dentist passed (start + 1 day of grace); the trip not yet
    later(mem, 200 * DAY)  # the trip expires too; the dentist (importance 0.3) fades: 90 d × log2(3) + 14 d
    report = mem.maintain()
    assert (report.expired, report.archived) == (1, 1)
    history = {c.claim_id: c for c in mem.history("user", "plan")}
    assert set(history) == {first, second}
    assert all(c.status is ClaimStatus.EXPIRED for c in history.values())
    assert history[first].archived
    assert mem.explain(first).claim.status is ClaimStatus.EXPIRED


# -- bounded passes -------------------------------------------------------------------------------


def test_bounded_passes_resume_where_they_stopped(mem: Memory) -> None:
    ids = [mem.remember("user", "favorite_snack", f"snack {n}", importance=0.05, cardinality="multi").id
           for n in range(25)]
    later(mem, 20 * DAY)
    seen = []
    for _ in range(10):
        report = mem.maintain(max_rows=10)
        seen.append((report.archived, report.complete))
        if report.complete:
            break
    assert seen == [(10, False), (10, False), (5, True)]
    assert all(state(mem, i).archived for i in ids)
    assert mem.maintain().archived == 0
    assert mem.storage.meta(CURSOR_KEY) == '["expire", ""]'


def test_a_pass_with_no_time_left_does_nothing_and_says_so(mem: Memory) -> None:
    mem.remember("user", "favorite_snack", "pretzels", importance=0.05)
    later(mem, 20 * DAY)
    report = mem.maintain(max_seconds=0)
    assert (report.touched, report.complete) == (0, False)
    assert mem.maintain().archived == 1


def test_dry_run_counts_without_writing(mem: Memory) -> None:
    only_claim(mem, "明天下午三点开会")
    mem.remember("user", "favorite_snack", "pretzels", importance=0.05)
    later(mem, 20 * DAY)
    before = mem.storage.last_position()
    report = mem.maintain(dry_run=True)
    # The plan expires, the snack is archived, the add's succeeded job (20 days old) goes.
    assert (report.expired, report.archived, report.jobs_pruned, report.dry_run) == (1, 1, 1, True)
    assert mem.storage.last_position() == before and mem.storage.meta(CURSOR_KEY) is None
    assert mem.jobs.job_counts()["extract"] == {"succeeded": 1}
    assert mem.maintain().touched == 3


# -- pruning --------------------------------------------------------------------------------------


def _ledger(mem: Memory):
    return mem._container.call_ledger()


def _call(n: int, at: datetime) -> LLMCall:
    return LLMCall(call_id=f"call{n}", attempt=1, provider="test", model="m", operation="extract", job_id=None,
                   status="ok", error_class=None, http_status=200, prompt_tokens=1, completion_tokens=1,
                   latency_ms=5, created_at=at)


def test_old_jobs_and_ledger_rows_are_pruned(mem: Memory) -> None:
    for n in range(3):
        mem.add(f"第{n}条记录：今天天气不错")  # one succeeded extraction job each
    mem.add("稍后再处理", process=False)       # a pending job: never pruned
    queue = mem.jobs
    dead_id = queue.enqueue(kind="extract", idempotency_key="k-dead", namespace="default", session_id="s",
                            payload={"event_id": "ev_none"}, now=mem.clock.now(), max_attempts=1)
    jobs = queue.claim_window(kind="extract", owner="w", now=mem.clock.now(), lease_seconds=60, size=10,
                              max_wait_seconds=0, flush=True, session_id="s")
    queue.fail([j.job_id for j in jobs], owner="w", now=mem.clock.now(), error="boom", error_class="X",
               retry_at=None)
    ledger = _ledger(mem)
    for n in range(5):
        ledger.record(_call(n, mem.clock.now() - (100 - n) * DAY))
    ledger.record(_call(9, mem.clock.now()))
    counts = queue.job_counts()["extract"]
    assert (counts["succeeded"], counts["dead"], counts["pending"]) == (3, 1, 1)

    report = mem.maintain()
    assert (report.jobs_pruned, report.ledger_pruned) == (0, 5)  # jobs are too young; 5 ledger rows are old
    later(mem, 8 * DAY)
    assert mem.maintain().jobs_pruned == 3
    assert queue.job_counts()["extract"] == {"dead": 1, "pending": 1}
    later(mem, 23 * DAY)
    assert mem.maintain().jobs_pruned == 1
    assert [j.job_id for j in queue.jobs(state="dead")] == []
    assert dead_id not in {j.job_id for j in queue.jobs()}
    assert queue.job_counts()["extract"] == {"pending": 1}
    later(mem, 90 * DAY)
    assert mem.maintain().ledger_pruned == 1


def test_pruning_is_bounded_per_pass(mem: Memory) -> None:
    ledger = _ledger(mem)
    for n in range(30):
        ledger.record(_call(n, mem.clock.now() - 200 * DAY))
    first = mem.maintain(max_rows=12)
    assert (first.ledger_pruned, first.complete) == (12, False)
    assert mem.maintain(dry_run=True).ledger_pruned == 18
    assert mem.maintain().ledger_pruned == 18


# -- configuration, worker schedule ---------------------------------------------------------------


def test_thresholds_are_configuration(tmp_path: Path) -> None:
    with Memory(":memory:", embedder="none", now=NOW, lifecycle={"temporal_ttl": "2d"},
                maintenance={"ledger_retention": "1d"}) as mem:
        only_claim(mem, "我暂时用浅色主题")
        later(mem, timedelta(days=2.2))  # 2 d × 1.1
        assert mem.maintain().expired == 1
        assert mem.lifecycle.temporal_ttl == 2 * DAY
    with pytest.raises(ConfigurationError):
        Memory(":memory:", embedder="none", lifecycle={"activation_floor": 2})
    with pytest.raises(ConfigurationError):
        Memory(":memory:", embedder="none", maintenance={"batch_size": 0})


def test_the_worker_runs_maintenance_on_its_schedule(mem: Memory) -> None:
    worker = mem._container.worker()
    mem.remember("user", "favorite_snack", "pretzels", importance=0.05)
    first = worker.maintain_if_due()
    assert first is not None and first.complete
    assert worker.maintain_if_due() is None  # not due again for an hour
    later(mem, 20 * DAY)
    report = worker.maintain_if_due()
    assert report is not None and report.archived == 1
    assert worker.stats.maintenance_passes == 2
    worker.config.maintenance_interval_seconds = 0  # off
    later(mem, 20 * DAY)
    assert worker.maintain_if_due() is None


def test_an_incomplete_pass_leaves_the_next_one_due_at_once(mem: Memory) -> None:
    worker = mem._container.worker()
    for n in range(5):
        mem.remember("user", "favorite_snack", f"snack {n}", importance=0.05, cardinality="multi")
    later(mem, 20 * DAY)
    service = mem._container.maintenance()
    service.config = evolve(service.config, max_rows=2)
    archived = []
    while (report := worker.maintain_if_due()) is not None:
        archived.append(report.archived)
        if report.complete:
            break
    assert archived == [2, 2, 1]


def test_the_run_loop_calls_maintenance_between_windows(mem: Memory) -> None:
    worker = mem._container.worker()
    worker._sleep = lambda _s: worker.stop_event.set()  # stop at the first idle moment
    worker.run()
    assert worker.stats.maintenance_passes == 1


def test_worker_config_validates_the_interval() -> None:
    assert WorkerConfig().maintenance_interval_seconds == 3600
    with pytest.raises(ConfigurationError):
        WorkerConfig(maintenance_interval_seconds=-1)


# -- replay ---------------------------------------------------------------------------------------


def test_replay_reproduces_expired_archived_and_revived_claims(tmp_path: Path) -> None:
    with Memory(tmp_path / "r.db", embedder="hash", now=NOW) as mem:
        only_claim(mem, "明天下午三点开会")
        low = mem.remember("user", "favorite_snack", "pretzels", importance=0.05).id
        gone = mem.remember("user", "favorite_drink", "kvass", importance=0.05).id
        later(mem, 20 * DAY)
        report = mem.maintain()
        assert (report.expired, report.archived) == (1, 2)  # the plan expires; snack and drink are archived
        mem.revive(low)
        report = mem.replay(into=tmp_path / "copy.db")
        assert report.equal, report.differences
    with Memory(tmp_path / "copy.db", embedder="hash", now=NOW) as copy:
        assert low in recalled(copy, "favorite snack pretzels")
        assert gone not in recalled(copy, "favorite drink kvass")


def test_replay_reindexes_a_claim_revived_in_a_later_batch(tmp_path: Path) -> None:
    """The revival's index entry comes from the rebuilt store's state when the assertion was
    appended in an earlier batch (replay's ``_returning``)."""
    from hlmem.application import replay as replay_module

    with Memory(tmp_path / "r.db", embedder="hash", now=NOW) as mem:
        low = mem.remember("user", "favorite_snack", "pretzels", importance=0.05).id
        for n in range(5):
            mem.add(f"note {n}", extract=False)
        later(mem, 20 * DAY)
        mem.maintain()
        mem.revive(low)
        old = replay_module.BATCH
        replay_module.BATCH = 3  # the assertion and the revival land in different batches
        try:
            report = mem.replay(into=tmp_path / "copy.db")
        finally:
            replay_module.BATCH = old
        assert report.equal, report.differences
    with Memory(tmp_path / "copy.db", embedder="hash", now=NOW) as copy:
        assert low in recalled(copy, "favorite snack pretzels")
