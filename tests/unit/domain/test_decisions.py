"""Tables of cases for the supersede rules: ``decide_assert`` outcomes, events, rows; ``decide_retract``.

Every case runs decisions through the pure reducer, as the write service does, with no I/O.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from datetime import datetime, timedelta, timezone
from typing import Any

import pytest
from attrs import frozen

from hlmem.domain.commands import AssertClaim, validate_claim
from hlmem.domain.decisions import Decision, decide_assert, decide_retract
from hlmem.domain.errors import DomainRuleViolation, NotFound
from hlmem.domain.events import (
    Cardinality,
    ClaimAsserted,
    ClaimCorroborated,
    ClaimRetracted,
    ClaimSuperseded,
    DomainEvent,
)
from hlmem.domain.queries import current, history, values_at
from hlmem.domain.reducers import project
from hlmem.domain.slot_catalog import DEFAULT_REGISTRY
from hlmem.domain.state import ClaimState, ClaimStatus, ClaimVersion, MemoryView, slot_key

UTC = timezone.utc
BASE = datetime(2026, 1, 1, tzinfo=UTC)


def day(n: float) -> datetime:
    return BASE + timedelta(days=n)


@frozen(kw_only=True)
class A:
    """One assertion in a case: value, valid from day ``vf``, recorded on day ``rec``."""

    value: str
    vf: float
    rec: float
    vt: float | None = None
    predicate: str = "works_in"
    polarity: bool = True
    qualifiers: tuple[tuple[str, str], ...] = ()
    coordinates: tuple[tuple[str, str], ...] = ()
    cardinality: Cardinality | None = None
    evidence: tuple[str, ...] = ()

    def command(self) -> AssertClaim:
        return AssertClaim(
            subject="用户", predicate=self.predicate, value=self.value, polarity=self.polarity,
            qualifiers=self.qualifiers, coordinates=self.coordinates, cardinality=self.cardinality,
            valid_from=day(self.vf), valid_to=None if self.vt is None else day(self.vt), evidence=self.evidence,
        )


class Log:
    """The event log of one test: decisions are appended and folded, as the write service does."""

    def __init__(self) -> None:
        self.events: list[DomainEvent] = []
        self._counter = itertools.count(1)
        self.decisions: list[Decision] = []

    def new_id(self, prefix: str) -> str:
        return f"{prefix}_{next(self._counter):04d}"

    @property
    def view(self) -> MemoryView:
        return project(self.events)

    def slot(self, cmd: AssertClaim) -> list[ClaimState]:
        key = slot_key(cmd.namespace, cmd.subject, cmd.predicate, cmd.coordinates)
        return [c for c in self.view.claims.values() if c.slot_key == key]

    def assert_(self, a: A) -> Decision:
        cmd = validate_claim(a.command(), DEFAULT_REGISTRY)
        decision = decide_assert(cmd, self.slot(cmd), registry=DEFAULT_REGISTRY, new_id=self.new_id,
                                 recorded_at=day(a.rec))
        self.events.extend(decision.events)
        self.decisions.append(decision)
        return decision

    def retract(self, claim_id: str, rec: float, reason: str = "wrong") -> Decision:
        claim = self.view.claims.get(claim_id)
        decision = decide_retract(claim, claim_id, reason, new_id=self.new_id, recorded_at=day(rec))
        self.events.extend(decision.events)
        return decision

    def claim(self, n: int) -> ClaimState:
        """The claim the ``n``-th assertion created or touched (0-based)."""
        return self.view.claims[self.decisions[n].claim_id]  # type: ignore[index]


def run(history_: Sequence[A]) -> Log:
    log = Log()
    for a in history_:
        log.assert_(a)
    return log


# --- outcomes -----------------------------------------------------------------------------------

OUTCOMES: list[tuple[str, list[A], A, str, list[type]]] = [
    ("created-in-empty-slot", [], A(value="杭州", vf=0, rec=0), "created", [ClaimAsserted]),
    ("corroborated-same-value", [A(value="杭州", vf=0, rec=0)], A(value="杭州", vf=5, rec=5),
     "corroborated", [ClaimCorroborated]),
    ("corroborated-normalised-value", [A(value="Hang  Zhou", vf=0, rec=0)], A(value="hang zhou", vf=5, rec=5),
     "corroborated", [ClaimCorroborated]),
    ("superseded-new-value", [A(value="杭州", vf=0, rec=0)], A(value="北京", vf=5, rec=5),
     "superseded", [ClaimAsserted, ClaimSuperseded]),
    ("inserted-late-fact-earlier-than-all", [A(value="杭州", vf=10, rec=10)], A(value="深圳", vf=1, rec=20),
     "inserted", [ClaimAsserted]),
    ("late-fact-between-two-supersedes-the-earlier",
     [A(value="杭州", vf=0, rec=0), A(value="北京", vf=10, rec=10)], A(value="上海", vf=5, rec=20),
     "superseded", [ClaimAsserted, ClaimSuperseded]),
    ("multi-valued-values-coexist", [A(value="咖啡", vf=0, rec=0, predicate="likes")],
     A(value="茶", vf=5, rec=5, predicate="likes"), "created", [ClaimAsserted]),
    ("multi-valued-same-value-corroborates", [A(value="咖啡", vf=0, rec=0, predicate="likes")],
     A(value="咖啡", vf=5, rec=5, predicate="likes"), "corroborated", [ClaimCorroborated]),
    ("multi-valued-polarity-flip-supersedes", [A(value="咖啡", vf=0, rec=0, predicate="likes")],
     A(value="咖啡", vf=5, rec=5, predicate="likes", polarity=False), "superseded",
     [ClaimAsserted, ClaimSuperseded]),
    ("single-valued-polarity-flip-supersedes", [A(value="杭州", vf=0, rec=0)],
     A(value="杭州", vf=5, rec=5, polarity=False), "superseded", [ClaimAsserted, ClaimSuperseded]),
    ("same-value-other-qualifiers-supersedes", [A(value="北京", vf=0, rec=0)],
     A(value="北京", vf=5, rec=5, qualifiers=(("temporary", "暂时"),)), "superseded",
     [ClaimAsserted, ClaimSuperseded]),
    ("declared-multi-coexists", [A(value="杭州", vf=0, rec=0, cardinality=Cardinality.MULTI)],
     A(value="北京", vf=5, rec=5, cardinality=Cardinality.MULTI), "created", [ClaimAsserted]),
    ("explicit-valid-to-in-empty-slot", [], A(value="北京", vf=1, rec=1, vt=5), "created", [ClaimAsserted]),
    ("explicit-valid-to-supersedes-current", [A(value="杭州", vf=0, rec=0)], A(value="北京", vf=5, rec=6, vt=8),
     "superseded", [ClaimAsserted, ClaimSuperseded]),
    ("explicit-valid-to-before-next-start", [A(value="杭州", vf=10, rec=10)], A(value="深圳", vf=1, rec=20, vt=3),
     "created", [ClaimAsserted]),
    ("identical-claim-not-covering-start-is-new", [A(value="杭州", vf=0, rec=0, vt=5)],
     A(value="杭州", vf=7, rec=7), "created", [ClaimAsserted]),
    # half-open intervals: a claim ending at day 5 does not cover day 5
    ("same-value-at-the-exact-end-is-new", [A(value="杭州", vf=0, rec=0, vt=5)],
     A(value="杭州", vf=5, rec=6), "created", [ClaimAsserted]),
    ("new-value-at-the-exact-end-supersedes-nothing", [A(value="杭州", vf=0, rec=0, vt=5)],
     A(value="北京", vf=5, rec=6), "created", [ClaimAsserted]),
    ("same-value-at-the-exact-start-corroborates", [A(value="杭州", vf=5, rec=0)],
     A(value="杭州", vf=5, rec=6), "corroborated", [ClaimCorroborated]),
    ("other-coordinate-is-another-slot", [A(value="1.0", vf=0, rec=0, predicate="version",
                                            coordinates=(("component", "api"),))],
     A(value="2.0", vf=5, rec=5, predicate="version", coordinates=(("component", "web"),)), "created",
     [ClaimAsserted]),
]


@pytest.mark.parametrize(("before", "new", "outcome", "types"), [c[1:] for c in OUTCOMES],
                         ids=[c[0] for c in OUTCOMES])
def test_decide_assert_outcome(before: list[A], new: A, outcome: str, types: list[type]) -> None:
    log = run(before)
    decision = log.assert_(new)
    assert decision.outcome == outcome
    assert [type(e) for e in decision.events] == types
    assert decision.claim_id is not None and decision.claim_id.startswith("cl_")


def test_decide_assert_does_not_mutate_its_inputs() -> None:
    log = run([A(value="杭州", vf=0, rec=0)])
    before = log.view
    slot = list(before.claims.values())
    cmd = validate_claim(A(value="北京", vf=5, rec=5).command(), DEFAULT_REGISTRY)
    decide_assert(cmd, slot, registry=DEFAULT_REGISTRY, new_id=log.new_id, recorded_at=day(5))
    assert list(before.claims.values()) == slot and project(log.events) == before


# --- events and rows ----------------------------------------------------------------------------


def test_superseding_events_carry_the_envelope_and_the_new_end() -> None:
    log = run([A(value="杭州", vf=0, rec=0)])
    old_id = log.decisions[0].claim_id
    decision = log.assert_(A(value="北京", vf=5, rec=6))
    asserted, superseded = decision.events
    assert isinstance(asserted, ClaimAsserted) and isinstance(superseded, ClaimSuperseded)
    assert (asserted.stream_id, asserted.version, asserted.recorded_at) == (decision.claim_id, 1, day(6))
    assert (asserted.valid_from, asserted.valid_to, asserted.superseded_by) == (day(5), None, None)
    assert (superseded.stream_id, superseded.version) == (old_id, 2)
    assert (superseded.superseded_by, superseded.valid_to, superseded.recorded_at) == (decision.claim_id, day(5), day(6))
    assert len({e.event_id for e in decision.events}) == 2


def test_corroboration_adds_evidence_to_the_existing_claim() -> None:
    log = run([A(value="杭州", vf=0, rec=0, evidence=("ev_1",))])
    decision = log.assert_(A(value="杭州", vf=3, rec=3, evidence=("ev_2", "ev_1")))
    (event,) = decision.events
    assert isinstance(event, ClaimCorroborated)
    assert (event.stream_id, event.version) == (log.decisions[0].claim_id, 2)
    claim = log.claim(0)
    assert claim.evidence == ("ev_1", "ev_2")
    assert claim.versions == (ClaimVersion(day(0), None, day(0)),)  # knowledge unchanged
    assert len(log.view.claims) == 1


Row = tuple[float, float | None, float, float | None]


def rows(claim: ClaimState) -> list[Row]:
    def d(value: datetime | None) -> float | None:
        return None if value is None else (value - BASE) / timedelta(days=1)

    return [(d(r.valid_from), d(r.valid_to), d(r.recorded_from), d(r.recorded_to)) for r in claim.versions]  # type: ignore[misc]


ROWS: list[tuple[str, list[A], list[list[Row]], list[ClaimStatus]]] = [
    ("created", [A(value="杭州", vf=0, rec=1)], [[(0, None, 1, None)]], [ClaimStatus.ACTIVE]),
    ("superseded: the old row closes in recorded time, a bounded row opens",
     [A(value="杭州", vf=0, rec=0), A(value="北京", vf=5, rec=6)],
     [[(0, None, 0, 6), (0, 5, 6, None)], [(5, None, 6, None)]],
     [ClaimStatus.SUPERSEDED, ClaimStatus.ACTIVE]),
    ("inserted before everything: bounded by the next start, the later claim untouched",
     [A(value="杭州", vf=10, rec=10), A(value="深圳", vf=1, rec=20)],
     [[(10, None, 10, None)], [(1, 10, 20, None)]],
     [ClaimStatus.ACTIVE, ClaimStatus.SUPERSEDED]),
    ("late fact between two claims",
     [A(value="杭州", vf=0, rec=0), A(value="北京", vf=10, rec=10), A(value="上海", vf=5, rec=20)],
     [[(0, None, 0, 10), (0, 10, 10, 20), (0, 5, 20, None)], [(10, None, 10, None)], [(5, 10, 20, None)]],
     [ClaimStatus.SUPERSEDED, ClaimStatus.ACTIVE, ClaimStatus.SUPERSEDED]),
    ("explicit valid_to",
     [A(value="杭州", vf=0, rec=0), A(value="北京", vf=5, rec=6, vt=8)],
     [[(0, None, 0, 6), (0, 5, 6, None)], [(5, 8, 6, None)]],
     [ClaimStatus.SUPERSEDED, ClaimStatus.ACTIVE]),
    ("explicit valid_to past the next known start is cut there",
     [A(value="杭州", vf=10, rec=10), A(value="深圳", vf=1, rec=20, vt=30)],
     [[(10, None, 10, None)], [(1, 10, 20, None)]],
     [ClaimStatus.ACTIVE, ClaimStatus.SUPERSEDED]),
    ("multi-valued values keep open rows",
     [A(value="咖啡", vf=0, rec=0, predicate="likes"), A(value="茶", vf=5, rec=5, predicate="likes")],
     [[(0, None, 0, None)], [(5, None, 5, None)]],
     [ClaimStatus.ACTIVE, ClaimStatus.ACTIVE]),
]


@pytest.mark.parametrize(("asserts", "expected_rows", "statuses"), [c[1:] for c in ROWS], ids=[c[0] for c in ROWS])
def test_resulting_rows(asserts: list[A], expected_rows: list[list[Row]], statuses: list[ClaimStatus]) -> None:
    log = run(asserts)
    assert [rows(log.claim(i)) for i in range(len(asserts))] == expected_rows
    assert [log.claim(i).status for i in range(len(asserts))] == statuses


def test_supersede_links_go_both_ways() -> None:
    log = run([A(value="杭州", vf=0, rec=0), A(value="北京", vf=10, rec=10), A(value="上海", vf=5, rec=20)])
    hz, bj, sh = (log.decisions[i].claim_id for i in range(3))
    view = log.view
    assert view.claims[hz].superseded_by == sh  # the latest decision about 杭州's end
    assert view.claims[sh].superseded_by == bj
    assert set(view.claims[bj].supersedes) == {hz, sh}
    assert {(e.old, e.new) for e in view.edges} == {(hz, bj), (hz, sh), (sh, bj)}


@pytest.mark.parametrize(
    "asserts",
    [
        [A(value="杭州", vf=0, rec=0), A(value="北京", vf=5, rec=6), A(value="深圳", vf=-3, rec=7),
         A(value="上海", vf=2, rec=8), A(value="杭州", vf=9, rec=9, vt=12), A(value="北京", vf=1, rec=10)],
        [A(value="a", vf=3, rec=0, vt=6), A(value="b", vf=0, rec=1, vt=9), A(value="c", vf=5, rec=2),
         A(value="a", vf=4, rec=3, polarity=False), A(value="d", vf=-1, rec=4, vt=1)],
    ],
    ids=["cities", "bounded-intervals"],
)
def test_single_valued_slot_never_holds_two_claims_at_once(asserts: list[A]) -> None:
    log = run(asserts)
    claims = list(log.view.claims.values())
    instants = [day(n / 2) for n in range(-10, 30)]
    for known in instants:
        for valid in instants:
            assert len(values_at(claims, valid, known)) <= 1, (valid, known)


# --- the acceptance scenarios through two clocks ------------------------------------------------


def at(text: str) -> datetime:
    return datetime.fromisoformat(text).replace(tzinfo=UTC)


def scenario(asserts: list[tuple[str, str, str, str]]) -> list[ClaimState]:
    """(predicate, value, valid_from, recorded_at) in recording order -> the slot's claims."""
    log = Log()
    for predicate, value, valid_from, recorded in asserts:
        cmd = validate_claim(AssertClaim(subject="用户", predicate=predicate, value=value,
                                         valid_from=at(valid_from)), DEFAULT_REGISTRY)
        decision = decide_assert(cmd, log.slot(cmd), registry=DEFAULT_REGISTRY, new_id=log.new_id,
                                 recorded_at=at(recorded))
        log.events.extend(decision.events)
    return list(log.view.claims.values())


