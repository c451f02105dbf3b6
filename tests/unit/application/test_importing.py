"""Import parsing (``application/importing.py``) as tables, and the all-or-nothing import through ``Memory``."""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterator
from datetime import datetime, timedelta, timezone
from typing import Any

import pytest

from hlmem.application.importing import parse_jsonl, parse_record
from hlmem.domain.commands import AssertClaim, RecordObservation
from hlmem.domain.errors import ValidationError
from hlmem.domain.events import Cardinality, OriginClass, Scope, SessionKind

UTC = timezone.utc


def ids() -> Any:
    counter = itertools.count(1)
    return lambda prefix: f"{prefix}_{next(counter):04d}"


def line(**record: Any) -> str:
    return json.dumps(record, ensure_ascii=False)


OBS = {"type": "observation", "text": "我在杭州工作", "occurred_at": "2026-03-01T09:00:00+08:00"}
CLAIM = {"type": "claim", "subject": "用户", "predicate": "works_in", "value": "杭州"}


# --- good lines ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("record", "expected", "recorded_at"),
    [
        (OBS, {"text": "我在杭州工作", "occurred_at": datetime(2026, 3, 1, 1, tzinfo=UTC), "namespace": "default",
               "role": "user", "session_id": "default", "origin_class": OriginClass.DIRECT_USER,
               "session_kind": SessionKind.INTERACTIVE, "event_id": None}, None),
        ({**OBS, "recorded_at": "2026-03-02T00:00:00Z", "session": 7, "role": "assistant", "origin": "agent",
          "session_kind": "cron", "namespace": "work"},
         {"session_id": "7", "role": "assistant", "origin_class": OriginClass.AGENT, "session_kind": SessionKind.CRON,
          "namespace": "work"}, datetime(2026, 3, 2, tzinfo=UTC)),
        (CLAIM, {"subject": "用户", "predicate": "works_in", "value": "杭州", "qualifiers": (), "polarity": True,
                 "importance": 0.5, "scope": Scope.PERMANENT, "cardinality": None, "valid_from": None,
                 "evidence": (), "source": "import"}, None),
        ({**CLAIM, "qualifiers": {"temporary": "暂时", "reason": "项目"}, "coordinates": {"project": "x"},
          "valid_from": "2026-01-01", "valid_to": "2026-06-01T00:00:00+08:00", "importance": 1,
          "scope": "temporal", "polarity": False, "cardinality": "multi", "recorded_at": "2026-06-02T00:00Z"},
         {"qualifiers": (("reason", "项目"), ("temporary", "暂时")), "coordinates": (("project", "x"),),
          "valid_from": datetime(2026, 1, 1, tzinfo=UTC), "valid_to": datetime(2026, 5, 31, 16, tzinfo=UTC),
          "importance": 1, "scope": Scope.TEMPORAL, "polarity": False, "cardinality": Cardinality.MULTI},
         datetime(2026, 6, 2, tzinfo=UTC)),
        ({**CLAIM, "valid_to": None, "qualifiers": None, "evidence": None}, {"valid_to": None, "qualifiers": (),
                                                                           "evidence": ()}, None),
    ],
    ids=["observation-defaults", "observation-all-keys", "claim-defaults", "claim-all-keys", "claim-nulls"],
)
def test_good_lines_parse(record: dict, expected: dict, recorded_at: datetime | None) -> None:
    parsed, errors = parse_jsonl([line(**record)], ids())
    assert errors == []
    (item,) = parsed
    assert item.line == 1 and item.recorded_at == recorded_at
    assert isinstance(item.command, RecordObservation if record["type"] == "observation" else AssertClaim)
    for name, value in expected.items():
        assert getattr(item.command, name) == value, name


def test_file_local_ids_become_event_ids_in_evidence() -> None:
    lines = [line(**OBS, id="o1"), line(**OBS, id=2), line(**CLAIM, evidence=["o1", 2, "ev_EXISTING"])]
    parsed, errors = parse_jsonl(lines, ids())
    assert errors == []
    first, second, claim = (p.command for p in parsed)
    assert isinstance(first, RecordObservation) and isinstance(second, RecordObservation)
    assert first.event_id == "ev_0001" and second.event_id == "ev_0002"
    assert isinstance(claim, AssertClaim)
    assert claim.evidence == ("ev_0001", "ev_0002", "ev_EXISTING")  # unknown ids pass through as given


