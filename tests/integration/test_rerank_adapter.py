"""The HTTP reranker: three wire styles over ``httpx.MockTransport``, and one real server on 127.0.0.1.

Nothing waits: ``sleep`` is a recorder and timeouts are raised by the mock transport (the real
server test uses a fraction of a second).
"""

from __future__ import annotations

import json
import math
import re
import sys
import traceback
from collections.abc import Iterator
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import httpx
import pytest

_TESTS = str(Path(__file__).resolve().parents[1])
if _TESTS not in sys.path:  # tests/ has no __init__.py: make tests/support importable in any import mode
    sys.path.insert(0, _TESTS)

from support.rerank_server import (  # noqa: E402
    ScriptedLLMServer,
    cohere_answer,
    dashscope_answer,
    error,
    rate_limited,
    raw,
    tei_answer,
)

from hlmem.adapters.clock import FixedClock  # noqa: E402
from hlmem.adapters.llm.ledger import STATUSES, InMemoryLedger, LLMCall  # noqa: E402
from hlmem.adapters.rerank.config import PRESETS, RerankConfig, WireStyle  # noqa: E402
from hlmem.adapters.rerank.http import HTTPReranker  # noqa: E402
from hlmem.adapters.sqlite.ledger import SQLiteLedger  # noqa: E402
from hlmem.adapters.sqlite.store import SQLiteStorage  # noqa: E402
from hlmem.application.ports import Reranker  # noqa: E402
from hlmem.application.reranking import rerank_items  # noqa: E402
from hlmem.domain.errors import (  # noqa: E402
    ConfigurationError,
    MalformedResponse,
    ProviderRateLimited,
    ProviderRejected,
    ProviderTimeout,
    ProviderUnavailable,
)

KEY = "rk-hlmemTEST-3c9e1a7b5d2f4e6080a1b2c3"
KEY_ENV = "HLMEM_TEST_RERANK_KEY"
T0 = datetime(2026, 3, 1, 1, 30, tzinfo=timezone.utc)
QUERY = "我现在偏好什么主题？"
TEXTS = ["user · preferred_ui_theme · 深色模式", "user · preferred_ui_theme · 浅色模式", "user · city · 杭州"]
SCORES = [0.31, 0.92, 0.04]


@pytest.fixture(autouse=True)
def _no_proxies(monkeypatch: pytest.MonkeyPatch) -> None:
    # 127.0.0.1 must be reached directly even where the environment sets a proxy.
    for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"):
        monkeypatch.delenv(name, raising=False)


class Sleeps(list):
    """Records requested waits instead of waiting."""

    def __call__(self, seconds: float) -> None:
        self.append(seconds)


class Script:
    """A MockTransport handler serving queued responses (or raising queued httpx errors); records requests."""

    def __init__(self, *replies: httpx.Response | Exception) -> None:
        self.replies = list(replies)
        self.requests: list[httpx.Request] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        reply = self.replies.pop(0)
        if isinstance(reply, Exception):
            raise reply
        return reply

    def bodies(self) -> list[Any]:
        return [json.loads(r.content) for r in self.requests]


def ok(payload: Any, **kwargs: Any) -> httpx.Response:
    return httpx.Response(200, json=payload, **kwargs)


def cohere_payload(scores: list[float], **extra: Any) -> dict[str, Any]:
    order = sorted(range(len(scores)), key=lambda i: -scores[i])
    return {"results": [{"index": i, "relevance_score": scores[i]} for i in order], **extra}


def make(script: Script, provider: str = "local", *, ledger: InMemoryLedger | None = None,
         sleeps: Sleeps | None = None, env: dict[str, str] | None = None, jitter: float = 0.0,
         **overrides: Any) -> HTTPReranker:
    if provider == "local":
        overrides = {"base_url": "http://rerank.test/v1", "model": "bge-reranker-v2-m3", "api_key_env": KEY_ENV,
                     **overrides}
    config = RerankConfig.from_preset(provider, **overrides)
    key_env = config.api_key_env
    return HTTPReranker(config, ledger=ledger if ledger is not None else InMemoryLedger(),
                        env=env if env is not None else ({key_env: KEY} if key_env else {}),
                        transport=httpx.MockTransport(script), sleep=sleeps if sleeps is not None else Sleeps(),
                        jitter=lambda: jitter, clock=FixedClock(T0))


