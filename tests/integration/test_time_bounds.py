"""Times a command computes from the clock stay inside the calendar: a provider's Retry-After is
bounded before it is added to the clock (docs/cli.md, ADR 0027)."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pytest

from hlmem import Memory
from hlmem.domain.errors import ProviderRateLimited
from hlmem.domain.time import MAX_OFFSET

T0 = datetime(2026, 3, 1, 9, 30, tzinfo=timezone.utc)


class RateLimitedLLM:
    """The LLM port, always answering 429 with the given Retry-After."""

    model_id = "scripted:limited"

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds

    def complete_json(self, system: str, user: str, schema: Mapping[str, Any], *, operation: str,
                      job_id: str | None = None) -> dict[str, Any]:
        raise ProviderRateLimited("slow down", provider="scripted", retry_after=self.seconds)


@pytest.mark.parametrize("seconds", [1e300, float("inf"), float("nan"), -5.0, 7.0])
def test_a_huge_retry_after_never_overflows_the_worker(tmp_path: Path, seconds: float) -> None:
    with Memory(tmp_path / "m.db", embedder="none", now=T0, llm=RateLimitedLLM(seconds)) as mem:
        result = mem.add("I live in Lisbon", session="s1")
        (job,) = [j for j in mem.jobs.jobs(limit=10) if j.payload["event_id"] == result.id]
        assert job.state == "failed" and T0 < job.available_at <= T0 + MAX_OFFSET
        if seconds == 7.0:
            assert (job.available_at - T0).total_seconds() >= 7.0  # an ordinary wait is honoured
