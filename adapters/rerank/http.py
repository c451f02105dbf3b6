"""``HTTPReranker``: the Reranker port over a rerank HTTP endpoint (Cohere-style, TEI or DashScope), via httpx.

Documents go out in batches of ``max_documents``, each cut to ``max_chars`` characters. Each
batch is one logical call: 429 (honouring ``Retry-After``), 5xx, timeouts and connection errors
are retried with exponential backoff and equal jitter; another 4xx or a malformed answer is not.
Every attempt goes to the LLM call ledger as operation ``"rerank"`` (provider, model, status,
error class, HTTP status, ``usage.total_tokens`` as prompt tokens, latency) — never the key, the
query or the texts. The key is read from the environment once, sent only in the
``Authorization`` header, and redacted from every message this module builds (ADR 0017).
"""

from __future__ import annotations

import os
import random
import time
import uuid
from collections.abc import Callable, Mapping, Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any

import httpx

from hlmem.adapters.http_common import json_payload, ledger_status, post, read_key, redact, retry_delay
from hlmem.adapters.llm.ledger import LedgerSink, LLMCall
from hlmem.adapters.rerank.config import RerankConfig
from hlmem.adapters.rerank.wire import WireError, request_body, scores_in_input_order, total_tokens
from hlmem.domain.errors import (
    MalformedResponse,
    ProviderError,
)
from hlmem.domain.time import UTC

if TYPE_CHECKING:
    from hlmem.application.ports import Clock

#: The ``operation`` rerank calls carry in the ledger.
OPERATION = "rerank"
#: Most characters of a malformed answer kept in ``MalformedResponse.raw``.
_RAW_CHARS = 16_384


class HTTPReranker:
    """A :class:`hlmem.application.ports.Reranker` for Cohere, Jina, DashScope and local servers.

    :param config: endpoint, wire style, model, key variable, timeouts, retry policy and limits.
    :param ledger: receives one :class:`LLMCall` (operation ``"rerank"``) per HTTP attempt.
    :param env: where the key variable is looked up (default ``os.environ``).
    :param transport: an httpx transport (tests pass ``httpx.MockTransport``).
    :param sleep: waits between attempts (tests pass a recorder, so nothing waits).
    :param jitter: returns a float in ``[0, 1)``; spreads waits so clients do not retry in step.
    :param clock: stamps ledger records (default: the system's UTC time).
    :raises ConfigurationError: when the key variable is named but unset or empty.
    """

    def __init__(
        self, config: RerankConfig, *, ledger: LedgerSink, env: Mapping[str, str] | None = None,
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
        self._key = read_key(f"{config.provider} rerank", config.api_key_env, os.environ if env is None else env)
        headers = {"Accept": "application/json"}
        if self._key:
            headers["Authorization"] = f"Bearer {self._key}"
        self._client = httpx.Client(headers=headers, transport=transport, timeout=httpx.Timeout(config.timeout_s))

    def __repr__(self) -> str:
        return f"HTTPReranker({self.model_id!r}, url={self.config.url!r}, wire={self.config.wire.value!r})"

    @property
    def model_id(self) -> str:
        return f"{self.config.provider}:{self.config.model}"

    def close(self) -> None:
        """Close the HTTP connection pool."""
        self._client.close()

    def __enter__(self) -> HTTPReranker:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()

    # -- the port -----------------------------------------------------------------------------

    def rerank(self, query: str, texts: Sequence[str]) -> list[float]:
        """One score per text, in input order, higher is more relevant (see the port's contract).

        Texts the provider left unscored get ``-inf``. Scores of different batches are compared
        as they are: rerankers score each (query, document) pair on its own.

        :raises ProviderError: a subclass naming what failed, after the retries it allows.
        """
        if not texts:
            return []
        cut = self.config.max_chars
        query = query[:cut]
        documents = [text[:cut] for text in texts]
        size = self.config.max_documents
        scores: list[float] = []
        for start in range(0, len(documents), size):
            scores += self._score_batch(query, documents[start:start + size])
        return scores

    # -- one batch ------------------------------------------------------------------------------

    def _score_batch(self, query: str, documents: list[str]) -> list[float]:
        body = request_body(self.config, query, documents)
        call_id = uuid.uuid4().hex
        attempts = self.config.max_retries + 1
        for attempt in range(1, attempts + 1):
            started = self._monotonic()
            tokens: int | None = None
            http_status: int | None = None
            try:
                response = self._post(body)
                http_status = response.status_code
                payload = self._payload(response)
                tokens = total_tokens(payload)  # before the shape is judged: a malformed answer was paid for
                scores = self._scores(payload, len(documents), response.text)
            except ProviderError as exc:
                self._record(call_id, attempt, exc, exc.status or http_status, tokens, started)
                delay = self._retry_delay(exc, attempt, attempts)
                if delay is None:
                    if attempt > 1 and exc.retryable:
                        exc.args = (f"{exc.args[0]} (after {attempt} attempts)",)
                    raise
                self._sleep(delay)
                continue
            self._record(call_id, attempt, None, http_status, tokens, started)
            return scores
        raise AssertionError("unreachable: the last attempt returns or raises")

    def _post(self, body: dict[str, Any]) -> httpx.Response:
        return post(self._client, self.config.url, body, provider=self.config.provider, timeout_s=self.config.timeout_s,
                    key=self._key, what="rerank ")

    def _payload(self, response: httpx.Response) -> Any:
        """The JSON body of a 200, or the error the status means."""
        return json_payload(response, provider=self.config.provider, key=self._key, raw_chars=_RAW_CHARS,
                            what="rerank ")

    def _scores(self, payload: Any, count: int, body: str) -> list[float]:
        try:
            return scores_in_input_order(self.config.wire, payload, count)
        except WireError as exc:
            provider = self.config.provider
            raise MalformedResponse(f"{provider}: not a {self.config.wire.value} rerank answer: {exc}",
                                    raw=self._raw(body), provider=provider, status=200) from None

    # -- retries and accounting -------------------------------------------------------------------

    def _retry_delay(self, exc: ProviderError, attempt: int, attempts: int) -> float | None:
        """Seconds to wait before the next attempt, or None to give up now."""
        c = self.config
        return retry_delay(exc, attempt, attempts, max_retry_after_s=c.max_retry_after_s,
                           backoff_base_s=c.backoff_base_s, backoff_max_s=c.backoff_max_s, jitter=self._jitter)

    def _record(self, call_id: str, attempt: int, exc: ProviderError | None, http_status: int | None,
                tokens: int | None, started: float) -> None:
        latency_ms = max(0, round((self._monotonic() - started) * 1000))
        status = ledger_status(exc)
        self._ledger.record(LLMCall(
            call_id=call_id, attempt=attempt, provider=self.config.provider, model=self.config.model,
            operation=OPERATION, job_id=None, status=status, error_class=None if exc is None else type(exc).__name__,
            http_status=http_status, prompt_tokens=tokens, completion_tokens=None, latency_ms=latency_ms,
            created_at=self._clock.now() if self._clock else datetime.now(UTC),
        ))

    # -- keeping the key out of every message ------------------------------------------------------

    def _redact(self, text: str) -> str:
        return redact(text, self._key)

    def _raw(self, text: str) -> str:
        return self._redact(text[:_RAW_CHARS])


