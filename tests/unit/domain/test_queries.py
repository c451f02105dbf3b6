"""Tables of cases for the named bitemporal queries, over views folded from hand-written events."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from hlmem.domain.events import (
    Cardinality,
    ClaimAsserted,
    ClaimRetracted,
    ClaimSuperseded,
    DomainEvent,
    ItemForgotten,
)
from hlmem.domain.queries import (
    chain,
    current,
    history,
    holds,
    overlapping_current,
    row_at,
    slot_claims,
    values_at,
)
from hlmem.domain.reducers import project
from hlmem.domain.state import ClaimStatus, MemoryView, slot_key

UTC = timezone.utc
BASE = datetime(2026, 1, 1, tzinfo=UTC)


def day(n: float) -> datetime:
    return BASE + timedelta(days=n)


_seq = iter(range(1, 1_000_000))


def asserted(claim_id: str, value: str, vf: float, rec: float, *, vt: float | None = None,
             superseded_by: str | None = None, predicate: str = "lives_in",
             cardinality: Cardinality = Cardinality.SINGLE,
             coordinates: tuple[tuple[str, str], ...] = ()) -> ClaimAsserted:
    return ClaimAsserted(
        event_id=f"lg_{next(_seq)}", stream_id=claim_id, version=1, recorded_at=day(rec), namespace="default",
        subject="user", predicate=predicate, value=value, valid_from=day(vf),
        valid_to=None if vt is None else day(vt), superseded_by=superseded_by, cardinality=cardinality,
        coordinates=coordinates,
    )


def superseded(claim_id: str, version: int, by: str, vt: float, rec: float) -> ClaimSuperseded:
    return ClaimSuperseded(event_id=f"lg_{next(_seq)}", stream_id=claim_id, version=version, recorded_at=day(rec),
                           namespace="default", superseded_by=by, valid_to=day(vt))


def retracted(claim_id: str, version: int, rec: float) -> ClaimRetracted:
    return ClaimRetracted(event_id=f"lg_{next(_seq)}", stream_id=claim_id, version=version, recorded_at=day(rec),
                          namespace="default", reason="wrong")


def forgotten(claim_id: str, version: int, rec: float) -> ItemForgotten:
    return ItemForgotten(event_id=f"lg_{next(_seq)}", stream_id=claim_id, version=version, recorded_at=day(rec),
                         namespace="default", reason="asked")


def view(*events: DomainEvent) -> MemoryView:
    return project(events)


#: Lisbon from day 0 (known day 0); on day 20 we learnt Porto from day 10; on day 30 that Faro
#: held from day 5 (a late fact between them).
CITIES = (
    asserted("cl_lis", "Lisbon", 0, 0),
    asserted("cl_por", "Porto", 10, 20),
    superseded("cl_lis", 2, "cl_por", vt=10, rec=20),
    asserted("cl_far", "Faro", 5, 30, vt=10, superseded_by="cl_por"),
    superseded("cl_lis", 3, "cl_far", vt=5, rec=30),
)


@pytest.mark.parametrize(
    ("valid_at", "known_at", "expected"),
    [
        (1, 1, ["Lisbon"]),
        (12, 15, ["Lisbon"]),  # Porto not known yet
        (12, 20, ["Porto"]),
        (7, 25, ["Lisbon"]),  # Faro not known yet
        (7, 30, ["Faro"]),
        (4.99, 30, ["Lisbon"]),
        (10, 30, ["Porto"]),
        (-1, 30, []),
        (5, -1, []),
    ],
)
def test_values_at_follows_both_clocks(valid_at: float, known_at: float, expected: list[str]) -> None:
    claims = list(view(*CITIES).claims.values())
    assert [c.value for c in values_at(claims, day(valid_at), day(known_at))] == expected
    assert overlapping_current(claims, day(valid_at), day(known_at)) == len(expected)


@pytest.mark.parametrize(
    ("valid_at", "known_at", "row_index"),
    [(1, 1, 0), (12, 15, 0), (3, 25, 1), (12, 25, None), (3, 31, 2), (7, 31, None), (12, 31, None)],
)
def test_row_at_picks_the_row_believed_then(valid_at: float, known_at: float, row_index: int | None) -> None:
    lisbon = view(*CITIES).claims["cl_lis"]
    assert len(lisbon.versions) == 3
    row = row_at(lisbon, day(valid_at), day(known_at))
    assert row is (None if row_index is None else lisbon.versions[row_index])
    assert holds(lisbon, day(valid_at), day(known_at)) is (row_index is not None)


def test_current_is_now_as_known_now() -> None:
    claims = list(view(*CITIES).claims.values())
    assert [c.value for c in current(claims, day(40))] == ["Porto"]


def test_history_orders_by_valid_time_and_keeps_superseded() -> None:
    claims = list(view(*CITIES).claims.values())
    assert [(c.value, c.status) for c in history(claims)] == [
        ("Lisbon", ClaimStatus.SUPERSEDED), ("Faro", ClaimStatus.SUPERSEDED), ("Porto", ClaimStatus.ACTIVE)]


@pytest.mark.parametrize("start", ["cl_lis", "cl_far", "cl_por"])
def test_chain_is_the_same_from_any_link(start: str) -> None:
    assert chain(view(*CITIES), start) == ["cl_lis", "cl_far", "cl_por"]


def test_chain_of_a_lone_claim_is_itself() -> None:
    assert chain(view(asserted("cl_a", "x", 0, 0)), "cl_a") == ["cl_a"]


def test_forgotten_claims_never_hold_and_leave_history() -> None:
    v = view(asserted("cl_a", "Lisbon", 0, 0), forgotten("cl_a", 2, 5))
    claim = v.claims["cl_a"]
    assert claim.status is ClaimStatus.FORGOTTEN and claim.value == ""
    assert values_at([claim], day(1), day(1)) == []  # not even as known before forgetting
    assert history([claim]) == []


def test_retracted_claims_hold_only_as_known_before() -> None:
    claim = view(asserted("cl_a", "Lisbon", 0, 0), retracted("cl_a", 2, 5)).claims["cl_a"]
    assert holds(claim, day(1), day(4)) and not holds(claim, day(1), day(5))
    assert history([claim]) == [claim]


def test_multi_valued_slot_holds_several_values() -> None:
    v = view(asserted("cl_t", "tea", 0, 0, predicate="likes", cardinality=Cardinality.MULTI),
             asserted("cl_c", "coffee", 1, 1, predicate="likes", cardinality=Cardinality.MULTI))
    assert [c.value for c in values_at(v.claims.values(), day(2), day(2))] == ["tea", "coffee"]


def test_slot_claims_match_on_normalised_key_and_coordinates() -> None:
    v = view(asserted("cl_1", "1.0", 0, 0, predicate="version", coordinates=(("component", "api"),)),
             asserted("cl_2", "2.0", 0, 0, predicate="version", coordinates=(("component", "web"),)))
    key = slot_key("default", "  USER ", "Version", (("component", "API"),))
    assert [c.claim_id for c in slot_claims(v, key)] == ["cl_1"]
