"""Hypothesis strategies for hlmem's persisted types: instants, text, ids and every domain event."""

from __future__ import annotations

from datetime import datetime, timezone

from hypothesis import strategies as st

from hlmem.domain.events import (
    DerivedBecameStale,
    DerivedBuilt,
    DerivedRebuilt,
    DerivedRemoved,
    EVENT_TYPES,
    Cardinality,
    ClaimArchived,
    ClaimAsserted,
    ClaimCorroborated,
    ClaimExpired,
    ClaimRetracted,
    ClaimRevived,
    ClaimSuperseded,
    ConflictOpened,
    ConflictResolved,
    DomainEvent,
    EvidenceForgotten,
    ExtractionRecorded,
    FeedbackRecorded,
    ForgetRequested,
    ItemForgotten,
    ObservationRecorded,
    OriginClass,
    Scope,
    SessionKind,
    StoreRestored,
)

UTC = timezone.utc

# --- instants ------------------------------------------------------------------------------------


def aware_datetimes(min_year: int = 1, max_year: int = 9999) -> st.SearchStrategy[datetime]:
    """Timezone-aware UTC datetimes with microsecond precision over (by default) the whole range."""
    return st.datetimes(
        min_value=datetime(min_year, 1, 1), max_value=datetime(max_year, 12, 31, 23, 59, 59, 999_999),
        timezones=st.just(UTC),
    )


# --- text ----------------------------------------------------------------------------------------

#: Hand-picked text that generic generation rarely reaches: Chinese, emoji (incl. ZWJ sequences
#: and flags), combining marks, RTL, full-width forms, JSON/SQL/FTS5 metacharacters.
AWKWARD_TEXTS = (
    "", " ", "用户偏好深色主题", "我住在上海浦东新区", "😀", "👩‍👩‍👧‍👦", "🇨🇳🇩🇪", "e\u0301", "Ǆ", "ﬁ",
    "שלום", "ＡＢＣ１２３", '"quoted" \\ back\\slash', "'; DROP TABLE events; --", "NEAR(a b)", "a* OR b",
    "col:value", "\x00nul\x00", "line\nbreak\ttab\r", "\u2028\u2029", "\ufeffbom", "𠀀𪚥 (astral Han)",
)

#: Any unicode text that can be encoded as UTF-8: lone surrogates (category Cs) are excluded,
#: since no store can write them (see the contract suite for how stores must refuse them).
unicode_text = st.text(st.characters(exclude_categories=("Cs",)), max_size=60)

texts: st.SearchStrategy[str] = st.one_of(unicode_text, st.sampled_from(AWKWARD_TEXTS))
"""Text for payload fields: generic unicode plus the awkward samples above."""

short_names = st.text(st.characters(exclude_categories=("Cs",)), min_size=1, max_size=20)
pairs = st.lists(st.tuples(short_names, texts), max_size=4).map(tuple)


def ids(prefix: str) -> st.SearchStrategy[str]:
    """Identifiers ``prefix_`` + 1–26 alphanumerics (the shape our id generators produce)."""
    alnum = st.text(st.sampled_from("0123456789ABCDEFGHJKMNPQRSTVWXYZabc"), min_size=1, max_size=26)
    return alnum.map(lambda s: f"{prefix}_{s}")


event_ids = ids("lg")
observation_ids = ids("ev")
claim_ids = ids("cl")
extraction_ids = ids("ex")
conflict_ids = ids("cf")
forget_ids = ids("fg")
restore_ids = ids("rs")
namespaces = st.sampled_from(("default", "work", "家", "a.b:c-d_1"))


# --- events --------------------------------------------------------------------------------------


def _envelope(stream: st.SearchStrategy[str]) -> dict[str, st.SearchStrategy]:
    return {
        "event_id": event_ids,
        "stream_id": stream,
        "version": st.integers(min_value=1, max_value=2**31),
        "recorded_at": aware_datetimes(),
        "namespace": namespaces,
        "schema_version": st.integers(min_value=1, max_value=3),
    }


finite_floats = st.floats(allow_nan=False, allow_infinity=False)

