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
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import httpx

from hlmem.adapters.http.client import ProviderClient
from hlmem.adapters.llm.ledger import LedgerSink
from hlmem.adapters.rerank.config import RerankConfig
from hlmem.adapters.rerank.wire import WireError, request_body, scores_in_input_order, total_tokens
from hlmem.domain.budget import Demand, estimate_tokens
from hlmem.domain.errors import MalformedResponse

if TYPE_CHECKING:
    from hlmem.application.budget import BudgetGuard
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
    :param budget: the daily budget every attempt reserves from (None: no budget; docs/budget.md).
        Each batch is one call; its documents are the price book's items.
    :raises ConfigurationError: when the key variable is named but unset or empty.
    """

    def __init__(
        self, config: RerankConfig, *, ledger: LedgerSink, env: Mapping[str, str] | None = None,
        transport: httpx.BaseTransport | None = None, sleep: Callable[[float], None] = time.sleep,
        jitter: Callable[[], float] = random.random, monotonic: Callable[[], float] = time.monotonic,
        clock: Clock | None = None, budget: BudgetGuard | None = None,
    ) -> None:
        self.config = config
        self._http = ProviderClient(config, ledger=ledger, key_label=f"{config.provider} rerank", what="rerank ",
                                    raw_chars=_RAW_CHARS, env=os.environ if env is None else env, base_url=None,
                                    transport=transport, sleep=sleep, jitter=jitter, monotonic=monotonic, clock=clock,
                                    budget=budget)
        self._client = self._http.client

    def __repr__(self) -> str:
        return f"HTTPReranker({self.model_id!r}, url={self.config.url!r}, wire={self.config.wire.value!r})"

    @property
    def model_id(self) -> str:
        return f"{self.config.provider}:{self.config.model}"

    def close(self) -> None:
        """Close the HTTP connection pool."""
        self._http.close()

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
        count = len(documents)
        # A reranker reads the query with every document: that is what it bills as tokens.
        demand = Demand(capability="rerank", items=count,
                        prompt_tokens=count * estimate_tokens(query) + sum(map(estimate_tokens, documents)))
        return self._http.call(self.config.url, body, operation=OPERATION, job_id=None,
                               usage=lambda payload: (total_tokens(payload), None),
                               parse=lambda payload, text: self._scores(payload, count, text), demand=demand)

    def _scores(self, payload: Any, count: int, body: str) -> list[float]:
        try:
            return scores_in_input_order(self.config.wire, payload, count)
        except WireError as exc:
            provider = self.config.provider
            raise MalformedResponse(f"{provider}: not a {self.config.wire.value} rerank answer: {exc}",
                                    raw=self._http.raw(body), provider=provider, status=200) from None
