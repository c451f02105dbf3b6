"""The daily budget end to end against a real OpenAI-compatible server on 127.0.0.1 that reports usage (ADR 0034).

Limits reached mid-batch (the first calls go, the next is refused before it is sent, its job
deferred with its attempts intact, nothing lost, and the next UTC day finishes it); an unknown
cost refused under a finite cost limit; a retry is another request; a reservation left open by
another process holds the budget until it expires; the ledger records capability, items and
cost. Time moves through the store's ``FixedClock``; adapter retries are off unless a test is
about them.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from datetime import date, datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest

_TESTS = str(Path(__file__).resolve().parents[1])
if _TESTS not in sys.path:  # tests/ has no __init__.py: make tests/support importable in any import mode
    sys.path.insert(0, _TESTS)

from support.llm_server import ScriptedLLMServer, completion, error  # noqa: E402
from support.rerank_server import cohere_answer  # noqa: E402

from hlmem import Memory  # noqa: E402
from hlmem.adapters.budget import budget_guard  # noqa: E402
from hlmem.adapters.inmemory.budget import InMemoryBudgetLedger  # noqa: E402
from hlmem.adapters.clock import FixedClock  # noqa: E402
from hlmem.adapters.llm.ledger import InMemoryLedger  # noqa: E402
from hlmem.adapters.rerank.config import RerankConfig  # noqa: E402
from hlmem.adapters.rerank.http import HTTPReranker  # noqa: E402
from hlmem.adapters.settings import Settings  # noqa: E402
from hlmem.adapters.settings_sections import budget_settings  # noqa: E402
from hlmem.adapters.sqlite.budget import SQLiteBudgetLedger  # noqa: E402
from hlmem.domain.budget import BudgetLimits, Charge  # noqa: E402
from hlmem.domain.errors import BudgetExceeded, ConfigurationError, ProviderUnavailable  # noqa: E402
from hlmem.domain.events import ExtractionRecorded  # noqa: E402

T0 = datetime(2026, 12, 3, 9, 30, tzinfo=timezone.utc)
MIDNIGHT = datetime(2026, 12, 4, tzinfo=timezone.utc)
MODEL = "scripted-model"
RATE = {"provider": "local", "model": MODEL, "capability": "chat", "input_per_1m": 2.0, "output_per_1m": 8.0,
        "per_request": 0.001}


@pytest.fixture
def server() -> Iterator[ScriptedLLMServer]:
    with ScriptedLLMServer() as srv:
        yield srv


def price_book(tmp_path: Path, *rates: dict[str, Any]) -> str:
    path = tmp_path / "prices.json"
    path.write_text(json.dumps({"version": 1, "currency": "USD", "effective": "2026-12-01", "rates": list(rates)}),
                    encoding="utf-8")
    return str(path)


def open_memory(path: Path, server: ScriptedLLMServer, budget: dict[str, Any], **llm: Any) -> Memory:
    settings = {"provider": "local", "base_url": server.base_url, "model": MODEL, "max_retries": 0,
                "timeout_s": 5.0, "max_tokens": 256, **llm}
    return Memory(path, embedder="none", now=T0, llm=settings, settings=Settings.from_mapping({"budget": budget}))


def lives_in(city: str) -> Any:
    return completion({"claims": [{
        "event": 1, "subject": "user", "predicate": "lives_in", "value": city, "qualifiers": [], "polarity": True,
        "importance": 0.8, "scope": "permanent", "valid_from": None, "valid_to": None,
        "evidence_quote": f"I live in {city}"}]}, prompt_tokens=120, completion_tokens=30)


def add_sessions(mem: Memory, *cities: str) -> list[str]:
    """One event per session, left for the worker (one window, one LLM call, each)."""
    return [mem.add(f"I live in {city}", session=f"s{i}", process=False).id for i, city in enumerate(cities)]


def extracted(mem: Memory) -> set[str]:
    """The events an extraction was recorded for."""
    return {e for s in mem.storage.read() if isinstance(s.event, ExtractionRecorded) for e in s.event.source_events}


def job_of(mem: Memory, event_id: str):
    (job,) = [j for j in mem.jobs.jobs(limit=1000) if j.payload["event_id"] == event_id]
    return job


def test_limits_reached_mid_batch_defer_the_rest_and_the_next_day_finishes_it(tmp_path: Path,
                                                                           server: ScriptedLLMServer) -> None:
    with open_memory(tmp_path / "m.db", server, {"requests_per_day": 2}) as mem:
        events = add_sessions(mem, "Paris", "Oslo", "Lima")
        server.script(lives_in("Paris"), lives_in("Oslo"), lives_in("Lima"))
        stats = mem.run_worker()
        assert len(server.requests) == 2  # the third call was refused before it was sent
        assert (stats.jobs_succeeded, stats.jobs_deferred, stats.jobs_failed) == (2, 1, 0)
        waiting = job_of(mem, events[2])
        assert (waiting.state, waiting.attempts, waiting.available_at) == ("pending", 0, MIDNIGHT)
        assert waiting.last_error_class == "BudgetExceeded"
        assert "waiting for the budget until 2026-12-04" in waiting.last_error
        assert "requests_per_day" in waiting.last_error
        assert extracted(mem) == set(events[:2])
        totals = mem._container.budget().totals()
        assert (totals.spent.requests, totals.spent.tokens, totals.reserved.requests) == (2, 300, 0)

        mem.clock.set(MIDNIGHT - timedelta(microseconds=1))
        assert mem.run_worker().jobs_deferred == 1 and len(server.requests) == 2  # not before the reset
        mem.clock.set(MIDNIGHT)
        assert mem.run_worker().jobs_succeeded == 3  # stats add up per worker
        assert len(server.requests) == 3
        assert job_of(mem, events[2]).state == "succeeded" and extracted(mem) == set(events)
        calls = mem._container.ledger().calls()
        assert [(c.status, c.capability, c.prompt_tokens, c.completion_tokens) for c in calls] == [
            ("ok", "chat", 120, 30)] * 3


def test_a_job_deferred_by_the_budget_never_dies(tmp_path: Path, server: ScriptedLLMServer) -> None:
    with open_memory(tmp_path / "m.db", server, {"requests_per_day": 0}) as mem:
        (event,) = add_sessions(mem, "Paris")
        for day in range(8):  # more days than the job's five attempts
            mem.clock.set(T0 + timedelta(days=day))
            mem.run_worker()
        assert server.requests == []
        job = job_of(mem, event)
        assert (job.state, job.attempts) == ("pending", 0)


def test_with_a_cost_limit_and_no_rate_nothing_is_sent(tmp_path: Path, server: ScriptedLLMServer) -> None:
    book = price_book(tmp_path, {**RATE, "model": "another-model"})
    with open_memory(tmp_path / "m.db", server, {"cost_per_day": 5.0, "price_book": book}) as mem:
        (event,) = add_sessions(mem, "Paris")
        assert mem.run_worker().jobs_deferred == 1
        assert server.requests == []
        job = job_of(mem, event)
        assert job.state == "pending" and "cannot be estimated" in job.last_error
    with open_memory(tmp_path / "n.db", server, {"cost_per_day": 5.0}) as mem:  # no price book at all
        add_sessions(mem, "Paris")
        assert mem.run_worker().jobs_deferred == 1 and server.requests == []


def test_with_a_rate_the_call_goes_and_its_actual_cost_is_recorded(tmp_path: Path,
                                                                   server: ScriptedLLMServer) -> None:
    book = price_book(tmp_path, RATE)
    with open_memory(tmp_path / "m.db", server, {"cost_per_day": 5.0, "price_book": book}) as mem:
        add_sessions(mem, "Paris")
        server.script(lives_in("Paris"))
        assert mem.run_worker().jobs_succeeded == 1
        (call,) = mem._container.ledger().calls()
        expected = 120 * 2.0 / 1e6 + 30 * 8.0 / 1e6 + 0.001
        assert call.cost == pytest.approx(expected) and call.capability == "chat" and call.items is None
        assert mem._container.budget().totals().spent.cost == pytest.approx(expected)


def test_a_cost_limit_stops_calls_whose_estimate_would_pass_it(tmp_path: Path, server: ScriptedLLMServer) -> None:
    # Output tokens and requests priced only: a call reserves 256 * 8e-6 + 0.001 = 0.003048 (completion
    # at max_tokens) and settles at its usage, 30 * 8e-6 + 0.001 = 0.00124. Under 0.006 three calls go
    # (0.00372 spent); the fourth would reach 0.006768 and waits, with the fifth, for the next day.
    book = price_book(tmp_path, {**RATE, "input_per_1m": 0.0})
    with open_memory(tmp_path / "m.db", server, {"cost_per_day": 0.006, "price_book": book}) as mem:
        add_sessions(mem, "Paris", "Oslo", "Lima", "Rome", "Kyiv")
        server.script(*(lives_in(c) for c in ("Paris", "Oslo", "Lima", "Rome", "Kyiv")))
        stats = mem.run_worker()
        assert (stats.jobs_succeeded, stats.jobs_deferred, len(server.requests)) == (3, 2, 3)
        spent = mem._container.budget().totals().spent
        assert spent.requests == 3 and spent.cost == pytest.approx(3 * 0.00124)
        mem.clock.set(MIDNIGHT)
        assert mem.run_worker().jobs_succeeded == 5


def test_a_retry_is_another_request(tmp_path: Path, server: ScriptedLLMServer) -> None:
    with open_memory(tmp_path / "m.db", server, {"requests_per_day": 1}, max_retries=1, backoff_base_s=0.001,
                     backoff_max_s=0.001) as mem:
        (event,) = add_sessions(mem, "Paris")
        server.script(error(503, "busy"), lives_in("Paris"))
        assert mem.run_worker().jobs_deferred == 1
        assert len(server.requests) == 1  # the retry was refused
        assert job_of(mem, event).attempts == 0
        # The 503 carried no usage: it settled at its estimate (a provider may bill what it never answered).
        totals = mem._container.budget().totals()
        assert totals.spent.requests == 1 and totals.spent.tokens > 256
        (call,) = mem._container.ledger().calls()
        assert call.status == "unavailable"


def test_a_reservation_left_open_by_a_dead_process_holds_the_budget_until_it_expires(
        tmp_path: Path, server: ScriptedLLMServer) -> None:
    path = tmp_path / "m.db"
    with open_memory(path, server, {"requests_per_day": 1, "reservation_ttl_s": 600}) as mem:
        (event,) = add_sessions(mem, "Paris")
        other = SQLiteBudgetLedger.open(path)  # another process's connection: it reserves, then dies
        other.reserve(Charge(tokens=10), limits=BudgetLimits(requests_per_day=1), now=T0,
                      expires_at=T0 + timedelta(seconds=600), what="local:m chat crashed")
        other.close()
        server.script(lives_in("Paris"))
        assert mem.run_worker().jobs_deferred == 1 and server.requests == []
        job = job_of(mem, event)
        assert job.available_at == T0 + timedelta(seconds=600)  # the expiry, not midnight
        mem.clock.set(T0 + timedelta(seconds=600))
        assert mem.run_worker().jobs_succeeded == 1 and len(server.requests) == 1


def test_a_bad_price_book_fails_at_start_up_with_its_file_and_field(tmp_path: Path,
                                                                    server: ScriptedLLMServer) -> None:
    book = price_book(tmp_path, {**RATE, "input_per_1m": -2})
    with open_memory(tmp_path / "m.db", server, {"cost_per_day": 1.0, "price_book": book}) as mem:
        with pytest.raises(ConfigurationError, match=r"prices\.json: rates\[0\]\.input_per_1m"):
            mem._container.llm()
    missing = str(tmp_path / "nope.json")
    with open_memory(tmp_path / "n.db", server, {"cost_per_day": 1.0, "price_book": missing}) as mem:
        with pytest.raises(ConfigurationError, match="cannot read"):
            mem._container.llm()


def test_rerank_batches_reserve_with_their_documents_as_items(server: ScriptedLLMServer, tmp_path: Path) -> None:
    book = price_book(tmp_path, {"provider": "cohere", "model": "rerank-v3.5", "capability": "rerank",
                                 "per_request": 0.002, "per_item": 0.0001})
    settings = budget_settings({"requests_per_day": 1, "cost_per_day": 1.0, "price_book": book})
    clock = FixedClock(T0)
    guard = budget_guard(settings, InMemoryBudgetLedger(), clock)
    ledger = InMemoryLedger()
    config = RerankConfig.from_mapping({"provider": "cohere", "model": "rerank-v3.5", "api_key_env": None,
                                        "base_url": server.base_url, "max_documents": 3, "max_retries": 0})
    server.script(cohere_answer([0.1, 0.9, 0.5], total_tokens=40), cohere_answer([0.3, 0.2], total_tokens=20))
    with HTTPReranker(config, ledger=ledger, clock=clock, budget=guard) as reranker:
        with pytest.raises(BudgetExceeded) as caught:
            reranker.rerank("q", ["a", "b", "c", "d", "e"])  # two batches: the second is refused
    assert len(server.requests) == 1 and caught.value.limit == "requests_per_day"
    (call,) = ledger.calls()
    assert (call.capability, call.items, call.prompt_tokens) == ("rerank", 3, 40)
    assert call.cost == pytest.approx(0.002 + 3 * 0.0001)


def test_the_llm_and_the_reranker_share_one_guard_and_close_closes_its_ledger(tmp_path: Path) -> None:
    import apsw

    rerank = {"provider": "local", "base_url": "http://127.0.0.1:9/v1", "model": "r"}
    llm = {"provider": "local", "base_url": "http://127.0.0.1:9/v1", "model": "m", "max_retries": 0}
    mem = Memory(tmp_path / "m.db", embedder="none", llm=llm, rerank=rerank,
                 settings=Settings.from_mapping({"budget": {"tokens_per_day": 1000}}))
    guard = mem._container.budget()
    assert mem._container.llm()._http._budget is guard is mem._container.reranker()._http._budget
    assert guard.limits == BudgetLimits(tokens_per_day=1000)
    assert guard.ledger is mem._container.backend().budget  # the store's, shared by its processes (ADR 0074)
    guard.ledger.spent(date(2026, 1, 1))  # its own connection opens at first use
    mem.close()
    with pytest.raises(apsw.ConnectionClosedError):
        guard.ledger._con.execute("SELECT 1")
    with Memory(tmp_path / "n.db", embedder="none", llm=llm) as unlimited:  # no limit: no budget at all
        assert unlimited._container.budget() is None and unlimited._container.llm()._http._budget is None


def test_a_connection_failure_settles_at_the_estimate_and_records_the_estimated_cost(tmp_path: Path) -> None:
    import httpx

    from hlmem.adapters.llm.openai_compat import OpenAICompatLLM
    from hlmem.adapters.llm.presets import LLMConfig

    def refuse(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("connection refused", request=request)

    clock = FixedClock(T0)
    guard = budget_guard(budget_settings({"tokens_per_day": 100_000, "price_book": price_book(tmp_path, RATE)}),
                         InMemoryBudgetLedger(), clock)
    ledger = InMemoryLedger()
    config = LLMConfig.from_mapping({"provider": "local", "base_url": "http://llm.test/v1", "model": MODEL,
                                     "max_retries": 0, "max_tokens": 100})
    with OpenAICompatLLM(config, ledger=ledger, transport=httpx.MockTransport(refuse), clock=clock,
                         budget=guard) as llm:
        with pytest.raises(ProviderUnavailable):
            llm.complete_json("sys", "hello", {"type": "object"}, operation="extract")
    spent = guard.totals().spent
    (call,) = ledger.calls()
    assert spent.requests == 1 and spent.tokens > 100  # the prompt's estimate plus max_tokens
    assert call.prompt_tokens is None and call.cost == pytest.approx(spent.cost) and spent.cost > 0.001
    assert guard.totals().reserved.requests == 0
