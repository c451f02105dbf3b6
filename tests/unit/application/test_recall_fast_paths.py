"""Recall's helpers after the latency work: the same answers as their plain definitions, fewer reads."""

from __future__ import annotations

import re
import unicodedata
from datetime import datetime, timedelta, timezone

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hlmem.application.entity_constraint import constrain, mentions, mentions_folded
from hlmem.application.ranking import Scored, fold_key_of_text
from hlmem.application.recall import RecallService
from hlmem.application.recall.features import features_of
from hlmem.domain.events import Cardinality, Scope
from hlmem.domain.queries import holds, row_at
from hlmem.domain.query_understanding import Entity, QueryIntent, TimeMode
from hlmem.domain.state import ClaimState, ClaimStatus, ClaimVersion

UTC = timezone.utc
T0 = datetime(2026, 3, 1, tzinfo=UTC)
DAY = timedelta(days=1)


# --- the entity constraint ------------------------------------------------------------------------

TEXTS = {
    "a": "张伟 · lives_in · 杭州", "b": "张卫 · lives_in · 上海", "c": "ＴＯＭ　DAVIS likes tea",  # full width: NFKC
    "d": "tom davison likes tea", "e": "release v1.2.1 shipped", "f": "release v1.2 shipped", "g": "nobody here",
    "h": "Version 1.2 and 张伟",
}


def _constrain_reference(scored, texts, names, others, mode):
    named = [s for s in scored if any(mentions(texts.get(s.item_id, ""), n) for n in names)]
    elsewhere = [s for s in scored if s not in named and any(mentions(texts.get(s.item_id, ""), o) for o in others)]
    rest = [s for s in scored if s not in named and s not in elsewhere]
    return (list(scored) if mode == "observe" else named + rest), len(elsewhere)


@pytest.mark.parametrize("mode", ["enforce", "observe"])
@pytest.mark.parametrize(("names", "others"), [
    (["张伟"], ["张卫", "Tom Davis"]), (["Tom Davis"], ["张伟"]), (["1.2"], []), (["v1.2.1"], ["张卫"]), (["", "张卫"], [""]),
])
def test_constrain_equals_its_definition(names: list[str], others: list[str], mode: str) -> None:
    scored = [Scored(item_id=i, kind="claim", relevance=1.0 - n / 10, score=1.0 - n / 10, ranks={"text": n + 1})
              for n, i in enumerate([*TEXTS, "missing"])]
    assert constrain(scored, TEXTS, names, others, mode) == _constrain_reference(scored, TEXTS, names, others, mode)


def test_mentions_normalises_the_text() -> None:
    assert mentions("ＴＯＭ　DAVIS likes tea", "tom davis") and not mentions("tom davison", "Tom Davis")


# --- the features of loaded claims ----------------------------------------------------------------


def _claim(cid: str, versions: tuple[ClaimVersion, ...], status: ClaimStatus = ClaimStatus.ACTIVE) -> ClaimState:
    return ClaimState(claim_id=cid, namespace="default", subject="张伟", predicate="lives_in", value=cid,
                      qualifiers=(), coordinates=(), polarity=True, importance=0.3, scope=Scope.PERMANENT,
                      cardinality=Cardinality.SINGLE, source="user", recorded_at=T0, version=1, versions=versions,
                      status=status)


CLAIMS = {
    "now": _claim("now", (ClaimVersion(T0, None, T0, None),)),
    "ended": _claim("ended", (ClaimVersion(T0 - 9 * DAY, T0 - 2 * DAY, T0 - 9 * DAY, None),)),
    "revised": _claim("revised", (ClaimVersion(T0 - 5 * DAY, None, T0 - 5 * DAY, T0 - DAY),
                                  ClaimVersion(T0 - 3 * DAY, None, T0 - DAY, None))),
    "future": _claim("future", (ClaimVersion(T0 + 5 * DAY, None, T0, None),)),
    "forgotten": _claim("forgotten", (ClaimVersion(T0 - 5 * DAY, None, T0 - 5 * DAY, None),), ClaimStatus.FORGOTTEN),
}


