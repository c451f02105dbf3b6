"""``OpenAICompatLLM``: the LLM port over an OpenAI-compatible ``/chat/completions`` endpoint (httpx).

Retries 429 (honouring ``Retry-After``), 5xx, timeouts and connection errors with exponential
backoff and jitter; never retries another 4xx or a malformed answer. Every attempt goes to the
ledger. The API key is read from the environment once, sent only in the ``Authorization`` header,
and redacted from every message this module builds (ADR 0010).
"""

from __future__ import annotations

import json
import os
import random
import re
import time
import uuid
from collections.abc import Callable, Mapping
from datetime import datetime
from typing import TYPE_CHECKING, Any

import httpx

from hlmem.adapters.http_common import json_payload, ledger_status, post, read_key, redact, retry_delay
from hlmem.adapters.llm.ledger import LedgerSink, LLMCall
from hlmem.adapters.llm.presets import LLMConfig, ResponseFormat
from hlmem.application.extraction.prompt import decode_json_object
from hlmem.domain.errors import (
    MalformedResponse,
    ProviderError,
)
from hlmem.domain.time import UTC

if TYPE_CHECKING:
    from hlmem.application.ports import Clock

#: Most characters of a malformed answer kept in ``MalformedResponse.raw``.
_RAW_CHARS = 65_536


