"""Relation routes: the review queue of relations between people and things (docs/relations.md, ADR 0081)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Query, Request

from hlmem.adapters.server.models import RelationReviewIn, RelationScanIn
from hlmem.adapters.server.shared import call
from hlmem.adapters.wire.relations import page_dict, scan_dict, view_dict

router = APIRouter()

Namespace = Annotated[str | None, Query(min_length=1, max_length=200)]
Status = Literal["proposed", "accepted", "rejected", "retired", "forgotten", "all"]


@router.get("/v1/relations", tags=["relations"],
            summary="Relations ordered by id (the review queue by default), a page and its next cursor")
def list_relations(request: Request, status: Status = "proposed",
                   entity: Annotated[str | None, Query(min_length=1, max_length=500)] = None,
                   limit: Annotated[int, Query(ge=1, le=1000)] = 50,
                   after: Annotated[str | None, Query(min_length=1, max_length=200)] = None,
                   namespace: Namespace = None) -> dict[str, Any]:
    page = call(request, lambda mem: mem.relations.page(status=None if status == "all" else status, entity=entity,
                                                        limit=limit, after=after, namespace=namespace))
    return page_dict(page)


@router.get("/v1/relations/{relation_id}", tags=["relations"], summary="One relation with its evidence as it stands now")
def get_relation(request: Request, relation_id: str) -> dict[str, Any]:
    return view_dict(call(request, lambda mem: mem.relations.get(relation_id)))


@router.post("/v1/relations/{relation_id}/accept", tags=["relations"],
             summary="Accept a relation (refused when retired, forgotten or its evidence is no longer current)")
def accept_relation(request: Request, relation_id: str, body: RelationReviewIn) -> dict[str, Any]:
    return view_dict(call(request, lambda mem: mem.relations.accept(relation_id, reason=body.reason, actor=body.actor)))


@router.post("/v1/relations/{relation_id}/reject", tags=["relations"],
             summary="Reject a relation: it leaves the queue and is never proposed again")
def reject_relation(request: Request, relation_id: str, body: RelationReviewIn) -> dict[str, Any]:
    return view_dict(call(request, lambda mem: mem.relations.reject(relation_id, reason=body.reason, actor=body.actor)))


@router.post("/v1/relations/scan", tags=["relations"],
             summary="Propose relations from every current claim of a namespace (idempotent)")
def scan_relations(request: Request, body: RelationScanIn) -> dict[str, Any]:
    return scan_dict(call(request, lambda mem: mem.relations.scan(namespace=body.namespace)))
