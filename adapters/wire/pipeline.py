"""The pipeline's rows as JSON: jobs and conflicts."""

from __future__ import annotations

from typing import Any

from hlmem.domain.time import format_timestamp as ts


def job_dict(job) -> dict[str, Any]:
    """A job as JSON."""
    return {"id": job.job_id, "kind": job.kind, "state": job.state, "attempts": job.attempts,
            "max_attempts": job.max_attempts, "session": job.session_id, "payload": dict(job.payload),
            "available_at": ts(job.available_at), "created_at": ts(job.created_at), "updated_at": ts(job.updated_at),
            "last_error": job.last_error, "last_error_class": job.last_error_class,
            # Why a pending job waits (the budget defers, ADR 0034): its reason; null when it does not.
            "waiting": job.last_error if job.state == "pending" and job.last_error_class == "BudgetExceeded" else None}


def conflict_dict(conflict) -> dict[str, Any]:
    """A conflict as JSON."""
    cand = dict(conflict.candidate)
    if cand:  # a forgotten conflict keeps no candidate
        cand.update(scope=getattr(cand["scope"], "value", cand["scope"]), valid_from=ts(cand["valid_from"]),
                    valid_to=ts(cand["valid_to"]), qualifiers=dict(cand["qualifiers"]),
                    coordinates=dict(cand["coordinates"]), evidence=list(cand["evidence"]))
    return {"id": conflict.conflict_id, "status": conflict.status, "version": conflict.version,
            "reason": conflict.reason, "existing": list(conflict.existing), "candidate": cand,
            "opened_at": ts(conflict.opened_at), "decision": conflict.decision, "claim_id": conflict.claim_id}