class OpenAICompatLLM:
    """An :class:`hlmem.application.ports.LLM` for OpenAI, DashScope, Zhipu and local servers.

    :param config: endpoint, model, key variable, timeouts and retry policy.
    :param ledger: receives one :class:`LLMCall` per HTTP attempt.
    :param env: where the key variable is looked up (default ``os.environ``).
    :param transport: an httpx transport (tests pass ``httpx.MockTransport``).
    :param sleep: waits between attempts (tests pass a recorder, so nothing waits).
    :param jitter: returns a float in ``[0, 1)``; spreads waits so clients do not retry in step.
    :param clock: stamps ledger records (default: the system's UTC time).
    :raises ConfigurationError: when the key variable is named but unset or empty.
    """

    def __init__(
        self, config: LLMConfig, *, ledger: LedgerSink, env: Mapping[str, str] | None = None,
        transport: httpx.BaseTransport | None = None, sleep: Callable[[float], None] = time.sleep,
        jitter: Callable[[], float] = random.random, monotonic: Callable[[], float] = time.monotonic,
        clock: Clock | None = None,
    ) -> None:
        self.config = config
        self._ledger = ledger
        self._sleep = sleep
        self._jitter = jitter
        self._monotonic = monotonic
        self._clock = clock
        self._key = read_key(config.provider, config.api_key_env, os.environ if env is None else env)
        headers = {"Accept": "application/json"}
        if self._key:
            headers["Authorization"] = f"Bearer {self._key}"
        self._client = httpx.Client(base_url=config.base_url, headers=headers, transport=transport,
                                    timeout=httpx.Timeout(config.timeout_s))

    def __repr__(self) -> str:
        return f"OpenAICompatLLM({self.model_id!r}, base_url={self.config.base_url!r})"

    @property
    def model_id(self) -> str:
        return f"{self.config.provider}:{self.config.model}"

    def close(self) -> None:
        """Close the HTTP connection pool."""
        self._client.close()

    def __enter__(self) -> OpenAICompatLLM:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()

    # -- the port -----------------------------------------------------------------------------

    def complete_json(
        self, system: str, user: str, schema: Mapping[str, Any], *, operation: str, job_id: str | None = None
    ) -> dict[str, Any]:
        """One structured completion; see the port's contract in :class:`hlmem.application.ports.LLM`.

        :raises ProviderError: a subclass naming what failed, after the retries it allows.
        """
        body = self._request_body(system, user, schema, operation)
        call_id = uuid.uuid4().hex
        attempts = self.config.max_retries + 1
        for attempt in range(1, attempts + 1):
            started = self._monotonic()
            usage: tuple[int | None, int | None] = (None, None)
            http_status: int | None = None
            try:
                response = self._post(body)
                http_status = response.status_code
                payload = self._payload(response)
                usage = _usage(payload)  # before the content is judged: a malformed answer cost tokens too
                result = self._content(payload, response.text)
            except ProviderError as exc:
                self._record(call_id, attempt, operation, job_id, exc, exc.status or http_status, usage, started)
                delay = self._retry_delay(exc, attempt, attempts)
                if delay is None:
                    if attempt > 1 and exc.retryable:
                        exc.args = (f"{exc.args[0]} (after {attempt} attempts)",)
                    raise
                self._sleep(delay)
                continue
            self._record(call_id, attempt, operation, job_id, None, http_status, usage, started)
            return result
        raise AssertionError("unreachable: the last attempt returns or raises")

    # -- one attempt ----------------------------------------------------------------------------

    def _request_body(self, system: str, user: str, schema: Mapping[str, Any], operation: str) -> dict[str, Any]:
        fmt = self.config.response_format
        schema_json = json.dumps(schema, ensure_ascii=False, separators=(",", ":"))
        if fmt is not ResponseFormat.JSON_SCHEMA:
            # JSON mode needs the word JSON in the messages (DashScope refuses the call without it).
            system = f"{system}\n\nAnswer with one JSON object that conforms to this JSON Schema:\n{schema_json}"
        body: dict[str, Any] = {
            "model": self.config.model,
            "messages": [{"role": "system", "content": system}, {"role": "user", "content": user}],
            "temperature": self.config.temperature,
            "stream": False,
        }
        if self.config.max_tokens is not None:
            body["max_tokens"] = self.config.max_tokens
        if fmt is ResponseFormat.JSON_SCHEMA:
            name = re.sub(r"[^A-Za-z0-9_-]", "_", operation)[:64] or "response"
            body["response_format"] = {"type": "json_schema",
                                       "json_schema": {"name": name, "strict": True, "schema": json.loads(schema_json)}}
        elif fmt is ResponseFormat.JSON_OBJECT:
            body["response_format"] = {"type": "json_object"}
        return body

    def _post(self, body: dict[str, Any]) -> httpx.Response:
        return post(self._client, "/chat/completions", body, provider=self.config.provider, timeout_s=self.config.timeout_s,
                    key=self._key, what="")

    def _payload(self, response: httpx.Response) -> Any:
        """The JSON body of a 200, or the error the status means."""
        return json_payload(response, provider=self.config.provider, key=self._key, raw_chars=_RAW_CHARS,
                            what="")

    def _content(self, payload: Any, body: str) -> dict[str, Any]:
        """The JSON object in ``choices[0].message.content``."""
        provider = self.config.provider
        try:
            choice = payload["choices"][0]
            message = choice["message"]
        except (KeyError, IndexError, TypeError):
            raise MalformedResponse(f"{provider}: no choices[0].message in the response", raw=self._raw(body),
                                    provider=provider, status=200) from None
        content = message.get("content") if isinstance(message, dict) else None
        if not isinstance(content, str) or not content.strip():
            refusal = message.get("refusal") if isinstance(message, dict) else None
            why = f"the model refused: {refusal}" if refusal else "the answer has no text content"
            raise MalformedResponse(f"{provider}: {self._redact(why)}", raw=self._raw(body), provider=provider,
                                    status=200)
        try:
            return decode_json_object(content)
        except MalformedResponse as exc:
            cut = " (cut off at the token limit)" if choice.get("finish_reason") == "length" else ""
            raise MalformedResponse(f"{provider}: {exc.args[0]}{cut}", raw=self._raw(content), provider=provider,
                                    status=200) from None

    # -- retries and accounting -------------------------------------------------------------------

    def _retry_delay(self, exc: ProviderError, attempt: int, attempts: int) -> float | None:
        """Seconds to wait before the next attempt, or None to give up now."""
        c = self.config
        return retry_delay(exc, attempt, attempts, max_retry_after_s=c.max_retry_after_s,
                           backoff_base_s=c.backoff_base_s, backoff_max_s=c.backoff_max_s, jitter=self._jitter)

    def _record(self, call_id: str, attempt: int, operation: str, job_id: str | None, exc: ProviderError | None,
                http_status: int | None, usage: tuple[int | None, int | None], started: float) -> None:
        latency_ms = max(0, round((self._monotonic() - started) * 1000))
        status = ledger_status(exc)
        self._ledger.record(LLMCall(
            call_id=call_id, attempt=attempt, provider=self.config.provider, model=self.config.model,
            operation=operation, job_id=job_id, status=status, error_class=None if exc is None else type(exc).__name__,
            http_status=http_status, prompt_tokens=usage[0], completion_tokens=usage[1], latency_ms=latency_ms,
            created_at=self._clock.now() if self._clock else datetime.now(UTC),
        ))

    # -- keeping the key out of every message ------------------------------------------------------

    def _redact(self, text: str) -> str:
        return redact(text, self._key)

    def _raw(self, text: str) -> str:
        return self._redact(text[:_RAW_CHARS])


def _usage(payload: Any) -> tuple[int | None, int | None]:
    usage = payload.get("usage") if isinstance(payload, dict) else None
    if not isinstance(usage, dict):
        return None, None

    def count(name: str) -> int | None:
        value = usage.get(name)
        return value if type(value) is int and value >= 0 else None

    return count("prompt_tokens"), count("completion_tokens")
