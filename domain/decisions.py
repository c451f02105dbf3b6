"""Command functions: ``decide_*(state…, command) -> tuple[Event, ...]``; they never mutate.

The supersede rules live here. Decisions are recorded as events (a ``ClaimSuperseded`` names the
new end of the old claim's validity), so replay never depends on today's registry or rules.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime

from attrs import frozen

from hlmem.domain.commands import AssertClaim, RecordObservation
from hlmem.domain.errors import DomainRuleViolation, NotFound
from hlmem.domain.events import (
    Cardinality,
    ClaimAsserted,
    ClaimCorroborated,
    ClaimRetracted,
    ClaimRevived,
    ClaimSuperseded,
    DomainEvent,
    FeedbackRecorded,
    ObservationRecorded,
)
from hlmem.domain.lifecycle import REVIVE_CORROBORATED
from hlmem.domain.reversal import covers, replaces
from hlmem.domain.slots import SlotRegistry, normalize_key
from hlmem.domain.state import ClaimState, ClaimStatus, ClaimVersion, ObservationState

NewId = Callable[[str], str]


@frozen
class Decision:
    """What a command decided: the events to append and the claim it concerns."""

    events: tuple[DomainEvent, ...]
    claim_id: str | None
    outcome: str  # "created", "superseded", "corroborated", "inserted", "retracted", "recorded"


def decide_observation(cmd: RecordObservation, *, new_id: NewId, recorded_at: datetime) -> Decision:
    """Record a raw event; it occurred at ``cmd.occurred_at`` or, if not given, when recorded."""
    stream = cmd.event_id or new_id("ev")
    event = ObservationRecorded(
        event_id=new_id("lg"), stream_id=stream, version=1, recorded_at=recorded_at,
        namespace=cmd.namespace, text=cmd.text, role=cmd.role, session_id=cmd.session_id,
        origin_class=cmd.origin_class, session_kind=cmd.session_kind,
        occurred_at=cmd.occurred_at or recorded_at,
    )
    return Decision((event,), stream, "recorded")


def same_assertion(claim: ClaimState, cmd: AssertClaim) -> bool:
    """Whether ``cmd`` says exactly what ``claim`` says (value, polarity and qualifiers)."""
    return (
        normalize_key(claim.value) == normalize_key(cmd.value)
        and claim.polarity == cmd.polarity
        and tuple((k, normalize_key(v)) for k, v in claim.qualifiers)
        == tuple((k, normalize_key(v)) for k, v in cmd.qualifiers)
    )


def _known_rows(claims: Sequence[ClaimState]) -> list[tuple[ClaimState, ClaimVersion]]:
    rows = []
    for claim in claims:
        row = claim.current_version
        if row is not None and claim.status in (ClaimStatus.ACTIVE, ClaimStatus.SUPERSEDED, ClaimStatus.EXPIRED):
            rows.append((claim, row))
    return sorted(rows, key=lambda r: (r[1].valid_from, r[0].recorded_at, r[0].claim_id))


def _competitors(cmd: AssertClaim, cardinality: Cardinality, slot_claims: Sequence[ClaimState]) -> list[ClaimState]:
    """Claims the new one can supersede: the whole slot, or in a multi-valued slot the same value,
    the positive values a negation covers (ADR 0041) and those a positive value replaces (ADR 0059)."""
    if cardinality is Cardinality.SINGLE:
        return list(slot_claims)
    value = normalize_key(cmd.value)
    if not cmd.polarity:
        return [c for c in slot_claims if normalize_key(c.value) == value or (c.polarity and covers(cmd.value, c.value))]
    return [c for c in slot_claims if normalize_key(c.value) == value
            or (c.polarity and replaces(cmd.predicate, cmd.value, c.value, change=cmd.change))]


def decide_assert(
    cmd: AssertClaim,
    slot_claims: Sequence[ClaimState],
    *,
    registry: SlotRegistry,
    new_id: NewId,
    recorded_at: datetime,
) -> Decision:
    """Decide what asserting ``cmd`` means for its slot.

    ``cmd`` must already be validated; ``slot_claims`` are all claims of its slot. Rules, on the
    valid-time axis *as known now*:

    - the same value, polarity and qualifiers, valid at the new start → corroborate (no new claim;
      an archived claim is revived too);
    - else the claim valid at the new start (if any) is superseded: its validity ends there;
    - the new claim is valid until the start of the next known claim (a late-arriving fact
      lands between the claims around it) or its own ``valid_to``, whichever is first;
    - multi-valued predicates only compete with claims of the same value (polarity flips), a
      negation also with the positive values it covers (:func:`hlmem.domain.reversal.covers`), a
      positive value with those it replaces (:func:`hlmem.domain.reversal.replaces`); every one of
      them holding at the new start is superseded;
    - a reported *change* (``cmd.change``: "I moved to Seattle in May", said in July) is the
      speaker's latest word: it also supersedes the competitors that start after its start but no
      later than now (they end where they began), and only a claim starting after now bounds it.
    """
    cardinality = registry.cardinality(cmd.predicate, cmd.cardinality)
    valid_from = cmd.valid_from or recorded_at
    rows = _known_rows(_competitors(cmd, cardinality, slot_claims))

    for claim, row in rows:
        if same_assertion(claim, cmd) and _covers(row, valid_from):
            event = ClaimCorroborated(
                event_id=new_id("lg"), stream_id=claim.claim_id, version=claim.version + 1,
                recorded_at=recorded_at, namespace=claim.namespace, evidence=cmd.evidence,
            )
            if claim.archived:
                # A strong match brings an archived claim back into recall (lifecycle, ADR 0015);
                # the writer passes its index entry with the events.
                revived = ClaimRevived(
                    event_id=new_id("lg"), stream_id=claim.claim_id, version=claim.version + 2,
                    recorded_at=recorded_at, namespace=claim.namespace, reason=REVIVE_CORROBORATED, actor="system",
                )
                return Decision((event, revived), claim.claim_id, "corroborated")
            return Decision((event,), claim.claim_id, "corroborated")

    claim_id = new_id("cl")
    events: list[DomainEvent] = []
    holding = [c for c, r in rows if _covers(r, valid_from)]
    # One claim holds a single-valued slot at a time; in a multi-valued slot a negation or a
    # replacement may end several values.
    ended = holding if cardinality is Cardinality.MULTI else holding[:1]
    bound = valid_from
    if cmd.change and recorded_at > valid_from:
        # The latest word: what the slot learned since the change's start is over too (ADR 0059).
        bound = recorded_at
        ended = [*ended, *(c for c, r in rows if valid_from < r.valid_from <= recorded_at and c not in ended)]
    for current in ended:
        events.append(ClaimSuperseded(
            event_id=new_id("lg"), stream_id=current.claim_id, version=current.version + 1,
            recorded_at=recorded_at, namespace=current.namespace, superseded_by=claim_id, valid_to=valid_from,
        ))
    later = [(c, r) for c, r in rows if r.valid_from > bound]
    end, successor = cmd.valid_to, None
    if later:
        nxt_claim, nxt_row = later[0]
        if end is None or nxt_row.valid_from < end:
            end, successor = nxt_row.valid_from, nxt_claim.claim_id
    events.insert(0, ClaimAsserted(
        event_id=new_id("lg"), stream_id=claim_id, version=1, recorded_at=recorded_at,
        namespace=cmd.namespace, subject=cmd.subject, predicate=cmd.predicate, value=cmd.value,
        qualifiers=cmd.qualifiers, coordinates=cmd.coordinates, polarity=cmd.polarity,
        importance=cmd.importance, scope=cmd.scope, cardinality=cardinality, valid_from=valid_from,
        valid_to=end, evidence=cmd.evidence, source=cmd.source, superseded_by=successor,
    ))
    outcome = "superseded" if ended else ("inserted" if successor else "created")
    return Decision(tuple(events), claim_id, outcome)


def _covers(row: ClaimVersion, instant: datetime) -> bool:
    return row.valid_from <= instant and (row.valid_to is None or instant < row.valid_to)


def decide_retract(claim: ClaimState | None, claim_id: str, reason: str, *, new_id: NewId,
                   recorded_at: datetime) -> Decision:
    """Retract a claim: it stops being believed from now on (history keeps it)."""
    if claim is None:
        raise NotFound(f"no claim {claim_id}")
    if claim.status in (ClaimStatus.RETRACTED, ClaimStatus.FORGOTTEN):
        raise DomainRuleViolation(f"claim {claim_id} is already {claim.status.value}")
    event = ClaimRetracted(
        event_id=new_id("lg"), stream_id=claim_id, version=claim.version + 1, recorded_at=recorded_at,
        namespace=claim.namespace, reason=reason,
    )
    return Decision((event,), claim_id, "retracted")


#: What a feedback verdict may say.
FEEDBACK_VERDICTS = ("helpful", "unhelpful")


def decide_feedback(item: ClaimState | ObservationState | None, item_id: str, verdict: str, *, actor: str,
                    reason: str, new_id: NewId, recorded_at: datetime) -> Decision:
    """Record whether a recalled claim or event helped; forgotten items take no feedback."""
    if verdict not in FEEDBACK_VERDICTS:
        raise DomainRuleViolation(f"feedback must be one of {', '.join(FEEDBACK_VERDICTS)}, not {verdict!r}")
    if item is None:
        raise NotFound(f"no claim or event {item_id}")
    forgotten = item.forgotten if isinstance(item, ObservationState) else item.status is ClaimStatus.FORGOTTEN
    if forgotten:
        raise DomainRuleViolation(f"{item_id} was forgotten: there is nothing to give feedback on")
    event = FeedbackRecorded(
        event_id=new_id("lg"), stream_id=item_id, version=item.version + 1, recorded_at=recorded_at,
        namespace=item.namespace, verdict=verdict, actor=actor, reason=reason,
    )
    claim_id = item_id if isinstance(item, ClaimState) else None
    return Decision((event,), claim_id, verdict)
