"""The derived layer of the fact channel, purely: observation summaries and mental models.

A *derived item* is built from current claims (docs/derived.md, ADR 0046):

- an **observation summary** (kind ``observation_summary``) summarises two or more current claims
  of one subject in one slot family ("user prefers dark across 2 settings");
- a **mental model** (kind ``mental_model``) is a subject's profile: every current claim of the
  subject, grouped by family, with the summaries' findings first.

Each keeps its sources (claim ids with the stream versions it read) and a watermark (the log
position it was built at). Its stream is ``dv_…``; its events are
:class:`~hlmem.domain.events.DerivedBuilt`, ``DerivedRebuilt``, ``DerivedBecameStale``,
``DerivedRemoved`` and, when its last surviving source is forgotten, ``ItemForgotten``.

This module holds the state, the reducer (:func:`step_derived`, :func:`project_derived`) and the
staleness decision (:func:`decide_staleness`) that the write path calls in the same transaction
as the source change. The builder's grouping and wording is :mod:`hlmem.domain.derived_text`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import datetime

from attrs import evolve, frozen

from hlmem.domain.events import (
    ClaimExpired,
    ClaimRetracted,
    ClaimSuperseded,
    DerivedBecameStale,
    DerivedBuilt,
    DerivedRebuilt,
    DerivedRemoved,
    DomainEvent,
    ItemForgotten,
)

#: The stream prefix of derived items (``dv_…``): never an ``ev_`` (an event someone recorded).
PREFIX = "dv"
OBSERVATION_SUMMARY = "observation_summary"
MENTAL_MODEL = "mental_model"
KINDS = (OBSERVATION_SUMMARY, MENTAL_MODEL)

CURRENT = "current"
STALE = "stale"
REMOVED = "removed"
FORGOTTEN = "forgotten"
STATUSES = (CURRENT, STALE, REMOVED, FORGOTTEN)

#: Why a derived item went stale, by the source event's type.
STALE_REASONS: Mapping[type, str] = {
    ClaimSuperseded: "superseded", ClaimRetracted: "retracted", ClaimExpired: "expired", ItemForgotten: "forgotten",
}


#: The mark of the search-index namespace that holds a namespace's derived items (ADR 0084): a
#: character no namespace may hold (``NAMESPACE_RE``), so they never share a ranking or its
#: statistics with the claims and events they summarise.
INDEX_MARK = "#derived"


def index_namespace(namespace: str) -> str:
    """The search-index namespace of ``namespace``'s derived items (``default#derived``)."""
    return namespace + INDEX_MARK


def is_derived_id(stream_id: str) -> bool:
    """Whether ``stream_id`` names a derived item."""
    return stream_id.startswith(PREFIX + "_")


@frozen
class DerivedState:
    """A derived item as projected. ``sources`` are ``(claim_id, version)`` pairs as built."""

    derived_id: str
    namespace: str
    kind: str
    subject: str
    family: str
    label: str
    text: str
    language: str
    sources: tuple[tuple[str, int], ...]
    watermark: int
    builder: str
    built_at: datetime
    version: int
    status: str = CURRENT
    stale_since: datetime | None = None
    stale_reason: str = ""

    @property
    def source_ids(self) -> tuple[str, ...]:
        """The ids of the claims it was built from."""
        return tuple(cid for cid, _ in self.sources)

    @property
    def live(self) -> bool:
        """Whether it is shown (current or stale; not removed, not forgotten)."""
        return self.status in (CURRENT, STALE)


# -- the reducer ----------------------------------------------------------------------------------

def step_derived(event: DomainEvent, derived: dict[str, DerivedState]) -> None:
    """One step of the fold on the caller's working copy (both adapters call it per ``dv_`` event)."""
    sid = event.stream_id
    if isinstance(event, DerivedBuilt) and (sid not in derived or isinstance(event, DerivedRebuilt)):
        derived[sid] = DerivedState(
            derived_id=sid, namespace=event.namespace, kind=event.kind, subject=event.subject, family=event.family,
            label=event.label, text=event.text, language=event.language, sources=event.sources,
            watermark=event.watermark, builder=event.builder, built_at=event.recorded_at, version=event.version)
        return
    state = derived.get(sid)
    if state is None:
        return
    if isinstance(event, DerivedBecameStale):
        if state.status == FORGOTTEN:
            derived[sid] = evolve(state, version=event.version)
            return
        changed = evolve(state, status=STALE if state.status != REMOVED else REMOVED,
                         stale_since=state.stale_since if state.status == STALE else event.recorded_at,
                         stale_reason=event.reason, version=event.version)
        if event.scrubbed:
            gone = set(event.dropped)
            changed = evolve(changed, text="", subject=event.subject, family=event.family, label=event.label,
                             sources=tuple(s for s in state.sources if s[0] not in gone))
        derived[sid] = changed
    elif isinstance(event, DerivedRemoved):
        derived[sid] = evolve(state, status=REMOVED, version=event.version)
    elif isinstance(event, ItemForgotten):
        # A tombstone: what :func:`hlmem.domain.redaction.redact` blanks is blank here too.
        derived[sid] = evolve(state, subject="", family="", label="", text="", sources=(), status=FORGOTTEN,
                              stale_since=None, stale_reason="", version=event.version)
    else:
        derived[sid] = evolve(state, version=event.version)


