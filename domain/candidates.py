"""Candidate claims: what an extractor proposes before provenance, admission and dedup decide."""

from __future__ import annotations

import enum
from datetime import datetime

from attrs import frozen

from hlmem.domain.events import Cardinality, Scope


@frozen(kw_only=True)
class SourceEvent:
    """The part of an observation an extractor and the admission rules may read."""

    event_id: str
    text: str
    role: str
    session_id: str
    origin_class: str
    session_kind: str
    occurred_at: datetime


@frozen(kw_only=True)
class CandidateClaim:
    """A proposed atomic claim, in the input's language, with the quote that supports it.

    ``evidence`` names the source events (``ev_…``); ``evidence_quote`` must occur in them
    (admission checks it). ``inference`` marks claims that restricted provenance may only keep
    as inferences. ``extractor`` names who proposed it (``rules``, ``llm:<model>``); ``rule``
    the rule of the rule extractor that made it (``zh.allergy``), empty for an LLM. The write
    pipeline records both in the claim's ``source`` (``extracted:rules#zh.allergy``). ``change``
    marks a reported change ("I moved to Seattle in May", "bought a Pixel"): valid from the stated
    time, it still supersedes what was said before it (:class:`~hlmem.domain.commands.AssertClaim`).
    """

    subject: str
    predicate: str
    value: str
    qualifiers: tuple[tuple[str, str], ...] = ()
    coordinates: tuple[tuple[str, str], ...] = ()
    polarity: bool = True
    importance: float = 0.5
    scope: Scope = Scope.PERMANENT
    cardinality: Cardinality | None = None
    valid_from: datetime | None = None
    valid_to: datetime | None = None
    evidence_quote: str = ""
    evidence: tuple[str, ...] = ()
    inference: bool = False
    extractor: str = "rules"
    rule: str = ""
    change: bool = False  # a reported change that holds when said (moved, bought, switched): ADR 0059


class Verdict(str, enum.Enum):
    """What a gate decided about an event or a candidate."""

    ACCEPT = "accept"
    RESTRICT = "restrict"  # keep, but only as a temporary inference
    REJECT = "reject"


@frozen
class GateDecision:
    """A gate's verdict with machine-readable reason codes (recorded in the log)."""

    verdict: Verdict
    reasons: tuple[str, ...] = ()
