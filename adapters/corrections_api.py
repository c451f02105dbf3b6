"""The lookup half of the ``Memory`` facade: get one claim or event by id, and correct a claim.

``Memory`` inherits these methods. ``get`` is one call into the inspect service; ``correct`` is the
two writes the facade already offers (``remember`` on the claim's own slot, then ``retract`` when
the new value did not supersede the old one), so every front end corrects the same way.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from attrs import frozen

from hlmem.adapters.arguments import Timestamp
from hlmem.application.writes import WriteResult
from hlmem.domain.errors import DomainRuleViolation, ValidationError
from hlmem.domain.state import ClaimState, ClaimStatus, ObservationState

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping


@frozen
class Correction:
    """What :meth:`Corrections.correct` did: the write of the new value, the claim it corrected, and
    whether that claim had to be retracted (a multi-valued slot keeps values side by side)."""

    write: WriteResult
    corrected: str
    retracted: bool


class Corrections:
    """``get`` and ``correct``, mixed into :class:`~hlmem.adapters.memory_api.Memory`."""

    if TYPE_CHECKING:
        _container: Any

        def remember(self, subject: str, predicate: str, value: str, **kwargs: Any) -> WriteResult: ...
        def retract(self, claim_id: str, reason: str = "") -> WriteResult: ...
        def resolve(self, item_id: str) -> str: ...

    def get(self, item_id: str) -> ClaimState | ObservationState:
        """The claim (``cl_…``) or event (``ev_…``) with this id.

        :raises NotFound: an unknown id, or one that was forgotten (the message says which).
        """
        return self._container.inspect().get(self.resolve(item_id))

    def claim(self, claim_id: str) -> ClaimState:
        """The claim with this id, in any status but forgotten.

        :raises NotFound: an unknown id, or one that was forgotten.
        :raises ValidationError: an event id (``ev_…``).
        """
        found = self.get(claim_id)
        if not isinstance(found, ClaimState):
            raise ValidationError(f"{claim_id} is an event, not a claim (cl_…)", field="claim_id")
        return found

    def correct(self, claim_id: str, value: str, *, valid_from: Timestamp = None, reason: str = "",
                qualifiers: Mapping[str, str] | None = None, evidence: Iterable[str] = ()) -> Correction:
        """Replace an active claim's value: the new value is remembered on the same slot (same subject,
        predicate, coordinates, polarity, scope, namespace), which supersedes the old claim on a
        single-valued slot; on a multi-valued one the old claim is retracted. The old claim stays in
        history either way.

        :param valid_from: when the new value started to hold (default now).
        :param qualifiers: the new claim's qualifiers (default: the old claim's).
        :param evidence: event ids the new value rests on (they must be live, ADR 0023).
        :raises NotFound: no such claim, or it was forgotten.
        :raises DomainRuleViolation: the claim is no longer active (already superseded, retracted
            or expired): correct the current one, named in the message when there is one.
        :raises ValidationError: a blank value, or an event id.
        """
        if not (value or "").strip():
            raise ValidationError("correct needs the new value", field="value")
        claim_id = self.resolve(claim_id)  # a packet handle names the claim it showed (ADR 0092)
        claim = self.get(claim_id)
        if not isinstance(claim, ClaimState):
            raise ValidationError(f"{claim_id} is an event; only a claim (cl_…) can be corrected", field="claim_id")
        if claim.status is not ClaimStatus.ACTIVE:
            current = f"; the current claim is {claim.superseded_by}" if claim.superseded_by else ""
            raise DomainRuleViolation(f"{claim_id} is {claim.status.value}, not active: correct the current "
                                      f"claim instead{current}")
        write = self.remember(
            claim.subject, claim.predicate, value,
            qualifiers=dict(claim.qualifiers) if qualifiers is None else qualifiers,
            coordinates=dict(claim.coordinates), valid_from=valid_from, importance=claim.importance,
            scope=claim.scope, polarity=claim.polarity, cardinality=claim.cardinality, namespace=claim.namespace,
            evidence=evidence)
        retracted = False
        if write.id != claim_id:
            old = self.get(claim_id)
            if isinstance(old, ClaimState) and old.status is ClaimStatus.ACTIVE:
                self.retract(claim_id, reason or f"corrected by {write.id}")
                retracted = True
        return Correction(write=write, corrected=claim_id, retracted=retracted)
