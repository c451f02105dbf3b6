"""Rules and learned candidates combined (application/extraction/combine.py, ADR 0078)."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from hlmem.application.extraction.combine import CombinedExtractor, collides, combine, gated
from hlmem.domain.candidates import CandidateClaim, SourceEvent
from hlmem.domain.events import Cardinality


def claim(subject: str, predicate: str, value: str, *, multi: bool = False, extractor: str = "rules") -> CandidateClaim:
    return CandidateClaim(subject=subject, predicate=predicate, value=value, extractor=extractor,
                          cardinality=Cardinality.MULTI if multi else Cardinality.SINGLE)


def learned(subject: str, predicate: str, value: str, *, multi: bool = False) -> CandidateClaim:
    return claim(subject, predicate, value, multi=multi, extractor="learned")


def test_union_adds_what_the_rules_did_not_say() -> None:
    rules = [claim("用户", "lives_in", "杭州")]
    out = combine(rules, [learned("用户", "job_title", "财务")])
    assert [c.extractor for c in out] == ["rules", "learned"]


def test_union_keeps_the_rule_value_of_a_single_valued_slot() -> None:
    rules = [claim("user", "lives_in", "Leeds")]
    assert combine(rules, [learned("user", "lives_in", "Lagos")]) == rules


def test_union_lets_a_multi_valued_slot_grow_but_not_repeat() -> None:
    rules = [claim("user", "owns", "Biscuit", multi=True)]
    out = combine(rules, [learned("user", "owns", "Pepper", multi=True), learned("user", "owns", "biscuit", multi=True)])
    assert [c.value for c in out] == ["Biscuit", "Pepper"]


def test_union_drops_a_learned_claim_whose_value_the_rules_gave_someone_else() -> None:
    rules = [claim("朵朵", "age", "5岁")]
    assert combine(rules, [learned("用户", "age", "5岁")]) == rules


def test_union_drops_a_learned_claim_overlapping_a_rule_value_of_the_same_subject() -> None:
    rules = [claim("user", "employer", "Stripe")]
    assert combine(rules, [learned("user", "job_title", "Stripe backend")]) == rules


def test_subjects_compare_without_the_possessive() -> None:
    assert collides(learned("user's mom", "age", "67"), [claim("mom", "age", "sixty-seven")])
    assert not collides(learned("user's mom", "age", "67"), [claim("user", "age", "34")])


def test_fallback_uses_the_learned_claims_only_when_the_rules_are_silent() -> None:
    rules = [claim("user", "lives_in", "Leeds")]
    extra = [learned("user", "hometown", "Lagos")]
    assert combine(rules, extra, "fallback") == rules
    assert combine([], extra, "fallback") == extra


def test_an_unknown_mode_is_an_error() -> None:
    with pytest.raises(ValueError, match="unknown combination mode"):
        combine([], [], "both")
    with pytest.raises(ValueError, match="unknown combination mode"):
        CombinedExtractor(_Fixed([]), _Fixed([]), "both")


class _Fixed:
    def __init__(self, by_event: list[list[CandidateClaim]]) -> None:
        self._by_event = by_event
        self.calls = 0

    def extract(self, events, *, job_id=None):  # noqa: ANN001, ANN201 - the Extractor port
        out = self._by_event[self.calls]
        self.calls += 1
        return out


def _event(i: int, text: str = "I moved from Leeds to Lagos.") -> SourceEvent:
    return SourceEvent(event_id=f"ev_{i}", text=text, role="user", session_id="s", origin_class="direct_user",
                       session_kind="interactive", occurred_at=datetime(2026, 3, 2, tzinfo=timezone.utc))


def test_the_extractor_combines_each_event_on_its_own() -> None:
    rules = _Fixed([[claim("user", "lives_in", "Leeds")], []])
    tagger = _Fixed([[learned("user", "lives_in", "Lagos")], [learned("user", "lives_in", "Lagos")]])
    out = CombinedExtractor(rules, tagger, "fallback").extract([_event(0), _event(1)])
    assert [c.value for c in out] == ["Leeds", "Lagos"]
    assert rules.calls == tagger.calls == 2


def test_learned_claims_stay_out_of_clauses_the_rules_gate() -> None:
    extra = [learned("user", "lives_in", "Lisbon")]
    assert combine([], extra, "union", "I live in Lisbon.") == extra
    assert combine([], extra, "union", "Should I move to Lisbon?") == []  # a question
    assert combine([], extra, "union", "If I won the lottery I'd move to Lisbon.") == []  # a hypothetical
    assert combine([], extra, "union", "Somewhere else entirely.") == []  # not in the text at all
    assert gated("我以前住在里斯本，现在住在波尔图。", [learned("用户", "lives_in", "波尔图"), learned("用户", "lives_in", "里斯本")]) == [
        learned("用户", "lives_in", "波尔图")]