def no_key(exc: BaseException) -> None:
    text = "".join(traceback.format_exception(exc)) + repr(exc) + str(exc) + repr(vars(exc))
    assert KEY not in text and KEY[:12] not in text and KEY[-10:] not in text


# --- the three wire styles ----------------------------------------------------------------------


def test_cohere_v2_request_and_answer() -> None:
    script = Script(ok(cohere_payload(SCORES, id="r1", meta={"billed_units": {"search_units": 1}})))
    reranker = make(script, "cohere", env={"COHERE_API_KEY": KEY})
    assert reranker.rerank(QUERY, TEXTS) == SCORES
    [request] = script.requests
    assert str(request.url) == "https://api.cohere.com/v2/rerank" and request.method == "POST"
    assert request.headers["authorization"] == f"Bearer {KEY}"
    assert request.headers["content-type"] == "application/json"
    # Cohere v2's schema has no return_documents: the preset leaves it out.
    assert script.bodies() == [{"model": "rerank-v3.5", "query": QUERY, "documents": TEXTS, "top_n": 3}]
    assert reranker.model_id == "cohere:rerank-v3.5"


def test_jina_request_and_answer_with_documents_and_usage() -> None:
    payload = cohere_payload(SCORES, model="jina-reranker-v2-base-multilingual", usage={"total_tokens": 57})
    for result in payload["results"]:
        result["document"] = {"text": TEXTS[result["index"]]}
    script = Script(ok(payload))
    ledger = InMemoryLedger()
    assert make(script, "jina", ledger=ledger, env={"JINA_API_KEY": KEY}).rerank(QUERY, TEXTS) == SCORES
    assert str(script.requests[0].url) == "https://api.jina.ai/v1/rerank"
    assert script.bodies() == [{"model": "jina-reranker-v2-base-multilingual", "query": QUERY, "documents": TEXTS,
                                "top_n": 3, "return_documents": False}]
    [call] = ledger.calls()
    assert call == LLMCall(call_id=call.call_id, attempt=1, provider="jina",
                           model="jina-reranker-v2-base-multilingual", operation="rerank", job_id=None, status="ok",
                           error_class=None, http_status=200, prompt_tokens=57, completion_tokens=None,
                           latency_ms=call.latency_ms, created_at=T0, capability="rerank", items=len(TEXTS))


def test_dashscope_native_request_and_answer() -> None:
    order = [1, 0, 2]
    script = Script(ok({"output": {"results": [{"index": i, "relevance_score": SCORES[i]} for i in order]},
                        "usage": {"total_tokens": 79}, "request_id": "5ad6a5b2-test"}))
    ledger = InMemoryLedger()
    reranker = make(script, "dashscope", ledger=ledger, env={"DASHSCOPE_API_KEY": KEY})
    assert reranker.rerank(QUERY, TEXTS) == SCORES
    [request] = script.requests
    assert str(request.url) == "https://dashscope.aliyuncs.com/api/v1/services/rerank/text-rerank/text-rerank"
    assert request.headers["authorization"] == f"Bearer {KEY}"
    assert script.bodies() == [{"model": "gte-rerank-v2", "input": {"query": QUERY, "documents": TEXTS},
                                "parameters": {"top_n": 3, "return_documents": False}}]
    assert "深色模式" in request.content.decode()  # UTF-8 JSON, as httpx sends it
    assert ledger.calls()[0].prompt_tokens == 79 and reranker.model_id == "dashscope:gte-rerank-v2"


def test_dashscope_with_the_newer_model() -> None:
    script = Script(ok({"output": {"results": [{"index": 0, "relevance_score": 0.5}]}}))
    make(script, "dashscope", env={"DASHSCOPE_API_KEY": KEY}, model="qwen3-rerank").rerank(QUERY, TEXTS[:1])
    assert script.bodies()[0]["model"] == "qwen3-rerank"


