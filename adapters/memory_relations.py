"""``mem.relations``: relations between people and things and their review queue (docs/relations.md).

The same calls as ``hlmem relations …``, ``/v1/relations…`` and MCP's ``memory_relation_*`` tools
(ADR 0077's role namespaces), each one call into
:class:`~hlmem.application.relations.RelationService` (ADR 0081).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from hlmem.adapters.memory_roles import _Role

if TYPE_CHECKING:
    from hlmem.application.relations import RelationPage, RelationView, ScanReport
    from hlmem.domain.relations import RelationState


class Relations(_Role):
    """Edges between people and things: list, get, accept, reject, scan (``mem.relations()`` lists)."""

    @property
    def enabled(self) -> bool:
        """Whether writes propose edges (``[relations] enabled``; edges follow their evidence either way)."""
        return bool(self._container.config.relations.enabled())

    def list(self, *, status: str | None = None, entity: str | None = None, namespace: str | None = None,
             limit: int = 50, after: str | None = None) -> list[RelationState]:
        """Edges ordered by id (``status="proposed"``: the review queue; ``entity``: a name or ``en_`` id)."""
        return self._container.relations().list(self._ns(namespace), status=status, entity=entity, limit=limit,
                                                 after=after)

    __call__ = list

    def page(self, *, status: str | None = None, entity: str | None = None, namespace: str | None = None,
             limit: int = 50, after: str | None = None) -> RelationPage:
        """A page of edges and the cursor of the next (``after=`` it)."""
        return self._container.relations().page(self._ns(namespace), status=status, entity=entity, limit=limit,
                                                 after=after)

    def get(self, relation_id: str) -> RelationView:
        """One edge (``rl_…``) with its evidence as it stands now."""
        return self._container.relations().get(relation_id)

    def accept(self, relation_id: str, *, reason: str = "", actor: str = "user") -> RelationView:
        """Accept an edge (refused when it is retired, forgotten or its evidence is no longer live)."""
        return self._container.relations().accept(relation_id, actor=actor, reason=reason)

    def reject(self, relation_id: str, *, reason: str = "", actor: str = "user") -> RelationView:
        """Reject an edge: it leaves the queue and is never proposed again."""
        return self._container.relations().reject(relation_id, actor=actor, reason=reason)

    def scan(self, *, namespace: str | None = None) -> ScanReport:
        """Propose edges from every current claim of the namespace (claims written before relations were on)."""
        return self._container.relations().scan(self._ns(namespace))

    def counts(self, *, namespace: str | None = None) -> dict[str, int]:
        """Edges per status."""
        return self._container.relations().counts(self._ns(namespace))
