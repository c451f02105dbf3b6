"""The JobQueue port's window rule, written once and run against both adapters (ADR 0013).

A session's window is ready when it holds ``size`` ready jobs, when its newest ready job is
``idle_seconds`` old (the conversation paused), when its oldest has waited ``max_wait_seconds``,
or at once with ``flush``. ``JobQueueContract`` holds the cases as a table; each adapter
subclasses it once with a ``make_queue`` factory; a Hypothesis property checks the two agree.
"""

from __future__ import annotations

import tempfile
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest
from attrs import frozen
from hypothesis import given
from hypothesis import strategies as st

from hlmem.adapters.ids import SequentialIds
from hlmem.adapters.inmemory.store import InMemoryStorage
from hlmem.adapters.inmemory.jobs import InMemoryJobQueue
from hlmem.adapters.sqlite.jobs import SQLiteJobQueue
from hlmem.adapters.sqlite.store import SQLiteStorage
from hlmem.application.ports import JobQueue

T0 = datetime(2026, 3, 1, 9, 30, tzinfo=timezone.utc)
KIND = "extract"
#: The worker's defaults (WorkerConfig): 8 events, 120 s idle, 600 s oldest.
DEFAULTS = {"size": 8, "idle_seconds": 120.0, "max_wait_seconds": 600.0}


@frozen
class Arrival:
    """One enqueued job: its session and when (seconds after T0) it arrived."""

    session: str
    at: float
    namespace: str = "default"


def arrivals(session: str, *times: float, namespace: str = "default") -> list[Arrival]:
    return [Arrival(session, t, namespace) for t in times]


def enqueue_all(queue: JobQueue, jobs: Sequence[Arrival]) -> None:
    """Enqueue in arrival order; each job's payload names its index in ``jobs``."""
    for i, job in sorted(enumerate(jobs), key=lambda p: (p[1].at, p[0])):
        queue.enqueue(kind=KIND, idempotency_key=f"k{i}", namespace=job.namespace, session_id=job.session,
                      payload={"i": i}, now=T0 + timedelta(seconds=job.at))


def claim(queue: JobQueue, now: float, **kwargs: Any) -> list[int]:
    """Claim one window at ``now`` (seconds after T0); the indices of the jobs it holds, in order."""
    params = DEFAULTS | kwargs
    taken = queue.claim_window(kind=KIND, owner="w", now=T0 + timedelta(seconds=now), lease_seconds=300, **params)
    return [int(j.payload["i"]) for j in taken]


#: (case, jobs, claim at, claim_window overrides, expected job indices)
WINDOWS: list[tuple[str, list[Arrival], float, dict[str, Any], list[int]]] = [
    ("full window", arrivals("s1", *range(8)), 7, {}, list(range(8))),
    ("a full window takes the oldest size jobs", arrivals("s1", *range(10)), 9, {}, list(range(8))),
    ("not ready: partial, recent, young", arrivals("s1", 0, 10, 20), 30, {}, []),
    ("idle flush: 120 s after the newest event", arrivals("s1", 0, 10, 20), 140, {}, [0, 1, 2]),
    ("idle boundary: 1 us short", arrivals("s1", 0, 10, 20), 139.999999, {}, []),
    ("a new event keeps the window open", arrivals("s1", 0, 100, 200), 250, {}, []),
    ("max-age flush: the oldest waited 600 s", arrivals("s1", 0, 100, 200, 300, 400, 500), 600, {},
     [0, 1, 2, 3, 4, 5]),
    ("max-age boundary: 1 s short", arrivals("s1", 0, 100, 200, 300, 400, 500), 599, {}, []),
    ("flush flag takes a partial window at once", arrivals("s1", 0), 0, {"flush": True}, [0]),
    ("flush still caps at size", arrivals("s1", *range(10)), 9, {"flush": True}, list(range(8))),
    ("idle rule off (None): only size and age", arrivals("s1", 0, 10, 20), 500, {"idle_seconds": None}, []),
    ("idle rule off (None): age still closes", arrivals("s1", 0, 10, 20), 600, {"idle_seconds": None}, [0, 1, 2]),
    ("zero idle: ready at once", arrivals("s1", 0, 1), 1, {"idle_seconds": 0}, [0, 1]),
    ("infinite waits: only size", arrivals("s1", 0, 1), 10**7,
     {"idle_seconds": float("inf"), "max_wait_seconds": float("inf")}, []),
    ("smaller size", arrivals("s1", 0, 1, 2), 2, {"size": 3}, [0, 1, 2]),
    ("oldest session first", arrivals("s1", 10, 11) + arrivals("s2", 0, 1), 200, {}, [2, 3]),
    ("idleness is per session", arrivals("s1", 0, 10, 20) + arrivals("s2", 150), 150, {}, [0, 1, 2]),
    ("sessions never mix in one window", [Arrival("s1", 0), Arrival("s2", 1), Arrival("s1", 2), Arrival("s2", 3)],
     200, {}, [0, 2]),
    ("session filter picks that session", arrivals("s1", 0, 1) + arrivals("s2", 50, 51), 200,
     {"session_id": "s2"}, [2, 3]),
    ("session filter: not ready while another session is", arrivals("s1", *range(8)) + arrivals("s2", 5), 7,
     {"session_id": "s2"}, []),
    ("session filter with flush", arrivals("s1", *range(8)) + arrivals("s2", 5), 7,
     {"session_id": "s2", "flush": True}, [8]),
    ("namespace filter", arrivals("s1", 0, namespace="a") + arrivals("s1", 5, namespace="b"), 200,
     {"namespace": "b"}, [1]),
    ("namespace and session filter", arrivals("s1", 0, namespace="a") + arrivals("s2", 1, namespace="a")
     + arrivals("s2", 2, namespace="b"), 2, {"namespace": "a", "session_id": "s2", "flush": True}, [1]),
    ("a filter with nothing ready", arrivals("s1", 0), 0, {"session_id": "nobody", "flush": True}, []),
]


