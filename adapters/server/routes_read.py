"""Read routes: health, memories (list, get), recall, explain, history."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Query, Request
from fastapi.responses import PlainTextResponse

from hlmem.adapters.page_cursor import check_cursor
from hlmem.adapters.server.models import RecallIn
from hlmem.adapters.server.shared import call
from hlmem.adapters.wire.claims import claim_dict, explanation_dict
from hlmem.adapters.wire.recall import recall_dict
from hlmem.domain.errors import ValidationError

router = APIRouter()

Filter = Annotated[str | None, Query(min_length=1, max_length=1000)]


@router.get("/health", tags=["health"], summary="Liveness (no token needed)")
def health() -> dict[str, str]:
    return {"status": "ok"}


@router.get("/v1/memories", tags=["memories"],
            summary="List claims by id, filtered; pass next_cursor as cursor for the next page")
def list_memories(request: Request, subject: Filter = None, predicate: Filter = None,
                  namespace: Annotated[str | None, Query(min_length=1, max_length=200)] = None,
                  status: Literal["active", "superseded", "retracted", "expired"] | None = None,
                  limit: Annotated[int, Query(ge=1, le=1000)] = 50,
                  cursor: Annotated[str | None, Query(max_length=200)] = None) -> dict[str, Any]:
    after = check_cursor(cursor, "cl")
    page = call(request, lambda mem: mem.claims(subject=subject, predicate=predicate, status=status,
                                                namespace=namespace, limit=limit, after=after))
    return {"items": [claim_dict(c) for c in page.items], "next_cursor": page.next_cursor}


@router.get("/v1/memories/{claim_id}", tags=["memories"], summary="One claim with its versions")
def get_memory(request: Request, claim_id: str) -> dict[str, Any]:
    return claim_dict(call(request, lambda mem: mem.claim(claim_id)))


@router.post("/v1/recall", tags=["recall"], summary="Relevant claims and events at (valid_at, known_at)",
             responses={200: {"content": {"text/plain": {}}, "description": "JSON, or the packet's text"}})
def recall(request: Request, body: RecallIn) -> Any:
    if body.format == "packet" and body.budget is None:
        raise ValidationError("format 'packet' needs a token budget (budget)", field="budget")
    result = call(request, lambda mem: mem.recall(
        body.query, k=body.k, valid_at=body.valid_at, known_at=body.known_at, now=body.now, kinds=body.kinds,
        namespace=body.namespace, include_archived=body.include_archived, understand_query=body.understand_query,
        entity_constraint=body.entity_constraint, budget=body.budget, session=body.session,
        intent=body.intent, packet_version=body.packet_version))
    if body.format == "packet":
        return PlainTextResponse(result.packet.text)
    return recall_dict(result)


@router.get("/v1/explain/{item_id}", tags=["explain"],
            summary="Why memory holds an id: evidence verbatim, supersede chain, both clocks")
def explain(request: Request, item_id: str) -> dict[str, Any]:
    return explanation_dict(call(request, lambda mem: mem.explain(item_id)))


@router.get("/v1/history", tags=["history"], summary="A slot's claims, oldest first")
def history(request: Request, subject: Annotated[str, Query(min_length=1, max_length=1000)],
            predicate: Annotated[str, Query(min_length=1, max_length=1000)],
            namespace: Annotated[str | None, Query(min_length=1, max_length=200)] = None) -> dict[str, Any]:
    claims = call(request, lambda mem: mem.history(subject, predicate, namespace=namespace))
    return {"items": [claim_dict(c) for c in claims]}
