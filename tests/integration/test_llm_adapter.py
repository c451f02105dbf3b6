"""The OpenAI-compatible adapter against a real scripted HTTP server on 127.0.0.1, and the call ledger.

Retries never really wait: ``sleep`` is a recorder. Timeouts are real (a fraction of a second).
"""

from __future__ import annotations

import json
import os
import sys
import traceback
from collections.abc import Iterator
from datetime import datetime, timedelta, timezone
from email.utils import format_datetime
from pathlib import Path

import httpx
import pytest

_TESTS = str(Path(__file__).resolve().parents[1])
if _TESTS not in sys.path:  # tests/ has no __init__.py: make tests/support importable in any import mode
    sys.path.insert(0, _TESTS)

from support.llm_server import (  # noqa: E402
    ScriptedLLMServer,
    completion,
    error,
    json_reply,
    rate_limited,
    raw,
)

from hlmem.adapters.clock import FixedClock  # noqa: E402
from hlmem.adapters.llm.ledger import STATUSES, InMemoryLedger, LedgerSink, LLMCall  # noqa: E402
from hlmem.adapters.llm.openai_compat import OpenAICompatLLM  # noqa: E402
from hlmem.adapters.llm.presets import PRESETS, LLMConfig, ResponseFormat  # noqa: E402
from hlmem.adapters.sqlite.ledger import SQLiteLedger  # noqa: E402
from hlmem.adapters.sqlite.store import SQLiteStorage  # noqa: E402
from hlmem.application.extraction.prompt import (  # noqa: E402
    EXTRACTION_SCHEMA,
    build_extraction_prompt,
    parse_extraction,
)
from hlmem.application.ports import LLM  # noqa: E402
from hlmem.domain.candidates import SourceEvent  # noqa: E402
from hlmem.domain.errors import (  # noqa: E402
    ConfigurationError,
    MalformedResponse,
    ProviderError,
    ProviderRateLimited,
    ProviderRejected,
    ProviderTimeout,
    ProviderUnavailable,
)

KEY = "sk-hlmemTEST-7f3a9c2e5b1d4f60a8e2c9b7"
KEY_ENV = "HLMEM_TEST_LLM_KEY"
T0 = datetime(2026, 3, 1, 1, 30, tzinfo=timezone.utc)
EVENTS = [SourceEvent(event_id="ev_0001", text="最近眼睛不舒服，暂时换成浅色模式", role="user", session_id="s1",
                      origin_class="direct_user", session_kind="interactive", occurred_at=T0)]
ANSWER = {"claims": [{
    "event": 1, "subject": "user", "predicate": "preferred_ui_theme", "value": "浅色模式",
    "qualifiers": [{"key": "temporary", "value": "暂时"}], "polarity": True, "importance": 0.7, "scope": "temporal",
    "valid_from": None, "valid_to": None, "evidence_quote": "暂时换成浅色模式"}]}
SCHEMA = {"type": "object", "additionalProperties": False, "required": ["ok"],
          "properties": {"ok": {"type": "boolean"}}}


@pytest.fixture(autouse=True)
def _no_proxies(monkeypatch: pytest.MonkeyPatch) -> None:
    # 127.0.0.1 must be reached directly even where the environment sets a proxy.
    for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"):
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
def server() -> Iterator[ScriptedLLMServer]:
    with ScriptedLLMServer() as srv:
        yield srv


class Sleeps(list):
    """Records requested waits instead of waiting."""

    def __call__(self, seconds: float) -> None:
        self.append(seconds)


def make_llm(server: ScriptedLLMServer, ledger: LedgerSink | None = None, *, sleeps: Sleeps | None = None,
             jitter: float = 0.0, **overrides: object) -> OpenAICompatLLM:
    settings = {"base_url": server.base_url, "model": "test-model", "api_key_env": KEY_ENV, "timeout_s": 2.0,
                "max_retries": 2, "backoff_base_s": 0.5, "backoff_max_s": 4.0, **overrides}
    return OpenAICompatLLM(LLMConfig.from_preset("local", **settings), ledger=ledger or InMemoryLedger(),
                           env={KEY_ENV: KEY}, sleep=sleeps if sleeps is not None else Sleeps(),
                           jitter=lambda: jitter, clock=FixedClock(T0))


