"""The derived layer's pure parts: grouping and wording, the build decision, the reducer, staleness."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

from hypothesis import given
from hypothesis import strategies as st

from hlmem.domain.derived import (
    CURRENT,
    FORGOTTEN,
    MENTAL_MODEL,
    OBSERVATION_SUMMARY,
    REMOVED,
    STALE,
    decide_staleness,
    project_derived,
    stale_triggers,
)
from hlmem.domain.derived_build import decide_builds, draft_items, family_of, language_of
from hlmem.domain.events import (
    ClaimAsserted,
    ClaimExpired,
    ClaimRetracted,
    ClaimSuperseded,
    DerivedBecameStale,
    DerivedBuilt,
    DerivedRebuilt,
    DerivedRemoved,
    ItemForgotten,
)
from hlmem.domain.reducers import project
from hlmem.domain.redaction import redact
from hlmem.domain.slot_catalog import DEFAULT_REGISTRY

T0 = datetime(2026, 3, 1, tzinfo=timezone.utc)


def _ids():
    n = iter(range(1, 10_000))
    return lambda prefix: f"{prefix}_{next(n):04d}"


def claims(*rows):
    events = [ClaimAsserted(event_id=f"lg_{i}", stream_id=f"cl_{i}", version=1, recorded_at=T0, namespace="default",
                            subject=s, predicate=p, value=v, valid_from=T0) for i, (s, p, v) in enumerate(rows)]
    return list(project(events).claims.values())


def test_families_group_the_catalogue_and_preferred_predicates() -> None:
    assert family_of("preferred_ui_theme") == family_of("preferred_editor_theme") == family_of("likes") == "preferences"
    assert family_of("lives_in") == "places" and family_of("version") == "version"


def test_language_follows_the_values() -> None:
    assert language_of(claims(("user", "likes", "茶"))) == "zh"
    assert language_of(claims(("user", "likes", "tea"))) == "en"


def test_a_shared_value_across_slots_is_said_once() -> None:
    drafts = draft_items(claims(("user", "preferred_ui_theme", "dark"), ("我", "preferred_editor_theme", "DARK")), DEFAULT_REGISTRY)
    summary = [d for d in drafts if d.kind == OBSERVATION_SUMMARY]
    assert [d.text for d in summary] == [
        "user prefers DARK across 2 preferences (preferred editor theme, preferred UI theme)."]
    assert [d.kind for d in drafts].count(MENTAL_MODEL) == 1  # user and 我 are one subject


def test_chinese_templates_and_a_single_claim_makes_no_summary() -> None:
    drafts = draft_items(claims(("小明", "likes", "茶"), ("小明", "likes", "咖啡"), ("小明", "lives_in", "上海")),
                         DEFAULT_REGISTRY)
    assert [d.text for d in drafts if d.kind == OBSERVATION_SUMMARY] == ["小明的偏好：喜欢为咖啡、茶。"]
    [model] = [d for d in drafts if d.kind == MENTAL_MODEL]
    assert model.text == "小明的画像（3条当前事实）：\n- 小明的地点：住在为上海。\n- 小明的偏好：喜欢为咖啡、茶。"
    assert len(model.sources) == 3


_rows = st.lists(st.tuples(st.sampled_from(("user", "我", "小明", "Alice")),
                           st.sampled_from(("theme", "likes", "lives_in", "preferred_editor_theme", "version")),
                           st.sampled_from(("dark", "茶", "tea", "Berlin"))), max_size=8)


@given(_rows)
def test_the_builder_is_deterministic_and_order_free(rows) -> None:
    a = draft_items(claims(*rows), DEFAULT_REGISTRY)
    b = draft_items(list(reversed(claims(*rows))), DEFAULT_REGISTRY)
    assert a == b
    assert len({d.key for d in a}) == len(a)


@given(_rows)
def test_building_twice_writes_nothing_the_second_time(rows) -> None:
    drafts = draft_items(claims(*rows), DEFAULT_REGISTRY)
    first = decide_builds(drafts, [], namespace="default", new_id=_ids(), recorded_at=T0, watermark=3)
    assert all(isinstance(e, DerivedBuilt) for e in first) and len(first) == len(drafts)
    states = list(project_derived(first).values())
    assert decide_builds(drafts, states, namespace="default", new_id=_ids(), recorded_at=T0, watermark=9) == []


def test_stale_items_are_rebuilt_and_vanished_groups_removed() -> None:
    first = decide_builds(draft_items(claims(("user", "likes", "tea"), ("user", "likes", "jam")), DEFAULT_REGISTRY),
                          [], namespace="default", new_id=_ids(), recorded_at=T0, watermark=1)
    states = project_derived(first)
    summary = next(d for d in states.values() if d.kind == OBSERVATION_SUMMARY)
    later = decide_builds(draft_items(claims(("user", "likes", "tea")), DEFAULT_REGISTRY), list(states.values()),
                          namespace="default", new_id=_ids(), recorded_at=T0, watermark=5)
    kinds = {type(e).__name__: e.stream_id for e in later}
    assert kinds["DerivedRemoved"] == summary.derived_id
    assert isinstance(next(e for e in later if e.stream_id != summary.derived_id), DerivedRebuilt)


def _built(sources, status_events=()):
    b = DerivedBuilt(event_id="lg_b", stream_id="dv_1", version=1, recorded_at=T0, namespace="default",
                     kind=OBSERVATION_SUMMARY, subject="user", family="preferences", label="preferences",
                     text="user prefers dark", sources=sources)
    return project_derived([b, *status_events])


def test_staleness_triggers_and_decision() -> None:
    at = T0 + timedelta(hours=1)
    events = [ClaimSuperseded(event_id="e1", stream_id="cl_1", version=2, recorded_at=at, namespace="default",
                              superseded_by="cl_9", valid_to=at),
              ClaimRetracted(event_id="e2", stream_id="cl_2", version=2, recorded_at=at, namespace="default"),
              ClaimExpired(event_id="e3", stream_id="cl_3", version=2, recorded_at=at, namespace="default", valid_to=at),
              ItemForgotten(event_id="e4", stream_id="ev_4", version=2, recorded_at=at, namespace="default")]
    assert stale_triggers(events) == {"cl_1": "superseded", "cl_2": "retracted", "cl_3": "expired"}
    states = _built((("cl_1", 1), ("cl_5", 1)))
    decision = decide_staleness(stale_triggers(events), states, new_id=_ids(), recorded_at=at)
    [stale] = decision.events
    assert isinstance(stale, DerivedBecameStale) and stale.reason == "superseded" and not stale.scrubbed
    assert decision.rebuild == ("dv_1",) and decision.erase == ()
    # Already stale: a further non-forget change appends nothing.
    again = project_derived([*_replay(states), stale])
    assert decide_staleness({"cl_5": "retracted"}, again, new_id=_ids(), recorded_at=at).empty


def _replay(states):
    b = states["dv_1"]
    return [DerivedBuilt(event_id="lg_b", stream_id="dv_1", version=1, recorded_at=T0, namespace="default",
                         kind=b.kind, subject=b.subject, family=b.family, label=b.label, text=b.text,
                         sources=b.sources)]


def test_a_forgotten_source_scrubs_and_a_forgotten_only_source_tombstones() -> None:
    at = T0 + timedelta(hours=1)
    states = _built((("cl_1", 1), ("cl_5", 1)))
    scrub = decide_staleness({"cl_1": "forgotten"}, states, new_id=_ids(), recorded_at=at, cascade_of="fg_1")
    assert scrub.erase == ("dv_1",) and scrub.forgotten == () and scrub.rebuild == ("dv_1",)
    [event] = scrub.events
    assert event.scrubbed and event.dropped == ("cl_1",)
    live = project_derived([*_replay(states), event])["dv_1"]
    assert live.status == STALE and live.text == "" and live.source_ids == ("cl_5",)
    # Replaying the log as erased (the events before the scrub redacted) ends in the same state.
    assert project_derived([*(redact(e) for e in _replay(states)), event])["dv_1"] == live
    gone = decide_staleness({"cl_1": "forgotten", "cl_5": "forgotten"}, states, new_id=_ids(), recorded_at=at,
                            cascade_of="fg_1")
    assert gone.forgotten == ("dv_1",) and isinstance(gone.events[0], ItemForgotten)
    dead = project_derived([*_replay(states), *gone.events])["dv_1"]
    assert dead.status == FORGOTTEN and dead.text == dead.subject == "" and dead.sources == ()
    assert project_derived([*(redact(e) for e in _replay(states)), *gone.events])["dv_1"] == dead


def test_a_removed_item_is_scrubbed_but_not_rebuilt() -> None:
    removed = DerivedRemoved(event_id="lg_r", stream_id="dv_1", version=2, recorded_at=T0, namespace="default")
    states = project_derived([*_replay(_built((("cl_1", 1), ("cl_5", 1)))), removed])
    assert states["dv_1"].status == REMOVED
    decision = decide_staleness({"cl_1": "forgotten"}, states, new_id=_ids(), recorded_at=T0)
    assert decision.erase == ("dv_1",) and decision.rebuild == ()
    assert project_derived([*_replay(states), removed, *decision.events])["dv_1"].status == REMOVED
    assert CURRENT == "current"
