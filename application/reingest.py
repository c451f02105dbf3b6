"""Re-ingest blocking: content whose fingerprint is in the tombstone ledger does not come back.

The write path asks :class:`ReingestGuard` before embedding and again under the write lock
(``IngestService.add``, ``WriteService.remember``: ``WriteService.write_batch(guard=)``, ADR 0064;
``ImportService`` screens every line with it); the
extractor is wrapped in :class:`GatedExtractor`, so a claim whose content was forgotten is not
extracted again from a new turn. Blocking of writes is configurable (``block_reingest``, on by
default); replay and restore always enforce tombstones.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, cast

from hlmem.application.ports import TombstoneLedger
from hlmem.domain.commands import AssertClaim, RecordObservation
from hlmem.domain.forgetting import ForgottenContent, claim_fingerprint, observation_fingerprint
from hlmem.domain.slots import SlotRegistry

if TYPE_CHECKING:
    from hlmem.application.pipeline import Extractor, RelationReader
    from hlmem.domain.relation_mentions import RelationMention
    from hlmem.domain.candidates import CandidateClaim, SourceEvent


class ReingestGuard:
    """Says whether content was forgotten (by salted fingerprint); ``enabled=False`` lets all in."""

    def __init__(self, ledger: TombstoneLedger, registry: SlotRegistry, *, enabled: bool = True) -> None:
        self._ledger = ledger
        self._registry = registry
        self.enabled = enabled

    def _claim_fp(self, subject: str, predicate: str, value: str, salt: bytes) -> str:
        return claim_fingerprint(subject, self._registry.canonical(predicate), value, salt)

    def _fingerprint(self, cmd: RecordObservation | AssertClaim, salt: bytes) -> str:
        # Malformed input is not this guard's business: validation refuses it with a better message.
        if isinstance(cmd, RecordObservation):
            return observation_fingerprint(cmd.text, salt) if isinstance(cmd.text, str) else ""
        parts = (cmd.subject, cmd.predicate, cmd.value)
        return self._claim_fp(*parts, salt) if all(isinstance(p, str) for p in parts) else ""

    def fingerprints(self, commands: Sequence[RecordObservation | AssertClaim]) -> list[str]:
        """Each command's content fingerprint ("" for none); all "" when blocking is off."""
        if not self.enabled or not commands:
            return [""] * len(commands)
        salt = self._ledger.salt()
        return [self._fingerprint(c, salt) for c in commands]

    def blocked(self, commands: Sequence[RecordObservation | AssertClaim], *,
                fingerprints: Sequence[str] | None = None) -> list[bool]:
        """For each command, whether its content (an event's text, a claim's subject, predicate
        and value) was forgotten; all False when blocking is off. One ledger query.

        :param fingerprints: :meth:`fingerprints` of ``commands``, computed earlier (a write
            computes them before its transaction and asks again inside it).
        """
        if not self.enabled or not commands:
            return [False] * len(commands)
        fps = list(fingerprints) if fingerprints is not None else self.fingerprints(commands)
        held = self._ledger.matching(fps)
        return [bool(fp) and fp in held for fp in fps]

    def is_blocked(self, *, text: str | None = None, claim: tuple[str, str, str] | None = None) -> bool:
        """Whether this event text or ``(subject, predicate, value)`` was forgotten."""
        commands: list[RecordObservation | AssertClaim] = []
        if text is not None:
            commands.append(RecordObservation(text=text))
        if claim is not None:
            commands.append(AssertClaim(subject=claim[0], predicate=claim[1], value=claim[2]))
        return any(self.blocked(commands))

    def refuse(self, commands: Sequence[RecordObservation | AssertClaim], *,
               fingerprints: Sequence[str] | None = None) -> list[str]:
        """Raise :class:`ForgottenContent` if any command's content was forgotten (nothing is
        written); else return the fingerprints, for a second look under the write lock."""
        fps = list(fingerprints) if fingerprints is not None else self.fingerprints(commands)
        for cmd, blocked in zip(commands, self.blocked(commands, fingerprints=fps)):
            if blocked:
                what = "this text" if isinstance(cmd, RecordObservation) else \
                    f"the claim {cmd.subject} · {cmd.predicate} · {cmd.value}"
                raise ForgottenContent(f"{what} was forgotten; re-ingest of forgotten content is blocked "
                                       "(block_reingest=False, or HLMEM_BLOCK_REINGEST=0, allows it)")
        return fps


class GatedExtractor:
    """An extractor whose candidates with forgotten content are dropped (when blocking is on)."""

    def __init__(self, inner: Extractor, guard: ReingestGuard) -> None:
        self._inner = inner
        self._guard = guard

    @property
    def name(self) -> str:
        """The inner extractor's name (records and provenance name the real extractor)."""
        return self._inner.name

    def extract(self, events: Sequence[SourceEvent], *, job_id: str | None = None) -> list[CandidateClaim]:
        """The inner extractor's candidates, less those whose content was forgotten."""
        return self._gated(self._inner.extract(events, job_id=job_id))

    def extract_relations(self, events: Sequence[SourceEvent], *,
                          job_id: str | None = None) -> tuple[list[CandidateClaim], list[RelationMention]]:
        """The inner extractor's claims (gated as :meth:`extract`'s) and relation mentions; the
        inner one must be a :class:`~hlmem.application.pipeline.RelationReader`."""
        claims, mentions = cast("RelationReader", self._inner).extract_relations(events, job_id=job_id)
        return self._gated(claims), mentions

    def _gated(self, candidates: list[CandidateClaim]) -> list[CandidateClaim]:
        blocked = self._guard.blocked([AssertClaim(subject=c.subject, predicate=c.predicate, value=c.value)
                                       for c in candidates])
        return [c for c, b in zip(candidates, blocked) if not b]