HANGZHOU_BEIJING = [("works_in", "杭州", "2026-01-01", "2026-01-01"),
                    ("works_in", "北京", "2026-06-01", "2026-07-01")]  # moved in June, told us in July


@pytest.mark.parametrize(
    ("valid_at", "known_at", "expected"),
    [
        ("2026-03-01", "2026-03-01", ["杭州"]),
        ("2026-06-15", "2026-06-20", ["杭州"]),  # the move happened but we did not know yet
        ("2026-06-15", "2026-07-15", ["北京"]),
        ("2026-03-01", "2026-07-15", ["杭州"]),  # the past stays as it was
        ("2026-12-01", "2026-12-01", ["北京"]),
        ("2026-12-01", "2026-03-01", ["杭州"]),  # what we expected in March about December
        ("2025-12-01", "2026-12-01", []),  # before anything was true
        ("2026-03-01", "2025-12-31", []),  # before anything was known
        ("2026-06-01", "2026-07-01", ["北京"]),  # both boundaries are inclusive starts
        ("2026-05-31T23:59:59.999999", "2026-07-01", ["杭州"]),
        ("2026-06-01", "2026-06-30T23:59:59.999999", ["杭州"]),
    ],
)
def test_hangzhou_then_beijing(valid_at: str, known_at: str, expected: list[str]) -> None:
    claims = scenario(HANGZHOU_BEIJING)
    assert [c.value for c in values_at(claims, at(valid_at), at(known_at))] == expected


