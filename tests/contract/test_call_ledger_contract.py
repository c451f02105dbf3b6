"""The LLM-call ledger's contract, run on every backend's ``calls`` (ADR 0074).

What a provider adapter needs (``record``, any thread, committed on its own) and what maintenance
needs (``prune``: at most ``limit`` rows recorded before ``before``, oldest first; ``dry_run``
counts), plus ``calls`` in order. On a store shared by processes, another process's backend sees
the rows; a record survives a store transaction that rolls back, and a prune rolls back with one.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from hlmem.adapters.llm.ledger import LLMCall
from hlmem.application.ports import CallLedger
from hlmem.application.ports.backend import Backend

T0 = datetime(2026, 12, 3, 10, 0, tzinfo=timezone.utc)


def call(n: int, *, job: str | None = None, at: datetime = T0, status: str = "ok") -> LLMCall:
    return LLMCall(call_id=f"c{n}", attempt=1, provider="local", model="m", operation="extract", job_id=job,
                   status=status, error_class=None if status == "ok" else "ProviderTimeout", http_status=200,
                   prompt_tokens=10 + n, completion_tokens=n, latency_ms=5, created_at=at, capability="chat",
                   items=None, cost=None if n % 2 else 0.25)


class CallLedgerContract:
    """Cases every backend's call ledger must pass; subclasses provide ``make_backend``."""

    @contextmanager
    def make_backend(self, tmp_path: Path) -> Iterator[Backend]:
        raise NotImplementedError

    @pytest.fixture
    def backend(self, tmp_path: Path) -> Iterator[Backend]:
        with self.make_backend(tmp_path) as backend:
            yield backend

    def test_it_satisfies_the_port(self, backend: Backend) -> None:
        assert isinstance(backend.calls, CallLedger) and callable(backend.calls.record)

    def test_records_come_back_in_order_and_by_job(self, backend: Backend) -> None:
        made = [call(0, job="jb1"), call(1), call(2, job="jb1", status="timeout")]
        for c in made:
            backend.calls.record(c)
        assert backend.calls.calls() == made
        assert backend.calls.calls("jb1") == [made[0], made[2]]
        assert backend.calls.calls("jb9") == []

    def test_prune_drops_the_oldest_before_the_cut_at_most_limit(self, backend: Backend) -> None:
        for n, minutes in enumerate([30, 10, 20, 50]):
            backend.calls.record(call(n, at=T0 + timedelta(minutes=minutes)))
        cut = T0 + timedelta(minutes=40)
        with backend.store.transaction():
            assert backend.calls.prune(before=cut, limit=10, dry_run=True) == 3
        with backend.store.transaction():
            assert backend.calls.prune(before=cut, limit=2) == 2
        assert [c.call_id for c in backend.calls.calls()] == ["c0", "c3"]  # c1 (10 min) and c2 (20 min) went
        with backend.store.transaction():
            assert backend.calls.prune(before=cut, limit=0) == 0
            assert backend.calls.prune(before=cut, limit=5) == 1
        assert [c.call_id for c in backend.calls.calls()] == ["c3"]

    def test_records_from_many_threads_all_arrive(self, backend: Backend) -> None:
        def record(k: int) -> None:
            for n in range(10):
                backend.calls.record(call(100 * k + n))

        threads = [threading.Thread(target=record, args=(k,)) for k in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert sorted(c.call_id for c in backend.calls.calls()) == sorted(f"c{100 * k + n}" for k in range(4)
                                                                          for n in range(10))


class TestInMemoryCallLedger(CallLedgerContract):
    @contextmanager
    def make_backend(self, tmp_path: Path) -> Iterator[Backend]:
        from hlmem.adapters.inmemory.backend import memory_backend

        backend = memory_backend()
        try:
            yield backend
        finally:
            backend.close()


class SharedStoreCases(CallLedgerContract):
    """What a store file or database adds: other processes' rows, and transactions."""

    def test_another_backend_of_the_store_sees_the_records(self, tmp_path: Path) -> None:
        with self.make_backend(tmp_path) as first, self.reopened(first) as second:
            first.calls.record(call(1))
            second.calls.record(call(2))
            assert [c.call_id for c in first.calls.calls()] == ["c1", "c2"]
            assert [c.call_id for c in second.calls.calls()] == ["c1", "c2"]

    def test_a_prune_rolls_back_with_the_store_transaction(self, backend: Backend) -> None:
        backend.calls.record(call(1))
        with pytest.raises(RuntimeError), backend.store.transaction():
            assert backend.calls.prune(before=T0 + timedelta(days=1), limit=10) == 1
            raise RuntimeError("undo")
        assert [c.call_id for c in backend.calls.calls()] == ["c1"]

    @contextmanager
    def reopened(self, backend: Backend) -> Iterator[Backend]:
        raise NotImplementedError


class TestSQLiteCallLedger(SharedStoreCases):
    @contextmanager
    def make_backend(self, tmp_path: Path) -> Iterator[Backend]:
        from hlmem.adapters.sqlite.backend import open_backend

        backend = open_backend(tmp_path / "calls.db")
        try:
            yield backend
        finally:
            backend.close()

    @contextmanager
    def reopened(self, backend: Backend) -> Iterator[Backend]:
        from hlmem.adapters.sqlite.backend import open_backend

        again = open_backend(backend.store.path)
        try:
            yield again
        finally:
            again.close()


class TestPostgresCallLedger(SharedStoreCases):
    @pytest.fixture(autouse=True)
    def _postgres_database(self, postgres_url: str) -> None:
        self.postgres_url = postgres_url

    @contextmanager
    def make_backend(self, tmp_path: Path) -> Iterator[Backend]:
        from hlmem.adapters.postgres.backend import open_backend

        backend = open_backend(self.postgres_url)
        try:
            yield backend
        finally:
            backend.close()

    @contextmanager
    def reopened(self, backend: Backend) -> Iterator[Backend]:
        with self.make_backend(Path()) as again:
            yield again

    # On SQLite a record waits for the file's write lock, which the open transaction holds: a
    # provider is never called inside one there. PostgreSQL has no such lock to wait for.
    def test_a_record_survives_a_store_transaction_that_rolls_back(self, backend: Backend) -> None:
        with pytest.raises(RuntimeError), backend.store.transaction():
            backend.calls.record(call(1))
            raise RuntimeError("the work failed")
        assert [c.call_id for c in backend.calls.calls()] == ["c1"]
