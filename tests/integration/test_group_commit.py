"""Group commit (adapters/server/group_commit.py): concurrent single-event writes share one
transaction, each caller gets its own result or its own error, and nothing is lost."""

from __future__ import annotations

import threading
import time
from typing import Any

import pytest

from hlmem import Memory
from hlmem.adapters.server.group_commit import GroupCommit
from hlmem.domain.errors import ValidationError
from hlmem.domain.forgetting import ForgottenContent

NOW = "2026-12-01T10:00:00+00:00"


@pytest.fixture
def mem(tmp_path):
    with Memory(str(tmp_path / "m.db"), embedder="hash", now=NOW) as m:
        yield m


def _queued_behind_the_lock(group: GroupCommit, mem: Memory, events: list[dict[str, Any]],
                            **flags: bool) -> list[tuple[Any, BaseException | None]]:
    """Run one ``group.add`` per event in its own thread while the lock is held, release it once
    all are queued, and return each caller's (result, error)."""
    out: list[tuple[Any, BaseException | None]] = [(None, None)] * len(events)

    def run(i: int) -> None:
        try:
            out[i] = (group.add(mem, events[i], **flags), None)
        except Exception as exc:  # noqa: BLE001 - the test looks at it
            out[i] = (None, exc)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(events))]
    with group.lock:
        for t in threads:
            t.start()
        deadline = time.monotonic() + 30
        while len(group._pending) < len(events):  # noqa: SLF001 - waiting for the queue to fill
            assert time.monotonic() < deadline, "callers never queued"
            time.sleep(0.001)
    for t in threads:
        t.join(30)
    return out


def test_callers_queued_together_share_one_transaction(mem: Memory) -> None:
    group = GroupCommit(threading.Lock())
    events = [{"text": f"turn {i}", "session": f"s{i % 3}"} for i in range(20)]
    out = _queued_behind_the_lock(group, mem, events, extract=False)
    assert all(err is None for _, err in out)
    assert (group.groups, group.grouped) == (1, 20)
    assert len({r.position for r, _ in out}) == 1, "one commit"
    assert [mem.get(r.id).text for r, _ in out] == [e["text"] for e in events], "each caller got its own"


def test_inline_extraction_gives_each_caller_its_claims(mem: Memory) -> None:
    group = GroupCommit(threading.Lock())
    events = [{"text": "I work at Acme", "session": "a"}, {"text": "我住在上海", "session": "b"},
              {"text": "thanks", "session": "a"}]
    out = _queued_behind_the_lock(group, mem, events)
    values = [sorted(c.value for c in r.claims) for r, _ in out]
    assert values == [["Acme"], ["上海"], []]


def test_one_refused_event_does_not_fail_its_neighbours(mem: Memory) -> None:
    gone = mem.add("my locker code is 4411", extract=False)
    mem.forget(gone.id)
    group = GroupCommit(threading.Lock())
    events = [{"text": "first"}, {"text": "my locker code is 4411"}, {"text": "ok", "session": " "},
              {"text": "last"}]
    out = _queued_behind_the_lock(group, mem, events, extract=False)
    assert isinstance(out[1][1], ForgottenContent)
    assert isinstance(out[2][1], ValidationError)
    assert out[0][1] is None and out[3][1] is None
    assert [mem.get(out[i][0].id).text for i in (0, 3)] == ["first", "last"]


def test_a_failure_after_nothing_was_refused_reaches_every_member(mem: Memory,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    group = GroupCommit(threading.Lock())

    def broken(*args: Any, **kwargs: Any) -> Any:
        raise OSError("disk on fire")

    monkeypatch.setattr(mem, "add_many", broken)
    out = _queued_behind_the_lock(group, mem, [{"text": "a"}, {"text": "b"}], extract=False)
    assert [type(err) for _, err in out] == [OSError, OSError]


def test_free_running_writers_lose_nothing(mem: Memory) -> None:
    group = GroupCommit(threading.Lock())
    written: dict[str, str] = {}
    errors: list[BaseException] = []
    record = threading.Lock()

    def client(c: int) -> None:
        for i in range(40):
            text = f"client {c} turn {i}"
            try:
                result = group.add(mem, {"text": text, "session": f"c{c}"}, extract=i % 2 == 0)
            except Exception as exc:  # noqa: BLE001 - collected for the assert
                errors.append(exc)
                continue
            with record:
                written[result.id] = text

    threads = [threading.Thread(target=client, args=(c,)) for c in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    assert errors == []
    assert len(written) == 320 and group.grouped == 320 and group.groups <= 320
    assert {eid: mem.get(eid).text for eid in written} == written
    assert mem.stats()["observations"] == 320