def test_tei_request_and_answer() -> None:
    script = Script(ok([{"index": 2, "score": 0.9}, {"index": 0, "score": 0.5}, {"index": 1, "score": 0.01}]))
    reranker = make(script, base_url="http://127.0.0.1:8080/", wire="tei", model=None, api_key_env=None)
    assert reranker.rerank(QUERY, TEXTS) == [0.5, 0.01, 0.9]
    [request] = script.requests
    assert str(request.url) == "http://127.0.0.1:8080/rerank"
    assert "authorization" not in request.headers
    assert script.bodies() == [{"query": QUERY, "texts": TEXTS, "raw_scores": False, "truncate": True}]
    assert reranker.model_id == "local:tei"


def test_a_local_cohere_style_server_vllm() -> None:
    script = Script(ok(cohere_payload(SCORES, usage={"total_tokens": 30})))
    reranker = make(script, base_url="http://127.0.0.1:8000/v1", api_key_env=None)
    assert reranker.rerank(QUERY, TEXTS) == SCORES
    assert str(script.requests[0].url) == "http://127.0.0.1:8000/v1/rerank"
    assert script.bodies()[0] == {"model": "bge-reranker-v2-m3", "query": QUERY, "documents": TEXTS, "top_n": 3,
                                  "return_documents": False}
    assert "authorization" not in script.requests[0].headers


def test_the_adapter_satisfies_the_port() -> None:
    reranker = make(Script())
    assert isinstance(reranker, Reranker)
    assert KEY not in repr(reranker) and "rerank.test" in repr(reranker)


# --- what comes back --------------------------------------------------------------------------


def test_documents_the_answer_leaves_out_score_minus_infinity() -> None:
    script = Script(ok({"results": [{"index": 2, "relevance_score": 0.7}, {"index": 0, "relevance_score": 0.2}]}))
    assert make(script).rerank(QUERY, ["a", "b", "c", "d"]) == [0.2, -math.inf, 0.7, -math.inf]


def test_integer_scores_are_accepted() -> None:
    script = Script(ok({"results": [{"index": 0, "relevance_score": 1}, {"index": 1, "relevance_score": 0}]}))
    assert make(script).rerank(QUERY, ["a", "b"]) == [1.0, 0.0]


def test_no_texts_no_request() -> None:
    script = Script()
    ledger = InMemoryLedger()
    assert make(script, ledger=ledger).rerank(QUERY, []) == []
    assert script.requests == [] and ledger.calls() == []