def _statuses(ledger: InMemoryLedger) -> list[str]:
    return [c.status for c in ledger.calls()]


def _no_key(exc: BaseException) -> None:
    text = "".join(traceback.format_exception(exc)) + repr(exc) + str(exc) + repr(vars(exc))
    assert KEY not in text
    assert KEY[:12] not in text and KEY[-10:] not in text


# --- a normal extraction ----------------------------------------------------------------------


def test_a_normal_extraction_round_trip(server: ScriptedLLMServer) -> None:
    server.script(completion(ANSWER, prompt_tokens=812, completion_tokens=95))
    ledger = InMemoryLedger()
    llm = make_llm(server, ledger)
    prompt = build_extraction_prompt(EVENTS)
    answer = llm.complete_json(prompt.system, prompt.user, prompt.schema, operation=prompt.operation, job_id="job_1")
    [claim] = parse_extraction(answer, EVENTS, extractor=f"llm:{llm.model_id}")
    assert (claim.value, claim.qualifiers, claim.evidence, claim.extractor) == \
        ("浅色模式", (("temporary", "暂时"),), ("ev_0001",), "llm:local:test-model")

    [request] = server.requests
    assert request.path == "/v1/chat/completions"
    assert request.headers["Authorization"] == f"Bearer {KEY}"
    body = request.json()
    assert body["model"] == "test-model" and body["temperature"] == 0 and body["stream"] is False
    assert body["response_format"] == {"type": "json_object"}
    system, user = body["messages"]
    assert system["role"] == "system" and system["content"].startswith(prompt.system)
    assert json.dumps(EXTRACTION_SCHEMA, ensure_ascii=False, separators=(",", ":")) in system["content"]
    assert user == {"role": "user", "content": prompt.user}
    assert "暂时换成浅色模式" in request.body.decode()

    [call] = ledger.calls()
    assert call == LLMCall(call_id=call.call_id, attempt=1, provider="local", model="test-model",
                           operation="extract", job_id="job_1", status="ok", error_class=None, http_status=200,
                           prompt_tokens=812, completion_tokens=95, latency_ms=call.latency_ms, created_at=T0)
    assert 0 <= call.latency_ms < 2000


def test_the_adapter_satisfies_the_port(server: ScriptedLLMServer) -> None:
    llm = make_llm(server)
    assert isinstance(llm, LLM)
    assert isinstance(InMemoryLedger(), LedgerSink)
    assert KEY not in repr(llm)


def test_json_schema_mode_sends_the_schema_as_the_response_format(server: ScriptedLLMServer) -> None:
    server.script(completion({"ok": True}))
    llm = make_llm(server, response_format="json_schema")
    assert llm.complete_json("Check it.", "x", SCHEMA, operation="audit dedup") == {"ok": True}
    body = server.requests[0].json()
    assert body["response_format"] == {"type": "json_schema",
                                       "json_schema": {"name": "audit_dedup", "strict": True, "schema": SCHEMA}}
    assert body["messages"][0]["content"] == "Check it."  # the provider enforces the schema: no copy in the prompt


def test_prompt_mode_sends_no_response_format(server: ScriptedLLMServer) -> None:
    server.script(completion({"ok": True}))
    make_llm(server, response_format="prompt").complete_json("s", "u", SCHEMA, operation="op")
    body = server.requests[0].json()
    assert "response_format" not in body and "JSON Schema" in body["messages"][0]["content"]


def test_a_fenced_answer_is_repaired(server: ScriptedLLMServer) -> None:
    server.script(completion("```json\n" + json.dumps(ANSWER, ensure_ascii=False) + "\n```"))
    assert make_llm(server).complete_json("s", "u", EXTRACTION_SCHEMA, operation="extract") == ANSWER


