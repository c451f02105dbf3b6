"""The LLM call ledger: one record per HTTP attempt, written through a one-method sink.

The adapter knows only :class:`LedgerSink`; :class:`hlmem.adapters.sqlite.ledger.SQLiteLedger`
keeps records in the store's file and :class:`InMemoryLedger` keeps them in a list (tests, and
processes without a store). A record never holds the API key, a prompt or a completion: only
what accounting and diagnosis need.
"""

from __future__ import annotations

import threading
from datetime import datetime
from typing import Protocol, runtime_checkable

from attrs import frozen

#: Values of :attr:`LLMCall.status`.
STATUSES = ("ok", "timeout", "rate_limited", "unavailable", "rejected", "malformed")


@frozen(kw_only=True)
class LLMCall:
    """One HTTP attempt of one logical call (``call_id`` is shared by the retries of a call).

    :param status: one of :data:`STATUSES`.
    :param error_class: the :class:`hlmem.domain.errors.ProviderError` subclass raised for this
        attempt (``None`` when ``ok``), whether or not the adapter retried it.
    :param prompt_tokens: from the provider's ``usage`` (``None`` when it sent none).
    :param capability: ``chat``, ``rerank`` or ``embed`` (what a price-book rate prices).
    :param items: rerank documents or embedding inputs the attempt sent (``None``: not counted, chat).
    :param cost: the attempt's price from the price book in its currency (``None``: unknown, or no
        budget configured); an attempt without ``usage`` is priced at its estimate (docs/budget.md).
    """

    call_id: str
    attempt: int
    provider: str
    model: str
    operation: str
    job_id: str | None
    status: str
    error_class: str | None
    http_status: int | None
    prompt_tokens: int | None
    completion_tokens: int | None
    latency_ms: int
    created_at: datetime
    capability: str = "chat"
    items: int | None = None
    cost: float | None = None


@runtime_checkable
class LedgerSink(Protocol):
    """Where the adapter reports each attempt.

    Contract: ``record`` stores the call durably (or raises; the adapter lets the error through
    rather than lose accounting) and is safe to call from any thread.
    """

    def record(self, call: LLMCall) -> None: ...


class InMemoryLedger:
    """A ledger in a list: for tests and for processes without a store."""

    def __init__(self) -> None:
        self._calls: list[LLMCall] = []
        self._lock = threading.Lock()

    def record(self, call: LLMCall) -> None:
        with self._lock:
            self._calls.append(call)

    def calls(self, job_id: str | None = None) -> list[LLMCall]:
        """Recorded attempts in order, optionally only those serving ``job_id``."""
        with self._lock:
            return [c for c in self._calls if job_id is None or c.job_id == job_id]

    def prune(self, *, before: datetime, limit: int, dry_run: bool = False) -> int:
        """Drop up to ``limit`` attempts recorded before ``before``, oldest first (maintenance)."""
        with self._lock:
            old = sorted((i for i, c in enumerate(self._calls) if c.created_at < before),
                         key=lambda i: self._calls[i].created_at)[:max(limit, 0)]
            if not dry_run:
                gone = set(old)
                self._calls = [c for i, c in enumerate(self._calls) if i not in gone]
            return len(old)
