"""A query term is matched as the index segments it, in both adapters."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from hlmem.adapters.inmemory.store import InMemoryStorage
from hlmem.adapters.sqlite.store import SQLiteStorage
from hlmem.application.ports import IndexEntry
from hlmem.domain.events import ObservationRecorded, OriginClass, SessionKind

T0 = datetime(2026, 1, 1, tzinfo=timezone.utc)


@pytest.mark.parametrize("make", [lambda: SQLiteStorage(":memory:"), InMemoryStorage], ids=["sqlite", "memory"])
def test_a_word_jieba_cuts_differently_alone_still_matches(make) -> None:
    # jieba indexes "主上" alone as 主 · 上 but cuts the query "主上中" as 主上 · 中 (found by Hypothesis).
    store = make()
    store.append([ObservationRecorded(
        event_id="lg_1", stream_id="ev_1", version=1, recorded_at=T0, namespace="default", text="主上", role="user",
        session_id="s", origin_class=OriginClass.DIRECT_USER, session_kind=SessionKind.INTERACTIVE, occurred_at=T0,
    )], {"ev_1": IndexEntry("主上", None)})
    assert [c.item_id for c in store.text_candidates("default", "主上中", 10)] == ["ev_1"]