def test_no_key_variable_means_no_authorization_header(server: ScriptedLLMServer) -> None:
    server.script(completion({"ok": True}))
    make_llm(server, api_key_env=None).complete_json("s", "u", SCHEMA, operation="op")
    assert "Authorization" not in server.requests[0].headers


# --- malformed answers ----------------------------------------------------------------------


def test_malformed_json_fails_at_once_and_keeps_the_raw_answer(server: ScriptedLLMServer) -> None:
    broken = '{"claims": [{"event": 1, "subject": "user",}]}'
    server.script(completion(broken), completion(ANSWER))
    ledger = InMemoryLedger()
    with pytest.raises(MalformedResponse) as info:
        make_llm(server, ledger).complete_json("s", "u", EXTRACTION_SCHEMA, operation="extract", job_id="j")
    assert info.value.raw == broken and info.value.status == 200 and info.value.retryable
    assert len(server.requests) == 1 and server.pending == 1  # not retried by the adapter: the job decides
    assert _statuses(ledger) == ["malformed"] and ledger.calls()[0].error_class == "MalformedResponse"
    assert ledger.calls()[0].prompt_tokens == 120  # a malformed answer still cost tokens


def test_output_cut_at_the_token_limit_says_so(server: ScriptedLLMServer) -> None:
    server.script(completion('{"claims": [{"event": 1, "sub', finish_reason="length"))
    with pytest.raises(MalformedResponse, match="cut off at the token limit"):
        make_llm(server).complete_json("s", "u", SCHEMA, operation="op")


@pytest.mark.parametrize(
    ("reply", "fragment"),
    [
        (raw("<html>gateway</html>", content_type="text/html"), "not JSON"),
        (json_reply({"object": "chat.completion", "choices": []}), "no choices"),
        (json_reply({"choices": [{"message": {"role": "assistant", "content": None,
                                              "refusal": "I can't help with that."}}]}), "refused"),
        (json_reply({"choices": [{"message": {"role": "assistant", "content": "   "}}]}), "no text content"),
        (completion("[1, 2, 3]"), "no JSON object"),
    ],
    ids=["html", "no-choices", "refusal", "blank", "array"],
)
def test_bodies_that_are_not_an_answer_are_malformed(server: ScriptedLLMServer, reply, fragment: str) -> None:
    server.script(reply)
    with pytest.raises(MalformedResponse, match=fragment) as info:
        make_llm(server).complete_json("s", "u", SCHEMA, operation="op")
    assert info.value.raw


# --- timeouts, 429, 5xx -----------------------------------------------------------------------


def test_a_timeout_is_retried_then_succeeds(server: ScriptedLLMServer) -> None:
    server.script(completion({"ok": False}, delay_s=1.5), completion({"ok": True}))
    ledger, sleeps = InMemoryLedger(), Sleeps()
    llm = make_llm(server, ledger, sleeps=sleeps, timeout_s=0.25)
    assert llm.complete_json("s", "u", SCHEMA, operation="op") == {"ok": True}
    assert _statuses(ledger) == ["timeout", "ok"]
    timeout = ledger.calls()[0]
    assert timeout.error_class == "ProviderTimeout" and timeout.http_status is None
    assert 200 <= timeout.latency_ms < 1400
    assert len({c.call_id for c in ledger.calls()}) == 1 and [c.attempt for c in ledger.calls()] == [1, 2]
    assert sleeps == [0.25]  # equal jitter with jitter 0: half the first ceiling (0.5 s)


def test_timeouts_until_the_retries_run_out(server: ScriptedLLMServer) -> None:
    server.script(*[completion({"ok": True}, delay_s=1.5)] * 2)
    ledger = InMemoryLedger()
    with pytest.raises(ProviderTimeout, match="after 2 attempts") as info:
        make_llm(server, ledger, timeout_s=0.2, max_retries=1).complete_json("s", "u", SCHEMA, operation="op")
    assert isinstance(info.value, TimeoutError) and info.value.retryable
    assert _statuses(ledger) == ["timeout", "timeout"]
    _no_key(info.value)