def test_blank_lines_are_skipped_but_counted() -> None:
    parsed, errors = parse_jsonl(["\n", line(**OBS), "   ", "{bad"], ids())
    assert [p.line for p in parsed] == [2]
    assert errors == ["line 4: not JSON (Expecting property name enclosed in double quotes)"]


# --- bad lines ----------------------------------------------------------------------------------

BAD = [
    ("not-json", "{type: observation}", "not JSON"),
    ("truncated", '{"type": "observation", "text": "x"', "not JSON"),
    ("array", "[1, 2]", "JSON object"),
    ("string", '"just text"', "JSON object"),
    ("null", "null", "JSON object"),
    ("no-type", line(text="x"), "type must be"),
    ("unknown-type", line(type="note", text="x"), "type must be"),
    ("unknown-observation-key", line(**OBS, colour="red"), "unknown keys ['colour']"),
    ("unknown-claim-key", line(**CLAIM, confidence=0.9), "unknown keys ['confidence']"),
    ("claim-key-on-observation", line(**OBS, subject="u"), "unknown keys ['subject']"),
    ("bad-origin", line(**OBS, origin="martian"), "origin 'martian' is not one of"),
    ("bad-session-kind", line(**OBS, session_kind="batch"), "session_kind"),
    ("bad-scope", line(**CLAIM, scope="forever"), "scope 'forever'"),
    ("bad-cardinality", line(**CLAIM, cardinality="many"), "cardinality 'many'"),
    ("naive-time", line(**OBS | {"occurred_at": "2026-03-01T09:00"}), "no timezone"),
    ("garbage-time", line(**CLAIM, valid_from="soon"), "cannot parse"),
    ("number-time", line(**CLAIM, valid_from=1700000000), "valid_from must be an ISO 8601 string"),
    ("qualifiers-list", line(**CLAIM, qualifiers=["temporary"]), "qualifiers must be an object"),
    ("qualifier-number", line(**CLAIM, qualifiers={"temporary": 1}), "qualifiers must be an object"),
    ("evidence-string", line(**CLAIM, evidence="o1"), "evidence must be a list"),
    ("polarity-string", line(**CLAIM, polarity="no"), "polarity must be true or false"),
    ("importance-string", line(**CLAIM, importance="high"), "importance must be a number"),
    ("importance-bool", line(**CLAIM, importance=True), "importance must be a number"),
]


@pytest.mark.parametrize(("raw", "message"), [b[1:] for b in BAD], ids=[b[0] for b in BAD])
def test_each_bad_line_is_reported_with_its_number(raw: str, message: str) -> None:
    parsed, errors = parse_jsonl([line(**OBS), raw, line(**CLAIM)], ids())
    assert [p.line for p in parsed] == [1, 3]
    assert len(errors) == 1
    assert errors[0].startswith("line 2: ") and message in errors[0], errors[0]


def test_every_bad_line_is_reported() -> None:
    lines = [raw for _, raw, _ in BAD]
    parsed, errors = parse_jsonl(lines, ids())
    assert parsed == []
    assert [e.split(":")[0] for e in errors] == [f"line {n}" for n in range(1, len(BAD) + 1)]


@pytest.mark.parametrize("record", [5, "x", None, [CLAIM]])
def test_parse_record_refuses_non_objects(record: Any) -> None:
    with pytest.raises(ValidationError, match="JSON object"):
        parse_record(record, ids(), {})


def test_missing_claim_fields_are_left_to_validation() -> None:
    # Parsing only shapes the record; validate_claim (run before any write) refuses the blanks.
    cmd, recorded_at = parse_record({"type": "claim"}, ids(), {})
    assert isinstance(cmd, AssertClaim) and cmd.subject is None and recorded_at is None


def test_deeply_nested_line_is_reported_not_raised() -> None:
    parsed, errors = parse_jsonl(["[" * 100_000 + "]" * 100_000], ids())
    assert parsed == [] and len(errors) == 1 and errors[0].startswith("line 1: ")


# --- through Memory: all or nothing -------------------------------------------------------------


