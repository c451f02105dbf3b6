"""Admission refuses a claim about the user whose quote opens with a third-person pronoun (ADR 0094)."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from hlmem.domain.admission import PRONOUN_USER_SUBJECT, admit_candidate
from hlmem.domain.candidates import CandidateClaim, SourceEvent
from hlmem.domain.pronoun_subject import pronoun_opened

T0 = datetime(2026, 3, 1, 9, 30, tzinfo=timezone.utc)


@pytest.mark.parametrize("quote", ["她现在在腾讯上班了", "他们搬到上海了", "现在她在银行上班", "ta在腾讯", "对方在阿里工作",
                                   "此人住在上海", "He works at Sony", "she's a nurse", "So they moved to Denver"])
def test_a_pronoun_opening_a_quote_without_a_first_person_is_someone_elses(quote: str) -> None:
    assert pronoun_opened(quote)


@pytest.mark.parametrize("quote", ["我在腾讯上班", "I work at Sony", "they made me shift supervisor", "他们公司给我涨工资了",
                                   "她叫小雨", "her name's Jo", "his name is Theo", "she's called Jo", "其实我住在北京",
                                   "Heather works at Sony", "Theo works at Sony", "The office moved to Denver"])
def test_the_speakers_own_words_and_names_are_not(quote: str) -> None:
    assert not pronoun_opened(quote)


def _admit(subject: str, text: str) -> tuple[str, ...]:
    source = SourceEvent(event_id="ev_1", text=text, role="user", session_id="s", origin_class="direct_user",
                         session_kind="interactive", occurred_at=T0)
    cand = CandidateClaim(subject=subject, predicate="employer", value="腾讯", evidence_quote=text, evidence=("ev_1",))
    return admit_candidate(cand, {"ev_1": source}).reasons


def test_admission_refuses_the_user_as_a_pronouns_subject_and_no_one_else() -> None:
    assert PRONOUN_USER_SUBJECT in _admit("用户", "她现在在腾讯上班了")
    assert PRONOUN_USER_SUBJECT in _admit("user", "她现在在腾讯上班了")
    assert PRONOUN_USER_SUBJECT not in _admit("用户的表哥", "他现在在腾讯上班了")  # a resolved referent
    assert _admit("用户", "我现在在腾讯上班了") == ()