EVENT_STRATEGIES: dict[type[DomainEvent], st.SearchStrategy[DomainEvent]] = {
    ObservationRecorded: st.builds(
        ObservationRecorded, **_envelope(observation_ids), text=texts, role=texts, session_id=texts,
        origin_class=st.sampled_from(OriginClass), session_kind=st.sampled_from(SessionKind),
        occurred_at=aware_datetimes(),
    ),
    ClaimAsserted: st.builds(
        ClaimAsserted, **_envelope(claim_ids), subject=texts, predicate=texts, value=texts,
        qualifiers=pairs, coordinates=pairs, polarity=st.booleans(), importance=finite_floats,
        scope=st.sampled_from(Scope), cardinality=st.sampled_from(Cardinality), valid_from=aware_datetimes(),
        valid_to=st.none() | aware_datetimes(), evidence=st.lists(observation_ids, max_size=3).map(tuple),
        source=texts, superseded_by=st.none() | claim_ids,
    ),
    ClaimCorroborated: st.builds(
        ClaimCorroborated, **_envelope(claim_ids), evidence=st.lists(observation_ids, max_size=3).map(tuple),
    ),
    ClaimSuperseded: st.builds(
        ClaimSuperseded, **_envelope(claim_ids), superseded_by=claim_ids, valid_to=aware_datetimes(),
    ),
    ClaimRetracted: st.builds(ClaimRetracted, **_envelope(claim_ids), reason=texts, actor=texts),
    ItemForgotten: st.builds(
        ItemForgotten, **_envelope(claim_ids | observation_ids | conflict_ids), reason=texts, actor=texts,
        fingerprint=st.text(st.sampled_from("0123456789abcdef"), max_size=64), cascade_of=st.none() | forget_ids,
    ),
    EvidenceForgotten: st.builds(
        EvidenceForgotten, **_envelope(claim_ids), evidence=st.lists(observation_ids, max_size=3).map(tuple),
        cascade_of=st.none() | forget_ids,
    ),
    ForgetRequested: st.builds(
        ForgetRequested, **_envelope(forget_ids), target_kind=st.sampled_from(("claim", "event", "session", "subject")),
        target=texts, actor=texts, reason=texts,
        counts=st.lists(st.tuples(short_names, st.integers(0, 10**6)), max_size=4).map(tuple),
        items=st.lists(claim_ids | observation_ids | conflict_ids, max_size=4).map(tuple),
    ),
    ClaimExpired: st.builds(ClaimExpired, **_envelope(claim_ids), valid_to=aware_datetimes(), reason=texts,
                            actor=texts),
    ClaimArchived: st.builds(ClaimArchived, **_envelope(claim_ids), activation=finite_floats, reason=texts,
                             actor=texts),
    ClaimRevived: st.builds(ClaimRevived, **_envelope(claim_ids), reason=texts, actor=texts),
    FeedbackRecorded: st.builds(
        FeedbackRecorded, **_envelope(claim_ids | observation_ids),
        verdict=st.sampled_from(("helpful", "unhelpful")) | texts, actor=texts, reason=texts,
    ),
    StoreRestored: st.builds(
        StoreRestored, **_envelope(restore_ids), backup_id=texts, backup_position=st.integers(0, 2**40),
        reapplied=st.integers(0, 10**6), actor=texts, reason=texts,
    ),
    ExtractionRecorded: st.builds(
        ExtractionRecorded, **_envelope(extraction_ids), source_events=st.lists(observation_ids, max_size=3).map(tuple),
        extractor=texts,
        provenance=st.lists(st.tuples(observation_ids, texts, st.lists(texts, max_size=2).map(tuple)),
                            max_size=3).map(tuple),
        rejected=st.lists(st.tuples(texts, st.lists(texts, max_size=2).map(tuple)), max_size=3).map(tuple),
        claims=st.lists(claim_ids, max_size=3).map(tuple), conflicts=st.lists(conflict_ids, max_size=2).map(tuple),
    ),
    ConflictOpened: st.builds(
        ConflictOpened, **_envelope(conflict_ids), slot_key=texts, existing=st.lists(claim_ids, max_size=3).map(tuple),
        subject=texts, predicate=texts, value=texts, qualifiers=pairs, coordinates=pairs, polarity=st.booleans(),
        importance=finite_floats, scope=st.sampled_from(Scope), valid_from=aware_datetimes(),
        valid_to=st.none() | aware_datetimes(), evidence=st.lists(observation_ids, max_size=3).map(tuple),
        source=texts, reason=texts,
    ),
    ConflictResolved: st.builds(
        ConflictResolved, **_envelope(conflict_ids),
        decision=st.sampled_from(("keep-new", "keep-old", "coexist")) | texts, actor=texts,
        claim_id=st.none() | claim_ids,
    ),
}

# Derived items (ADR 0046): observation summaries and mental models.
derived_ids = ids("dv")
_derived_body = dict(
    kind=st.sampled_from(("observation_summary", "mental_model")) | texts, subject=texts, family=texts, label=texts,
    text=texts, language=st.sampled_from(("en", "zh")), watermark=st.integers(0, 2**40), builder=texts,
    sources=st.lists(st.tuples(claim_ids, st.integers(1, 10**6)), max_size=3).map(tuple),
)
EVENT_STRATEGIES[DerivedBuilt] = st.builds(DerivedBuilt, **_envelope(derived_ids), **_derived_body)
EVENT_STRATEGIES[DerivedRebuilt] = st.builds(DerivedRebuilt, **_envelope(derived_ids), **_derived_body)
EVENT_STRATEGIES[DerivedBecameStale] = st.builds(
    DerivedBecameStale, **_envelope(derived_ids), reason=texts, triggers=st.lists(claim_ids, max_size=3).map(tuple),
    scrubbed=st.booleans(), dropped=st.lists(claim_ids, max_size=2).map(tuple), subject=texts, family=texts,
    label=texts)
EVENT_STRATEGIES[DerivedRemoved] = st.builds(DerivedRemoved, **_envelope(derived_ids), reason=texts)

missing = set(EVENT_TYPES) - set(EVENT_STRATEGIES)
assert not missing, f"tests/strategies.py has no strategy for {missing}"  # a new event needs one here
del missing

events: st.SearchStrategy[DomainEvent] = st.one_of(*EVENT_STRATEGIES.values())
"""Any domain event, of any registered type."""
