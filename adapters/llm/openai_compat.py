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
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

import httpx

from hlmem.adapters.http.client import ProviderClient
from hlmem.adapters.llm.ledger import LedgerSink
from hlmem.adapters.llm.presets import LLMConfig, ResponseFormat
from hlmem.application.extraction.prompt import decode_json_object
from hlmem.domain.budget import DEFAULT_COMPLETION_TOKENS, MESSAGE_OVERHEAD_TOKENS, Demand, estimate_tokens
from hlmem.domain.errors import MalformedResponse

if TYPE_CHECKING:
    from hlmem.application.budget import BudgetGuard
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
    :param budget: the daily budget every attempt reserves from (None: no budget; docs/budget.md).
    :raises ConfigurationError: when the key variable is named but unset or empty.
    """

    def __init__(
        self, config: LLMConfig, *, ledger: LedgerSink, env: Mapping[str, str] | None = None,
        transport: httpx.BaseTransport | None = None, sleep: Callable[[float], None] = time.sleep,
        jitter: Callable[[], float] = random.random, monotonic: Callable[[], float] = time.monotonic,
        clock: Clock | None = None, budget: BudgetGuard | None = None,
    ) -> None:
        self.config = config
        self._http = ProviderClient(config, ledger=ledger, key_label=config.provider, what="", raw_chars=_RAW_CHARS,
                                    env=os.environ if env is None else env, base_url=config.base_url,
                                    transport=transport, sleep=sleep, jitter=jitter, monotonic=monotonic, clock=clock,
                                    budget=budget)
        self._client = self._http.client

    def __repr__(self) -> str:
        return f"OpenAICompatLLM({self.model_id!r}, base_url={self.config.base_url!r})"

    @property
    def model_id(self) -> str:
        return f"{self.config.provider}:{self.config.model}"

    def close(self) -> None:
        """Close the HTTP connection pool."""
        self._http.close()

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
        return self._http.call("/chat/completions", body, operation=operation, job_id=job_id, usage=_usage,
                               parse=self._content, demand=_demand(body))

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
        elif fmt is ResponseFormat.JSON_OBJECT_SCHEMA:
            body["response_format"] = {"type": "json_object", "schema": json.loads(schema_json)}
        return body

    def _content(self, payload: Any, body: str) -> dict[str, Any]:
        """The JSON object in ``choices[0].message.content``."""
        provider = self.config.provider
        try:
            choice = payload["choices"][0]
            message = choice["message"]
        except (KeyError, IndexError, TypeError):
            raise MalformedResponse(f"{provider}: no choices[0].message in the response", raw=self._http.raw(body),
                                    provider=provider, status=200) from None
        content = message.get("content") if isinstance(message, dict) else None
        if not isinstance(content, str) or not content.strip():
            refusal = message.get("refusal") if isinstance(message, dict) else None
            why = f"the model refused: {refusal}" if refusal else "the answer has no text content"
            raise MalformedResponse(f"{provider}: {self._http.redact(why)}", raw=self._http.raw(body), provider=provider,
                                    status=200)
        try:
            return decode_json_object(content)
        except MalformedResponse as exc:
            cut = ""
            if choice.get("finish_reason") == "length":
                limit = self.config.max_tokens
                cut = " (cut off at the token limit" + (
                    f", llm.max_tokens = {limit}: raise it, or make windows smaller)" if limit is not None
                    else " of the server: set a larger llm.max_tokens)")
            raise MalformedResponse(f"{provider}: {exc.args[0]}{cut}", raw=self._http.raw(content), provider=provider,
                                    status=200) from None


def _demand(body: Mapping[str, Any]) -> Demand:
    """What a chat request asks for: its messages' (and schema's) estimated tokens, completion up to ``max_tokens``."""
    prompt = sum(estimate_tokens(m["content"]) + MESSAGE_OVERHEAD_TOKENS for m in body["messages"])
    if "response_format" in body:
        prompt += estimate_tokens(json.dumps(body["response_format"], ensure_ascii=False))
    completion = body.get("max_tokens") or DEFAULT_COMPLETION_TOKENS
    return Demand(capability="chat", prompt_tokens=prompt, completion_tokens=completion)


def _usage(payload: Any) -> tuple[int | None, int | None]:
    usage = payload.get("usage") if isinstance(payload, dict) else None
    if not isinstance(usage, dict):
        return None, None

    def count(name: str) -> int | None:
        value = usage.get(name)
        return value if type(value) is int and value >= 0 else None

    return count("prompt_tokens"), count("completion_tokens")