@pytest.mark.parametrize(
    ("wire", "payload", "fragment"),
    [
        ("cohere", {"data": []}, "no results array"),
        ("cohere", {"results": {"0": 0.5}}, "no results array"),
        ("cohere", [{"index": 0, "relevance_score": 0.5}], "no results array"),
        ("cohere", {"results": ["0.5", "0.1"]}, "results[0] is not an object"),
        ("cohere", {"results": [{"index": 2, "relevance_score": 0.5}]}, "out of range for 2 documents"),
        ("cohere", {"results": [{"index": -1, "relevance_score": 0.5}]}, "out of range"),
        ("cohere", {"results": [{"index": 0, "relevance_score": 0.5}, {"index": 0, "relevance_score": 0.4}]},
         "index 0 appears twice"),
        ("cohere", {"results": [{"index": "0", "relevance_score": 0.5}]}, "index is not an integer"),
        ("cohere", {"results": [{"index": True, "relevance_score": 0.5}]}, "index is not an integer"),
        ("cohere", {"results": [{"index": 0.0, "relevance_score": 0.5}]}, "index is not an integer"),
        ("cohere", {"results": [{"index": 0, "score": 0.5}]}, "relevance_score is not a finite number"),
        ("cohere", {"results": [{"index": 0, "relevance_score": "high"}]}, "not a finite number"),
        ("cohere", {"results": [{"index": 0, "relevance_score": None}]}, "not a finite number"),
        ("cohere", {"results": [{"index": 0, "relevance_score": False}]}, "not a finite number"),
        ("cohere", {"results": []}, "no result for any of the 2 documents"),
        ("tei", {"results": [{"index": 0, "score": 0.5}]}, "not a JSON array"),
        ("tei", [{"index": 0, "relevance_score": 0.5}], "score is not a finite number"),
        ("tei", [{"index": 5, "score": 0.5}], "out of range"),
        ("dashscope", {"results": [{"index": 0, "relevance_score": 0.5}]}, "no output object"),
        ("dashscope", {"output": {"text": "?"}}, "no output.results array"),
        ("dashscope", {"output": {"results": [{"index": 1, "relevance_score": 0.5}] * 2}}, "appears twice"),
    ],
)
def test_malformed_answers_fail_at_once_and_keep_the_raw_body(wire: str, payload: Any, fragment: str) -> None:
    script = Script(ok(payload), ok(payload))
    ledger, sleeps = InMemoryLedger(), Sleeps()
    reranker = make(script, ledger=ledger, sleeps=sleeps, wire=wire)
    with pytest.raises(MalformedResponse, match=re.escape(fragment)) as info:
        reranker.rerank(QUERY, ["a", "b"])
    assert info.value.status == 200 and json.loads(info.value.raw) == payload
    assert f"not a {wire} rerank answer" in str(info.value)
    assert len(script.requests) == 1 and sleeps == []  # not retried: the answer would not change
    assert [(c.status, c.error_class) for c in ledger.calls()] == [("malformed", "MalformedResponse")]


def test_nan_and_infinite_scores_are_malformed() -> None:
    for bad in ("NaN", "Infinity", "-Infinity"):
        body = '{"results": [{"index": 0, "relevance_score": %s}]}' % bad
        script = Script(httpx.Response(200, content=body.encode(), headers={"content-type": "application/json"}))
        with pytest.raises(MalformedResponse, match="not a finite number"):
            make(script).rerank(QUERY, ["a"])


def test_a_body_that_is_not_json_is_malformed() -> None:
    script = Script(httpx.Response(200, text="<html>gateway</html>"))
    with pytest.raises(MalformedResponse, match="not JSON") as info:
        make(script).rerank(QUERY, ["a"])
    assert info.value.raw == "<html>gateway</html>"


def test_a_malformed_answer_still_records_the_tokens_it_cost() -> None:
    ledger = InMemoryLedger()
    with pytest.raises(MalformedResponse):
        make(Script(ok({"results": [], "usage": {"total_tokens": 12}})), ledger=ledger).rerank(QUERY, ["a"])
    assert ledger.calls()[0].prompt_tokens == 12


# --- 4xx, 429, 5xx, timeouts ----------------------------------------------------------------------


def test_401_is_an_auth_error_not_retried_with_the_key_redacted() -> None:
    script = Script(httpx.Response(401, json={"message": f"invalid api token {KEY}"}), ok(cohere_payload([0.5])))
    ledger, sleeps = InMemoryLedger(), Sleeps()
    with pytest.raises(ProviderRejected) as info:
        make(script, ledger=ledger, sleeps=sleeps).rerank(QUERY, ["a"])
    exc = info.value
    assert exc.status == 401 and not exc.retryable and exc.provider == "local"
    assert "HTTP 401" in str(exc) and "invalid api token [redacted]" in str(exc) and "after" not in str(exc)
    assert len(script.requests) == 1 and sleeps == []
    assert [(c.status, c.http_status) for c in ledger.calls()] == [("rejected", 401)]
    no_key(exc)