@pytest.fixture
def mem() -> Iterator[Any]:
    from hlmem import Memory

    with Memory(":memory:", embedder="hash", now="2026-11-30T12:00:00Z") as m:
        yield m


GOOD_FILE = [
    line(**OBS, id="o1", recorded_at="2026-03-01T02:00:00Z"),
    line(**CLAIM, valid_from="2026-01-01", evidence=["o1"], recorded_at="2026-03-01T02:00:00Z"),
    line(**CLAIM | {"value": "北京"}, valid_from="2026-06-01", recorded_at="2026-07-01T00:00:00Z"),
]


def test_import_writes_every_line_with_its_times(mem: Any) -> None:
    report = mem.import_jsonl(GOOD_FILE)
    assert (report.lines, report.written, report.errors) == (3, 3, ())
    old, new = mem.history("用户", "works_in")
    assert (old.value, old.status.value, new.value, new.status.value) == ("杭州", "superseded", "北京", "active")
    assert old.recorded_at == datetime(2026, 3, 1, 2, tzinfo=UTC)
    assert new.versions[0].recorded_from == datetime(2026, 7, 1, tzinfo=UTC)
    explained = mem.explain(old.claim_id)
    assert [o.text for o in explained.evidence] == ["我在杭州工作"] and explained.missing_evidence == ()
    assert explained.evidence[0].occurred_at == datetime(2026, 3, 1, 1, tzinfo=UTC)


@pytest.mark.parametrize(
    "bad",
    [
        "{oops",  # parse error
        line(**CLAIM, qualifiers={"colour": "red"}),  # validation error (unknown qualifier)
        line(**OBS | {"text": "   "}),  # validation error (blank text)
        line(**CLAIM, valid_from="2026-06-01", valid_to="2026-01-01"),  # validation error (interval)
    ],
    ids=["parse", "unknown-qualifier", "blank-text", "interval"],
)
def test_one_bad_line_refuses_the_whole_file(mem: Any, bad: str) -> None:
    before = mem.stats()
    report = mem.import_jsonl([*GOOD_FILE, bad])
    assert report.written == 0 and report.lines == 4
    assert len(report.errors) == 1 and report.errors[0].startswith("line 4: ")
    assert mem.stats() == before


def test_skip_invalid_writes_the_good_lines(mem: Any) -> None:
    report = mem.import_jsonl([*GOOD_FILE, "{oops", line(**OBS | {"text": ""})], skip_invalid=True)
    assert (report.lines, report.written) == (5, 3)
    assert [e.split(":")[0] for e in report.errors] == ["line 4", "line 5"]
    assert mem.stats()["claims"] == 2 and mem.stats()["observations"] == 1


def test_import_reports_progress(mem: Any) -> None:
    seen: list[int] = []
    mem.import_jsonl(GOOD_FILE, progress=seen.append)
    assert seen and seen[-1] == 3


def test_skip_invalid_never_leaves_dangling_evidence(mem: Any) -> None:
    lines = [line(**OBS | {"text": ""}, id="o1"), line(**CLAIM, evidence=["o1"])]
    mem.import_jsonl(lines, skip_invalid=True)
    for claim in mem.history("用户", "works_in"):
        assert mem.explain(claim.claim_id).missing_evidence == ()


def test_import_with_no_embedder_writes_nothing_on_a_bad_line() -> None:
    from hlmem import Memory

    with Memory(":memory:", embedder="none") as m:
        report = m.import_jsonl([*GOOD_FILE, "{oops"])
        assert report.written == 0 and m.stats()["events"] == 0
        assert m.import_jsonl(GOOD_FILE).written == 3 and m.stats()["vectors"] == 0


def test_import_keeps_history_order_across_clock_skew(mem: Any) -> None:
    # Recorded times from the file, not the clock: a record from the past lands in the past.
    mem.import_jsonl([line(**CLAIM, valid_from="2020-01-01", recorded_at="2020-01-02T00:00:00Z")])
    (claim,) = mem.history("用户", "works_in")
    assert claim.recorded_at == datetime(2020, 1, 2, tzinfo=UTC)
    assert claim.recorded_at < mem.clock.now() - timedelta(days=365)
