"""A derived item with its sources as JSON (docs/derived.md, ADR 0046)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from hlmem.application.derived import DerivedView


def view_dict(view: DerivedView) -> dict[str, Any]:
    """A derived item with its sources as plain data."""
    d = view.item
    return {"id": d.derived_id, "kind": d.kind, "namespace": d.namespace, "subject": d.subject, "family": d.family,
            "label": d.label, "text": d.text, "language": d.language, "status": d.status,
            "stale_reason": d.stale_reason or None, "built_at": d.built_at.isoformat(), "watermark": d.watermark,
            "builder": d.builder, "version": d.version,
            "sources": [{"claim_id": s.claim_id, "version": s.version, "status": s.status, "subject": s.subject,
                         "predicate": s.predicate, "value": s.value} for s in view.sources]}