@pytest.mark.parametrize(
    ("body", "message"),
    [({"code": "InvalidApiKey", "message": "Invalid API-key provided.", "request_id": "x"},
      "Invalid API-key provided."),  # DashScope
     ({"detail": "Model not found: rerank-v9"}, "Model not found: rerank-v9"),  # FastAPI-style servers
     ({"error": "Input validation error: `texts` cannot be empty", "error_type": "Validation"},
      "`texts` cannot be empty"),  # TEI
     ({"error": {"message": "top_n must be positive", "type": "BadRequestError"}}, "top_n must be positive")],
    ids=["dashscope", "detail", "tei", "openai"],
)
def test_400s_carry_the_providers_message(body: dict[str, Any], message: str) -> None:
    with pytest.raises(ProviderRejected, match=re.escape(message)):
        make(Script(httpx.Response(400, json=body))).rerank(QUERY, ["a"])


def test_429_with_retry_after_then_success() -> None:
    script = Script(httpx.Response(429, json={"message": "too many requests"}, headers={"Retry-After": "2"}),
                    ok(cohere_payload([0.2, 0.8])))
    ledger, sleeps = InMemoryLedger(), Sleeps()
    assert make(script, ledger=ledger, sleeps=sleeps).rerank(QUERY, ["a", "b"]) == [0.2, 0.8]
    assert sleeps == [2.0]
    calls = ledger.calls()
    assert [(c.attempt, c.status, c.error_class, c.http_status) for c in calls] == [
        (1, "rate_limited", "ProviderRateLimited", 429), (2, "ok", None, 200)]
    assert len({c.call_id for c in calls}) == 1
    assert script.bodies()[0] == script.bodies()[1]


def test_a_retry_after_beyond_the_limit_ends_the_call_at_once() -> None:
    script = Script(httpx.Response(429, json={"message": "slow down"}, headers={"Retry-After": "30"}),
                    ok(cohere_payload([0.5])))
    sleeps = Sleeps()
    with pytest.raises(ProviderRateLimited) as info:
        make(script, sleeps=sleeps).rerank(QUERY, ["a"])
    assert info.value.retry_after == 30 and sleeps == [] and len(script.requests) == 1


def test_429_without_retry_after_backs_off() -> None:
    script = Script(httpx.Response(429, json={}), ok(cohere_payload([0.5])))
    sleeps = Sleeps()
    make(script, sleeps=sleeps, jitter=0.5).rerank(QUERY, ["a"])
    assert sleeps == [0.1875]  # ceiling 0.25 s; equal jitter at 0.5 -> 3/4 of it


def test_500s_until_the_retries_run_out() -> None:
    script = Script(*[httpx.Response(500, text="internal error")] * 3, ok(cohere_payload([0.5])))
    ledger, sleeps = InMemoryLedger(), Sleeps()
    with pytest.raises(ProviderUnavailable, match=r"HTTP 500.*internal error.*after 3 attempts") as info:
        make(script, ledger=ledger, sleeps=sleeps, jitter=0.999, max_retries=2).rerank(QUERY, ["a"])
    assert info.value.status == 500 and info.value.retryable
    assert len(script.requests) == 3 and len(script.replies) == 1
    assert [c.status for c in ledger.calls()] == ["unavailable"] * 3
    assert sleeps == pytest.approx([0.25, 0.5], abs=0.001)


def test_the_default_policy_is_one_retry() -> None:
    script = Script(httpx.Response(503, text="busy"), httpx.Response(503, text="busy"))
    sleeps = Sleeps()
    with pytest.raises(ProviderUnavailable, match="after 2 attempts"):
        make(script, sleeps=sleeps).rerank(QUERY, ["a"])
    assert len(script.requests) == 2 and len(sleeps) == 1 and 0.125 <= sleeps[0] <= 0.25


def test_a_timeout_is_retried_then_succeeds() -> None:
    script = Script(httpx.ReadTimeout("timed out"), ok(cohere_payload([0.3])))
    ledger, sleeps = InMemoryLedger(), Sleeps()
    assert make(script, ledger=ledger, sleeps=sleeps).rerank(QUERY, ["a"]) == [0.3]
    assert [(c.status, c.error_class, c.http_status) for c in ledger.calls()] == [
        ("timeout", "ProviderTimeout", None), ("ok", None, 200)]
    assert sleeps == [0.125]


