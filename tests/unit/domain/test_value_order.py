"""Which of a slot's values a question asks for (domain/value_order.py, ADR 0060): tables and properties."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest
from hypothesis import given
from hypothesis import strategies as st

from hlmem.domain.events import ClaimAsserted, ClaimExpired, ClaimRetracted, ClaimSuperseded, DomainEvent
from hlmem.domain.reducers import project
from hlmem.domain.state import ClaimState
from hlmem.domain.value_order import (ASKED, NEVER, Asked, Wanted, believed, claim_key, event_key, holds,
                                      is_history)

UTC = timezone.utc
BASE = datetime(2026, 1, 1, tzinfo=UTC)
_seq = iter(range(1, 10_000_000))


def day(n: float) -> datetime:
    return BASE + timedelta(days=n)


def asserted(cid: str, value: str, vf: float, rec: float, *, vt: float | None = None) -> ClaimAsserted:
    return ClaimAsserted(event_id=f"lg_{next(_seq)}", stream_id=cid, version=1, recorded_at=day(rec),
                         namespace="default", subject="user", predicate="lives_in", value=value, valid_from=day(vf),
                         valid_to=None if vt is None else day(vt))


def superseded(cid: str, version: int, by: str, vt: float, rec: float) -> ClaimSuperseded:
    return ClaimSuperseded(event_id=f"lg_{next(_seq)}", stream_id=cid, version=version, recorded_at=day(rec),
                           namespace="default", superseded_by=by, valid_to=day(vt))


def claims(*events: DomainEvent) -> dict[str, ClaimState]:
    return dict(project(events).claims)


#: Hangzhou from day 0, Suzhou from day 10, Nanjing from day 20 (each said that day); a city said on
#: day 5 and retracted on day 6; a move planned for day 40 (said on day 25).
CHAIN = claims(
    asserted("hz", "Hangzhou", 0, 0),
    asserted("sz", "Suzhou", 10, 10), superseded("hz", 2, "sz", vt=10, rec=10),
    asserted("nj", "Nanjing", 20, 20), superseded("sz", 2, "nj", vt=20, rec=20),
    asserted("bad", "Wuxi", 5, 5),
    ClaimRetracted(event_id="lg_r", stream_id="bad", version=2, recorded_at=day(6), namespace="default", reason="no"),
    asserted("plan", "Shanghai", 40, 25),
)


def order(asked: Asked) -> list[str]:
    return [cid for cid in sorted(CHAIN, key=lambda c: (claim_key(CHAIN[c], asked), c))]


@pytest.mark.parametrize(
    ("wanted", "at", "window", "expected"),
    [
        # Now: what holds, then what is planned, then the past newest first, then what was never so.
        (Wanted.NOW, 30, None, ["nj", "plan", "sz", "hz", "bad"]),
        # An instant in the middle: the value then; later values come next, nearest first.
        (Wanted.NOW, 15, None, ["sz", "nj", "plan", "hz", "bad"]),
        # Before: the value just before the current one first, then older ones, then the current.
        (Wanted.BEFORE, 30, None, ["sz", "hz", "nj", "plan", "bad"]),
        # Originally: every value by when it began.
        (Wanted.EARLIEST, 30, None, ["hz", "sz", "nj", "plan", "bad"]),
        # A day in the middle: the value that held that day; the others by distance from it.
        (Wanted.DURING, 30, (12, 13), ["sz", "hz", "nj", "plan", "bad"]),
        # A period across a change: the value that held longest in it first.
        (Wanted.DURING, 30, (8, 18), ["sz", "hz", "nj", "plan", "bad"]),
        (Wanted.DURING, 30, (8, 11), ["hz", "sz", "nj", "plan", "bad"]),
        # Open-ended periods end at the present ("since March") or at the claims' own bounds.
        (Wanted.DURING, 30, (None, 3), ["hz", "sz", "nj", "plan", "bad"]),
        (Wanted.DURING, 30, (22, None), ["nj", "sz", "plan", "hz", "bad"]),
    ],
)
def test_values_are_ordered_by_the_time_asked(wanted: Wanted, at: float, window: tuple | None,
                                              expected: list[str]) -> None:
    span = None if window is None else tuple(None if w is None else day(w) for w in window)
    assert order(Asked(wanted, day(at), day(30), span)) == expected


def test_knowledge_time_decides_what_was_believed() -> None:
    # Asked as known on day 15 (before Nanjing was learnt): Suzhou is the current value.
    asked = Asked(Wanted.NOW, day(30), day(15))
    assert claim_key(CHAIN["sz"], asked)[0] == ASKED
    assert claim_key(CHAIN["nj"], asked)[0] != ASKED
    assert believed(CHAIN["bad"], day(5.5)) and not believed(CHAIN["bad"], day(7))
    assert claim_key(CHAIN["bad"], asked)[0] == NEVER


def test_an_event_takes_the_best_key_of_its_claims() -> None:
    asked = Asked(Wanted.NOW, day(30), day(30))
    assert event_key([claim_key(CHAIN["hz"], asked), claim_key(CHAIN["nj"], asked)]) == claim_key(CHAIN["nj"], asked)
    assert event_key([]) is None


@pytest.mark.parametrize(
    ("cited", "at", "history"),
    [
        (["hz"], 30, True),  # superseded
        (["bad"], 30, True),  # retracted
        (["hz", "bad"], 30, True),
        (["hz", "nj"], 30, False),  # one of its values holds
        (["plan"], 30, False),  # planned, not past
        (["hz"], 5, False),  # it held then
        ([], 30, False),  # no claim: nothing to say
    ],
)
def test_history_is_an_event_whose_values_all_ended(cited: list[str], at: float, history: bool) -> None:
    assert is_history([CHAIN[c] for c in cited], day(at), day(30)) is history


def test_an_expired_temporary_value_is_history_after_it_ended() -> None:
    temp = claims(asserted("t", "浅色", 0, 0, vt=None),
                  ClaimExpired(event_id="lg_e", stream_id="t", version=2, recorded_at=day(9), namespace="default",
                               valid_to=day(9)))["t"]
    assert holds(temp, day(5), day(10)) and not holds(temp, day(9), day(10))
    assert is_history([temp], day(12), day(12)) and not is_history([temp], day(8), day(12))


@given(st.lists(st.integers(min_value=1, max_value=30), min_size=1, max_size=5), st.data())
def test_the_value_holding_at_any_instant_is_asked_first(gaps: list[int], data: st.DataObject) -> None:
    # A single-valued slot changed len(gaps) times; whatever instant is asked about (now, an explicit
    # valid_at, a day in the middle), the value that held then comes first, and "before" gives the
    # value that held just before the current one.
    starts = [0]
    for gap in gaps:
        starts.append(starts[-1] + gap)
    events: list[DomainEvent] = []
    for n, start in enumerate(starts):
        events.append(asserted(f"c{n}", f"v{n}", start, start))
        if n:
            events.append(superseded(f"c{n - 1}", 2, f"c{n}", vt=start, rec=start))
    slot = claims(*events)
    last = starts[-1] + 1
    at = data.draw(st.integers(min_value=0, max_value=last))
    held = max(n for n, s in enumerate(starts) if s <= at)

    def first(asked: Asked) -> str:
        return min(slot, key=lambda c: (claim_key(slot[c], asked), c))

    assert first(Asked(Wanted.NOW, day(at), day(last))) == f"c{held}"
    assert first(Asked(Wanted.DURING, day(last), day(last), (day(at), day(at + 0.5)))) == f"c{held}"
    if len(starts) > 1:
        assert first(Asked(Wanted.BEFORE, day(last), day(last))) == f"c{len(starts) - 2}"
        assert first(Asked(Wanted.EARLIEST, day(last), day(last))) == "c0"