def test_429_then_success_honours_retry_after(server: ScriptedLLMServer) -> None:
    server.script(rate_limited(retry_after="7"), completion({"ok": True}))
    ledger, sleeps = InMemoryLedger(), Sleeps()
    assert make_llm(server, ledger, sleeps=sleeps).complete_json("s", "u", SCHEMA, operation="op") == {"ok": True}
    assert sleeps == [7.0]
    assert _statuses(ledger) == ["rate_limited", "ok"]
    assert ledger.calls()[0].http_status == 429 and ledger.calls()[0].error_class == "ProviderRateLimited"


def test_retry_after_as_an_http_date(server: ScriptedLLMServer) -> None:
    when = format_datetime(datetime.now(timezone.utc) + timedelta(seconds=30), usegmt=True)
    server.script(rate_limited(retry_after=when), completion({"ok": True}))
    sleeps = Sleeps()
    make_llm(server, sleeps=sleeps).complete_json("s", "u", SCHEMA, operation="op")
    assert len(sleeps) == 1 and 20 <= sleeps[0] <= 31


def test_429_without_retry_after_backs_off_with_jitter(server: ScriptedLLMServer) -> None:
    server.script(rate_limited(retry_after=None), rate_limited(retry_after=None), completion({"ok": True}))
    sleeps = Sleeps()
    make_llm(server, sleeps=sleeps, jitter=0.5).complete_json("s", "u", SCHEMA, operation="op")
    assert sleeps == [0.375, 0.75]  # ceilings 0.5 and 1.0; equal jitter at 0.5 → 3/4 of each


def test_a_retry_after_beyond_the_limit_ends_the_call_for_the_job_queue(server: ScriptedLLMServer) -> None:
    server.script(rate_limited(retry_after="3600"), completion({"ok": True}))
    sleeps = Sleeps()
    with pytest.raises(ProviderRateLimited) as info:
        make_llm(server, sleeps=sleeps).complete_json("s", "u", SCHEMA, operation="op")
    assert info.value.retry_after == 3600 and info.value.status == 429 and info.value.retryable
    assert sleeps == [] and len(server.requests) == 1
    assert "Rate limit reached" in str(info.value)


def test_500s_until_the_retries_run_out(server: ScriptedLLMServer) -> None:
    server.script(*[error(500, "internal error")] * 3, completion({"ok": True}))
    ledger, sleeps = InMemoryLedger(), Sleeps()
    with pytest.raises(ProviderUnavailable, match=r"HTTP 500.*internal error.*after 3 attempts") as info:
        make_llm(server, ledger, sleeps=sleeps, jitter=0.999).complete_json("s", "u", SCHEMA, operation="op")
    assert info.value.status == 500 and info.value.retryable
    assert len(server.requests) == 3 and server.pending == 1
    assert _statuses(ledger) == ["unavailable"] * 3 and {c.http_status for c in ledger.calls()} == {500}
    assert sleeps == pytest.approx([0.5, 1.0], abs=0.001)  # ceilings 0.5, 1.0: never above them


def test_backoff_is_capped(server: ScriptedLLMServer) -> None:
    server.script(*[error(503, "overloaded")] * 6, completion({"ok": True}))
    sleeps = Sleeps()
    make_llm(server, sleeps=sleeps, jitter=0.999, max_retries=6, backoff_max_s=2.0).complete_json(
        "s", "u", SCHEMA, operation="op")
    assert sleeps == pytest.approx([0.5, 1.0, 2.0, 2.0, 2.0, 2.0], abs=0.002)


