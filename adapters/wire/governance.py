"""Backups, restores and the governance audit as JSON."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from hlmem.domain.time import format_timestamp as ts

if TYPE_CHECKING:  # the SQLite modules load when a command runs: ``hlmem --help`` opens no store
    from hlmem.adapters.sqlite.backup import BackupInfo
    from hlmem.adapters.sqlite.restore import RestoreInfo
    from hlmem.application.audit import AuditEntry


def backup_dict(info: BackupInfo) -> dict[str, Any]:
    """A backup's record as JSON."""
    out = {"backup_id": info.backup_id, "store_id": info.store_id, "position": info.position,
           "created_at": ts(info.created_at), "hlmem_version": info.hlmem_version, "path": info.path,
           "size_bytes": info.size_bytes, "seconds": round(info.seconds, 3)}
    if info.removed:  # temporaries of interrupted backups and restores, found stale and removed
        out["stale_removed"] = [{"path": str(x.path), "size_bytes": x.size} for x in info.removed]
    return out


def restore_dict(info: RestoreInfo) -> dict[str, Any]:
    """What a restore did, as JSON."""
    return {"backup": backup_dict(info.backup), "db": info.live_path, "restored_id": info.restored_id,
            "position": info.position, "reapplied": info.reapplied, "tombstones": info.tombstones,
            "ledger_applied": info.ledger_applied, "forced": info.forced,
            "previous_store_id": info.previous_store_id, "notes": list(info.notes), "seconds": round(info.seconds, 3)}


def audit_dict(entry: AuditEntry) -> dict[str, Any]:
    """One governance action as JSON."""
    return {"position": entry.position, "event_id": entry.event_id, "at": ts(entry.at), "kind": entry.kind,
            "actor": entry.actor, "target": entry.target, "stream_id": entry.stream_id,
            "namespace": entry.namespace, "detail": entry.detail, "extra": dict(entry.extra)}