THEME = [("界面主题", "深色", "2026-02-01", "2026-02-01"),  # an alias of preferred_ui_theme
         ("preferred_ui_theme", "浅色", "2026-05-01", "2026-05-01")]


@pytest.mark.parametrize(
    ("valid_at", "known_at", "expected"),
    [
        ("2026-03-01", "2026-03-01", ["深色"]),
        ("2026-03-01", "2026-06-01", ["深色"]),
        ("2026-06-01", "2026-06-01", ["浅色"]),
        ("2026-06-01", "2026-04-01", ["深色"]),  # in April we expected dark to continue
        ("2026-05-01", "2026-05-01", ["浅色"]),
        ("2026-01-15", "2026-06-01", []),
    ],
)
def test_dark_then_light_theme(valid_at: str, known_at: str, expected: list[str]) -> None:
    claims = scenario(THEME)
    assert [c.value for c in values_at(claims, at(valid_at), at(known_at))] == expected


def test_theme_history_keeps_the_superseded_claim() -> None:
    claims = scenario(THEME)
    assert [(c.value, c.status) for c in history(claims)] == [("深色", ClaimStatus.SUPERSEDED),
                                                            ("浅色", ClaimStatus.ACTIVE)]
    assert [c.value for c in current(claims, at("2026-06-01"))] == ["浅色"]
    assert {c.predicate for c in claims} == {"preferred_ui_theme"}


