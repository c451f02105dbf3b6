"""A forget report as JSON: what was (or, on a dry run, would be) forgotten, counted."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from hlmem.domain.time import format_timestamp

if TYPE_CHECKING:
    from hlmem.application.forgetting import ForgetReport


def report_dict(report: ForgetReport) -> dict[str, Any]:
    """A forget report as JSON."""
    return {"target_kind": report.target_kind, "target": report.target, "namespace": report.namespace,
            "forget_id": report.forget_id, "dry_run": report.dry_run, "already_forgotten": report.already_forgotten,
            "forgotten_at": format_timestamp(report.forgotten_at), "counts": dict(report.counts),
            "items": list(report.items), "notes": list(report.notes), "erasure_pending": report.erasure_pending}
