"""``Memory.claims`` (application/listing.py): pages by id with filters, over every claim the
projection holds: archived and expired ones too, forgotten ones never."""

from __future__ import annotations

import pytest

from hlmem import Memory
from hlmem.application import listing
from hlmem.domain.errors import ValidationError

NOW = "2026-01-01T00:00:00+00:00"


@pytest.fixture
def mem():
    with Memory(":memory:", embedder="hash", now=NOW) as m:
        yield m


def _all(mem: Memory, **filters) -> list:
    out, after = [], None
    while True:
        page = mem.claims(after=after, **filters)
        out += page.items
        if page.next_cursor is None:
            return out
        assert page.items and page.next_cursor == page.items[-1].claim_id
        after = page.next_cursor


def test_statuses_and_filters(mem: Memory) -> None:
    mem.remember("alice", "home_city", "Paris", scope="temporal", importance=0.01)
    bob = mem.remember("bob", "home_city", "Rome")
    mem.correct(bob.id, "Milan")
    mem.retract(mem.remember("carol", "employer", "Acme").id)
    mem.forget(mem.remember("dan", "employer", "Secretcorp").id)
    mem.remember("erin", "home_city", "Oslo", namespace="work")
    seen = {(c.subject, c.value, c.status.value) for c in _all(mem)}
    assert seen == {("alice", "Paris", "active"), ("bob", "Rome", "superseded"), ("bob", "Milan", "active"),
                    ("carol", "Acme", "retracted")}
    assert [c.value for c in _all(mem, status="active", predicate="home_city")] == ["Paris", "Milan"]
    assert [c.value for c in _all(mem, subject="bob", status="superseded")] == ["Rome"]
    assert [c.value for c in _all(mem, namespace="work")] == ["Oslo"]
    assert _all(mem, subject="dan") == []


def test_archived_and_expired_claims_stay_listed(mem: Memory) -> None:
    """Maintenance archives claims out of the search index; the listing still shows them."""
    mem.remember("alice", "home_city", "Paris", scope="temporal", importance=0.01)
    mem.remember("bob", "home_city", "Rome", importance=0.01)
    report = mem.maintain(now="2027-06-01T00:00:00+00:00")
    assert report.archived == 2 and report.expired == 1
    listed = {(c.subject, c.status.value, c.archived) for c in _all(mem)}
    assert listed == {("alice", "expired", True), ("bob", "active", True)}
    assert [c.subject for c in _all(mem, status="expired")] == ["alice"]


def test_pages_are_exact_across_chunks(mem: Memory, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(listing, "CHUNK", 3)  # many chunks per page
    made = [mem.remember(f"p{i:02d}", "likes", f"v{i}").id for i in range(17)]
    for i in range(0, 17, 4):
        mem.retract(made[i])
    for limit in (1, 2, 5, 13, 17, 100):
        pages, after = [], None
        while True:
            page = mem.claims(limit=limit, after=after, status="active")
            assert len(page.items) <= limit
            pages.append(page)
            if page.next_cursor is None:
                break
            after = page.next_cursor
        ids = [c.claim_id for p in pages for c in p.items]
        assert ids == [m for i, m in enumerate(made) if i % 4], limit
        assert all(p.items for p in pages), "a cursor is only given when another claim matches"


def test_a_claim_written_between_pages_is_never_repeated_or_skipped(mem: Memory) -> None:
    first = [mem.remember(f"p{i}", "likes", "tea").id for i in range(4)]
    page = mem.claims(limit=2)
    later = mem.remember("q", "likes", "tea").id
    rest: list = []
    after = page.next_cursor
    while after is not None:
        nxt = mem.claims(limit=2, after=after)
        rest += nxt.items
        after = nxt.next_cursor
    assert [c.claim_id for c in page.items] + [c.claim_id for c in rest] == first + [later]


@pytest.mark.parametrize(("kwargs", "field"), [
    ({"limit": 0}, "limit"), ({"limit": 1001}, "limit"), ({"status": "forgotten"}, "status"),
    ({"status": "nope"}, "status"), ({"subject": " "}, "subject"), ({"predicate": ""}, "predicate"),
])
def test_bad_filters_are_refused(mem: Memory, kwargs: dict, field: str) -> None:
    with pytest.raises(ValidationError) as info:
        mem.claims(**kwargs)
    assert info.value.field == field
