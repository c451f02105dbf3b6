"""Memory.close closes what the Memory opened: its LLM and reranker HTTP clients, the LLM ledger's
own connection, then the store; objects passed in stay the caller's."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import apsw
import pytest

from hlmem.adapters.memory_api import Memory

LLM = {"provider": "local", "base_url": "http://127.0.0.1:9/v1", "model": "m", "max_retries": 0}
RERANK = {"provider": "local", "base_url": "http://127.0.0.1:9/v1", "model": "r"}


def test_close_closes_the_clients_and_the_ledger_this_memory_made(tmp_path: Path) -> None:
    mem = Memory(tmp_path / "m.db", embedder="none", llm=LLM, rerank=RERANK)
    llm, reranker, ledger = mem._container.llm(), mem._container.reranker(), mem._container.ledger()
    assert not llm._client.is_closed and not reranker._client.is_closed
    assert ledger.calls() == []  # its own connection opens at first use (ADR 0074)
    mem.close()
    assert llm._client.is_closed and reranker._client.is_closed
    with pytest.raises(apsw.ConnectionClosedError):
        ledger._con.execute("SELECT 1")
    with pytest.raises(apsw.ConnectionClosedError):
        mem.storage.connection.execute("SELECT 1")


def test_a_ledger_never_used_opens_nothing_and_is_closed_for_good(tmp_path: Path) -> None:
    from hlmem.domain.errors import StorageError

    mem = Memory(tmp_path / "m.db", embedder="none")
    ledger, budget = mem._container.ledger(), mem._container.backend().budget
    assert not ledger._own.opened and not budget._own.opened
    mem.close()
    with pytest.raises(StorageError, match="the LLM ledger is closed"):
        ledger.calls()
    with pytest.raises(StorageError, match="the budget ledger is closed"):
        budget.spent(date(2026, 1, 1))


def test_objects_passed_in_are_left_open_and_unused_clients_never_made(tmp_path: Path) -> None:
    class Reranker:
        closed = False

        def rerank(self, query, documents, top_n):  # pragma: no cover - not called here
            return list(range(len(documents)))

        def close(self) -> None:
            self.closed = True

    mine = Reranker()
    with Memory(tmp_path / "m.db", embedder="none", rerank=mine) as mem:
        assert mem._container.owned() == []
    assert not mine.closed