def test_timeouts_until_the_retries_run_out() -> None:
    script = Script(httpx.ConnectTimeout("connect"), httpx.ReadTimeout("read"))
    with pytest.raises(ProviderTimeout, match="no rerank answer within 5 s.*after 2 attempts") as info:
        make(script).rerank(QUERY, ["a"])
    assert isinstance(info.value, TimeoutError)
    no_key(info.value)


def test_a_refused_connection_is_unavailable() -> None:
    script = Script(httpx.ConnectError("connection refused"), httpx.ConnectError("connection refused"))
    with pytest.raises(ProviderUnavailable, match="connection failed") as info:
        make(script).rerank(QUERY, ["a"])
    assert info.value.status is None
    no_key(info.value)


# --- batching and truncation -------------------------------------------------------------------


def test_documents_are_sent_in_batches_of_max_documents() -> None:
    texts = [f"text {n}" for n in range(7)]
    scores = [n / 10 for n in range(7)]
    script = Script(ok(cohere_payload(scores[:3])), ok(cohere_payload(scores[3:6])), ok(cohere_payload(scores[6:])))
    ledger = InMemoryLedger()
    assert make(script, ledger=ledger, max_documents=3).rerank(QUERY, texts) == scores
    bodies = script.bodies()
    assert [b["documents"] for b in bodies] == [texts[:3], texts[3:6], texts[6:]]
    assert [b["top_n"] for b in bodies] == [3, 3, 1]
    assert len({c.call_id for c in ledger.calls()}) == 3  # each batch is one logical call


def test_a_failing_batch_fails_the_whole_rerank() -> None:
    script = Script(ok(cohere_payload([0.1, 0.2])), httpx.Response(400, json={"message": "too long"}))
    with pytest.raises(ProviderRejected):
        make(script, max_documents=2).rerank(QUERY, ["a", "b", "c"])


def test_the_default_batch_is_one_hundred() -> None:
    texts = [f"t{n}" for n in range(150)]
    script = Script(ok(cohere_payload([0.5] * 100)), ok(cohere_payload([0.5] * 50)))
    assert len(make(script).rerank(QUERY, texts)) == 150
    assert [len(b["documents"]) for b in script.bodies()] == [100, 50]


def test_long_texts_and_queries_are_cut_to_max_chars() -> None:
    script = Script(ok(cohere_payload([0.5, 0.4])), ok(cohere_payload([0.5])))
    reranker = make(script, max_chars=5)
    reranker.rerank("一二三四五六七", ["深色模式很好看", "abc"])
    assert script.bodies()[0]["query"] == "一二三四五" and script.bodies()[0]["documents"] == ["深色模式很", "abc"]
    make(Script(ok(cohere_payload([0.5]))), max_chars=2000).rerank(QUERY, ["x" * 2500])
    default = Script(ok(cohere_payload([0.5])))
    make(default).rerank(QUERY, ["x" * 2500])
    assert default.bodies()[0]["documents"] == ["x" * 2000]


# --- through rerank_items: failure keeps the fused order ----------------------------------------


def test_an_adapter_failure_falls_back_to_the_fused_order() -> None:
    script = Script(httpx.Response(502, text="bad gateway"), httpx.Response(502, text="bad gateway"))
    outcome = rerank_items(QUERY, TEXTS, make(script), text_of=str)
    assert outcome.items == tuple(TEXTS) and not outcome.reranked
    assert outcome.note == "rerank failed (ProviderUnavailable): fused order kept"


def test_an_adapter_success_reorders() -> None:
    outcome = rerank_items(QUERY, TEXTS, make(Script(ok(cohere_payload(SCORES)))), text_of=str)
    assert outcome.items == (TEXTS[1], TEXTS[0], TEXTS[2]) and outcome.reranked


# --- a real server on 127.0.0.1, and the SQLite ledger -------------------------------------------


@pytest.fixture
def server() -> Iterator[ScriptedLLMServer]:
    with ScriptedLLMServer() as srv:
        yield srv


