"""A value in another language than its event: admission refuses that claim alone (docs/pipeline.md, "LLM extraction")."""

from __future__ import annotations

import json
from datetime import datetime, timezone

import pytest
from hypothesis import given
from hypothesis import strategies as st

from hlmem.application.extraction.prompt import parse_extraction
from hlmem.domain import admission as A
from hlmem.domain.candidates import SourceEvent, Verdict
from hlmem.domain.language import translated


def _event(text: str) -> SourceEvent:
    return SourceEvent(event_id="ev_1", text=text, role="user", session_id="s1", origin_class="direct_user",
                       session_kind="interactive", occurred_at=datetime(2026, 3, 1, 1, 30, tzinfo=timezone.utc))


def _answer(value: str, quote: str) -> str:
    return json.dumps({"claims": [{"event": 1, "subject": "user", "predicate": "lives_in", "value": value,
                                   "qualifiers": [], "polarity": True, "importance": 0.5, "scope": "permanent",
                                   "valid_from": None, "valid_to": None, "evidence_quote": quote}]},
                      ensure_ascii=False)


@pytest.mark.parametrize(("value", "text"), [
    ("Hangzhou", "我住在杭州"),
    ("vegetarian", "我现在吃素了"),
    ("golden retriever", "我养了一只金毛"),
    ("4500 yuan", "每个月房租是4500块"),
    ("杭州", "I live in Hangzhou"),
    ("素食", "I'm vegetarian now"),
    ("Ｈａｎｇｚｈｏｕ", "我住在杭州"),  # full-width letters are letters too (NFKC)
])
def test_a_translated_value_is_detected(value: str, text: str) -> None:
    assert translated(value, text)


@pytest.mark.parametrize(("value", "text"), [
    ("杭州", "我住在杭州"),
    ("Hangzhou", "I live in Hangzhou"),
    ("Python 3.12", "我现在用Python 3.12写后端"),
    ("MacBook Pro", "我换了Mac，用起来还行"),  # the model names the thing more fully, in the text's own words
    ("Google", "我在Google上班"),
    ("4500", "每个月房租是4500块"),
    ("07:30", "我每天7:30起床"),
    ("VS Code", "我写代码用vscode"),
    ("iPhone 15 手机", "I just got an iPhone 15"),  # Chinese words in a value for an English text: translated
])
def test_a_value_in_the_texts_language_or_words_is_not(value: str, text: str) -> None:
    assert translated(value, text) is (value == "iPhone 15 手机")


def test_admission_refuses_the_translated_claim_alone() -> None:
    event = _event("我住在杭州，养了一只猫")
    answer = json.loads(_answer("Hangzhou", "我住在杭州"))
    answer["claims"].append({**answer["claims"][0], "predicate": "owns", "value": "猫", "evidence_quote": "养了一只猫"})
    translated_claim, kept = parse_extraction(json.dumps(answer, ensure_ascii=False), [event])
    sources = {event.event_id: event}
    refused = A.admit_candidate(translated_claim, sources)
    assert refused.verdict is Verdict.REJECT and A.VALUE_TRANSLATED in refused.reasons
    assert A.admit_candidate(kept, sources).verdict is Verdict.ACCEPT


def test_a_translated_common_word_is_refused_by_that_code_alone() -> None:
    event = _event("我现在吃素了")
    (claim,) = parse_extraction(_answer("vegetarian", "我现在吃素了"), [event])
    assert A.admit_candidate(claim, {event.event_id: event}).reasons == (A.VALUE_TRANSLATED,)


def test_the_same_answer_in_the_texts_language_is_read() -> None:
    (claim,) = parse_extraction(_answer("杭州", "我住在杭州"), [_event("我住在杭州")])
    assert claim.value == "杭州"


@given(st.text(alphabet=st.characters(whitelist_categories=("Lu", "Ll", "Lo", "Nd", "Zs", "Po")), max_size=30))
def test_a_value_copied_from_its_text_is_never_translated(text: str) -> None:
    assert not translated(text, text)
    for start in range(0, len(text), 7):
        assert not translated(text[start:start + 5], text)


@pytest.mark.parametrize("importance", [5, 8.5, -1, 1.5])
def test_an_importance_on_the_models_own_scale_is_read_as_the_default(importance: float) -> None:
    answer = json.loads(_answer("杭州", "我住在杭州"))
    answer["claims"][0]["importance"] = importance
    (claim,) = parse_extraction(json.dumps(answer, ensure_ascii=False), [_event("我住在杭州")])
    assert claim.importance == 0.5
