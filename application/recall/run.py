"""One recall in flight (ADR 0031): the state every stage of :data:`~hlmem.application.recall.service.STAGES`
reads and leaves its part in."""

from __future__ import annotations

from attrs import Factory, define

from hlmem.application.ports import Candidate
from hlmem.application.ranking import Features, Scored
from hlmem.application.recall.items import RecallItem
from hlmem.application.recall.query import RecallQuery
from hlmem.application.recall.reads import RecallReads
from hlmem.domain.state import ClaimState, ObservationState


@define
class Run:
    """One recall in flight: its query, its reads, and what each stage has made so far."""

    query: RecallQuery
    reads: RecallReads
    notes: list[str]
    model: tuple[str, int] | None = None
    rankings: dict[str, list[Candidate]] = Factory(dict)
    scored: list[Scored] = Factory(list)
    claims: dict[str, ClaimState] = Factory(dict)
    events: dict[str, ObservationState] = Factory(dict)
    features: dict[str, Features] = Factory(dict)
    items: list[RecallItem] = Factory(list)
    history: frozenset[str] = frozenset()
    #: What the relevance floor dropped (the visibility stage says so when nothing above it is visible).
    below: list[Scored] = Factory(list)
