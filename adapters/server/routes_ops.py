"""Operator routes: conflicts, jobs, stats, audit, backup (into the server's backup directory only)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Query, Request

from hlmem.adapters.server.backups import backup_into
from hlmem.adapters.server.models import BackupIn, ResolveIn
from hlmem.adapters.server.shared import call, state
from hlmem.adapters.wire.governance import audit_dict, backup_dict
from hlmem.adapters.wire.pipeline import conflict_dict, job_dict
from hlmem.domain.errors import NotFound

router = APIRouter()

Namespace = Annotated[str | None, Query(min_length=1, max_length=200)]


@router.get("/v1/conflicts", tags=["conflicts"], summary="Conflicts (open by default), oldest first")
def list_conflicts(request: Request, status: Literal["open", "resolved", "all"] = "open",
                   namespace: Namespace = None) -> dict[str, Any]:
    found = call(request, lambda mem: mem.conflicts.list(status=None if status == "all" else status, namespace=namespace))
    return {"items": [conflict_dict(c) for c in found]}


def _conflict(mem: Any, conflict_id: str) -> Any:
    found = mem.storage.get_conflicts([conflict_id]).get(conflict_id)
    if found is None:
        raise NotFound(f"no conflict {conflict_id}")
    return found


@router.get("/v1/conflicts/{conflict_id}", tags=["conflicts"], summary="One conflict with its version")
def get_conflict(request: Request, conflict_id: str) -> dict[str, Any]:
    return conflict_dict(call(request, _conflict, conflict_id))


@router.post("/v1/conflicts/{conflict_id}/resolve", tags=["conflicts"],
             summary="Decide a conflict on the version you saw (409 stale_version when it moved on)")
def resolve_conflict(request: Request, conflict_id: str, body: ResolveIn) -> dict[str, Any]:
    result = call(request, lambda mem: mem.conflicts.resolve(conflict_id, body.decision,
                                                            expected_version=body.expected_version))
    return {"id": result.conflict_id, "decision": result.decision, "claim_id": result.claim_id}


@router.get("/v1/jobs", tags=["jobs"], summary="Jobs and counts by type and state")
def list_jobs(request: Request, state: Literal["pending", "running", "succeeded", "failed", "dead"] | None = None,
              limit: Annotated[int, Query(ge=1, le=10_000)] = 50) -> dict[str, Any]:
    return call(request, lambda mem: {"counts": mem.jobs.job_counts(),
                                      "jobs": [job_dict(j) for j in mem.jobs.jobs(state=state, limit=limit)]})


@router.post("/v1/jobs/{job_id}/retry", tags=["jobs"], summary="Re-queue a dead or failed job")
def retry_job(request: Request, job_id: str) -> dict[str, Any]:
    call(request, lambda mem: mem.retry_job(job_id))  # NotFound: 404; not dead or failed: 400
    return {"id": job_id, "requeued": True}


@router.get("/v1/stats", tags=["stats"], summary="Counts of events, claims by status and vectors; the model")
def stats(request: Request) -> dict[str, Any]:
    return call(request, lambda mem: mem.stats())


@router.get("/v1/audit", tags=["audit"], summary="Governance actions, newest first")
def audit(request: Request, since: Annotated[str | None, Query(max_length=64)] = None,
          kind: Annotated[list[str] | None, Query(max_length=20)] = None,
          limit: Annotated[int, Query(ge=1, le=10_000)] = 50, namespace: Namespace = None) -> dict[str, Any]:
    entries = call(request, lambda mem: mem.audit(since=since, kinds=kind or None, limit=limit, namespace=namespace))
    return {"items": [audit_dict(e) for e in entries]}


@router.post("/v1/backup", status_code=201, tags=["backup"],
             summary="Back the store up into the server's backup directory (a new file; answers where)")
def backup(request: Request, body: BackupIn | None = None) -> dict[str, Any]:
    folder, name = state(request).backup_dir, body.name if body is not None else None
    return backup_dict(call(request, lambda mem: backup_into(mem, folder, name)))
