"""Write routes: events (one and a batch), memories (remember, correct, retract), forget, feedback."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request

from hlmem.adapters.server.models import (
    CorrectIn,
    EventBatchIn,
    EventIn,
    FeedbackIn,
    ForgetIn,
    MemoryIn,
    RetractIn,
)
from hlmem.adapters.server.shared import call, state
from hlmem.adapters.wire.forget import report_dict
from hlmem.adapters.wire.writes import save_dict as _added
from hlmem.adapters.wire.writes import write_dict as _write

router = APIRouter()


def _event(event: EventIn) -> dict[str, Any]:
    return {"text": event.text, "session": event.session, "role": event.role, "origin": event.origin,
            "session_kind": event.session_kind, "occurred_at": event.occurred_at, "namespace": event.namespace}


@router.post("/v1/events", status_code=201, tags=["events"], summary="Record one raw event verbatim")
def add_event(request: Request, event: EventIn) -> dict[str, Any]:
    served = state(request)  # concurrent requests share a transaction (group commit, ADR 0036)
    return _added(served.group.add(served.memory, _event(event), extract=event.extract, process=event.process))


@router.post("/v1/events:batch", status_code=201, tags=["events"],
             summary="Record a batch of events in order, in one transaction (all or none)")
def add_events(request: Request, batch: EventBatchIn) -> dict[str, Any]:
    events = [_event(e) | {"extract": e.extract, "process": e.process} for e in batch.events]
    return call(request, lambda mem: {"items": [_added(r) for r in mem.add_many(events)]})


@router.post("/v1/memories", status_code=201, tags=["memories"], summary="Assert an explicit claim")
def remember(request: Request, claim: MemoryIn) -> dict[str, Any]:
    def run(mem: Any) -> dict[str, Any]:
        return _write(mem.remember(
            claim.subject, claim.predicate, claim.value, qualifiers=claim.qualifiers,
            coordinates=claim.coordinates, valid_from=claim.valid_from, valid_to=claim.valid_to,
            importance=claim.importance, scope=claim.scope, polarity=claim.polarity,
            cardinality=claim.cardinality, evidence=claim.evidence, namespace=claim.namespace))
    return call(request, run)


@router.post("/v1/memories/{claim_id}/correct", tags=["memories"],
             summary="Give an active claim a new value (the new claim supersedes it)")
def correct(request: Request, claim_id: str, body: CorrectIn) -> dict[str, Any]:
    return call(request, lambda mem: _write(mem.correct(claim_id, body.value, valid_from=body.valid_from,
                                                        evidence=body.evidence, reason=body.reason).write))


@router.post("/v1/memories/{claim_id}/retract", tags=["memories"],
             summary="Stop believing a claim from now on (history keeps it)")
def retract(request: Request, claim_id: str, body: RetractIn) -> dict[str, Any]:
    def run(mem: Any) -> dict[str, Any]:
        mem.claim(claim_id)  # 404 for an unknown or forgotten id
        return _write(mem.retract(claim_id, body.reason))
    return call(request, run)


@router.post("/v1/forget", tags=["forget"],
             summary="Forget a claim or event by id, a session or a subject, with the cascade (dry_run shows it)")
def forget(request: Request, body: ForgetIn) -> dict[str, Any]:
    return call(request, lambda mem: report_dict(mem.forget(
        body.id, session=body.session, subject=body.subject, namespace=body.namespace, dry_run=body.dry_run,
        actor="rest", reason=body.reason)))


@router.post("/v1/feedback", tags=["feedback"], summary="Say whether a recalled claim or event helped")
def feedback(request: Request, body: FeedbackIn) -> dict[str, Any]:
    return call(request, lambda mem: _write(mem.feedback(body.item_id, body.verdict, actor=body.actor,
                                                         reason=body.reason)))