def test_a_refused_connection_is_unavailable(server: ScriptedLLMServer) -> None:
    ledger = InMemoryLedger()
    llm = make_llm(server, ledger, max_retries=1)
    server.stop()
    with pytest.raises(ProviderUnavailable, match="connection failed") as info:
        llm.complete_json("s", "u", SCHEMA, operation="op")
    assert _statuses(ledger) == ["unavailable", "unavailable"] and info.value.status is None
    _no_key(info.value)


# --- 4xx: clear, not retried, key redacted ----------------------------------------------------


def test_401_is_not_retried_and_the_echoed_key_is_redacted(server: ScriptedLLMServer) -> None:
    server.script(error(401, f"Incorrect API key provided: {KEY}. You can find your API key at …"),
                  completion({"ok": True}))
    ledger, sleeps = InMemoryLedger(), Sleeps()
    with pytest.raises(ProviderRejected) as info:
        make_llm(server, ledger, sleeps=sleeps).complete_json("s", "u", SCHEMA, operation="op")
    exc = info.value
    assert exc.status == 401 and not exc.retryable and exc.provider == "local"
    assert "HTTP 401" in str(exc) and "Incorrect API key provided: [redacted]" in str(exc)
    assert "after" not in str(exc)
    assert len(server.requests) == 1 and sleeps == []
    assert _statuses(ledger) == ["rejected"]
    _no_key(exc)


def test_a_masked_key_fragment_is_redacted_too(server: ScriptedLLMServer) -> None:
    server.script(error(403, f"key {KEY[:14]}****{KEY[-4:]} has no access to model test-model"))
    with pytest.raises(ProviderRejected) as info:
        make_llm(server).complete_json("s", "u", SCHEMA, operation="op")
    assert KEY[:14] not in str(info.value) and "has no access to model test-model" in str(info.value)


def test_400_carries_the_providers_message(server: ScriptedLLMServer) -> None:
    server.script(error(400, "'messages' must contain the word 'json' in some form"))
    with pytest.raises(ProviderRejected, match="HTTP 400.*must contain the word 'json'"):
        make_llm(server).complete_json("s", "u", SCHEMA, operation="op")


def test_a_long_non_json_error_body_is_cut(server: ScriptedLLMServer) -> None:
    server.script(raw("x" * 5000, status=404))
    with pytest.raises(ProviderRejected) as info:
        make_llm(server).complete_json("s", "u", SCHEMA, operation="op")
    assert len(str(info.value)) < 400


# --- the SQLite ledger ------------------------------------------------------------------------


def test_the_sqlite_ledger_records_every_attempt_and_never_the_key(server: ScriptedLLMServer, tmp_path: Path) -> None:
    path = tmp_path / "store.db"
    SQLiteStorage(path).close()  # the store's migrations create llm_calls
    ledger = SQLiteLedger.open(path)
    llm = make_llm(server, ledger)
    server.script(
        rate_limited(retry_after="0"), completion({"ok": True}, prompt_tokens=10, completion_tokens=2),
        error(401, f"Incorrect API key provided: {KEY}"),
        error(500, f"upstream said Bearer {KEY}"), completion(f"not json {KEY[:3]}"),
    )
    errors: list[ProviderError] = []
    assert llm.complete_json("s", "u", SCHEMA, operation="extract", job_id="job_a") == {"ok": True}
    for _ in range(2):
        with pytest.raises(ProviderError) as info:
            llm.complete_json("s", "u", SCHEMA, operation="audit", job_id="job_b")
        errors.append(info.value)
    assert [type(e) for e in errors] == [ProviderRejected, MalformedResponse]

    calls = ledger.calls()
    assert [(c.job_id, c.operation, c.attempt, c.status, c.error_class, c.http_status) for c in calls] == [
        ("job_a", "extract", 1, "rate_limited", "ProviderRateLimited", 429),
        ("job_a", "extract", 2, "ok", None, 200),
        ("job_b", "audit", 1, "rejected", "ProviderRejected", 401),
        ("job_b", "audit", 1, "unavailable", "ProviderUnavailable", 500),
        ("job_b", "audit", 2, "malformed", "MalformedResponse", 200),
    ]
    assert all(c.status in STATUSES and c.created_at == T0 and c.model == "test-model" for c in calls)
    assert [c.attempt for c in ledger.calls(job_id="job_a")] == [1, 2]
    assert ledger.totals() == {"calls": 3, "attempts": 5, "prompt_tokens": 130, "completion_tokens": 32,
                               "status:malformed": 1, "status:ok": 1, "status:rate_limited": 1,
                               "status:rejected": 1, "status:unavailable": 1}
    ledger.close()
    llm.close()
    for e in errors:
        _no_key(e)
    files = [p for p in tmp_path.iterdir() if p.is_file()]
    assert files
    for p in files:
        assert KEY.encode() not in p.read_bytes(), p.name


