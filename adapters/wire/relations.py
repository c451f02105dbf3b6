"""Relations between people and things as JSON (docs/relations.md, ADR 0081).

What ``hlmem relations … --json``, ``/v1/relations…`` and MCP's relation tools answer with.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from hlmem.application.relations import RelationPage, RelationView, ScanReport
    from hlmem.domain.relations import RelationState


def _when(value: Any) -> str | None:
    return None if value is None else value.isoformat()


def relation_dict(r: RelationState) -> dict[str, Any]:
    """One edge: ``source —relation→ target`` with its status, both clocks and its evidence ids."""
    return {"id": r.relation_id, "namespace": r.namespace, "relation": r.relation, "status": r.status,
            "source": {"id": r.source_id, "kind": r.source_kind, "name": r.source_name},
            "target": {"id": r.target_id, "kind": r.target_kind, "name": r.target_name},
            "evidence": list(r.evidence), "rules": list(r.rules), "valid_from": _when(r.valid_from),
            "valid_to": _when(r.valid_to), "proposed_at": _when(r.proposed_at), "reviewed_at": _when(r.reviewed_at),
            "reviewed_by": r.reviewed_by or None, "review_reason": r.review_reason or None,
            "retired_reason": r.retired_reason or None, "version": r.version}


def view_dict(view: RelationView) -> dict[str, Any]:
    """One edge with each evidence item as it stands now (``live``: all still current)."""
    return {**relation_dict(view.relation), "live": view.live,
            "evidence_items": [{"id": e.id, "status": e.status, "text": e.text} for e in view.evidence]}


def page_dict(page: RelationPage) -> dict[str, Any]:
    """A page of edges and the cursor of the next page (None on the last)."""
    return {"items": [relation_dict(r) for r in page.items], "next_cursor": page.next_cursor}


def scan_dict(report: ScanReport) -> dict[str, Any]:
    """What a scan read and proposed."""
    return {"claims": report.claims, "proposed": list(report.proposed), "corroborated": list(report.corroborated)}


def edge_text(r: RelationState) -> str:
    """``source —relation→ target`` in one line (a forgotten edge's names are blank)."""
    return f"{r.source_name or '?'} —{r.relation}→ {r.target_name or '?'}"