def test_against_a_real_server_with_the_sqlite_ledger(server: ScriptedLLMServer, tmp_path: Path) -> None:
    path = tmp_path / "store.db"
    SQLiteStorage(path).close()
    ledger = SQLiteLedger.open(path)
    sleeps = Sleeps()
    config = RerankConfig.from_mapping({"provider": "local", "base_url": server.base_url, "model": "bge-reranker",
                                        "api_key_env": KEY_ENV, "timeout_s": 0.3, "max_retries": 2})
    reranker = HTTPReranker(config, ledger=ledger, env={KEY_ENV: KEY}, sleep=sleeps, jitter=lambda: 0.0,
                            clock=FixedClock(T0))
    server.script(
        cohere_answer(SCORES, delay_s=1.5),  # too slow: a real timeout
        rate_limited(retry_after="0"),
        cohere_answer(SCORES, total_tokens=64, with_documents=True),
        error(401, f"Incorrect API key provided: {KEY}"),
    )
    assert reranker.rerank(QUERY, TEXTS) == SCORES
    with pytest.raises(ProviderRejected) as info:
        reranker.rerank(QUERY, TEXTS)
    no_key(info.value)
    reranker.close()

    assert [r.path for r in server.requests] == ["/v1/rerank"] * 4 and server.pending == 0
    assert server.requests[0].headers["Authorization"] == f"Bearer {KEY}"
    assert server.requests[0].json() == {"model": "bge-reranker", "query": QUERY, "documents": TEXTS, "top_n": 3,
                                         "return_documents": False}
    assert sleeps == [0.125, 0.0]
    calls = ledger.calls()
    assert [(c.operation, c.attempt, c.status, c.error_class, c.http_status, c.prompt_tokens) for c in calls] == [
        ("rerank", 1, "timeout", "ProviderTimeout", None, None),
        ("rerank", 2, "rate_limited", "ProviderRateLimited", 429, None),
        ("rerank", 3, "ok", None, 200, 64),
        ("rerank", 1, "rejected", "ProviderRejected", 401, None),
    ]
    assert all(c.status in STATUSES and c.created_at == T0 and c.model == "bge-reranker" for c in calls)
    assert 200 <= calls[0].latency_ms < 1400
    ledger.close()
    for file in (p for p in tmp_path.iterdir() if p.is_file()):
        data = file.read_bytes()
        assert KEY.encode() not in data, file.name
        assert "浅色模式".encode() not in data and QUERY.encode() not in data, file.name  # nor the texts


@pytest.mark.parametrize(
    ("settings", "reply", "path"),
    [
        ({"provider": "local", "wire": "tei"}, tei_answer(SCORES), "/rerank"),
        ({"provider": "dashscope", "prefix": "/api/v1"}, dashscope_answer(SCORES),
         "/api/v1/services/rerank/text-rerank/text-rerank"),
        ({"provider": "jina", "prefix": "/v1"}, cohere_answer(SCORES, with_documents=True), "/v1/rerank"),
    ],
    ids=["tei", "dashscope", "jina"],
)
def test_each_wire_against_a_real_server(server: ScriptedLLMServer, settings: dict[str, str], reply: Any,
                                         path: str) -> None:
    root = server.base_url.removesuffix("/v1")
    settings = dict(settings)
    base_url = root + settings.pop("prefix", "")
    config = RerankConfig.from_mapping({**settings, "base_url": base_url, "api_key_env": KEY_ENV, "timeout_s": 2})
    server.script(reply, raw("not json"))
    with HTTPReranker(config, ledger=InMemoryLedger(), env={KEY_ENV: KEY}, sleep=Sleeps()) as reranker:
        assert reranker.rerank(QUERY, TEXTS) == SCORES
        with pytest.raises(MalformedResponse, match="not JSON"):
            reranker.rerank(QUERY, TEXTS)
    assert [r.path for r in server.requests] == [path, path]
    assert server.requests[0].headers["Authorization"] == f"Bearer {KEY}"


