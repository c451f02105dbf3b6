"""Tables of cases for command validation: what is refused, with which field, and normalisation."""

from __future__ import annotations

import math
from datetime import datetime, timedelta, timezone
from typing import Any

import pytest
from attrs import evolve

from hlmem.domain.commands import (
    MAX_NAME_CHARS,
    MAX_QUALIFIERS,
    MAX_TEXT_CHARS,
    MAX_VALUE_CHARS,
    AssertClaim,
    RecordObservation,
    validate_claim,
    validate_observation,
)
from hlmem.domain.errors import InvalidTimestamp, ValidationError
from hlmem.domain.events import Cardinality, Scope
from hlmem.domain.slot_catalog import DEFAULT_REGISTRY

UTC = timezone.utc
CST = timezone(timedelta(hours=8))
T = datetime(2026, 3, 1, tzinfo=UTC)
NAIVE = datetime(2026, 3, 1, 9, 0)

CLAIM = AssertClaim(subject="用户", predicate="works_in", value="杭州")
OBS = RecordObservation(text="我在杭州工作")


def claim(**changes: Any) -> AssertClaim:
    return evolve(CLAIM, **changes)


def observation(**changes: Any) -> RecordObservation:
    return evolve(OBS, **changes)


def problems_of(exc: BaseException) -> list[ValidationError]:
    """The ValidationErrors in a raised error, whether single or grouped."""
    if isinstance(exc, BaseExceptionGroup):
        return [e for e in exc.exceptions if isinstance(e, ValidationError)]
    assert isinstance(exc, ValidationError)
    return [exc]


# --- claims -------------------------------------------------------------------------------------

CLAIM_ERRORS = [
    ("empty-subject", {"subject": ""}, "subject"),
    ("blank-subject", {"subject": " \t\n"}, "subject"),
    ("none-subject", {"subject": None}, "subject"),
    ("long-subject", {"subject": "s" * (MAX_NAME_CHARS + 1)}, "subject"),
    ("empty-predicate", {"predicate": "   "}, "predicate"),
    ("long-predicate", {"predicate": "p" * (MAX_NAME_CHARS + 1)}, "predicate"),
    ("empty-value", {"value": ""}, "value"),
    ("long-value", {"value": "v" * (MAX_VALUE_CHARS + 1)}, "value"),
    ("nul-value", {"value": "a\x00b"}, "value"),
    ("bad-namespace", {"namespace": "my namespace"}, "namespace"),
    ("empty-namespace", {"namespace": ""}, "namespace"),
    ("namespace-leading-dash", {"namespace": "-x"}, "namespace"),
    ("namespace-too-long", {"namespace": "n" * 65}, "namespace"),
    ("unknown-qualifier", {"qualifiers": (("colour", "red"),)}, "qualifier"),
    ("bad-qualifier-key", {"qualifiers": (("Not OK", "x"),)}, "qualifier"),
    ("duplicate-qualifier", {"qualifiers": (("temporary", "a"), ("temporary", "b"))}, "qualifier"),
    ("empty-qualifier-value", {"qualifiers": (("temporary", " "),)}, "qualifier temporary"),
    ("bad-coordinate-key", {"coordinates": (("9lives", "x"),)}, "coordinate"),
    ("too-many-qualifiers", {"coordinates": tuple((f"c{i}", "x") for i in range(MAX_QUALIFIERS + 1))}, "qualifier"),
    ("importance-high", {"importance": 1.01}, "importance"),
    ("importance-negative", {"importance": -0.01}, "importance"),
    ("importance-nan", {"importance": math.nan}, "importance"),
    ("importance-inf", {"importance": math.inf}, "importance"),
    ("importance-text", {"importance": "0.5"}, "importance"),
    ("naive-valid-from", {"valid_from": NAIVE}, "valid_from"),
    ("naive-valid-to", {"valid_to": NAIVE}, "valid_to"),
    ("valid-to-before-from", {"valid_from": T, "valid_to": T - timedelta(days=1)}, "valid_to"),
    ("valid-to-equals-from", {"valid_from": T, "valid_to": T}, "valid_to"),
    ("bad-evidence", {"evidence": ("local-1",)}, "evidence"),
    ("claim-as-evidence", {"evidence": ("cl_ABC",)}, "evidence"),
    ("bad-scope", {"scope": "forever"}, "scope"),
]