def project_derived(events: Iterable[DomainEvent]) -> dict[str, DerivedState]:
    """Fold a log's derived events into their states (what every adapter's projection must equal)."""
    out: dict[str, DerivedState] = {}
    for event in events:
        if is_derived_id(event.stream_id):
            step_derived(event, out)
    return out


# -- staleness --------------------------------------------------------------------------------------

def stale_triggers(events: Sequence[DomainEvent]) -> dict[str, str]:
    """The claims whose change in ``events`` makes a derived item citing them stale, with why."""
    out: dict[str, str] = {}
    for event in events:
        reason = STALE_REASONS.get(type(event))
        if reason and event.stream_id.startswith("cl_"):
            # A forget outweighs any other change of the same claim in one batch.
            if out.get(event.stream_id) != "forgotten":
                out[event.stream_id] = reason
    return out


@frozen
class StalenessDecision:
    """What the write path appends with the source change (one transaction).

    ``erase``: derived streams whose earlier payloads must be redacted (their text held a
    forgotten source's content); ``forgotten``: those of them left without any source, which
    ``events`` tombstone (``ItemForgotten``; the ledger records them); ``rebuild``: items a
    worker job builds again.
    """

    events: tuple[DomainEvent, ...] = ()
    erase: tuple[str, ...] = ()
    forgotten: tuple[str, ...] = ()
    rebuild: tuple[str, ...] = ()

    @property
    def empty(self) -> bool:
        return not self.events


def decide_staleness(triggers: Mapping[str, str], citing: Mapping[str, DerivedState], *,
                     new_id: Callable[[str], str], recorded_at: datetime,
                     cascade_of: str | None = None,
                     cited_before: Mapping[str, frozenset[str]] | None = None) -> StalenessDecision:
    """The events that keep derived items honest after their sources changed.

    A current item citing a changed claim becomes stale; an item citing a forgotten claim is
    scrubbed (text erased, the forgotten ids dropped) whatever its status, and one left with no
    source is forgotten outright. A removed item's history is scrubbed the same way (its old text
    held the forgotten content) but it is not rebuilt; forgotten items are left alone.
    ``cited_before`` names, per item, the claims an earlier version was built from: a forgotten
    one there scrubs the item too (its earlier text held the value), though it no longer cites it.
    """
    events: list[DomainEvent] = []
    erase: list[str] = []
    forgotten: list[str] = []
    rebuild: list[str] = []
    for did in sorted(citing):
        state = citing[did]
        if state.status == FORGOTTEN:
            continue
        hit = [cid for cid in state.source_ids if cid in triggers]
        earlier = sorted(cid for cid in (cited_before or {}).get(did, ())
                         if triggers.get(cid) == "forgotten" and cid not in hit)
        if not hit and not earlier:
            continue
        gone = tuple(cid for cid in hit if triggers[cid] == "forgotten") + tuple(earlier)
        hit = hit + earlier
        base = dict(event_id=new_id("lg"), stream_id=did, version=state.version + 1, recorded_at=recorded_at,
                    namespace=state.namespace)
        if gone:
            erase.append(did)
            if not set(state.source_ids) - set(gone):
                events.append(ItemForgotten(**base, reason="its only sources were forgotten", actor="system",
                                            cascade_of=cascade_of))
                forgotten.append(did)
                continue
            events.append(DerivedBecameStale(**base, reason="forgotten", triggers=tuple(hit), scrubbed=True,
                                             dropped=gone, subject=state.subject, family=state.family,
                                             label=state.label))
            if state.status != REMOVED:
                rebuild.append(did)
        elif state.status == CURRENT:
            reasons = sorted({triggers[cid] for cid in hit})
            events.append(DerivedBecameStale(**base, reason=",".join(reasons), triggers=tuple(hit)))
            rebuild.append(did)
    return StalenessDecision(tuple(events), tuple(erase), tuple(forgotten), tuple(rebuild))


def forget_id_of(events: Sequence[DomainEvent]) -> str | None:
    """The ``ForgetRequested`` stream a batch of tombstones belongs to (the cascade's origin)."""
    for event in events:
        if isinstance(event, ItemForgotten) and event.cascade_of:
            return event.cascade_of
    return None
