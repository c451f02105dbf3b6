"""The relations role (ADR 0081): edges between people and things as projected.

A store keeps them as ``store.relations`` (:class:`HasRelations`); its projection is updated by
the store's own ``append`` through :func:`hlmem.domain.relations.reduce_relation`, in the append's
transaction, like every other projection.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

from hlmem.application.ports.basics import Transactional
from hlmem.application.ports.claims import ClaimReader
from hlmem.application.ports.event_log import EventLog
from hlmem.application.ports.governance import Erasure, HasTombstoneLedger
from hlmem.domain.relations import RelationState


@runtime_checkable
class RelationReader(Protocol):
    """Reads of the relation projection.

    Contract:
    - ``get_relations(ids)`` returns the state of each id that names a relation (forgotten ones as
      tombstones: status ``forgotten``, names blank) and leaves the others out.
    - ``relations(namespace, status=None, entities=(), after=None, limit=100)`` lists one
      namespace's relations ordered by id, after ``after`` (exclusive), at most ``limit``; of one
      ``status`` when given, else every status but ``forgotten``; with ``entities`` (``en_…`` ids)
      only edges with either end among them.
    - ``relations_citing(item_ids)`` returns every relation whose evidence holds any of the claim
      or event ids, whatever its status, keyed by id (the write path asks it inside its
      transaction, so it must see the transaction's own writes).
    - ``relation_counts(namespace)`` is ``{status: n}`` of one namespace, statuses with none left out.
    """

    def get_relations(self, ids: Sequence[str]) -> dict[str, RelationState]: ...

    def relations(self, namespace: str, *, status: str | None = None, entities: Sequence[str] = (),
                  after: str | None = None, limit: int = 100) -> list[RelationState]: ...

    def relations_citing(self, item_ids: Sequence[str]) -> dict[str, RelationState]: ...

    def relation_counts(self, namespace: str) -> dict[str, int]: ...


@runtime_checkable
class HasRelations(Protocol):
    """A store that keeps the relation projection as ``store.relations``."""

    relations: RelationReader


@runtime_checkable
class RelationStore(EventLog, ClaimReader, Erasure, HasTombstoneLedger, Transactional, HasRelations, Protocol):
    """Relations (``RelationGuard``, ``RelationService``): read claims, observations and relations,
    append proposals, reviews and lifecycle events, erase and tombstone a relation whose evidence
    was forgotten, all in one transaction (ADR 0081)."""


@runtime_checkable
class RelationRecallStore(ClaimReader, HasTombstoneLedger, HasRelations, Protocol):
    """Recall through accepted edges (``RelationHops``, ADR 0085): the accepted edges at an entity
    (``relations(namespace, status="accepted", entities=…)``), the store's key its entity ids are
    hashed under, and the claims and turns an edge's evidence names. Reads only."""