# --- configuration and presets ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "url", "env", "model", "wire"),
    [
        ("cohere", "https://api.cohere.com/v2/rerank", "COHERE_API_KEY", "rerank-v3.5", WireStyle.COHERE),
        ("jina", "https://api.jina.ai/v1/rerank", "JINA_API_KEY", "jina-reranker-v2-base-multilingual",
         WireStyle.COHERE),
        ("dashscope", "https://dashscope.aliyuncs.com/api/v1/services/rerank/text-rerank/text-rerank",
         "DASHSCOPE_API_KEY", "gte-rerank-v2", WireStyle.DASHSCOPE),
    ],
)
def test_presets(name: str, url: str, env: str, model: str, wire: WireStyle) -> None:
    config = RerankConfig.from_preset(name)
    assert (config.url, config.api_key_env, config.model, config.wire) == (url, env, model, wire)
    assert (config.timeout_s, config.max_retries, config.max_documents, config.max_chars) == (5.0, 1, 100, 2000)
    other = RerankConfig.from_mapping({"provider": name, "model": "m2", "timeout_s": 2, "max_documents": 20})
    assert other.model == "m2" and other.url == url and other.timeout_s == 2 and other.max_documents == 20


def test_every_preset_is_tested() -> None:
    assert set(PRESETS) == {"cohere", "jina", "dashscope", "local"}


def test_the_local_preset_needs_a_base_url_and_a_model_unless_tei() -> None:
    with pytest.raises(ConfigurationError, match="base_url"):
        RerankConfig.from_preset("local", model="m")
    with pytest.raises(ConfigurationError, match="model"):
        RerankConfig.from_preset("local", base_url="http://127.0.0.1:8000/v1")
    tei = RerankConfig.from_mapping({"provider": "local", "wire": "tei", "base_url": "http://127.0.0.1:8080"})
    assert tei.model == "tei" and tei.api_key_env is None and tei.url == "http://127.0.0.1:8080/rerank"
    custom = RerankConfig.from_preset("local", base_url="http://h:1/", model="m", path="v2/rerank")
    assert custom.url == "http://h:1/v2/rerank"


@pytest.mark.parametrize("secret", ["api_key", "key", "token", "secret", "password", "authorization"])
def test_a_key_in_configuration_is_refused(secret: str) -> None:
    with pytest.raises(ConfigurationError, match="environment variable") as info:
        RerankConfig.from_mapping({"provider": "jina", secret: KEY})
    assert KEY not in str(info.value)


@pytest.mark.parametrize(
    "overrides",
    [{"provider": "nope"}, {"provider": ""}, {"base_url": "api.jina.ai/v1"}, {"wire": "grpc"}, {"timeout_s": 0},
     {"timeout_s": float("nan")}, {"timeout_s": True}, {"max_retries": -1}, {"max_retries": 1.5},
     {"max_documents": 0}, {"max_documents": 2.5}, {"max_chars": 0}, {"max_chars": "2000"},
     {"max_retry_after_s": -1}, {"send_return_documents": "no"}, {"colour": "blue"}, {"top_n": 30}],
)
def test_bad_settings_are_configuration_errors(overrides: dict[str, object]) -> None:
    with pytest.raises(ConfigurationError):
        RerankConfig.from_mapping({"provider": "jina", **overrides})


def test_no_provider_is_a_configuration_error() -> None:
    with pytest.raises(ConfigurationError, match="rerank.provider is required"):
        RerankConfig.from_mapping({"model": "m"})


def test_a_missing_key_names_the_variable() -> None:
    config = RerankConfig.from_preset("dashscope")
    for env in ({}, {"DASHSCOPE_API_KEY": "  "}):
        with pytest.raises(ConfigurationError, match="DASHSCOPE_API_KEY"):
            HTTPReranker(config, ledger=InMemoryLedger(), env=env)


def test_the_key_is_read_from_the_process_environment_by_default(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("JINA_API_KEY", KEY)
    script = Script(ok(cohere_payload([0.5])))
    HTTPReranker(RerankConfig.from_preset("jina"), ledger=InMemoryLedger(),
                 transport=httpx.MockTransport(script)).rerank(QUERY, ["a"])
    assert script.requests[0].headers["authorization"] == f"Bearer {KEY}"