def test_the_ledger_table_comes_with_the_store_migrations(tmp_path: Path) -> None:
    store = SQLiteStorage(tmp_path / "s.db")
    names = [r[0] for r in store.connection.execute("SELECT name FROM _migrations ORDER BY rowid")]
    columns = [r[1] for r in store.connection.execute("PRAGMA table_info(llm_calls)")]
    store.close()
    assert "0003_llm_ledger" in names
    assert columns[1:] == ["call_id", "attempt", "provider", "model", "operation", "job_id", "status", "error_class",
                           "http_status", "prompt_tokens", "completion_tokens", "latency_ms", "created_at",
                           "capability", "items", "cost"]  # the last three: 0013_budget (ADR 0034)


def test_a_borrowed_connection_stays_open(tmp_path: Path) -> None:
    store = SQLiteStorage(tmp_path / "s.db")
    ledger = SQLiteLedger(store.connection)
    assert isinstance(ledger, LedgerSink)
    ledger.close()
    assert store.connection.execute("SELECT COUNT(*) FROM llm_calls").fetchone() == (0,)
    store.close()


# --- configuration and presets -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "base_url", "env", "model", "fmt"),
    [
        ("openai", "https://api.openai.com/v1", "OPENAI_API_KEY", "gpt-4o-mini", ResponseFormat.JSON_SCHEMA),
        ("dashscope", "https://dashscope.aliyuncs.com/compatible-mode/v1", "DASHSCOPE_API_KEY", "qwen-plus",
         ResponseFormat.JSON_OBJECT),
        ("zhipu", "https://open.bigmodel.cn/api/paas/v4", "ZHIPUAI_API_KEY", "glm-4-flash",
         ResponseFormat.JSON_OBJECT),
    ],
)
def test_presets(name: str, base_url: str, env: str, model: str, fmt: ResponseFormat) -> None:
    config = LLMConfig.from_preset(name)
    assert (config.base_url, config.api_key_env, config.model, config.response_format) == (base_url, env, model, fmt)
    turbo = LLMConfig.from_preset(name, model="other-model", timeout_s=5)
    assert turbo.model == "other-model" and turbo.base_url == base_url and turbo.timeout_s == 5


def test_each_preset_calls_its_endpoint_with_its_key() -> None:
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, json={"choices": [{"message": {"content": '{"ok": true}'}}]})

    for name in ("openai", "dashscope", "zhipu"):
        env = {PRESETS[name].api_key_env: f"key-for-{name}-0123456789"}
        with OpenAICompatLLM(LLMConfig.from_preset(name), ledger=InMemoryLedger(), env=env,
                             transport=httpx.MockTransport(handler)) as llm:
            assert llm.complete_json("s", "u", SCHEMA, operation="op") == {"ok": True}
            assert llm.model_id == f"{name}:{PRESETS[name].model}"
    assert [str(r.url) for r in seen] == [
        "https://api.openai.com/v1/chat/completions",
        "https://dashscope.aliyuncs.com/compatible-mode/v1/chat/completions",
        "https://open.bigmodel.cn/api/paas/v4/chat/completions",
    ]
    assert [r.headers["authorization"] for r in seen] == [
        "Bearer key-for-openai-0123456789", "Bearer key-for-dashscope-0123456789", "Bearer key-for-zhipu-0123456789"]


