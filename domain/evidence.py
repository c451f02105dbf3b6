"""Evidence rule: a claim rests only on events that exist and were not forgotten.

Every write that cites events — ``remember``, a batch, ``import``, the extraction pipeline, a
conflict decision — asks :func:`evidence_problems` inside its write transaction, with the cited
events' states as the store holds them (``ClaimReader.get_observations``: a forgotten event keeps
its tombstone state, an unknown id has none) and the ids the same batch records before the
claim. A claim citing a forgotten event would bring forgotten content back as a belief, and
would survive the forget of its other evidence; a claim citing an event that does not exist
has no evidence at all. Both are refused (:class:`UnusableEvidence`, reason codes below,
docs/forgetting.md, docs/reason-codes.md).

The rule applies to new commands only. Reducers never raise: a log written before the rule
that holds such a claim still replays, and the forget cascade counts its dead evidence as
gone (:class:`~hlmem.domain.forgetting.Gathered`).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence

from attrs import frozen

from hlmem.domain.errors import DomainRuleViolation
from hlmem.domain.state import ObservationState

#: A cited event id names no event of this store (nor one recorded earlier in the same batch).
EVIDENCE_UNKNOWN = "evidence.unknown"
#: A cited event was forgotten: its content may not come back as a claim's support.
EVIDENCE_FORGOTTEN = "evidence.forgotten"
#: Every reason code of this module (docs/reason-codes.md lists exactly these).
REASON_CODES = (EVIDENCE_UNKNOWN, EVIDENCE_FORGOTTEN)


@frozen
class EvidenceProblem:
    """One cited event that cannot support a claim, and why (a reason code)."""

    event_id: str
    reason: str


class UnusableEvidence(DomainRuleViolation):
    """A claim cites an event that was forgotten or does not exist; nothing was written.

    ``problems`` lists every such event with its reason code; ``reason`` is the first one's code
    (``evidence.forgotten`` before ``evidence.unknown`` when both occur).
    """

    def __init__(self, message: str, *, problems: Sequence[EvidenceProblem]) -> None:
        super().__init__(message)
        self.problems = tuple(problems)
        self.reason = self.problems[0].reason if self.problems else EVIDENCE_UNKNOWN


def evidence_problems(evidence: Sequence[str], cited: Mapping[str, ObservationState],
                      recorded: Collection[str] = ()) -> tuple[EvidenceProblem, ...]:
    """The cited events that cannot support a claim, in citation order (empty: all usable).

    :param evidence: the event ids the claim cites.
    :param cited: the states of (at least) those events, as the store holds them now.
    :param recorded: event ids the same batch records before this claim (not in the store yet).
    """
    problems = []
    for event_id in dict.fromkeys(evidence):
        if event_id in recorded:
            continue
        state = cited.get(event_id)
        if state is None:
            problems.append(EvidenceProblem(event_id, EVIDENCE_UNKNOWN))
        elif state.forgotten:
            problems.append(EvidenceProblem(event_id, EVIDENCE_FORGOTTEN))
    return tuple(problems)


def describe(problems: Sequence[EvidenceProblem]) -> str:
    """One line naming each unusable event and its reason code (for errors and import reports)."""
    forgotten = [p.event_id for p in problems if p.reason == EVIDENCE_FORGOTTEN]
    unknown = [p.event_id for p in problems if p.reason == EVIDENCE_UNKNOWN]
    parts = []
    if forgotten:
        parts.append(f"evidence {', '.join(forgotten)} was forgotten ({EVIDENCE_FORGOTTEN})")
    if unknown:
        parts.append(f"evidence {', '.join(unknown)} names no event ({EVIDENCE_UNKNOWN})")
    return "; ".join(parts)


def check_evidence(evidence: Sequence[str], cited: Mapping[str, ObservationState],
                   recorded: Collection[str] = (), *, what: str = "the claim") -> None:
    """Raise :class:`UnusableEvidence` unless every cited event exists and is not forgotten.

    :param what: how the message names the claim ("the claim user · theme · dark").
    :raises UnusableEvidence: with every problem, forgotten ones first.
    """
    problems = evidence_problems(evidence, cited, recorded)
    if problems:
        ordered = sorted(problems, key=lambda p: p.reason != EVIDENCE_FORGOTTEN)
        raise UnusableEvidence(f"{what} cannot rest on this evidence: {describe(ordered)}; nothing was written",
                               problems=ordered)