@pytest.mark.parametrize(("changes", "field"), [c[1:] for c in CLAIM_ERRORS], ids=[c[0] for c in CLAIM_ERRORS])
def test_validate_claim_refuses(changes: dict[str, Any], field: str) -> None:
    with pytest.raises((ValidationError, ExceptionGroup)) as info:
        validate_claim(claim(**changes), DEFAULT_REGISTRY)
    assert [p.field for p in problems_of(info.value)] == [field]
    assert all(str(p) for p in problems_of(info.value))  # every problem has a message


@pytest.mark.parametrize(
    ("changes", "fields"),
    [
        ({"subject": "", "value": "", "importance": 2}, {"subject", "value", "importance"}),
        ({"valid_from": NAIVE, "valid_to": NAIVE, "namespace": "?"}, {"valid_from", "valid_to", "namespace"}),
        ({"qualifiers": (("colour", "red"), ("BAD", "x")), "evidence": ("nope",)}, {"qualifier", "evidence"}),
    ],
    ids=["three-fields", "times-and-namespace", "qualifiers-and-evidence"],
)
def test_several_problems_are_raised_together(changes: dict[str, Any], fields: set[str]) -> None:
    with pytest.raises(ExceptionGroup) as info:
        validate_claim(claim(**changes), DEFAULT_REGISTRY)
    assert {p.field for p in problems_of(info.value)} == fields
    assert all(isinstance(e, ValidationError) for e in info.value.exceptions)


def test_naive_times_are_invalid_timestamps() -> None:
    with pytest.raises(InvalidTimestamp):
        validate_claim(claim(valid_from=NAIVE), DEFAULT_REGISTRY)


@pytest.mark.parametrize(
    ("changes", "limit_field"),
    [
        ({"subject": "s" * MAX_NAME_CHARS}, "subject"),
        ({"value": "v" * MAX_VALUE_CHARS}, "value"),
        ({"coordinates": tuple((f"c{i}", "x") for i in range(MAX_QUALIFIERS))}, "coordinates"),
        ({"importance": 0}, "importance"),
        ({"importance": 1}, "importance"),
        ({"namespace": "n" * 64}, "namespace"),
        ({"namespace": "team-a:project_1.x"}, "namespace"),
    ],
    ids=["subject-at-limit", "value-at-limit", "qualifiers-at-limit", "importance-0", "importance-1",
         "namespace-64", "namespace-punctuation"],
)
def test_values_at_the_limits_are_accepted(changes: dict[str, Any], limit_field: str) -> None:
    validate_claim(claim(**changes), DEFAULT_REGISTRY)


