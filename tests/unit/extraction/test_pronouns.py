"""A third-person pronoun is never the user: it stands for the person named before it, or for no one.

"她现在在腾讯上班了" with no one named is *her* employer, and giving it to the user would supersede
the user's own (ADR 0094). The pronoun takes the third party the event named last (an earlier
clause or sentence), else the one third party earlier turns of the session named in the same
window; two candidates, or none, and the clause yields nothing. Sentences here are not the
benchmark's.
"""

from __future__ import annotations

import json
import re
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from hlmem.application.extraction.rules import extract
from hlmem.domain.candidates import CandidateClaim, SourceEvent
from hlmem.domain.slot_catalog import DEFAULT_REGISTRY

AT = datetime(2026, 6, 3, 10, 0, tzinfo=timezone.utc)
USER = ("用户", "user")


def event(text: str, n: int = 1, *, session: str = "s", role: str = "user") -> SourceEvent:
    return SourceEvent(event_id=f"ev_{n}", text=text, role=role, session_id=session, origin_class="direct_user",
                       session_kind="interactive", occurred_at=AT + timedelta(minutes=n))


def run(*texts: str, session: str = "s") -> list[CandidateClaim]:
    events = [event(t, n, session=session) for n, t in enumerate(texts, 1)]
    found = extract(events, DEFAULT_REGISTRY)
    for c in found:
        assert any(c.evidence_quote in e.text for e in events) and c.rule, c
    return found


def triples(*texts: str) -> set[tuple[str, str, str]]:
    return {(c.subject, c.predicate, c.value) for c in run(*texts)}


@pytest.mark.parametrize("text", [
    "她现在在腾讯上班了", "他们搬到上海了", "他住在北京", "此人住在上海", "对方在阿里工作", "ta现在在腾讯上班了",
    "其学历是硕士", "他今年35岁", "她对花生过敏", "它今年三岁了", "他刚搬到杭州", "他下周三出差", "现在她在银行上班",
    "He works at Sony.", "She lives in Paris now.", "They moved to Denver.", "He's a nurse.", "she is 34",
    "So he works at Google now", "His wife works at Google.", "他老婆在谷歌上班", "她的同事住在北京",
])
def test_a_pronoun_with_no_referent_yields_no_claim(text: str) -> None:
    assert run(text) == []


@pytest.mark.parametrize("text", ["她在腾讯上班，经常加班", "He moved to Austin and works at Dell"])
def test_the_clauses_that_continue_an_unresolved_pronoun_are_no_ones_either(text: str) -> None:
    assert not any(c.subject in USER for c in run(text))


@pytest.mark.parametrize(("text", "claim"), [
    ("My brother Tom moved to Tokyo. He works at Sony.", ("Tom", "employer", "Sony")),
    ("My brother Tom moved to Tokyo, he works at Sony.", ("Tom", "employer", "Sony")),
    ("我表哥去年结婚了。他现在在腾讯上班", ("用户的表哥", "employer", "腾讯")),
    ("陈浩是我的同事，他住在苏州", ("陈浩", "lives_in", "苏州")),
    ("我家那只橘猫叫年糕，它今年三岁了", ("年糕", "age", "3岁")),
    ("My coworker Priya is great. She lives in Leeds.", ("Priya", "lives_in", "Leeds")),
])
def test_a_pronoun_takes_the_third_party_named_before_it_in_the_event(text: str, claim: tuple[str, str, str]) -> None:
    found = triples(text)
    assert claim in found, found
    assert not any(s in USER and p == claim[1] for s, p, _ in found), found


@pytest.mark.parametrize("text", [
    "我哥和我姐都来了，他在深圳上班",
    "My sister Amy and my friend Bob came over. She lives in Boston.",
    "My brother Tom moved to Tokyo with his wife Amy. She works at Sony.",
    "Tom and Amy visited. He works at Sony.",
])
def test_two_people_named_before_the_pronoun_make_it_ambiguous(text: str) -> None:
    found = run(text)
    assert not any(c.value in ("深圳", "Boston", "Sony") for c in found), found


def test_the_users_own_clause_beside_a_pronoun_is_still_the_users() -> None:
    found = triples("我在字节上班，她在腾讯上班，我住在北京")
    assert ("用户", "employer", "字节") in found and ("用户", "lives_in", "北京") in found
    assert not any(v == "腾讯" for _, _, v in found), found


def test_a_frame_that_says_me_is_the_speakers_whoever_opens_it() -> None:
    assert ("user", "job_title", "shift supervisor") in triples("they made me shift supervisor on nights")


# -- across turns of one session in one window -------------------------------------------------


def test_a_pronoun_takes_the_one_third_party_an_earlier_turn_named() -> None:
    found = triples("我表哥在深圳。", "他现在在腾讯上班了")
    assert ("用户的表哥", "employer", "腾讯") in found and not any(s in USER for s, _, _ in found), found
    assert ("Tom", "employer", "Sony") in triples("My brother Tom moved to Tokyo.", "He works at Sony.")


def test_two_people_named_across_earlier_turns_leave_the_pronoun_without_referent() -> None:
    found = triples("My brother Tom moved to Tokyo.", "My sister Amy lives in Oslo.", "She works at Sony.")
    assert not any(v == "Sony" for _, _, v in found), found


def test_another_sessions_turn_is_no_referent() -> None:
    events = [event("我表哥在深圳。", 1, session="a"), event("他现在在腾讯上班了", 2, session="b")]
    assert not any(c.value == "腾讯" for c in extract(events, DEFAULT_REGISTRY))


# -- the property: a pronoun put where the speaker was never yields a claim about the speaker ----------


def _first_person_statements() -> list[str]:
    """Fact statements of the dev set whose only first person opens them (我…, I…)."""
    path = Path(__file__).resolve().parents[3] / "benchmarks" / "extraction" / "dev.jsonl"
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        item = json.loads(line)
        text = item.get("text", "")
        if item["kind"] != "fact":
            continue
        if text.startswith("我") and not re.search(r"[我俺咱]", text[1:]):
            out.append(text[1:])
        elif re.match(r"I(?:'m|'ve| )", text) and not re.search(r"(?i)\b(?:i|me|my|mine|we|us|our)\b", text[1:]):
            out.append(text[1:])
    return out


_STATEMENTS = _first_person_statements()


@given(st.sampled_from(_STATEMENTS), st.sampled_from(["他", "她", "它", "他们", "此人", "对方", "ta", "He", "She", "They"]),
       st.sampled_from(["", "现在", "其实", "So ", "Honestly "]))
@example("在腾讯上班", "她", "现在")
@example(" work at Sony.", "He", "")
@example("以前在北京，现在在深圳上班。", "他", "")  # a gated first clause: the next one still continues him
def test_a_pronoun_in_the_speakers_place_never_yields_a_claim_about_the_speaker(rest: str, pronoun: str,
                                                                                 lead: str) -> None:
    zh = not rest[:1].isascii()
    if zh != (not pronoun.isascii() or pronoun == "ta") or zh != (not lead.isascii() or not lead):
        return  # one language at a time
    text = f"{lead}{pronoun}{rest}" if zh else f"{lead}{pronoun}{rest}".replace(" 'm", " is").replace("'m", " is")
    assert not any(c.subject in USER for c in run(text)), text
