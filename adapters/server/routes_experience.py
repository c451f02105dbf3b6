"""Experience routes: episodes (start, step, end, show, list, forget), policies, procedures (docs/experience.md).

Each route is one call into the ``Memory`` facade and the CLI's ``episode … --json`` shape
(:mod:`hlmem.adapters.wire.experience`). Induction runs inside the end, in its transaction:
the end's answer lists what it changed. Recall returns procedures and policies already
(``POST /v1/recall``, ``intent``).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Query, Request

from hlmem.adapters.page_cursor import check_cursor
from hlmem.adapters.server.models import EpisodeEndIn, EpisodeForgetIn, EpisodeIn, StepIn
from hlmem.adapters.server.shared import call
from hlmem.adapters.wire.experience import end_dict, episode_dict, policy_dict, procedure_dict, step_dict
from hlmem.adapters.wire.forget import report_dict

router = APIRouter()

Namespace = Annotated[str | None, Query(min_length=1, max_length=200)]
#: Every write through REST is recorded with this actor where the log keeps one.
ACTOR = "rest"


@router.post("/v1/episodes", status_code=201, tags=["episodes"],
             summary="Begin an episode towards a goal; answers it, running")
def start_episode(request: Request, body: EpisodeIn) -> dict[str, Any]:
    return call(request, lambda mem: episode_dict(mem.episodes.start(
        body.goal, context=body.context, approach=body.approach, namespace=body.namespace,
        started_at=body.started_at, actor=ACTOR)))


@router.post("/v1/episodes/{episode_id}/steps", status_code=201, tags=["episodes"],
             summary="Append a step to a running episode's trace (409 once it has ended)")
def record_step(request: Request, episode_id: str, body: StepIn) -> dict[str, Any]:
    return call(request, lambda mem: step_dict(mem.episodes.step(
        episode_id, body.action, tool=body.tool, observation=body.observation, error=body.error, cost=body.cost,
        value=body.value, evidence=body.evidence, occurred_at=body.occurred_at)))


@router.post("/v1/episodes/{episode_id}/end", tags=["episodes"],
             summary="End a running episode once; answers what it changed in policies and procedures")
def end_episode(request: Request, episode_id: str, body: EpisodeEndIn) -> dict[str, Any]:
    return call(request, lambda mem: end_dict(mem.episodes.end(
        episode_id, body.status, reward=body.reward, outcome=body.outcome, approach=body.approach)))


@router.get("/v1/episodes/{episode_id}", tags=["episodes"], summary="One episode with its trace")
def get_episode(request: Request, episode_id: str) -> dict[str, Any]:
    return episode_dict(call(request, lambda mem: mem.episodes.get(episode_id)))


@router.get("/v1/episodes", tags=["episodes"],
            summary="List episodes by id (without traces); pass next_cursor as cursor for the next page")
def list_episodes(request: Request,
                  status: Literal["running", "succeeded", "failed", "cancelled", "forgotten"] | None = None,
                  namespace: Namespace = None, limit: Annotated[int, Query(ge=1, le=1000)] = 50,
                  cursor: Annotated[str | None, Query(max_length=200)] = None) -> dict[str, Any]:
    after = check_cursor(cursor, "ep")
    page = call(request, lambda mem: mem.episodes.page(status=status, namespace=namespace, limit=limit,
                                                      after=after))
    return {"items": [episode_dict(e, steps=False) for e in page.items], "next_cursor": page.next_cursor}


@router.post("/v1/episodes/{episode_id}/forget", tags=["episodes"],
             summary="Forget an episode, its trace, procedures built from it and policies it alone supports")
def forget_episode(request: Request, episode_id: str, body: EpisodeForgetIn) -> dict[str, Any]:
    return call(request, lambda mem: report_dict(mem.episodes.forget(episode_id, dry_run=body.dry_run, actor=ACTOR,
                                                                    reason=body.reason)))


@router.get("/v1/policies", tags=["policies"],
            summary="Policies learnt (in situation T prefer approach P), with support and reliability; with query, "
                    "the live ones a how-to question asks for, best first")
def list_policies(request: Request, status: Literal["candidate", "active", "retired", "forgotten"] | None = None,
                  namespace: Namespace = None,
                  query: Annotated[str | None, Query(min_length=1, max_length=2000)] = None) -> dict[str, Any]:
    def run(mem: Any) -> dict[str, Any]:
        thresholds = mem.policies.thresholds
        found = mem.policies.list(status=status, namespace=namespace, query=query)
        return {"items": [policy_dict(p, thresholds) for p in found]}
    return call(request, run)


@router.get("/v1/procedures", tags=["procedures"], summary="Procedures, every version: a reliable policy's steps")
def list_procedures(request: Request, status: Literal["active", "demoted", "forgotten"] | None = None,
                    namespace: Namespace = None) -> dict[str, Any]:
    found = call(request, lambda mem: mem.procedures.list(status=status, namespace=namespace))
    return {"items": [procedure_dict(p) for p in found]}