class JobQueueContract:
    """Cases every JobQueue adapter must pass; subclasses provide ``make_queue``."""

    @contextmanager
    def make_queue(self, tmp_path: Path) -> Iterator[JobQueue]:
        raise NotImplementedError

    @pytest.fixture
    def queue(self, tmp_path: Path) -> Iterator[JobQueue]:
        with self.make_queue(tmp_path) as queue:
            yield queue

    @pytest.mark.parametrize(("jobs", "now", "kwargs", "expected"), [w[1:] for w in WINDOWS],
                             ids=[w[0] for w in WINDOWS])
    def test_window_readiness(self, queue: JobQueue, jobs: list[Arrival], now: float, kwargs: dict[str, Any],
                              expected: list[int]) -> None:
        enqueue_all(queue, jobs)
        assert claim(queue, now, **kwargs) == expected

    def test_claimed_jobs_are_leased_and_the_rest_wait_for_their_own_rule(self, queue: JobQueue) -> None:
        enqueue_all(queue, arrivals("s1", *range(10)))
        assert claim(queue, 9) == list(range(8))
        assert claim(queue, 9) == []  # two left, the newest 0 s old
        assert claim(queue, 128.999) == []
        assert claim(queue, 129) == [8, 9]  # idle: 120 s after the newest
        running = [j for j in queue.jobs(limit=100) if j.state == "running"]
        assert len(running) == 10 and all(j.attempts == 1 and j.lease_owner == "w" for j in running)

    def test_a_failed_job_is_ready_by_age_once_its_backoff_passed(self, queue: JobQueue) -> None:
        enqueue_all(queue, arrivals("s1", 0))
        (job,) = queue.claim_window(kind=KIND, owner="w", now=T0, lease_seconds=300, flush=True, **DEFAULTS)
        queue.fail([job.job_id], owner="w", now=T0, error="boom", error_class="ProviderUnavailable",
                   retry_at=T0 + timedelta(seconds=5))
        assert claim(queue, 4) == []  # backoff not over
        assert claim(queue, 5) == []  # over, but the session's newest job is only 5 s old
        assert claim(queue, 120) == [0]  # idle

    def test_an_expired_lease_is_ready_again_by_the_same_rule(self, queue: JobQueue) -> None:
        enqueue_all(queue, arrivals("s1", *range(8)))
        assert claim(queue, 7) == list(range(8))
        assert claim(queue, 307) == []  # lease_until = 307 s: not yet expired
        assert claim(queue, 307.000001) == list(range(8))


    def test_a_deferred_job_waits_until_then_keeps_its_attempts(self, queue: JobQueue) -> None:
        enqueue_all(queue, arrivals("s1", 0))
        (job,) = queue.claim_window(kind=KIND, owner="w", now=T0, lease_seconds=300, flush=True, **DEFAULTS)
        assert job.attempts == 1
        until = T0 + timedelta(hours=3)
        queue.defer([job.job_id], owner="w", now=T0, until=until, reason="waiting for the budget",
                    reason_class="BudgetExceeded")
        (waiting,) = queue.jobs()
        assert (waiting.state, waiting.attempts, waiting.available_at, waiting.lease_owner) == (
            "pending", 0, until, None)
        assert (waiting.last_error, waiting.last_error_class) == ("waiting for the budget", "BudgetExceeded")
        assert claim(queue, 3 * 3600 - 1, flush=True) == []
        assert claim(queue, 3 * 3600, flush=True) == [0]

    def test_deferring_never_makes_a_job_dead(self, queue: JobQueue) -> None:
        queue.enqueue(kind=KIND, idempotency_key="k0", namespace="default", session_id="s1", payload={"i": 0},
                      now=T0, max_attempts=1)
        for n in range(3):
            at = T0 + timedelta(hours=n)
            (job,) = queue.claim_window(kind=KIND, owner="w", now=at, lease_seconds=300, flush=True, **DEFAULTS)
            queue.defer([job.job_id], owner="w", now=at, until=at + timedelta(hours=1), reason="budget",
                        reason_class="BudgetExceeded")
        (job,) = queue.jobs()
        assert (job.state, job.attempts) == ("pending", 0)

    def test_defer_leaves_a_job_whose_lease_was_lost_alone(self, queue: JobQueue) -> None:
        enqueue_all(queue, arrivals("s1", 0))
        (job,) = queue.claim_window(kind=KIND, owner="w", now=T0, lease_seconds=300, flush=True, **DEFAULTS)
        queue.defer([job.job_id], owner="someone-else", now=T0, until=T0 + timedelta(hours=1), reason="x",
                    reason_class="BudgetExceeded")
        (still,) = queue.jobs()
        assert (still.state, still.lease_owner, still.attempts) == ("running", "w", 1)