# --- retract ------------------------------------------------------------------------------------


def test_retract_closes_knowledge_from_now_on() -> None:
    log = run([A(value="杭州", vf=0, rec=0)])
    claim_id = log.decisions[0].claim_id
    decision = log.retract(claim_id, rec=9)  # type: ignore[arg-type]
    (event,) = decision.events
    assert isinstance(event, ClaimRetracted)
    assert (decision.outcome, event.stream_id, event.version, event.reason) == ("retracted", claim_id, 2, "wrong")
    claim = log.view.claims[claim_id]  # type: ignore[index]
    assert claim.status is ClaimStatus.RETRACTED
    assert rows(claim) == [(0, None, 0, 9)]
    assert values_at([claim], day(5), day(8)) == [claim]  # we believed it then
    assert values_at([claim], day(5), day(9)) == []  # and not since


def test_retracted_claim_no_longer_competes() -> None:
    log = run([A(value="杭州", vf=0, rec=0)])
    log.retract(log.decisions[0].claim_id, rec=2)  # type: ignore[arg-type]
    assert log.assert_(A(value="北京", vf=5, rec=5)).outcome == "created"
    assert log.assert_(A(value="杭州", vf=6, rec=6)).outcome == "superseded"  # not a corroboration


def test_a_superseded_claim_can_be_retracted() -> None:
    log = run([A(value="杭州", vf=0, rec=0), A(value="北京", vf=5, rec=5)])
    decision = log.retract(log.decisions[0].claim_id, rec=6)  # type: ignore[arg-type]
    assert decision.outcome == "retracted"


@pytest.mark.parametrize(
    ("prepare", "error"),
    [
        ("missing", NotFound),
        ("retracted-twice", DomainRuleViolation),
    ],
)
def test_retract_refuses(prepare: str, error: type[Exception]) -> None:
    log = run([A(value="杭州", vf=0, rec=0)])
    claim_id: Any = log.decisions[0].claim_id
    if prepare == "missing":
        claim_id = "cl_missing"
    else:
        log.retract(claim_id, rec=1)
    events_before = list(log.events)
    with pytest.raises(error):
        log.retract(claim_id, rec=2)
    assert log.events == events_before