@pytest.mark.parametrize(
    ("changes", "expected"),
    [
        ({"predicate": "city"}, {"predicate": "lives_in"}),  # alias to canonical
        ({"predicate": "Works In"}, {"predicate": "works_in"}),
        ({"subject": "  the   user "}, {"subject": "the user"}),
        ({"value": "  杭州 \n"}, {"value": "杭州"}),
        ({"qualifiers": (("temporary", " 暂时 "), ("reason", "job"))},
         {"qualifiers": (("reason", "job"), ("temporary", "暂时"))}),
        # a known coordinate given as a qualifier moves to the coordinates (it picks the slot)
        ({"predicate": "version", "qualifiers": (("component", "api"), ("note", "x"))},
         {"qualifiers": (("note", "x"),), "coordinates": (("component", "api"),)}),
        ({"valid_from": datetime(2026, 3, 1, 8, tzinfo=CST)}, {"valid_from": datetime(2026, 3, 1, tzinfo=UTC)}),
        ({"evidence": ("ev_A", "ev_B", "ev_A")}, {"evidence": ("ev_A", "ev_B")}),
        ({"scope": "temporal"}, {"scope": Scope.TEMPORAL}),
        ({"cardinality": Cardinality.MULTI}, {"cardinality": Cardinality.MULTI}),
    ],
    ids=["alias", "predicate-spaces", "subject-spaces", "value-strip", "qualifiers-sorted", "coordinate-moves",
         "utc", "evidence-dedup", "scope-enum", "cardinality-kept"],
)
def test_validate_claim_normalises(changes: dict[str, Any], expected: dict[str, Any]) -> None:
    out = validate_claim(claim(**changes), DEFAULT_REGISTRY)
    for name, value in expected.items():
        assert getattr(out, name) == value, name


def test_valid_claim_is_returned_unchanged_in_substance() -> None:
    out = validate_claim(CLAIM, DEFAULT_REGISTRY)
    assert (out.subject, out.predicate, out.value, out.polarity, out.importance) == ("用户", "works_in", "杭州", True, 0.5)


# --- observations -------------------------------------------------------------------------------

OBS_ERRORS = [
    ("empty-text", {"text": ""}, "text"),
    ("blank-text", {"text": "  \n\t  "}, "text"),
    ("none-text", {"text": None}, "text"),
    ("long-text", {"text": "x" * (MAX_TEXT_CHARS + 1)}, "text"),
    ("nul-text", {"text": "a\x00b"}, "text"),
    ("bad-namespace", {"namespace": "a b"}, "namespace"),
    ("blank-session", {"session_id": " "}, "session"),
    ("long-session", {"session_id": "s" * (MAX_NAME_CHARS + 1)}, "session"),
    ("blank-role", {"role": ""}, "role"),
    ("naive-occurred-at", {"occurred_at": NAIVE}, "occurred_at"),
    ("bad-event-id", {"event_id": "cl_X"}, "event_id"),
    ("event-id-with-space", {"event_id": "ev_ X"}, "event_id"),
]


@pytest.mark.parametrize(("changes", "field"), [c[1:] for c in OBS_ERRORS], ids=[c[0] for c in OBS_ERRORS])
def test_validate_observation_refuses(changes: dict[str, Any], field: str) -> None:
    with pytest.raises((ValidationError, ExceptionGroup)) as info:
        validate_observation(observation(**changes))
    assert [p.field for p in problems_of(info.value)] == [field]


def test_observation_problems_are_grouped() -> None:
    with pytest.raises(ExceptionGroup) as info:
        validate_observation(observation(text="", namespace="?", occurred_at=NAIVE))
    assert {p.field for p in problems_of(info.value)} == {"text", "namespace", "occurred_at"}


@pytest.mark.parametrize(
    "text",
    ["x" * MAX_TEXT_CHARS, "😀🎉 emoji only", "'; DROP TABLE events; --", "混合 scripts: Ωμέγα, עברית, 한국어"],
    ids=["at-limit", "emoji", "sql", "mixed-scripts"],
)
def test_validate_observation_keeps_text_verbatim(text: str) -> None:
    assert validate_observation(observation(text=text)).text == text


def test_validate_observation_normalises_time_and_names() -> None:
    out = validate_observation(observation(occurred_at=datetime(2026, 3, 1, 8, tzinfo=CST), role=" user ",
                                           session_id=" s1 "))
    assert out.occurred_at == datetime(2026, 3, 1, tzinfo=UTC)
    assert (out.role, out.session_id) == ("user", "s1")


@pytest.mark.parametrize("text", ["bad \ud800 text", "\udcff"])
def test_text_that_is_not_utf8_encodable_is_refused(text: str) -> None:
    with pytest.raises(ValidationError):
        validate_observation(observation(text=text))