@pytest.mark.parametrize(("valid_at", "known_at"), [
    (T0 + DAY, T0 + DAY), (T0 - 4 * DAY, T0 + DAY), (T0 - 4 * DAY, T0 - 2 * DAY), (T0 + 9 * DAY, T0),
])
def test_claim_features_take_the_row_held_then_and_past_means_not_held(valid_at: datetime, known_at: datetime) -> None:
    features = features_of(CLAIMS, {}, valid_at, known_at)
    for cid, c in CLAIMS.items():
        row = row_at(c, valid_at, known_at) or c.versions[-1]
        assert features[cid].when == row.valid_from and features[cid].until == row.valid_to
        assert features[cid].past is (not holds(c, valid_at, known_at))
    assert {cid for cid, f in features.items() if not f.past} >= ({"now"} if valid_at > T0 else set())


# --- named entities ---------------------------------------------------------------------------------


class _CountingStorage:
    """Knows the subjects in ``stored``; records every subject it is asked about."""

    def __init__(self, stored: set[str]) -> None:
        self.stored = stored
        self.asked: list[str] = []

    def stored_subjects(self, namespace: str, subjects: list[str]) -> set[str]:
        self.asked += subjects
        self.reads = getattr(self, "reads", 0) + 1
        return {s for s in subjects if s in self.stored}


def _intent(*entities: Entity) -> QueryIntent:
    return QueryIntent(query="q", about_user=False, subjects=(), entities=entities, time_mode=TimeMode.UNSPECIFIED)


def test_named_asks_the_store_only_about_unsure_names_not_loaded() -> None:
    storage = _CountingStorage({"Tom Davis"})
    service = RecallService(storage, clock=None)  # type: ignore[arg-type]
    intent = _intent(
        Entity("v1.2", "1.2", "version", 0.9, "version"),            # sure: kept without a read
        Entity("李娜", "李娜", "subject", 0.95, "known_subject"),     # sure, not loaded: kept without a read
        Entity("张伟", "张伟", "person", 0.6, "name_zh"),             # unsure but loaded: kept without a read
        Entity("Tom Davis", "Tom Davis", "person", 0.6, "name_en"),  # unsure, stored: one read, kept
        Entity("Uma Hill", "Uma Hill", "person", 0.5, "name_en"),    # unsure, unknown: one read, dropped
        Entity("北京", "北京", "place", 0.7, "place"),                # unsure place: never read, dropped
        Entity("表弟", "表弟", "role", 0.8, "role"),                  # roles never count
    )
    names = service._named(intent, "default", {"cl": CLAIMS["now"]})
    assert names == ("1.2", "李娜", "张伟", "Tom Davis")
    assert storage.asked == ["Tom Davis", "Uma Hill"] and storage.reads == 1


@pytest.mark.parametrize("text", ["张伟", "Ｌｉｖｅｓ_In", "ǅ", "x" * 128 + "!", "Tom, Davis. " * 40])
def test_fold_keys_of_short_and_long_texts_follow_one_definition(text: str) -> None:
    expected = re.sub(r"[\W_]+", "", unicodedata.normalize("NFKC", text).casefold())
    assert fold_key_of_text(text) == expected and fold_key_of_text(text) == expected  # cached or not


def _reference_mention(folded: str, name: str) -> bool:
    """The rule of ``entity_constraint.mentions`` as the regular expression it was first written as."""
    needle = unicodedata.normalize("NFKC", name).casefold().strip()
    if not needle:
        return False
    head = r"(?<![0-9a-z_.])" if needle[0].isascii() and needle[0].isalnum() else ""
    if needle[0].isdigit():
        head = r"(?:(?<![0-9a-z_.])|(?<=(?<![0-9a-z_.])v))"
    tail = r"(?![0-9a-z_]|\.[0-9])" if needle[-1].isascii() and needle[-1].isalnum() else ""
    return re.compile(head + re.escape(needle) + tail).search(folded) is not None


_MENTION_ALPHABET = "v1.2a_ 张伟卫x-é"


@given(st.text(_MENTION_ALPHABET, max_size=14), st.text(_MENTION_ALPHABET, min_size=1, max_size=4))
@settings(max_examples=500, deadline=None)
def test_mentions_scan_agrees_with_the_word_edge_expression(text: str, name: str) -> None:
    assert mentions_folded(text, name) == _reference_mention(text, name)
