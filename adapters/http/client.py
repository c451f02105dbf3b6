"""``ProviderClient``: one HTTP provider endpoint (LLM, reranker) with its key, retries and ledger.

The attempt loop both provider adapters ran: POST the body, turn the status into a provider
error, read the tokens a reply reports *before* judging its shape (a malformed answer was paid
for too), record every attempt in the ledger, wait and retry what :func:`retry_delay` allows,
and say how many attempts a retryable failure took. The key is read from the environment once,
sent only in the ``Authorization`` header and redacted from every message (ADR 0010, ADR 0017).
What a request and an answer look like stays in each adapter (``parse``, ``usage``).
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Mapping
from datetime import datetime
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

import httpx

from hlmem.adapters.http.common import json_payload, ledger_status, post, read_key, redact, retry_delay
from hlmem.adapters.llm.ledger import LedgerSink, LLMCall
from hlmem.domain.budget import Demand
from hlmem.domain.errors import ProviderError
from hlmem.domain.time import UTC

if TYPE_CHECKING:
    from hlmem.application.budget import BudgetGuard, Hold
    from hlmem.application.ports import Clock

T = TypeVar("T")
#: Tokens an answer reports: (prompt, completion), either None when not reported.
Usage = tuple[int | None, int | None]


class ProviderSettings(Protocol):
    """The parts of a provider's configuration the client reads (``LLMConfig``, ``RerankConfig``)."""

    provider: str
    model: str
    api_key_env: str | None
    timeout_s: float
    max_retries: int
    max_retry_after_s: float
    backoff_base_s: float
    backoff_max_s: float


class ProviderClient:
    """POST JSON to one provider with retries, one ledger record per attempt, the key kept secret.

    :param what: names the answer in messages (``"rerank "``: "no rerank answer within 5 s").
    :param key_label: names the key variable's owner in a configuration error.
    :param raw_chars: most characters of a malformed answer kept in ``MalformedResponse.raw``.
    :param budget: the daily budget (None: none, calls are only recorded). Each *attempt* reserves
        before it is sent (a retry is another request) and settles after: with the reply's usage,
        or at its estimate when the attempt ends without usage (docs/budget.md).
    :raises ConfigurationError: when the key variable is named but unset or empty.
    """

    def __init__(self, config: ProviderSettings, *, ledger: LedgerSink, key_label: str, what: str, raw_chars: int,
                 env: Mapping[str, str], base_url: str | None, transport: httpx.BaseTransport | None,
                 sleep: Callable[[float], None], jitter: Callable[[], float], monotonic: Callable[[], float],
                 clock: Clock | None, budget: BudgetGuard | None = None) -> None:
        self.config = config
        self._budget = budget
        self._ledger = ledger
        self._what = what
        self._raw_chars = raw_chars
        self._sleep = sleep
        self._jitter = jitter
        self._monotonic = monotonic
        self._clock = clock
        self._key = read_key(key_label, config.api_key_env, env)
        headers = {"Accept": "application/json"}
        if self._key:
            headers["Authorization"] = f"Bearer {self._key}"
        extra = {} if base_url is None else {"base_url": base_url}
        #: The httpx client (one connection pool per provider adapter).
        self.client = httpx.Client(headers=headers, transport=transport, timeout=httpx.Timeout(config.timeout_s),
                                  **extra)

    def close(self) -> None:
        """Close the HTTP connection pool."""
        self.client.close()

    def call(self, url: str, body: dict[str, Any], *, operation: str, job_id: str | None,
             usage: Callable[[Any], Usage], parse: Callable[[Any, str], T], demand: Demand | None = None) -> T:
        """One logical call: ``parse(payload, response text)`` of the first attempt that succeeds.

        :param demand: what one attempt asks for (capability, estimated tokens, items): priced and
            reserved before each attempt when there is a budget, and recorded in the ledger.
        :raises BudgetExceeded: the budget refused an attempt before it was sent (nothing sent).
        :raises ProviderError: a subclass naming what failed, after the retries it allows.
        """
        demand = demand or Demand(capability="chat")
        call_id = uuid.uuid4().hex
        attempts = self.config.max_retries + 1
        for attempt in range(1, attempts + 1):
            hold = None if self._budget is None else self._budget.reserve(
                self.config.provider, self.config.model, demand, operation=operation)
            started = self._monotonic()
            tokens: Usage = (None, None)
            http_status: int | None = None
            try:
                response = post(self.client, url, body, provider=self.config.provider, timeout_s=self.config.timeout_s,
                                key=self._key, what=self._what)
                http_status = response.status_code
                payload = json_payload(response, provider=self.config.provider, key=self._key,
                                       raw_chars=self._raw_chars, what=self._what)
                tokens = usage(payload)  # before the answer is judged: a malformed one cost tokens too
                result = parse(payload, response.text)
            except ProviderError as exc:
                cost = self._settle(hold, tokens)
                self._record(call_id, attempt, operation, job_id, exc, exc.status or http_status, tokens, started,
                             demand, cost)
                delay = self._retry_delay(exc, attempt, attempts)
                if delay is None:
                    if attempt > 1 and exc.retryable:
                        exc.args = (f"{exc.args[0]} (after {attempt} attempts)",)
                    raise
                self._sleep(delay)
                continue
            except BaseException:
                self._settle(hold, (None, None))  # an unexpected failure: count the attempt at its estimate
                raise
            cost = self._settle(hold, tokens)
            self._record(call_id, attempt, operation, job_id, None, http_status, tokens, started, demand, cost)
            return result
        raise AssertionError("unreachable: the last attempt returns or raises")

    # -- keeping the key out of every message ------------------------------------------------------

    def redact(self, text: str) -> str:
        return redact(text, self._key)

    def raw(self, text: str) -> str:
        """``text`` cut to the kept length, key removed (for ``MalformedResponse.raw``)."""
        return self.redact(text[:self._raw_chars])

    # -- retries and accounting -------------------------------------------------------------------

    def _retry_delay(self, exc: ProviderError, attempt: int, attempts: int) -> float | None:
        """Seconds to wait before the next attempt, or None to give up now."""
        c = self.config
        return retry_delay(exc, attempt, attempts, max_retry_after_s=c.max_retry_after_s,
                           backoff_base_s=c.backoff_base_s, backoff_max_s=c.backoff_max_s, jitter=self._jitter)

    def _settle(self, hold: Hold | None, tokens: Usage) -> float | None:
        """Settle one attempt's reservation (no budget: nothing); its cost, None when unknown."""
        if hold is None:
            return None
        return self._budget.settle(hold, prompt_tokens=tokens[0], completion_tokens=tokens[1])

    def _record(self, call_id: str, attempt: int, operation: str, job_id: str | None, exc: ProviderError | None,
                http_status: int | None, tokens: Usage, started: float, demand: Demand, cost: float | None) -> None:
        latency_ms = max(0, round((self._monotonic() - started) * 1000))
        self._ledger.record(LLMCall(
            call_id=call_id, attempt=attempt, provider=self.config.provider, model=self.config.model,
            operation=operation, job_id=job_id, status=ledger_status(exc),
            error_class=None if exc is None else type(exc).__name__, http_status=http_status,
            prompt_tokens=tokens[0], completion_tokens=tokens[1], latency_ms=latency_ms,
            created_at=self._clock.now() if self._clock else datetime.now(UTC),
            capability=demand.capability, items=demand.items if demand.capability != "chat" else None, cost=cost,
        ))