def test_the_local_preset_needs_a_base_url_and_a_model() -> None:
    with pytest.raises(ConfigurationError, match="base_url"):
        LLMConfig.from_preset("local", model="m")
    with pytest.raises(ConfigurationError, match="model"):
        LLMConfig.from_preset("local", base_url="http://127.0.0.1:8080/v1")
    config = LLMConfig.from_mapping({"provider": "local", "base_url": "http://127.0.0.1:8080/v1/", "model": "m"})
    assert config.base_url == "http://127.0.0.1:8080/v1" and config.api_key_env is None


@pytest.mark.parametrize("secret", ["api_key", "token", "authorization"])
def test_a_key_in_configuration_is_refused(secret: str) -> None:
    with pytest.raises(ConfigurationError, match="environment variable") as info:
        LLMConfig.from_mapping({"provider": "zhipu", secret: KEY})
    assert KEY not in str(info.value)


@pytest.mark.parametrize(
    "overrides",
    [{"provider": "nope"}, {"base_url": "api.openai.com/v1"}, {"timeout_s": 0}, {"timeout_s": float("nan")}, {"max_retries": -1},
     {"max_retries": 1.5}, {"response_format": "xml"}, {"colour": "blue"}],
)
def test_bad_settings_are_configuration_errors(overrides: dict[str, object]) -> None:
    with pytest.raises(ConfigurationError):
        LLMConfig.from_mapping({"provider": "openai", **overrides})


def test_a_missing_key_names_the_variable_not_a_value() -> None:
    with pytest.raises(ConfigurationError, match="DASHSCOPE_API_KEY"):
        OpenAICompatLLM(LLMConfig.from_preset("dashscope"), ledger=InMemoryLedger(), env={})
    with pytest.raises(ConfigurationError, match="DASHSCOPE_API_KEY"):
        OpenAICompatLLM(LLMConfig.from_preset("dashscope"), ledger=InMemoryLedger(), env={"DASHSCOPE_API_KEY": " "})


def test_the_key_is_read_from_the_process_environment_by_default(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ZHIPUAI_API_KEY", KEY)
    seen: list[str] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request.headers["authorization"])
        return httpx.Response(200, json={"choices": [{"message": {"content": '{"ok": true}'}}]})

    OpenAICompatLLM(LLMConfig.from_preset("zhipu"), ledger=InMemoryLedger(),
                    transport=httpx.MockTransport(handler)).complete_json("s", "u", SCHEMA, operation="op")
    assert seen == [f"Bearer {KEY}"] and os.environ["ZHIPUAI_API_KEY"] == KEY


def test_missing_usage_records_no_tokens() -> None:
    ledger = InMemoryLedger()
    transport = httpx.MockTransport(
        lambda request: httpx.Response(200, json={"choices": [{"message": {"content": '{"ok": true}'}}],
                                                  "usage": {"prompt_tokens": "many"}}))
    OpenAICompatLLM(LLMConfig.from_preset("local", base_url="http://llm.test/v1", model="m"), ledger=ledger,
                    transport=transport).complete_json("s", "u", SCHEMA, operation="op")
    [call] = ledger.calls()
    assert (call.prompt_tokens, call.completion_tokens, call.http_status) == (None, None, 200)


def test_a_failing_ledger_is_not_silenced() -> None:
    class Broken:
        def record(self, call: LLMCall) -> None:
            raise OSError("disk full")

    transport = httpx.MockTransport(
        lambda request: httpx.Response(200, json={"choices": [{"message": {"content": '{"ok": true}'}}]}))
    llm = OpenAICompatLLM(LLMConfig.from_preset("local", base_url="http://llm.test/v1", model="m"), ledger=Broken(),
                          transport=transport)
    with pytest.raises(OSError, match="disk full"):
        llm.complete_json("s", "u", SCHEMA, operation="op")