class TestInMemoryJobQueue(JobQueueContract):
    @contextmanager
    def make_queue(self, tmp_path: Path) -> Iterator[JobQueue]:
        yield InMemoryJobQueue(InMemoryStorage(), SequentialIds().new)


class TestSQLiteJobQueue(JobQueueContract):
    @contextmanager
    def make_queue(self, tmp_path: Path) -> Iterator[JobQueue]:
        store = SQLiteStorage(tmp_path / "jobs.db", synchronous="OFF")
        try:
            yield SQLiteJobQueue(store.db, SequentialIds().new)
        finally:
            store.close()


# --- agreement between the adapters --------------------------------------------------------------

_ARRIVAL = st.builds(Arrival, st.sampled_from(["s1", "s2", "s3"]), st.integers(0, 900).map(float),
                     st.sampled_from(["default", "other"]))
_CLAIM = st.fixed_dictionaries({
    "size": st.integers(1, 9),
    "idle_seconds": st.sampled_from([None, 0.0, 60.0, 120.0, float("inf")]),
    "max_wait_seconds": st.sampled_from([0.0, 300.0, 600.0, float("inf")]),
    "flush": st.booleans(),
    "namespace": st.sampled_from([None, "default", "other"]),
    "session_id": st.sampled_from([None, "s1", "s2"]),
})


@given(jobs=st.lists(_ARRIVAL, max_size=14), claims=st.lists(st.tuples(st.integers(0, 1800), _CLAIM), max_size=4))
def test_the_sqlite_and_in_memory_queues_claim_the_same_windows(jobs: list[Arrival],
                                                                claims: list[tuple[int, dict[str, Any]]]) -> None:
    with tempfile.TemporaryDirectory(prefix="hlmem-jobs-") as tmp:
        store = SQLiteStorage(Path(tmp) / "jobs.db", synchronous="OFF")
        try:
            queues = [InMemoryJobQueue(InMemoryStorage(), SequentialIds().new),
                      SQLiteJobQueue(store.db, SequentialIds().new)]
            for queue in queues:
                enqueue_all(queue, jobs)
            for now, kwargs in sorted(claims, key=lambda c: c[0]):
                memory, sqlite = (claim(q, now, **kwargs) for q in queues)
                assert memory == sqlite, (now, kwargs)
        finally:
            store.close()


# --- PostgreSQL (adapters/postgres/, issue 18) -------------------------------------------------------


class TestPostgresJobQueue(JobQueueContract):
    @pytest.fixture(autouse=True)
    def _postgres_database(self, postgres_url: str) -> None:
        self.postgres_url = postgres_url

    @contextmanager
    def make_queue(self, tmp_path: Path) -> Iterator[JobQueue]:
        from hlmem.adapters.postgres.jobs import PostgresJobQueue
        from hlmem.adapters.postgres.store import PostgresStorage

        store = PostgresStorage(self.postgres_url)
        try:
            yield PostgresJobQueue(store.db, SequentialIds().new)
        finally:
            store.close()
