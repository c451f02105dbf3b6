"""The evidence rule (domain/evidence.py): a claim rests only on events that exist and are not forgotten."""

from __future__ import annotations

import re
from datetime import datetime, timezone
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from hlmem.domain.errors import DomainRuleViolation, HlmemError
from hlmem.domain.events import OriginClass, SessionKind
from hlmem.domain.evidence import (
    EVIDENCE_FORGOTTEN,
    EVIDENCE_UNKNOWN,
    REASON_CODES,
    EvidenceProblem,
    UnusableEvidence,
    check_evidence,
    describe,
    evidence_problems,
)
from hlmem.domain.state import ObservationState

ROOT = Path(__file__).resolve().parents[3]
T0 = datetime(2026, 3, 1, 9, 30, tzinfo=timezone.utc)


def state(event_id: str, *, forgotten: bool = False) -> ObservationState:
    return ObservationState(event_id=event_id, namespace="default", text="" if forgotten else "hi", role="user",
                            session_id="s1", origin_class=OriginClass.DIRECT_USER,
                            session_kind=SessionKind.INTERACTIVE, occurred_at=T0, recorded_at=T0,
                            forgotten=forgotten)


KNOWN = {"ev_live": state("ev_live"), "ev_gone": state("ev_gone", forgotten=True)}


@pytest.mark.parametrize(("evidence", "recorded", "expected"), [
    ((), (), ()),
    (("ev_live",), (), ()),
    (("ev_gone",), (), (("ev_gone", EVIDENCE_FORGOTTEN),)),
    (("ev_nope",), (), (("ev_nope", EVIDENCE_UNKNOWN),)),
    (("ev_nope",), ("ev_nope",), ()),  # recorded earlier in the same batch
    (("ev_gone",), ("ev_gone",), ()),  # the batch records it again under that id
    (("ev_live", "ev_gone", "ev_nope", "ev_gone"), (),
     (("ev_gone", EVIDENCE_FORGOTTEN), ("ev_nope", EVIDENCE_UNKNOWN))),
])
def test_evidence_problems(evidence, recorded, expected) -> None:
    got = evidence_problems(evidence, KNOWN, recorded)
    assert [(p.event_id, p.reason) for p in got] == list(expected)


def test_check_evidence_names_every_problem_forgotten_first() -> None:
    with pytest.raises(UnusableEvidence) as refused:
        check_evidence(("ev_nope", "ev_live", "ev_gone"), KNOWN, what="the claim user · theme · dark")
    err = refused.value
    assert isinstance(err, DomainRuleViolation) and isinstance(err, HlmemError)
    assert err.reason == EVIDENCE_FORGOTTEN
    assert [p.event_id for p in err.problems] == ["ev_gone", "ev_nope"]
    message = str(err)
    assert message.startswith("the claim user · theme · dark cannot rest on this evidence")
    assert "ev_gone was forgotten (evidence.forgotten)" in message
    assert "ev_nope names no event (evidence.unknown)" in message
    assert message.endswith("nothing was written")
    assert check_evidence(("ev_live",), KNOWN) is None


def test_describe_groups_by_reason() -> None:
    problems = [EvidenceProblem("ev_a", EVIDENCE_UNKNOWN), EvidenceProblem("ev_b", EVIDENCE_FORGOTTEN),
                EvidenceProblem("ev_c", EVIDENCE_FORGOTTEN)]
    assert describe(problems) == ("evidence ev_b, ev_c was forgotten (evidence.forgotten); "
                                  "evidence ev_a names no event (evidence.unknown)")


ids = st.sampled_from(("ev_live", "ev_gone", "ev_nope", "ev_other"))


@given(evidence=st.lists(ids, max_size=5), recorded=st.sets(ids, max_size=2))
def test_a_claim_is_usable_exactly_when_every_cited_event_is_live_or_recorded(evidence, recorded) -> None:
    usable = all(e in recorded or (e in KNOWN and not KNOWN[e].forgotten) for e in evidence)
    assert (not evidence_problems(evidence, KNOWN, recorded)) == usable


def test_every_reason_code_is_documented() -> None:
    doc = (ROOT / "docs" / "reason-codes.md").read_text(encoding="utf-8")
    start = doc.index("## Evidence")
    end = doc.find("\n## ", start)
    section = doc[start:end if end > 0 else None]
    listed = set(re.findall(r"^\| `([a-z_.]+)` \|", section, re.MULTILINE))
    assert listed == set(REASON_CODES)
